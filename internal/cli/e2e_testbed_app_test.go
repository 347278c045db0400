package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mpbench/mpbench/testbed/medium"
)

// TestE2ETestbedApps runs the three applications with mpbench testbed run
// on a 4-node switch at 50 Mbit/s: the matrix product and FT on 4 nodes,
// EP on 2. Each must verify and name the network and the ranks' hosts in
// its report and result files. The matrix product and FT move enough data
// for the emulated network's signature: what must cross one rank's line
// after the timed part began bounds the run's time from below, and FT's
// Alltoalls bound the communication time (the last rank to enter an
// Alltoall sends np-1 blocks through its line after it entered, and a rank
// receiving the last of them waits for it inside the call: the ranks'
// communication times add up to at least that line time per Alltoall). A
// rank whose data bypassed the emulated network finishes in a fraction of
// these; a busy host only adds time, so there is no upper bound. The
// testbed is gone afterwards.
func TestE2ETestbedApps(t *testing.T) {
	needTestbed(t)
	const rate = 50e6
	name := "a" + strconv.Itoa(os.Getpid()%100000)
	defer exec.Command(mpbenchBin, "testbed", "down", "--name", name).Run()
	cmd, _, errb := e2eCmd(t, "testbed", "up", "--name", name, "--nodes", "4", "--net", "switch", "--rate", "50mbit")
	if err := cmd.Run(); err != nil {
		t.Fatalf("up: %v\n%s", err, errb)
	}
	sw, err := medium.NewSwitch(medium.Params{Ports: 4, RateBps: rate})
	if err != nil {
		t.Fatal(err)
	}
	payloadBps := medium.BulkPayloadBps(sw, 1, 0, 1500, rate)
	dir := t.TempDir()
	const ftBlock = 64 * 64 * 64 / 16 * 16 // bytes: 64^3 complex points on 4 ranks, 16 blocks
	for _, c := range []struct {
		np   int
		args []string
		line float64 // bytes through one rank's line in the timed part: bound on the total time
		comm float64 // bound on the sum of the ranks' communication times, in line bytes
	}{
		// 2 x 2 grid, n = 200: each rank sends its 100 x 100 block of A to
		// its row and of B to its column.
		{4, []string{"matmul", "-n", "200"}, 2 * 100 * 100 * 8, 0},
		// 7 timed Alltoalls (one forward FFT, six inverse ones), each
		// sending 3 blocks from every rank.
		{4, []string{"ft", "--class", "S"}, 7 * 3 * ftBlock, 7 * 3 * ftBlock},
		{2, []string{"ep", "--class", "S"}, 0, 0},
	} {
		js, cs := filepath.Join(dir, c.args[0]+".jsonl"), filepath.Join(dir, c.args[0]+".csv")
		args := append([]string{"testbed", "run", "--name", name, "--np", strconv.Itoa(c.np), "--", "app"}, c.args...)
		cmd, out, errb := e2eCmd(t, append(args, "--json", js, "--csv", cs)...)
		if err := cmd.Run(); err != nil {
			t.Errorf("%v: exit %d: %v\n%s%s", c.args, exitCode(err), err, out, errb)
			continue
		}
		text := out.String()
		for _, want := range []string{"Verification    =               SUCCESSFUL", "Total processes =                        " + strconv.Itoa(c.np),
			"Network         = switch: full duplex, store and forward, 50mbit", "Hosts           = mpbtb-" + name + "-n1: 0; mpbtb-" + name + "-n2: 1",
			"Time split (seconds"} {
			if !strings.Contains(text, want) {
				t.Errorf("%v: output lacks %q:\n%s", c.args, want, text)
			}
		}
		run := readOneRun(t, js)
		if len(run.Rows) != 1 || run.Aborted {
			t.Fatalf("%v: JSON: %+v", c.args, run)
		}
		meta, row := run.Meta, run.Rows[0]
		if !strings.HasPrefix(meta.Info["network"], "switch: full duplex") || len(strings.Split(meta.Info["rank_hosts"], ",")) != c.np {
			t.Errorf("%v: JSON metadata network %q, rank_hosts %q", c.args, meta.Info["network"], meta.Info["rank_hosts"])
		}
		if row.Processes != c.np || row.Extra["verified"] != 1 {
			t.Errorf("%v: row %+v", c.args, row)
		}
		if csv, _ := os.ReadFile(cs); strings.Count(string(csv), "\n") < 2 || !strings.Contains(string(csv), "comm_max_s") {
			t.Errorf("%v: CSV:\n%s", c.args, csv)
		}
		if wire := c.line * 8 / payloadBps; row.TMax/1e6 < 0.9*wire {
			t.Errorf("%v: took %.4f s, less than the %.4f s the %.0f bytes a rank sends take on the emulated switch", c.args, row.TMax/1e6, wire, c.line)
		}
		if wire := c.comm * 8 / payloadBps; row.Extra["comm_avg_s"]*float64(c.np) < 0.9*wire {
			t.Errorf("%v: the ranks spent %.4f s in communication calls together, less than the %.4f s the Alltoalls' last senders' blocks take on the emulated switch",
				c.args, row.Extra["comm_avg_s"]*float64(c.np), wire)
		}
	}
	cmd, _, errb = e2eCmd(t, "testbed", "run", "--name", name, "--", "app", "lu")
	if err := cmd.Run(); exitCode(err) != ExitUsage || !strings.Contains(errb.String(), `testbed run -- app: unknown application "lu"`) ||
		!strings.Contains(errb.String(), "expected one of ep, ft, matmul") {
		t.Errorf("app lu: exit %d, %s", exitCode(err), errb)
	}
	cmd, _, errb = e2eCmd(t, "testbed", "down", "--name", name)
	if err := cmd.Run(); err != nil {
		t.Errorf("down: %v %s", err, errb)
	}
	if ns, _ := exec.Command("ip", "netns", "list").Output(); strings.Contains(string(ns), "mpbtb-"+name+"-") {
		t.Errorf("namespaces left after down:\n%s", ns)
	}
	if ps, _ := exec.Command("pgrep", "-f", "testbed exec --name "+name+" ").Output(); len(ps) > 0 {
		t.Errorf("processes left on the testbed: %s", ps)
	}
}
