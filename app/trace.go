package app

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"
)

var nan = math.NaN()

// Span is one interval of a rank's timed part, recorded when the rank
// traces (Comm.StartTrace): a communication call, a Sync barrier or one
// of the application's kernels.
type Span struct {
	Rank   int    // rank in the job's communicator
	Op     string // "Bcast", "Allreduce", ..., "Sync" (a barrier before or after a collective), "Align" (the barrier after a Sync, Comm.Align), or a kernel's name ("gemm")
	Group  string // the communicator's name ("row", "col"; "" for the job's or a kernel)
	Kernel bool   // one of the application's kernels, not a call to the communicator
	Bytes  int64  // bytes of the call's buffer (0 for barriers and kernels)
	// StartNs is the span's start on the host's realtime clock,
	// nanoseconds since the Unix epoch: comparable between ranks on one
	// host (and between hosts only as far as their clocks agree). An
	// integer, since float64 seconds since 1970 resolve only about 0.24
	// usec, coarser than the spans' own clock.
	StartNs int64
	Wall    float64 // wall time of the span, seconds (as the comm clock counts it)
	// CPU is the CPU time the rank's process (all its threads but the
	// --load threads of StartLoad) used during the span, and RunDelay the
	// time those threads spent runnable but waiting for a CPU, seconds
	// (NaN where not measured). Both are read just outside the span's
	// clock readings.
	CPU, RunDelay float64
	// Sleeps is the number of times the rank's threads blocked during the
	// span (voluntary context switches: a futex, poll or read wait that
	// gave up the CPU), NaN where not measured. A rank that polls its
	// transport makes none; one that sleeps must be woken, and on an idle
	// virtual CPU the CPU too, before it goes on.
	Sleeps float64
	// OthersComputing is the part of Wall during which at least one other
	// rank was inside a kernel span (filled in by GatherTrace on rank 0;
	// meaningful for ranks sharing one host's CPUs).
	OthersComputing float64
}

// tracer is a rank's trace: whether it records, and the spans so far.
type tracer struct {
	on    bool
	spans []Span
}

// StartTrace makes c (and the communicators split from it, before or
// after) record a Span for every timed call, Sync and Kernel. Each span
// costs a getrusage call and a read of /proc/self/task/*/schedstat (some
// tens of microseconds per thread), outside the span's own clock readings
// but inside the run's total time: a traced run is a diagnostic run.
func (c *Comm) StartTrace() { c.trace.on = true }

// Tracing reports whether c records spans.
func (c *Comm) Tracing() bool { return c.trace.on }

// Named returns c with name as its Group in trace spans ("row", "col").
func (c *Comm) Named(name string) *Comm {
	d := *c
	d.name = name
	return &d
}

// span runs f between two clock readings and returns the seconds between
// them; when tracing it records a span of op on bytes around it.
func (c *Comm) span(op string, bytes int, kernel bool, f func() error) (float64, error) {
	if !c.trace.on {
		t0 := c.c.Wtime()
		err := f()
		return c.c.Wtime() - t0, err
	}
	cpu0, sl0, rd0 := schedSample()
	start := time.Now()
	t0 := c.c.Wtime()
	err := f()
	wall := c.c.Wtime() - t0
	cpu1, sl1, rd1 := schedSample()
	group := c.name
	if kernel {
		group = ""
	}
	c.trace.spans = append(c.trace.spans, Span{Rank: c.c.Rank(), Op: op, Group: group, Kernel: kernel, Bytes: int64(bytes),
		StartNs: start.UnixNano(), Wall: wall, CPU: cpu1 - cpu0, RunDelay: rd1 - rd0, Sleeps: sl1 - sl0})
	return wall, err
}

// Kernel runs f, one of the application's own kernels (a local block
// product), and returns its wall time in seconds; when tracing, it is
// recorded as a span named name.
func (c *Comm) Kernel(name string, f func()) float64 {
	s, _ := c.span(name, 0, true, func() error { f(); return nil })
	return s
}

// GatherTrace collects the spans of every rank of c on rank 0 (untimed
// Gather and Gatherv on c.Raw()) and there fills in OthersComputing; the
// other ranks get nil. Every rank of c must call it. Ranks are those of
// c; spans are ordered by rank, then start.
func GatherTrace(c *Comm) ([]Span, error) {
	var mine bytes.Buffer
	for _, s := range c.trace.spans {
		fmt.Fprintf(&mine, "%s,%s,%t,%d,%d,%s,%s,%s,%s\n", s.Op, s.Group, s.Kernel, s.Bytes, s.StartNs, ftoa(s.Wall), ftoa(s.CPU), ftoa(s.RunDelay), ftoa(s.Sleeps))
	}
	var all []byte
	counts := []int{mine.Len()}
	if c.Size() > 1 {
		var lens []byte
		if c.Rank() == 0 {
			lens = make([]byte, 8*c.Size())
		}
		n := binary.LittleEndian.AppendUint64(nil, uint64(mine.Len()))
		if err := c.alg.Gather(c.Raw(), n, lens, 0); err != nil {
			return nil, fmt.Errorf("gathering the trace's sizes: %w", err)
		}
		total := 0
		if c.Rank() == 0 {
			counts = make([]int, c.Size())
			for r := range counts {
				counts[r] = int(binary.LittleEndian.Uint64(lens[8*r:]))
				total += counts[r]
			}
			all = make([]byte, total)
		}
		if err := c.alg.Gatherv(c.Raw(), mine.Bytes(), all, counts, nil, 0); err != nil {
			return nil, fmt.Errorf("gathering the trace: %w", err)
		}
	} else {
		all = mine.Bytes()
	}
	if c.Rank() != 0 {
		return nil, nil
	}
	var spans []Span
	off := 0
	for r, n := range counts {
		for _, line := range strings.Split(strings.TrimSuffix(string(all[off:off+n]), "\n"), "\n") {
			if line == "" {
				continue
			}
			s, err := parseSpan(line)
			if err != nil {
				return nil, fmt.Errorf("rank %d's trace: %w", r, err)
			}
			s.Rank = r
			spans = append(spans, s)
		}
		off += n
	}
	othersComputing(spans)
	return spans, nil
}

