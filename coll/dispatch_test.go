package coll

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/mpbench/mpbench/comm"
)

// Operands of the dispatch tests: p ranks (a power of two, where pairwise
// exchanges differ from linear ones), blocks of b bytes (whole
// float64 elements), vectors of n = p*b bytes, root 2, pipeline segments
// of seg bytes (several per vector).
const (
	dispP    = 8
	dispB    = 96
	dispN    = dispP * dispB
	dispRoot = 2
	dispSeg  = 128
)

// directCalls runs each algorithm by calling its function directly, not
// through the table, on the operands of collectiveCalls. It is the test's
// own record of which function each listed name must run.
var directCalls = map[string]func(c comm.Comm) error{
	"bcast=linear":            func(c comm.Comm) error { return bcastLinear(c, make([]byte, dispN), dispRoot) },
	"bcast=binomial":          func(c comm.Comm) error { return bcastBinomial(c, make([]byte, dispN), dispRoot) },
	"bcast=pipeline":          func(c comm.Comm) error { return bcastPipeline(c, make([]byte, dispN), dispRoot, dispSeg) },
	"bcast=scatter_allgather": func(c comm.Comm) error { return bcastScatterAllgather(c, make([]byte, dispN), dispRoot) },
	"reduce=linear": func(c comm.Comm) error {
		return reduceLinear(c, make([]byte, dispN), make([]byte, dispN), Float64, Sum, dispRoot)
	},
	"reduce=binomial": func(c comm.Comm) error {
		return reduceBinomial(c, make([]byte, dispN), make([]byte, dispN), Float64, Sum, dispRoot)
	},
	"reduce=pipeline": func(c comm.Comm) error {
		return reducePipeline(c, make([]byte, dispN), make([]byte, dispN), Float64, Sum, dispRoot, dispSeg)
	},
	"reduce=rabenseifner": func(c comm.Comm) error {
		return reduceRabenseifner(c, make([]byte, dispN), make([]byte, dispN), Float64, Sum, dispRoot)
	},
	"allreduce=recursive_doubling": func(c comm.Comm) error {
		return allreduceRecursiveDoubling(c, make([]byte, dispN), make([]byte, dispN), Float64, Sum)
	},
	"allreduce=ring": func(c comm.Comm) error {
		return allreduceRing(c, make([]byte, dispN), make([]byte, dispN), Float64, Sum)
	},
	"allreduce=rabenseifner": func(c comm.Comm) error {
		return allreduceRabenseifner(c, make([]byte, dispN), make([]byte, dispN), Float64, Sum)
	},
	"reduce_scatter=recursive_halving":       redscatScratch(reduceScatterHalving),
	"reduce_scatter=ring":                    redscatScratch(reduceScatterRing),
	"reduce_scatter=pairwise":                redscatPairwise,
	"reduce_scatter_block=recursive_halving": redscatScratch(reduceScatterHalving),
	"reduce_scatter_block=ring":              redscatScratch(reduceScatterRing),
	"reduce_scatter_block=pairwise":          redscatPairwise,
	"gather=linear":                          gatherLinearDirect,
	"gather=binomial": func(c comm.Comm) error {
		return gatherBinomial(c, make([]byte, dispB), make([]byte, dispN), dispRoot)
	},
	"gatherv=linear": gatherLinearDirect,
	"scatter=linear": scatterLinearDirect,
	"scatter=binomial": func(c comm.Comm) error {
		return scatterBinomial(c, make([]byte, dispN), make([]byte, dispB), dispRoot)
	},
	"scatterv=linear":               scatterLinearDirect,
	"allgather=ring":                allgatherDirect(allgatherRing),
	"allgather=recursive_doubling":  allgatherDirect(allgatherRecursiveDoubling),
	"allgather=bruck":               allgatherDirect(allgatherBruck),
	"allgatherv=ring":               allgatherDirect(allgatherRing),
	"allgatherv=recursive_doubling": allgatherDirect(allgatherRecursiveDoubling),
	"allgatherv=bruck":              allgatherDirect(allgatherBruck),
	"alltoall=linear":               alltoallDirect(alltoallLinear),
	"alltoall=pairwise":             alltoallDirect(alltoallPairwise),
	"alltoall=bruck":                func(c comm.Comm) error { return alltoallBruck(c, make([]byte, dispN), make([]byte, dispN), dispB) },
	"alltoallv=linear":              alltoallDirect(alltoallLinear),
	"alltoallv=pairwise":            alltoallDirect(alltoallPairwise),
	"barrier=dissemination":         barrierDissemination,
	"barrier=tree":                  barrierTree,
	"barrier=linear":                barrierLinear,
}

func allgatherDirect(f func(c comm.Comm, own, buf []byte, l layout) error) func(comm.Comm) error {
	return func(c comm.Comm) error {
		return f(c, make([]byte, dispB), make([]byte, dispN), uniformLayout(dispP, dispB))
	}
}

