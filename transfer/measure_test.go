package transfer

import (
	"net"
	"strings"
	"testing"
)

// TestMeasure runs a plan over loopback: a row per size in order, each
// with its repeats, handed over as it is measured; a server that goes away
// ends the run with an error naming the size and the server, keeping the
// rows measured before.
func TestMeasure(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	go Serve(ln)
	dial := func() (net.Conn, error) { return net.Dial("tcp", addr) }
	var seen []int64
	rows, err := Measure(dial, addr, Plan{Sizes: []int64{0, 1000, 1 << 20}, Repeat: 3}, func(r Row) { seen = append(seen, r.Bytes) })
	if err != nil || len(rows) != 3 || len(seen) != 3 {
		t.Fatalf("rows %+v, seen %v, %v", rows, seen, err)
	}
	for i, want := range []int64{0, 1000, 1 << 20} {
		if rows[i].Bytes != want || seen[i] != want || rows[i].Repeats != 3 || len(rows[i].TimesMs) != 3 || !(rows[i].MinMs > 0) {
			t.Errorf("row %d: %+v (seen %d), want %d bytes, 3 repeats", i, rows[i], seen[i], want)
		}
	}
	ln.Close()
	rows, err = Measure(dial, addr, Plan{Sizes: []int64{1000}, Repeat: 2}, nil)
	if want := "transfer of 1000 bytes to " + addr + ": "; err == nil || !strings.HasPrefix(err.Error(), want) || len(rows) != 0 {
		t.Errorf("server gone: rows %+v, %v; want an error starting %q", rows, err, want)
	}
}