func ftoa(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// parseSpan reads one line GatherTrace wrote (Rank is left 0).
func parseSpan(line string) (Span, error) {
	f := strings.Split(line, ",")
	if len(f) != 9 {
		return Span{}, fmt.Errorf("span %q: want 9 fields", line)
	}
	s := Span{Op: f[0], Group: f[1], Kernel: f[2] == "true"}
	var err error
	if s.Bytes, err = strconv.ParseInt(f[3], 10, 64); err != nil {
		return s, err
	}
	if s.StartNs, err = strconv.ParseInt(f[4], 10, 64); err != nil {
		return s, err
	}
	for i, p := range []*float64{&s.Wall, &s.CPU, &s.RunDelay, &s.Sleeps} {
		if *p, err = strconv.ParseFloat(f[5+i], 64); err != nil {
			return s, err
		}
	}
	return s, nil
}

// endNs is the span's end, nanoseconds since the Unix epoch.
func (s *Span) endNs() int64 { return s.StartNs + int64(math.Round(s.Wall*1e9)) }

// othersComputing sets OthersComputing of every non-kernel span: the
// length of its intersection with the union of the other ranks' kernel
// spans.
func othersComputing(spans []Span) {
	for i := range spans {
		s := &spans[i]
		if s.Kernel {
			continue
		}
		var iv [][2]int64
		for _, k := range spans {
			if k.Rank != s.Rank && k.Kernel {
				lo, hi := max(k.StartNs, s.StartNs), min(k.endNs(), s.endNs())
				if hi > lo {
					iv = append(iv, [2]int64{lo, hi})
				}
			}
		}
		sort.Slice(iv, func(a, b int) bool { return iv[a][0] < iv[b][0] })
		var sum int64
		end := int64(math.MinInt64)
		for _, v := range iv {
			if v[1] <= end {
				continue
			}
			sum += v[1] - max(v[0], end)
			end = v[1]
		}
		s.OthersComputing = float64(sum) / 1e9
	}
}

// WriteTraceCSV writes spans as CSV with a header: rank, seq (the span's
// index on its rank), op, group, bytes, start_s (from the earliest span's
// start), wall_s, cpu_s, run_delay_s, others_computing_s, sleeps.
func WriteTraceCSV(w io.Writer, spans []Span) error {
	var b strings.Builder
	b.WriteString("rank,seq,op,group,bytes,start_s,wall_s,cpu_s,run_delay_s,others_computing_s,sleeps\n")
	t0 := int64(math.MaxInt64)
	for _, s := range spans {
		t0 = min(t0, s.StartNs)
	}
	seq := map[int]int{}
	for _, s := range spans {
		fmt.Fprintf(&b, "%d,%d,%s,%s,%d,%.6f,%.6f,%.6f,%.6f,%.6f,%g\n", s.Rank, seq[s.Rank], s.Op, s.Group, s.Bytes,
			float64(s.StartNs-t0)/1e9, s.Wall, s.CPU, s.RunDelay, s.OthersComputing, s.Sleeps)
		seq[s.Rank]++
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteTraceSummary prints, per rank and per kind of span (op and group),
// the number of spans and the sums of their wall time, CPU time, run delay
// and time with other ranks computing, in milliseconds.
func WriteTraceSummary(w io.Writer, spans []Span) error {
	type key struct {
		rank      int
		op, group string
	}
	type sums struct {
		n                     int
		kernel                bool
		wall, cpu, rd, others float64
	}
	by := map[key]*sums{}
	var keys []key
	for _, s := range spans {
		k := key{s.Rank, s.Op, s.Group}
		if by[k] == nil {
			by[k] = &sums{}
			keys = append(keys, k)
		}
		v := by[k]
		v.n++
		v.kernel = s.Kernel
		v.wall, v.cpu, v.rd, v.others = v.wall+s.Wall, v.cpu+s.CPU, v.rd+s.RunDelay, v.others+s.OthersComputing
	}
	sort.SliceStable(keys, func(i, j int) bool { return keys[i].rank < keys[j].rank })
	var b strings.Builder
	b.WriteString("\n Trace (milliseconds, sums over the timed part; cpu: the rank's CPU time, run delay: its threads\n")
	b.WriteString(" runnable but waiting for a CPU, others computing: another rank inside a kernel meanwhile)\n")
	fmt.Fprintf(&b, " %6s %-14s %5s %10s %10s %10s %10s\n", "rank", "span", "count", "wall", "cpu", "run delay", "others comp")
	for _, k := range keys {
		v := by[k]
		name := k.op
		if k.group != "" {
			name += "(" + k.group + ")"
		}
		others := fmt.Sprintf("%10.3f", 1e3*v.others)
		if v.kernel {
			others = fmt.Sprintf("%10s", "-")
		}
		fmt.Fprintf(&b, " %6d %-14s %5d %10.3f %10.3f %10.3f %s\n", k.rank, name, v.n, 1e3*v.wall, 1e3*v.cpu, 1e3*v.rd, others)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
