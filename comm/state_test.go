package comm_test

import (
	"strings"
	"testing"
)

// TestDebugState: a posted receive, an unexpected eager message and a
// rendezvous send awaiting its CTS each show up in the hang report of the
// rank holding them; an idle rank reports one line.
func TestDebugState(t *testing.T) {
	ws, _ := worlds(t, 2, small)
	if _, err := ws[0].Irecv(make([]byte, 8), 1, 5); err != nil {
		t.Fatal(err)
	}
	if err := ws[1].Send([]byte("abc"), 0, 7); err != nil {
		t.Fatal(err)
	}
	if _, err := ws[0].Isend(make([]byte, 4096), 1, 9); err != nil {
		t.Fatal(err)
	}
	got := ws[0].DebugState()
	for _, want := range []string{
		"world rank 0 (closed false):\n",
		": posted receive from 1 tag 5 (8-byte buffer) [done false waiting false act 0 claimed false blocking false]\n",
		": unexpected eager message from 1 tag 7, 3 bytes\n",
		"rendezvous send to 1 context 0 tag 9 cookie 1, 4096 bytes, awaiting CTS [done false",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("state of rank 0 lacks %q:\n%s", want, got)
		}
	}
	if got := ws[1].DebugState(); got != "world rank 1 (closed false):\n  context 0: unexpected rts message from 0 tag 9, 4096 bytes\n" {
		t.Errorf("state of rank 1:\n%s", got)
	}
	ws[0].Close()
	if got := ws[0].DebugState(); got != "world rank 0 (closed true):\n" {
		t.Errorf("state of a closed rank:\n%s", got)
	}
}
