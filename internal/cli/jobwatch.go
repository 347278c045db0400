package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"
)

// jobProgress passes rank 0's IMB text on to w and follows it: the
// benchmark block being measured and the last row printed, so that a job
// that fails, times out or stalls can say where it was, and the time of
// the last line, for the stall watchdog. Safe for one writer and
// concurrent readers.
type jobProgress struct {
	w io.Writer

	mu       sync.Mutex
	partial  []byte
	block    string // "PingPong on 2 processes"
	bytesCol int    // index of the #bytes column in the block's rows, -1 if none
	lastRow  string // "1024 bytes" or "1000 repetitions"; "" before the block's first row
	last     time.Time
}

func newJobProgress(w io.Writer, start time.Time) *jobProgress {
	if w == nil {
		w = io.Discard
	}
	return &jobProgress{w: w, last: start}
}

// Write passes b on and notes the complete lines in it.
func (p *jobProgress) Write(b []byte) (int, error) {
	n, err := p.w.Write(b)
	p.mu.Lock()
	defer p.mu.Unlock()
	p.last = time.Now()
	p.partial = append(p.partial, b...)
	for {
		i := bytes.IndexByte(p.partial, '\n')
		if i < 0 {
			break
		}
		p.line(string(p.partial[:i]))
		p.partial = p.partial[i+1:]
	}
	p.partial = append([]byte(nil), p.partial...) // do not pin old chunks
	return n, err
}

// line notes one line of IMB text.
func (p *jobProgress) line(s string) {
	t := strings.TrimSpace(s)
	switch {
	case strings.HasPrefix(t, "# Benchmarking "):
		p.block, p.bytesCol, p.lastRow = strings.TrimSpace(strings.TrimPrefix(t, "# Benchmarking ")), -1, ""
	case strings.HasPrefix(t, "# #processes = "):
		p.block += " on " + strings.TrimSpace(strings.TrimPrefix(t, "# #processes = ")) + " processes"
	case strings.HasPrefix(t, "# ( ") && strings.Contains(t, "groups of"):
		p.block += " in " + strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(t, "# ("), ")"))
	case strings.Contains(t, "#repetitions"): // the column headings
		p.bytesCol = -1
		for i, h := range strings.Fields(t) {
			if h == "#bytes" {
				p.bytesCol = i
			}
		}
	case t != "" && !strings.HasPrefix(t, "#") && p.block != "":
		f := strings.Fields(t)
		if _, err := strconv.ParseInt(f[0], 10, 64); err != nil {
			return
		}
		if p.bytesCol >= 0 && p.bytesCol < len(f) {
			p.lastRow = "#bytes " + f[p.bytesCol]
		} else {
			p.lastRow = "#repetitions " + f[0]
		}
	}
}

// where says where the job was: "the job was at PingPong on 2 processes,
// last row #bytes 1024", or "" before the first benchmark block.
func (p *jobProgress) where() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.block == "" {
		return ""
	}
	if p.lastRow == "" {
		return "the job was at " + p.block + ", before its first row"
	}
	return "the job was at " + p.block + ", last row " + p.lastRow
}

// idle is how long ago rank 0 last printed.
func (p *jobProgress) idle(now time.Time) time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	return now.Sub(p.last)
}

// errStalled is the cause of a job stopped by the stall watchdog.
type errStalled struct {
	limit time.Duration
	where string
}

func (e *errStalled) Error() string {
	msg := fmt.Sprintf("no output from rank 0 for %v (--stall): a rank hangs or the transport stalled", e.limit)
	if e.where != "" {
		msg += "; " + e.where
	}
	return msg
}

// watchStall cancels the job with an *errStalled cause when rank 0 has
// printed nothing for limit (> 0), checking every tick, until ctx ends.
func watchStall(ctx context.Context, cancel context.CancelCauseFunc, p *jobProgress, limit, tick time.Duration) {
	t := time.NewTicker(tick)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			if p.idle(now) >= limit {
				cancel(&errStalled{limit: limit, where: p.where()})
				return
			}
		}
	}
}
