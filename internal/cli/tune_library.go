package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/mpbench/mpbench/coll"
	"github.com/mpbench/mpbench/tune"
)

// tuneLibrary is the runtime whose collectives "mpbench tune" measures:
// which configurations it offers, how a job forces them, how a job runs
// the tuned configuration, and the tuning file it reads.
type tuneLibrary interface {
	// describe names the runtime for file headers and progress.
	describe() string
	// configs lists every forcible configuration of collective on np
	// ranks (the default excluded; none where the runtime can force
	// none); error for a collective the runtime does not know.
	configs(collective string, np int, segments []int) ([]tune.Config, error)
	// force returns the extra "mpbench run" arguments and environment that
	// make a job run configs (collective -> configuration; collectives not
	// in the map keep the default).
	force(configs map[string]tune.Config) (args, env []string)
	// tuned returns the arguments and environment that make a job use the
	// tuning file in dir.
	tuned(dir string) (args, env []string)
	// rulesFile is the name of the tuning file in the output directory.
	rulesFile() string
	// write writes the tuning file of tables to path.
	write(path string, header []string, tables []tune.Table) error
	// ownDefault names the configuration the runtime's default decision
	// runs at a point, when the runtime says (tune.Options.Default).
	ownDefault(collective string, ranks, bytes int) (tune.Config, bool)
}

// mpbenchRuntime is mpbench's own runtime (package comm): coll's
// algorithms, forced with --coll, tuned with --coll-rules.
type mpbenchRuntime struct{ transport string }

func (n mpbenchRuntime) describe() string { return "mpbench (transport " + n.transport + ")" }

// configs lists coll's algorithms of collective, a segmented one once per
// segment size.
func (mpbenchRuntime) configs(collective string, _ int, segments []int) ([]tune.Config, error) {
	algs, err := coll.Listed(collective)
	if err != nil {
		return nil, err
	}
	var cs []tune.Config
	for _, a := range algs {
		if !a.Segmented {
			cs = append(cs, tune.Config{Algorithm: a.Name})
			continue
		}
		for _, s := range segments {
			cs = append(cs, tune.Config{Algorithm: a.Name, Segment: s})
		}
	}
	return cs, nil
}

func (mpbenchRuntime) force(configs map[string]tune.Config) ([]string, []string) {
	var items []string
	for c, cfg := range configs {
		items = append(items, c+"="+cfg.String())
	}
	if len(items) == 0 {
		return nil, nil
	}
	slices.Sort(items)
	return []string{"--coll", strings.Join(items, ",")}, nil
}

func (n mpbenchRuntime) tuned(dir string) ([]string, []string) {
	return []string{"--coll-rules", filepath.Join(dir, n.rulesFile())}, nil
}

func (mpbenchRuntime) rulesFile() string { return "mpbench.rules" }

func (mpbenchRuntime) ownDefault(collective string, ranks, bytes int) (tune.Config, bool) {
	ch, err := coll.Algorithms{}.Select(collective, ranks, bytes)
	if err != nil {
		return tune.Config{}, false
	}
	return tune.Config{Algorithm: ch.Algorithm, Segment: ch.Segment}, true
}

func (mpbenchRuntime) write(path string, header []string, tables []tune.Table) error {
	return writeFileWith(path, func(f *os.File) error { return tune.WriteRules(f, header, tune.RulesFromTables(tables)) })
}

// ompiLibrary is Open MPI's coll_tuned component, its algorithms as the
// installed ompi_info lists them.
type ompiLibrary struct {
	info    tune.OMPI
	version string
}

// newOMPILibrary reads the installed Open MPI's coll_tuned controls. A
// missing ompi_info or missing controls are usage errors.
func newOMPILibrary() (*ompiLibrary, error) {
	out, err := exec.Command("ompi_info", "--param", "coll", "tuned", "--level", "9", "--parsable").Output()
	if err != nil {
		return nil, usageErrorf("tune --transport mpi: cannot run Open MPI's ompi_info (%v); install openmpi-bin or put the library's bin directory on PATH", err)
	}
	info, err := tune.ParseOMPIInfo(strings.NewReader(string(out)))
	if err != nil {
		return nil, usageErrorf("tune --transport mpi: %v", err)
	}
	v, _ := exec.Command("ompi_info", "--version").Output()
	return &ompiLibrary{info: info, version: tune.OMPIVersion(string(v))}, nil
}

func (o *ompiLibrary) describe() string { return o.version + " coll_tuned" }

func (o *ompiLibrary) configs(collective string, np int, segments []int) ([]tune.Config, error) {
	return o.info.Configs(collective, np, segments), nil
}

