package sink

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mpbench/mpbench/bench"
	"github.com/mpbench/mpbench/result"
	"github.com/mpbench/mpbench/result/imb"
	"github.com/mpbench/mpbench/result/rowfile"
)

// recorder is a Finisher that logs calls and can fail.
type recorder struct {
	calls []string
	fail  error
}

func (r *recorder) Begin(b bench.Block) error {
	r.calls = append(r.calls, "begin "+b.Benchmark)
	return r.fail
}
func (r *recorder) Row(_ bench.Block, row result.Row) error {
	r.calls = append(r.calls, "row "+row.Benchmark)
	return r.fail
}
func (r *recorder) End(bench.Block) error { r.calls = append(r.calls, "end"); return r.fail }
func (r *recorder) Finish(error) error    { r.calls = append(r.calls, "finish"); return r.fail }

// TestFanoutCallsEverySinkAndJoinsErrors: Begin, End and Finish reach
// every sink whatever the others return; a row one sink failed to take
// goes to no sink after it (the terminal never shows a row the files lack).
func TestFanoutCallsEverySinkAndJoinsErrors(t *testing.T) {
	bad := errors.New("disk full")
	a, b := &recorder{fail: bad}, &recorder{}
	f := Fanout{a, b}
	blk := bench.Block{Benchmark: "PingPong"}
	err := f.Row(blk, result.NewRow("PingPong", 2, 0))
	if !errors.Is(err, bad) {
		t.Errorf("Row error = %v, want %v", err, bad)
	}
	if err := (Fanout{b}).Begin(blk); err != nil {
		t.Errorf("healthy sink: %v", err)
	}
	_ = f.End(blk)
	_ = f.Finish(nil)
	if strings.Join(b.calls, ",") != "begin PingPong,end,finish" {
		t.Errorf("second sink calls %v: want no row the first could not take, and End and Finish even so", b.calls)
	}
	if err := (Fanout{b, a}).Row(blk, result.NewRow("PingPong", 2, 0)); !errors.Is(err, bad) || b.calls[len(b.calls)-1] != "row PingPong" {
		t.Errorf("a failing second sink: Row error %v, first sink calls %v", err, b.calls)
	}
}

func TestLayoutFollowsIMB(t *testing.T) {
	cases := []struct {
		class *bench.Class
		multi int
		want  *imb.Layout
	}{
		{bench.SingleTransfer, result.MultiNone, imb.OutTimeBW},
		{bench.SingleTransfer, result.MultiEach, imb.OutTimeBW},
		{bench.SingleTransfer, result.MultiWorst, imb.OutTimeRangeBW},
		{bench.ParallelTransfer, result.MultiNone, imb.OutTimeRangeBW},
		{bench.Collective, result.MultiNone, imb.OutTimeRange},
		{bench.Sync, result.MultiWorst, imb.OutSync},
		{bench.ParallelTransferMsgRate, result.MultiNone, imb.OutBWMsgRate},
	}
	for _, c := range cases {
		if got := TableSpec(bench.Block{Class: c.class, Multi: c.multi}).Format; got != c.want {
			t.Errorf("%v multi %d: got %v, want %v", c.class, c.multi, got, c.want)
		}
	}
}

