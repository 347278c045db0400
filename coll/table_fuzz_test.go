package coll

import (
	"errors"
	"strings"
	"testing"
)

// FuzzParseAlgorithms checks the --coll parser on any text: errors are one
// line and a *ChoiceError; an accepted spec prints (String) as a spec that
// parses back to the same overrides, and every collective then selects one
// of its own algorithms, pipelines with a positive segment.
// Run: go test ./coll -run '^$' -fuzz '^FuzzParseAlgorithms$' -fuzztime 30s
func FuzzParseAlgorithms(f *testing.F) {
	for _, s := range []string{"bcast=pipeline:seg=16384,allreduce=ring", "MPI_Reduce_scatter=pairwise", "bcast=auto",
		"reduce=pipeline", "alltoall=bruck:seg=1", "bcast=pipeline:seg=-1", "barrier", " , ", "Bcast = Binomial "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		a, err := ParseAlgorithms(spec)
		if err != nil {
			var ce *ChoiceError
			if !errors.As(err, &ce) || strings.ContainsAny(err.Error(), "\r\n") {
				t.Fatalf("error %q: want one line from a *ChoiceError", err)
			}
			return
		}
		back, err := ParseAlgorithms(a.String())
		if err != nil || back.String() != a.String() {
			t.Fatalf("%q prints as %q, which reads back as %q, %v", spec, a.String(), back.String(), err)
		}
		for _, s := range specs {
			for _, p := range []int{1, 2, 3, 8} {
				for _, n := range []int{0, 1, 1 << 20} {
					ch := a.choose(s.name, p, n)
					if alg := s.algorithm(ch.Algorithm); alg == nil || alg.segmented != (ch.Segment > 0) {
						t.Fatalf("%q: %s on %d ranks, %d bytes selects %+v", spec, s.name, p, n, ch)
					}
				}
			}
		}
	})
}
