package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mpbench/mpbench/launch/supervise"
	"github.com/mpbench/mpbench/testbed"
	"github.com/mpbench/mpbench/testbed/medium"
	"github.com/mpbench/mpbench/testbed/study"
	"github.com/mpbench/mpbench/transfer"
)

func newTestbedStudyCmd() *cobra.Command {
	var dir, rate, nets, sizes, timeS string
	var nodes, repeat int
	var scale, transferSecs float64
	var again bool
	cmd := &cobra.Command{
		Use:   "study -o DIR",
		Short: "Reproduce the study: its experiment set on each emulated network, findings and a report page",
		Long: `mpbench testbed study builds each network in turn (--nets at --rate, or with
--scale F the study's four networks, switch 100 and 10 Mbit/s, hub 10 Mbit/s and
wifi 54 Mbit/s, at F times their rates) on --nodes nodes and runs the study's
experiment set: PingPong and PingPing on one pair and Multi-PingPong at 2..N/2
pairs (0, 64 KiB, 256 KiB and 1 MiB), Sendrecv, Exchange, Alltoall, Gather,
Scatter and Barrier at N = 2, 4, 8 (64 KiB), Bcast as a binomial tree and as a
pipeline, the study's segmented broadcast (1 MiB, N nodes), and the file transfer. It writes every
result file, findings.json and study.html (each finding with its evidence next
to the study's tables) and report.html (mpbench report of every run) to DIR, and
prints each network's wall time. The default takes about 8 minutes on a quiet
2-CPU host, --scale 1 about 9 (docs/testbed-study.md). A switch whose pairs
carry more than 100 Mbit/s in all is named in a warning: there its findings
were measured to be the host's.`,
		Example: `  mpbench testbed study -o study/                     # switch, hub, wifi at 20 Mbit/s, 8 nodes
  mpbench testbed study --scale 1 -o study-scaled/      # the study's four networks at their own rates`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if dir == "" {
				return usageErrorf("study needs -o DIR, the directory for its results")
			}
			command := strings.Join(os.Args, " ")
			if again {
				s := newStudyRun(cmd, dir, nodes)
				err := s.Reanalyse(command)
				var none *study.NoResultsError
				if errors.As(err, &none) {
					return usageErrorf("--reanalyse: %v", err)
				}
				return err
			}
			r, err := medium.ParseRate(rate)
			if err != nil {
				return usageErrorf("--rate: %v", err)
			}
			if nodes < 4 || nodes > testbed.MaxNodes || nodes&(nodes-1) != 0 {
				return usageErrorf("--nodes %d: give 4, 8 or 16 (the experiment set doubles N from 2)", nodes)
			}
			if scale < 0 {
				return usageErrorf("--scale %g: give a factor > 0", scale)
			}
			kinds := strings.Split(nets, ",")
			for _, k := range kinds {
				if _, err := medium.New(k, medium.Params{Ports: 2, RateBps: 1e6}, false, 0); err != nil {
					return usageErrorf("--nets: %v", err)
				}
			}
			list, err := transfer.ParseSizes(sizes)
			if err != nil {
				return usageErrorf("--transfer-sizes: %v", err)
			}
			if err := testbed.Probe(); err != nil {
				return testbedError(err)
			}
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return usageErrorf("-o %s: %v", dir, err)
			}
			if !(transferSecs > 0) || transferSecs > 1e6 {
				return usageErrorf("--transfer-time %g: give seconds > 0", transferSecs)
			}
			specs := study.NetSpecs(kinds, r, scale)
			for _, w := range study.HostBound(specs, nodes) {
				fmt.Fprintln(cmd.ErrOrStderr(), "mpbench: warning: "+w)
			}
			s := newStudyRun(cmd, dir, nodes)
			s.Time, s.Sizes, s.Repeat, s.TransferTime = timeS, list, repeat, time.Duration(transferSecs*float64(time.Second))
			return s.Measure(specs, command)
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&dir, "output", "o", "", "directory for the results, findings and pages")
	fl.IntVar(&nodes, "nodes", 8, "nodes of each network (4, 8 or 16)")
	fl.StringVar(&rate, "rate", "20mbit", "rate of every network (without --scale)")
	fl.StringVar(&nets, "nets", "switch,hub,wifi", "networks to emulate (without --scale)")
	fl.Float64Var(&scale, "scale", 0, "emulate the study's four networks at this fraction of their rates instead")
	fl.StringVar(&timeS, "time", "1", "IMB -time: seconds per message size at most")
	fl.StringVar(&sizes, "transfer-sizes", "0,1,1K,1M,10M", "file sizes of the file transfer (the study's: 0,1,1K,1M,10M,100M)")
	fl.IntVar(&repeat, "repeat", 3, "transfers per file size at most (the study's: 10)")
	fl.Float64Var(&transferSecs, "transfer-time", 10, "seconds of file transfers per size, after which no further repeat of that size starts")
	fl.BoolVar(&again, "reanalyse", false, "measure nothing: recompute the findings and pages from the result files in DIR (give the --nodes they were measured with)")
	return cmd
}

// newStudyRun is the study of cmd in dir on networks of nodes nodes, its
// jobs started as the command line starts them: testbeds by upTestbed,
// "mpbench run" on the testbed by runOnTestbed, the report page by
// studyReport.
func newStudyRun(cmd *cobra.Command, dir string, nodes int) *study.Run {
	return &study.Run{Dir: dir, Nodes: nodes, Out: cmd.OutOrStdout(), Errw: cmd.ErrOrStderr(),
		Up: upTestbed, Bench: runOnTestbed, Report: studyReport(cmd.ErrOrStderr())}
}

// studyReport returns the study's Report: mpbench report of the result
// files, writing path, as a supervised child like every job of the study
// (Ctrl-C stops it with SIGINT, a failure names how it ended). A failure
// is printed to errw and the study goes on; an interruption is returned.
func studyReport(errw io.Writer) func(files []string, path string) error {
	return func(files []string, path string) error {
		self, _ := os.Executable()
		args := append([]string{self, "report", "--title", "mpbench testbed study: every run"}, files...)
		ctx, stop := notifyInterrupt(context.Background())
		err := supervise.Command{Argv: append(args, "-o", path), Name: "mpbench report", Stderr: errw}.Run(ctx)
		// Whether a signal ended it is read before stop, which cancels ctx.
		if ctx.Err() != nil {
			err := cancelCause(ctx, errInterrupted)
			stop()
			return err
		}
		stop()
		if err != nil {
			fmt.Fprintf(errw, "%sreport.html: %v\n", errorPrefix, err)
		}
		return nil
	}
}
