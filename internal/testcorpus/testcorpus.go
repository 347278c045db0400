// Package testcorpus locates the data files mpbench's tests read. They live
// inside the module, in its top-level testdata folder (testdata/README.md
// names the source of each file):
//
//   - testdata/corpus: real IMB and OSU output files from public repositories;
//   - testdata/reference: the study's tables, transcribed as CSV;
//   - testdata/classes: files written for the tests, one per class of input.
//
// A test that cannot find its data fails; it never skips.
package testcorpus

import (
	"os"
	"path/filepath"
	"testing"
)

// Dir returns the directory of the corpus of real IMB and OSU output files
// (testdata/corpus under the module root). It fails t when the directory is
// missing.
func Dir(t testing.TB) string {
	t.Helper()
	return dataDir(t, "corpus")
}

// Path returns the path of corpus file name, failing t when it is missing.
func Path(t testing.TB, name string) string {
	t.Helper()
	return file(t, Dir(t), name)
}

// Matching returns the contents of every corpus file whose name matches
// the filepath.Match pattern (e.g. "*-imb*.txt"), in name order, failing t
// when none matches or one cannot be read: the seeds of the readers' fuzz
// targets.
func Matching(t testing.TB, pattern string) [][]byte {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(Dir(t), pattern))
	if err != nil || len(names) == 0 {
		t.Fatalf("no corpus file matches %q: %v", pattern, err)
	}
	out := make([][]byte, 0, len(names))
	for _, name := range names {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, data)
	}
	return out
}

// Read returns the contents of corpus file name, failing t when it cannot
// be read.
func Read(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(Path(t, name))
	if err != nil {
		t.Fatalf("corpus file: %v", err)
	}
	return data
}

// Reference returns the path of the study's reference table name (a CSV
// under testdata/reference), failing t when it is missing.
func Reference(t testing.TB, name string) string {
	t.Helper()
	return file(t, dataDir(t, "reference"), name)
}

// Class returns the path of file name under testdata/classes: output
// files written for the tests, one per class of input the analysis must
// tell apart (testdata/README.md), failing t when it is missing.
func Class(t testing.TB, name string) string {
	t.Helper()
	return file(t, dataDir(t, "classes"), name)
}

// dataDir returns testdata/sub under the module root.
func dataDir(t testing.TB, sub string) string {
	t.Helper()
	root, err := moduleRoot()
	if err != nil {
		t.Fatalf("test data: no go.mod above the working directory: %v", err)
	}
	dir := filepath.Join(root, "testdata", sub)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		t.Fatalf("test data: %s is missing; it is part of the repository (git checkout -- testdata)", dir)
	}
	return dir
}

// file returns dir/name, failing t when it does not exist.
func file(t testing.TB, dir, name string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("test data: %v", err)
	}
	return p
}

// moduleRoot walks up from the working directory (a test's package
// directory) to the directory holding go.mod.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", os.ErrNotExist
		}
		dir = parent
	}
}
