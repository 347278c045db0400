package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/mpbench/mpbench/result"
	"github.com/mpbench/mpbench/result/imb"
	"github.com/mpbench/mpbench/result/rowfile"
	"github.com/mpbench/mpbench/transport/shm"
)

// outcome is what one fault showed; each field but the first counts a
// defect of mpbench.
type outcome struct {
	endSec      float64 // seconds from the fault to the launcher's end
	boundSec    float64 // the bound for this fault, seconds
	lagSec      float64 // this process's timer lag over the job's end (lagMeter), seconds
	waitSec     float64 // the job's processes' wait for a CPU over its end (waitMeter), seconds
	hang        bool    // the job did not end within the bound plus the load's delay, or the ceiling
	orphans     int     // processes of the job alive after the launcher ended
	segments    int     // shared-memory segments of the job left in /dev/shm
	lostRows    int     // rows printed before the fault missing from the JSON or CSV file
	misnamed    bool    // the launcher's line names another rank or cause
	wrongStatus bool    // the exit status is not the documented one
	badEnd      bool    // a result file lacks an end record naming the fault
	noisy       bool    // stderr has more than the launcher's one line
	notes       []string
}

// defect reports whether o counts anything against mpbench.
func (o outcome) defect() bool {
	return o.hang || o.orphans > 0 || o.segments > 0 || o.lostRows > 0 || o.misnamed || o.wrongStatus || o.badEnd || o.noisy
}

func (o *outcome) notef(format string, a ...any) {
	o.notes = append(o.notes, fmt.Sprintf(format, a...))
}

// checkProcesses counts the job's processes still alive now that the
// launcher has ended: the ranks it started and any process holding the
// job's secret in its environment; it kills them.
func checkProcesses(r *runner, j *job, o *outcome) {
	if j.f.kind == killLauncher {
		// The ranks get SIGKILL from the kernel as the launcher dies
		// (parent-death signal); give them 2 s to be gone, plus what they
		// wait for a CPU meanwhile (dying takes a turn on one), up to the
		// ceiling.
		var pids []int
		for _, p := range j.ranks {
			pids = append(pids, p.pid)
		}
		cpu := newWaitMeter(pids)
		for start := time.Now(); anyAlive(j.ranks); time.Sleep(20 * time.Millisecond) {
			if el := time.Since(start); el > 2*time.Second+cpu.sample(pids) || el > r.ceiling {
				break
			}
		}
	}
	left := map[proc]bool{}
	for _, p := range j.ranks {
		if p.alive() {
			left[p] = true
		}
	}
	if j.secret != "" {
		for _, p := range withEnv("MPBENCH_SECRET", j.secret) {
			left[p] = true
		}
	}
	for p := range left {
		o.orphans++
		o.notef("process %d of the job still runs after the launcher ended", p.pid)
		killProc(p)
	}
}

func anyAlive(ps []proc) bool {
	for _, p := range ps {
		if p.alive() {
			return true
		}
	}
	return false
}

// checkSegments counts the job's shared-memory segments left in /dev/shm
// (on the hybrid job's second host they live in a private /dev/shm that
// ends with its namespace) and removes them. After a SIGKILL of the
// launcher during start-up, the ranks die with it before unlinking their
// segments, and the promise is that the next job removes them once they
// are older than shm.StaleAge: those are aged and a job is run (r.sweep)
// before counting.
func checkSegments(r *runner, j *job, o *outcome) {
	if j.secret == "" {
		return
	}
	prefix := shm.JobPrefix([]byte(j.secret))
	if left := segments(shm.DefaultDir, prefix); len(left) > 0 && j.f.kind == killLauncher {
		old := time.Now().Add(-2 * shm.StaleAge)
		for _, s := range left {
			os.Chtimes(s, old, old)
		}
		o.notef("%d segments left by the killed job, removed by the next: %v", len(left), r.sweep())
	}
	for _, s := range segments(shm.DefaultDir, prefix) {
		o.segments++
		o.notef("segment %s left", s)
		os.Remove(s)
	}
}

// rowKey identifies a row of a run.
type rowKey struct {
	bench              string
	processes, group   int
	bytes, repetitions int64
}

func keyOf(r result.Row) rowKey {
	return rowKey{r.Benchmark, r.Processes, r.Group, r.Bytes, r.Repetitions}
}