func redscatScratch(f func(c comm.Comm, src, work []byte, l layout, dt Datatype, op Op, tag int) error) func(comm.Comm) error {
	return func(c comm.Comm) error {
		return f(c, make([]byte, dispN), make([]byte, dispN), uniformLayout(dispP, dispB), Float64, Sum, tagReduceScatter)
	}
}

func redscatPairwise(c comm.Comm) error {
	return reduceScatterPairwise(c, make([]byte, dispN), uniformLayout(dispP, dispB), make([]byte, dispB), Float64, Sum, tagReduceScatter)
}

func gatherLinearDirect(c comm.Comm) error {
	return gatherLinear(c, make([]byte, dispB), make([]byte, dispN), uniformLayout(dispP, dispB), dispRoot)
}

func scatterLinearDirect(c comm.Comm) error {
	return scatterLinear(c, make([]byte, dispN), uniformLayout(dispP, dispB), make([]byte, dispB), dispRoot)
}

func alltoallDirect(f func(c comm.Comm, s []byte, sl layout, r []byte, rl layout) error) func(comm.Comm) error {
	return func(c comm.Comm) error {
		l := uniformLayout(dispP, dispB)
		return f(c, make([]byte, dispN), l, make([]byte, dispN), l)
	}
}

// collectiveCalls calls each collective through its public method, which
// dispatches by the table, on the operands of directCalls.
var collectiveCalls = map[string]func(a Algorithms, c comm.Comm) error{
	"bcast": func(a Algorithms, c comm.Comm) error { return a.Bcast(c, make([]byte, dispN), dispRoot) },
	"reduce": func(a Algorithms, c comm.Comm) error {
		return a.Reduce(c, make([]byte, dispN), make([]byte, dispN), Float64, Sum, dispRoot)
	},
	"allreduce": func(a Algorithms, c comm.Comm) error {
		return a.Allreduce(c, make([]byte, dispN), make([]byte, dispN), Float64, Sum)
	},
	"reduce_scatter": func(a Algorithms, c comm.Comm) error {
		return a.ReduceScatter(c, make([]byte, dispN), make([]byte, dispB), uniformLayout(dispP, dispB).cnt, Float64, Sum)
	},
	"reduce_scatter_block": func(a Algorithms, c comm.Comm) error {
		return a.ReduceScatterBlock(c, make([]byte, dispN), make([]byte, dispB), Float64, Sum)
	},
	"gather": func(a Algorithms, c comm.Comm) error {
		return a.Gather(c, make([]byte, dispB), make([]byte, dispN), dispRoot)
	},
	"gatherv": func(a Algorithms, c comm.Comm) error {
		return a.Gatherv(c, make([]byte, dispB), make([]byte, dispN), uniformLayout(dispP, dispB).cnt, nil, dispRoot)
	},
	"scatter": func(a Algorithms, c comm.Comm) error {
		return a.Scatter(c, make([]byte, dispN), make([]byte, dispB), dispRoot)
	},
	"scatterv": func(a Algorithms, c comm.Comm) error {
		return a.Scatterv(c, make([]byte, dispN), uniformLayout(dispP, dispB).cnt, nil, make([]byte, dispB), dispRoot)
	},
	"allgather": func(a Algorithms, c comm.Comm) error {
		return a.Allgather(c, make([]byte, dispB), make([]byte, dispN))
	},
	"allgatherv": func(a Algorithms, c comm.Comm) error {
		return a.Allgatherv(c, make([]byte, dispB), make([]byte, dispN), uniformLayout(dispP, dispB).cnt, nil)
	},
	"alltoall": func(a Algorithms, c comm.Comm) error {
		return a.Alltoall(c, make([]byte, dispN), make([]byte, dispN))
	},
	"alltoallv": func(a Algorithms, c comm.Comm) error {
		cnt := uniformLayout(dispP, dispB).cnt
		return a.Alltoallv(c, make([]byte, dispN), cnt, nil, make([]byte, dispN), cnt, nil)
	},
	"barrier": func(a Algorithms, c comm.Comm) error { return a.Barrier(c) },
}

// messages is a trace as a list of "src->dst tag bytes" ordered by source
// rank and, for one source, in the order the rank sent them (its program
// order, which the interleaving of ranks does not change); the
// communicator context is left out.
func messages(tr []sent) []string {
	tr = slices.Clone(tr)
	slices.SortStableFunc(tr, func(a, b sent) int { return a.src - b.src })
	m := make([]string, len(tr))
	for i, s := range tr {
		m[i] = fmt.Sprintf("%d->%d t%d %dB", s.src, s.dst, s.tag, s.bytes)
	}
	return m
}

