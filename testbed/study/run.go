package study

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/mpbench/mpbench/analysis"
	"github.com/mpbench/mpbench/result"
	"github.com/mpbench/mpbench/result/read"
	"github.com/mpbench/mpbench/testbed"
	"github.com/mpbench/mpbench/testbed/medium"
	"github.com/mpbench/mpbench/transfer"
)

// NetSpec is one network of the study as emulated: its name in the file
// names and the page (e.g. "switch100"), its medium kind (switch, hub or
// wifi) and its line rate in bit/s.
type NetSpec struct {
	Name, Kind string
	RateBps    float64
}

// NetSpecs returns the networks of a study run: with scale > 0 the
// study's four (switch 100 and 10 Mbit/s, hub 10, wifi 54) at their rates
// times scale, else each kind in kinds at rate (bit/s), named by its kind.
func NetSpecs(kinds []string, rate, scale float64) []NetSpec {
	if scale > 0 {
		return []NetSpec{{"switch100", "switch", 100e6 * scale}, {"switch10", "switch", 10e6 * scale},
			{"hub10", "hub", 10e6 * scale}, {"wifi54", "wifi", 54e6 * scale}}
	}
	var out []NetSpec
	for _, k := range kinds {
		out = append(out, NetSpec{k, k, rate})
	}
	return out
}

// SwitchAggregateBps is the largest aggregate rate of the Multi-PingPong
// at nodes/2 pairs on one switch (pairs x rate) at which the study's
// switch findings were measured to hold on a 2-CPU host: 80 Mbit/s (8
// nodes at 20 Mbit/s, quiet, every finding met) and 100 Mbit/s (4 nodes
// at 50 Mbit/s, the short study, at load average 25). At 400 Mbit/s (8
// nodes at 100 Mbit/s, --scale 1, load average 22-25) the ranks and the
// forwarder could not carry the rate: one pair 0.75 of the model, four
// pairs 0.60, PingPing / PingPong 0.73, Alltoall t(8)/t(4) 7.0
// (docs/testbed-study.md).
const SwitchAggregateBps = 100e6

// HostBound returns one warning for each switch of nets whose
// Multi-PingPong at nodes/2 pairs carries more than SwitchAggregateBps in
// all: there the switch's findings measure the host, not the network.
func HostBound(nets []NetSpec, nodes int) []string {
	var out []string
	for _, n := range nets {
		if agg := n.RateBps * float64(nodes/2); n.Kind == "switch" && agg > SwitchAggregateBps {
			out = append(out, fmt.Sprintf("%s at %s: %d pairs carry %s in all, more than the %s at which the switch's findings were measured to hold on a 2-CPU host; its findings may measure the host (docs/testbed-study.md)",
				n.Name, medium.FormatRate(n.RateBps), nodes/2, medium.FormatRate(agg), medium.FormatRate(SwitchAggregateBps)))
		}
	}
	return out
}

// p2pSizes are the message sizes of the study's point-to-point runs.
const p2pSizes = "0,65536,262144,1048576"

// eager is the eager threshold of the study's runs: every message (up to
// 1 MiB) goes eagerly, so the network decides the times, not a rendezvous
// handshake (mpbench's TCP rendezvous does not overlap the two directions
// of PingPing: at 1 MiB it halves PingPing on any network).
const eager = 4 << 20

// runArgs are the options every run of the study adds to its own,
// followed by more: every message eager (eager), no warm-up iterations,
// and at most 4 MiB of messages per size and rank (-iter 1000,4). IMB's
// dynamic policy runs the kernel once (twice when that caps the count)
// untimed before the timed loop; on a slow medium that probe is already a
// full iteration of the same messages, and the warm-up (n/10, at least
// min(10, n)) only repeats it: for a 1 MiB PingPong at 4 pairs on a 20
// Mbit/s wifi, 15 s more per row. The volume cap bounds a row whose probe
// came out short (on a busy host a rank that enters the probe late finds
// its message already there: a 64 KiB Scatter then ran its 640
// repetitions of 58 ms); on a quiet host the time cap gives fewer
// repetitions at every size above 0 bytes anyway. --all-sizes: the study
// needs every size, however long a slow medium takes for them.
func runArgs(more ...string) []string {
	return append([]string{"--eager", strconv.Itoa(eager), "-warm_up", "0", "-iter", "1000,4", "--all-sizes"}, more...)
}

