package cli

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

func TestJobProgressWhere(t *testing.T) {
	var out bytes.Buffer
	p := newJobProgress(&out, time.Now())
	if got := p.where(); got != "" {
		t.Errorf("before any block: %q, want empty", got)
	}
	text := "# List of Benchmarks to run:\n\n# PingPong\n\n#----\n# Benchmarking PingPong \n# #processes = 2 \n#----\n" +
		"       #bytes #repetitions      t[usec]   Mbytes/sec\n"
	// Written in pieces that cut lines, as a pipe delivers them.
	for _, chunk := range []string{text[:20], text[20:70], text[70:]} {
		p.Write([]byte(chunk))
	}
	if got, want := p.where(), "the job was at PingPong on 2 processes, before its first row"; got != want {
		t.Errorf("where %q, want %q", got, want)
	}
	p.Write([]byte("            0         1000         2.24         0.00\n         1024         1000"))
	if got, want := p.where(), "the job was at PingPong on 2 processes, last row #bytes 0"; got != want {
		t.Errorf("where %q, want %q (the unfinished row does not count)", got, want)
	}
	p.Write([]byte("         3.10       330.32\n"))
	if got, want := p.where(), "the job was at PingPong on 2 processes, last row #bytes 1024"; got != want {
		t.Errorf("where %q, want %q", got, want)
	}
	if out.String() != text+"            0         1000         2.24         0.00\n         1024         1000         3.10       330.32\n" {
		t.Errorf("text not passed on unchanged:\n%s", out.String())
	}
	p.Write([]byte("# Benchmarking Multi-Sendrecv \n# ( 2 groups of 2 processes each running simultaneous ) \n" +
		"        Group       #bytes #repetitions  t_min[usec]\n\n            0            8         1000         2.00\n"))
	if got, want := p.where(), "the job was at Multi-Sendrecv in 2 groups of 2 processes each running simultaneous, last row #bytes 8"; got != want {
		t.Errorf("where %q, want %q", got, want)
	}
	p.Write([]byte("# Benchmarking Barrier \n# #processes = 4 \n #repetitions  t_min[usec]  t_max[usec]  t_avg[usec]\n         1000         5.00         5.10         5.05\n"))
	if got, want := p.where(), "the job was at Barrier on 4 processes, last row #repetitions 1000"; got != want {
		t.Errorf("where %q, want %q", got, want)
	}
}

func TestWatchStallCancels(t *testing.T) {
	p := newJobProgress(nil, time.Now())
	p.Write([]byte("# Benchmarking PingPong \n# #processes = 2 \n"))
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	go watchStall(ctx, cancel, p, 50*time.Millisecond, 10*time.Millisecond)
	select {
	case <-ctx.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("watchStall did not cancel a job silent for 50 ms within 10 s")
	}
	var st *errStalled
	if err := context.Cause(ctx); !errors.As(err, &st) || !strings.Contains(err.Error(), "the job was at PingPong on 2 processes, before its first row") {
		t.Errorf("cause %v: want an *errStalled saying where the job was", err)
	}
}
