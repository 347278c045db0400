package supervise

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// TestProgressWhere: the text passes on unchanged, written in pieces that
// cut lines as a pipe delivers them, and Where names the table and its
// last complete row.
func TestProgressWhere(t *testing.T) {
	var out bytes.Buffer
	p := NewProgress(&out, time.Now())
	if got := p.Where(); got != "" {
		t.Errorf("before any block: %q, want empty", got)
	}
	text := "# List of Benchmarks to run:\n\n# PingPong\n\n#----\n# Benchmarking PingPong \n# #processes = 2 \n#----\n" +
		"       #bytes #repetitions      t[usec]   Mbytes/sec\n"
	for _, chunk := range []string{text[:20], text[20:70], text[70:]} {
		p.Write([]byte(chunk))
	}
	if got, want := p.Where(), "the job was at PingPong on 2 processes, before its first row"; got != want {
		t.Errorf("where %q, want %q", got, want)
	}
	p.Write([]byte("            0         1000         2.24         0.00\n         1024         1000"))
	if got, want := p.Where(), "the job was at PingPong on 2 processes, last row #bytes 0"; got != want {
		t.Errorf("where %q, want %q (the unfinished row does not count)", got, want)
	}
	p.Write([]byte("         3.10       330.32\n"))
	if got, want := p.Where(), "the job was at PingPong on 2 processes, last row #bytes 1024"; got != want {
		t.Errorf("where %q, want %q", got, want)
	}
	if out.String() != text+"            0         1000         2.24         0.00\n         1024         1000         3.10       330.32\n" {
		t.Errorf("text not passed on unchanged:\n%s", out.String())
	}
}

// TestWatchStallCancels: a job silent for longer than the limit is
// cancelled with a *StalledError saying where it was.
func TestWatchStallCancels(t *testing.T) {
	p := NewProgress(nil, time.Now())
	p.Write([]byte("# Benchmarking PingPong \n# #processes = 2 \n"))
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	go WatchStall(ctx, cancel, p, 50*time.Millisecond, 10*time.Millisecond)
	select {
	case <-ctx.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("WatchStall did not cancel a job silent for 50 ms within 10 s")
	}
	var st *StalledError
	if err := context.Cause(ctx); !errors.As(err, &st) || !strings.Contains(err.Error(), "the job was at PingPong on 2 processes, before its first row") {
		t.Errorf("cause %v: want a *StalledError saying where the job was", err)
	}
}
