package coll

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/mpbench/mpbench/comm"
)

// DefaultSegment is the segment size in bytes of the pipeline
// algorithms (bcast's and reduce's) when none is given: 16 KiB, within the 8-64 KiB range Open
// MPI's tuned module uses for its segmented broadcast and reduce.
const DefaultSegment = 16384

// Choice is one algorithm for one collective.
type Choice struct {
	// Algorithm is the algorithm's name as listed by WriteTable, e.g.
	// "binomial" or "pipeline".
	Algorithm string
	// Segment is the segment size in bytes of a pipeline algorithm
	// (0 means DefaultSegment); other algorithms ignore it and have 0.
	Segment int
}

// String is the choice in override syntax: "binomial" or
// "pipeline:seg=16384" (a segmented algorithm's segment size, the default
// when Segment is 0).
func (ch Choice) String() string {
	if segmentedName(ch.Algorithm) {
		return fmt.Sprintf("%s:seg=%d", ch.Algorithm, ch.segment())
	}
	return ch.Algorithm
}

// segmentedList names the segmented algorithms and their collectives, as
// the tables list them: "the pipeline algorithm of bcast and reduce".
func segmentedList() string {
	var algs []string
	colls := map[string][]string{}
	for _, s := range specs {
		for _, a := range s.algs {
			if a.segmented {
				if colls[a.name] == nil {
					algs = append(algs, a.name)
				}
				colls[a.name] = append(colls[a.name], s.name)
			}
		}
	}
	parts := make([]string, len(algs))
	for i, a := range algs {
		cs := colls[a]
		list := cs[len(cs)-1]
		if len(cs) > 1 {
			list = strings.Join(cs[:len(cs)-1], ", ") + " and " + list
		}
		parts[i] = "the " + a + " algorithm of " + list
	}
	return strings.Join(parts, "; ")
}

// segmentedName reports whether some collective's algorithm called name
// takes a segment size (the pipeline algorithms of bcast and reduce).
func segmentedName(name string) bool {
	for i := range specs {
		if a := specs[i].algorithm(name); a != nil && a.segmented {
			return true
		}
	}
	return false
}

func (ch Choice) segment() int {
	if ch.Segment <= 0 {
		return DefaultSegment
	}
	return ch.Segment
}

// collSpec describes one collective: its algorithms and default rule.
// The algorithm list is the only one: the parser (ParseAlgorithms), the
// printed table (WriteTable), the decision rule, the dispatcher (dispatch),
// the list tune measures (Listed) and the cost model (Cost) all read it.
type collSpec struct {
	name  string      // lower-case MPI name without MPI_, e.g. "reduce_scatter"
	algs  []algorithm // the collective's algorithms, in the order printed
	bytes string      // what the bytes argument of Select means
	// rule is the default decision (decision.go), printed and applied;
	// as, if set, names the collective whose rule this one applies
	// (rule is then nil), and note qualifies the printed rule.
	rule []step
	as   string
	note string
	// origin is whose defaults the rule follows, as printed: "MPICH"
	// when empty.
	origin string
	// native reports whether a communicator offers the collective
	// natively (its Native interface; see native.go).
	native func(c comm.Comm) bool
}

// algorithm is one entry of a collective's table: its name in override
// syntax, the function that runs it on the private communicator, whether
// it takes a segment size (Choice.Segment, ":seg=BYTES"), and its cost
// formula in Hockney terms (Cost) if it has one.
type algorithm struct {
	name      string
	run       func(c comm.Comm, x args) error
	segmented bool
	// cost is the modelled time of one call on p ranks with n bytes and
	// segments of seg bytes (segmented algorithms), from the formula in
	// the algorithm's documentation; nil: none.
	cost func(p int, n float64, seg int, h Hockney) float64
}

