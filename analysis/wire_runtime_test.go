package analysis

import (
	"testing"

	"github.com/mpbench/mpbench/result"
)

// TestRuntimeHeaderByMeta: only mpbench's own runtime over TCP has a
// known header in the stream (32 bytes); MPI libraries' files, mpbench's
// MPI build and runs that cross no wire have none.
func TestRuntimeHeaderByMeta(t *testing.T) {
	for _, c := range []struct {
		tool, transport string
		want            int64
	}{
		{"mpbench", "tcp", 32},
		{"mpbench", "shm+tcp", 32},
		{"mpbench", "shm", 0},
		{"mpbench", "inmem", 0},
		{"mpbench", "mpi (Open MPI v4.1.4, package: Debian OpenMPI)", 0},
		{"IMB-MPI1", "", 0},
		{"IMB-MPI1", "tcp", 0},
		{"OSU", "", 0},
		{"", "tcp", 0},
	} {
		if got, what := RuntimeHeader(result.Meta{Tool: c.tool, Transport: c.transport}); got != c.want || (got != 0) != (what != "") {
			t.Errorf("tool %q transport %q: header %d (%q), want %d", c.tool, c.transport, got, what, c.want)
		}
	}
}

// TestForRunChargesTheHeader: under eth:100m a 0-byte message of
// mpbench's TCP runtime is an 86-byte frame, 110 bytes of line time (8.80
// usec), where a bare TCP segment is padded to 60 bytes, 84 (6.72 usec);
// 1428 bytes still fit one 1460-byte segment with the header, 1429 do
// not (a second frame carrying 1 byte: 78 bytes of framing and 5 of
// padding to the minimum frame more); 1 MiB keeps its 719 frames
// and gains the 32 bytes (80 ns/B: 2.56 usec). The name says what was
// charged; other runs keep the model.
func TestForRunChargesTheHeader(t *testing.T) {
	eth, err := ParseWireModel("eth:100m")
	if err != nil {
		t.Fatal(err)
	}
	tcp := eth.ForRun(result.Meta{Tool: "mpbench", Transport: "tcp"})
	if tcp.Name != "eth:100m:mtu=1500 + mpbench's 32-byte TCP frame header" || tcp.MessageHeader != 32 {
		t.Errorf("model %q with header %d", tcp.Name, tcp.MessageHeader)
	}
	if err := tcp.Validate(); err != nil {
		t.Error(err)
	}
	for _, c := range []struct {
		bytes                  int64
		frames, total          int64
		bareFrames, bareTotal  int64
		wireUsec, bareWireUsec float64
	}{
		{0, 1, 110, 1, 84, 8.80, 6.72},
		{1, 1, 111, 1, 84, 8.88, 6.72},
		{1428, 1, 1538, 1, 1506, 123.04, 120.48},
		{1429, 2, 1622, 1, 1507, 129.76, 120.56},
		{1048576, 719, 1104690, 719, 1104658, 88375.20, 88372.64},
	} {
		if f, n, w := tcp.Frames(c.bytes), tcp.TotalBytes(c.bytes), tcp.WireUsec(c.bytes); f != c.frames || n != c.total || round(w, 2) != c.wireUsec {
			t.Errorf("%d B with the header: %d frames, %d B, %.4f usec; want %d, %d, %.2f", c.bytes, f, n, w, c.frames, c.total, c.wireUsec)
		}
		if f, n, w := eth.Frames(c.bytes), eth.TotalBytes(c.bytes), eth.WireUsec(c.bytes); f != c.bareFrames || n != c.bareTotal || round(w, 2) != c.bareWireUsec {
			t.Errorf("%d B bare: %d frames, %d B, %.4f usec; want %d, %d, %.2f", c.bytes, f, n, w, c.bareFrames, c.bareTotal, c.bareWireUsec)
		}
	}
	if tcp.PayloadMBps() != eth.PayloadMBps() {
		t.Errorf("payload rate %g MB/s with the header, %g without: a per-message header must not change the asymptote", tcp.PayloadMBps(), eth.PayloadMBps())
	}
	for _, m := range []result.Meta{{Tool: "IMB-MPI1"}, {Tool: "mpbench", Transport: "shm"}} {
		if got := eth.ForRun(m); got != eth {
			t.Errorf("%+v: model %+v, want it unchanged", m, got)
		}
	}
	bad := eth
	bad.MessageHeader = -1
	if bad.Validate() == nil {
		t.Error("a negative message header validates")
	}
}
