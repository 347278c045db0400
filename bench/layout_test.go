package bench

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/mpbench/mpbench/coll"
	"github.com/mpbench/mpbench/comm"
)

// postedComm is one rank of a communicator that moves nothing: every
// point-to-point call and every collective (offered natively, so that
// coll hands it the kernel's buffers) returns at once and records, as a
// line, the buffers it was given: which area ("send" or "recv") at which
// slot and offset, and how many bytes ("other" for a buffer outside both
// areas, such as Uniband's acknowledgement). It does not run loops
// (comm.LoopRunner), so the kernels run their own, whose calls a runtime's
// loop must repeat (TestKernelsOfferTheirLoops, mpicheck's
// exchange-loop-layout).
type postedComm struct {
	rank, size int
	bufs       *buffers
	calls      []string
}

// where names the buffer b: "send[slot]+offset:length",
// "recv[slot]+offset:length" or "other:length".
func (c *postedComm) where(b []byte) string {
	for _, a := range []struct {
		name string
		ar   *area
	}{{"send", c.bufs.send}, {"recv", c.bufs.recv}} {
		for k := range a.ar.buf {
			if len(b) > 0 && &a.ar.buf[k] == &b[0] {
				return fmt.Sprintf("%s[%d]+%d:%d", a.name, k/a.ar.stride, k%a.ar.stride, len(b))
			}
		}
	}
	return fmt.Sprintf("other:%d", len(b))
}

func (c *postedComm) post(format string, args ...any) {
	c.calls = append(c.calls, fmt.Sprintf(format, args...))
}

// done is a request that has completed.
type done struct{}

func (done) Wait() (comm.Status, error)       { return comm.Status{}, nil }
func (done) Test() (bool, comm.Status, error) { return true, comm.Status{}, nil }
func (c *postedComm) Rank() int               { return c.rank }
func (c *postedComm) Size() int               { return c.size }
func (c *postedComm) Barrier() error          { return nil }
func (c *postedComm) Split(int, int) (comm.Comm, error) {
	return nil, fmt.Errorf("postedComm: no Split")
}
func (c *postedComm) Wtime() float64 { return 0 }
func (c *postedComm) Wtick() float64 { return 1e-9 }
func (c *postedComm) Send(b []byte, dst, _ int) error {
	c.post("Send %d %s", dst, c.where(b))
	return nil
}
func (c *postedComm) Recv(b []byte, src, _ int) (comm.Status, error) {
	c.post("Recv %d %s", src, c.where(b))
	return comm.Status{Source: src, Count: len(b)}, nil
}
func (c *postedComm) Isend(b []byte, dst, _ int) (comm.Request, error) {
	c.post("Isend %d %s", dst, c.where(b))
	return done{}, nil
}
func (c *postedComm) Irecv(b []byte, src, _ int) (comm.Request, error) {
	c.post("Irecv %d %s", src, c.where(b))
	return done{}, nil
}
func (c *postedComm) Sendrecv(s []byte, dst, _ int, r []byte, src, _ int) (comm.Status, error) {
	c.post("Sendrecv %d %s %d %s", dst, c.where(s), src, c.where(r))
	return comm.Status{Source: src, Count: len(r)}, nil
}
func (c *postedComm) NativeBarrier() error { c.post("Barrier"); return nil }
func (c *postedComm) Bcast(b []byte, root int) error {
	c.post("Bcast %s root %d", c.where(b), root)
	return nil
}
func (c *postedComm) Allreduce(s, r []byte, _ comm.Op, _ comm.Datatype) error {
	c.post("Allreduce %s %s", c.where(s), c.where(r))
	return nil
}
func (c *postedComm) Reduce(s, r []byte, _ comm.Op, _ comm.Datatype, root int) error {
	c.post("Reduce %s %s root %d", c.where(s), c.where(r), root)
	return nil
}
func (c *postedComm) ReduceScatter(s, r []byte, counts []int, _ comm.Op, _ comm.Datatype) error {
	c.post("Reduce_scatter %s %s counts %v", c.where(s), c.where(r), counts)
	return nil
}
func (c *postedComm) ReduceScatterBlock(s, r []byte, _ comm.Op, _ comm.Datatype) error {
	c.post("Reduce_scatter_block %s %s", c.where(s), c.where(r))
	return nil
}
func (c *postedComm) Allgather(s, r []byte) error {
	c.post("Allgather %s %s", c.where(s), c.where(r))
	return nil
}
func (c *postedComm) Allgatherv(s, r []byte, counts, displs []int) error {
	c.post("Allgatherv %s %s counts %v displs %v", c.where(s), c.where(r), counts, displs)
	return nil
}
func (c *postedComm) Gather(s, r []byte, root int) error {
	c.post("Gather %s %s root %d", c.where(s), c.where(r), root)
	return nil
}
func (c *postedComm) Gatherv(s, r []byte, counts, displs []int, root int) error {
	c.post("Gatherv %s %s counts %v displs %v root %d", c.where(s), c.where(r), counts, displs, root)
	return nil
}
func (c *postedComm) Scatter(s, r []byte, root int) error {
	c.post("Scatter %s %s root %d", c.where(s), c.where(r), root)
	return nil
}
func (c *postedComm) Scatterv(s []byte, counts, displs []int, r []byte, root int) error {
	c.post("Scatterv %s counts %v displs %v %s root %d", c.where(s), counts, displs, c.where(r), root)
	return nil
}
func (c *postedComm) Alltoall(s, r []byte) error {
	c.post("Alltoall %s %s", c.where(s), c.where(r))
	return nil
}
func (c *postedComm) Alltoallv(s []byte, sc, sd []int, r []byte, rc, rd []int) error {
	c.post("Alltoallv %s counts %v displs %v %s counts %v displs %v", c.where(s), sc, sd, c.where(r), rc, rd)
	return nil
}