// args are the operands of one collective call as the algorithms take
// them. Buffers and layouts are in bytes. Which fields a collective sets is
// documented with its algorithm list (bcastAlgorithms, ...).
type args struct {
	send, recv []byte   // send and receive buffers; in-place algorithms work on recv
	sl, rl     layout   // the blocks of send and recv, for collectives with blocks
	dt         Datatype // element type of reductions
	op         Op       // reduction operation
	root       int      // root rank of rooted collectives
	seg        int      // segment bytes of the pipeline algorithms (Choice.segment)
}

// names lists the collective's algorithm names in table order.
func (s *collSpec) names() []string {
	n := make([]string, len(s.algs))
	for i, a := range s.algs {
		n[i] = a.name
	}
	return n
}

// algorithm returns the table entry called name, or nil.
func (s *collSpec) algorithm(name string) *algorithm {
	for i := range s.algs {
		if s.algs[i].name == name {
			return &s.algs[i]
		}
	}
	return nil
}

// MPICH's defaults (MPICH 3.x/4.x CVARs; Thakur, Rabenseifner & Gropp 2005),
// with one departure: with 2 ranks, Reduce and Allreduce keep the
// short-message algorithm at every size. Rabenseifner's reduce-scatter then
// halves each rank's reduction work but puts two messages in series where
// binomial Reduce and recursive-doubling Allreduce need one, and on shared
// memory the extra step costs more than the halved work at every size from
// 4 KiB to 4 MiB (docs/mpi-comparison.md, "Collectives").
const (
	mpichBcastShort     = 12288  // MPIR_CVAR_BCAST_SHORT_MSG_SIZE
	mpichBcastMinProcs  = 8      // MPIR_CVAR_BCAST_MIN_PROCS
	mpichReduceShort    = 2048   // MPIR_CVAR_REDUCE_SHORT_MSG_SIZE
	mpichAllreduceShort = 2048   // MPIR_CVAR_ALLREDUCE_SHORT_MSG_SIZE
	mpichRedscatLong    = 524288 // MPIR_CVAR_REDSCAT_COMMUTATIVE_LONG_MSG_SIZE
	mpichAllgatherShort = 81920  // MPIR_CVAR_ALLGATHER_SHORT_MSG_SIZE
	mpichAllgatherLong  = 524288 // MPIR_CVAR_ALLGATHER_LONG_MSG_SIZE
	mpichAlltoallShort  = 256    // MPIR_CVAR_ALLTOALL_SHORT_MSG_SIZE
	mpichAlltoallMedium = 32768  // MPIR_CVAR_ALLTOALL_MEDIUM_MSG_SIZE
	mpichAlltoallMinP   = 8      // Bruck only from 8 ranks on
)

// The barrier's departure from MPICH, taken from Open MPI's fixed decision
// (ompi_coll_tuned_barrier_intra_dec_fixed, Open MPI 4.1): the linear
// barrier from 4 to 7 ranks. Its rank 0 leaves first, having released the
// others, so a collective called right after it (IMB's -sync barrier
// before every repetition) finds its root running; on a host whose ranks
// outnumber its CPUs this decides what the next collective costs
// (measured in docs/runtime-progress.md, "Oversubscribed"). comm's own
// Barrier, which -sync uses, takes the same rule, defined there
// (comm.LinearBarrierMin, comm.LinearBarrierMax).

func isPow2(p int) bool { return p > 0 && p&(p-1) == 0 }

// allgatherRule is the decision of allgather, and of allgatherv, on the
// total bytes.
var allgatherRule = []step{
	when(both(totalQ.compare("<", mpichAllgatherLong), ranksPow2), "recursive_doubling"),
	when(totalQ.compare("<", mpichAllgatherShort), "bruck"),
	otherwise("ring"),
}

