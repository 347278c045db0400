package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mpbench/mpbench/internal/netnstest"
)

// TestE2EHostsNetns: np 8 over 4 namespace hosts with 2 slots each. The
// header and the JSON metadata carry the rank-to-host map; mapped by slot
// the job uses shared memory within and TCP between hosts; mapped by node,
// -multi 1 PingPong's pairs (ranks 0-1, 2-3, ...) each span two hosts.
func TestE2EHostsNetns(t *testing.T) {
	net := netnstest.New(t, 4)
	hf := net.Hostfile(t, 2)
	h := net.Hosts
	for _, tc := range []struct {
		mapBy, wantMap string
		extra          []string
	}{
		{"slot", h[0] + ": 0-1; " + h[1] + ": 2-3; " + h[2] + ": 4-5; " + h[3] + ": 6-7", []string{"PingPong"}},
		{"node", h[0] + ": 0,4; " + h[1] + ": 1,5; " + h[2] + ": 2,6; " + h[3] + ": 3,7", []string{"-npmin", "8", "-multi", "1", "PingPong"}},
	} {
		t.Run(tc.mapBy, func(t *testing.T) {
			jf := filepath.Join(t.TempDir(), "r.jsonl")
			args := append([]string{"run", "--hostfile", hf, "--launch-agent", netnstest.Agent, "--if", net.CIDR, "--map-by", tc.mapBy,
				"-msglog", "0:2", "-iter", "20", "-time", "0.2", "--all-sizes", "--timeout", "90s", "--json", jf}, tc.extra...)
			cmd, out, errb := e2eCmd(t, args...)
			if err := cmd.Run(); err != nil {
				t.Fatalf("run: %v\nstderr:\n%s", err, errb)
			}
			text := out.String()
			for _, want := range []string{"# Hosts                 : " + tc.wantMap + "\n", "# Transport             : shm+tcp\n", "# Wire-up               : mpbench launcher\n"} {
				if !strings.Contains(text, want) {
					t.Errorf("output lacks %q:\n%s", want, text)
				}
			}
			if tc.mapBy == "node" {
				if !strings.Contains(text, "# ( 4 groups of 2 processes each running simultaneous ) \n# Group  0:     0    1\n") {
					t.Errorf("no -multi 1 PingPong table over 4 groups:\n%s", text)
				}
			}
			run := readOneRun(t, jf)
			if len(run.Rows) == 0 {
				t.Fatalf("%s: no rows: %+v", jf, run)
			}
			if tc.mapBy == "node" {
				groups := map[int]int{}
				for _, r := range run.Rows {
					if r.Groups == 4 {
						groups[r.Group]++
					}
				}
				if len(groups) != 4 || groups[0] != 4 || groups[3] != 4 {
					t.Errorf("rows per group %v, want 4 (sizes 0-4) for each of groups 0-3", groups)
				}
			}
			m := run.Meta
			if m.Info["hosts"] != tc.wantMap || len(strings.Split(m.Info["rank_hosts"], ",")) != 8 || m.Info["wireup"] != "mpbench launcher" || m.Options["np"] != "8" {
				t.Errorf("meta info %v options np %q", m.Info, m.Options["np"])
			}
			for _, host := range net.Hosts {
				if p := net.Pids(host); len(p) > 0 {
					t.Errorf("processes %v left on %s", p, host)
				}
			}
		})
	}
}

// TestE2EHostsInterrupt: SIGTERM to the launcher of a job on two namespace
// hosts (rank 0 among them, started through the agent) ends every rank in
// order: rank 0 writes the interrupt into its outputs, keeps the rows
// measured, and no process is left on any host.
func TestE2EHostsInterrupt(t *testing.T) {
	net := netnstest.New(t, 2)
	jf := filepath.Join(t.TempDir(), "r.jsonl")
	cmd, out, errb := startUntilRow(t, jf, 60*time.Second, "run", "--hostfile", net.Hostfile(t, 2), "--launch-agent", netnstest.Agent,
		"--if", net.CIDR, "-npmin", "4", "-iter", "2000", "-iter_policy", "off", "--settle", "0", "--timeout", "120s", "--json", jf, "Sendrecv")
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := waitExit(t, cmd, 30*time.Second); code != ExitTerminated {
		t.Errorf("exit %d, want %d; stderr:\n%s", code, ExitTerminated, errb)
	}
	if want := "mpbench: interrupted by SIGTERM; rows measured so far were kept\n"; errb.String() != want {
		t.Errorf("stderr %q, want %q", errb, want)
	}
	checkEndedBy(t, out.String(), jf, "SIGTERM")
	for _, host := range net.Hosts {
		if p := net.Pids(host); len(p) > 0 {
			t.Errorf("processes %v left on %s", p, host)
		}
	}
}