// TestTextAndRowFileSinks drives the text and JSONL sinks through a fan-out
// like the worker does and checks both outputs, for a complete and a
// failed run.
func TestTextAndRowFileSinks(t *testing.T) {
	for _, runErr := range []error{nil, errors.New("rank 1: peer gone")} {
		var text, jsonl bytes.Buffer
		ts, err := NewText(&text, imb.RunInfo{Version: "0.1.0", Date: time.Unix(0, 0).UTC(), Transport: "tcp",
			Command: []string{"mpbench", "run", "pingpong"}, MaxBytes: 1, Benchmarks: []string{"PingPong"}}, TextOptions{})
		if err != nil {
			t.Fatal(err)
		}
		jw := rowfile.NewJSONLWriter(&jsonl)
		if err := jw.WriteMeta(result.Meta{Tool: "mpbench", MByte: result.MB}); err != nil {
			t.Fatal(err)
		}
		f := Fanout{ts, NewRowFile(jw)}
		blk := bench.Block{Benchmark: "PingPong", Class: bench.SingleTransfer, Processes: 2, Multi: result.MultiNone, Groups: [][]int{{0, 1}}, Idle: 1}
		row := result.NewRow("PingPong", 2, 1)
		row.Repetitions, row.TMax, row.MBps = 1000, 1.14, 0.88
		if err := f.Begin(blk); err != nil {
			t.Fatal(err)
		}
		if err := f.Row(blk, row); err != nil {
			t.Fatal(err)
		}
		if err := f.End(blk); err != nil {
			t.Fatal(err)
		}
		if err := f.Finish(runErr); err != nil {
			t.Fatal(err)
		}
		out := text.String()
		for _, want := range []string{
			"# Benchmarking PingPong \n# #processes = 2 \n# ( 1 additional process waiting in MPI_Barrier)\n",
			"       #bytes #repetitions      t[usec]   Mbytes/sec\n            1         1000         1.14         0.88\n",
		} {
			if !strings.Contains(out, want) {
				t.Errorf("text output lacks %q:\n%s", want, out)
			}
		}
		if got := strings.Contains(out, "# All processes entering MPI_Finalize"); got != (runErr == nil) {
			t.Errorf("runErr %v: closing line present = %v", runErr, got)
		}
		runs, _ := rowfile.ReadJSONL(&jsonl, "x")
		if len(runs) != 1 || len(runs[0].Rows) != 1 || runs[0].Aborted != (runErr != nil) {
			t.Errorf("runErr %v: JSONL read back as %+v", runErr, runs)
		}
	}
}

func TestProgressDrawsBlocks(t *testing.T) {
	var buf bytes.Buffer
	p := NewProgress(&buf, 100, 3)
	blk := bench.Block{Benchmark: "Sendrecv", Class: bench.ParallelTransfer, Processes: 4, Groups: [][]int{{0, 1, 2, 3}}}
	if err := p.Begin(blk); err != nil {
		t.Fatal(err)
	}
	for _, n := range []int64{0, 1, 2} {
		_ = p.Row(blk, result.NewRow("Sendrecv", 4, n))
	}
	_ = p.End(blk)
	blk2 := bench.Block{Benchmark: "Exchange", Class: bench.ParallelTransfer, Processes: 4, Groups: [][]int{{0, 1, 2, 3}}}
	_ = p.Begin(blk2)
	_ = p.Row(blk2, result.NewRow("Exchange", 4, 4096))
	_ = p.End(blk2)
	_ = p.Finish(nil)
	out := buf.String()
	if !strings.Contains(out, "Sendrecv") || !strings.Contains(out, "3/3 rows") {
		t.Errorf("progress output lacks block name or count:\n%q", out)
	}
	// The last frame still shows each bar with its own last size.
	lines := strings.Split(out, "\n")
	var lastSendrecv string
	for _, l := range lines {
		if strings.Contains(l, "Sendrecv") {
			lastSendrecv = l
		}
	}
	if !strings.Contains(lastSendrecv, " 2 B ") || strings.Contains(lastSendrecv, "4096") {
		t.Errorf("finished Sendrecv bar should keep its own last size (2 B): %q", lastSendrecv)
	}
}

func TestExpectedRows(t *testing.T) {
	two := [][]int{{0, 1}, {2, 3}}
	if n := ExpectedRows(bench.Block{Class: bench.SingleTransfer, Multi: result.MultiEach, Groups: two}, 23); n != 46 {
		t.Errorf("multi 1, 2 groups, 23 sizes: %d rows, want 46", n)
	}
	if n := ExpectedRows(bench.Block{Class: bench.Sync, Multi: result.MultiWorst, Groups: two}, 23); n != 1 {
		t.Errorf("barrier: %d rows, want 1", n)
	}
}

func TestCPUModel(t *testing.T) {
	dir := t.TempDir()
	path := dir + "/cpuinfo"
	write := func(s string) {
		if err := writeFile(path, s); err != nil {
			t.Fatal(err)
		}
	}
	write("processor\t: 0\nmodel name\t: AMD EPYC 7B12\nprocessor\t: 1\nmodel name\t: other\n")
	if got := cpuModel(path); got != "AMD EPYC 7B12" {
		t.Errorf("x86 cpuinfo: %q", got)
	}
	write("processor\t: 0\nCPU part\t: 0xd0c\n")
	if got := cpuModel(path); got != "0xd0c" {
		t.Errorf("arm cpuinfo: %q", got)
	}
}

