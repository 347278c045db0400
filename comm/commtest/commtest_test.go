package commtest

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mpbench/mpbench/comm"
)

// recordingTB records failures instead of failing the real test.
type recordingTB struct {
	testing.TB
	mu    sync.Mutex
	fails []string
}

func (r *recordingTB) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.fails = append(r.fails, fmt.Sprintf(format, args...))
}

func (r *recordingTB) Fatalf(format string, args ...any) {
	r.Errorf(format, args...)
	runtime.Goexit()
}

func (r *recordingTB) FailNow() { runtime.Goexit() }

// run calls Run with a recording TB on its own goroutine (Fatalf ends it).
func run(t *testing.T, n int, f func(c comm.Comm) error) []string {
	rec := &recordingTB{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		Run(rec, n, comm.Config{}, f)
	}()
	<-done
	return rec.fails
}

func TestRunPasses(t *testing.T) {
	var mu sync.Mutex
	seen := map[int]int{}
	fails := run(t, 4, func(c comm.Comm) error {
		mu.Lock()
		seen[c.Rank()] = c.Size()
		mu.Unlock()
		return c.Barrier()
	})
	if len(fails) != 0 || len(seen) != 4 || seen[3] != 4 {
		t.Errorf("fails %q, ranks seen %v", fails, seen)
	}
}

// TestRunNamesFailingRank: an error on rank 1 fails the test naming rank
// 1, and rank 0, waiting for a message from rank 1, is released.
func TestRunNamesFailingRank(t *testing.T) {
	fails := run(t, 2, func(c comm.Comm) error {
		if c.Rank() == 1 {
			return errors.New("boom")
		}
		_, err := c.Recv(nil, 1, 0)
		if err == nil {
			return errors.New("receive from a failed rank succeeded")
		}
		return nil
	})
	if len(fails) != 1 || !strings.Contains(fails[0], "rank 1: boom") {
		t.Errorf("fails %q, want one naming rank 1", fails)
	}
}

func TestRunReportsPanic(t *testing.T) {
	fails := run(t, 1, func(c comm.Comm) error { panic("oops") })
	if len(fails) != 1 || !strings.Contains(fails[0], "rank 0: panic: oops") {
		t.Errorf("fails %q", fails)
	}
}

// TestRunTimeout: a rank blocked in Recv past Timeout is named, the
// failure carries every rank's pending operations (rank 2's posted
// receive, its owner parked) and every goroutine's stack (showing the
// blocked Recv), and
// closing the worlds releases the rank with comm.ErrClosed.
func TestRunTimeout(t *testing.T) {
	defer setTimeouts(200*time.Millisecond, 10*time.Second)()
	released := make(chan error, 1)
	fails := run(t, 3, func(c comm.Comm) error {
		if c.Rank() == 2 {
			_, err := c.Recv(nil, 0, 0) // never sent
			released <- err
			return err
		}
		return nil
	})
	if len(fails) != 1 || !strings.Contains(fails[0], "ranks [2] of 3 did not return within 200ms") {
		t.Fatalf("fails %q", fails)
	}
	if !strings.Contains(fails[0], "world rank 2 (closed false):\n  context 0: posted receive from 0 tag 0 (0-byte buffer) [done false waiting true") {
		t.Errorf("failure lacks rank 2's pending receive:\n%s", fails[0])
	}
	if !strings.Contains(fails[0], "goroutine ") || !strings.Contains(fails[0], "comm.(*communicator).Recv") {
		t.Errorf("failure lacks the goroutine stacks of the blocked Recv:\n%s", fails[0])
	}
	select {
	case err := <-released:
		if !errors.Is(err, comm.ErrClosed) {
			t.Errorf("released Recv returned %v, want comm.ErrClosed", err)
		}
	default:
		t.Error("Run returned before the hung rank was released")
	}
}

// TestRunTimeoutUnreleasable: a rank blocked outside the runtime (closing
// its world cannot help) does not keep Run from returning: after Grace it
// is named as still blocked.
func TestRunTimeoutUnreleasable(t *testing.T) {
	defer setTimeouts(100*time.Millisecond, 100*time.Millisecond)()
	block := make(chan struct{})
	defer close(block)
	start := time.Now()
	fails := run(t, 2, func(c comm.Comm) error {
		if c.Rank() == 1 {
			<-block
		}
		return nil
	})
	if len(fails) != 2 || !strings.Contains(fails[0], "ranks [1] of 2 did not return") ||
		!strings.Contains(fails[1], "ranks [1] still blocked 100ms after their worlds were closed") {
		t.Errorf("fails %q", fails)
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("Run took %v to give up on a blocked rank", d)
	}
}

// setTimeouts sets Timeout and Grace and returns a function restoring them.
func setTimeouts(timeout, grace time.Duration) func() {
	oldT, oldG := Timeout, Grace
	Timeout, Grace = timeout, grace
	return func() { Timeout, Grace = oldT, oldG }
}