// imbPosted is what one iteration of an IMB-MPI1 2021.11 kernel posts on
// rank r of p for messages of b bytes, window w: the buffers of each call
// in the order of src_c/IMB_*.c, as postedComm records them, with send
// and recv the slot strings of the iteration (IMB's
// s_buffer + i % s_cache_iter * s_offs and its r_buffer counterpart) and
// slot(k) those of window message k (Uniband, Biband: ws % cache_iter).
type imbPosted func(r, p, b, w int, send, recv func(off, n int) string, slot func(area string, k, off, n int) string) []string

// imbKernels are IMB's kernels by benchmark (Reduce_local, which
// communicates nothing, is not observable here; its loop is checked in
// TestKernelsOfferTheirLoops).
var imbKernels = map[string]imbPosted{
	"PingPong":               pingPongPosted(false),
	"PingPongSpecificSource": pingPongPosted(false),
	"PingPongAnySource":      pingPongPosted(true),
	"PingPing":               pingPingPosted(false),
	"PingPingSpecificSource": pingPingPosted(false),
	"PingPingAnySource":      pingPingPosted(true),
	"Sendrecv": func(r, p, b, _ int, send, recv func(int, int) string, _ func(string, int, int, int) string) []string {
		return []string{fmt.Sprintf("Sendrecv %d %s %d %s", right(r, p), send(0, b), left(r, p), recv(0, b))}
	},
	// IMB_exchange.c: s_buffer to the right, s_buffer + size to the left,
	// both receives into r_buffer.
	"Exchange": func(r, p, b, _ int, send, recv func(int, int) string, _ func(string, int, int, int) string) []string {
		return []string{
			fmt.Sprintf("Isend %d %s", right(r, p), send(0, b)),
			fmt.Sprintf("Isend %d %s", left(r, p), send(b, b)),
			fmt.Sprintf("Recv %d %s", left(r, p), recv(0, b)),
			fmt.Sprintf("Recv %d %s", right(r, p), recv(0, b)),
		}
	},
	"Uniband": windowPosted(false),
	"Biband":  windowPosted(true),
	"Allreduce": func(_, _, b, _ int, send, recv func(int, int) string, _ func(string, int, int, int) string) []string {
		return []string{fmt.Sprintf("Allreduce %s %s", send(0, b), recv(0, b))}
	},
	"Reduce": func(_, _, b, _ int, send, recv func(int, int) string, _ func(string, int, int, int) string) []string {
		return []string{fmt.Sprintf("Reduce %s %s root 0", send(0, b), recv(0, b))}
	},
	// IMB_reduce_scatter.c as IMB-MPI1 builds it (without IMB2018):
	// every rank's count is size / element size, so the send buffer holds
	// NP messages.
	"Reduce_scatter": func(_, p, b, _ int, send, recv func(int, int) string, _ func(string, int, int, int) string) []string {
		return []string{fmt.Sprintf("Reduce_scatter %s %s counts %v", send(0, p*b), recv(0, b), counts(p, b/4))}
	},
	"Reduce_scatter_block": func(_, p, b, _ int, send, recv func(int, int) string, _ func(string, int, int, int) string) []string {
		return []string{fmt.Sprintf("Reduce_scatter_block %s %s", send(0, p*b), recv(0, b))}
	},
	"Allgather": func(_, p, b, _ int, send, recv func(int, int) string, _ func(string, int, int, int) string) []string {
		return []string{fmt.Sprintf("Allgather %s %s", send(0, b), recv(0, p*b))}
	},
	"Allgatherv": func(_, p, b, _ int, send, recv func(int, int) string, _ func(string, int, int, int) string) []string {
		return []string{fmt.Sprintf("Allgatherv %s %s counts %v displs %v", send(0, b), recv(0, p*b), counts(p, b), displs(p, b))}
	},
	"Gather": func(_, p, b, _ int, send, recv func(int, int) string, _ func(string, int, int, int) string) []string {
		return []string{fmt.Sprintf("Gather %s %s root 0", send(0, b), recv(0, p*b))}
	},
	"Gatherv": func(_, p, b, _ int, send, recv func(int, int) string, _ func(string, int, int, int) string) []string {
		return []string{fmt.Sprintf("Gatherv %s %s counts %v displs %v root 0", send(0, b), recv(0, p*b), counts(p, b), displs(p, b))}
	},
	"Scatter": func(_, p, b, _ int, send, recv func(int, int) string, _ func(string, int, int, int) string) []string {
		return []string{fmt.Sprintf("Scatter %s %s root 0", send(0, p*b), recv(0, b))}
	},
	"Scatterv": func(_, p, b, _ int, send, recv func(int, int) string, _ func(string, int, int, int) string) []string {
		return []string{fmt.Sprintf("Scatterv %s counts %v displs %v %s root 0", send(0, p*b), counts(p, b), displs(p, b), recv(0, b))}
	},
	"Alltoall": func(_, p, b, _ int, send, recv func(int, int) string, _ func(string, int, int, int) string) []string {
		return []string{fmt.Sprintf("Alltoall %s %s", send(0, p*b), recv(0, p*b))}
	},
	"Alltoallv": func(_, p, b, _ int, send, recv func(int, int) string, _ func(string, int, int, int) string) []string {
		return []string{fmt.Sprintf("Alltoallv %s counts %v displs %v %s counts %v displs %v", send(0, p*b), counts(p, b), displs(p, b), recv(0, p*b), counts(p, b), displs(p, b))}
	},
	// IMB_bcast.c: the root broadcasts from s_buffer, the others receive
	// into r_buffer.
	"Bcast": func(r, _, b, _ int, send, recv func(int, int) string, _ func(string, int, int, int) string) []string {
		if r == 0 {
			return []string{fmt.Sprintf("Bcast %s root 0", send(0, b))}
		}
		return []string{fmt.Sprintf("Bcast %s root 0", recv(0, b))}
	},
	"Barrier": func(int, int, int, int, func(int, int) string, func(int, int) string, func(string, int, int, int) string) []string {
		return []string{"Barrier"}
	},
}

