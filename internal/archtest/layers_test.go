package archtest

import (
	"errors"
	"fmt"
	"go/build"
	"io/fs"
	"path/filepath"
	"slices"
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
	// result's records; test helpers that import nothing of mpbench
	// (network namespaces, processes that end with their test); the
	// buffer pool of comm and coll.
	{"transport", "transport/auth", "result", "internal/testcorpus", "internal/netnstest", "internal/proctest", "internal/bufpool"},
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

// testHelpers are packages written for other packages' tests (a fake
// network, a conformance suite, a corpus): a package's test files may
// import them whatever their layer, besides what the package itself may
// import. Test files may import nothing else above their package's layer.
var testHelpers = []string{"comm/commtest", "transport/transporttest", "internal/testcorpus", "result/internal/corpustest", "internal/netnstest"}

// reserved lists packages that only the given packages (patterns as in
// layers) may import, their test files included: the MPI library's runtime
// is chosen by the command line, so benchmarks, applications and the
// testbed stay written against comm.Comm and build without cgo.
var reserved = map[string][]string{
	"mpi": {"mpi", "mpi/...", "internal/cli", "cmd/..."},
}

// confined lists packages whose imports are narrower than their layer
// allows: the module's packages they may import (patterns as in layers),
// besides the standard library, their own package and, in test files,
// testHelpers; nothing from outside the module. mpi depends on comm only,
// so that comm's interfaces, not mpi's, are what the rest of mpbench
// programs against.
var confined = map[string][]string{
	"mpi": {"comm", "mpi/internal/..."},
}

// layerOf returns rel's layer and the pattern that placed it, or -1.
func layerOf(rel string) (int, string) {
	best, bestPat := -1, ""
	for i, l := range layers {
		for _, pat := range l {
			if matches(rel, pat) && len(pat) > len(bestPat) {
				best, bestPat = i, pat
			}
		}
	}
	return best, bestPat
}

// matches reports whether the package rel is pat, or below it for a
// pattern "x/...".
func matches(rel, pat string) bool {
	if base, sub := strings.CutSuffix(pat, "/..."); sub {
		return strings.HasPrefix(rel, base+"/")
	}
	return rel == pat
}

// matchesAny reports whether rel matches one of pats.
func matchesAny(rel string, pats []string) bool {
	for _, pat := range pats {
		if matches(rel, pat) {
			return true
		}
	}
	return false
}

// stdlib reports whether an import path is the standard library's (its
// first element has no dot) or cgo's "C".
func stdlib(imp string) bool {
	first, _, _ := strings.Cut(imp, "/")
	return !strings.Contains(first, ".")
}

// family is the top-level directory of a package path relative to the
// module ("result" for result/imb).
func family(rel string) string {
	f, _, _ := strings.Cut(rel, "/")
	return f
}

type goPackage struct {
	ImportPath  string
	Imports     []string // of its non-test files
	TestImports []string // of its _test.go files (package x and x_test)
}

// moduleRoot is the module's directory, relative to this test's.
const moduleRoot = "../.."

// listPackages reads, in this process, the imports of every package of the
// module under the given build tags (comma-separated; cgo counted as on,
// so the MPI builds' cgo files are read), those of its test files apart:
// each directory below the module root but testdata, hidden and "_" ones,
// as "go list -test module/..." finds them. The test opens every file itself
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
		pkgs = append(pkgs, goPackage{ImportPath: path, Imports: bp.Imports, TestImports: append(bp.TestImports, bp.XTestImports...)})
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
// own layer outside its family, and the reserved and confined packages
// keep their narrower rules, in the default build and in the MPI builds,
// test files included (which may import testHelpers besides).
func TestLayers(t *testing.T) {
	seen := map[string]bool{}
	for _, tags := range []string{"", "mpi", "mpi,mpich"} {
		for _, v := range violations(tags, listPackages(t, tags), seen) {
			t.Error(v)
		}
	}
	for d := range debts {
		if !seen[d] {
			t.Errorf("the import %s listed in debts is gone: remove it from the list", d)
		}
	}
}

// violations returns, one line each, every import of pkgs (read under
// tags) that breaks a rule: the layers, reserved, confined; seen collects
// the debts met.
func violations(tags string, pkgs []goPackage, seen map[string]bool) []string {
	var out []string
	for _, p := range pkgs {
		rel := strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, module), "/")
		from, fromPat := layerOf(rel)
		if from < 0 {
			out = append(out, fmt.Sprintf("package %s has no layer: add it to layers in internal/archtest (and to docs/architecture.md)", rel))
			continue
		}
		for i, imp := range append(p.Imports[:len(p.Imports):len(p.Imports)], p.TestImports...) {
			test := i >= len(p.Imports)
			what := "imports"
			if test {
				what = "imports in a test file"
			}
			irel, inModule := strings.CutPrefix(imp, module+"/")
			if allowed, ok := confined[rel]; ok && irel != rel && !(test && inModule && matchesAny(irel, testHelpers)) &&
				(inModule && !matchesAny(irel, allowed) || !inModule && !stdlib(imp)) {
				out = append(out, fmt.Sprintf("-tags %q: %s %s %s: it may import only %s, the standard library and its own packages",
					tags, rel, what, imp, strings.Join(allowed, ", ")))
			}
			if !inModule {
				continue
			}
			if allowed, ok := reserved[irel]; ok && !matchesAny(rel, allowed) {
				out = append(out, fmt.Sprintf("-tags %q: %s %s %s, which only %s may import", tags, rel, what, irel, strings.Join(allowed, ", ")))
			}
			to, toPat := layerOf(irel)
			if _, known := debts[rel+" -> "+irel]; known {
				seen[rel+" -> "+irel] = true
				continue
			}
			if (to > from || to == from && family(irel) != family(rel)) && !(test && matchesAny(irel, testHelpers)) {
				out = append(out, fmt.Sprintf("-tags %q: %s (layer %d, %s) %s %s (layer %d, %s): a package may import only lower layers, or its own layer within its directory (test files also the test helpers)",
					tags, rel, from, fromPat, what, irel, to, toPat))
			}
		}
	}
	return out
}

