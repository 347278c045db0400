//go:build mpi

package mpi_test

import (
	"context"
	"debug/elf"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// flavor is one MPI library the checks can be built against and launched
// with.
type flavor struct {
	name     string   // Flavor constant of the binary
	tags     string   // go build -tags value
	pkg      string   // pkg-config module
	lib      string   // prefix of the libmpi soname the binary must need
	launcher []string // launcher and options; "-np"/"-n" N and the binary follow
	npFlag   string
}

var flavors = []flavor{
	{"openmpi", "mpi", "ompi", "libmpi.so.", []string{"mpirun.openmpi", "--allow-run-as-root", "--oversubscribe"}, "-np"},
	{"mpich", "mpi,mpich", "mpich", "libmpich.so.", []string{"mpiexec.mpich"}, "-n"},
}

// withMPICheck builds internal/mpicheck against every MPI library found
// (pkg-config module and launcher on PATH), checks with the ELF dynamic
// section that the binary links that library and not the other, and calls
// run with it in a subtest per library. It skips t when no library is
// found.
func withMPICheck(t *testing.T, run func(t *testing.T, f flavor, bin string)) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH to build internal/mpicheck")
	}
	ran := 0
	for _, f := range flavors {
		t.Run(f.name, func(t *testing.T) {
			if _, err := exec.LookPath(f.launcher[0]); err != nil {
				t.Skipf("%s not found on PATH: install the %s launcher (Debian: openmpi-bin or mpich) to run this check", f.launcher[0], f.name)
			}
			if err := exec.Command("pkg-config", "--exists", f.pkg).Run(); err != nil {
				t.Skipf("pkg-config module %s not found: install its development package (Debian: libopenmpi-dev or libmpich-dev)", f.pkg)
			}
			ran++
			bin := filepath.Join(t.TempDir(), "mpicheck-"+f.name)
			build := exec.Command(goTool, "build", "-tags", f.tags, "-o", bin, "github.com/mpbench/mpbench/mpi/internal/mpicheck")
			if out, err := build.CombinedOutput(); err != nil {
				t.Fatalf("go build -tags %s: %v\n%s", f.tags, err, out)
			}
			checkLinks(t, bin, f)
			run(t, f, bin)
		})
	}
	if ran == 0 {
		t.Skip("no MPI library found: install libopenmpi-dev openmpi-bin (and/or libmpich-dev mpich)")
	}
}

// TestMPICheck runs internal/mpicheck (see withMPICheck) on 2 and 4 ranks.
// mpicheck verifies every operation's results itself and exits non-zero on
// the first wrong value.
func TestMPICheck(t *testing.T) {
	withMPICheck(t, func(t *testing.T, f flavor, bin string) {
		for _, np := range []int{2, 4} {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			args := append(append([]string{}, f.launcher[1:]...), f.npFlag, strconv.Itoa(np), bin)
			out, err := exec.CommandContext(ctx, f.launcher[0], args...).CombinedOutput()
			cancel()
			if err != nil {
				t.Fatalf("%s %s: %v\n%s", f.launcher[0], strings.Join(args, " "), err, out)
			}
			want := "mpicheck: ok: "
			if !strings.Contains(string(out), want) || !strings.Contains(string(out), "np="+strconv.Itoa(np)+" ("+f.name+")") {
				t.Fatalf("np=%d: output lacks %q with np=%d (%s):\n%s", np, want, np, f.name, out)
			}
		}
	})
}

// checkLinks fails t unless bin needs f's libmpi and no other MPI library.
func checkLinks(t *testing.T, bin string, f flavor) {
	t.Helper()
	e, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	libs, err := e.ImportedLibraries()
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, l := range libs {
		for _, g := range flavors {
			if strings.HasPrefix(l, g.lib) {
				if g.name != f.name {
					t.Fatalf("binary built with -tags %s links %s (a %s library); its dynamic section: %v", f.tags, l, g.name, libs)
				}
				found = true
			}
		}
	}
	if !found {
		t.Fatalf("binary built with -tags %s does not link %s*; its dynamic section: %v", f.tags, f.lib, libs)
	}
}
