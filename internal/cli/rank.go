package cli

import (
	"context"
	"errors"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/mpbench/mpbench/bench"
	"github.com/mpbench/mpbench/comm"
	"github.com/mpbench/mpbench/internal/sink"
	"github.com/mpbench/mpbench/launch"
	"github.com/mpbench/mpbench/result"
	"github.com/mpbench/mpbench/transport"
)

// jobTransport names what a rank's communicator runs on, for the result
// headers ("# Transport", "# MPI Thread Environment") and meta data.
type jobTransport struct {
	// Name is "tcp", "shm", "shm+tcp" for mpbench's runtime, or
	// "mpi (<library version>)" for a linked MPI library.
	Name string
	// ThreadEnv is the MPI library's thread level (MPI_Query_thread), e.g.
	// "MPI_THREAD_FUNNELED"; empty on mpbench's runtime.
	ThreadEnv string
	// Hosts is the host of every rank (nil when unknown, e.g. on an MPI
	// library); Wireup says how the ranks found each other.
	Hosts  []string
	Wireup string
	// MPIVersion is the MPI standard version the runtime implements: the
	// library's MPI_Get_version, or mpbench's own (comm.StandardVersion).
	MPIVersion string
	// Timer describes the clock the benchmarks time with and TimerRes is
	// its measured resolution in usec (timerInfo); filled on rank 0.
	Timer    string
	TimerRes float64
	// Reports are the lines the transports in use state about how the
	// ranks reach each other, e.g. shared memory's "Single copy" (which
	// ranks on one host read large payloads by process_vm_readv, which
	// through the rings, and why); gathered on rank 0 (gatherPeerReports).
	Reports []peerLine
}

// jobMeta is the meta record of a job's result files, which rank 0
// writes: mpbench's version, the job's start, this host m (name, CPU,
// cores, the CPUs this process may use, kernel), the Go version, the np
// ranks and what they run on (tr: the transport, the MPI thread level and
// timer when known), the command line, and mbyte, the Mbyte of the
// bandwidth columns in bytes. addJobInfo adds the job's hosts and network;
// the caller adds the options.
func jobMeta(m sink.Machine, tr jobTransport, np int, mbyte float64, start time.Time, command string) result.Meta {
	meta := result.Meta{
		Tool: "mpbench", Version: Version, MByte: mbyte, Date: start.Format(time.RFC3339Nano),
		Host: m.Host, Transport: tr.Name, Command: command,
		Options: map[string]string{},
		Info: map[string]string{
			"cpu": m.CPU, "cores": strconv.Itoa(m.Cores), "cpus_allowed": strconv.Itoa(m.Allowed), "go": runtime.Version(),
			"os": runtime.GOOS + "/" + runtime.GOARCH, "kernel": m.Release, "np": strconv.Itoa(np),
		},
	}
	if tr.ThreadEnv != "" {
		meta.Info["mpi_thread_environment"] = tr.ThreadEnv
	}
	if tr.Timer != "" {
		meta.Info["timer"] = tr.Timer
	}
	addJobInfo(meta.Info, tr)
	return meta
}

// addJobInfo adds to info, a result file's metadata, the emulated network
// the job runs on (network, from MPBENCH_NETWORK, set by mpbench testbed
// run), the transports' reports of tr (e.g. single_copy: how ranks on one
// host read large payloads) and the ranks' hosts of tr: rank_hosts, the
// host of every rank comma-separated in rank order (so that rows between
// hosts can be told from rows within one), hosts (launch.FormatRankHosts)
// and wireup.
func addJobInfo(info map[string]string, tr jobTransport) {
	if nw := os.Getenv(networkEnv); nw != "" {
		info["network"] = nw
	}
	for _, l := range tr.Reports {
		info[l.Key] = l.Text
	}
	if len(tr.Hosts) > 0 {
		info["rank_hosts"] = strings.Join(tr.Hosts, ",")
		info["hosts"] = launch.FormatRankHosts(tr.Hosts)
		info["wireup"] = tr.Wireup
	}
}

// runRank is one rank's part of "mpbench run" on communicator c, whatever
// started the job (mpbench's launcher or an MPI library's): every rank runs
// the benchmarks of opts, rank 0 also writes every output (IMB text on
// stdout, --json, --csv, progress). start is the job's start time for the
// headers. After the last benchmark the ranks meet in a barrier, so that no
// rank tears down its connections while another still uses them. An error
// names the rank; a run ended after ctx was cancelled (SIGINT/SIGTERM)
// gives ctx's *interrupted cause, else errInterrupted.
func runRank(ctx context.Context, cmd *cobra.Command, f *workerFlags, c comm.Comm, tr jobTransport, opts bench.Options, start time.Time) error {
	rank := c.Rank()
	var out sink.Fanout
	var closers []io.Closer
	if rank == 0 {
		var err error
		tr.Timer, tr.TimerRes = timerInfo(c, strings.HasPrefix(tr.Name, "mpi"))
		out, closers, err = openSinks(cmd, f, tr, &opts, start)
		if err != nil {
			return &launch.WorkerError{Rank: 0, Err: err}
		}
	}
	var bs bench.Sink
	if out != nil {
		bs = out
	}
	runErr := bench.Run(ctx, c, opts, bs)
	if runErr == nil {
		runErr = c.Barrier()
	}
	if ctx.Err() != nil && stoppedBySignal(runErr) {
		// A signal came first: the run stopping at the next size, this
		// rank closing its communicator after the grace period (closeOnStop),
		// stdout failing because the launcher relaying it is gone are its
		// consequences, not the run's error; the end record names the signal.
		runErr = cancelCause(ctx, errInterrupted)
	}
	if out != nil {
		if ferr := out.Finish(runErr); ferr != nil && runErr == nil {
			runErr = ferr
		}
		for _, cl := range closers {
			if cerr := cl.Close(); cerr != nil && runErr == nil {
				runErr = cerr
			}
		}
	}
	if runErr != nil && !errors.Is(runErr, errInterrupted) {
		return &launch.WorkerError{Rank: rank, Err: runErr}
	}
	return runErr
}

// stoppedBySignal reports whether err is what a run ends with when a
// signal stops it: cancelled at the next size, pending communication
// failed by closing the communicator (comm.ErrClosed, or the endpoint's
// transport.ErrClosed when a send was under way), or standard output gone with the
// launcher. A peer's failure is not: it is the run's error even when a
// signal follows it.
func stoppedBySignal(err error) bool {
	for _, cause := range []error{context.Canceled, comm.ErrClosed, transport.ErrClosed, syscall.EIO, syscall.EPIPE} {
		if errors.Is(err, cause) {
			return true
		}
	}
	return false
}
