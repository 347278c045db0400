package tune

import (
	"bufio"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
)

// OMPI is what the installed Open MPI's coll_tuned component offers, as
// read from "ompi_info --param coll tuned --level 9 --parsable" by
// ParseOMPIInfo: per collective its forcible algorithms (number and name,
// without 0 "ignore"), whether it has a segment size control, and the
// fan-in/out values in force.
type OMPI struct {
	// Algorithms lists, per collective (lower-case MPI name), the values
	// of coll_tuned_<coll>_algorithm other than 0, in increasing number.
	Algorithms map[string][]Config
	// Segmentable is true for collectives with a
	// coll_tuned_<coll>_algorithm_segmentsize control.
	Segmentable map[string]bool
	// ChainFanout and TreeFanout are the current values of
	// coll_tuned_<coll>_algorithm_chain_fanout and _tree_fanout.
	ChainFanout map[string]int
	TreeFanout  map[string]int
	// DynamicRules is true when ompi_info lists the
	// coll_tuned_use_dynamic_rules and coll_tuned_dynamic_rules_filename
	// controls that forcing and rules files need.
	DynamicRules bool
}

// ParseOMPIInfo reads the parsable output of "ompi_info --param coll tuned
// --level 9 --parsable". It fails when the output has no algorithm
// controls or no dynamic rules controls (a library without coll_tuned, or
// an ompi_info of another kind), naming what is missing.
func ParseOMPIInfo(r io.Reader) (OMPI, error) {
	o := OMPI{Algorithms: map[string][]Config{}, Segmentable: map[string]bool{},
		ChainFanout: map[string]int{}, TreeFanout: map[string]int{}}
	var useDyn, fileName bool
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		param, rest, ok := strings.Cut(strings.TrimPrefix(sc.Text(), "mca:coll:tuned:param:"), ":")
		if !ok || !strings.HasPrefix(param, "coll_tuned_") {
			continue
		}
		name := strings.TrimPrefix(param, "coll_tuned_")
		switch name {
		case "use_dynamic_rules":
			useDyn = true
			continue
		case "dynamic_rules_filename":
			fileName = true
			continue
		}
		switch {
		case strings.HasSuffix(name, "_algorithm") && strings.HasPrefix(rest, "enumerator:value:"):
			coll := strings.TrimSuffix(name, "_algorithm")
			num, alg, ok := strings.Cut(strings.TrimPrefix(rest, "enumerator:value:"), ":")
			id, err := strconv.Atoi(num)
			if !ok || err != nil || id == 0 {
				continue
			}
			o.Algorithms[coll] = append(o.Algorithms[coll], Config{Algorithm: alg, ID: id})
		case strings.HasSuffix(name, "_algorithm_segmentsize") && strings.HasPrefix(rest, "value:"):
			o.Segmentable[strings.TrimSuffix(name, "_algorithm_segmentsize")] = true
		case strings.HasSuffix(name, "_algorithm_chain_fanout") && strings.HasPrefix(rest, "value:"):
			if v, err := strconv.Atoi(strings.TrimPrefix(rest, "value:")); err == nil {
				o.ChainFanout[strings.TrimSuffix(name, "_algorithm_chain_fanout")] = v
			}
		case strings.HasSuffix(name, "_algorithm_tree_fanout") && strings.HasPrefix(rest, "value:"):
			if v, err := strconv.Atoi(strings.TrimPrefix(rest, "value:")); err == nil {
				o.TreeFanout[strings.TrimSuffix(name, "_algorithm_tree_fanout")] = v
			}
		}
	}
	if err := sc.Err(); err != nil {
		return OMPI{}, err
	}
	if len(o.Algorithms) == 0 {
		return OMPI{}, fmt.Errorf("ompi_info lists no coll_tuned_<collective>_algorithm controls (is Open MPI's coll tuned component installed?)")
	}
	if !useDyn || !fileName {
		return OMPI{}, fmt.Errorf("ompi_info lists no coll_tuned_use_dynamic_rules or coll_tuned_dynamic_rules_filename control: this Open MPI cannot force algorithms or read rules files")
	}
	o.DynamicRules = true
	for _, algs := range o.Algorithms {
		sort.Slice(algs, func(i, j int) bool { return algs[i].ID < algs[j].ID })
	}
	return o, nil
}

// ompiColl is what the rules file needs to know of one collective: its
// index in Open MPI's COLLTYPE enumeration (ompi/mca/coll/base/
// coll_base_functions.h, the same in 4.x and 5.x), whether coll_tuned's
// message size is IMB's #bytes times the number of ranks (the dynamic
// decision functions of coll_tuned_decision_dynamic.c: dsize * comsize *
// count for Allgather, Alltoall, Gather, Scatter, Reduce_scatter_block),
// and whether a forced algorithm gets the chain fan-out (Bcast, Reduce,
// Reduce_scatter, Reduce_scatter_block, Scatter) or the tree fan-out.
var ompiColls = map[string]struct {
	id          int
	timesRanks  bool
	chainFanout bool
}{
	"allgather":            {0, true, false},
	"allgatherv":           {1, false, false},
	"allreduce":            {2, false, false},
	"alltoall":             {3, true, false},
	"alltoallv":            {4, false, false},
	"barrier":              {6, false, false},
	"bcast":                {7, false, true},
	"gather":               {9, true, false},
	"reduce":               {11, false, true},
	"reduce_scatter":       {12, false, true},
	"reduce_scatter_block": {13, true, true},
	"scatter":              {15, true, true},
}

