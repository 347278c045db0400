package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mpbench/mpbench/result"
	"github.com/mpbench/mpbench/tune"
)

// tuneLibraryFor returns the runtime --transport selects: mpbench's own,
// or the linked MPI library (usage errors when this binary has none or the
// library's controls are missing).
func tuneLibraryFor(transport string, h *hostFlags) (tuneLibrary, error) {
	if a := h.runArgs(); len(a) > 0 && transport == "mpi" {
		return nil, usageErrorf("%s places mpbench's own ranks; with --transport mpi the MPI library's launcher places them (give it the hosts, e.g. through its hostfile)", a[0])
	}
	switch {
	case checkTransport(transport, false) == nil: // auto or a launchable transport
		return mpbenchRuntime{transport: transport}, nil
	case transport == "mpi":
		switch tuneFlavor {
		case "":
			return nil, usageErrorf("tune --transport mpi needs a binary built with -tags mpi (Open MPI) or -tags mpi,mpich (MPICH)")
		case "openmpi":
			return newOMPILibrary()
		}
		return newMPICHLibrary()
	}
	return nil, checkTransport(transport, true) // the same line as run's
}

// newTuneRunner returns the runtime transport selects (tuneLibraryFor) and
// a runner of its measuring jobs on h's hosts with IMB's -iter and -time,
// each job writing its rows to tmp, which the caller removes; the caller
// sets the runner's -msglen file.
func newTuneRunner(transport string, h *hostFlags, iter string, seconds float64, tmp string) (tuneLibrary, *tuneRunner, error) {
	lib, err := tuneLibraryFor(transport, h)
	if err != nil {
		return nil, nil, err
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, nil, err
	}
	return lib, &tuneRunner{exe: exe, transport: transport, iter: iter, time: seconds, tmp: tmp, hostArgs: h.runArgs()}, nil
}

// tuneFlavor is the MPI library this binary is built against ("openmpi",
// "mpich"), "" without MPI support; set by tune_mpi.go.
var tuneFlavor string