// printedRows are the table rows of IMB text (complete lines only).
func printedRows(text []byte) ([]result.Row, error) {
	runs, err := imb.Parse(text, "stdout")
	if errors.Is(err, imb.ErrNotIMB) {
		return nil, nil // nothing printed yet
	}
	if err != nil {
		return nil, err
	}
	var rows []result.Row
	for _, r := range runs {
		rows = append(rows, r.Rows...)
	}
	return rows, nil
}

// missingRows counts the rows of want that are not in have (as multisets).
func missingRows(want, have []result.Row) int {
	n := map[rowKey]int{}
	for _, r := range have {
		n[keyOf(r)]++
	}
	missing := 0
	for _, r := range want {
		k := keyOf(r)
		if n[k] > 0 {
			n[k]--
		} else {
			missing++
		}
	}
	return missing
}

// checkFiles compares the rows printed before the fault with the JSON
// Lines and CSV files and checks that each ends with an end record naming
// the fault. A file may be absent or empty only when nothing was printed.
func checkFiles(j *job, before []result.Row, o *outcome) {
	for _, f := range []struct {
		path string
		csv  bool
	}{{j.jsonPath, false}, {j.csvPath, true}} {
		b, err := os.ReadFile(f.path)
		if len(bytes.TrimSpace(b)) == 0 {
			if len(before) > 0 {
				o.lostRows += len(before)
				o.badEnd = j.f.kind != killLauncher
				o.notef("%s: %v, but %d rows were printed", f.path, orEmpty(err), len(before))
			}
			continue
		}
		var runs []result.Run
		if f.csv {
			runs, err = rowfile.ReadCSV(bytes.NewReader(b), f.path)
		} else {
			runs, err = rowfile.ReadJSONL(bytes.NewReader(b), f.path)
		}
		var have []result.Row
		for _, r := range runs {
			have = append(have, r.Rows...)
		}
		if err != nil {
			o.notef("%s: %v", f.path, err)
		}
		if n := missingRows(before, have); n > 0 {
			o.lostRows += n
			o.notef("%s: %d of the %d rows printed before the fault are missing", f.path, n, len(before))
		}
		if j.f.kind == killLauncher {
			continue // no process is left to write an end record
		}
		status, msg := endRecord(b, f.csv)
		if status != "failed" || !namesFault(msg, j.f) {
			o.badEnd = true
			o.notef("%s: end record %q %q does not name the fault (%s)", f.path, status, msg, j.f.cause())
		}
	}
}

func orEmpty(err error) string {
	if err != nil {
		return err.Error()
	}
	return "empty"
}

// endRecord returns the status and error of a result file's end record,
// or "" when its last line is none.
func endRecord(b []byte, csv bool) (status, msg string) {
	lines := bytes.Split(bytes.TrimRight(b, "\n"), []byte("\n"))
	last := string(bytes.TrimSpace(lines[len(lines)-1]))
	if csv {
		rest, ok := strings.CutPrefix(last, "# end=")
		if !ok {
			return "", ""
		}
		status, msg, _ = strings.Cut(rest, ": ")
		return status, msg
	}
	var e struct{ Type, Status, Error string }
	if json.Unmarshal([]byte(last), &e) != nil || e.Type != "end" {
		return "", ""
	}
	return e.Status, e.Error
}

var rankRe = regexp.MustCompile(`\brank (\d+)\b`)

// namesFault reports whether msg names f's cause and, for a rank fault,
// names the rank hit first.
func namesFault(msg string, f fault) bool {
	if !strings.Contains(msg, f.cause()) {
		return false
	}
	if !f.kind.death() {
		return true
	}
	m := rankRe.FindStringSubmatch(msg)
	return m != nil && m[1] == strconv.Itoa(f.rank)
}

// checkReport checks the launcher's exit status and its stderr: one line
// naming the fault.
func checkReport(j *job, o *outcome) {
	if j.status != j.f.expectedStatus() {
		o.wrongStatus = true
		o.notef("exit status %d, want %d", j.status, j.f.expectedStatus())
	}
	if j.f.kind == killLauncher {
		return // killed, it prints nothing
	}
	text := strings.TrimRight(j.stderr.String(), "\n")
	lines := strings.Split(text, "\n")
	if !namesFault(lines[0], j.f) {
		o.misnamed = true
		o.notef("launcher said %q", lines[0])
	}
	if len(lines) > 1 {
		o.noisy = true
		o.notef("stderr has %d lines: %q", len(lines), text)
	}
}
