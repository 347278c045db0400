package testbed

import (
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mpbench/mpbench/testbed/medium"
)

// TestMain serves the forwarder process (the test binary stands for
// mpbench: Up starts os.Executable with ForwarderArgs) and the owner
// process of TestOwnerKilled.
func TestMain(m *testing.M) {
	if len(os.Args) == 4 && os.Args[1] == ForwarderArgs[0] && os.Args[2] == ForwarderArgs[1] {
		var ready *os.File
		if fd, err := strconv.Atoi(os.Getenv("MPBENCH_TESTBED_READY_FD")); err == nil {
			ready = os.NewFile(uintptr(fd), "ready")
		}
		if err := RunForwarder(os.Args[3], ready); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	if name := os.Getenv("TESTBED_OWNER_NAME"); name != "" {
		cfg := testConfig(name)
		cfg.Owner = os.Getpid()
		if _, err := Up(cfg); err != nil {
			fmt.Println(err)
			os.Exit(1)
		}
		fmt.Println("up")
		time.Sleep(time.Minute)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// needRoot skips a test on a host where a testbed cannot be built.
func needRoot(t *testing.T) {
	t.Helper()
	if err := Probe(); err != nil {
		t.Skipf("building a testbed needs root here: %v", err)
	}
}

func testConfig(name string) Config {
	return Config{Name: name, Nodes: 3, Net: "switch", RateBps: 20e6, MTU: 1500, Seed: 1, Poll: DefaultPoll}
}

// uniqueName returns a testbed name no other test run uses.
func uniqueName(prefix string) string { return prefix + strconv.Itoa(os.Getpid()%100000) }

// assertGone fails unless nothing of testbed name is left: no namespace,
// no state directory, no forwarder process.
func assertGone(t *testing.T, name string, forwarderPID int) {
	t.Helper()
	if ns := namespaces(name); len(ns) > 0 {
		t.Errorf("namespaces left: %v", ns)
	}
	if _, err := os.Stat(Dir(name)); err == nil {
		t.Errorf("state directory %s left", Dir(name))
	}
	if forwarderPID > 0 && processAlive(forwarderPID, "forward "+name) {
		t.Errorf("forwarder %d still runs", forwarderPID)
	}
	out, _ := exec.Command("ip", "netns", "list").Output()
	if strings.Contains(string(out), Prefix+name+"-") {
		t.Errorf("ip netns list still shows %s:\n%s", name, out)
	}
}

func TestUpCarriesTCPAndDownLeavesNothing(t *testing.T) {
	needRoot(t)
	name := uniqueName("u")
	st, err := Up(testConfig(name))
	if err != nil {
		t.Fatal(err)
	}
	defer Down(name)
	if !Alive(st) || len(namespaces(name)) != 3 {
		t.Fatalf("after Up: alive %v, namespaces %v", Alive(st), namespaces(name))
	}
	// A second Up of the same name is refused while the first is up.
	if _, err := Up(testConfig(name)); err == nil || !strings.Contains(err.Error(), "is up") {
		t.Errorf("second Up: %v", err)
	}
	// 2 MB from node 3 to node 1 over the emulated 20 Mbit/s switch.
	var ln net.Listener
	if err := InNode(st.Node(1), func() (err error) { ln, err = net.Listen("tcp", Addr(1)+":0"); return err }); err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	got := make(chan int64, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			got <- -1
			return
		}
		n, _ := io.Copy(io.Discard, c)
		c.Write([]byte{1})
		c.Close()
		got <- n
	}()
	var c net.Conn
	if err := InNode(st.Node(3), func() (err error) { c, err = net.Dial("tcp", ln.Addr().String()); return err }); err != nil {
		t.Fatal(err)
	}
	const size = 2 << 20
	start := time.Now()
	c.Write(make([]byte, size))
	c.(*net.TCPConn).CloseWrite()
	c.Read(make([]byte, 1))
	el := time.Since(start)
	c.Close()
	if n := <-got; n != size {
		t.Fatalf("node 1 received %d bytes, want %d", n, size)
	}
	// The model's payload rate is 20 x 1460/1538 = 18.99 Mbit/s: 2 MiB take
	// 0.883 s. The forwarder never delivers early, so faster is a defect;
	// slower is the host's as much as the network's (both processes here
	// wait for CPUs on a busy host): TestCheckSwitchAddsHubShares and
	// TestTwoWayBulk hold the rate to the model by the kernels' clocks.
	if mbps := size * 8 / el.Seconds() / 1e6; mbps > 19.3 {
		t.Errorf("payload rate %.2f Mbit/s, above the model's 18.99", mbps)
	}
	// A process on node 2, as a rank would be: Down ends it.
	sleeper := exec.Command("sleep", "60")
	if err := InNode(st.Node(2), sleeper.Start); err != nil {
		t.Fatal(err)
	}
	if pids := pidsIn(st.Node(2)); len(pids) != 1 || pids[0] != sleeper.Process.Pid {
		t.Errorf("processes on node 2: %v, want [%d]", pids, sleeper.Process.Pid)
	}
	exited := make(chan error, 1)
	go func() { exited <- sleeper.Wait() }()
	found, err := Down(name)
	select {
	case <-exited:
	case <-time.After(20 * time.Second):
		t.Error("the process on node 2 survived Down")
		sleeper.Process.Kill()
	}
	if err != nil || !found {
		t.Fatalf("Down: found %v, %v", found, err)
	}
	assertGone(t, name, st.ForwarderPID)
	if found, _ := Down(name); found {
		t.Error("second Down found something")
	}
}

func TestUpRemovesTestbedOfKilledRun(t *testing.T) {
	needRoot(t)
	name := uniqueName("k")
	st, err := Up(testConfig(name))
	if err != nil {
		t.Fatal(err)
	}
	defer Down(name)
	// A killed forwarder leaves namespaces and state behind.
	p, _ := os.FindProcess(st.ForwarderPID)
	p.Kill()
	// A killed process's memory is freed (its cmdline gone) when it next
	// runs, which on a busy host can take longer than a fixed pause.
	for deadline := time.Now().Add(10 * time.Second); Alive(st) && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	if Alive(st) || len(namespaces(name)) != 3 {
		t.Fatalf("after kill -9: alive %v, namespaces %v", Alive(st), namespaces(name))
	}
	st2, err := Up(testConfig(name))
	if err != nil {
		t.Fatalf("Up over a killed run's leftovers: %v", err)
	}
	if !Alive(st2) || st2.ForwarderPID == st.ForwarderPID {
		t.Errorf("new testbed: alive %v, forwarder %d (old %d)", Alive(st2), st2.ForwarderPID, st.ForwarderPID)
	}
	if _, err := Down(name); err != nil {
		t.Fatal(err)
	}
	assertGone(t, name, st2.ForwarderPID)
}

func TestOwnerKilledRemovesTestbed(t *testing.T) {
	needRoot(t)
	name := uniqueName("o")
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), "TESTBED_OWNER_NAME="+name)
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer Down(name)
	line := make([]byte, 3)
	if _, err := io.ReadFull(out, line); err != nil || string(line) != "up\n" {
		cmd.Process.Kill()
		t.Fatalf("owner: %q %v", line, err)
	}
	st, err := Load(name)
	if err != nil {
		t.Fatal(err)
	}
	// A process on a node, as a rank would be.
	var ln net.Listener
	InNode(st.Node(2), func() (err error) { ln, err = net.Listen("tcp", Addr(2)+":0"); return err })
	if ln != nil {
		ln.Close()
	}
	cmd.Process.Kill() // kill -9 of the launcher
	cmd.Wait()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) && (len(namespaces(name)) > 0 || Alive(st)) {
		time.Sleep(50 * time.Millisecond)
	}
	assertGone(t, name, st.ForwarderPID)
}