func TestCPUCount(t *testing.T) {
	for _, c := range []struct {
		list string
		want int
	}{{"0-1\n", 2}, {"0", 1}, {"0-3,6,8-9", 7}, {"", 0}, {"3-1", 0}, {"x", 0}} {
		if got := cpuCount(c.list); got != c.want {
			t.Errorf("cpuCount(%q) = %d, want %d", c.list, got, c.want)
		}
	}
	if m := LocalMachine(); m.Cores < m.Allowed || m.Allowed < 1 {
		t.Errorf("LocalMachine: %d cores online, %d allowed; want 1 <= allowed <= online", m.Cores, m.Allowed)
	}
}

// TestTimerWarning: with a timer resolution of 0.03 usec, every printed
// time below 3 usec (t[usec] of a PingPong row, t_min of a range) is
// counted, times from 3 usec on and rows without a time column are not,
// and the run ends with one comment line naming the count, the limit and
// the smallest time, before IMB's closing line or the failure line. An
// unknown resolution, or no short time, prints no such line.
func TestTimerWarning(t *testing.T) {
	pp := bench.Block{Benchmark: "PingPong", Class: bench.SingleTransfer, Processes: 2, Multi: result.MultiNone, Groups: [][]int{{0, 1}}}
	sr := bench.Block{Benchmark: "Sendrecv", Class: bench.ParallelTransfer, Processes: 2, Multi: result.MultiNone, Groups: [][]int{{0, 1}}}
	ub := bench.Block{Benchmark: "Uniband", Class: bench.ParallelTransferMsgRate, Processes: 2, Multi: result.MultiNone, Groups: [][]int{{0, 1}}}
	row := func(name string, bytes int64, tmin, tmax float64) result.Row {
		r := result.NewRow(name, 2, bytes)
		r.Repetitions, r.TMin, r.TMax, r.TAvg = 1000, tmin, tmax, (tmin+tmax)/2
		return r
	}
	blocks := []struct {
		b    bench.Block
		rows []result.Row
	}{
		{pp, []result.Row{row("PingPong", 0, 0.31, 0.31), row("PingPong", 1024, 2.99, 2.99), row("PingPong", 65536, 3.01, 3.01)}},
		{sr, []result.Row{row("Sendrecv", 8, 0.52, 3.5), row("Sendrecv", 1024, 3.1, 3.2)}},
		{ub, []result.Row{row("Uniband", 0, 0, 0)}},
	}
	const want = "# Timer warning: the measured resolution (0.030 usec) exceeds 1% of the time in 3 rows, all below 3.00 usec (smallest 0.31 usec, PingPong 0 bytes)\n"
	for _, c := range []struct {
		res    float64
		runErr error
		line   string
	}{
		{0.03, nil, want},
		{0.03, errors.New("rank 1: peer gone"), want},
		{0, nil, ""},
		{0.003, nil, ""}, // limit 0.3 usec: no time below it
	} {
		var text bytes.Buffer
		ts, err := NewText(&text, imb.RunInfo{Version: "0.1.0", Date: time.Unix(0, 0).UTC(), Transport: "shm",
			Command: []string{"mpbench", "run"}, MaxBytes: 65536, Benchmarks: []string{"PingPong", "Sendrecv", "Uniband"}},
			TextOptions{TimerResolution: c.res})
		if err != nil {
			t.Fatal(err)
		}
		for _, blk := range blocks {
			if err := ts.Begin(blk.b); err != nil {
				t.Fatal(err)
			}
			for _, r := range blk.rows {
				if err := ts.Row(blk.b, r); err != nil {
					t.Fatal(err)
				}
			}
			if err := ts.End(blk.b); err != nil {
				t.Fatal(err)
			}
		}
		if err := ts.Finish(c.runErr); err != nil {
			t.Fatal(err)
		}
		out := text.String()
		got := strings.Count(out, "# Timer warning")
		switch {
		case c.line == "" && got != 0:
			t.Errorf("resolution %g usec: unexpected warning:\n%s", c.res, out)
		case c.line != "" && (got != 1 || !strings.Contains(out, c.line)):
			t.Errorf("resolution %g usec: want the line\n%s\nonce, got:\n%s", c.res, c.line, out)
		case c.line != "":
			end := "# All processes entering MPI_Finalize"
			if c.runErr != nil {
				end = "# mpbench: run failed"
			}
			if strings.Index(out, c.line) > strings.Index(out, end) {
				t.Errorf("the warning must come before %q:\n%s", end, out)
			}
		}
	}
}