func (o *ompiLibrary) force(configs map[string]tune.Config) ([]string, []string) {
	if len(configs) == 0 {
		return nil, nil
	}
	env := []string{"OMPI_MCA_coll_tuned_use_dynamic_rules=1"}
	for c, cfg := range configs {
		env = append(env, fmt.Sprintf("OMPI_MCA_coll_tuned_%s_algorithm=%d", c, cfg.ID))
		if o.info.Segmentable[c] {
			env = append(env, fmt.Sprintf("OMPI_MCA_coll_tuned_%s_algorithm_segmentsize=%d", c, cfg.Segment))
		}
	}
	slices.Sort(env)
	return nil, env
}

func (o *ompiLibrary) tuned(dir string) ([]string, []string) {
	abs, _ := filepath.Abs(filepath.Join(dir, o.rulesFile()))
	return nil, []string{"OMPI_MCA_coll_tuned_use_dynamic_rules=1", "OMPI_MCA_coll_tuned_dynamic_rules_filename=" + abs}
}

func (o *ompiLibrary) rulesFile() string { return "openmpi.rules" }

// ownDefault: Open MPI does not say which algorithm its fixed decision
// runs; every forced one competes with it.
func (o *ompiLibrary) ownDefault(string, int, int) (tune.Config, bool) { return tune.Config{}, false }

func (o *ompiLibrary) write(path string, header []string, tables []tune.Table) error {
	return writeFileWith(path, func(f *os.File) error { return tune.WriteOMPI(f, header, tables, o.info.OMPIFanout) })
}

// writeFileWith creates path and fills it with write.
func writeFileWith(path string, write func(*os.File) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// tuneEnv is the environment of measuring jobs: this process's, without
// the controls that would force algorithms behind tune's back (Open MPI's
// coll_tuned MCA variables, MPICH's algorithm and tuning-file CVARs), plus
// extra.
func tuneEnv(extra []string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "OMPI_MCA_coll_tuned_") ||
			(strings.HasPrefix(k, "MPIR_CVAR_") && (strings.HasSuffix(k, "_ALGORITHM") || strings.Contains(k, "TUNING_JSON_FILE"))) {
			continue
		}
		env = append(env, kv)
	}
	return append(env, extra...)
}

// itoa is strconv.Itoa.
func itoa(n int) string { return strconv.Itoa(n) }

// loadChecker is a tuneLibrary that can show its tuning file is loaded.
type loadChecker interface {
	// loadCheck runs a job that behaves differently only if the library
	// reads and applies the tuning file of dir, and returns a sentence
	// saying what was seen.
	loadCheck(ctx context.Context, r *tuneRunner, dir string, m tuneManifest, tables []tune.Table) (string, error)
}

// loadCheck shows that Open MPI parses the whole rules file and applies
// it. coll_tuned prints nothing about the file in release builds, and
// drops a file with any error silently; so a copy of the tuned file whose
// rule for the first collective on the fewest ranks names the algorithm
// one past the last that ompi_info lists must make that collective fail
// with MPI_ERR_ARG, while the tuned file itself ran (the verification
// jobs).
func (o *ompiLibrary) loadCheck(ctx context.Context, r *tuneRunner, dir string, m tuneManifest, tables []tune.Table) (string, error) {
	c, np := m.Colls[0], m.Procs[0]
	bad := len(o.info.Algorithms[c]) + 1
	for _, a := range o.info.Algorithms[c] {
		bad = max(bad, a.ID+1)
	}
	probe := []tune.Table{{Collective: c, Ranks: np, Ranges: []tune.Range{{Winner: tune.Config{Algorithm: "invalid", ID: bad}}}}}
	for _, t := range tables {
		if t.Collective != c || t.Ranks != np {
			probe = append(probe, t)
		}
	}
	path := filepath.Join(dir, ".probe.rules")
	defer os.Remove(path)
	header := []string{"Probe: " + o.rulesFile() + " with " + c + " on " + itoa(np) + " ranks forced to a number no algorithm has."}
	if err := o.write(path, header, probe); err != nil {
		return "", err
	}
	abs, _ := filepath.Abs(path)
	job := tuneJob{np: np, Job: tune.Job{Label: "load check", Colls: []string{c}},
		env: []string{"OMPI_MCA_coll_tuned_use_dynamic_rules=1", "OMPI_MCA_coll_tuned_dynamic_rules_filename=" + abs}}
	_, err := r.run(ctx, job)
	if ctx.Err() != nil {
		return "", err
	}
	if err == nil {
		return "", fmt.Errorf("Open MPI did not apply the rules file: a copy of %s naming %s algorithm %d (which does not exist) on %d ranks ran without error", o.rulesFile(), c, bad, np)
	}
	var failed *tuneJobError
	if !errors.As(err, &failed) {
		return "", err // the job's rows could not be read: not the failure looked for
	}
	return fmt.Sprintf("Open MPI loads %s: a copy whose %s rule on %d ranks names algorithm %d (one past the last ompi_info lists) makes MPI_%s fail (%s), and coll_tuned drops a file with any error, so it parsed the whole file and applies its rules.",
		o.rulesFile(), c, np, bad, tuneBench[c], failed.reason), nil
}
