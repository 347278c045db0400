package launch

import (
	"context"
	"errors"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mpbench/mpbench/transport/shm"
	"github.com/mpbench/mpbench/transport/tcp"
)

// envBadSetting is the transport setting the "badenv" test worker sets
// to "abc" in its own environment only.
var envBadSetting = tcp.SocketBufferSetting.Env

// TestRunChecksEnvFirst: a variable every rank would refuse is found by
// Run before it starts any rank (the command does not even exist here),
// as an *EnvError whose one line names the variable, the value and what
// it accepts.
func TestRunChecksEnvFirst(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "no-such-program")
	for _, c := range []struct{ env, want string }{
		{"MPBENCH_SOCKBUF=abc", `MPBENCH_SOCKBUF="abc": want a socket buffer size in bytes > 0, or -1 for the kernel default`},
		{"MPBENCH_SOCKBUF=0", `MPBENCH_SOCKBUF="0": want a socket buffer size in bytes > 0, or -1 for the kernel default`},
		{"MPBENCH_SHM_CMA=zz", `MPBENCH_SHM_CMA="zz": want ` + shm.CMASetting.Want},
		{"MPBENCH_SHM_CMA=-2", `MPBENCH_SHM_CMA="-2": want ` + shm.CMASetting.Want},
		{"MPBENCH_BIND=socket", `MPBENCH_BIND="socket": want core (a CPU per rank) or none`},
	} {
		err := Run(context.Background(), Spec{NP: 2, Argv: []string{missing}, Env: []string{c.env}})
		var ee *EnvError
		if !errors.As(err, &ee) || !strings.HasPrefix(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: got %v, want an *EnvError %q", c.env, err, c.want)
		}
	}
	// The last entry of Spec.Env wins, as in the ranks' environment.
	err := Run(context.Background(), Spec{NP: 2, Argv: []string{missing}, Env: []string{"MPBENCH_SOCKBUF=abc", "MPBENCH_SOCKBUF=65536"}})
	var re *RankError
	if !errors.As(err, &re) {
		t.Errorf("a good setting after a bad one: got %v, want the rank's start failure", err)
	}
}

// TestCheckEnv: CheckEnv reads the variables as a rank does; an unset or
// good variable passes.
func TestCheckEnv(t *testing.T) {
	for _, env := range [][]string{nil, {"MPBENCH_SOCKBUF=-1", "MPBENCH_SHM_CMA=4096", "MPBENCH_BIND=core", "MPBENCH_TRANSPORT=tcp"}} {
		if err := CheckEnv(lookupEnv(env)); err != nil {
			t.Errorf("%q: %v", env, err)
		}
	}
	err := CheckEnv(lookupEnv([]string{"MPBENCH_TRANSPORT=shm", "MPBENCH_SHM_CMA=1k"}))
	var ee *EnvError
	if !errors.As(err, &ee) || !strings.HasPrefix(err.Error(), `MPBENCH_SHM_CMA="1k": want `) {
		t.Errorf("got %v, want an *EnvError naming MPBENCH_SHM_CMA", err)
	}
}

// TestRankEnvErrorOnce: a rank that refuses a setting of its own
// environment (one the launcher's did not have, as on another host) is
// reported by the launcher with one "launch:", naming the rank, the
// variable and what it accepts.
func TestRankEnvErrorOnce(t *testing.T) {
	err := Run(context.Background(), Spec{NP: 2, Argv: []string{testExe(t)}, Env: []string{quickExit, envMode + "=badenv"}, Timeout: time.Minute})
	var re *RankError
	if !errors.As(err, &re) {
		t.Fatalf("got %v, want a *RankError", err)
	}
	want := `launch: rank ` + strconv.Itoa(re.Rank) + `: ` + envBadSetting + `="abc": want ` + tcp.SocketBufferSetting.Want + ` (exited with status 1)`
	if got := err.Error(); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}
