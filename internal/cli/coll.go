package cli

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/pflag"

	"github.com/mpbench/mpbench/bench"
	"github.com/mpbench/mpbench/coll"
)

// collFlags are the collective options of "mpbench run".
type collFlags struct {
	spec      string // --coll overrides
	rules     string // --coll-rules FILE
	show      bool   // --show-algorithms
	rootShift bool   // IMB -root_shift 1|0
}

// addCollFlags defines the collective options on fs.
func addCollFlags(fs *pflag.FlagSet, f *collFlags) {
	collVar(fs, &f.spec, "collective algorithms, e.g. bcast=pipeline:seg=16384,allreduce=ring (default: the decision table; see --show-algorithms)")
	fs.StringVar(&f.rules, "coll-rules", "", "decision table file written by 'mpbench tune' (mpbench.rules): algorithm per collective, process count and size; --coll overrides it")
	switchVar(fs, &f.rootShift, "root_shift", "0", "IMB -root_shift 1|0: rooted collectives move the root to the next rank every iteration")
	fs.BoolVar(&f.show, "show-algorithms", false, "print every collective's algorithms and the default decision table by message size and process count, then exit")
}

// collVar defines --coll on fs, storing its value in *spec. Given twice
// ("--coll bcast=ring --coll allreduce=ring"), it is a usage error rather
// than the last value silently replacing the first's overrides.
func collVar(fs *pflag.FlagSet, spec *string, usage string) {
	fs.Var(&collValue{spec: spec}, "coll", usage)
}

// collValue is the value of --coll: a string that may be set once.
type collValue struct {
	spec *string
	set  bool
}

// String returns the value as given.
func (v *collValue) String() string { return *v.spec }

// Set stores s; a second --coll is a usage error naming both values.
func (v *collValue) Set(s string) error {
	if v.set {
		return usageErrorf("--coll is given twice (%s and %s); give one --coll with the collectives separated by commas, e.g. --coll %s,%s", *v.spec, s, *v.spec, s)
	}
	*v.spec, v.set = s, true
	return nil
}

// Type names the kind of value in help texts, as for any string option.
func (v *collValue) Type() string { return "string" }

// parseColl parses the value of --coll (coll.ParseAlgorithms), for every
// command that takes it; a bad value is a usage error naming the option
// and listing the valid choices: "--coll bcast=fast: unknown bcast
// algorithm "fast" ...".
func parseColl(spec string) (coll.Algorithms, error) {
	a, err := coll.ParseAlgorithms(spec)
	if err != nil {
		return a, usageErrorf("--coll %s: %s", spec, choiceMsg(err, spec))
	}
	return a, nil
}

// apply sets the collective options of o; a bad --coll is a usage error
// listing the valid choices (parseColl).
func (f *collFlags) apply(o *bench.Options) error {
	a, err := parseColl(f.spec)
	if err != nil {
		return err
	}
	if f.rules != "" {
		rules, err := readCollRules(f.rules)
		if err != nil {
			return err
		}
		a = a.WithRules(rules)
	}
	o.Algorithms, o.RootShift = a, f.rootShift
	return nil
}

// choiceMsg is the message of a *coll.ChoiceError without its package
// prefix, for a usage error that names the option and its value given
// itself: the override it is about is named only when given holds others
// too ("--coll allreduce=ring,bcast=pipeline:seg=-1:
// "bcast=pipeline:seg=-1": seg must be ...", but "--coll
// bcast=pipeline:seg=-1: seg must be ..."); any other error keeps its
// text.
func choiceMsg(err error, given string) string {
	var ce *coll.ChoiceError
	if !errors.As(err, &ce) {
		return err.Error()
	}
	if ce.Item != "" && ce.Item != strings.TrimSpace(given) {
		return strconv.Quote(ce.Item) + ": " + ce.Msg
	}
	return ce.Msg
}

// Sizes (bytes) and process counts of the decision grid --show-algorithms
// prints under the rules: around MPICH's thresholds and IMB's sizes.
var (
	gridSizes = []int{8, 1024, 16384, 65536, 1 << 20, 4 << 20}
	gridProcs = []int{2, 4, 8, 16, 64}
)

// showAlgorithms prints the algorithm table (with any --coll overrides)
// and, for each collective benchmark, the algorithm chosen per message
// size (IMB's #bytes) and process count.
func showAlgorithms(w io.Writer, f *collFlags) error {
	a, err := parseColl(f.spec)
	if err != nil {
		return err
	}
	if err := a.WriteTable(w); err != nil {
		return err
	}
	fmt.Fprintln(w, "\nAlgorithm by message size (IMB's #bytes) and number of ranks:")
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprint(tw, "benchmark\tbytes")
	for _, p := range gridProcs {
		fmt.Fprintf(tw, "\tp=%d", p)
	}
	fmt.Fprintln(tw)
	for _, name := range bench.Names() {
		spec, _ := bench.Lookup(name)
		if spec.Collective == "" {
			continue
		}
		sizes := gridSizes
		if spec.Class.Sizeless {
			sizes = []int{0}
		}
		for _, n := range sizes {
			fmt.Fprintf(tw, "%s\t%d", name, n)
			for _, p := range gridProcs {
				ch, err := a.Select(spec.Collective, p, n)
				if err != nil {
					return err
				}
				fmt.Fprintf(tw, "\t%s", ch)
			}
			fmt.Fprintln(tw)
		}
	}
	return tw.Flush()
}