// Run is one mpbench testbed study: where its files go, what it measures,
// and how it starts the jobs that only the command line can start. Measure
// builds each network in turn and runs the experiment set on it;
// Reanalyse recomputes the findings from an earlier study's files. Both
// write findings.json, study.html and report.html to Dir and print the
// findings to Out.
type Run struct {
	Dir    string  // the directory of every result file and page
	Nodes  int     // nodes of each network (4, 8 or 16)
	Time   string  // IMB's -time of every run (seconds per message size at most)
	Sizes  []int64 // file sizes of the file transfer, bytes
	Repeat int     // transfers per file size at most
	// TransferTime bounds the file transfers of one size: no further
	// repeat starts once it has passed (at least one runs).
	TransferTime time.Duration
	Out, Errw    io.Writer // progress and findings; the jobs' stderr
	// Up builds a testbed (testbed.Up, with the command line's mapping of
	// its refusals); Bench runs "mpbench run" with args on np nodes of st,
	// its IMB text to stdout; Report writes report.html (path), the report
	// of the result files, reports its own failure and returns an error
	// only to end the study (an interruption), before study.html is
	// written.
	Up     func(testbed.Config) (testbed.State, error)
	Bench  func(stdout, stderr io.Writer, st testbed.State, np int, args []string) error
	Report func(files []string, path string) error

	nets        []Network
	infos       []NetInfo
	resultFiles []string
	reanalysed  bool // findings recomputed from an earlier study's files
}

// Measure measures every network of nets, printing each one's wall time,
// then writes the findings and pages (command is the command line shown on
// the page). A network that fails ends the study with an error naming it,
// after the findings of what was measured are written.
func (s *Run) Measure(nets []NetSpec, command string) error {
	start := time.Now()
	for _, n := range nets {
		t0 := time.Now()
		err := s.network(n)
		el := time.Since(t0)
		fmt.Fprintf(s.Out, "# %s: %s (building, runs, file transfer, removing)\n", n.Name, el.Round(time.Second))
		if err != nil {
			s.finish(command, start) // keep what was measured
			return fmt.Errorf("study on %s: %w", n.Name, err)
		}
		s.infos[len(s.infos)-1].Elapsed = el
	}
	return s.finish(command, start)
}

// Reanalyse measures nothing: it reads the result files an earlier study
// left in Dir (measured with Nodes nodes) and writes the findings and
// pages again. A Dir without them is a *NoResultsError.
func (s *Run) Reanalyse(command string) error {
	if err := s.load(); err != nil {
		return err
	}
	s.reanalysed = true
	return s.finish(command, time.Now())
}

// NoResultsError is a directory that holds no study results to
// reanalyse (no NET-p2p-1pairs.jsonl): bad input, told by its message.
type NoResultsError struct{ Dir string }

// Error names the directory and the file the study looks for.
func (e *NoResultsError) Error() string {
	return fmt.Sprintf("no study results (NET-p2p-1pairs.jsonl) in %s", e.Dir)
}

// network builds one network, runs the experiment set on it and removes it.
func (s *Run) network(n NetSpec) error {
	cfg := testbed.Config{Name: "s" + strconv.Itoa(os.Getpid()%100000), Nodes: s.Nodes, Net: n.Kind, RateBps: n.RateBps,
		MTU: 1500, Seed: 1, Owner: os.Getpid()}
	// Poll stays 0: the findings are bandwidth and time ratios of up to 8
	// ranks sharing the host's CPUs, established with a forwarder that
	// sleeps at once; polling after frames serves a PingPong's latency.
	fmt.Fprintf(s.Out, "# %s: building %d nodes, %s at %s\n", n.Name, s.Nodes, n.Kind, medium.FormatRate(n.RateBps))
	st, err := s.Up(cfg)
	if err != nil {
		return err
	}
	defer testbed.Down(cfg.Name)
	type runSpec struct {
		file string
		np   int
		args []string
	}
	// PingPong and PingPing on one pair, then Multi-PingPong at 2, 4, ...
	// pairs (the -multi rows of all counts form one series). The findings
	// read 1 MiB; 0, 64 and 256 KiB draw the curves. The collectives run
	// at 64 KiB only and Bcast at 1 MiB only, the sizes their findings
	// read: a 0-byte Alltoall, Gather, Scatter or Bcast moves nothing, yet
	// IMB's -time cap lets it run 1000 repetitions, each followed by the
	// -sync barrier, which costs 37 ms among 8 ranks on a 20 Mbit/s wifi
	// (docs/testbed-study.md).
	runs := []runSpec{{"p2p-1pairs", 2, []string{"-multi", "0", "-msgsize", p2pSizes, "-time", s.Time, "PingPong", "PingPing"}}}
	for np := 4; np <= s.Nodes; np *= 2 {
		runs = append(runs, runSpec{fmt.Sprintf("p2p-%dpairs", np/2), np, []string{"-multi", "0", "-msgsize", p2pSizes, "-time", s.Time, "PingPong"}})
	}
	runs = append(runs,
		runSpec{"coll", s.Nodes, []string{"-npmin", "2", "-msgsize", "65536", "-time", s.Time, "Sendrecv", "Exchange", "Alltoall", "Gather", "Scatter", "Barrier"}},
		runSpec{"bcast-tree", s.Nodes, []string{"-npmin", strconv.Itoa(s.Nodes), "-msgsize", "1048576", "-time", s.Time, "--coll", "bcast=" + TreeBcast, "Bcast"}},
		runSpec{"bcast-seg", s.Nodes, []string{"-npmin", strconv.Itoa(s.Nodes), "-msgsize", "1048576", "-time", s.Time, "--coll", "bcast=" + SegmentedBcast, "Bcast"}})
	var rows []result.Row
	for _, r := range runs {
		base := filepath.Join(s.Dir, n.Name+"-"+r.file)
		txt, err := os.Create(base + ".txt")
		if err != nil {
			return err
		}
		abs, _ := filepath.Abs(base + ".jsonl")
		fmt.Fprintf(s.Out, "#   %s: mpbench run -np %d %s\n", r.file, r.np, strings.Join(r.args, " "))
		err = s.Bench(txt, s.Errw, st, r.np, append(r.args, runArgs("--json", abs)...))
		txt.Close()
		if err != nil {
			return err
		}
		s.resultFiles = append(s.resultFiles, base+".jsonl")
		runsRead, err := read.File(base + ".jsonl")
		if err != nil {
			return err
		}
		for _, rr := range runsRead {
			rows = append(rows, rr.Rows...)
		}
	}
	tt, err := s.transfer(n, st)
	if err != nil {
		return err
	}
	s.nets = append(s.nets, Network{Name: n.Name, Kind: n.Kind, Rows: rows})
	s.infos = append(s.infos, NetInfo{Name: n.Name, Model: st.Model, Transfer: tt, Forwarder: forwarderLine(cfg.Name)})
	fmt.Fprintf(s.Out, "#   forwarder: %s\n", s.infos[len(s.infos)-1].Forwarder)
	return nil
}

