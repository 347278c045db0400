package coll

import (
	"slices"
	"strings"
	"testing"
)

func TestParseAlgorithms(t *testing.T) {
	a, err := ParseAlgorithms("bcast=pipeline:seg=4096, Allreduce=ring,Reduce_scatter=pairwise,gather=linear")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := a.String(), "allreduce=ring,bcast=pipeline:seg=4096,gather=linear,reduce_scatter=pairwise"; got != want {
		t.Fatalf("String() = %q, want %q", got, want)
	}
	if ch, _ := a.Select("Bcast", 4, 8); ch != (Choice{"pipeline", 4096}) {
		t.Fatalf("bcast override = %+v", ch)
	}
	if ch, _ := a.Select("allreduce", 4, 8); ch.Algorithm != "ring" {
		t.Fatalf("allreduce override = %+v", ch)
	}
	if ch, _ := a.Select("reduce", 4, 8); ch.Algorithm != "binomial" {
		t.Fatalf("reduce without override = %+v, want the table's binomial", ch)
	}
	b, err := ParseAlgorithms("bcast=auto,allreduce=ring")
	if err != nil || b.String() != "allreduce=ring" {
		t.Fatalf("auto should leave bcast to the table: %q, %v", b.String(), err)
	}
	if ch, _ := mustParse(t, "reduce=pipeline").Select("reduce", 2, 1); ch.Segment != DefaultSegment {
		t.Fatalf("pipeline without seg = %+v, want seg %d", ch, DefaultSegment)
	}
}

func mustParse(t *testing.T, s string) Algorithms {
	t.Helper()
	a, err := ParseAlgorithms(s)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// validList is the "(valid: ...)" list an error names for collective's
// algorithms: the table's names in order, then auto. It fails the test
// unless the table holds each of known.
func validList(t *testing.T, collective string, known ...string) string {
	t.Helper()
	names, err := AlgorithmNames(collective)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range known {
		if !slices.Contains(names, k) {
			t.Errorf("%s's algorithms %v lack %s", collective, names, k)
		}
	}
	return "(valid: " + strings.Join(append(names, "auto"), ", ") + ")"
}

func TestParseAlgorithmsErrors(t *testing.T) {
	cases := map[string]string{
		"bcst=linear": "\"bcst=linear\": unknown collective \"bcst\" (valid: bcast, reduce, allreduce",
		"bcast=binomial,allreduce=ring,bcast=linear": "bcast is given twice (bcast=binomial and bcast=linear); give each collective one algorithm",
		"Bcast=auto,bcast=linear":                    "bcast is given twice (Bcast=auto and bcast=linear)",
		"bcast=pipeline:seg=1024:seg=2048":           "\"bcast=pipeline:seg=1024:seg=2048\": seg is given twice; give one segment size",
		"bcast=ring":                                 "unknown bcast algorithm \"ring\" " + validList(t, "bcast", "linear", "binomial", "pipeline", "scatter_allgather"),
		"bcast":                                      "expected collective=algorithm[:seg=BYTES]",
		"bcast=binomial:seg=100":                     "unknown option \"seg=100\"",
		"bcast=pipeline:seg=-1":                      "seg must be a positive number of bytes, got \"-1\"",
		"bcast=pipeline:seg=x":                       "got \"x\"",
		"allreduce=pipeline":                         "unknown allreduce algorithm \"pipeline\" " + validList(t, "allreduce", "recursive_doubling", "ring", "rabenseifner"),
	}
	for in, want := range cases {
		_, err := ParseAlgorithms(in)
		if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("ParseAlgorithms(%q) = %v, want one line containing %q", in, err, want)
		}
	}
	if _, err := (Algorithms{}).Select("nosuch", 2, 2); err == nil {
		t.Error("Select of an unknown collective succeeded")
	}
}

// TestDefaultTable checks the MPICH thresholds at their boundaries.
func TestDefaultTable(t *testing.T) {
	cases := []struct {
		coll     string
		p, bytes int
		want     string
	}{
		{"bcast", 16, 12287, "binomial"},
		{"bcast", 16, 12288, "scatter_allgather"},
		{"bcast", 7, 1 << 20, "binomial"},
		{"reduce", 4, 2048, "binomial"},
		{"reduce", 4, 2049, "rabenseifner"},
		{"allreduce", 4, 2048, "recursive_doubling"},
		{"allreduce", 5, 2049, "rabenseifner"},
		{"reduce", 2, 1 << 22, "binomial"},
		{"allreduce", 2, 1 << 22, "recursive_doubling"},
		{"reduce", 3, 2049, "rabenseifner"},
		{"allreduce", 3, 2049, "rabenseifner"},
		{"reduce_scatter", 4, 524287, "recursive_halving"},
		{"reduce_scatter", 4, 524288, "pairwise"},
		{"reduce_scatter_block", 4, 131072, "pairwise"},
		{"allgather", 8, 65535, "recursive_doubling"},
		{"allgather", 6, 13653, "bruck"}, // 81918 bytes in all
		{"allgather", 6, 13654, "ring"},  // 81924 bytes in all
		{"allgather", 8, 65536, "ring"},  // 524288 bytes in all
		{"allgatherv", 3, 100, "bruck"},
		{"alltoall", 8, 256, "bruck"},
		{"alltoall", 7, 256, "linear"},
		{"alltoall", 8, 32767, "linear"},
		{"alltoall", 8, 32768, "pairwise"},
		{"gather", 9, 1, "binomial"},
		{"scatterv", 9, 1, "linear"},
		{"barrier", 9, 0, "dissemination"},
		{"barrier", 8, 0, "dissemination"},
		{"barrier", 3, 0, "dissemination"},
		{"barrier", 4, 0, "linear"},
		{"barrier", 7, 0, "linear"},
	}
	for _, c := range cases {
		ch, err := Algorithms{}.Select(c.coll, c.p, c.bytes)
		if err != nil || ch.Algorithm != c.want {
			t.Errorf("Select(%s, %d ranks, %d bytes) = %v, %v; want %s", c.coll, c.p, c.bytes, ch, err, c.want)
		}
	}
}

func TestWriteTable(t *testing.T) {
	var b strings.Builder
	if err := mustParse(t, "alltoall=bruck").WriteTable(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, s := range specs {
		if !strings.Contains(out, "\n"+s.name+" ") {
			t.Errorf("table lacks a row for %s", s.name)
		}
	}
	for _, want := range []string{"override: bruck", "default (MPICH): binomial if bytes < 12288 or ranks < 8, else scatter_allgather"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
}
