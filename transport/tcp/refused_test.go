package tcp

import (
	"context"
	"io"
	"net"
	"sync"
	"testing"
	"time"
)

// TestSilentConnectionNotReported: a connection still in its handshake
// when every rank is in is closed by the acceptor; that is not a refusal,
// and nothing is reported (a job stopped during wire-up printed "refused a
// connection ...: use of closed network connection" for its own peers).
func TestSilentConnectionNotReported(t *testing.T) {
	lns, addrs := listenAll(t, 2)
	var mu sync.Mutex
	var refused []string
	lns[1].opts.Refused = func(remote string, reason error) {
		mu.Lock()
		refused = append(refused, remote+": "+reason.Error())
		mu.Unlock()
	}
	silent, err := net.Dial("tcp", addrs[1]) // sends nothing
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	eps, errs := connectAll(ctx, lns, addrs)
	closeAll(eps)
	for r, err := range errs {
		if err != nil {
			t.Fatalf("rank %d: %v", r, err)
		}
	}
	silent.SetReadDeadline(time.Now().Add(10 * time.Second))
	io.Copy(io.Discard, silent) // until the acceptor closes it
	time.Sleep(200 * time.Millisecond)
	mu.Lock()
	defer mu.Unlock()
	if len(refused) != 0 {
		t.Errorf("reported as refused: %q", refused)
	}
}