// OMPIFanout returns the fan-in/out a forced algorithm of collective ran
// with: the chain or tree fan-out (see ompiColls) of o, 0 when o has none.
func (o OMPI) OMPIFanout(collective string) int {
	if ompiColls[collective].chainFanout {
		return o.ChainFanout[collective]
	}
	return o.TreeFanout[collective]
}

// WriteOMPI writes tables as an Open MPI 4.x coll_tuned dynamic rules file
// (format: ompi/mca/coll/tuned/coll_tuned_dynamic_file.c, without the
// optional version line, which 4.1.4 does not read): the header lines as
// "#" comments, the number of collectives, and per collective its COLLTYPE
// id, the number of communicator sizes and per size the message-size rules
// "from_bytes algorithm fan-in/out segment". Sizes are converted to
// coll_tuned's message size (ompiColls); the first rule of each size starts
// at 0 as the reader demands; a range that keeps the default gets
// algorithm 0, which makes coll_tuned use its fixed decision. Collectives
// whose every range keeps the default are left out. Winners need their
// library number (Config.ID); fanout gives the fan-in/out per collective.
// Load it with
//
//	mpirun --mca coll_tuned_use_dynamic_rules 1 --mca coll_tuned_dynamic_rules_filename FILE ...
func WriteOMPI(w io.Writer, header []string, tables []Table, fanout func(collective string) int) error {
	byColl := map[string][]Table{}
	var colls []string
	for _, t := range tables {
		if _, ok := ompiColls[t.Collective]; !ok {
			return fmt.Errorf("tune: Open MPI's rules file has no entry for collective %q", t.Collective)
		}
		for _, r := range t.Ranges {
			if !r.Winner.IsDefault() && r.Winner.ID <= 0 {
				return fmt.Errorf("tune: %s on %d ranks: algorithm %q has no Open MPI number", t.Collective, t.Ranks, r.Winner.Algorithm)
			}
		}
		if _, seen := byColl[t.Collective]; !seen {
			colls = append(colls, t.Collective)
		}
		byColl[t.Collective] = append(byColl[t.Collective], t)
	}
	var kept []string
	for _, c := range colls {
		if !allDefault(byColl[c]) {
			kept = append(kept, c)
		}
	}
	sort.Slice(kept, func(i, j int) bool { return ompiColls[kept[i]].id < ompiColls[kept[j]].id })
	bw := bufio.NewWriter(w)
	writeComments(bw, "# ", header)
	fmt.Fprintln(bw, "# Open MPI coll_tuned dynamic rules (format of Open MPI 4.x). Use with:")
	fmt.Fprintln(bw, "#   mpirun --mca coll_tuned_use_dynamic_rules 1 --mca coll_tuned_dynamic_rules_filename THIS_FILE ...")
	fmt.Fprintln(bw, "# Algorithm 0 keeps Open MPI's fixed decision; message sizes are coll_tuned's (Allgather and")
	fmt.Fprintln(bw, "# Alltoall: bytes per rank times the number of ranks).")
	fmt.Fprintf(bw, "%d # number of collectives\n", len(kept))
	for _, c := range kept {
		ts := byColl[c]
		sort.Slice(ts, func(i, j int) bool { return ts[i].Ranks < ts[j].Ranks })
		oc := ompiColls[c]
		fmt.Fprintf(bw, "%d # collective id: %s\n", oc.id, c)
		fmt.Fprintf(bw, "%d # number of communicator sizes\n", len(ts))
		for _, t := range ts {
			fmt.Fprintf(bw, "%d # communicator size\n", t.Ranks)
			fmt.Fprintf(bw, "%d # number of message sizes\n", len(t.Ranges))
			for i, r := range t.Ranges {
				from := r.From
				if oc.timesRanks {
					from *= t.Ranks
				}
				if i == 0 {
					from = 0
				}
				fan := 0
				if !r.Winner.IsDefault() && fanout != nil {
					fan = fanout(c)
				}
				fmt.Fprintf(bw, "%d %d %d %d # %s\n", from, r.Winner.ID, fan, r.Winner.Segment, r.Winner)
			}
		}
	}
	return bw.Flush()
}

// allDefault reports whether every range of ts keeps the default.
func allDefault(ts []Table) bool {
	for _, t := range ts {
		for _, r := range t.Ranges {
			if !r.Winner.IsDefault() {
				return false
			}
		}
	}
	return true
}
