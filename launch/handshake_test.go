package launch

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
)

// stopInHandshake is rank 0 of the worker mode "stophandshake": it
// registers with the rendezvous as a rank does, opens its connection to
// rank 1's TCP port and stops itself (SIGSTOP) before it sends its hello,
// as a rank stopped in the middle of the wire-up. Rank 1 runs the real
// wire-up and waits for it.
func stopInHandshake() int {
	w, err := readWorkerEnv(os.Getenv)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ctl, err := net.Dial("tcp", w.rendezvous)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	l, err := prepare(w, ctl.LocalAddr().(*net.TCPAddr).IP.String())
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	t, err := exchange(ctx, ctl, []byte(w.secret), register{Rank: w.rank, Size: w.size, Addr: formatAddr(l.me)})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	peer, err := parseAddr(t.Addrs[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	c, err := net.Dial("tcp", peer.addrs["tcp"])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	defer c.Close()
	syscall.Kill(os.Getpid(), syscall.SIGSTOP)
	select {}
}

// TestRunStoppedInHandshakeNamedOnce: a rank stopped in the middle of the
// TCP wire-up leaves its peer's handshake waiting for bytes that never come.
// The launcher must be the one to speak: its line names the stopped rank
// (after stoppedLimit, 10 s), and the peer, ended with the job, reports
// nothing. With a handshake timeout no longer than the stopped-rank limit
// the peer printed "refused a connection to rank 1's TCP port ...: i/o
// timeout" first, as if a stranger had connected.
func TestRunStoppedInHandshakeNamedOnce(t *testing.T) {
	var stderr syncBuffer
	ch := startJob(context.Background(), Spec{NP: 2, Argv: []string{testExe(t)}, Timeout: 90 * time.Second, Stderr: &stderr,
		Env: []string{quickExit, envMode + "=stophandshake", EnvTransport + "=tcp"}})
	err := await(t, ch, 2*time.Minute)
	var re *RankError
	if !errors.As(err, &re) || re.Rank != 0 || !strings.Contains(err.Error(), "stopped (process state T") {
		t.Fatalf("got %v, want a *RankError for rank 0 stopped\nstderr:\n%s", err, stderr.String())
	}
	if s := stderr.String(); s != "" {
		t.Errorf("the ranks printed, besides the launcher's error:\n%s", s)
	}
}