var specs = []collSpec{
	{name: "bcast", native: offers[NativeBcast], algs: bcastAlgorithms, bytes: "buffer bytes",
		rule: []step{
			when(either(bytesQ.compare("<", mpichBcastShort), ranksQ.compare("<", mpichBcastMinProcs)), "binomial"),
			otherwise("scatter_allgather")}},
	{name: "reduce", native: offers[NativeReduce], algs: reduceAlgorithms, bytes: "vector bytes",
		rule: []step{
			when(either(bytesQ.compare("<=", mpichReduceShort), ranksQ.compare("==", 2)), "binomial"),
			otherwise("rabenseifner")}},
	{name: "allreduce", native: offers[NativeAllreduce], algs: allreduceAlgorithms, bytes: "vector bytes",
		rule: []step{
			when(either(bytesQ.compare("<=", mpichAllreduceShort), ranksQ.compare("==", 2)), "recursive_doubling"),
			otherwise("rabenseifner")}},
	{name: "reduce_scatter", native: offers[NativeReduceScatter], algs: reduceScatterAlgorithms, bytes: "whole vector bytes",
		rule: []step{when(bytesQ.compare("<", mpichRedscatLong), "recursive_halving"), otherwise("pairwise")}},
	{name: "reduce_scatter_block", native: offers[NativeReduceScatterBlock], algs: reduceScatterAlgorithms, bytes: "bytes per rank",
		rule: []step{when(totalQ.compare("<", mpichRedscatLong), "recursive_halving"), otherwise("pairwise")}},
	{name: "gather", native: offers[NativeGather], algs: gatherAlgorithms, bytes: "bytes per rank",
		rule: []step{otherwise("binomial")}},
	{name: "gatherv", native: offers[NativeGatherv], algs: gathervAlgorithms, bytes: "mean bytes per rank",
		rule: []step{otherwise("linear")}, note: "counts are known at the root only"},
	{name: "scatter", native: offers[NativeScatter], algs: scatterAlgorithms, bytes: "bytes per rank",
		rule: []step{otherwise("binomial")}},
	{name: "scatterv", native: offers[NativeScatterv], algs: scattervAlgorithms, bytes: "mean bytes per rank",
		rule: []step{otherwise("linear")}, note: "counts are known at the root only"},
	{name: "allgather", native: offers[NativeAllgather], algs: allgatherAlgorithms, bytes: "bytes per rank",
		rule: allgatherRule},
	{name: "allgatherv", native: offers[NativeAllgatherv], algs: allgatherAlgorithms, bytes: "mean bytes per rank",
		as: "allgather", note: "on the total bytes"},
	{name: "alltoall", native: offers[NativeAlltoall], algs: alltoallAlgorithms, bytes: "bytes per destination",
		rule: []step{
			when(both(bytesQ.compare("<=", mpichAlltoallShort), ranksQ.compare(">=", mpichAlltoallMinP)), "bruck"),
			when(bytesQ.compare("<", mpichAlltoallMedium), "linear"),
			otherwise("pairwise")}},
	{name: "alltoallv", native: offers[NativeAlltoallv], algs: alltoallvAlgorithms, bytes: "mean bytes per destination",
		rule: []step{otherwise("linear")}},
	{name: "barrier", native: offers[NativeBarrier], algs: barrierAlgorithms, bytes: "unused",
		rule: []step{
			when(both(ranksQ.compare(">=", comm.LinearBarrierMin), ranksQ.compare("<", comm.LinearBarrierMax)), "linear"),
			otherwise("dissemination")},
		origin: "MPICH; Open MPI for 4-7 ranks"},
}

// steps is the decision s applies: its own rule, or that of the
// collective it applies the rule of (as).
func (s *collSpec) steps() []step {
	if s.as != "" {
		return specOf(s.as).rule
	}
	return s.rule
}

// ruleText is s's default rule as WriteTable prints it, e.g. "binomial if
// bytes < 12288 or ranks < 8, else scatter_allgather", "linear (counts are
// known at the root only)" or "as allgather, on the total bytes".
func (s *collSpec) ruleText() string {
	switch {
	case s.as != "":
		return "as " + s.as + ", " + s.note
	case s.note != "":
		return ruleText(s.rule) + " (" + s.note + ")"
	}
	return ruleText(s.rule)
}