// transfer runs the file transfer from node 2 to node 1 and returns its
// table; rows go to NET-transfer.jsonl.
func (s *Run) transfer(n NetSpec, st testbed.State) (string, error) {
	var ln net.Listener
	if err := testbed.InNode(st.Node(1), func() (err error) { ln, err = net.Listen("tcp", testbed.Addr(1)+":0"); return err }); err != nil {
		return "", err
	}
	defer ln.Close()
	go transfer.Serve(ln)
	var m *analysis.WireModel
	if n.Kind != "wifi" {
		wm, err := analysis.EthernetModel(n.RateBps/1e6, 1500, false)
		if err == nil {
			m = &wm
		}
	}
	jf, err := os.Create(filepath.Join(s.Dir, n.Name+"-transfer.jsonl"))
	if err != nil {
		return "", err
	}
	defer jf.Close()
	dial := func() (c net.Conn, err error) {
		err = testbed.InNode(st.Node(2), func() (err error) { c, err = net.DialTimeout("tcp", ln.Addr().String(), 10*time.Second); return err })
		return c, err
	}
	fmt.Fprintf(s.Out, "#   transfer: node 2 to node 1, %d repeats per size (fewer once a size took %v)\n", s.Repeat, s.TransferTime)
	var rows []transfer.Row
	for _, size := range s.Sizes {
		var times []time.Duration
		for start := time.Now(); len(times) < s.Repeat && (len(times) == 0 || time.Since(start) < s.TransferTime); {
			d, err := transfer.Send(dial, size)
			if err != nil {
				return "", err
			}
			times = append(times, d)
		}
		r := transfer.Summarise(size, times, m)
		rows = append(rows, r)
		transfer.WriteJSON(jf, r)
	}
	var b bytes.Buffer
	transfer.WriteTable(&b, fmt.Sprintf("file transfer on %s, node 2 to node 1", n.Name), rows, m)
	return b.String(), nil
}