// runTune measures every configuration in interleaved rounds, decides and
// writes the tuning files.
func runTune(cmd *cobra.Command, f *tuneFlags, inv *invocation) error {
	p, err := f.plan()
	if err != nil {
		return err
	}
	lib, r, err := newTuneRunner(f.transport, &f.hosts, p.iter, p.time, filepath.Join(p.dir, ".job.jsonl"))
	if err != nil {
		return err
	}
	if r.sizes, err = p.sizesFile(); err != nil {
		return err
	}
	ctx, stop := notifyInterrupt(context.Background())
	defer stop()
	defer os.Remove(r.tmp)
	var jobs []tuneJob
	for round := 0; round < p.rounds; round++ {
		for _, np := range p.procs {
			js, err := tuneJobs(lib, p, np, round)
			if err != nil {
				return err
			}
			jobs = append(jobs, js...)
		}
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "tune: %s, %d jobs: %d rounds of %s on %s processes, %d sizes\n",
		lib.describe(), len(jobs), p.rounds, strings.Join(p.colls, ","), joinInts(p.procs), len(p.sizes))
	set := tune.NewPointSet(tuneBench)
	start := time.Now()
	failed, failedDefault := 0, 0
	leftOut := map[string]bool{}
	for i := 0; i < len(jobs); i++ {
		job := jobs[i]
		t0 := time.Now()
		rows, err := r.run(ctx, job)
		if ctx.Err() != nil {
			_ = writeTuneJSON(p.dir, "points.json", tune.JSONPoints(set.Points()))
			return fmt.Errorf("%w (the points of %d finished jobs are in %s)", err, i, filepath.Join(p.dir, "points.json"))
		}
		if err != nil && len(job.Colls) > 1 && len(job.Configs) > 0 {
			// Run its collectives one by one, so that one configuration
			// that cannot run does not lose the others.
			rest := append(forced(lib, job.Alone(), job.np, job.round), jobs[i+1:]...)
			jobs = append(jobs[:i+1], rest...)
		}
		if err != nil {
			failed++
			if len(job.Configs) == 0 {
				failedDefault++
			} else if len(job.Colls) == 1 {
				c := job.Colls[0]
				leftOut[c+"="+job.Configs[c].String()] = true
			}
		} else {
			set.Add(job.np, job.Colls, job.Configs, rows)
		}
		progressLine(cmd.ErrOrStderr(), i+1, len(jobs), job, p.rounds, time.Since(t0), time.Since(start), err)
		if err := writeTuneJSON(p.dir, "points.json", tune.JSONPoints(set.Points())); err != nil {
			return err
		}
	}
	if r.meta == nil {
		return fmt.Errorf("tune: no measuring job succeeded (the first failure is above)")
	}
	tables, err := tune.Decide(set.Points(), tune.Options{MinGain: p.minGain, Default: lib.ownDefault})
	if err != nil {
		return err
	}
	cpu, cores := r.meta.Info["cpu"], r.meta.Info["cores"]
	date := start.UTC().Format(time.RFC3339)
	header := tuneHeader(lib, p, measuredOn(*r.meta), cpu, cores, date, inv.commandLine())
	rules := filepath.Join(p.dir, lib.rulesFile())
	if err := lib.write(rules, header, tables); err != nil {
		return err
	}
	m := tuneManifest{Runtime: lib.describe(), Transport: f.transport, Colls: p.colls, Procs: p.procs, Sizes: p.sizes,
		Segments: p.segments, Rounds: p.rounds, MinGain: p.minGain, Iter: p.iter, Time: p.time, RulesFile: lib.rulesFile(),
		Host: r.meta.Host, RankHosts: r.meta.Info["rank_hosts"], Date: date, Command: inv.commandLine(), Header: header}
	if err := writeTuneJSON(p.dir, "tune.json", m); err != nil {
		return err
	}
	if err := writeTuneJSON(p.dir, "decisions.json", tuneDecisions{Manifest: m, Tables: tables}); err != nil {
		return err
	}
	var b strings.Builder
	printTuneSummary(&b, tables)
	fmt.Fprint(cmd.OutOrStdout(), b.String())
	fmt.Fprintf(cmd.OutOrStdout(), "\nwrote %s (tuning file), decisions.json, points.json in %s; %d jobs in %v\n",
		lib.rulesFile(), p.dir, len(jobs), time.Since(start).Round(time.Second))
	if len(leftOut) > 0 {
		fmt.Fprintf(cmd.OutOrStdout(), "left out (failed on their own, messages above): %s\n", strings.Join(sortedKeys(leftOut), ", "))
	}
	if failedDefault > 0 {
		return fmt.Errorf("%d of %d measuring jobs failed, %d of them the default's (named above)", failed, len(jobs), failedDefault)
	}
	return nil
}

// tuneDecisions is DIR/decisions.json: how the tuning was measured and
// the decision per collective and process count.
type tuneDecisions struct {
	Manifest tuneManifest `json:"tuning"`
	Tables   []tune.Table `json:"tables"`
}

// readTuneManifest reads DIR/tune.json (readTuneFile).
func readTuneManifest(dir string) (tuneManifest, error) {
	var m tuneManifest
	return m, readTuneFile(dir, "tune.json", &m)
}

// readTuneFile reads the JSON file name of a directory 'mpbench tune -o
// DIR' wrote into v; a missing or bad one is a usage error naming
// --verify and the file: "--verify DIR: decisions.json: no such file or
// directory; give the directory 'mpbench tune -o DIR' wrote".
func readTuneFile(dir, name string, v any) error {
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err == nil {
		err = json.Unmarshal(b, v)
	}
	if err != nil {
		return tuneDirError(dir, name, err)
	}
	return nil
}

// tuneDirError is the usage error of a file of a tuning directory (--verify
// DIR) that is missing or bad, in readTuneFile's words.
func tuneDirError(dir, name string, err error) error {
	return usageErrorf("--verify %s: %s: %v; give the directory 'mpbench tune -o DIR' wrote", dir, name, unwrapPath(err))
}

// measuredOn names where a job ran: its host, or, when its ranks ran on
// several hosts (--hostfile, testbed tune), those hosts in rank order of
// first appearance, "3 hosts: n1, n2, n3".
func measuredOn(m result.Meta) string {
	var hosts []string
	for _, h := range strings.Split(m.Info["rank_hosts"], ",") {
		if h != "" && !slices.Contains(hosts, h) {
			hosts = append(hosts, h)
		}
	}
	if len(hosts) < 2 {
		return m.Host
	}
	return fmt.Sprintf("%d hosts: %s", len(hosts), strings.Join(hosts, ", "))
}
