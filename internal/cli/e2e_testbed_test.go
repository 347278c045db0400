package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mpbench/mpbench/analysis"
	"github.com/mpbench/mpbench/internal/proctest"
	"github.com/mpbench/mpbench/result"
	"github.com/mpbench/mpbench/result/read"
	"github.com/mpbench/mpbench/testbed"
	"github.com/mpbench/mpbench/testbed/medium"
)

// needTestbed skips a test on a host where testbeds cannot be built.
func needTestbed(t *testing.T) {
	t.Helper()
	if err := testbed.Probe(); err != nil {
		t.Skipf("building a testbed needs root here: %v", err)
	}
}

// TestE2ETestbedCommands builds a testbed with mpbench testbed up, runs a
// command on a node, reads status and removes it with down.
func TestE2ETestbedCommands(t *testing.T) {
	needTestbed(t)
	name := "e" + strconv.Itoa(os.Getpid()%100000)
	defer exec.Command(mpbenchBin, "testbed", "down", "--name", name).Run()
	cmd, out, errb := e2eCmd(t, "testbed", "up", "--name", name, "--nodes", "2", "--net", "hub", "--rate", "10mbit", "--latency", "50us")
	if err := cmd.Run(); err != nil {
		t.Fatalf("up: %v\n%s", err, errb)
	}
	for _, want := range []string{"hub: one half-duplex medium at 10mbit", "latency 50µs", "mpbtb-" + name + "-n2", "10.77.0.2", "forwarder polls 50µs after a frame"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("up output lacks %q:\n%s", want, out)
		}
	}
	cmd, out, errb = e2eCmd(t, "testbed", "exec", "--name", name, "--node", "2", "--", "sh", "-c", "hostname; cat /proc/sys/net/ipv4/tcp_timestamps; cat /sys/class/net/eth0/mtu")
	if err := cmd.Run(); err != nil {
		t.Fatalf("exec: %v\n%s", err, errb)
	}
	if got, want := out.String(), "mpbtb-"+name+"-n2\n0\n1500\n"; got != want {
		t.Errorf("exec on node 2 printed %q, want %q (hostname, TCP timestamps off, MTU)", got, want)
	}
	// The launch agent for Open MPI and MPICH runs a command line on a node
	// through a shell, as ssh does, skipping hydra's -x.
	agent := filepath.Join(testbed.Dir(name), "agent")
	got, err := exec.Command(agent, "-x", "mpbtb-"+name+"-n2", "hostname; echo $((1+1))").CombinedOutput()
	if err != nil || string(got) != "mpbtb-"+name+"-n2\n2\n" {
		t.Errorf("agent: %v %q", err, got)
	}
	hf, _ := os.ReadFile(filepath.Join(testbed.Dir(name), "hostfile"))
	hm, _ := os.ReadFile(filepath.Join(testbed.Dir(name), "hostfile.mpich"))
	if string(hf) != "mpbtb-"+name+"-n1 slots=1\nmpbtb-"+name+"-n2 slots=1\n" || string(hm) != "mpbtb-"+name+"-n1:1\nmpbtb-"+name+"-n2:1\n" {
		t.Errorf("hostfiles:\n%s\n%s", hf, hm)
	}
	cmd, out, _ = e2eCmd(t, "testbed", "status", "--name", name)
	if err := cmd.Run(); err != nil || !strings.Contains(out.String(), "up (forwarder pid") || !strings.Contains(out.String(), "# forwarder: ") {
		t.Errorf("status: %v\n%s", err, out)
	}
	cmd, out, errb = e2eCmd(t, "testbed", "check", "--name", name, "--seconds", "0.6", "--pings", "20", "--tolerance", "75%")
	if err := cmd.Run(); err != nil {
		t.Errorf("check: %v\n%s%s", err, out, errb)
	}
	// The hub's model rate at 10 Mbit/s is 9.24 Mbit/s alone and shared.
	for _, want := range [][]string{{"loopback (node 1)", "usec"}, {"latency 1<->2", "usec"}, {"bulk 2->1", "Mbit/s", " 9.24 "},
		{"two transfers 1->2 + 2->1", "Mbit/s", " 9.24 "}, {"# forwarder: "}} {
		found := false
		for _, line := range strings.Split(out.String(), "\n") {
			ok := true
			for _, w := range want {
				ok = ok && strings.Contains(line, w)
			}
			found = found || ok
		}
		if !found {
			t.Errorf("check output has no line with %q:\n%s", want, out)
		}
	}
	// Bad input: a node that does not exist, a rate without unit.
	cmd, _, errb = e2eCmd(t, "testbed", "exec", "--name", name, "--node", "3", "--", "true")
	if err := cmd.Run(); exitCode(err) != 2 || !strings.Contains(errb.String(), "has nodes 1..2") {
		t.Errorf("exec on node 3: status %d, %s", exitCode(err), errb)
	}
	cmd, _, errb = e2eCmd(t, "testbed", "up", "--name", "x"+name, "--rate", "100")
	if err := cmd.Run(); exitCode(err) != 2 || !strings.Contains(errb.String(), "100mbit") {
		t.Errorf("up --rate 100: status %d, %s", exitCode(err), errb)
	}
	cmd, _, errb = e2eCmd(t, "testbed", "up", "--name", "x"+name, "--poll", "5ms")
	if err := cmd.Run(); exitCode(err) != 2 || !strings.Contains(errb.String(), "--poll 5ms: use 0") {
		t.Errorf("up --poll 5ms: status %d, %s", exitCode(err), errb)
	}
	cmd, out, _ = e2eCmd(t, "testbed", "down", "--name", name)
	if err := cmd.Run(); err != nil || !strings.Contains(out.String(), "removed") {
		t.Errorf("down: %v %s", err, out)
	}
	if ns, _ := exec.Command("ip", "netns", "list").Output(); strings.Contains(string(ns), "mpbtb-"+name+"-") {
		t.Errorf("namespaces left after down:\n%s", ns)
	}
}

