package archtest

import (
	"errors"
	"fmt"
	"go/build"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

const module = "github.com/mpbench/mpbench"

// layers assigns every package of the module (path relative to the module;
// "x/..." is x's subpackages) a layer, lowest first, as drawn in
// docs/architecture.md. A package may import packages of lower layers,
// and of its own layer only within its own top-level directory (a family
// such as result/... may have helpers of its own, families in one layer
// stay independent); the most specific pattern decides a package's layer.
// A new package needs a line here: the test fails for a package with no
// layer.
var layers = [][]string{
	// 0: the vocabularies: a transport's frames and its authentication, a
	// result's records; test helpers that import nothing of mpbench; the
	// buffer pool of comm and coll.
	{"transport", "transport/auth", "result", "internal/testcorpus", "internal/netnstest", "internal/bufpool"},
	// 1: byte movers below comm; result file formats (a new format under
	// result/ needs no line here).
	{"transport/...", "result/...", "result/internal/textline"},
	// 2: mpbench's runtime; format detection; statistics and scaling
	// tables; tuning rules;
	// the readers' test corpus.
	{"comm", "result/read", "analysis", "analysis/...", "tune", "tune/...", "result/internal/corpustest"},
	// 3: the second runtime (an MPI library) beside comm; collectives on
	// any comm.Comm; starting ranks; reports; the file-transfer test;
	// network models; test helpers.
	{"mpi", "mpi/internal/cref", "coll", "launch", "launch/...", "report", "transfer", "testbed/medium", "comm/commtest", "transport/transporttest"},
	// 4: what runs on a communicator: benchmarks and applications.
	{"bench", "app", "testbed", "testbed/..."},
	// 5: applications built on app; the CLI's output sinks.
	{"app/...", "internal/sink"},
	// 6: the command line: the only package that wires everything.
	{"internal/cli"},
	// 7: programs and their helpers.
	{"cmd/...", "bench/...", "mpi/internal/mpicheck", "internal/archtest"},
}

// debts are imports that break the layers and are known: "from -> to" and
// what would remove them. The test reports an import listed here that is
// gone, so the list only shrinks.
var debts = map[string]string{}

// layerOf returns rel's layer and the pattern that placed it, or -1.
func layerOf(rel string) (int, string) {
	best, bestPat := -1, ""
	for i, l := range layers {
		for _, pat := range l {
			ok := pat == rel
			if base, sub := strings.CutSuffix(pat, "/..."); sub {
				ok = strings.HasPrefix(rel, base+"/")
			}
			if ok && len(pat) > len(bestPat) {
				best, bestPat = i, pat
			}
		}
	}
	return best, bestPat
}

// family is the top-level directory of a package path relative to the
// module ("result" for result/imb).
func family(rel string) string {
	f, _, _ := strings.Cut(rel, "/")
	return f
}

type goPackage struct {
	ImportPath string
	Imports    []string
}

// moduleRoot is the module's directory, relative to this test's.
const moduleRoot = "../.."

// listPackages reads, in this process, the imports of every package of the
// module under the given build tags (comma-separated; cgo counted as on,
// so the MPI builds' cgo files are read), non-test imports only: each
// directory below the module root but testdata, hidden and "_" ones, as
// "go list module/..." finds them. The test opens every file itself
// (go/build's Context reads through os), so Go's test cache notes each
// file and directory it read and runs the test again when one changes.
func listPackages(t *testing.T, tags string) []goPackage {
	t.Helper()
	ctx := build.Default
	ctx.CgoEnabled = true
	ctx.BuildTags = nil
	if tags != "" {
		ctx.BuildTags = strings.Split(tags, ",")
	}
	var pkgs []goPackage
	err := filepath.WalkDir(moduleRoot, func(dir string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		name := d.Name()
		if dir != moduleRoot && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
			return filepath.SkipDir
		}
		bp, err := ctx.ImportDir(dir, 0)
		var noGo *build.NoGoError
		if errors.As(err, &noGo) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("-tags %q: %s: %w", tags, dir, err)
		}
		rel, err := filepath.Rel(moduleRoot, dir)
		if err != nil {
			return err
		}
		path := module
		if rel != "." {
			path += "/" + filepath.ToSlash(rel)
		}
		pkgs = append(pkgs, goPackage{ImportPath: path, Imports: bp.Imports})
		return nil
	})
	if err != nil {
		t.Fatalf("reading the module's packages: %v", err)
	}
	if len(pkgs) < 20 {
		t.Fatalf("found %d packages; expected the whole module", len(pkgs))
	}
	return pkgs
}

// TestLayers: no package imports a package of a higher layer, or of its
// own layer outside its family, in the default build and in the MPI builds.
func TestLayers(t *testing.T) {
	seen := map[string]bool{}
	for _, tags := range []string{"", "mpi", "mpi,mpich"} {
		for _, p := range listPackages(t, tags) {
			rel := strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, module), "/")
			from, fromPat := layerOf(rel)
			if from < 0 {
				t.Errorf("package %s has no layer: add it to layers in internal/archtest (and to docs/architecture.md)", rel)
				continue
			}
			for _, imp := range p.Imports {
				irel, ok := strings.CutPrefix(imp, module+"/")
				if !ok {
					continue
				}
				to, toPat := layerOf(irel)
				if _, known := debts[rel+" -> "+irel]; known {
					seen[rel+" -> "+irel] = true
					continue
				}
				if to > from || to == from && family(irel) != family(rel) {
					t.Errorf("-tags %q: %s (layer %d, %s) imports %s (layer %d, %s): a package may import only lower layers, or its own layer within its directory",
						tags, rel, from, fromPat, irel, to, toPat)
				}
			}
		}
	}
	for d := range debts {
		if !seen[d] {
			t.Errorf("the import %s listed in debts is gone: remove it from the list", d)
		}
	}
}

// TestLayerOf checks the pattern matching the test relies on.
func TestLayerOf(t *testing.T) {
	for rel, want := range map[string]int{
		"transport": 0, "transport/tcp": 1, "transport/auth": 0, "result/internal/textline": 1, "result/internal/corpustest": 2, "result/imb": 1, "result/newformat": 1, "result/read": 2,
		"mpi": 3, "mpi/internal/cref": 3, "mpi/internal/mpicheck": 7, "app": 4, "app/matmul": 5,
		"testbed/medium": 3, "testbed/netns": 4, "cmd/mpbench": 7, "nosuch": -1,
	} {
		if got, pat := layerOf(rel); got != want {
			t.Errorf("layerOf(%s) = %d (%s), want %d", rel, got, pat, want)
		}
	}
}
