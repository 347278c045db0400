// Package corpustest locates the shared corpus of real IMB and OSU output
// files for the readers' tests. The corpus lives beside the repository
// (../shared/corpus/raw from the module root), as in CI; tests that need
// it are skipped with a message when it is absent.
package corpustest

import (
	"os"
	"path/filepath"
	"testing"
)

// Dir returns the corpus directory of raw output files, or skips t when it
// cannot be found.
func Dir(t testing.TB) string {
	t.Helper()
	root, err := moduleRoot()
	if err == nil {
		dir := filepath.Join(root, "..", "shared", "corpus", "raw")
		if st, err := os.Stat(dir); err == nil && st.IsDir() {
			return dir
		}
	}
	t.Skip("corpus not found: expected ../shared/corpus/raw beside the module root (it holds the real IMB/OSU files)")
	return ""
}

// Read returns the contents of corpus file name, or skips t when the
// corpus is absent.
func Read(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(Dir(t), name))
	if err != nil {
		t.Fatalf("corpus file: %v", err)
	}
	return data
}

// moduleRoot walks up from the working directory to the directory holding
// go.mod.
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
