package cli

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mpbench/mpbench/app/hostblas"
	"github.com/mpbench/mpbench/result"
	"github.com/mpbench/mpbench/result/rowfile"
)

// TestAppMatmulE2E runs the matrix product on 4 ranks through the
// launcher, over TCP, and checks the printed verification, the time split,
// the JSON row and the --trace file, with a CPU load thread in every rank
// (--load 1, named in the report and the metadata).
func TestAppMatmulE2E(t *testing.T) {
	dir := t.TempDir()
	jsonPath, tracePath := filepath.Join(dir, "mm.jsonl"), filepath.Join(dir, "spans.csv")
	cmd, out, errb := e2eCmd(t, "app", "matmul", "-n", "120", "-np", "4", "--transport", "tcp", "--square", "--json", jsonPath, "--trace", tracePath, "--load", "1")
	if err := cmd.Run(); err != nil {
		t.Fatalf("exit %d: %v\n%s%s", exitCode(err), err, out, errb)
	}
	text := out.String()
	for _, want := range []string{"Verification    =               SUCCESSFUL", "Process grid    =                    2 x 2", "Transport       =                      tcp", "A x A",
		" Trace (milliseconds", "      3 Bcast(col)         2 ", "CPU load        =        1 thread per rank"} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q:\n%s", want, text)
		}
	}
	run := readOneRun(t, jsonPath)
	if len(run.Rows) != 1 || run.Aborted {
		t.Fatalf("JSON: %+v", run)
	}
	if got := run.Meta.Options["load"]; got != "1" {
		t.Errorf("options.load %q, want 1", got)
	}
	row := run.Rows[0]
	if row.Benchmark != "matmul" || row.Processes != 4 || row.Bytes != 120 || row.Extra["verified"] != 1 {
		t.Errorf("row %+v", row)
	}
	if c, m := row.Extra["compute_avg_s"], row.Extra["comm_avg_s"]; !(c > 0) || !(m > 0) || c+m > row.TAvg/1e6*1.001+1e-6 {
		t.Errorf("mean time split compute %g s + comm %g s against the mean total %g usec", c, m, row.TAvg)
	}
	// 2 x 2 grid: per rank 2 row and 2 column Bcasts of a 60 x 60 block
	// and 2 local products.
	spans, err := os.ReadFile(tracePath)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(spans)), "\n")
	if len(lines) != 1+4*6 || lines[0] != "rank,seq,op,group,bytes,start_s,wall_s,cpu_s,run_delay_s,others_computing_s,sleeps" {
		t.Fatalf("trace file: %d lines, header %q", len(lines), lines[0])
	}
	kinds := map[string]int{}
	for _, l := range lines[1:] {
		f := strings.Split(l, ",")
		kinds[f[0]+" "+f[2]+" "+f[3]+" "+f[4]]++
		// sleeps: a count of blocking waits, a whole number >= 0
		if n, err := strconv.ParseFloat(f[10], 64); err != nil || n < 0 || n != math.Trunc(n) {
			t.Errorf("span %q: sleeps %q, want a whole number >= 0", l, f[10])
		}
	}
	for r := range 4 {
		for _, k := range []string{"Bcast row 28800", "Bcast col 28800", "gemm  0"} {
			if n := kinds[fmt.Sprint(r)+" "+k]; n != 2 {
				t.Errorf("rank %d: %d spans %q, want 2 (trace %v)", r, n, k, kinds)
			}
		}
	}
}

// TestAppBadInput checks that bad options exit 2 with one line.
func TestAppBadInput(t *testing.T) {
	for _, args := range [][]string{
		{"app", "matmul", "-n", "0"},
		{"app", "matmul", "-n", "3", "-np", "4"},
		{"app", "matmul", "--load", "-1"},
		{"app", "matmul", "--transport", "ib"},
		{"app", "matmul", "--trace", "-"},
		{"app", "matmul", "--blas", "mkl"},
		{"app", "matmul", "--blas-threads", "-1"},
		{"app", "matmul", "-n", "1000000", "-np", "2"}, // 37 TiB: refused before any rank starts
	} {
		cmd, out, errb := e2eCmd(t, args...)
		cmd.Dir = t.TempDir()
		err := cmd.Run()
		if exitCode(err) != ExitUsage || strings.Count(errb.String(), "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q, stdout %q", args, exitCode(err), errb, out)
		}
		if ents, _ := os.ReadDir(cmd.Dir); len(ents) != 0 {
			t.Errorf("%v left %v", args, ents)
		}
	}
}