// counts and displs are IMB's vector arguments in bytes: every count b,
// displacement j*b.
func counts(p, b int) []int { return slices.Repeat([]int{b}, p) }
func displs(p, b int) []int {
	d := make([]int, p)
	for j := range d {
		d[j] = j * b
	}
	return d
}

// pingPongPosted is IMB_pingpong.c: pair0 sends then receives, pair1
// receives then sends; receives from the partner or MPI_ANY_SOURCE.
func pingPongPosted(anySource bool) imbPosted {
	return func(r, _, b, _ int, send, recv func(int, int) string, _ func(string, int, int, int) string) []string {
		src := 1 - r
		if anySource {
			src = comm.AnySource
		}
		s, v := fmt.Sprintf("Send %d %s", 1-r, send(0, b)), fmt.Sprintf("Recv %d %s", src, recv(0, b))
		if r == 0 {
			return []string{s, v}
		}
		return []string{v, s}
	}
}

// pingPingPosted is IMB_pingping.c: Isend, Recv, Wait.
func pingPingPosted(anySource bool) imbPosted {
	return func(r, _, b, _ int, send, recv func(int, int) string, _ func(string, int, int, int) string) []string {
		src := 1 - r
		if anySource {
			src = comm.AnySource
		}
		return []string{fmt.Sprintf("Isend %d %s", 1-r, send(0, b)), fmt.Sprintf("Recv %d %s", src, recv(0, b))}
	}
}

