package cli

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mpbench/mpbench/tune"
)

// verifyRounds is the default number of rounds of --verify: with 5
// rounds each, two configurations that perform alike are called different
// beyond noise (every round of one below every round of the other) at
// about 1 point in 126.
const verifyRounds = 5

// runTuneVerify runs the tuned configuration of DIR against the default in
// interleaved rounds and reports the speedup at every point.
func runTuneVerify(cmd *cobra.Command, f *tuneFlags) error {
	dir := f.verify
	m, err := readTuneManifest(dir)
	if err != nil {
		return err
	}
	lib, r, err := newTuneRunner(m.Transport, &f.hosts, m.Iter, m.Time, filepath.Join(dir, ".verify.jsonl"))
	if err != nil {
		return err
	}
	r.sizes = filepath.Join(dir, "sizes.txt")
	rules := filepath.Join(dir, m.RulesFile)
	if _, err := os.Stat(rules); err != nil {
		return tuneDirError(dir, m.RulesFile, err)
	}
	dec, err := readDecisions(dir)
	if err != nil {
		return err
	}
	rounds := verifyRounds
	if cmd.Flags().Changed("rounds") {
		rounds = f.rounds
	}
	if rounds < 2 {
		return usageErrorf("--rounds %d: the verdict needs the spread of at least 2 rounds", rounds)
	}
	ctx, stop := notifyInterrupt(context.Background())
	defer stop()
	defer os.Remove(r.tmp)
	targs, tenv := lib.tuned(dir)
	var jobs []tuneJob
	for round := 0; round < rounds; round++ {
		for _, np := range m.Procs {
			def := tuneJob{np: np, round: round, Job: tune.Job{Label: "default", Colls: m.Colls}}
			tuned := tuneJob{np: np, round: round, Job: tune.Job{Label: "tuned (" + m.RulesFile + ")", Colls: m.Colls,
				Configs: map[string]tune.Config{}}, args: targs, env: tenv}
			for _, c := range m.Colls {
				tuned.Configs[c] = tune.Tuned
			}
			// Alternate which goes first, so that neither always runs on a
			// machine the other has just warmed up.
			if round%2 == 0 {
				jobs = append(jobs, def, tuned)
			} else {
				jobs = append(jobs, tuned, def)
			}
		}
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "tune --verify: %s, %d jobs: %d rounds of default and tuned on %s processes\n",
		lib.describe(), len(jobs), rounds, joinInts(m.Procs))
	set := tune.NewPointSet(tuneBench)
	start := time.Now()
	for i, job := range jobs {
		t0 := time.Now()
		rows, err := r.run(ctx, job)
		if ctx.Err() != nil {
			return err
		}
		if err != nil {
			progressLine(cmd.ErrOrStderr(), i+1, len(jobs), job, rounds, time.Since(t0), time.Since(start), err)
			return fmt.Errorf("verification job failed: %w", err)
		}
		set.Add(job.np, job.Colls, job.Configs, rows)
		progressLine(cmd.ErrOrStderr(), i+1, len(jobs), job, rounds, time.Since(t0), time.Since(start), nil)
	}
	loaded := ""
	if lc, ok := lib.(loadChecker); ok {
		if loaded, err = lc.loadCheck(ctx, r, dir, m, dec.Tables); err != nil {
			return err
		}
	}
	vps := tune.Verify(set.Points(), dec.Tables, m.MinGain)
	if err := writeTuneJSON(dir, "verify.json", vps); err != nil {
		return err
	}
	var b strings.Builder
	slower := printVerify(&b, vps)
	if loaded != "" {
		fmt.Fprintln(&b, loaded)
	}
	fmt.Fprint(cmd.OutOrStdout(), b.String())
	if slower > 0 {
		return fmt.Errorf("the tuned configuration is slower than the default beyond noise at %d points (marked SLOWER above)", slower)
	}
	return nil
}

// readDecisions reads DIR/decisions.json (readTuneFile).
func readDecisions(dir string) (tuneDecisions, error) {
	var d tuneDecisions
	return d, readTuneFile(dir, "decisions.json", &d)
}

// printVerify prints the verification table and returns the number of
// points where the tuned configuration is slower beyond noise.
func printVerify(b *strings.Builder, vps []tune.VerifyPoint) int {
	fmt.Fprintf(b, "%-12s %5s %9s  %-28s %22s %22s %8s  %s\n", "collective", "procs", "bytes", "rule", "default usec", "tuned usec", "speedup", "verdict")
	slower, faster, kept := 0, 0, 0
	for _, v := range vps {
		verdict := v.Verdict
		switch v.Verdict {
		case "slower":
			slower++
			verdict = "SLOWER beyond noise"
		case "faster":
			faster++
		case "default rule":
			kept++
			verdict = "same algorithm (default rule)"
		}
		fmt.Fprintf(b, "%-12s %5d %9d  %-28s %22s %22s %7.2fx  %s\n", v.Collective, v.Ranks, v.Bytes, v.Rule,
			statRange(v.Default), statRange(v.Tuned), v.Speedup, verdict)
	}
	fmt.Fprintf(b, "\n%d points: tuned faster beyond noise at %d, slower at %d, the same within noise at %d; %d kept the default algorithm.\n",
		len(vps), faster, slower, len(vps)-faster-slower-kept, kept)
	fmt.Fprintln(b, "usec: median [fastest..slowest round] of IMB's t_max; speedup = default median / tuned median.")
	return slower
}

// statRange is "12.3 [11.0..13.1]", or "failed" without a finite median.
func statRange(s tune.Stats) string {
	if math.IsNaN(s.Median) || math.IsInf(s.Median, 0) {
		return "failed"
	}
	return fmt.Sprintf("%.4g [%.4g..%.4g]", s.Median, s.Min, s.Max)
}