// specOf returns the collective called name (as ParseAlgorithms takes it),
// or nil. Every call of a collective looks its own up by its exact table
// name, which is found before any normalisation.
func specOf(name string) *collSpec {
	for i := range specs {
		if specs[i].name == name {
			return &specs[i]
		}
	}
	key := strings.ToLower(strings.TrimPrefix(strings.TrimSpace(name), "MPI_"))
	for i := range specs {
		if specs[i].name == key {
			return &specs[i]
		}
	}
	return nil
}

func collectiveNames() string { return strings.Join(Collectives(), ", ") }

// Algorithms selects the algorithm of each collective: an explicit override
// where one was given, else the default decision table (MPICH's rules by
// message size and number of ranks). The zero value uses the table for
// every collective. Algorithms is immutable and safe for concurrent use.
type Algorithms struct {
	over  map[string]Choice
	rules RuleFunc
}

// ParseAlgorithms parses overrides of the form
// "collective=algorithm[:seg=BYTES],..." such as
// "bcast=pipeline:seg=16384,allreduce=ring". Collective names are MPI's
// without "MPI_", case-insensitive (IMB's "Reduce_scatter" works); the
// algorithm "auto" restores the decision table; seg is allowed only for the
// pipeline algorithms. An empty string gives the zero Algorithms. Errors are
// one line naming the bad item and the valid choices (a *ChoiceError); a
// collective given twice ("bcast=ring,bcast=binomial", also with "auto")
// or seg given twice in one override is an error, not the last one winning.
func ParseAlgorithms(spec string) (Algorithms, error) {
	a := Algorithms{over: map[string]Choice{}}
	if strings.TrimSpace(spec) == "" {
		return Algorithms{}, nil
	}
	given := map[string]string{} // collective -> its override, to refuse a second one
	for _, item := range strings.Split(spec, ",") {
		item = strings.TrimSpace(item)
		name, val, ok := strings.Cut(item, "=")
		if !ok || strings.TrimSpace(val) == "" {
			return Algorithms{}, itemErrorf(item, "expected collective=algorithm[:seg=BYTES], e.g. bcast=pipeline:seg=16384")
		}
		s := specOf(name)
		if s == nil {
			return Algorithms{}, itemErrorf(item, "unknown collective %q (valid: %s)", name, collectiveNames())
		}
		if first, twice := given[s.name]; twice {
			return Algorithms{}, choiceErrorf("%s is given twice (%s and %s); give each collective one algorithm", s.name, first, item)
		}
		given[s.name] = item
		parts := strings.Split(val, ":")
		alg := strings.ToLower(strings.TrimSpace(parts[0]))
		if alg == "auto" && len(parts) == 1 {
			delete(a.over, s.name)
			continue
		}
		entry := s.algorithm(alg)
		if entry == nil {
			return Algorithms{}, choiceErrorf("unknown %s algorithm %q (valid: %s, auto)", s.name, parts[0], strings.Join(s.names(), ", "))
		}
		ch := Choice{Algorithm: alg}
		for _, opt := range parts[1:] {
			k, v, _ := strings.Cut(strings.TrimSpace(opt), "=")
			if k != "seg" || !entry.segmented {
				return Algorithms{}, itemErrorf(item, "unknown option %q (only seg=BYTES, for %s)", opt, segmentedList())
			}
			if ch.Segment != 0 {
				return Algorithms{}, itemErrorf(item, "seg is given twice; give one segment size")
			}
			n, err := strconv.Atoi(v)
			if err != nil || n <= 0 {
				return Algorithms{}, itemErrorf(item, "seg must be a positive number of bytes, got %q", v)
			}
			ch.Segment = n
		}
		if entry.segmented && ch.Segment == 0 {
			ch.Segment = DefaultSegment
		}
		a.over[s.name] = ch
	}
	if len(a.over) == 0 {
		return Algorithms{}, nil
	}
	return a, nil
}