// windowPosted is IMB_bandwidth.c: Uniband's lower rank of a pair posts
// the window's MPI_Isend and receives the 1-byte acknowledgement, the
// upper one posts the MPI_Irecv and sends it; Biband's ranks both post
// the MPI_Irecv, then the MPI_Isend. Message ws uses slot ws % cache_iter
// whatever the iteration.
func windowPosted(bidir bool) imbPosted {
	return func(r, p, b, w int, _, _ func(int, int) string, slot func(string, int, int, int) string) []string {
		peers := p / 2
		lower := r < peers
		peer := r + peers
		if !lower {
			peer = r - peers
		}
		var out []string
		if bidir || !lower {
			for k := range w {
				out = append(out, fmt.Sprintf("Irecv %d %s", peer, slot("recv", k, 0, b)))
			}
		}
		if bidir || lower {
			for k := range w {
				out = append(out, fmt.Sprintf("Isend %d %s", peer, slot("send", k, 0, b)))
			}
		}
		if lower {
			return append(out, fmt.Sprintf("Recv %d other:1", peer))
		}
		return append(out, fmt.Sprintf("Send %d other:1", peer))
	}
}

// imbAreas are IMB-MPI1 2021.11's buffer sizes per benchmark as multiples
// of the message size (MPI1_benchmark.cpp's SENDBUF_SIZE_I, _2I, _NP_I,
// _0 and RECVBUF_SIZE_*; -1 stands for NP).
var imbAreas = map[string][2]int{
	"PingPong": {1, 1}, "PingPongSpecificSource": {1, 1}, "PingPongAnySource": {1, 1},
	"PingPing": {1, 1}, "PingPingSpecificSource": {1, 1}, "PingPingAnySource": {1, 1},
	"Sendrecv": {1, 1}, "Exchange": {2, 1}, "Uniband": {1, 1}, "Biband": {1, 1},
	"Allreduce": {1, 1}, "Reduce": {1, 1}, "Reduce_local": {1, 1}, "Reduce_scatter": {-1, 1}, "Reduce_scatter_block": {-1, 1},
	"Allgather": {1, -1}, "Allgatherv": {1, -1}, "Gather": {1, -1}, "Gatherv": {1, -1},
	"Scatter": {-1, 1}, "Scatterv": {-1, 1}, "Alltoall": {-1, -1}, "Alltoallv": {-1, -1},
	"Bcast": {1, 1}, "Barrier": {0, 0},
}

