package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"syscall"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/term"

	"github.com/mpbench/mpbench/launch"
)

// newRunCmd is "mpbench run": validate, then launch -np worker processes.
func newRunCmd(inv *invocation) *cobra.Command {
	var f runFlags
	cmd := &cobra.Command{
		Use:   "run [options] [benchmark ...]",
		Short: "Run IMB-MPI1 benchmarks on -np local processes",
		Long: `Run IMB-MPI1 benchmarks on -np processes of this machine and print the results
in IMB-MPI1's text format on standard output.

Benchmarks are named as in IMB, in any case (pingpong, PingPong); without
names the default IMB-MPI1 list runs. IMB options may be given with one dash,
as IMB spells them (-npmin 2 -msglog 0:22 -iter 1000 -time 10 -off_cache -1
-sync 1 -multi 0 -check -warmup 1 -msglen FILE), or with two (--npmin 2).

Mbytes/sec uses 1 Mbyte = 10^6 bytes by default, as IMB 2018 and later do;
--mbyte 2^20 (or --mib) uses 2^20 bytes as IMB 2017 and earlier did. The
choice is printed in the output header ("# Mbyte").

--json FILE and --csv FILE also write every row, with the run's metadata,
as it is measured: a run that fails or is interrupted keeps every row
measured before. A progress display is drawn on standard error when it is a
terminal, standard output is redirected, and --quiet is not given.

Exit status: 0 success, 1 the run failed (the message names the rank),
2 bad options or input, 130 interrupted.`,
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
	if handled, err := runUnderMPILauncher(cmd, f, inv); handled {
		return err // one rank of an MPI job (mpirun.go)
	}
	if _, err := f.benchOptions(); err != nil {
		return err
	}
	if f.transport == "mpi" {
		return runWithMPILauncher(cmd, f, inv)
	}
	for _, out := range []struct{ flag, path string }{{"json", f.jsonFile}, {"csv", f.csvFile}} {
		if out.path == "" {
			continue
		}
		file, err := os.Create(out.path)
		if err != nil {
			return usageErrorf("--%s %s: cannot create the file (%v); expected a writable path", out.flag, out.path, unwrapPath(err))
		}
		file.Close()
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

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	env := []string{launch.EnvTransport + "=" + f.transport}
	if f.ifaddr != "" {
		env = append(env, launch.EnvIfAddr+"="+f.ifaddr)
	}
	err = launch.Run(ctx, launch.Spec{NP: f.np, Argv: argv, Env: env, Timeout: f.timeout, Stdout: stdout, Stderr: stderr})
	switch {
	case ctx.Err() != nil:
		return errInterrupted
	case err != nil:
		return fmt.Errorf("run failed: %w", err)
	}
	return nil
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
