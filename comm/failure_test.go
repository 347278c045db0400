package comm_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mpbench/mpbench/comm"
	"github.com/mpbench/mpbench/transport"
	"github.com/mpbench/mpbench/transport/inmem"
)

// worlds returns n worlds over inmem with their endpoints, closed at the
// end of the test.
func worlds(t *testing.T, n int, cfg comm.Config) ([]*comm.World, []*inmem.Endpoint) {
	t.Helper()
	eps := inmem.New(n)
	ws := make([]*comm.World, n)
	ies := make([]*inmem.Endpoint, n)
	for i, ep := range eps {
		w, err := comm.NewWorld(ep, cfg)
		if err != nil {
			t.Fatal(err)
		}
		ws[i], ies[i] = w, ep.(*inmem.Endpoint)
		t.Cleanup(func() { w.Close() })
	}
	return ws, ies
}

// waitErr waits up to 10 s for r and returns its error.
func waitErr(t *testing.T, what string, r comm.Request) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { _, err := r.Wait(); done <- err }()
	select {
	case err := <-done:
		return err
	case <-time.After(10 * time.Second):
		t.Fatalf("%s: still pending 10 s after the peer failed", what)
	}
	return nil
}

// TestPeerFailure: killing rank 2 fails pending receives from it, pending
// wildcard receives, rendezvous sends waiting for its CTS, and later
// operations involving it, with errors naming rank 2; operations between
// live ranks keep working.
func TestPeerFailure(t *testing.T) {
	ws, eps := worlds(t, 3, small)
	w := ws[0]
	recvFrom, err := w.Irecv(make([]byte, 10), 2, 0)
	if err != nil {
		t.Fatal(err)
	}
	recvAny, err := w.Irecv(make([]byte, 10), comm.AnySource, 1)
	if err != nil {
		t.Fatal(err)
	}
	rdvSend, err := w.Isend(make([]byte, 1000), 2, 0)
	if err != nil {
		t.Fatal(err)
	}
	eps[2].Kill()
	for _, c := range []struct {
		what string
		r    comm.Request
	}{{"Irecv from rank 2", recvFrom}, {"Irecv from AnySource", recvAny}, {"rendezvous Isend to rank 2", rdvSend}} {
		err := waitErr(t, c.what, c.r)
		var pe *transport.PeerError
		if err == nil || !strings.Contains(err.Error(), "rank 2") || !errors.As(err, &pe) || pe.Peer != 2 {
			t.Errorf("%s: err %v, want a *transport.PeerError naming rank 2", c.what, err)
		}
	}
	if err := w.Send([]byte("x"), 2, 0); err == nil || !strings.Contains(err.Error(), "rank 2") {
		t.Errorf("eager Send to the failed rank: err %v", err)
	}
	if err := w.Send(make([]byte, 1000), 2, 0); err == nil || !strings.Contains(err.Error(), "rank 2") {
		t.Errorf("rendezvous Send to the failed rank: err %v", err)
	}
	if _, err := w.Recv(nil, 2, 0); err == nil || !strings.Contains(err.Error(), "rank 2") {
		t.Errorf("Recv from the failed rank: err %v", err)
	}
	// Live ranks still talk.
	go ws[1].Send([]byte("ok"), 0, 5)
	buf := make([]byte, 2)
	if st, err := w.Recv(buf, 1, 5); err != nil || string(buf) != "ok" || st.Source != 1 {
		t.Errorf("Recv between live ranks: %+v %v %q", st, err, buf)
	}
}

// TestClosePending: Close fails a pending receive with ErrClosed.
func TestClosePending(t *testing.T) {
	ws, _ := worlds(t, 2, comm.Config{})
	r, err := ws[0].Irecv(nil, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := ws[0].Close(); err != nil {
		t.Fatal(err)
	}
	if err := waitErr(t, "Irecv pending at Close", r); !errors.Is(err, comm.ErrClosed) {
		t.Errorf("err %v, want ErrClosed", err)
	}
	if _, err := ws[0].Recv(nil, 1, 0); !errors.Is(err, comm.ErrClosed) {
		t.Errorf("Recv after Close: err %v, want ErrClosed", err)
	}
}

func TestNewWorldBadConfig(t *testing.T) {
	_, err := comm.NewWorld(inmem.New(1)[0], comm.Config{EagerLimit: -1})
	if err == nil || !strings.Contains(err.Error(), "eager limit -1") {
		t.Errorf("err %v, want one naming the bad eager limit", err)
	}
}
