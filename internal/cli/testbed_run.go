package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mpbench/mpbench/launch/supervise"
	"github.com/mpbench/mpbench/testbed"
)

// networkEnv carries the emulated network's description from mpbench
// testbed run to rank 0, which prints it in the header ("# Network") and
// stores it in the result files' metadata (info.network).
const networkEnv = "MPBENCH_NETWORK"

func newTestbedRunCmd() *cobra.Command {
	var f testbedFlags
	var np int
	cmd := &cobra.Command{
		Use:   "run [--np N] [--net switch|hub|wifi ...] -- <mpbench run arguments> | app NAME <options>",
		Short: "Run mpbench run or an application across the testbed's nodes, one rank per node, over TCP",
		Long: `mpbench testbed run starts "mpbench run" with one rank per node of a testbed, the
ranks talking TCP over the emulated network (launcher on node 1, the other ranks
started through "mpbench testbed exec"). The header names the network
("# Network"), and the JSON/CSV metadata keeps it (info.network).

With "-- app NAME <options>" it runs the application "mpbench app NAME"
(matmul, ep, ft) the same way: its report, with the time split into
computation and communication per rank, names the hosts and the network
("Network = "), and its --json/--csv row keeps them in the metadata.

Without --net it runs on the testbed that is up (--name, default tb). With --net
(and --nodes, --rate, ...) it builds a testbed for this run only and removes it
at the end, on failure, on Ctrl-C and SIGTERM, and (through its forwarder) when
this process is killed.`,
		Example: `  mpbench testbed up --nodes 4 --net hub --rate 10mbit
  mpbench testbed run -- -multi 0 -msglog 0:20 PingPong
  mpbench testbed run --net switch --nodes 8 --rate 20mbit -- -npmin 8 Alltoall
  mpbench testbed run --net hub --nodes 4 --rate 100mbit -- app matmul -n 1000 --json mm.jsonl
  mpbench testbed run --np 2 -- app ep --class W`,
		RunE: func(cmd *cobra.Command, args []string) error {
			sub, rest, err := testbedSub(cmd, args)
			if err != nil {
				return err
			}
			st, cleanup, np, err := testbedRanks(cmd, &f, np)
			if err != nil {
				return err
			}
			defer cleanup()
			return onTestbed(cmd.OutOrStdout(), cmd.ErrOrStderr(), st, sub, np, rest)
		},
	}
	f.add(cmd)
	cmd.Flags().IntVar(&np, "np", 0, "ranks, one per node (default: every node)")
	return cmd
}

func newTestbedTuneCmd() *cobra.Command {
	var f testbedFlags
	var np int
	cmd := &cobra.Command{
		Use:   "tune [--np N] [--net switch|hub|wifi ...] -- <mpbench tune arguments>",
		Short: "Run mpbench tune across the testbed's nodes: collective rules for the emulated network",
		Long: `mpbench testbed tune runs "mpbench tune" on mpbench's own runtime with one rank
per node of a testbed, every measuring job talking TCP over the emulated network,
so the rules it writes (-o DIR) are those of that network: compare a switch's
with a hub's. --np (default: every node) is the largest process count, as
tune's own --np; testbed and build options as for mpbench testbed run.`,
		Example: `  mpbench testbed tune --net switch --nodes 4 --rate 100mbit -- --colls bcast -msglog 10:20 -npmin 4 -o tune-switch
  mpbench testbed tune --net hub --nodes 4 --rate 100mbit -- --colls bcast -msglog 10:20 -npmin 4 -o tune-hub`,
		RunE: func(cmd *cobra.Command, args []string) error {
			st, cleanup, np, err := testbedRanks(cmd, &f, np)
			if err != nil {
				return err
			}
			defer cleanup()
			return onTestbed(cmd.OutOrStdout(), cmd.ErrOrStderr(), st, []string{"tune"}, np, args)
		},
	}
	f.add(cmd)
	cmd.Flags().IntVar(&np, "np", 0, "largest process count, one rank per node (default: every node)")
	return cmd
}

