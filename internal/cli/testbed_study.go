package cli

import (
	"bytes"
	"context"
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

	"github.com/spf13/cobra"

	"github.com/mpbench/mpbench/analysis"
	"github.com/mpbench/mpbench/launch/supervise"
	"github.com/mpbench/mpbench/result"
	"github.com/mpbench/mpbench/result/read"
	"github.com/mpbench/mpbench/testbed"
	"github.com/mpbench/mpbench/testbed/medium"
	"github.com/mpbench/mpbench/testbed/study"
	"github.com/mpbench/mpbench/transfer"
)

// studyNet is one network of the study as emulated.
type studyNet struct {
	name, kind string
	rateBps    float64
}

// studyNets returns the networks of a study run: with scale > 0 the
// study's four (switch 100 and 10 Mbit/s, hub 10, wifi 54) at their rates
// times scale, else each kind in kinds at rate.
func studyNets(kinds []string, rate, scale float64) []studyNet {
	if scale > 0 {
		return []studyNet{{"switch100", "switch", 100e6 * scale}, {"switch10", "switch", 10e6 * scale},
			{"hub10", "hub", 10e6 * scale}, {"wifi54", "wifi", 54e6 * scale}}
	}
	var out []studyNet
	for _, k := range kinds {
		out = append(out, studyNet{k, k, rate})
	}
	return out
}

func newTestbedStudyCmd() *cobra.Command {
	var dir, rate, nets, sizes, timeS string
	var nodes, repeat int
	var scale, transferSecs float64
	var again bool
	cmd := &cobra.Command{
		Use:   "study -o DIR",
		Short: "Reproduce the study: its experiment set on each emulated network, findings and a report page",
		Long: `mpbench testbed study builds each network in turn (--nets at --rate, or with
--scale F the study's four networks, switch 100 and 10 Mbit/s, hub 10 Mbit/s and
wifi 54 Mbit/s, at F times their rates) on --nodes nodes and runs the study's
experiment set: PingPong and PingPing on one pair and Multi-PingPong at 2..N/2
pairs (0, 64 KiB, 256 KiB and 1 MiB), Sendrecv, Exchange, Alltoall, Gather,
Scatter and Barrier at N = 2, 4, 8 (64 KiB), Bcast as a binomial tree and as a
pipeline, the study's segmented broadcast (1 MiB, N nodes), and the file transfer. It writes every
result file, findings.json and study.html (each finding with its evidence next
to the study's tables) and report.html (mpbench report of every run) to DIR, and
prints each network's wall time. The default takes about 8 minutes on a quiet
2-CPU host (docs/testbed-study.md).`,
		Example: `  mpbench testbed study -o study/                     # switch, hub, wifi at 20 Mbit/s, 8 nodes
  mpbench testbed study --scale 0.2 -o study-scaled/    # the study's four networks at 1/5 of their rates`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if dir == "" {
				return usageErrorf("study needs -o DIR, the directory for its results")
			}
			if again {
				s := &studyRun{dir: dir, nodes: nodes, out: cmd.OutOrStdout(), errw: cmd.ErrOrStderr()}
				if err := s.load(); err != nil {
					return err
				}
				s.reanalysed = true
				return s.finish(strings.Join(os.Args, " "), time.Now())
			}
			r, err := medium.ParseRate(rate)
			if err != nil {
				return usageErrorf("--rate: %v", err)
			}
			if nodes < 4 || nodes > testbed.MaxNodes || nodes&(nodes-1) != 0 {
				return usageErrorf("--nodes %d: give 4, 8 or 16 (the experiment set doubles N from 2)", nodes)
			}
			if scale < 0 {
				return usageErrorf("--scale %g: give a factor > 0", scale)
			}
			kinds := strings.Split(nets, ",")
			for _, k := range kinds {
				if _, err := medium.New(k, medium.Params{Ports: 2, RateBps: 1e6}, false, 0); err != nil {
					return usageErrorf("--nets: %v", err)
				}
			}
			list, err := transfer.ParseSizes(sizes)
			if err != nil {
				return usageErrorf("--transfer-sizes: %v", err)
			}
			if err := testbed.Probe(); err != nil {
				return testbedError(err)
			}
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return usageErrorf("-o %s: %v", dir, err)
			}
			if !(transferSecs > 0) || transferSecs > 1e6 {
				return usageErrorf("--transfer-time %g: give seconds > 0", transferSecs)
			}
			s := &studyRun{dir: dir, nodes: nodes, time: timeS, sizes: list, repeat: repeat,
				transferTime: time.Duration(transferSecs * float64(time.Second)), out: cmd.OutOrStdout(), errw: cmd.ErrOrStderr()}
			return s.run(studyNets(kinds, r, scale), strings.Join(os.Args, " "))
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&dir, "output", "o", "", "directory for the results, findings and pages")
	fl.IntVar(&nodes, "nodes", 8, "nodes of each network (4, 8 or 16)")
	fl.StringVar(&rate, "rate", "20mbit", "rate of every network (without --scale)")
	fl.StringVar(&nets, "nets", "switch,hub,wifi", "networks to emulate (without --scale)")
	fl.Float64Var(&scale, "scale", 0, "emulate the study's four networks at this fraction of their rates instead")
	fl.StringVar(&timeS, "time", "1", "IMB -time: seconds per message size at most")
	fl.StringVar(&sizes, "transfer-sizes", "0,1,1K,1M,10M", "file sizes of the file transfer (the study's: 0,1,1K,1M,10M,100M)")
	fl.IntVar(&repeat, "repeat", 3, "transfers per file size at most (the study's: 10)")
	fl.Float64Var(&transferSecs, "transfer-time", 10, "seconds of file transfers per size, after which no further repeat of that size starts")
	fl.BoolVar(&again, "reanalyse", false, "measure nothing: recompute the findings and pages from the result files in DIR (give the --nodes they were measured with)")
	return cmd
}

