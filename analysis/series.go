package analysis

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/mpbench/mpbench/result"
)

// SeriesKey identifies one series: one thing measured, at every size. Two
// rows belong to the same series only when everything that changes what
// was measured is equal: the benchmark, the processes of a group, the IMB
// -multi layout (mode, groups, group, idle ranks), the IMB-EXT/RMA mode
// and the run's conditions (RunConditions). Every analysis (fits, anomaly
// flags, aggregate bandwidth, comparisons) groups rows by this one key, so
// a Multi- layout is never averaged with another layout or with the plain
// benchmark, and aggregate and non-aggregate tables are never repeats of
// each other. Rows of different runs meet only where the user joins them
// (repeats within one file in compare, --combine); their key then carries
// the run's conditions.
type SeriesKey struct {
	Benchmark string // IMB/OSU name without "Multi-", e.g. "PingPong", "osu_bw"
	// Processes is the number of processes of one group (IMB
	// "#processes", the group size under -multi); <= 0 when the source
	// printed none (OSU collectives without a launcher line).
	Processes int
	Multi     int // result.MultiNone, result.MultiWorst (-multi 0) or result.MultiEach (-multi 1)
	Groups    int // simultaneous groups under -multi, 1 otherwise
	Group     int // group index of -multi 1 rows, -1 otherwise
	// Idle is the number of ranks waiting in MPI_Barrier beside the
	// groups of a -multi layout (IMB "( k additional processes waiting in
	// MPI_Barrier)"); 0 without -multi, where the idle ranks only follow
	// from the world size and do not change the measurement.
	Idle int
	// Mode is the IMB-EXT/RMA mode: "aggregate", "non-aggregate" or "".
	Mode string
	// Conditions are the run's conditions that change what is measured
	// and differ from the tool's defaults (RunConditions), "" otherwise.
	Conditions string
}

// KeyOf returns the series of a row (Conditions empty: a row does not
// know its run; see RunKeyOf).
func KeyOf(r *result.Row) SeriesKey {
	k := SeriesKey{Benchmark: r.Benchmark, Processes: r.Processes, Multi: r.Multi, Groups: 1, Group: -1, Mode: ModeOf(r)}
	if k.Processes <= 0 {
		k.Processes = -1
	}
	if r.Multi != result.MultiNone {
		k.Groups, k.Idle = max(r.Groups, 1), max(r.Idle, 0)
		if r.Multi == result.MultiEach {
			k.Group = r.Group
		}
	}
	return k
}

// RunKeyOf returns the series of a row of a run with meta m: KeyOf with
// the run's conditions.
func RunKeyOf(r *result.Row, m result.Meta) SeriesKey {
	k := KeyOf(r)
	k.Conditions = BenchConditions(m, r.Benchmark)
	return k
}

// ModeOf returns the IMB-EXT/RMA mode of a row (Row.Extra["aggregate"]
// 1 or 0, set by the IMB reader from "MODE: AGGREGATE|NON-AGGREGATE"):
// "aggregate", "non-aggregate", or "" when it has none.
func ModeOf(r *result.Row) string {
	v, ok := r.Extra["aggregate"]
	switch {
	case !ok:
		return ""
	case v == 1:
		return "aggregate"
	}
	return "non-aggregate"
}

// runConditionDefaults lists the run conditions that change what a
// benchmark measures: the condition's name, where a run states it (a
// Meta.Info key from the output's header, or a Meta.Options key from its
// calling sequence; the first found counts) and the values that mean the
// tool's default. Values are compared without an "MPI_" prefix, a final
// '.' and case, so IMB's header "MPI_Datatype : MPI_INT" and its option
// "-data_type int" state the same condition. A condition at its default is
// left out of the key, so that a file that does not print it matches one
// that prints the default. Sources: IMB's header ("MPI_Datatype :
// MPI_BYTE", "MPI_Datatype for reductions : MPI_FLOAT", "MPI_Op :
// MPI_SUM") and options (-data_type, -red_data_type, -root_shift off,
// -window_size 256 for Uniband/Biband); OSU's "# Datatype: MPI_CHAR." line
// and "[ window size: 64 ]" (osu_bw/osu_bibw/osu_mbw_mr default 64).
var runConditionDefaults = []struct {
	name     string
	info     string                  // Meta.Info key, "" none
	infoDefs []string                // the values of info that mean the default
	option   string                  // Meta.Options key, "" none
	optDefs  []string                // the values of option that mean the default
	affects  func(bench string) bool // the benchmarks it changes (lower case, no "osu_"); nil: every one
}{
	{"datatype", "datatype", []string{"byte", "char"}, "data_type", []string{"byte", "char"}, nil},
	{"reduction datatype", "red_datatype", []string{"float"}, "red_data_type", []string{"float"}, isReduction},
	{"op", "op", []string{"sum"}, "", nil, isReduction},
	// OSU prints its window (default 64); IMB's and mpbench's -window_size
	// defaults to 256 (IMB MPI1_suite.cpp).
	{"window", "window_size", []string{"64"}, "window_size", []string{"256"}, isWindowed},
	{"root shift", "", nil, "root_shift", []string{"0", "off"}, isRooted},
}