// TestE2ETestbedWithoutCapability checks that up without CAP_NET_ADMIN
// exits 2 with one line naming it.
func TestE2ETestbedWithoutCapability(t *testing.T) {
	needTestbed(t)
	cmd := proctest.Command(t, "setpriv", "--bounding-set", "-net_admin", "--inh-caps", "-net_admin", mpbenchBin, "testbed", "up", "--name", "nocap")
	out, err := cmd.CombinedOutput()
	if exitCode(err) != 2 || !strings.Contains(string(out), "needs CAP_NET_ADMIN") || strings.Count(string(out), "\n") != 1 {
		t.Errorf("up without CAP_NET_ADMIN: status %d, %q", exitCode(err), out)
	}
}

// TestE2ETransfer runs mpbench transfer serve and send on this host and
// checks the table and the JSON and CSV files.
func TestE2ETransfer(t *testing.T) {
	port := strconv.Itoa(20000 + os.Getpid()%20000)
	srv, _, _ := e2eCmd(t, "transfer", "serve", "--listen", "127.0.0.1:"+port)
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	defer srv.Process.Kill()
	dir := t.TempDir()
	var out, errb *bytes.Buffer
	var err error
	for range 50 { // until the server listens
		var cmd *exec.Cmd
		cmd, out, errb = e2eCmd(t, "transfer", "send", "127.0.0.1:"+port, "--sizes", "0,1K,1Mi", "--repeat", "3",
			"--wire", "eth:1g", "--json", dir+"/t.jsonl", "--csv", dir+"/t.csv")
		if err = cmd.Run(); err == nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err != nil {
		t.Fatalf("send: %v\n%s", err, errb)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 6 || !strings.Contains(lines[1], "line rate 1000 Mbit/s") || !strings.HasPrefix(strings.TrimSpace(lines[5]), "1048576        3") {
		t.Errorf("table:\n%s", out)
	}
	j, _ := os.ReadFile(dir + "/t.jsonl")
	c, _ := os.ReadFile(dir + "/t.csv")
	if strings.Count(string(j), "\n") != 3 || !strings.Contains(string(j), `"bytes":1048576,"repeats":3,"times_ms":[`) {
		t.Errorf("JSON:\n%s", j)
	}
	if cl := strings.Split(strings.TrimSpace(string(c)), "\n"); len(cl) != 4 || cl[0] != "bytes,repeats,t_median_ms,t_min_ms,t_max_ms,mbit_per_sec,pct_of_line_rate,pct_of_wire_model" || !strings.HasPrefix(cl[2], "1000,3,") {
		t.Errorf("CSV:\n%s", c)
	}
	cmd, _, errb := e2eCmd(t, "transfer", "send", "127.0.0.1:"+port, "--sizes", "1T")
	if err := cmd.Run(); exitCode(err) != 2 || !strings.Contains(errb.String(), "--sizes") {
		t.Errorf("--sizes 1T: status %d, %s", exitCode(err), errb)
	}
}

// TestE2ETestbedRun runs PingPong on a testbed that is up, checks the
// header and the JSON metadata name the network and that the forwarder
// carried the messages as wire frames; then kills the launcher of a run on
// a testbed built for it with SIGKILL and checks that its testbed and
// ranks go too.
func TestE2ETestbedRun(t *testing.T) {
	needTestbed(t)
	name := "q" + strconv.Itoa(os.Getpid()%100000)
	defer exec.Command(mpbenchBin, "testbed", "down", "--name", name).Run()
	cmd, out, errb := e2eCmd(t, "testbed", "up", "--name", name, "--net", "switch", "--nodes", "3", "--rate", "20mbit")
	if err := cmd.Run(); err != nil {
		t.Fatalf("up: %v\n%s", err, errb)
	}
	js := t.TempDir() + "/run.jsonl"
	cmd, out, errb = e2eCmd(t, "testbed", "run", "--name", name, "--np", "2",
		"--", "-msglog", "0:16", "-iter", "50", "PingPong", "--json", js)
	if err := cmd.Run(); err != nil {
		t.Fatalf("testbed run: %v\n%s%s", err, out, errb)
	}
	ended := time.Now()
	for _, want := range []string{"# Network               : switch: full duplex, store and forward, 20mbit", "# Hosts                 : mpbtb-" + name + "-n1: 0; mpbtb-" + name + "-n2: 1", "        65536           50"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	j, _ := os.ReadFile(js)
	if !strings.Contains(string(j), `"network":"switch: full duplex`) {
		t.Errorf("JSON metadata lacks the network:\n%.600s", j)
	}
	// 64 KiB PingPong at 20 Mbit/s: 45 frames of 1460 bytes and mpbench's
	// header on each of two lines of a store-and-forward switch, 27.7 ms
	// one way at the least, whatever the host's load.
	if t64 := rowTime(out.String(), 65536); t64 < 27700 {
		t.Errorf("65536-byte PingPong took %.1f usec, less than the switch's wire time (27700 usec)", t64)
	}
	// The switch forwards frames, not messages: the forwarder read at least
	// the 64 KiB messages' 2 x 50 x 45 full frames, none longer than the
	// MTU. With offloads on, the nodes would hand it 64 KiB super-frames,
	// each serialised whole on one line and then on the next (55.4 ms one
	// way at 64 KiB); a timed bound on that is crossed by a loaded host,
	// these counts are not.
	s := statsAfter(t, name, ended)
	t.Logf("forwarder: %d frames in, %d bytes, %d longer than the MTU", s.Frames, s.Bytes, s.Oversize)
	if s.Oversize != 0 || s.Frames < 2*50*45 {
		t.Errorf("forwarder: %d frames, %d longer than the MTU; want at least %d and none (the 64 KiB messages as full frames)", s.Frames, s.Oversize, 2*50*45)
	}
	if cmd, _, errb := e2eCmd(t, "testbed", "down", "--name", name); cmd.Run() != nil {
		t.Errorf("down: %s", errb)
	}
	assertNoTestbed(t, name, "after down")

	// kill -9 of the launcher: the forwarder removes its testbed.
	cmd, _, _ = e2eCmd(t, "testbed", "run", "--name", name, "--net", "hub", "--nodes", "2", "--rate", "10mbit", "--", "-msglog", "20:22", "-iter", "1000", "PingPong")
	cmd.Stdout = nil
	pipe, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 1<<16)
	var seen strings.Builder
	for !strings.Contains(seen.String(), "#bytes") {
		n, err := pipe.Read(buf)
		if err != nil {
			t.Fatalf("run ended before its first table: %v\n%s", err, seen.String())
		}
		seen.Write(buf[:n])
	}
	t.Logf("killing testbed run, pid %d", cmd.Process.Pid)
	if err := cmd.Process.Kill(); err != nil {
		t.Error(err)
	}
	cmd.Wait()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		ns, _ := exec.Command("ip", "netns", "list").Output()
		if !strings.Contains(string(ns), "mpbtb-"+name+"-") {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	assertNoTestbed(t, name, "10 s after kill -9 of the launcher")
}

// assertNoTestbed fails t when namespaces of testbed name or processes
// started on its nodes are left.
func assertNoTestbed(t *testing.T, name, when string) {
	t.Helper()
	if ns, _ := exec.Command("ip", "netns", "list").Output(); strings.Contains(string(ns), "mpbtb-"+name+"-") {
		t.Errorf("namespaces left %s:\n%s", when, ns)
	}
	if ps, _ := exec.Command("pgrep", "-f", "testbed exec --name "+name+" ").Output(); len(ps) > 0 {
		t.Errorf("processes on testbed %s left %s: %s", name, when, ps)
	}
}

// statsAfter returns the forwarder counters of testbed name written after
// t0 (the forwarder writes them every half second).
func statsAfter(t *testing.T, name string, t0 time.Time) testbed.Stats {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		s, err := testbed.ReadStats(name)
		if err == nil && s.Updated.After(t0) {
			return s
		}
		if time.Now().After(deadline) {
			t.Fatalf("forwarder counters of %s not written within 10 s of %v: %v (last %v)", name, t0, err, s.Updated)
		}
	}
}

// rowTime returns t[usec] of the row of the given size in IMB text, or -1.
func rowTime(text string, bytes int) float64 {
	for _, line := range strings.Split(text, "\n") {
		f := strings.Fields(line)
		if len(f) >= 3 && f[0] == strconv.Itoa(bytes) {
			v, err := strconv.ParseFloat(f[2], 64)
			if err == nil {
				return v
			}
		}
	}
	return -1
}

// TestE2ETestbedStudyShort is the short version of the study: a switch and
// a hub of 4 nodes at 50 Mbit/s, one repetition of everything. It checks
// the files and pages, and on each network the findings that tell a
// switch from a shared medium (studyVerdicts): the Multi-PingPong ABG and
// the class mpbench analyze gives the network's files, PingPing /
// PingPong, and the Alltoall's growth from 2 to 4 ranks.
func TestE2ETestbedStudyShort(t *testing.T) {
	needTestbed(t)
	// A second study runs only when the first one's findings missed
	// because the host slowed the runs they divide by (studyVerdicts);
	// anything else fails at once.
	for attempt := 1; ; attempt++ {
		slowed := studyShort(t)
		if slowed == "" {
			return
		}
		if attempt == 2 {
			t.Skipf("no verdict on the findings' ratios at this load, in neither of 2 studies: %s", slowed)
		}
		t.Logf("first study: %s; running it again", slowed)
	}
}

// studyNets are the networks of studyShort, in the order it builds them.
var studyNets = []testbed.Config{
	{Nodes: 4, Net: "switch", RateBps: 50e6, MTU: 1500, Seed: 1},
	{Nodes: 4, Net: "hub", RateBps: 50e6, MTU: 1500, Seed: 1},
}

// studyShort runs the short study once and checks its files, page and
// findings (errors on t); it returns why some findings' ratios gave no
// verdict ("" when all did).
func studyShort(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	cmd, out, errb := e2eCmd(t, "testbed", "study", "-o", dir, "--nodes", "4", "--nets", "switch,hub",
		"--rate", "50mbit", "--time", "0.1", "--transfer-sizes", "0,1K,100K", "--repeat", "1")
	if err := cmd.Run(); err != nil {
		t.Fatalf("study: %v\n%s%s", err, out, errb)
	}
	for _, cfg := range studyNets {
		n := cfg.Net
		for _, f := range []string{"p2p-1pairs.jsonl", "p2p-2pairs.jsonl", "coll.jsonl", "bcast-tree.jsonl", "bcast-seg.jsonl", "transfer.jsonl"} {
			if st, err := os.Stat(filepath.Join(dir, n+"-"+f)); err != nil || st.Size() == 0 {
				t.Errorf("%s-%s: %v", n, f, err)
			}
		}
		// The collectives run at the size their findings read, never at 0
		// bytes (1000 repetitions of nothing, each with a barrier); Barrier
		// has no size.
		coll, err := read.File(filepath.Join(dir, n+"-coll.jsonl"))
		if err != nil || len(coll) == 0 {
			t.Fatalf("%s-coll.jsonl: %v", n, err)
		}
		for _, r := range coll[0].Rows {
			if r.Bytes != 65536 && !(r.Benchmark == "Barrier" && r.Bytes < 0) {
				t.Errorf("%s-coll.jsonl has a %s row of %d bytes; the study's collectives run at 64 KiB", n, r.Benchmark, r.Bytes)
			}
		}
		if !regexp.MustCompile(`(?m)^# ` + n + `: \S+ \(building`).MatchString(out.String()) {
			t.Errorf("the study does not print the wall time of the %s:\n%s", n, out)
		}
	}
	for _, f := range []string{"findings.json", "study.html", "report.html"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	var fs []studyFinding
	b, _ := os.ReadFile(filepath.Join(dir, "findings.json"))
	if err := json.Unmarshal(b, &fs); err != nil || len(fs) != 7*len(studyNets) {
		t.Fatalf("findings.json: %v, %d findings\n%s", err, len(fs), b)
	}
	if !regexp.MustCompile(`(?m)^# wall time: switch \S+, hub \S+; whole study `).MatchString(out.String()) {
		t.Errorf("the study does not print the networks' wall times:\n%s", out)
	}
	page, _ := os.ReadFile(filepath.Join(dir, "study.html"))
	for _, want := range []string{"Multi-PingPong ABG 2 pairs / 1 pair", "Alltoall t(4)/t(2)", "hub10", "8.82", "file transfer on switch", "file transfer on hub", "queue drops"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("study.html lacks %q", want)
		}
	}
	if ns, _ := exec.Command("ip", "netns", "list").Output(); strings.Contains(string(ns), "mpbtb-s") && strings.Contains(string(ns), strconv.Itoa(cmd.Process.Pid%100000)) {
		t.Errorf("namespaces left after the study:\n%s", ns)
	}
	return studyVerdicts(t, dir, fs, out.String())
}

// studyFinding is one entry of findings.json, as far as the test reads it.
type studyFinding struct {
	Network, Finding string
	Value            float64
	Pass             bool
}

// studyVerdicts checks, on each network of studyNets, the findings that
// tell a shared medium from a switch, and returns why some gave no
// verdict ("" when all did).
//
// The ranks time every transfer, and the forwarder never delivers a frame
// before the medium model's time, so the host's load can only lengthen a
// time and lower a rate. Measured against the model, the numerators of
// the findings therefore stay within bounds that a network of the other
// kind crosses however loaded the host; these are asserted on every
// study, without retry:
//
//   - Multi-PingPong at 2 pairs in all and PingPing each way at most 1.1
//     of the model's rates (studyRates: a receiver that waited for a CPU
//     acknowledges several segments at once, 2.5% above the model at load
//     35-51, commit 3263e1a). A hub that carried two transfers at once (as
//     a switch does) exceeds them by 1.8 and 2 times, unless the host
//     slowed those runs by 45% or more.
//   - Alltoall of 64 KiB at N = 2 and 4 no faster than alltoallFloorShare
//     (0.8) of its floor
//     (alltoallFloor): every block's data frames given to the model at
//     once, the least time its busiest line or medium needs. The hub's
//     medium carries every block, N(N-1): 2 and 12, so its floors are
//     22.1 and 132.6 ms at 50 Mbit/s; a switch's port carries N-1 blocks
//     each way, 11.3 and 33.4 ms. A hub that behaved as a switch would
//     finish the 4-rank Alltoall in a quarter of the hub's floor, unless
//     the host slowed it 3.8 times.
//
// The ratios divide by a run the host can slow, which moves them towards
// the other kind's. With the numerators bounded as above, a ratio misses
// its limit only when that run ran slower than a threshold worked out
// from the bound; only such a miss counts as no verdict (the returned
// reason), any other is an error. See studyNetVerdicts for each ratio.
func studyVerdicts(t *testing.T, dir string, fs []studyFinding, out string) string {
	t.Helper()
	var slowed []string
	for _, cfg := range studyNets {
		var own []studyFinding
		for _, f := range fs {
			if f.Network == cfg.Net {
				own = append(own, f)
			}
		}
		if len(own) != 7 {
			t.Fatalf("findings.json has %d findings of the %s, want 7", len(own), cfg.Net)
		}
		slowed = append(slowed, studyNetVerdicts(t, dir, cfg, own, out)...)
	}
	return strings.Join(slowed, "; ")
}

// Limits of the short study's ratios (4 nodes: 2 pairs, Alltoall from 2
// to 4 ranks), and why:
//
//   - ABG 2 pairs / 1 pair: at most 1.5 on a hub (its model 1.00); at
//     least 1.6 on a switch (0.8 per pair, as the study states it; model
//     2.00);
//   - PingPing / PingPong bandwidth at 1 MiB: at most 0.75 on a hub
//     (model 0.50); a switch's (model 0.973) is checked by TestTwoWayBulk,
//     whose kernel timestamps load cannot lower;
//   - the class mpbench analyze gives the ABG: with two pair counts its
//     log-log slope is log2 of the ABG's growth, so shared-medium-like is
//     a growth of at most 2^0.5 = 1.41 and switch-like at least 2^0.75 =
//     1.68 (analysis.SharedSlope, SwitchSlope);
//   - Alltoall t(4)/t(2) at 64 KiB: the floors' ratio is 6.0 on the hub
//     (12 blocks against 2 on one medium) and 2.97 on a switch (3 blocks
//     against 1 per port). The hub is held to at least 4.5, the study's
//     own limit (0.75 of N(N-1)'s growth); the switch to below 5, which
//     leaves room for the host's cost per round of the pairwise algorithm
//     (at 50 Mbit/s t(2) and t(4) ran 1.24-1.30 and 1.60-1.79 of their
//     floors, ratios 3.9-4.1).
const (
	studyAlltoallHub    = 4.5
	studyAlltoallSwitch = 5.0
	// alltoallFloorShare is the least share of its floor an Alltoall's
	// t_max may take: t_max is the slowest rank's own time per call,
	// shorter than the call's span when the barrier released the ranks
	// apart (0.88 seen once on a quiet host, 1.0 on the rerun); a medium
	// that let two transfers through at once gives about half.
	alltoallFloorShare = 0.8
)

// studyNetVerdicts checks the findings of network cfg (its 7 findings in
// findings.json, in the study's order) and returns the ratios that gave
// no verdict.
//
// Each ratio R = A / B has one side bounded by the model whatever the
// load (A <= a x model for a rate, A >= a x floor for a time), so R can
// cross its limit L only when the other side ran beyond a threshold: for
// an upper limit on a ratio of rates, B below a x model(A) / L; for a
// lower limit on a ratio of times, B above a x floor(A) / L. Only then is
// a miss no verdict.
func studyNetVerdicts(t *testing.T, dir string, cfg testbed.Config, fs []studyFinding, out string) (slowed []string) {
	t.Helper()
	net := cfg.Net
	one := studyRow(t, dir, net, "p2p-1pairs", "PingPong", 1, 1<<20)
	ping := studyRow(t, dir, net, "p2p-1pairs", "PingPing", 1, 1<<20)
	two := studyRow(t, dir, net, "p2p-2pairs", "PingPong", 2, 1<<20)
	var a2, a4 result.Row
	for _, r := range studyRows(t, dir, net, "coll") {
		if r.Benchmark == "Alltoall" && r.Bytes == 65536 && r.TMax > 0 {
			if r.Processes == 2 {
				a2 = r
			} else if r.Processes == 4 {
				a4 = r
			}
		}
	}
	if a2.Processes != 2 || a4.Processes != 4 {
		t.Fatalf("%s-coll.jsonl: no Alltoall rows of 64 KiB at 2 and 4 ranks", net)
	}
	model := studyRates(t, cfg)
	f2, f4 := alltoallFloor(t, cfg, 2, 65536), alltoallFloor(t, cfg, 4, 65536)
	class, growth := studyClass(t, dir, net)
	// bit/s of TCP payload: IMB's PingPong t is the one-way time, PingPing's
	// the time of one exchange (both directions at once), Multi-PingPong's
	// the worst pair's one-way time; every t the maximum over the ranks.
	rate := func(r result.Row) float64 { return float64(r.Bytes) * 8 / (r.TMax / 1e6) }
	abg := 2 * rate(two)
	t2, t4 := a2.TMax/1e3, a4.TMax/1e3 // ms
	t.Logf("%s: model one transfer %.2f Mbit/s, PingPing %.2f each, two pairs %.2f in all; measured PingPong %.2f (%.3f of the model), PingPing %.2f (%.3f), two pairs %.2f (%.3f); findings ABG %.3f, PingPing/PingPong %.3f; analyze: %s, ABG growth %.3f; Alltoall 64 KiB t(2) %.1f ms (%.2f of its floor %.1f), t(4) %.1f ms (%.2f of %.1f), t(4)/t(2) %.2f",
		net, model.one/1e6, model.ping/1e6, model.pairs/1e6, rate(one)/1e6, rate(one)/model.one, rate(ping)/1e6, rate(ping)/model.ping, abg/1e6, abg/model.pairs,
		fs[0].Value, fs[1].Value, class, growth, t2, t2/f2, f2, t4, t4/f4, f4, t4/t2)
	if abg > 1.1*model.pairs {
		t.Errorf("%s: two pairs carried %.2f Mbit/s in all, %.2f of the model's %.2f", net, abg/1e6, abg/model.pairs, model.pairs/1e6)
	}
	if rate(ping) > 1.1*model.ping {
		t.Errorf("%s: PingPing %.2f Mbit/s each way, %.2f of the model's %.2f for two opposite transfers", net, rate(ping)/1e6, rate(ping)/model.ping, model.ping/1e6)
	}
	for _, c := range []struct {
		n       int
		t, ceil float64
	}{{2, t2, f2}, {4, t4, f4}} {
		if c.t < alltoallFloorShare*c.ceil {
			t.Errorf("%s: Alltoall of 64 KiB at %d ranks took %.1f ms, %.2f of the %.1f ms its model needs at the least for the blocks' frames", net, c.n, c.t, c.t/c.ceil, c.ceil)
		}
	}
	// miss judges one ratio: ok whether it met its limit, gauge and bound
	// the run it divides by and the threshold beyond which the host, not
	// the network, can have made it miss (beyond: gauge < bound for a
	// rate, gauge > bound for a time).
	miss := func(ok bool, what string, gauge, bound float64, isRate bool) {
		if ok {
			return
		}
		beyond := gauge > bound
		unit, cmp := "ms", "above"
		if isRate {
			beyond, unit, cmp = gauge < bound, "Mbit/s", "below"
			gauge, bound = gauge/1e6, bound/1e6
		}
		msg := fmt.Sprintf("%s: %s (the run it divides by: %.2f %s; %s %.2f it counts as slowed by the host)", net, what, gauge, unit, cmp, bound)
		if beyond {
			slowed = append(slowed, msg)
			return
		}
		t.Errorf("%s\n%s", msg, out)
	}
	if net == "hub" {
		miss(fs[0].Value > 0 && fs[0].Value <= 1.5, fmt.Sprintf("%s = %.3f, a shared medium stays at or below 1.5", fs[0].Finding, fs[0].Value),
			rate(one), 1.1*model.pairs/1.5, true)
		miss(fs[1].Value > 0 && fs[1].Value <= 0.75, fmt.Sprintf("%s = %.3f, a shared medium stays at or below 0.75", fs[1].Finding, fs[1].Value),
			rate(one), 1.1*model.ping/0.75, true)
		miss(class == analysis.SharedMedium.String(), fmt.Sprintf("mpbench analyze classifies its Multi-PingPong as %s (ABG growth %.3f), want %s", class, growth, analysis.SharedMedium),
			rate(one), 1.1*model.pairs/math.Sqrt2, true)
		miss(t4/t2 >= studyAlltoallHub, fmt.Sprintf("Alltoall t(4)/t(2) = %.2f at 64 KiB, a shared medium's is at least %.1f", t4/t2, studyAlltoallHub),
			t2, alltoallFloorShare*f4/studyAlltoallHub, false)
		return slowed
	}
	// A switch: the ABG and its class divide the two pairs' ABG by one
	// pair's rate, at most 1.1 of the model; a lower limit on that ratio
	// can be missed only when the two pairs (each with a model rate of
	// model.one) ran below limit x 1.1 x model.one / 2. The Alltoall's
	// upper limit can be missed only when t(4) ran above limit x
	// alltoallFloorShare x the floor of t(2).
	switchLike := math.Pow(2, analysis.SwitchSlope)
	miss(fs[0].Value >= 1.6, fmt.Sprintf("%s = %.3f, a switch gives at least 1.6", fs[0].Finding, fs[0].Value),
		rate(two), 1.6*1.1*model.one/2, true)
	miss(class == analysis.SwitchLike.String(), fmt.Sprintf("mpbench analyze classifies its Multi-PingPong as %s (ABG growth %.3f), want %s", class, growth, analysis.SwitchLike),
		rate(two), switchLike*1.1*model.one/2, true)
	miss(t4/t2 < studyAlltoallSwitch, fmt.Sprintf("Alltoall t(4)/t(2) = %.2f at 64 KiB, a switch's is below %.1f", t4/t2, studyAlltoallSwitch),
		t4, studyAlltoallSwitch*alltoallFloorShare*f2, false)
	return slowed
}

// studyRows returns every row of the study's file NET-file.jsonl in dir.
func studyRows(t *testing.T, dir, net, file string) []result.Row {
	t.Helper()
	runs, err := read.File(filepath.Join(dir, net+"-"+file+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var rows []result.Row
	for _, run := range runs {
		rows = append(rows, run.Rows...)
	}
	return rows
}

// studyRow returns the row of bench at bytes with groups pairs (1 for a
// plain run) in the study's file NET-file.jsonl in dir; groups 0 takes
// the first row of any count.
func studyRow(t *testing.T, dir, net, file, bench string, groups int, bytes int64) result.Row {
	t.Helper()
	for _, r := range studyRows(t, dir, net, file) {
		if r.Benchmark == bench && r.Bytes == bytes && (groups == 0 || max(r.Groups, 1) == groups) && r.Group < 1 && r.TMax > 0 {
			return r
		}
	}
	t.Fatalf("%s-%s.jsonl: no %s row of %d bytes with %d pairs", net, file, bench, bytes, groups)
	return result.Row{}
}

// studyClass runs mpbench analyze --combine --format json on the
// Multi-PingPong files of net in dir (1 and 2 pairs) and returns the
// class and ABG growth it gives the PingPong series at 1 MiB in the
// combined analysis.
func studyClass(t *testing.T, dir, net string) (string, float64) {
	t.Helper()
	cmd, out, errb := e2eCmd(t, "analyze", "--combine", "--format", "json",
		filepath.Join(dir, net+"-p2p-1pairs.jsonl"), filepath.Join(dir, net+"-p2p-2pairs.jsonl"))
	if err := cmd.Run(); err != nil {
		t.Fatalf("analyze of the %s's files: %v\n%s", net, err, errb)
	}
	var doc struct {
		Runs []struct {
			File    string `json:"file"`
			Scaling []struct {
				Benchmark string   `json:"benchmark"`
				Bytes     int64    `json:"bytes"`
				Class     string   `json:"class"`
				Growth    *float64 `json:"abg_growth"`
			} `json:"scaling"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil || len(doc.Runs) == 0 {
		t.Fatalf("analyze of the %s's files: %v\n%.2000s", net, err, out)
	}
	last := doc.Runs[len(doc.Runs)-1]
	for _, s := range last.Scaling {
		if strings.Contains(s.Benchmark, "PingPong") && s.Bytes == 1<<20 && s.Growth != nil {
			return s.Class, *s.Growth
		}
	}
	t.Fatalf("analyze of the %s's files: no classification of PingPong at 1 MiB in %q:\n%.2000s", net, last.File, out)
	return "", 0
}

// alltoallFloor returns, in ms, the least time the medium model of cfg
// lets an Alltoall of n ranks (nodes 1..n) with blocks of bytes take: the
// TCP data frames of all n(n-1) blocks (segments of MTU - 40 bytes; the
// ACKs and the runtime's header left out) given to a fresh model at once,
// interleaved, until the last one arrives. On a hub that is the medium
// carrying every frame; on a switch each port's line carrying its n-1
// blocks each way, plus one frame's store and forward.
func alltoallFloor(t *testing.T, cfg testbed.Config, n, bytes int) float64 {
	t.Helper()
	m, err := cfg.Medium()
	if err != nil {
		t.Fatal(err)
	}
	mss := cfg.MTU - 40
	var last time.Duration
	for off := 0; off < bytes; off += mss {
		for src := range n {
			for k := 1; k < n; k++ {
				for _, a := range m.Send(src, (src+k)%n, min(mss, bytes-off)+medium.TCPFrameHeader, 0) {
					last = max(last, a.At)
				}
			}
		}
	}
	return float64(last) / 1e6
}

// studyModel are the medium model's TCP payload rates, bit/s, on a network
// of studyNets: one transfer alone (PingPong), each of two opposite
// transfers at once (PingPing), and two transfers between different pairs
// in all (Multi-PingPong, 2 pairs).
type studyModel struct{ one, ping, pairs float64 }

// studyRates computes them by medium.FlowsPayloadBps, a fresh model each.
func studyRates(t *testing.T, cfg testbed.Config) (r studyModel) {
	t.Helper()
	flows := func(f ...medium.Flow) []float64 {
		m, err := cfg.Medium()
		if err != nil {
			t.Fatal(err)
		}
		return medium.FlowsPayloadBps(m, f, cfg.MTU, cfg.RateBps)
	}
	r.one = flows(medium.Flow{Src: 1, Dst: 0})[0]
	r.ping = slices.Min(flows(medium.Flow{Src: 0, Dst: 1}, medium.Flow{Src: 1, Dst: 0}))
	p := flows(medium.Flow{Src: 0, Dst: 1}, medium.Flow{Src: 2, Dst: 3})
	r.pairs = p[0] + p[1]
	return r
}

// TestE2ETestbedTune runs mpbench tune across a 3-node testbed: every
// measuring job must run one rank per node (its JSON meta maps the ranks
// to three hosts) and the rules file must be written; the testbed built
// for it must be gone afterwards.
func TestE2ETestbedTune(t *testing.T) {
	needTestbed(t)
	dir := t.TempDir()
	name := "u" + strconv.Itoa(os.Getpid()%100000)
	defer exec.Command(mpbenchBin, "testbed", "down", "--name", name).Run()
	cmd, out, errb := e2eCmd(t, "testbed", "tune", "--name", name, "--net", "switch", "--nodes", "3", "--rate", "100mbit", "--",
		"--colls", "barrier", "-npmin", "3", "--rounds", "2", "--iter", "20,20", "--time", "0.05", "-o", dir)
	if err := cmd.Run(); err != nil {
		t.Fatalf("testbed tune: %v\n%s%s", err, out, errb)
	}
	assertNoTestbed(t, name, "after the run")
	for _, f := range []string{"mpbench.rules", "decisions.json", "points.json"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	if !strings.Contains(errb.String(), "3 procs, barrier=tree") || !strings.Contains(out.String(), "barrier") {
		t.Errorf("the tree barrier was not measured at 3 processes:\n%s%s", out, errb)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "tune.json"))
	var m struct {
		RankHosts string `json:"rank_hosts"`
	}
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("tune.json: %v", err)
	}
	if hosts := strings.Split(m.RankHosts, ","); len(hosts) != 3 || hosts[0] == hosts[1] || hosts[1] == hosts[2] || hosts[0] == hosts[2] {
		t.Errorf("rank_hosts %q: want the 3 ranks on 3 nodes", m.RankHosts)
	}
	if rules, _ := os.ReadFile(filepath.Join(dir, "mpbench.rules")); !strings.Contains(string(rules), "Measured on 3 hosts: ") {
		t.Errorf("the rules file does not name the 3 hosts:\n%s", rules)
	}
	if cmd, _, errb := e2eCmd(t, "tune", "--transport", "mpi", "--hostfile", "x", "-o", dir); exitCode(cmd.Run()) != ExitUsage || !strings.Contains(errb.String(), "the MPI library's launcher places them") {
		t.Errorf("tune --transport mpi --hostfile: want exit 2 and one line, got %q", errb)
	}
}
