package launch

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"syscall"
)

// BootstrapArg is the only argument a rank started through a launch agent
// gets after the executable's path: it tells the program to read its real
// arguments and bootstrap environment from standard input
// (BootstrapFromStdin).
const BootstrapArg = "--mpbench-bootstrap=stdin"

// bootstrap is the one JSON line a launcher writes to the standard input of
// a rank started through a launch agent.
type bootstrap struct {
	Host    string   `json:"host"`    // the host name as the launcher knows it
	Version string   `json:"version"` // the launcher's version (Spec.Version)
	Build   string   `json:"build"`   // the launcher's BuildID
	Env     []string `json:"env"`     // KEY=value, bootstrap variables and Spec.Env
	Args    []string `json:"args"`    // Spec.Argv[1:]
}

// startedMarker is the line a rank started through a launch agent writes
// to its stderr once it has its bootstrap: the launcher relays the rank's
// stderr lines from then on (see stderrCopier.held).
const startedMarker = "mpbench-rank-started"

// BootstrapFromStdin is what a program started as a launcher's rank calls
// first with its arguments (without the program name). Unless args is
// exactly [BootstrapArg] it returns args unchanged. Otherwise it reads the
// bootstrap line the launcher wrote to standard input, sets its variables
// in this process's environment, checks that this executable is the
// launcher's build (same BuildID, same version) and returns the arguments
// the launcher meant. An unreadable line or a different build is returned
// as a *BootstrapError (naming the host and both versions), which the
// caller reports with ReportError so that the launcher shows it. From then
// on standard input is watched: when it ends (the launcher or the agent's
// connection went away) a *LauncherLostError goes to Fatal, so no rank
// outlives its launcher on any host; a stop line on it raises its signal
// in this process (watchBootstrapPipe). version is this program's version
// string.
func BootstrapFromStdin(args []string, version string) ([]string, error) {
	if len(args) != 1 || args[0] != BootstrapArg {
		return args, nil
	}
	in := bufio.NewReaderSize(os.Stdin, maxLine)
	line, err := in.ReadSlice('\n')
	var b bootstrap
	if err == nil {
		err = json.Unmarshal(line, &b)
	}
	if err != nil {
		return nil, &BootstrapError{Msg: fmt.Sprintf("reading the launcher's bootstrap line on standard input: %v", err)}
	}
	if msg := buildMismatch(b, version, BuildID()); msg != "" {
		return nil, &BootstrapError{Msg: msg}
	}
	for _, kv := range b.Env {
		if k, v, ok := strings.Cut(kv, "="); ok {
			os.Setenv(k, v)
		}
	}
	fmt.Fprintln(os.Stderr, startedMarker)
	go watchBootstrapPipe(in, b.Host)
	return b.Args, nil
}

// watchBootstrapPipe reads what the launcher writes after the bootstrap
// line: a stop line (stopLine) raises its signal in this process, so the
// program's own SIGINT/SIGTERM handling ends the run in order; end of
// input (the launcher or the agent's connection went away) is printed and
// reported to Fatal as a *LauncherLostError. Other lines are ignored.
func watchBootstrapPipe(in *bufio.Reader, host string) {
	for {
		line, err := in.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil {
			lost := &LauncherLostError{Rank: -1, Where: host, Err: err}
			fmt.Fprintf(os.Stderr, "mpbench: %v; exiting\n", lost)
			ReportFatal(lost)
			return
		}
		var stop stopLine
		if json.Unmarshal(line, &stop) != nil {
			continue
		}
		for sig := range stopSignals {
			if signalName(sig) == stop.Signal {
				syscall.Kill(os.Getpid(), sig)
			}
		}
	}
}

// buildMismatch returns the one-line refusal when the launcher's build b
// differs from this one (version and build ID), or "".
func buildMismatch(b bootstrap, version, build string) string {
	if b.Version == version && b.Build == build {
		return ""
	}
	exe, _ := os.Executable()
	return fmt.Sprintf("host %s: %s is mpbench %s (build %s), the launcher runs mpbench %s (build %s); install the same build on every host",
		b.Host, exe, version, shortBuild(build), b.Version, shortBuild(b.Build))
}

// shortBuild abbreviates a Go build ID (four hashes joined by '/') to its
// last 12 characters, the part that hashes the linked binary.
func shortBuild(id string) string {
	if id == "" {
		return "unknown"
	}
	if len(id) > 12 {
		return id[len(id)-12:]
	}
	return id
}
