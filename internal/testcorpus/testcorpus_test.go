package testcorpus

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEveryFileHasItsSource checks that testdata/README.md and
// testdata/MANIFEST.tsv name the source of every data file, and that no row
// names a file that is not there.
func TestEveryFileHasItsSource(t *testing.T) {
	dir := Dir(t)
	manifest, err := os.ReadFile(filepath.Join(filepath.Dir(dir), "MANIFEST.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	sources := map[string]string{} // id -> repository
	for _, line := range strings.Split(strings.TrimSpace(string(manifest)), "\n")[1:] {
		f := strings.Split(line, "\t")
		if len(f) < 3 || f[1] == "" {
			t.Errorf("MANIFEST.tsv: row %q has no repository", line)
			continue
		}
		sources[f[0]] = f[1]
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 30 {
		t.Fatalf("corpus has %d files, want the 31 real outputs", len(files))
	}
	seen := map[string]bool{}
	for _, f := range files {
		id, _, _ := strings.Cut(filepath.Base(f), "-")
		seen[id] = true
		if sources[id] == "" {
			t.Errorf("%s: no row in MANIFEST.tsv", filepath.Base(f))
		}
	}
	for id := range sources {
		if !seen[id] {
			t.Errorf("MANIFEST.tsv row %s names no file in %s", id, dir)
		}
	}

	readme, err := os.ReadFile(filepath.Join(filepath.Dir(dir), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	refs, err := filepath.Glob(filepath.Join(filepath.Dir(dir), "reference", "*.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if len(refs) != 10 {
		t.Errorf("%d reference tables, want 10", len(refs))
	}
	for _, r := range refs {
		if !strings.Contains(string(readme), "`"+filepath.Base(r)+"`") {
			t.Errorf("testdata/README.md does not name the source of %s", filepath.Base(r))
		}
	}
}
