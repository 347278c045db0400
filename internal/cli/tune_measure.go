package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/mpbench/mpbench/launch/supervise"
	"github.com/mpbench/mpbench/result"
	"github.com/mpbench/mpbench/result/read"
	"github.com/mpbench/mpbench/tune"
)

// tuneJob is one "mpbench run" of a tuning or verification round: a
// tune.Job on np ranks with the extra arguments and environment that
// force its configurations.
type tuneJob struct {
	tune.Job
	np    int
	round int
	args  []string
	env   []string
}

// tuneJobs builds one round of jobs on np ranks (tune.Round over the
// configurations lib can force); error when lib does not know a
// collective of p.
func tuneJobs(lib tuneLibrary, p tunePlan, np, round int) ([]tuneJob, error) {
	per := map[string][]tune.Config{}
	for _, c := range p.colls {
		cs, err := lib.configs(c, np, p.segments)
		if err != nil {
			return nil, err
		}
		per[c] = cs
	}
	return forced(lib, tune.Round(p.colls, per), np, round), nil
}

// forced gives each of jobs, on np ranks in round, the arguments and
// environment that make lib run its configurations.
func forced(lib tuneLibrary, jobs []tune.Job, np, round int) []tuneJob {
	out := make([]tuneJob, len(jobs))
	for i, j := range jobs {
		out[i] = tuneJob{Job: j, np: np, round: round}
		if j.Configs != nil {
			out[i].args, out[i].env = lib.force(j.Configs)
		}
	}
	return out
}

// tuneRunner runs measuring jobs as "mpbench run" processes of this
// executable and collects their rows.
type tuneRunner struct {
	exe       string
	transport string
	sizes     string // IMB -msglen file
	iter      string
	time      float64
	hostArgs  []string     // --hostfile ... of every job (hostFlags.runArgs)
	tmp       string       // JSON Lines file each job writes
	meta      *result.Meta // of the first job that ran, for file headers
	stderr    string       // what the last job printed on stderr
}

// jobTimeout bounds one measuring job: far above any job of a tuning run,
// so that only a hung algorithm reaches it.
const jobTimeout = 10 * time.Minute

// run starts job and returns its rows. A job that fails returns a
// *tuneJobError naming it and why it failed; an interrupted one returns
// the context's cause.
func (r *tuneRunner) run(ctx context.Context, job tuneJob) ([]result.Row, error) {
	argv := []string{"run", "-np", itoa(job.np), "-npmin", itoa(job.np), "-msglen", r.sizes,
		"-iter", r.iter, "-time", fmt.Sprint(r.time), "--all-sizes", "--quiet", "--json", r.tmp,
		"--transport", r.transport, "--timeout", jobTimeout.String()}
	argv = append(argv, r.hostArgs...)
	argv = append(argv, job.args...)
	for _, c := range job.Colls {
		argv = append(argv, tuneBench[c])
	}
	os.Remove(r.tmp)
	var stderr bytes.Buffer
	err := supervise.Command{Argv: append([]string{r.exe}, argv...), Name: "mpbench run", Env: tuneEnv(job.env), Stderr: &stderr}.Run(ctx)
	r.stderr = stderr.String()
	if ctx.Err() != nil {
		return nil, cancelCause(ctx, errInterrupted)
	}
	if err != nil {
		return nil, &tuneJobError{np: job.np, label: job.Label, reason: jobFailure(r.tmp, stderr.String(), err)}
	}
	runs, err := read.File(r.tmp)
	if err != nil || len(runs) == 0 {
		return nil, fmt.Errorf("%d processes, %s: reading its results: %v", job.np, job.Label, err)
	}
	if r.meta == nil {
		m := runs[0].Meta
		r.meta = &m
	}
	return runs[0].Rows, nil
}

// tuneJobError is a measuring job that failed: on how many processes,
// what it ran, and why.
type tuneJobError struct {
	np     int
	label  string
	reason string // jobFailure
}

// Error returns "NP processes, LABEL: REASON".
func (e *tuneJobError) Error() string {
	return fmt.Sprintf("%d processes, %s: %s", e.np, e.label, e.reason)
}

// jobFailure is why a measuring job failed, in the most precise form the
// job left: the error of the end record of its --json file (rank 0's
// account, e.g. the MPI library's error code, or its launcher's), else
// the job's own error line (childReason: a job that failed before it
// wrote an end record, e.g. on bad input), else how it ended (err, the
// *supervise.ExitError: "mpbench run killed by signal SIGSEGV") with its
// last stderr line.
func jobFailure(jsonPath, stderr string, err error) string {
	if runs, rerr := read.File(jsonPath); rerr == nil {
		for _, run := range runs {
			if run.EndError != "" {
				return run.EndError
			}
		}
	}
	if reason, ok := childReason(stderr); ok {
		return reason
	}
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	if last := strings.TrimSpace(lines[len(lines)-1]); last != "" {
		return fmt.Sprintf("%v; last stderr line: %q", err, last)
	}
	return err.Error()
}

// childReason returns the error a child mpbench reported on its stderr:
// the last line that Main printed as its one-line report (errorPrefix),
// without the prefix; ok is false when the child printed none (it crashed
// or was killed).
func childReason(stderr string) (reason string, ok bool) {
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if r, found := strings.CutPrefix(lines[i], errorPrefix); found {
			return strings.TrimSpace(r), true
		}
	}
	return "", false
}

// jsonIndent is json.MarshalIndent with a final newline.
func jsonIndent(v any) ([]byte, error) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// tuneManifest records how a tuning was measured, for --verify and for
// the report. It is DIR/tune.json.
type tuneManifest struct {
	Runtime   string   `json:"runtime"`   // tuneLibrary.describe
	Transport string   `json:"transport"` // "mpi" or mpbench's transport option
	Colls     []string `json:"collectives"`
	Procs     []int    `json:"processes"`
	Sizes     []int    `json:"sizes"`
	Segments  []int    `json:"segments"`
	Rounds    int      `json:"rounds"`
	MinGain   float64  `json:"min_gain"`
	Iter      string   `json:"iter"`
	Time      float64  `json:"time"`
	RulesFile string   `json:"rules_file"`
	Host      string   `json:"host"`
	RankHosts string   `json:"rank_hosts,omitempty"` // host of each rank of the first job, comma-separated (several hosts: --hostfile)
	Date      string   `json:"date"`
	Command   string   `json:"command"`
	Header    []string `json:"header"`
}

// progressLine prints one progress line: job i of n, its round and
// what it runs, the time it took and the estimated time left.
func progressLine(w io.Writer, i, n int, job tuneJob, rounds int, took, elapsed time.Duration, err error) {
	left := time.Duration(float64(elapsed) / float64(i) * float64(n-i)).Round(time.Second)
	status := fmt.Sprintf("%.1fs", took.Seconds())
	if err != nil {
		status = "FAILED: " + err.Error()
	}
	label := job.Label
	if len(label) > 90 {
		label = label[:87] + "..."
	}
	fmt.Fprintf(w, "tune: [%d/%d] round %d/%d, %d procs, %s: %s (about %v left)\n", i, n, job.round+1, rounds, job.np, label, status, left)
}

// absPath is filepath.Abs, keeping p on error.
func absPath(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}

// sortedKeys returns m's keys sorted.
func sortedKeys[V any](m map[string]V) []string {
	k := make([]string, 0, len(m))
	for s := range m {
		k = append(k, s)
	}
	slices.Sort(k)
	return k
}