// fakeAgent writes a launch agent script that runs the rank's command on
// this host, with its first word replaced by exe when exe is not "". It
// appends its arguments and environment to the files "argv" and "env" in
// its directory.
func fakeAgent(t *testing.T, exe string) string {
	t.Helper()
	dir := t.TempDir()
	log := "echo \"$@\" >> " + dir + "/argv\nenv >> " + dir + "/env\n"
	script := "#!/bin/sh\n" + log + "shift\nexec \"$@\"\n" // drop the host name
	if exe != "" {
		script = "#!/bin/sh\n" + log + "shift 2\nexec " + exe + " \"$@\"\n"
	}
	path := filepath.Join(dir, "agent.sh")
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestE2EAgentBootstrap runs ranks on two named hosts through a launch
// agent that starts them here: they get their arguments and secret on
// standard input (the rank's command line is the executable and one flag)
// and the job runs as with -np. Neither the agent's command line nor its
// environment holds the job secret.
func TestE2EAgentBootstrap(t *testing.T) {
	agent := fakeAgent(t, "")
	cmd, out, errb := e2eCmd(t, "run", "--host", "hostA,hostB", "--launch-agent", agent+" {host}", "--if", "127.0.0.0/8",
		"-msglog", "0:1", "-iter", "10", "--settle", "0", "--timeout", "60s", "PingPong")
	if err := cmd.Run(); err != nil {
		t.Fatalf("run: %v\nstderr:\n%s", err, errb)
	}
	if !strings.Contains(out.String(), "# Hosts                 : hostA: 0; hostB: 1\n") || tableRows(out.String(), "PingPong", "# #processes = 2 \n#---") != 3 {
		t.Errorf("output:\n%s", out)
	}
	argv, _ := os.ReadFile(filepath.Join(filepath.Dir(agent), "argv"))
	env, _ := os.ReadFile(filepath.Join(filepath.Dir(agent), "env"))
	lines := strings.Split(strings.TrimSpace(string(argv)), "\n")
	slices.Sort(lines) // the two agents run at the same time
	if want := []string{"hostA " + mpbenchBin + " --mpbench-bootstrap=stdin", "hostB " + mpbenchBin + " --mpbench-bootstrap=stdin"}; !slices.Equal(lines, want) {
		t.Errorf("agent command lines %q, want %q", lines, want)
	}
	if len(env) == 0 || strings.Contains(string(env), "MPBENCH_SECRET") || strings.Contains(string(env), "MPBENCH_RANK") {
		t.Errorf("agent environment holds bootstrap variables:\n%s", env)
	}
}

// TestE2EAgentOtherBuild: a host whose mpbench is another build refuses
// in one line naming the host and both versions, with exit status 2.
func TestE2EAgentOtherBuild(t *testing.T) {
	other := filepath.Join(t.TempDir(), "mpbench-other")
	if b, err := exec.Command("go", "build", "-o", other, "-ldflags", "-X github.com/mpbench/mpbench/internal/cli.Version=9.9.9",
		"github.com/mpbench/mpbench/cmd/mpbench").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, b)
	}
	cmd, _, errb := e2eCmd(t, "run", "--host", "localhost,hostB", "--launch-agent", fakeAgent(t, other), "--if", "127.0.0.0/8",
		"-msglog", "0:1", "--timeout", "60s", "PingPong")
	err := cmd.Run()
	msg := errb.String()
	if exitCode(err) != 1 || strings.Count(msg, "\n") != 1 {
		t.Errorf("exit %d, stderr:\n%s", exitCode(err), msg)
	}
	for _, w := range []string{"rank 1 on host hostB", "host hostB: " + other + " is mpbench 9.9.9 (build ", "the launcher runs mpbench " + Version + " (build "} {
		if !strings.Contains(msg, w) {
			t.Errorf("stderr lacks %q:\n%s", w, msg)
		}
	}
}
