package supervise

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/mpbench/mpbench/result/imb"
)

// Progress passes rank 0's IMB text on to a writer and follows it with a
// result/imb Scanner: the benchmark table being measured and its last row,
// so that a job that fails, times out or stalls can say where it was, and
// the time of the last write, for the stall watchdog. Safe for one writer
// and concurrent readers.
type Progress struct {
	w  io.Writer
	sc *imb.Scanner

	mu   sync.Mutex
	last time.Time
}

// NewProgress returns a Progress writing to w (nil: discarded) whose
// silence is counted from start.
func NewProgress(w io.Writer, start time.Time) *Progress {
	if w == nil {
		w = io.Discard
	}
	return &Progress{w: w, sc: imb.NewScanner("rank 0"), last: start}
}

// Write passes b on and reads the complete lines in it.
func (p *Progress) Write(b []byte) (int, error) {
	n, err := p.w.Write(b)
	p.mu.Lock()
	p.last = time.Now()
	p.mu.Unlock()
	p.sc.Write(b)
	return n, err
}

// Where says where the job was: "the job was at PingPong on 2 processes,
// last row #bytes 1024" (imb.Position), or "" before the first benchmark
// table.
func (p *Progress) Where() string {
	if s := p.sc.Position().String(); s != "" {
		return "the job was at " + s
	}
	return ""
}

// Idle is how long before now rank 0 last printed.
func (p *Progress) Idle(now time.Time) time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	return now.Sub(p.last)
}

// StalledError is the cause of a job stopped by the stall watchdog.
type StalledError struct {
	Limit time.Duration // the silence allowed (--stall)
	Where string        // Progress.Where when it was stopped
}

// Error names the silence allowed (--stall) and where the job was.
func (e *StalledError) Error() string {
	msg := fmt.Sprintf("no output from rank 0 for %v (--stall): a rank hangs or the transport stalled", e.Limit)
	if e.Where != "" {
		msg += "; " + e.Where
	}
	return msg
}

// WatchStall cancels the job with a *StalledError cause when rank 0 has
// printed nothing for limit (> 0), checking every tick, until ctx ends.
func WatchStall(ctx context.Context, cancel context.CancelCauseFunc, p *Progress, limit, tick time.Duration) {
	t := time.NewTicker(tick)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			if p.Idle(now) >= limit {
				cancel(&StalledError{Limit: limit, Where: p.Where()})
				return
			}
		}
	}
}
