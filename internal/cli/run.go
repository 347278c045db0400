package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/term"

	"github.com/mpbench/mpbench/bench"
	"github.com/mpbench/mpbench/launch"
	"github.com/mpbench/mpbench/launch/supervise"
	"github.com/mpbench/mpbench/result/rowfile"
)

// newRunCmd is "mpbench run": validate, then launch -np worker processes.
func newRunCmd(inv *invocation) *cobra.Command {
	var f runFlags
	cmd := &cobra.Command{
		Use:   "run [options] [benchmark ...]",
		Short: "Run IMB-MPI1 benchmarks on -np processes",
		Long: `Run IMB-MPI1 benchmarks on -np processes of this machine, or of the hosts
given by --hostfile or --host, and print the results in IMB-MPI1's text
format on standard output.

Ranks on other hosts are started through the launch agent (ssh in batch
mode by default; --launch-agent 'ip netns exec {host}' or any command) with
the mpbench executable at this one's path; a host whose mpbench is another
build refuses. --map-by slot (default) fills each host's slots in turn,
--map-by node deals ranks round robin. --if NAME|CIDR picks the network.
The rank-to-host map is printed in the header ("# Hosts") and stored in the
JSON/CSV metadata.

Benchmarks are named as in IMB, in any case (pingpong, PingPong); without
names the default IMB-MPI1 list runs. IMB options may be given with one dash,
as IMB spells them (-npmin 2 -msglog 0:22 -iter 1000 -time 10 -off_cache -1
-sync 1 -multi 0 -check -warmup 1 -msglen FILE), or with two (--npmin 2).

Mbytes/sec uses 1 Mbyte = 10^6 bytes by default, as IMB 2018 and later do;
--mbyte 2^20 (or --mib) uses 2^20 bytes as IMB 2017 and earlier did. The
choice is printed in the output header ("# Mbyte").

--json FILE and --csv FILE also write every row, with the run's metadata,
as it is measured: a run that fails or is interrupted keeps every row
measured before, and ends with a "failed" end record (written by the
launcher if rank 0 was killed). They must name two different files, and
not "-": standard output carries the IMB text. A progress display is
drawn on standard error when it is a terminal, standard output is
redirected, and --quiet is not given.

A failing job is reported once, by the launcher, in one line naming the
rank and where the job was (benchmark, processes, last row printed). Hangs
are detected: a rank stopped (SIGSTOP, process state T) for 10 s fails the
job; so does rank 0 printing nothing for --stall (default 10 x -time, at
least 2 minutes; off under -iter_policy off or multiple_np, and under
auto with a rooted collective); --timeout bounds the whole
job and names stopped ranks.

Exit status: 0 success, 1 the run failed (the message names the rank),
2 bad options or input, 130 interrupted (SIGINT), 143 terminated (SIGTERM).`,
		Example: `  mpbench run -np 2 pingpong
  mpbench run -np 4 -npmin 4 -msglog 0:20 -time 2 sendrecv exchange
  mpbench run -np 4 -multi 0 pingpong --json pp.jsonl > pp.txt`,
		RunE: func(cmd *cobra.Command, args []string) error {
			f.benchmarks = args
			return runRun(cmd, &f, inv)
		},
	}
	addRunFlags(cmd.Flags(), &f)
	return cmd
}

// runRun checks every input, then starts the job.
func runRun(cmd *cobra.Command, f *runFlags, inv *invocation) error {
	if f.coll.show {
		return showAlgorithms(cmd.OutOrStdout(), &f.coll)
	}
	if f.list {
		return listBenchmarks(cmd.OutOrStdout())
	}
	if handled, err := runUnderMPILauncher(cmd, f, inv); handled {
		return err // one rank of an MPI job (mpirun.go)
	}
	hp, err := f.hostOpts.plan(&f.np, f.transport, f.ifaddr, cmd.Flags())
	if err != nil {
		return err
	}
	opts, err := f.benchOptions()
	if err != nil {
		return err
	}
	if err := checkOutputPaths(f.jsonFile, f.csvFile, stdoutIMB); err != nil {
		return err
	}
	if err := checkDumpPath(f, false); err != nil {
		return err
	}
	if f.hostOpts.hostfile == "" && f.hostOpts.hosts == "" {
		if err := checkProfilePath(f.cpuprofile); err != nil {
			return err
		}
	}
	if f.given("thread_level") {
		if err := bench.CheckThreadLevel(f.threadLevel, f.transport == "mpi"); err != nil {
			return err
		}
	}
	if err := emptyOutputs(f.jsonFile, f.csvFile, f.imb.dumpfile); err != nil {
		return err
	}
	if f.transport == "mpi" {
		return runWithMPILauncher(cmd, f, opts, inv)
	}
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("cannot find the mpbench executable to start ranks: %w", err)
	}
	stdout, stderr := cmd.OutOrStdout(), cmd.ErrOrStderr()
	argv := []string{exe, "worker", "--called-as", inv.commandLine()}
	if w := progressWidth(f.quiet, stdout, stderr); w > 0 {
		argv = append(argv, "--progress-width", strconv.Itoa(w))
	}
	argv = append(argv, changedFlags(cmd.Flags())...)
	argv = append(argv, "--")
	argv = append(argv, f.benchmarks...)

	sigCtx, stop := notifyInterrupt(context.Background())
	defer stop()
	env := []string{launch.EnvTransport + "=" + f.transport}
	if f.ifaddr != "" {
		env = append(env, launch.EnvIfAddr+"="+f.ifaddr)
	}
	watch := supervise.Watch{Stdout: stdout, Stall: f.stallLimit(opts), Files: f.rowFiles(), Replace: true, Hosts: hp.hosts}
	return watch.Run(sigCtx, func(ctx context.Context, rank0 io.Writer) error {
		return launch.Run(ctx, launch.Spec{NP: f.np, Argv: argv, Env: env, Timeout: f.timeout, Stdout: rank0, Stderr: stderr,
			Hosts: hp.hosts, Agent: hp.agent, Version: Version, If: f.hostOpts.iface})
	})
}

// rowFiles are the --json and --csv files of f.
func (f *runFlags) rowFiles() rowfile.Files {
	return rowfile.Files{JSON: f.jsonFile, CSV: f.csvFile}
}

// changedFlags renders the options the user set as "--name=value", the
// form the worker command parses.
func changedFlags(fs *pflag.FlagSet) []string {
	var out []string
	fs.Visit(func(fl *pflag.Flag) {
		out = append(out, "--"+fl.Name+"="+fl.Value.String())
	})
	return out
}

// progressWidth returns the terminal width for the progress display, or 0
// for none: it is drawn only when stderr is a terminal and stdout is not
// (on a shared terminal the result rows are the progress, and redrawn bars
// would tear them), and not under --quiet.
func progressWidth(quiet bool, stdout, stderr io.Writer) int {
	if quiet || isTerminal(stdout) {
		return 0
	}
	f, ok := stderr.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return 0
	}
	w, _, err := term.GetSize(int(f.Fd()))
	if err != nil || w <= 0 {
		return 80
	}
	return w
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
