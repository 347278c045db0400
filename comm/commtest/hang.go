package commtest

import (
	"fmt"
	"os"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mpbench/mpbench/comm"
)

// EnvTimeout names the environment variable that sets Timeout's initial
// value, as a Go duration ("30s", "2m"); stress runs lower it to see a
// hang's goroutine stacks sooner.
const EnvTimeout = "MPBENCH_COMMTEST_TIMEOUT"

// Timeout bounds how long Run waits for all ranks to return: 2 minutes
// unless MPBENCH_COMMTEST_TIMEOUT says otherwise. It counts the time the
// test process ran: while the whole process is stopped or paused the ranks
// cannot be blamed (see runClock).
var Timeout = 2 * time.Minute

// Grace bounds each of the two waits after a timeout: for the worlds'
// Close calls to return, and then for the hung ranks to return once their
// worlds are closed.
var Grace = 15 * time.Second

// timeoutErr is a malformed MPBENCH_COMMTEST_TIMEOUT; Run fails with it.
var timeoutErr error

func init() {
	s := os.Getenv(EnvTimeout)
	if s == "" {
		return
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		timeoutErr = fmt.Errorf("%s=%q: want a positive Go duration such as 30s or 2m", EnvTimeout, s)
		return
	}
	Timeout = d
}

// timedOut ends a run whose ranks in running did not return within
// Timeout: it fails t naming them, logs every rank's pending operations
// (World.DebugState) and every goroutine's stack (both taken before
// anything is closed, so they show where the ranks are blocked), closes
// the worlds to release them, waits up to Grace for them, names
// those still blocked, and stops t.
func timedOut(t testing.TB, worlds []*comm.World, results <-chan result, running map[int]bool, stalled time.Duration) {
	t.Helper()
	hung := sortedRanks(running)
	var note string
	if stalled > 0 {
		note = fmt.Sprintf(" of running (the process was stalled, not running at all, for %v more, which does not count)", stalled.Round(time.Millisecond))
	}
	stacks := allStacks()
	var states strings.Builder
	for _, w := range worlds {
		states.WriteString(w.DebugState())
	}
	t.Errorf("commtest: ranks %v of %d did not return within %v%s; pending operations of every rank:\n%s\ngoroutine stacks:\n%s", hung, len(worlds), Timeout, note, states.String(), stacks)
	closeWorlds(t, worlds)
	if ok, _ := collect(results, running, Grace, nil); !ok {
		t.Errorf("commtest: ranks %v still blocked %v after their worlds were closed; goroutine stacks:\n%s", sortedRanks(running), Grace, allStacks())
	}
	t.FailNow()
}

// closeWorlds closes worlds concurrently and waits up to Grace for them;
// a Close still running then is reported with every goroutine's stack and
// left behind. Nil entries are skipped.
func closeWorlds(t testing.TB, worlds []*comm.World) {
	t.Helper()
	var wg sync.WaitGroup
	for _, w := range worlds {
		if w != nil {
			wg.Go(func() { w.Close() })
		}
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(Grace):
		t.Errorf("commtest: closing the worlds of %d ranks took longer than %v; goroutine stacks:\n%s", len(worlds), Grace, allStacks())
	}
}

// sortedRanks returns the ranks in running in increasing order.
func sortedRanks(running map[int]bool) []int {
	var ranks []int
	for r := range running {
		ranks = append(ranks, r)
	}
	sort.Ints(ranks)
	return ranks
}

// allStacks returns the stacks of all goroutines (runtime.Stack with
// all=true), up to 64 MiB.
func allStacks() []byte {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) || len(buf) >= 64<<20 {
			return buf[:n]
		}
		buf = make([]byte, 2*len(buf))
	}
}
