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

func TestRunTimeout(t *testing.T) {
	old := Timeout
	Timeout = 200 * time.Millisecond
	defer func() { Timeout = old }()
	fails := run(t, 3, func(c comm.Comm) error {
		if c.Rank() == 2 {
			_, err := c.Recv(nil, 0, 0) // never sent
			return err
		}
		return nil
	})
	if len(fails) != 1 || !strings.Contains(fails[0], "ranks [2] of 3 did not return") {
		t.Errorf("fails %q", fails)
	}
}