// studyP2PSizes are the message sizes of the study's point-to-point runs.
const studyP2PSizes = "0,65536,262144,1048576"

// studyEager is the eager threshold of the study's runs: every message
// (up to 1 MiB) goes eagerly, so the network decides the times, not a
// rendezvous handshake (mpbench's TCP rendezvous does not overlap the two
// directions of PingPing: at 1 MiB it halves PingPing on any network).
const studyEager = 4 << 20

// studyRunArgs are the options every run of the study adds to its own,
// followed by more: every message eager (studyEager), no warm-up
// iterations, and at most 4 MiB of messages per size and rank (-iter
// 1000,4). IMB's dynamic policy runs the kernel once (twice when that
// caps the count) untimed before the timed loop; on a slow medium that
// probe is already a full iteration of the same messages, and the warm-up
// (n/10, at least min(10, n)) only repeats it: for a 1 MiB PingPong at 4
// pairs on a 20 Mbit/s wifi, 15 s more per row. The volume cap bounds a
// row whose probe came out short (on a busy host a rank that enters the
// probe late finds its message already there: a 64 KiB Scatter then ran
// its 640 repetitions of 58 ms); on a quiet host the time cap gives
// fewer repetitions at every size above 0 bytes anyway. --all-sizes: the
// study needs every size, however long a slow medium takes for them.
func studyRunArgs(more ...string) []string {
	return append([]string{"--eager", strconv.Itoa(studyEager), "-warm_up", "0", "-iter", "1000,4", "--all-sizes"}, more...)
}

// studyRun is one mpbench testbed study.
type studyRun struct {
	dir    string
	nodes  int
	time   string
	sizes  []int64
	repeat int
	// transferTime bounds the file transfers of one size: no further
	// repeat starts once it has passed (at least one runs).
	transferTime time.Duration
	out, errw    io.Writer
	nets         []study.Network
	infos        []study.NetInfo
	resultFiles  []string
	reanalysed   bool // findings recomputed from an earlier study's files
}

// run measures every network, then writes the findings and pages.
func (s *studyRun) run(nets []studyNet, command string) error {
	start := time.Now()
	for _, n := range nets {
		t0 := time.Now()
		err := s.network(n)
		el := time.Since(t0)
		fmt.Fprintf(s.out, "# %s: %s (building, runs, file transfer, removing)\n", n.name, el.Round(time.Second))
		if err != nil {
			s.finish(command, start) // keep what was measured
			return fmt.Errorf("study on %s: %w", n.name, err)
		}
		s.infos[len(s.infos)-1].Elapsed = el
	}
	return s.finish(command, start)
}