// TestViolations: each rule catches the import it forbids, in code and in
// test files, and lets pass what it allows.
func TestViolations(t *testing.T) {
	pkg := func(rel string, imports, testImports []string) goPackage {
		return goPackage{ImportPath: module + "/" + rel, Imports: imports, TestImports: testImports}
	}
	m := func(rel string) string { return module + "/" + rel }
	for _, c := range []struct {
		p    goPackage
		want string // a part of a violation expected, "" for none
	}{
		{pkg("bench", []string{m("mpi")}, nil), "bench imports mpi, which only"},
		{pkg("app", nil, []string{m("mpi")}), "app imports in a test file mpi, which only"},
		{pkg("testbed", []string{m("mpi")}, nil), "testbed imports mpi, which only"},
		{pkg("internal/cli", []string{m("mpi")}, nil), ""},
		{pkg("mpi", []string{"unsafe", "C", m("comm"), m("mpi/internal/cref")}, []string{"testing", m("mpi"), m("comm/commtest")}), ""},
		{pkg("mpi", []string{m("coll")}, nil), "mpi imports " + m("coll") + ": it may import only"},
		{pkg("mpi", nil, []string{m("coll")}), "mpi imports in a test file " + m("coll") + ": it may import only"},
		{pkg("mpi", nil, []string{m("transport")}), "mpi imports in a test file " + m("transport") + ": it may import only"},
		{pkg("mpi", []string{"golang.org/x/sys/unix"}, nil), "mpi imports golang.org/x/sys/unix: it may import only"},
		{pkg("transport/tcp", nil, []string{m("transport/transporttest"), m("transport")}), ""},
		{pkg("transport/tcp", nil, []string{m("launch")}), "transport/tcp (layer 1, transport/...) imports in a test file launch"},
		{pkg("coll", nil, []string{m("bench")}), "coll (layer 3, coll) imports in a test file bench"},
		{pkg("comm", []string{m("comm/commtest")}, nil), "comm (layer 2, comm) imports comm/commtest"},
	} {
		got := violations("", []goPackage{c.p}, map[string]bool{})
		found := slices.ContainsFunc(got, func(v string) bool { return strings.Contains(v, c.want) })
		switch {
		case c.want == "" && len(got) != 0:
			t.Errorf("%s %v / tests %v: %q, want no violation", c.p.ImportPath, c.p.Imports, c.p.TestImports, got)
		case c.want != "" && !found:
			t.Errorf("%s %v / tests %v: %q, want a violation with %q", c.p.ImportPath, c.p.Imports, c.p.TestImports, got, c.want)
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