// testbedRanks returns the testbed to run on (runTestbed) and the rank
// count, one rank per node: np when --np was given, else every node; a
// count outside 2..nodes is a usage error (and the testbed built for the
// run is removed again). The nodes are namespaces of this host, so the
// ranks count against its limits like those of mpbench run
// (launch.CheckCapacity over TCP): a job they cannot hold is refused, before
// a testbed is built for it when --net asks for one.
func testbedRanks(cmd *cobra.Command, f *testbedFlags, np int) (testbed.State, func(), int, error) {
	if cmd.Flags().Changed("net") {
		want := f.nodes
		if cmd.Flags().Changed("np") {
			want = min(np, f.nodes)
		}
		if err := checkCapacity(want, nil, "tcp"); err != nil {
			return testbed.State{}, nil, 0, err
		}
	}
	st, cleanup, err := runTestbed(cmd, f)
	if err != nil {
		return st, nil, 0, err
	}
	if !cmd.Flags().Changed("np") {
		np = st.Nodes
	}
	if np < 2 || np > st.Nodes {
		cleanup()
		return st, nil, 0, usageErrorf("--np %d: testbed %s has %d nodes, one rank per node: give 2..%d", np, st.Name, st.Nodes, st.Nodes)
	}
	if err := checkCapacity(np, nil, "tcp"); err != nil {
		cleanup()
		return st, nil, 0, err
	}
	return st, cleanup, np, nil
}

// runTestbed returns the testbed to run on: a new one owned by this
// process when --net was given (cleanup removes it), else the one up.
func runTestbed(cmd *cobra.Command, f *testbedFlags) (testbed.State, func(), error) {
	if !cmd.Flags().Changed("net") {
		st, err := testbed.Load(f.name)
		if err != nil || !testbed.Alive(st) {
			return st, nil, usageErrorf("no testbed %q is up: build one with mpbench testbed up, or give --net (and --nodes, --rate) to build one for this run", f.name)
		}
		return st, func() {}, nil
	}
	if !cmd.Flags().Changed("name") {
		f.name = "r" + strconv.Itoa(os.Getpid()%100000)
	}
	cfg, err := f.config()
	if err != nil {
		return testbed.State{}, nil, err
	}
	cfg.Owner = os.Getpid()
	st, err := upTestbed(cfg)
	if err != nil {
		return st, nil, err
	}
	return st, func() { testbed.Down(cfg.Name) }, nil
}

// testbedSub splits the arguments of mpbench testbed run (cmd) into the
// mpbench command it starts (sub: "run", or "app NAME" when args begin
// with "app") and that command's arguments (rest). An unknown application
// is a usage error (checkAppArgs).
func testbedSub(cmd *cobra.Command, args []string) (sub, rest []string, err error) {
	if len(args) == 0 || args[0] != "app" {
		return []string{"run"}, args, nil
	}
	if err := checkAppArgs(cmd, args); err != nil {
		return nil, nil, err
	}
	return args[:2], args[2:], nil
}

// runOnTestbed runs mpbench run with args on np nodes of st and returns
// its outcome; SIGINT and SIGTERM are passed on to it.
func runOnTestbed(stdout, stderr io.Writer, st testbed.State, np int, args []string) error {
	return onTestbed(stdout, stderr, st, []string{"run"}, np, args)
}

// onTestbed runs "mpbench sub..." (run, tune, or app NAME) on node 1 of st
// with the testbed's hostfile, launch agent and network, one rank per
// node, -np np before args (so args may override it), as a supervised
// child (supervise.Command: SIGINT and SIGTERM are passed on to it). An
// interrupt is returned as such; its exit status 2 is bad input, any other
// failure names how it ended, both already explained by its own line on
// stderr (a *printedError).
func onTestbed(stdout, stderr io.Writer, st testbed.State, sub []string, np int, args []string) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	hostfile := testbed.HostfilePath(st.Name)
	agent := fmt.Sprintf("'%s' testbed exec --name %s --node {host} --", self, st.Name)
	argv := append([]string{"testbed", "exec", "--name", st.Name, "--node", "1", "--", self}, sub...)
	argv = append(append(argv, "--hostfile", hostfile, "--launch-agent", agent, "--if", testbed.CIDR, "--map-by", "node",
		"-np", strconv.Itoa(np)), args...)
	ctx, stop := notifyInterrupt(context.Background())
	defer stop()
	what := strings.Join(sub, " ")
	err = supervise.Command{Argv: append([]string{self}, argv...), Name: "mpbench " + what, Stdout: stdout, Stderr: stderr,
		Env: append(os.Environ(), networkEnv+"="+describeNetwork(st))}.Run(ctx)
	var ee *supervise.ExitError
	switch {
	case ctx.Err() != nil:
		return cancelCause(ctx, errInterrupted)
	case childUsage(err):
		return &printedError{err: usageErrorf("mpbench %s on testbed %s: bad input", what, st.Name)}
	case errors.As(err, &ee):
		return &printedError{err: fmt.Errorf("mpbench %s on testbed %s %s", what, st.Name, ee.Exit())}
	}
	return err
}

// describeNetwork is the "# Network" header line of a run on st.
func describeNetwork(st testbed.State) string {
	return fmt.Sprintf("%s; mpbench testbed %s, %d nodes, mtu %d, loss %g%%", st.Model, st.Name, st.Nodes, st.MTU, st.Loss*100)
}
