package cli

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/mpbench/mpbench/tune"
)

// mpichLibrary is MPICH's MPIR-level collectives: algorithms forced with
// MPIR_CVAR_<COLL>_INTRA_ALGORITHM (names from the installed mpivars),
// tuned with a collective-selection JSON file built on the library's own.
type mpichLibrary struct {
	algs     map[string][]tune.Config
	defaults []byte // the library's built-in MPIR-level selection JSON
	version  string
}

// newMPICHLibrary reads the installed MPICH's algorithm controls (mpivars)
// and its built-in selection JSON (from the libmpich this process runs
// with). Missing controls are usage errors.
func newMPICHLibrary() (tuneLibrary, error) {
	out, err := exec.Command("mpivars").Output()
	if err != nil {
		return nil, usageErrorf("tune --transport mpi: cannot run MPICH's mpivars (%v); install the mpich package or put the library's bin directory on PATH", err)
	}
	l := &mpichLibrary{algs: map[string][]tune.Config{}, version: "MPICH"}
	for _, c := range tuneCollectives() {
		if cs, err := tune.ParseMPIVars(strings.NewReader(string(out)), c); err == nil {
			l.algs[c] = cs
		}
	}
	if len(l.algs) == 0 {
		return nil, usageErrorf("tune --transport mpi: mpivars lists no MPIR_CVAR_<COLL>_INTRA_ALGORITHM controls: this MPICH cannot force collective algorithms")
	}
	lib, err := mappedLibrary("libmpich")
	if err != nil {
		return nil, usageErrorf("tune --transport mpi: %v", err)
	}
	if l.defaults, err = tune.MPICHDefaults(lib); err != nil {
		return nil, usageErrorf("tune --transport mpi: %v: this MPICH has no MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE format mpbench knows", err)
	}
	if v, err := exec.Command("mpichversion").Output(); err == nil {
		l.version = tune.MPICHVersion(string(v))
	}
	return l, nil
}

// mappedLibrary reads the shared library whose path contains name from
// the libraries this process has mapped (/proc/self/maps).
func mappedLibrary(name string) ([]byte, error) {
	f, err := os.Open("/proc/self/maps")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if p := fields[len(fields)-1]; strings.Contains(filepath.Base(p), name) {
			return os.ReadFile(p)
		}
	}
	return nil, fmt.Errorf("this process has no %s mapped", name)
}

func (l *mpichLibrary) describe() string { return l.version + " (MPIR collectives)" }

// configs lists the algorithms mpivars names for collective; none where
// this MPICH has no algorithm control for it (its default alone is
// measured).
func (l *mpichLibrary) configs(collective string, _ int, _ []int) ([]tune.Config, error) {
	return l.algs[collective], nil
}

// force sets the algorithm CVARs, and makes MPICH fail instead of falling
// back silently when an algorithm cannot run a call (which would measure
// the fallback under the algorithm's name).
func (l *mpichLibrary) force(configs map[string]tune.Config) ([]string, []string) {
	if len(configs) == 0 {
		return nil, nil
	}
	env := []string{"MPIR_CVAR_COLLECTIVE_FALLBACK=error"}
	for _, c := range sortedKeys(configs) {
		env = append(env, "MPIR_CVAR_"+strings.ToUpper(c)+"_INTRA_ALGORITHM="+configs[c].Algorithm)
	}
	return nil, env
}

func (l *mpichLibrary) tuned(dir string) ([]string, []string) {
	return nil, []string{"MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE=" + absPath(filepath.Join(dir, l.rulesFile()))}
}

func (l *mpichLibrary) rulesFile() string { return "mpich.json" }

func (l *mpichLibrary) write(path string, header []string, tables []tune.Table) error {
	return writeFileWith(path, func(f *os.File) error { return tune.WriteMPICH(f, header, tables, l.defaults) })
}

func (l *mpichLibrary) ownDefault(string, int, int) (tune.Config, bool) { return tune.Config{}, false }

// loadCheck shows that MPICH reads the JSON file: a copy whose rule for
// the first collective names an algorithm MPICH does not have makes it
// print "unrecognized key" for exactly that name while it parses the file.
func (l *mpichLibrary) loadCheck(ctx context.Context, r *tuneRunner, dir string, m tuneManifest, tables []tune.Table) (string, error) {
	c, np := m.Colls[0], m.Procs[0]
	probeAlg := "mpbench_probe"
	probe := []tune.Table{{Collective: c, Ranks: np, Ranges: []tune.Range{{Winner: tune.Config{Algorithm: probeAlg}}}}}
	for _, t := range tables {
		if t.Collective != c {
			probe = append(probe, t)
		}
	}
	path := filepath.Join(dir, ".probe.json")
	defer os.Remove(path)
	if err := l.write(path, []string{"Probe: " + l.rulesFile() + " with " + c + " naming an algorithm MPICH does not have."}, probe); err != nil {
		return "", err
	}
	job := tuneJob{np: np, Job: tune.Job{Label: "load check", Colls: []string{c}},
		env: []string{"MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE=" + absPath(path)}}
	_, err := r.run(ctx, job)
	if ctx.Err() != nil {
		return "", err
	}
	want, seen := tune.MPICHRejected(r.stderr, c, probeAlg)
	if !seen {
		return "", fmt.Errorf("MPICH did not read the JSON file: a copy of %s naming %s gave no complaint about %s (job error: %v)", l.rulesFile(), want, want, err)
	}
	return fmt.Sprintf("MPICH loads %s: a copy whose %s entry names %s makes MPICH report \"unrecognized key %s\" while it parses the file at start-up, so it reads and uses the file.",
		l.rulesFile(), c, want, want), nil
}