// isReduction reports whether benchmark b reduces (its reduction datatype
// and op change what it measures): Allreduce, Reduce, Reduce_scatter(_block),
// Reduce_local, IMB-EXT's Accumulate, OSU's osu_allreduce and friends.
func isReduction(b string) bool {
	return strings.Contains(b, "reduce") || strings.Contains(b, "accumulate")
}

// isWindowed reports whether benchmark b keeps a window of messages in
// flight (its window size changes what it measures): IMB's Uniband and
// Biband, OSU's osu_bw, osu_bibw, osu_mbw_mr and their one-sided forms.
func isWindowed(b string) bool {
	return strings.HasSuffix(b, "band") || strings.HasSuffix(b, "bw") || strings.Contains(b, "mbw_mr")
}

// isRooted reports whether benchmark b has a root (IMB's -root_shift moves
// it): Bcast, Reduce, Gather(v), Scatter(v) and OSU's blocking and
// non-blocking forms.
func isRooted(b string) bool {
	switch strings.TrimPrefix(b, "i") {
	case "bcast", "reduce", "gather", "gatherv", "scatter", "scatterv":
		return true
	}
	return false
}

// RunConditions returns the conditions of a run that change what is
// measured and are not the tool's defaults, as "name=value" pairs joined
// by ", " in a fixed order ("datatype=int, window=16"), or "".
func RunConditions(m result.Meta) string {
	return BenchConditions(m, "")
}

// BenchConditions returns RunConditions restricted to the conditions that
// change what benchmark bench measures (a reduction's datatype and op, a
// windowed benchmark's window, a rooted collective's root shift; the
// message datatype changes every one). bench "" keeps every condition.
func BenchConditions(m result.Meta, bench string) string {
	b := strings.TrimPrefix(strings.ToLower(bench), "osu_")
	norm := func(v string) string {
		v = strings.TrimSuffix(strings.ToLower(strings.TrimSpace(v)), ".")
		return strings.TrimPrefix(v, "mpi_")
	}
	var out []string
	for _, c := range runConditionDefaults {
		if bench != "" && c.affects != nil && !c.affects(b) {
			continue
		}
		v, defs := "", c.infoDefs
		if c.info != "" {
			v = norm(m.Info[c.info])
		}
		if v == "" && c.option != "" {
			v, defs = norm(m.Options[c.option]), c.optDefs
		}
		if v != "" && !slices.Contains(defs, v) {
			out = append(out, c.name+"="+v)
		}
	}
	return strings.Join(out, ", ")
}

// TotalRanks is the ranks the series' rows measured: processes x groups
// (the idle ranks measure nothing); <= 0 when unknown.
func (k SeriesKey) TotalRanks() int {
	if k.Processes <= 0 {
		return k.Processes
	}
	return k.Processes * max(k.Groups, 1)
}

// Name is the benchmark as its tool prints it: "Multi-PingPong" under
// -multi, else the benchmark.
func (k SeriesKey) Name() string {
	if k.Multi != result.MultiNone {
		return "Multi-" + k.Benchmark
	}
	return k.Benchmark
}