func TestForwarderLogOnFailure(t *testing.T) {
	needRoot(t)
	// A forwarder that cannot find its state fails with one line.
	name := uniqueName("f")
	os.MkdirAll(Dir(name), 0o755)
	defer os.RemoveAll(Dir(name))
	_, err := startForwarder(name)
	if err == nil || !strings.Contains(err.Error(), "forwarder: ") || !strings.Contains(err.Error(), filepath.Join(name, "state.json")) {
		t.Errorf("forwarder without state: %v", err)
	}
}

// TestCheckSwitchAddsHubShares is the short version of the study's central
// finding on the emulated networks: two transfers between different pairs
// add up on a switch and share the medium on a hub and on 802.11g wifi (54
// Mbit/s, through the access point), and one transfer gets the model's
// rate on each. The rates are timed by the nodes' kernels
// (timeLegs), the best of several rounds (bestOf): a busy host lengthens
// some transfers, a wrong model or forwarder every one. Check runs once on
// each network: its rows, its latency (never below the wire time) and its
// rates (never above the model), which the processes it times make slower
// on a busy host.
func TestCheckSwitchAddsHubShares(t *testing.T) {
	needRoot(t)
	for _, c := range []struct {
		net  string
		rate float64
	}{{"switch", 10e6}, {"hub", 10e6}, {"wifi", 54e6}} {
		t.Run(c.net, func(t *testing.T) { checkSwitchHub(t, c.net, c.rate) })
	}
}

