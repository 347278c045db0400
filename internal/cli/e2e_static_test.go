package cli

import (
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mpbench/mpbench/internal/proctest"
)

// TestStaticBuild checks README's static build: the default build's
// dependencies include purego, whose dlopen makes even a CGO_ENABLED=0
// binary dynamically linked, and the noopenblas build's include neither it
// nor runtime/cgo; CGO_ENABLED=0 go build -tags noopenblas gives a binary
// with no program interpreter and no shared library needed, which runs the
// block product on gonum's BLAS, records that in its --json metadata, and
// refuses --blas openblas in one line naming the tag.
func TestStaticBuild(t *testing.T) {
	const pkg = "github.com/mpbench/mpbench/cmd/mpbench"
	goCmd := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("go", args...)
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	if deps := goCmd("list", "-deps", pkg); !strings.Contains(deps, "github.com/ebitengine/purego\n") {
		t.Errorf("the default build no longer depends on purego: README's build notes on static binaries are stale")
	}
	if deps := goCmd("list", "-deps", "-tags", "noopenblas", pkg); strings.Contains(deps, "purego") || strings.Contains(deps, "runtime/cgo\n") {
		t.Errorf("the noopenblas build still depends on purego or runtime/cgo:\n%s", deps)
	}
	bin := filepath.Join(t.TempDir(), "mpbench-static")
	goCmd("build", "-tags", "noopenblas", "-o", bin, pkg)
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	libs, err := f.ImportedLibraries()
	if err != nil || len(libs) > 0 {
		t.Errorf("static build needs shared libraries %v (%v)", libs, err)
	}
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			t.Errorf("static build has a program interpreter (dynamically linked)")
		}
	}
	f.Close()

	jsonPath := filepath.Join(t.TempDir(), "mm.jsonl")
	cmd := proctest.Command(t, bin, "app", "matmul", "-n", "40", "-np", "2", "--json", jsonPath)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "SUCCESSFUL") || !strings.Contains(string(out), "Local products  = gonum (pure Go); no OpenBLAS library loaded") {
		t.Fatalf("static build, app matmul: %v\n%s", err, out)
	}
	run := readOneRun(t, jsonPath)
	if run.Meta.Info["blas"] != "gonum" || run.Meta.Info["blas_fallback"] == "" {
		t.Errorf("static build's --json metadata: %+v", run.Meta)
	}
	cmd = proctest.Command(t, bin, "app", "matmul", "-n", "40", "-np", "2", "--blas", "openblas")
	out, err = cmd.CombinedOutput()
	if exitCode(err) != ExitUsage || strings.Count(string(out), "\n") != 1 || !strings.Contains(string(out), "-tags noopenblas") {
		t.Errorf("static build, --blas openblas: exit %d, output %q; want exit 2 and one line naming the tag", exitCode(err), out)
	}
}
