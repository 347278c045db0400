// Package cli is mpbench's command line: a cobra command tree (one file
// per command: run, worker, version, ...), the normalisation of IMB-style
// single-dash options, and the mapping of errors to exit statuses.
package cli

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mpbench/mpbench/bench"
	"github.com/mpbench/mpbench/launch"
)

// Main runs mpbench with args (without the program name), printing to
// stdout and stderr, and returns the process exit status (see ExitStatus).
// Errors are printed as one line "mpbench: <problem>" on stderr, without
// usage text. In a job started by an MPI launcher, where every rank checks
// the same command line, usage errors are printed by rank 0 only. Under an
// address-space limit (ulimit -v) too low for Go's runtime to run a job,
// every command refuses in one line naming the minimum
// (checkAddressSpace); a rank reports that to its launcher.
func Main(args []string, stdout, stderr io.Writer) int {
	args, err := launch.BootstrapFromStdin(args, Version) // a rank started on another host
	if err != nil {
		launch.ReportError(stderr, err) // in the form the launcher shows
		return ExitStatus(err)
	}
	inv := &invocation{args: args}
	root := newRoot(inv, stdout, stderr)
	norm, dashed, err := normalise(root, args)
	inv.dashed = dashed
	if err == nil {
		// A rank under too low a limit tells the launcher, which names it.
		err = reportToLauncher(stderr, checkAddressSpace())
	}
	if err == nil {
		err = execute(root, norm)
	}
	status := ExitStatus(err)
	var printed *printedError
	switch {
	case err == nil, errors.As(err, &printed):
	case status == ExitUsage && isOtherMPIRank():
		// Rank 0 prints the problem; the launcher ends the whole job when
		// the first rank exits non-zero, so give rank 0 time to print.
		time.Sleep(otherRankExitDelay)
	default:
		fmt.Fprintln(stderr, errorPrefix+oneLine(err.Error()))
	}
	return status
}

// errorPrefix begins the one line on stderr in which Main reports a
// command's error ("mpbench: PROBLEM"), the line by which a parent
// mpbench (tune) finds a child's reason (childReason).
const errorPrefix = "mpbench: "

// IMBProgram is the name under which mpbench acts as IMB-MPI1: started as
// IMB-MPI1 (a link or copy of the mpbench executable with that name),
// its arguments are those of "mpbench run", so a tool that runs
// "mpirun ... IMB-MPI1 -msglog 0:20 PingPong" runs mpbench unchanged.
const IMBProgram = "IMB-MPI1"

// Args returns the arguments Main takes for the command line argv
// (program name first): argv[1:], preceded by "run" when the program's
// file name is IMBProgram.
func Args(argv []string) []string {
	if len(argv) == 0 {
		return nil
	}
	if filepath.Base(argv[0]) == IMBProgram {
		return append([]string{"run"}, argv[1:]...)
	}
	return argv[1:]
}

// isOtherMPIRank reports whether this process is a rank other than 0 of a
// job started by an MPI launcher.
func isOtherMPIRank() bool {
	r, ok := launch.MPILauncherRank()
	return ok && r != 0
}

// newRoot builds the command tree. Commands are added here, one
// constructor per file.
func newRoot(inv *invocation, stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:   "mpbench",
		Short: "Message-passing benchmarks: an IMB-MPI1-compatible suite with its own runtime and launcher",
		Long: `mpbench runs the Intel MPI Benchmarks (IMB-MPI1) suite on its own message-passing
runtime: it starts the ranks itself, prints IMB-MPI1-format tables that IMB
scripts can read, and can write JSON Lines and CSV result files.

IMB options are accepted as IMB spells them (-npmin 2, -msglog 0:22, ...) and
in the GNU form (--npmin 2).`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(inv.flagError)
	root.AddCommand(newRunCmd(inv), newWorkerCmd(), newVersionCmd())
	root.AddCommand(newAnalyzeCmd(), newReportCmd(), newCompareCmd())
	root.AddCommand(newAppCmd(inv), newScalingCmd(inv), newPredictCmd())
	root.AddCommand(newTestbedCmd(), newTransferCmd())
	root.AddCommand(newTuneCmd(inv))
	return root
}