// TestBufferLayoutIsIMBs runs every benchmark's kernel for 9 iterations
// on each rank of a communicator that records the buffers each call is
// given, under -off_cache with a 512-byte cache (so that the 4 to 8 slots
// of 64-byte messages cycle within the 9 iterations), and compares them with IMB-MPI1 2021.11's
// kernels: the same calls in the same order, on the same area, slot,
// offset and length; and every benchmark's area sizes with IMB's.
func TestBufferLayoutIsIMBs(t *testing.T) {
	const b, n, w = 64, 9, 3
	o := DefaultOptions()
	o.OffCache = 512
	for _, name := range imbOrder { // IMB's benchmarks (tests register others)
		mult, ok := imbAreas[name]
		if !ok {
			t.Errorf("%s: no IMB buffer sizes to compare with", name)
			continue
		}
		spec, ok := Lookup(name)
		if !ok {
			t.Fatalf("%s is not registered", name)
		}
		p := 4
		if spec.Pair {
			p = 2
		}
		sb, rb := spec.areas(b, p)
		size := func(m int) int64 {
			if m < 0 {
				return int64(p * b)
			}
			return int64(m * b)
		}
		if sb != size(mult[0]) || rb != size(mult[1]) {
			t.Errorf("%s on %d: send and receive areas of %d and %d bytes for %d-byte messages, IMB's are %d and %d", name, p, sb, rb, b, size(mult[0]), size(mult[1]))
		}
		want, ok := imbKernels[name]
		if !ok {
			if name != "Reduce_local" {
				t.Errorf("%s: no IMB kernel to compare with", name)
			}
			continue
		}
		for r := range p {
			c := &postedComm{rank: r, size: p}
			bufs, err := newBuffers(&spec, b, p, &o, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			c.bufs = bufs
			if sb > 0 && !(bufs.send.slots > 1 && bufs.send.slots < n) {
				t.Fatalf("%s: %d send slots for %d iterations: the cache size does not make slots cycle", name, bufs.send.slots, n)
			}
			e := &Env{Comm: c, Bytes: b, RedType: coll.Float32, Params: map[string]int{WindowSize.Name: w}, bufs: bufs}
			if _, err := spec.Kernel(e, n); err != nil {
				t.Fatalf("%s rank %d: %v", name, r, err)
			}
			var imb []string
			for i := range n {
				at := func(a *area, name string, slot, off, m int) string {
					return fmt.Sprintf("%s[%d]+%d:%d", name, slot%a.slots, off, m)
				}
				send := func(off, m int) string { return at(bufs.send, "send", i, off, m) }
				recv := func(off, m int) string { return at(bufs.recv, "recv", i, off, m) }
				slot := func(area string, k, off, m int) string {
					if area == "send" {
						return at(bufs.send, area, k, off, m)
					}
					return at(bufs.recv, area, k, off, m)
				}
				imb = append(imb, want(r, p, b, w, send, recv, slot)...)
			}
			if got := strings.Join(c.calls, "\n"); got != strings.Join(imb, "\n") {
				t.Errorf("%s rank %d of %d: the kernel posted\n%s\nIMB's posts\n%s", name, r, p, got, strings.Join(imb, "\n"))
			}
		}
	}
}

// TestSmallMessagesLaidOutAsIMBs checks that buffers are laid out for IMB's
// init_size = max(size, 4) bytes: Exchange's areas for 0 to 3-byte
// messages are IMB's s_len of 8 bytes and r_len of 4 (one slot each
// without -off_cache, counted so against -mem), and under -off_cache their
// slots are IMB's offs = (ceil(len / 64) + 1) x 64 = 128 bytes apart,
// while the calls move the message's bytes.
func TestSmallMessagesLaidOutAsIMBs(t *testing.T) {
	spec, _ := Lookup("Exchange")
	for _, size := range []int64{0, 1, 3} {
		o := DefaultOptions()
		bufs, err := newBuffers(&spec, size, 2, &o, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(bufs.send.buf) != 8 || len(bufs.recv.buf) != 4 || len(bufs.send.area(0)) != int(2*size) || len(bufs.recv.area(0)) != int(size) {
			t.Errorf("%d bytes: areas of %d and %d bytes holding %d and %d; want IMB's 8 and 4 holding %d and %d",
				size, len(bufs.send.buf), len(bufs.recv.buf), len(bufs.send.area(0)), len(bufs.recv.area(0)), 2*size, size)
		}
		if got := bufferBytes(&spec, size, 2, &o); got != 12 {
			t.Errorf("%d bytes: %d bytes counted against -mem, want IMB's 12", size, got)
		}
		o.OffCache = 4096
		if bufs, err = newBuffers(&spec, size, 2, &o, nil, nil); err != nil {
			t.Fatal(err)
		}
		if bufs.send.stride != 128 || bufs.recv.stride != 128 || len(bufs.send.area(5)) != int(2*size) {
			t.Errorf("%d bytes under -off_cache: slots %d and %d bytes apart, want IMB's 128", size, bufs.send.stride, bufs.recv.stride)
		}
	}
}