// checkSwitchHub builds a 4-node testbed of network net at rateBps,
// checks Check's rows on it and measures one transfer (2->1) against two
// at once (2->1 and 4->3).
func checkSwitchHub(t *testing.T, net string, rateBps float64) {
	name := uniqueName("c")
	cfg := Config{Name: name, Nodes: 4, Net: net, RateBps: rateBps, MTU: 1500, Seed: 1, Poll: DefaultPoll}
	st, err := Up(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer Down(name)
	rows, err := Check(st, CheckOptions{Seconds: 0.25, Pings: 50})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1+3+3+1 || rows[4].Test != "bulk 2->1" || rows[7].Test != "two transfers 2->1 + 4->3" {
		t.Fatalf("rows: %+v", rows)
	}
	t.Logf("check: %+v", rows)
	// Latency is never below the model (the forwarder never delivers
	// early); its excess is the host's scheduling (docs/testbed.md).
	if lat := rows[1]; lat.Measured < lat.Model-rows[0].Measured {
		t.Errorf("latency %.1f usec below the wire time %.1f", lat.Measured, lat.Model-rows[0].Measured)
	}
	// No transfer is faster than its data frames alone on the medium (the
	// forwarder never delivers early); the model's ACK, one per two
	// segments, takes a share of a shared medium that a receiver waiting
	// for a CPU (acknowledging several segments at once) does not use.
	oneRate := func() float64 {
		m, _ := cfg.Medium()
		return medium.FlowsPayloadBps(m, []medium.Flow{{Src: 1, Dst: 0}}, cfg.MTU, cfg.RateBps)[0]
	}()
	ceiling := 1.03 * dataOnlyBps(t, cfg) / oneRate
	t.Logf("model: one transfer %.2f Mbit/s, data frames alone %.2f; rates up to %.3f of the model pass", oneRate/1e6, ceiling/1.03*oneRate/1e6, ceiling)
	for _, r := range rows[4:] {
		if r.Ratio() > ceiling {
			t.Errorf("check's %s: %.2f Mbit/s, %.2f of the model's %.2f: faster than the network's data frames alone (%.2f)", r.Test, r.Measured, r.Ratio(), r.Model, ceiling)
		}
	}

	// Model rates at 10 Mbit/s: 9.49 on a switch, 9.24 on a hub (the
	// ACKs share the medium); two pairs 2 x 9.49 and 9.24; wifi at 54
	// Mbit/s 12.11, two pairs 12.11 in all.
	one := []medium.Flow{{Src: 1, Dst: 0}}
	two := []medium.Flow{{Src: 1, Dst: 0}, {Src: 3, Dst: 2}}
	size := int(oneRate / 8 / 2) // 0.5 s at the model's rate of one transfer
	model := func(flows []medium.Flow) time.Duration {
		m, _ := cfg.Medium()
		rates := medium.FlowsPayloadBps(m, flows, cfg.MTU, cfg.RateBps)
		return payloadTime(size, slices.Min(rates))
	}
	models := []time.Duration{model(one), model(two)}
	a21, b21 := dialStamped(t, st, 2, 1)
	a43, b43 := dialStamped(t, st, 4, 3)
	msg := make([]byte, size)
	together := 0 // rounds whose two pairs' writes started together
	measure := func() []time.Duration {
		d, tog := timeLegs(t, []leg{{a21, b21}, {a43, b43}}, msg)
		if tog {
			together++
		}
		one, _ := timeLegs(t, []leg{{a21, b21}}, msg)
		return []time.Duration{one[0], slowest(d, tog)}
	}
	measure() // slow start and buffers settle
	together = 0
	// The assertions below allow 5% (one pair) and more (the gain): rounds
	// end once each time is within 2% of its model.
	best, rounds := bestOf(1.02, models, measure)
	t.Logf("best of %d rounds (%d with the two pairs' writes together): one pair %v, two pairs %v (models %v)", rounds, together, best[0], best[1], models)
	if best[1] == apart {
		t.Skipf("in none of %d rounds did the writes of the two pairs take less than %v: no verdict at this load", rounds, legsStartWithin)
	}
	// Above the model by at most the ACKs' share of a shared medium (the
	// model acknowledges every second segment; a receiver that waited for a
	// CPU acknowledges several at once: on the hub 1.016-1.025 at load
	// average 35-51, on wifi, where an ACK costs a whole 802.11 exchange
	// twice, 1.014-1.053 at 27-41).
	if r := float64(models[0]) / float64(best[0]); r < 0.95 || r > ceiling {
		t.Errorf("one pair: %.3f of the model's rate (%v against %v), want 0.95-%.3f", r, best[0], models[0], ceiling)
	}
	// The gain: two pairs against one, the model's 2 on a switch and 1 on
	// a hub or wifi. A round whose two writes started apart gives no time
	// for two pairs; a loaded host lets few start together, and slows some
	// of those (the switch's best of 3 such rounds in 12 was 6% above its
	// model at load average 27-34, 2026-12-02). So a switch is held to 1.6
	// (0.8 of the model per pair, as the study's 3.2 at 4 pairs), judged
	// over 3 or more such rounds, else no verdict; a shared medium to 1.1.
	gain := 2 * float64(best[0]) / float64(best[1])
	switch {
	case net == "switch" && gain < 1.6 && together < 3:
		t.Skipf("two pairs carry %.2f x one pair, but only %d rounds started them together (3 needed): no verdict at this load", gain, together)
	case net == "switch" && gain < 1.6:
		t.Errorf("two pairs carry %.2f x one pair over %d rounds with the writes together, want about 2 (the model), at least 1.6", gain, together)
	case net != "switch" && gain > 1.1:
		t.Errorf("two pairs carry %.2f x one pair, want about 1 (the model), at most 1.1", gain)
	}
}

// dataOnlyBps returns the TCP payload rate, bit/s, of full data frames
// from node 2 to node 1 of cfg's network sent back to back without any
// ACK: 2000 frames of MTU - 40 payload bytes through a fresh model. On a
// switch it is the model's rate of one transfer (its ACKs use the other
// line); on a hub or wifi it is above it by the ACKs' share.
func dataOnlyBps(t *testing.T, cfg Config) float64 {
	t.Helper()
	m, err := cfg.Medium()
	if err != nil {
		t.Fatal(err)
	}
	const n = 2000
	payload := cfg.MTU - 40
	var last time.Duration
	for range n {
		last = m.Send(1, 0, payload+medium.TCPFrameHeader, 0)[0].At
	}
	return n * float64(payload) * 8 / last.Seconds()
}