// TestAppMatmulBLAS checks the BLAS choice end to end: --blas openblas
// with a library that does not load exits 2 with one line naming it and
// the package to install; auto with it runs on gonum and says so; auto
// with the default libraries names OpenBLAS, one thread and the file
// (where OpenBLAS is installed; CI requires it). Each run's --json and
// --csv files, read back, name the same BLAS in their metadata.
func TestAppMatmulBLAS(t *testing.T) {
	const missing = "libmpbench-no-such-blas.so.0"
	cmd, out, errb := e2eCmd(t, "app", "matmul", "-n", "40", "-np", "2", "--blas", "openblas", "--blas-lib", missing)
	err := cmd.Run()
	if msg := errb.String(); exitCode(err) != ExitUsage || strings.Count(msg, "\n") != 1 || !strings.Contains(msg, "--blas openblas: no OpenBLAS shared library loaded ("+missing) ||
		!strings.Contains(msg, "apt-get install libopenblas0") || out.Len() != 0 {
		t.Errorf("--blas openblas without the library: exit %d, stderr %q, stdout %q", exitCode(err), msg, out)
	}
	dir := t.TempDir()
	for i, tc := range []struct {
		args []string
		want string
		info func(info map[string]string) bool // the files' metadata
	}{
		{[]string{"--blas-lib", missing}, "Local products  = gonum (pure Go); no OpenBLAS library loaded\n", func(info map[string]string) bool {
			return info["blas"] == "gonum" && positive(info["blas_threads"]) && info["blas_fallback"] == "no OpenBLAS library loaded" && info["blas_library"] == ""
		}},
		{[]string{"--blas", "gonum"}, "Local products  =          gonum (pure Go)\n", func(info map[string]string) bool {
			return info["blas"] == "gonum" && positive(info["blas_threads"]) && info["blas_fallback"] == "" && info["blas_library"] == ""
		}},
		{nil, "Local products  = OpenBLAS ", func(info map[string]string) bool {
			return strings.HasPrefix(info["blas"], "OpenBLAS ") && info["blas_threads"] == "1" && filepath.IsAbs(info["blas_library"]) &&
				strings.HasPrefix(info["blas_config"], info["blas"])
		}},
		{[]string{"--blas", "openblas", "--blas-threads", "2"}, "cblas_dgemm, 2 threads, /", func(info map[string]string) bool {
			return strings.HasPrefix(info["blas"], "OpenBLAS ") && info["blas_threads"] == "2" && filepath.IsAbs(info["blas_library"])
		}},
	} {
		if strings.HasPrefix(tc.want, "Local products  = OpenBLAS") || strings.Contains(tc.want, "cblas_dgemm") {
			if os.Getenv("MPBENCH_REQUIRE_OPENBLAS") != "1" {
				if _, err := hostblas.Open(hostblas.DefaultLibraries, 1); err != nil {
					continue // no OpenBLAS on this host: auto is gonum, checked above
				}
			}
		}
		jsonPath, csvPath := filepath.Join(dir, fmt.Sprintf("mm%d.jsonl", i)), filepath.Join(dir, fmt.Sprintf("mm%d.csv", i))
		cmd, out, errb := e2eCmd(t, append([]string{"app", "matmul", "-n", "40", "-np", "2", "--json", jsonPath, "--csv", csvPath}, tc.args...)...)
		if err := cmd.Run(); err != nil {
			t.Fatalf("%v: exit %d: %v\n%s%s", tc.args, exitCode(err), err, out, errb)
		}
		if !strings.Contains(out.String(), tc.want) || !strings.Contains(out.String(), "SUCCESSFUL") {
			t.Errorf("%v: output lacks %q or SUCCESSFUL:\n%s", tc.args, tc.want, out)
		}
		if tc.args == nil && !strings.Contains(out.String(), "cblas_dgemm, 1 thread, /") {
			t.Errorf("default BLAS line should name one thread and the library's path:\n%s", out)
		}
		for _, rd := range []struct {
			path string
			read func(io.Reader, string) ([]result.Run, error)
		}{{jsonPath, rowfile.ReadJSONL}, {csvPath, rowfile.ReadCSV}} {
			data, err := os.ReadFile(rd.path)
			if err != nil {
				t.Fatal(err)
			}
			runs, err := rd.read(bytes.NewReader(data), rd.path)
			if err != nil || len(runs) != 1 || len(runs[0].Rows) != 1 || runs[0].Rows[0].Benchmark != "matmul" {
				t.Fatalf("%v: %s: %v, runs %+v", tc.args, rd.path, err, runs)
			}
			if info := runs[0].Meta.Info; !tc.info(info) {
				t.Errorf("%v: %s: metadata blas %q, blas_threads %q, blas_library %q, blas_config %q, blas_fallback %q do not name the BLAS of %q",
					tc.args, filepath.Base(rd.path), info["blas"], info["blas_threads"], info["blas_library"], info["blas_config"], info["blas_fallback"], tc.want)
			}
		}
	}
}

// positive reports whether s is a decimal integer >= 1.
func positive(s string) bool {
	n, err := strconv.Atoi(s)
	return err == nil && n >= 1
}

// TestAppNPBE2E runs EP and FT class S on 2 ranks over shared memory and
// checks NPB's verification line and exit status 0.
func TestAppNPBE2E(t *testing.T) {
	for _, args := range [][]string{
		{"app", "ep", "--class", "S", "-np", "2", "--transport", "shm"},
		{"app", "ft", "--class", "S", "-np", "2", "--transport", "shm"},
	} {
		cmd, out, errb := e2eCmd(t, args...)
		if err := cmd.Run(); err != nil {
			t.Fatalf("%v: exit %d: %v\n%s%s", args, exitCode(err), err, out, errb)
		}
		if !strings.Contains(out.String(), "Verification    =               SUCCESSFUL") || !strings.Contains(out.String(), "Total processes =                        2") {
			t.Errorf("%v:\n%s", args, out)
		}
	}
	cmd, _, errb := e2eCmd(t, "app", "ft", "--class", "S", "-np", "3")
	if err := cmd.Run(); exitCode(err) != ExitUsage || !strings.Contains(errb.String(), "dividing 64") {
		t.Errorf("FT on 3 ranks: exit %d, %s", exitCode(err), errb)
	}
}
