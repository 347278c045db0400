package cli

import (
	"context"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/mpbench/mpbench/bench"
	"github.com/mpbench/mpbench/comm"
	"github.com/mpbench/mpbench/internal/sink"
	"github.com/mpbench/mpbench/launch"
	"github.com/mpbench/mpbench/result"
	"github.com/mpbench/mpbench/result/imb"
	"github.com/mpbench/mpbench/transport"
)

// workerFlags are the worker's own options, set by "mpbench run".
type workerFlags struct {
	run           runFlags
	progressWidth int
	calledAs      string
}

// newWorkerCmd is the hidden per-rank entry point that "mpbench run"
// starts -np times.
func newWorkerCmd() *cobra.Command {
	var f workerFlags
	cmd := &cobra.Command{
		Use:    "worker [options] -- [benchmark ...]",
		Short:  "One rank of a job (started by mpbench run)",
		Hidden: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			f.run.benchmarks = args
			return reportToLauncher(cmd.ErrOrStderr(), workerRun(cmd, &f))
		},
	}
	addRunFlags(cmd.Flags(), &f.run)
	cmd.Flags().IntVar(&f.progressWidth, "progress-width", 0, "draw progress on stderr for a terminal this wide (0: none)")
	cmd.Flags().StringVar(&f.calledAs, "called-as", "mpbench run", "the launcher's command line, for result headers")
	_ = cmd.Flags().MarkHidden("progress-width")
	_ = cmd.Flags().MarkHidden("called-as")
	return cmd
}

// workerRun joins the job, runs the benchmarks and, on rank 0, writes
// every output.
func workerRun(cmd *cobra.Command, f *workerFlags) error {
	if !launch.IsWorker() {
		return usageErrorf("the worker command is started by 'mpbench run'; see 'mpbench run --help'")
	}
	return joinAndRun(cmd, f, launch.JoinJob)
}

// joinAndRun joins the job through join (mpbench's launcher or PMI),
// runs the benchmarks and, on rank 0, writes every output.
func joinAndRun(cmd *cobra.Command, f *workerFlags, join func(context.Context) (transport.Endpoint, launch.Job, error)) error {
	opts, err := f.run.benchOptions()
	if err != nil {
		return err
	}
	ctx, stop := notifyInterrupt(context.Background())
	defer stop()
	start := time.Now()
	ep, job, err := join(ctx)
	if err != nil {
		return err
	}
	if f.run.cpuprofile != "" {
		stopProfile, err := startCPUProfile(f.run.cpuprofile, ep.Rank())
		if err != nil {
			ep.Close()
			return err
		}
		defer stopProfile()
	}
	name := job.Transport
	eager := f.run.eager
	if eager == 0 {
		eager = defaultEager(name)
	}
	world, err := comm.NewWorld(ep, comm.Config{EagerLimit: eager})
	if err != nil {
		ep.Close()
		return err
	}
	defer world.Close()
	runDone := make(chan struct{})
	go closeOnStop(ctx, runDone, world)
	tr := jobTransport{Name: name, Hosts: job.Hosts, Wireup: job.Wireup, MPIVersion: comm.StandardVersion}
	if tr.Reports, err = gatherPeerReports(world, ep); err != nil {
		if ctx.Err() != nil && stoppedBySignal(err) {
			err = cancelCause(ctx, errInterrupted)
		} else {
			err = &launch.WorkerError{Rank: world.Rank(), Err: err}
		}
	} else {
		tr.Reports = append(tr.Reports, verifyLine()...)
		err = runRank(ctx, cmd, f, world, tr, opts, start)
	}
	close(runDone)
	return err
}

// reportToLauncher hands a rank's error to the launcher (launch.ReportError,
// which leaves out the rank a *launch.WorkerError names) instead of
// printing it, so that a failure every rank sees is printed once, by the
// launcher, naming the rank; the error is returned as a *printedError,
// which keeps its exit status. Without a launcher (the worker command run
// by hand) err is returned unchanged.
func reportToLauncher(stderr io.Writer, err error) error {
	if err == nil || !launch.IsWorker() {
		return err
	}
	launch.ReportError(stderr, err)
	return &printedError{err}
}

