package cli

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mpbench/mpbench/coll"
	"github.com/mpbench/mpbench/result/imb"
)

// TestE2ECollectives runs "mpbench run -np 4 Bcast Allreduce Alltoall"
// as a user would: IMB blocks for each, the algorithm in every header and
// row (default table, then --coll), and readable by the IMB reader.
func TestE2ECollectives(t *testing.T) {
	for _, tc := range []struct {
		coll string
		want map[string]string // benchmark -> "# Algorithm:" value
	}{
		{"", map[string]string{
			"Bcast":     "binomial",
			"Allreduce": "recursive_doubling (0-2048 bytes), rabenseifner (4096-4096 bytes)",
			"Alltoall":  "linear",
		}},
		{"bcast=binomial,allreduce=ring,alltoall=pairwise", map[string]string{
			"Bcast": "binomial", "Allreduce": "ring", "Alltoall": "pairwise",
		}},
	} {
		t.Run("coll="+tc.coll, func(t *testing.T) {
			jf := filepath.Join(t.TempDir(), "c.jsonl")
			args := []string{"run", "-np", "4", "-npmin", "4", "-msglog", "0:12", "-iter", "20", "-time", "0.5", "--all-sizes",
				"-check", "Bcast", "Allreduce", "Alltoall", "--json", jf, "--timeout", "120s"}
			if tc.coll != "" {
				args = append(args, "--coll", tc.coll)
			}
			cmd, out, errb := e2eCmd(t, args...)
			if err := cmd.Run(); err != nil {
				t.Fatalf("run: %v\nstderr:\n%s", err, errb)
			}
			text := out.String()
			for name, alg := range tc.want {
				head := "# Benchmarking " + name + " \n# #processes = 4 \n# Algorithm: " + alg + "\n#---"
				if !strings.Contains(text, head) {
					t.Errorf("no block header %q in:\n%s", head, text)
				}
			}
			runs, err := imb.Read(strings.NewReader(text), "stdout")
			if err != nil || len(runs) != 1 || runs[0].Aborted || len(runs[0].Problems) != 0 {
				t.Fatalf("IMB reader: %v, %+v", err, runs)
			}
			// 0, 1, ..., 4096 for Bcast and Alltoall; 0, 4, ..., 4096 for Allreduce.
			if n := len(runs[0].Rows); n != 14+12+14 {
				t.Errorf("IMB reader: %d rows, want 40", n)
			}
			run := readOneRun(t, jf)
			for i, r := range run.Rows {
				want := tc.want[r.Benchmark]
				if r.Benchmark == "Allreduce" && tc.coll == "" {
					want = "recursive_doubling"
					if r.Bytes > 2048 {
						want = "rabenseifner"
					}
				}
				if r.Algorithm != want || runs[0].Rows[i].Algorithm != want {
					t.Errorf("%s %d bytes: algorithm %q in JSON, %q from the text; want %q", r.Benchmark, r.Bytes, r.Algorithm, runs[0].Rows[i].Algorithm, want)
				}
				if r.Defects != 0 {
					t.Errorf("%s %d bytes: %v defects", r.Benchmark, r.Bytes, r.Defects)
				}
			}
		})
	}
}

// TestCollFlags checks --show-algorithms and the usage errors of --coll
// and -root_shift.
func TestCollFlags(t *testing.T) {
	cmd, out, errb := e2eCmd(t, "run", "--show-algorithms", "--coll", "bcast=pipeline:seg=4096")
	if err := cmd.Run(); err != nil {
		t.Fatalf("--show-algorithms: %v\n%s", err, errb)
	}
	for _, want := range []string{"override: pipeline:seg=4096", "default (MPICH): recursive_doubling if bytes <= 2048",
		"Bcast                 8        pipeline:seg=4096", "Allreduce             65536    recursive_doubling  rabenseifner"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("--show-algorithms output lacks %q:\n%s", want, out)
		}
	}
	bcasts, _ := coll.AlgorithmNames("bcast")
	if !slices.Contains(bcasts, "binomial") {
		t.Fatalf("bcast's algorithms %v lack binomial", bcasts)
	}
	for _, tc := range []struct{ args, want string }{
		{"--coll bcast=fast", `unknown bcast algorithm "fast" (valid: ` + strings.Join(bcasts, ", ") + `, auto)`},
		{"--coll allreduce=ring:seg=8", "only seg=BYTES"},
		{"-root_shift maybe", "expected -root_shift 1 or -root_shift 0"},
	} {
		cmd, out, errb := e2eCmd(t, append([]string{"run", "-np", "2", "Bcast"}, strings.Fields(tc.args)...)...)
		err := cmd.Run()
		if code := exitCode(err); code != 2 || !strings.Contains(errb.String(), tc.want) || strings.Count(errb.String(), "\n") != 1 || out.Len() != 0 {
			t.Errorf("%s: exit %d, stderr %q: want exit 2 and one line containing %q", tc.args, code, errb, tc.want)
		}
	}
}

// TestE2ERedDataTypeChar runs the reductions with IMB's -red_data_type char
// (1-byte elements) and -check on 3 ranks over shared memory and TCP: the header names MPI_CHAR, every
// size from 0 to 32 bytes runs (a char element is 1 byte), no row has a
// defect, and the run's file records the option.
func TestE2ERedDataTypeChar(t *testing.T) {
	names := []string{"Allreduce", "Reduce", "Reduce_scatter", "Reduce_scatter_block"}
	for _, tr := range e2eTransports {
		t.Run(tr.name, func(t *testing.T) {
			jf := filepath.Join(t.TempDir(), "c.jsonl")
			args := append([]string{"run", "-np", "3", "-npmin", "3", "-msglog", "0:5", "-iter", "20", "-time", "0.5", "--all-sizes",
				"-red_data_type", "char", "-check", "--json", jf, "--timeout", "120s"}, tr.args...)
			cmd, out, errb := e2eCmd(t, append(args, names...)...)
			if err := cmd.Run(); err != nil {
				t.Fatalf("run: %v\nstderr:\n%s", err, errb)
			}
			text := out.String()
			if !strings.Contains(text, "# MPI_Datatype for reductions    :   MPI_CHAR \n") {
				t.Errorf("header does not name MPI_CHAR for reductions:\n%s", text)
			}
			for _, name := range names {
				if n := tableRows(text, name, "# #processes = 3 \n"); n != 7 {
					t.Errorf("%s: %d rows, want 7 (0, 1, 2, ..., 32 bytes):\n%s", name, n, text)
				}
			}
			run := readOneRun(t, jf)
			if len(run.Rows) != 7*len(names) {
				t.Fatalf("JSON: %d rows, want %d", len(run.Rows), 7*len(names))
			}
			if v := run.Meta.Options["red_data_type"]; v != "char" {
				t.Errorf("JSON options red_data_type %q, want char", v)
			}
			for _, r := range run.Rows {
				if r.Defects != 0 {
					t.Errorf("%s %d bytes: %v defects", r.Benchmark, r.Bytes, r.Defects)
				}
			}
		})
	}
}
