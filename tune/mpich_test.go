package tune

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"
)

func TestParseMPIVars(t *testing.T) {
	data, err := os.ReadFile("testdata/mpivars-4.0.2.txt")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"bcast":     "binomial nb smp scatter_recursive_doubling_allgather scatter_ring_allgather",
		"allreduce": "nb smp recursive_doubling reduce_scatter_allgather",
		"alltoall":  "brucks nb pairwise pairwise_sendrecv_replace scattered",
		"allgather": "brucks nb recursive_doubling ring",
		"reduce":    "binomial nb smp reduce_scatter_gather",
		"barrier":   "nb smp dissemination",
	}
	for coll, w := range want {
		cs, err := ParseMPIVars(bytes.NewReader(data), coll)
		if err != nil {
			t.Errorf("%s: %v", coll, err)
			continue
		}
		var names []string
		for _, c := range cs {
			names = append(names, c.Algorithm)
		}
		if got := strings.Join(names, " "); got != w {
			t.Errorf("%s algorithms = %q, want %q", coll, got, w)
		}
	}
	if _, err := ParseMPIVars(bytes.NewReader(data), "scan"); err == nil {
		t.Error("ParseMPIVars found a scan algorithm variable that the file does not list")
	}
}

func TestWriteMPICH(t *testing.T) {
	defaults, err := os.ReadFile("testdata/mpich-4.0.2-mpir.json")
	if err != nil {
		t.Fatal(err)
	}
	def := Config{}
	tables := []Table{
		{Collective: "bcast", Ranks: 2, Ranges: []Range{{From: 0, Winner: Config{Algorithm: "binomial"}}, {From: 1024, Winner: def}}},
		{Collective: "bcast", Ranks: 4, Ranges: []Range{{From: 0, Winner: def}}},
		{Collective: "allgather", Ranks: 4, Ranges: []Range{{From: 0, Winner: def}, {From: 64, Winner: Config{Algorithm: "ring"}}}},
		{Collective: "barrier", Ranks: 2, Ranges: []Range{{From: 0, Winner: def}}},
	}
	var b bytes.Buffer
	if err := WriteMPICH(&b, []string{"measured by test"}, tables, defaults); err != nil {
		t.Fatal(err)
	}
	text := b.String()
	if !strings.HasPrefix(text, "/*\n * measured by test\n") {
		t.Errorf("file does not start with the header comment:\n%.200s", text)
	}
	body := text[strings.Index(text, "*/")+2:]
	var v map[string]any
	if err := json.Unmarshal([]byte(body), &v); err != nil {
		t.Fatalf("body is not JSON: %v", err)
	}
	tree, err := parseTree([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	orig, _ := parseTree(defaults)
	if len(tree) != len(orig) {
		t.Errorf("%d collectives, want the library's %d", len(tree), len(orig))
	}
	bcast, _ := find(tree, "collective=bcast")
	intra, _ := find(bcast, "comm_type=intra")
	if len(intra) != 2 || intra[0].key != "comm_size<=2" || intra[1].key != "comm_size=any" {
		t.Fatalf("bcast intra keys %v, want comm_size<=2 then comm_size=any", keys(intra))
	}
	r := intra[0].kids
	if len(r) != 2 || r[0].key != "avg_msg_size<=1023" || r[0].kids[0].key != "algorithm=MPIR_Bcast_intra_binomial" || r[1].key != "avg_msg_size=any" {
		t.Errorf("bcast on 2 ranks: %v", r)
	}
	origBcast, _ := find(orig, "collective=bcast")
	origIntra, _ := find(origBcast, "comm_type=intra")
	if len(r) == 2 && len(r[1].kids) != len(origIntra) {
		t.Errorf("the default range of bcast does not hold the library's own subtree")
	}
	if _, ok := find(bcast, "comm_type=inter"); !ok {
		t.Error("bcast lost the library's comm_type=inter subtree")
	}
	ag, _ := find(tree, "collective=allgather")
	agIntra, _ := find(ag, "comm_type=intra")
	if len(agIntra) != 1 || agIntra[0].kids[0].key != "total_msg_size<=255" || agIntra[0].kids[1].kids[0].key != "algorithm=MPIR_Allgather_intra_ring" {
		t.Errorf("allgather on 4 ranks: %v", agIntra)
	}
	bar, _ := find(tree, "collective=barrier")
	origBar, _ := find(orig, "collective=barrier")
	if len(bar) != len(origBar) {
		t.Error("barrier, kept at the default everywhere, changed")
	}
	if MPICHContainer("reduce_scatter", "nb") != "MPIR_Reduce_scatter_allcomm_nb" {
		t.Errorf("nb container = %s", MPICHContainer("reduce_scatter", "nb"))
	}
}

func keys(ns []node) []string {
	var k []string
	for _, n := range ns {
		k = append(k, n.key)
	}
	return k
}

func TestMPICHDefaults(t *testing.T) {
	want, err := os.ReadFile("testdata/mpich-4.0.2-mpir.json")
	if err != nil {
		t.Fatal(err)
	}
	lib := append([]byte("junk{\"collective=bcast\":{\"algorithm=MPIDI_x\":{}}}\x00more"), want...)
	lib = append(lib, 0, 'x')
	got, err := MPICHDefaults(lib)
	if err != nil || !bytes.Equal(got, want) {
		t.Errorf("MPICHDefaults found %d bytes (%v), want the MPIR tree of %d", len(got), err, len(want))
	}
	if _, err := MPICHDefaults([]byte("nothing")); err == nil {
		t.Error("MPICHDefaults found a tree in a library without one")
	}
}