// TestEachListedAlgorithmRuns: for every algorithm of every collective's
// table, the public call with that override sends exactly the messages
// (source, destination, tag, bytes, in each rank's order) of the
// algorithm's own function called directly, and the algorithms of one
// collective send different messages, so no name runs another algorithm.
func TestEachListedAlgorithmRuns(t *testing.T) {
	for _, s := range specs {
		call, ok := collectiveCalls[s.name]
		if !ok {
			t.Errorf("collective %s has no entry in collectiveCalls", s.name)
			continue
		}
		seen := map[string]string{} // trace -> algorithm
		for _, alg := range s.names() {
			key := s.name + "=" + alg
			direct, ok := directCalls[key]
			if !ok {
				t.Errorf("%s is listed but has no entry in directCalls", key)
				continue
			}
			spec := key
			if s.algorithm(alg).segmented {
				spec += fmt.Sprintf(":seg=%d", dispSeg)
			}
			a := mustParse(t, spec)
			got := messages(runFake(t, dispP, func(c comm.Comm) error { return call(a, c) }))
			want := messages(runFake(t, dispP, direct))
			if len(want) == 0 {
				t.Fatalf("%s: the direct call sent nothing; the test's operands are too small", key)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s: the call sent %d messages unlike the algorithm's %d:\n got %s\nwant %s",
					key, len(got), len(want), strings.Join(got, ", "), strings.Join(want, ", "))
			}
			tr := strings.Join(want, ",")
			if other, dup := seen[tr]; dup {
				t.Errorf("%s sends the same messages as %s=%s: the test cannot tell them apart", key, s.name, other)
			}
			seen[tr] = alg
		}
	}
	for key := range directCalls {
		name, alg, _ := strings.Cut(key, "=")
		if s := specOf(name); s == nil || s.algorithm(alg) == nil {
			t.Errorf("directCalls has %s, which no table lists", key)
		}
	}
}

// TestRulesChooseListedAlgorithms: every step of every collective's
// default rule names an algorithm of its own table, only the last step is
// unconditional, and a collective that applies another's rule (as) has
// the algorithms that rule names.
func TestRulesChooseListedAlgorithms(t *testing.T) {
	for _, s := range specs {
		steps := s.steps()
		if len(steps) == 0 || (s.as != "") == (s.rule != nil) {
			t.Fatalf("%s: rule %v, as %q: want a rule of its own or another's", s.name, s.rule, s.as)
		}
		for i, st := range steps {
			if s.algorithm(st.alg) == nil {
				t.Errorf("%s: the default rule's step %d names %q; not in the table %v", s.name, i, st.alg, s.names())
			}
			if (st.when == nil) != (i == len(steps)-1) {
				t.Errorf("%s: step %d (%s) of %d: only the last step may be unconditional, and it must be", s.name, i, st.alg, len(steps))
			}
		}
	}
}

// TestDispatchRefusesUnlisted: a Choice naming no algorithm of the table
// is an error naming the valid ones, never a fallback to another.
func TestDispatchRefusesUnlisted(t *testing.T) {
	a := Algorithms{over: map[string]Choice{"allreduce": {Algorithm: "butterfly"}}}
	var msg string
	runFake(t, 2, func(c comm.Comm) error {
		err := a.Allreduce(c, make([]byte, 16), make([]byte, 16), Float64, Sum)
		if err == nil {
			return fmt.Errorf("an unlisted algorithm ran")
		}
		if c.Rank() == 0 {
			msg = err.Error()
		}
		return nil
	})
	names, _ := AlgorithmNames("allreduce")
	if !slices.Contains(names, "ring") || slices.Contains(names, "butterfly") {
		t.Fatalf("allreduce's algorithms %v: want ring among them, butterfly not", names)
	}
	want := `coll: Allreduce: no allreduce algorithm "butterfly" (valid: ` + strings.Join(names, ", ") + `)`
	if msg != want {
		t.Fatalf("error %q, want %q", msg, want)
	}
}

func TestAlgorithmNames(t *testing.T) {
	got, err := AlgorithmNames("MPI_Alltoallv")
	if err != nil || len(got) < 2 || got[0] != "linear" || !slices.Contains(got, "pairwise") {
		t.Fatalf("AlgorithmNames(MPI_Alltoallv) = %v, %v; want linear first, pairwise among them", got, err)
	}
	if plain, _ := AlgorithmNames("alltoallv"); !reflect.DeepEqual(plain, got) {
		t.Fatalf("AlgorithmNames(alltoallv) = %v, MPI_Alltoallv's %v", plain, got)
	}
	if _, err := AlgorithmNames("scan"); err == nil || !strings.Contains(err.Error(), "unknown collective \"scan\"") {
		t.Fatalf("AlgorithmNames(scan): %v", err)
	}
	if c := Collectives(); len(c) != len(specs) || c[0] != "bcast" || c[len(c)-1] != "barrier" {
		t.Fatalf("Collectives() = %v", c)
	}
}