// TestTimeOutInEveryOutput ends a Biband block with IMB's time-out
// (bench.Block.TimeOut) through the text, JSON Lines and CSV sinks and
// reads each output back: the row measured stays, the size not measured
// is a Problem in all three, and the run is complete (not Aborted).
func TestTimeOutInEveryOutput(t *testing.T) {
	var text, jsonl, csv bytes.Buffer
	ts, err := NewText(&text, imb.RunInfo{Version: "0.1.0", Date: time.Unix(0, 0).UTC(), Transport: "shm",
		Command: []string{"mpbench", "run", "Biband"}, MaxBytes: 4096, Benchmarks: []string{"Biband"}}, TextOptions{})
	if err != nil {
		t.Fatal(err)
	}
	meta := result.Meta{Tool: "mpbench", Version: "0.1.0", MByte: result.MB, Transport: "shm"}
	jw, cw := rowfile.NewJSONLWriter(&jsonl), rowfile.NewCSVWriter(&csv)
	for _, w := range []rowfile.Writer{jw, cw} {
		if err := w.WriteMeta(meta); err != nil {
			t.Fatal(err)
		}
	}
	f := Fanout{ts, NewRowFile(jw), NewRowFile(cw)}
	blk := bench.Block{Benchmark: "Biband", Class: bench.ParallelTransferMsgRate, Processes: 2, Multi: result.MultiNone,
		Groups: [][]int{{0, 1}}, MByte: result.MB, ScaleBW: 2}
	row := result.NewRow("Biband", 2, 1024)
	row.Repetitions, row.TMin, row.TMax, row.TAvg, row.MBps, row.MsgRate = 1000, 25, 25, 25, 5242.88, 5120000
	if err := f.Begin(blk); err != nil {
		t.Fatal(err)
	}
	if err := f.Row(blk, row); err != nil {
		t.Fatal(err)
	}
	blk.TimeOut = &bench.TimeOut{Bytes: 2048, Elapsed: 23.4, Limit: 22}
	if err := f.End(blk); err != nil {
		t.Fatal(err)
	}
	if err := f.Finish(nil); err != nil {
		t.Fatal(err)
	}

	wantLine := "         2048" + imb.TimeOutText + "\n"
	if !strings.Contains(text.String(), "     5120000\n"+wantLine+"\n\n# All processes entering MPI_Finalize") {
		t.Errorf("text: want the row, then IMB's time-out row %q, then the closing lines:\n%s", wantLine, text.String())
	}
	wantMsg := "Biband, 2 processes, 2048 bytes: time-out at 2048 bytes: the benchmark had run 23.4 s, above its limit of 22 s"
	for name, out := range map[string]*bytes.Buffer{"jsonl": &jsonl, "csv": &csv, "txt": &text} {
		var runs []result.Run
		var err error
		switch name {
		case "jsonl":
			runs, err = rowfile.ReadJSONL(bytes.NewReader(out.Bytes()), "t."+name)
		case "csv":
			runs, err = rowfile.ReadCSV(bytes.NewReader(out.Bytes()), "t."+name)
		default:
			runs, err = imb.Read(bytes.NewReader(out.Bytes()), "t."+name)
		}
		if err != nil || len(runs) != 1 {
			t.Fatalf("%s: %d runs, %v", name, len(runs), err)
		}
		r := runs[0]
		if len(r.Rows) != 1 || r.Rows[0].Bytes != 1024 || r.Aborted || len(r.Problems) != 1 {
			t.Fatalf("%s: %d rows, aborted %v, problems %v; want the 1024-byte row, complete, one problem", name, len(r.Rows), r.Aborted, r.Problems)
		}
		msg := r.Problems[0].Msg
		if name == "txt" {
			if want := `Biband: failed sample "2048": time-out.;`; !strings.HasPrefix(msg, want) {
				t.Errorf("txt: problem %q, want it to start %q", msg, want)
			}
		} else if !strings.HasPrefix(msg, wantMsg) {
			t.Errorf("%s: problem %q, want it to start %q", name, msg, wantMsg)
		}
	}
}