// stopGrace is how long a stopped rank 0 lets the benchmark reach its next
// message size before it closes the communicator to unblock it; the
// launcher's SIGKILL comes 2 s after its SIGTERM. The other ranks wait
// peerStopLag longer, so that rank 0 (whose signal may come later, through
// a launch agent's connection) closes first and sees its own close, which
// it records as the interrupt, rather than a peer's.
const (
	stopGrace   = time.Second
	peerStopLag = 500 * time.Millisecond
)

// closeOnStop closes world when ctx is cancelled (SIGINT/SIGTERM) and the
// run has not ended within stopGrace (rank 0) or stopGrace+peerStopLag
// (other ranks), so that pending communication fails and rank 0 can still
// record how the run ended.
func closeOnStop(ctx context.Context, runDone <-chan struct{}, world *comm.World) {
	select {
	case <-runDone:
		return
	case <-ctx.Done():
	}
	grace := stopGrace
	if world.Rank() != 0 {
		grace += peerStopLag
	}
	select {
	case <-runDone:
	case <-time.After(grace):
		world.Close()
	}
}

// openSinks builds rank 0's outputs: IMB text on stdout, the --json and
// --csv files, and the progress display.
func openSinks(cmd *cobra.Command, f *workerFlags, tr jobTransport, opts *bench.Options, start time.Time) (sink.Fanout, []io.Closer, error) {
	m := sink.LocalMachine()
	sizes := opts.Sizes()
	names := opts.Benchmarks
	if len(names) == 0 {
		names = bench.DefaultNames()
	}
	info := imb.RunInfo{
		Version: Version, Date: start, Machine: m.Arch, System: m.System, Release: m.Release,
		KernelVersion: m.Version, Transport: tr.Name, ThreadEnv: tr.ThreadEnv, MByte: opts.MByte,
		MPIVersion: tr.MPIVersion, DataType: opts.DataTypeName(), RedDataType: opts.RedDataTypeName(), Map: opts.MapText(f.run.np),
		Command: []string{f.calledAs}, UserLengths: opts.MsgLens != nil,
		MinBytes: minOf(sizes), MaxBytes: maxOf(sizes), Benchmarks: names,
		Multi: opts.Multi != result.MultiNone,
	}
	if len(tr.Hosts) > 0 {
		info.Hosts, info.Wireup = launch.FormatRankHosts(tr.Hosts), tr.Wireup
	}
	info.Network = os.Getenv(networkEnv)
	info.Timer = tr.Timer
	info.Reports = headerLines(tr.Reports)
	text, err := sink.NewText(cmd.OutOrStdout(), info, sink.TextOptions{ShowTail: f.run.imb.showTail, Percentiles: f.run.percentiles, TimerResolution: tr.TimerRes})
	if err != nil {
		return nil, nil, err
	}
	// The result files come before the text: a row printed on stdout is
	// already in them when rank 0 is killed right after printing it.
	meta := jobMeta(m, tr, f.run.np, opts.MByte, start, f.calledAs)
	meta.Options = optionMap(cmd.Flags(), names)
	files, err := f.run.rowFiles().Create(meta)
	if err != nil {
		return nil, nil, err
	}
	out := sink.Fanout{sink.NewRowFile(files), text}
	closers := []io.Closer{files}
	if path := f.run.imb.dumpfile; path != "" {
		file, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
		if err != nil {
			return nil, closers, err
		}
		closers = append(closers, file)
		out = append(out, sink.NewDump(file))
	}
	if f.progressWidth > 0 {
		out = append(out, sink.NewProgress(cmd.ErrOrStderr(), f.progressWidth, len(sizes)))
	}
	return out, closers, nil
}

func minOf(v []int64) int64 {
	m := v[0]
	for _, x := range v {
		m = min(m, x)
	}
	return m
}

func maxOf(v []int64) int64 {
	m := v[0]
	for _, x := range v {
		m = max(m, x)
	}
	return m
}