// network builds one network, runs the experiment set on it and removes it.
func (s *studyRun) network(n studyNet) error {
	cfg := testbed.Config{Name: "s" + strconv.Itoa(os.Getpid()%100000), Nodes: s.nodes, Net: n.kind, RateBps: n.rateBps,
		MTU: 1500, Seed: 1, Owner: os.Getpid()}
	// Poll stays 0: the findings are bandwidth and time ratios of up to 8
	// ranks sharing the host's CPUs, established with a forwarder that
	// sleeps at once; polling after frames serves a PingPong's latency.
	fmt.Fprintf(s.out, "# %s: building %d nodes, %s at %s\n", n.name, s.nodes, n.kind, medium.FormatRate(n.rateBps))
	st, err := testbed.Up(cfg)
	if err != nil {
		return testbedError(err)
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
	runs := []runSpec{{"p2p-1pairs", 2, []string{"-multi", "0", "-msgsize", studyP2PSizes, "-time", s.time, "PingPong", "PingPing"}}}
	for np := 4; np <= s.nodes; np *= 2 {
		runs = append(runs, runSpec{fmt.Sprintf("p2p-%dpairs", np/2), np, []string{"-multi", "0", "-msgsize", studyP2PSizes, "-time", s.time, "PingPong"}})
	}
	runs = append(runs,
		runSpec{"coll", s.nodes, []string{"-npmin", "2", "-msgsize", "65536", "-time", s.time, "Sendrecv", "Exchange", "Alltoall", "Gather", "Scatter", "Barrier"}},
		runSpec{"bcast-tree", s.nodes, []string{"-npmin", strconv.Itoa(s.nodes), "-msgsize", "1048576", "-time", s.time, "--coll", "bcast=" + study.TreeBcast, "Bcast"}},
		runSpec{"bcast-seg", s.nodes, []string{"-npmin", strconv.Itoa(s.nodes), "-msgsize", "1048576", "-time", s.time, "--coll", "bcast=" + study.SegmentedBcast, "Bcast"}})
	var rows []result.Row
	for _, r := range runs {
		base := filepath.Join(s.dir, n.name+"-"+r.file)
		txt, err := os.Create(base + ".txt")
		if err != nil {
			return err
		}
		abs, _ := filepath.Abs(base + ".jsonl")
		fmt.Fprintf(s.out, "#   %s: mpbench run -np %d %s\n", r.file, r.np, strings.Join(r.args, " "))
		err = runOnTestbed(txt, s.errw, st, r.np, append(r.args, studyRunArgs("--json", abs)...))
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
	s.nets = append(s.nets, study.Network{Name: n.name, Kind: n.kind, Rows: rows})
	s.infos = append(s.infos, study.NetInfo{Name: n.name, Model: st.Model, Transfer: tt, Forwarder: forwarderLine(cfg.Name)})
	fmt.Fprintf(s.out, "#   forwarder: %s\n", s.infos[len(s.infos)-1].Forwarder)
	return nil
}

// transfer runs the file transfer from node 2 to node 1 and returns its
// table; rows go to NET-transfer.jsonl.
func (s *studyRun) transfer(n studyNet, st testbed.State) (string, error) {
	var ln net.Listener
	if err := testbed.InNode(st.Node(1), func() (err error) { ln, err = net.Listen("tcp", testbed.Addr(1)+":0"); return err }); err != nil {
		return "", err
	}
	defer ln.Close()
	go transfer.Serve(ln)
	var m *analysis.WireModel
	if n.kind != "wifi" {
		wm, err := analysis.EthernetModel(n.rateBps/1e6, 1500, false)
		if err == nil {
			m = &wm
		}
	}
	jf, err := os.Create(filepath.Join(s.dir, n.name+"-transfer.jsonl"))
	if err != nil {
		return "", err
	}
	defer jf.Close()
	dial := func() (c net.Conn, err error) {
		err = testbed.InNode(st.Node(2), func() (err error) { c, err = net.DialTimeout("tcp", ln.Addr().String(), 10*time.Second); return err })
		return c, err
	}
	fmt.Fprintf(s.out, "#   transfer: node 2 to node 1, %d repeats per size (fewer once a size took %v)\n", s.repeat, s.transferTime)
	var rows []transfer.Row
	for _, size := range s.sizes {
		var times []time.Duration
		for start := time.Now(); len(times) < s.repeat && (len(times) == 0 || time.Since(start) < s.transferTime); {
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
	transfer.WriteTable(&b, fmt.Sprintf("file transfer on %s, node 2 to node 1", n.name), rows, m)
	return b.String(), nil
}

// finish writes findings.json, study.html and report.html, and prints the
// findings.
func (s *studyRun) finish(command string, start time.Time) error {
	pairs := s.nodes / 2
	fs := study.Findings(s.nets, pairs)
	b, _ := json.MarshalIndent(fs, "", "  ")
	if err := os.WriteFile(filepath.Join(s.dir, "findings.json"), append(b, '\n'), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(s.out, "\n%-10s %-48s %10s  %-28s %s\n", "network", "finding", "measured", "states it", "")
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
		fmt.Fprintf(s.out, "%-10s %-48s %10.3f  %-28s %s\n", f.Network, f.Name, f.Value, want, mark)
	}
	self, _ := os.Executable()
	links := []study.Link{{Name: "report.html: mpbench report of every run", Href: "report.html"}, {Name: "findings.json", Href: "findings.json"}}
	for _, f := range s.resultFiles {
		links = append(links, study.Link{Name: filepath.Base(f), Href: filepath.Base(f)})
	}
	if len(s.resultFiles) > 0 {
		// A supervised child, as every job of the study: Ctrl-C stops it
		// with SIGINT, and a failure names how it ended.
		args := append([]string{self, "report", "--title", "mpbench testbed study: every run"}, s.resultFiles...)
		ctx, stop := notifyInterrupt(context.Background())
		err := supervise.Command{Argv: append(args, "-o", filepath.Join(s.dir, "report.html")), Name: "mpbench report", Stderr: s.errw}.Run(ctx)
		// Whether a signal ended it is read before stop, which cancels ctx.
		if ctx.Err() != nil {
			err := cancelCause(ctx, errInterrupted)
			stop()
			return err
		}
		stop()
		if err != nil {
			fmt.Fprintf(s.errw, "%sreport.html: %v\n", errorPrefix, err)
		}
	}
	page := study.Page{Title: "mpbench testbed study: the study's findings on emulated networks", Command: command,
		Networks: s.infos, Findings: fs, Seed: study.SeedTables(), Links: links,
		Notes: []string{fmt.Sprintf("%d nodes per network; measured in %s on %s.", s.nodes, time.Since(start).Round(time.Second), hostLoad()),
			fmt.Sprintf("Every run uses --eager %d: messages up to 1 MiB go eagerly, so the network decides the times; mpbench's TCP rendezvous does not overlap the two directions of PingPing.", studyEager),
			"Every run uses -warm_up 0 (the probe iterations of IMB's dynamic repetition policy, untimed and of the same messages, warm the path before the timed loop) and -iter 1000,4 (at most 4 MiB per size: 64 repetitions at 64 KiB, 4 at 1 MiB)."}}
	if s.reanalysed {
		page.Notes[0] = fmt.Sprintf("%d nodes per network; findings recomputed (--reanalyse) from the result files of an earlier run.", s.nodes)
	}
	hf, err := os.Create(filepath.Join(s.dir, "study.html"))
	if err != nil {
		return err
	}
	defer hf.Close()
	if err := study.WriteHTML(hf, page); err != nil {
		return err
	}
	if !s.reanalysed {
		var took []string
		for _, in := range s.infos {
			took = append(took, fmt.Sprintf("%s %s", in.Name, in.Elapsed.Round(time.Second)))
		}
		fmt.Fprintf(s.out, "\n# wall time: %s; whole study %s\n", strings.Join(took, ", "), time.Since(start).Round(time.Second))
	}
	fmt.Fprintf(s.out, "# %d of %d findings met; %s\n", len(fs)-failed, len(fs), filepath.Join(s.dir, "study.html"))
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

// load reads the result files a previous study left in s.dir, in the
// order of the networks' first files.
func (s *studyRun) load() error {
	p2p, _ := filepath.Glob(filepath.Join(s.dir, "*-p2p-1pairs.jsonl"))
	if len(p2p) == 0 {
		return usageErrorf("--reanalyse: no study results (NET-p2p-1pairs.jsonl) in %s", s.dir)
	}
	for _, first := range p2p {
		name := strings.TrimSuffix(filepath.Base(first), "-p2p-1pairs.jsonl")
		kind := strings.TrimRight(name, "0123456789")
		files, _ := filepath.Glob(filepath.Join(s.dir, name+"-*.jsonl"))
		n := study.Network{Name: name, Kind: kind}
		info := study.NetInfo{Name: name}
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