// execute runs the command of args in root's tree. Arguments after a
// command group (the root, app, testbed, ...) that name none of its
// subcommands are a usage error listing them (groupArgs), also as the
// topic of "mpbench help". cobra's own
// commands (help, completion and the hidden __complete that shells call)
// are added first, as cobra's Execute would, so that they are found too
// and their argument checks worded as the others' (completeTree).
func execute(root *cobra.Command, args []string) error {
	completeTree(root, args)
	shellRequest := len(args) > 0 && (args[0] == cobra.ShellCompRequestCmd || args[0] == cobra.ShellCompNoDescRequestCmd)
	c, rest, err := root.Find(args)
	switch {
	case shellRequest:
	case c != nil && isGroup(c):
		if err := groupArgs(c, rest); err != nil {
			return err
		}
	case c != nil && c.Name() == "help" && c.Parent() == root: // "mpbench help TOPIC": the same check
		if t, trest, _ := root.Find(rest); t != nil && isGroup(t) {
			if _, ok := firstWord(trest); ok {
				return groupArgs(t, trest)
			}
		}
	case err != nil:
		return &usageError{msg: err.Error()}
	}
	root.SetArgs(args)
	return root.Execute()
}

// completeTree adds cobra's own commands to root's tree (help, and
// completion with the hidden __complete; args as for cobra's
// InitDefaultCompletionCmd), then words the argument checks of every
// command (usageArgs).
func completeTree(root *cobra.Command, args []string) {
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd(args...)
	usageArgs(root)
}

// usageArgs makes the argument checks of every command in c's tree
// (cobra.NoArgs, ExactArgs, MinimumNArgs, ...) return usage errors in one wording
// (argsError), so that ExitStatus needs no knowledge of cobra's messages.
// Flag errors are made usage errors by flagError.
func usageArgs(c *cobra.Command) {
	if check := c.Args; check != nil {
		c.Args = func(cmd *cobra.Command, args []string) error {
			err := check(cmd, args)
			if err != nil && !isUsage(err) {
				return argsError(cmd, args, check, err)
			}
			return err
		}
	}
	for _, sub := range c.Commands() {
		usageArgs(sub)
	}
}

// invocation is the command line mpbench was called with, for the
// calling sequence printed in result headers, and the options in it given
// with one dash (normalise), for errors that name an option as typed.
type invocation struct {
	args   []string
	dashed map[string]bool
}

// commandLine returns "mpbench arg1 arg2 ...", quoting arguments that
// contain blanks.
func (inv *invocation) commandLine() string {
	parts := []string{"mpbench"}
	for _, a := range inv.args {
		if a == "" || strings.ContainsAny(a, " \t\"'") {
			a = strconv.Quote(a)
		}
		parts = append(parts, a)
	}
	return strings.Join(parts, " ")
}

// oneLine joins the lines of a multi-line error message.
func oneLine(s string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", " ; ")), " ")
}

// usageError is bad input (unknown option or benchmark, malformed value,
// unreadable file): exit status 2.
type usageError struct{ msg string }

// Error returns the one-line message.
func (e *usageError) Error() string { return e.msg }

// usageErrorf makes a usageError.
func usageErrorf(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

// isUsage reports whether err is bad input: a *usageError, a
// *bench.OptionError from bench's option parsers and checks, or a
// *launch.HostsError from the parsers of hostfiles, host lists and launch
// agents, or a *launch.CapacityError (more ranks than the host holds).
func isUsage(err error) bool {
	var u *usageError
	var opt *bench.OptionError
	var hosts *launch.HostsError
	var capacity *launch.CapacityError
	return errors.As(err, &u) || errors.As(err, &opt) || errors.As(err, &hosts) || errors.As(err, &capacity)
}