// String is the overrides in ParseAlgorithms syntax, sorted by collective
// ("" for none).
func (a Algorithms) String() string {
	var items []string
	for name, ch := range a.over {
		items = append(items, name+"="+ch.String())
	}
	sort.Strings(items)
	return strings.Join(items, ",")
}

// Select returns the algorithm a call of collective will use on a
// communicator of ranks ranks with the given message size in bytes, whose
// meaning depends on the collective as in IMB's #bytes column: the buffer
// for bcast, the vector for reduce and allreduce, the whole vector for
// reduce_scatter, the block per rank for reduce_scatter_block, gather,
// scatter and allgather, the block per destination for alltoall, the mean
// block for the v variants; barrier ignores it. collective is a name as in
// ParseAlgorithms; an unknown name is an error.
func (a Algorithms) Select(collective string, ranks, bytes int) (Choice, error) {
	s := specOf(collective)
	if s == nil {
		return Choice{}, choiceErrorf("unknown collective %q (valid: %s)", collective, collectiveNames())
	}
	return a.choose(s.name, ranks, bytes), nil
}

// choose is Select for a known lower-case name.
func (a Algorithms) choose(name string, p, n int) Choice {
	if ch, ok := a.over[name]; ok {
		return ch
	}
	if a.rules != nil {
		if ch, ok := a.rules(name, p, n); ok {
			return ch
		}
	}
	s := specOf(name)
	ch := Choice{Algorithm: decide(s.steps(), p, n)}
	if a := s.algorithm(ch.Algorithm); a != nil && a.segmented {
		ch.Segment = DefaultSegment
	}
	return ch
}

// WriteTable prints the decision table: for every collective its valid
// algorithms, what the message size means and the rule in force (the
// override, or the default rule with its MPICH origin).
func (a Algorithms) WriteTable(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "collective\talgorithms\tbytes\tselection")
	for _, s := range specs {
		origin := s.origin
		if origin == "" {
			origin = "MPICH"
		}
		rule := "default (" + origin + "): " + s.ruleText()
		if ch, ok := a.over[s.name]; ok {
			rule = "override: " + ch.String()
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", s.name, strings.Join(s.names(), ", "), s.bytes, rule)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "pipeline segment default: %d bytes; override with e.g. bcast=pipeline:seg=65536,allreduce=ring; auto (any collective, e.g. bcast=auto) keeps the default selection\n", DefaultSegment)
	return err
}

// Collectives lists the collectives of the table by their lower-case names
// (as ParseAlgorithms takes them), in WriteTable's order.
func Collectives() []string {
	n := make([]string, len(specs))
	for i, s := range specs {
		n[i] = s.name
	}
	return n
}

// AlgorithmNames lists the algorithms of collective (a name as in
// ParseAlgorithms) in WriteTable's order; an unknown collective is an
// error naming the valid ones.
func AlgorithmNames(collective string) ([]string, error) {
	s := specOf(collective)
	if s == nil {
		return nil, choiceErrorf("unknown collective %q (valid: %s)", collective, collectiveNames())
	}
	return s.names(), nil
}

// AlgorithmInfo describes one algorithm of a collective's table.
type AlgorithmInfo struct {
	// Name is the algorithm's name in override syntax, e.g. "pipeline".
	Name string
	// Segmented: the algorithm takes a segment size (Choice.Segment,
	// ":seg=BYTES").
	Segmented bool
}

// Listed describes the algorithms of collective (a name as in
// ParseAlgorithms) in WriteTable's order; an unknown collective is an
// error naming the valid ones.
func Listed(collective string) ([]AlgorithmInfo, error) {
	s := specOf(collective)
	if s == nil {
		return nil, choiceErrorf("unknown collective %q (valid: %s)", collective, collectiveNames())
	}
	out := make([]AlgorithmInfo, len(s.algs))
	for i, a := range s.algs {
		out[i] = AlgorithmInfo{Name: a.name, Segmented: a.segmented}
	}
	return out, nil
}