// finish writes findings.json, study.html and report.html, and prints the
// findings.
func (s *Run) finish(command string, start time.Time) error {
	pairs := s.Nodes / 2
	fs := Findings(s.nets, pairs)
	b, err := json.MarshalIndent(fs, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(s.Dir, "findings.json"), append(b, '\n'), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(s.Out, "\n%-10s %-48s %10s  %-28s %s\n", "network", "finding", "measured", "states it", "")
	failed := 0
	for _, f := range fs {
		mark := "ok"
		if !f.Pass {
			mark, failed = "NOT MET", failed+1
		}
		want := f.Want
		if i := strings.Index(want, " ("); i > 0 {
			want = want[:i]
		}
		fmt.Fprintf(s.Out, "%-10s %-48s %10.3f  %-28s %s\n", f.Network, f.Name, f.Value, want, mark)
	}
	links := []Link{{Name: "report.html: mpbench report of every run", Href: "report.html"}, {Name: "findings.json", Href: "findings.json"}}
	for _, f := range s.resultFiles {
		links = append(links, Link{Name: filepath.Base(f), Href: filepath.Base(f)})
	}
	if len(s.resultFiles) > 0 {
		if err := s.Report(s.resultFiles, filepath.Join(s.Dir, "report.html")); err != nil {
			return err
		}
	}
	page := Page{Title: "mpbench testbed study: the study's findings on emulated networks", Command: command,
		Networks: s.infos, Findings: fs, Seed: SeedTables(), Links: links,
		Notes: []string{fmt.Sprintf("%d nodes per network; measured in %s on %s.", s.Nodes, time.Since(start).Round(time.Second), hostLoad()),
			fmt.Sprintf("Every run uses --eager %d: messages up to 1 MiB go eagerly, so the network decides the times; mpbench's TCP rendezvous does not overlap the two directions of PingPing.", eager),
			"Every run uses -warm_up 0 (the probe iterations of IMB's dynamic repetition policy, untimed and of the same messages, warm the path before the timed loop) and -iter 1000,4 (at most 4 MiB per size: 64 repetitions at 64 KiB, 4 at 1 MiB)."}}
	if s.reanalysed {
		page.Notes[0] = fmt.Sprintf("%d nodes per network; findings recomputed (--reanalyse) from the result files of an earlier run.", s.Nodes)
	}
	hf, err := os.Create(filepath.Join(s.Dir, "study.html"))
	if err != nil {
		return err
	}
	defer hf.Close()
	if err := WriteHTML(hf, page); err != nil {
		return err
	}
	if !s.reanalysed {
		var took []string
		for _, in := range s.infos {
			took = append(took, fmt.Sprintf("%s %s", in.Name, in.Elapsed.Round(time.Second)))
		}
		fmt.Fprintf(s.Out, "\n# wall time: %s; whole study %s\n", strings.Join(took, ", "), time.Since(start).Round(time.Second))
	}
	fmt.Fprintf(s.Out, "# %d of %d findings met; %s\n", len(fs)-failed, len(fs), filepath.Join(s.Dir, "study.html"))
	return nil
}

// forwarderLine describes the counters of testbed name's forwarder as of
// its last write (every half second): frames, drops and delivery lateness.
func forwarderLine(name string) string {
	time.Sleep(600 * time.Millisecond) // the counters of the last frames
	st, err := testbed.ReadStats(name)
	if err != nil {
		return "counters not read: " + err.Error()
	}
	return fmt.Sprintf("%d frames, %d lost (--loss), %d queue drops; delivery late by p50 %.1f usec, p99 %.1f usec (last 4096 frames)",
		st.Frames, st.Lost, st.QueueDrops, st.LateP50Usec, st.LateP99Usec)
}

// hostLoad describes this host for the notes: CPUs and load average.
func hostLoad() string {
	la, _ := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(la))
	load := "?"
	if len(f) > 0 {
		load = f[0]
	}
	out, _ := exec.Command("nproc").Output()
	return fmt.Sprintf("a host of %s CPUs at load average %s at the end", strings.TrimSpace(string(out)), load)
}

// load reads the result files a previous study left in s.Dir, in the
// order of the networks' first files.
func (s *Run) load() error {
	p2p, _ := filepath.Glob(filepath.Join(s.Dir, "*-p2p-1pairs.jsonl"))
	if len(p2p) == 0 {
		return &NoResultsError{Dir: s.Dir}
	}
	for _, first := range p2p {
		name := strings.TrimSuffix(filepath.Base(first), "-p2p-1pairs.jsonl")
		kind := strings.TrimRight(name, "0123456789")
		files, _ := filepath.Glob(filepath.Join(s.Dir, name+"-*.jsonl"))
		n := Network{Name: name, Kind: kind}
		info := NetInfo{Name: name}
		for _, f := range files {
			if strings.HasSuffix(f, "-transfer.jsonl") {
				info.Transfer = transferTable(f, name)
				continue
			}
			runs, err := read.File(f)
			if err != nil {
				return err
			}
			s.resultFiles = append(s.resultFiles, f)
			for _, r := range runs {
				n.Rows = append(n.Rows, r.Rows...)
				if info.Model == "" {
					info.Model, _, _ = strings.Cut(r.Meta.Info["network"], ";")
				}
			}
		}
		s.nets = append(s.nets, n)
		s.infos = append(s.infos, info)
	}
	return nil
}

// transferTable prints the file-transfer rows of a NET-transfer.jsonl.
func transferTable(path, name string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	var rows []transfer.Row
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var r transfer.Row
		if json.Unmarshal([]byte(line), &r) == nil {
			rows = append(rows, r)
		}
	}
	var out bytes.Buffer
	transfer.WriteTable(&out, fmt.Sprintf("file transfer on %s, node 2 to node 1", name), rows, nil)
	return out.String()
}