// Case names the series within its benchmark: "np=2", "np unknown",
// "3x32" (groups x group size), "3x32+2 idle group 1", with the mode and
// the conditions appended ("np=2 aggregate", "np=2 [datatype=MPI_INT]").
func (k SeriesKey) Case() string {
	c := "np unknown"
	if k.Processes > 0 {
		c = fmt.Sprintf("np=%d", k.Processes)
	}
	if k.Multi != result.MultiNone {
		c = fmt.Sprintf("%dx%d", max(k.Groups, 1), k.Processes)
		if k.Idle > 0 {
			c += fmt.Sprintf("+%d idle", k.Idle)
		}
		if k.Group >= 0 {
			c += fmt.Sprintf(" group %d", k.Group)
		}
	}
	return c + k.suffix()
}

// suffix is the mode and the conditions as Case and FamilyLabel end:
// " aggregate [datatype=MPI_INT]", "" when neither is set.
func (k SeriesKey) suffix() string {
	s := ""
	if k.Mode != "" {
		s += " " + k.Mode
	}
	if k.Conditions != "" {
		s += " [" + k.Conditions + "]"
	}
	return s
}

// Label names the series: "PingPong np=2", "Multi-Allgather 3x32 group 1",
// "Unidir_Put np=2 aggregate".
func (k SeriesKey) Label() string { return k.Name() + " " + k.Case() }

// where names a series in a sentence: "PingPong on 2 ranks",
// "Multi-Allgather 3x32 on 96 ranks", "osu_allreduce (np unknown)", with
// the mode ("Unidir_Put on 2 ranks, aggregate mode").
func (k SeriesKey) where() string {
	s := k.Benchmark + " (np unknown)"
	switch {
	case k.Multi != result.MultiNone && k.Processes > 0:
		s = fmt.Sprintf("%s %dx%d on %d ranks", k.Name(), max(k.Groups, 1), k.Processes, k.TotalRanks())
		if k.Group >= 0 {
			s += fmt.Sprintf(" (group %d)", k.Group)
		}
	case k.Processes > 0:
		s = fmt.Sprintf("%s on %d ranks", k.Benchmark, k.Processes)
	}
	if k.Mode != "" {
		s += ", " + k.Mode + " mode"
	}
	return s
}

// Family returns the key with its process count left out: the series of
// one benchmark, layout family, mode and conditions measured at several
// counts. For a plain benchmark the count is Processes; for a -multi
// layout it is the number of groups (and the idle ranks beside them), the
// group size staying part of the family: 1x2, 2x2 and 4x2 PingPong pairs
// are one family, a 2x4 layout another.
func (k SeriesKey) Family() SeriesKey {
	if k.Multi != result.MultiNone {
		k.Groups, k.Idle = 0, 0
	} else {
		k.Processes = 0
	}
	return k
}

// FamilyLabel names the family of a series (Family): "PingPong",
// "Multi-PingPong groups of 2", with the mode and the conditions.
func (k SeriesKey) FamilyLabel() string {
	s := k.Name()
	if k.Multi != result.MultiNone {
		s += fmt.Sprintf(" groups of %d", k.Processes)
	}
	return s + k.suffix()
}

// Column names the series in a table whose ranks column gives the
// process count: the plain benchmark's FamilyLabel ("PingPong",
// "Unidir_Put aggregate"), a -multi layout's Label ("Multi-Allgather
// 3x32").
func (k SeriesKey) Column() string {
	if k.Multi != result.MultiNone {
		return k.Label()
	}
	return k.FamilyLabel()
}

// Less orders keys by benchmark, plain before -multi, mode, conditions,
// group size, groups, idle ranks and group.
func (k SeriesKey) Less(o SeriesKey) bool {
	switch {
	case k.Benchmark != o.Benchmark:
		return k.Benchmark < o.Benchmark
	case k.Multi != o.Multi:
		return k.Multi < o.Multi
	case k.Mode != o.Mode:
		return k.Mode < o.Mode
	case k.Conditions != o.Conditions:
		return k.Conditions < o.Conditions
	case k.Processes != o.Processes:
		return k.Processes < o.Processes
	case k.Groups != o.Groups:
		return k.Groups < o.Groups
	case k.Idle != o.Idle:
		return k.Idle < o.Idle
	}
	return k.Group < o.Group
}

// SortKeys sorts keys in place by SeriesKey.Less.
func SortKeys(keys []SeriesKey) {
	sort.Slice(keys, func(i, j int) bool { return keys[i].Less(keys[j]) })
}
