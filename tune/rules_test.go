package tune

import (
	"bytes"
	"strings"
	"testing"
)

func sampleTables(t *testing.T) []Table {
	t.Helper()
	var points []Point
	ring := Config{Algorithm: "ring", ID: 4}
	for _, n := range []int{0, 1024, 65536, 1 << 20} {
		def := []float64{10, 10, 10}
		fast := []float64{10, 10, 10}
		if n >= 65536 {
			fast = []float64{5, 5, 5}
		}
		points = append(points, pt("allgather", 2, n, Config{}, def...), pt("allgather", 2, n, ring, fast...))
		points = append(points, pt("allgather", 4, n, Config{}, def...), pt("allgather", 4, n, ring, def...))
	}
	points = append(points, pt("barrier", 2, 0, Config{}, 3, 3), pt("barrier", 2, 0, Config{Algorithm: "tree", ID: 6}, 1, 1))
	tables, err := Decide(points, Options{MinGain: 0.03})
	if err != nil {
		t.Fatal(err)
	}
	return tables
}

func TestRulesRoundTripAndLookup(t *testing.T) {
	rs := RulesFromTables(sampleTables(t))
	var buf bytes.Buffer
	if err := WriteRules(&buf, []string{"measured by test"}, rs); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(buf.String(), "# measured by test\n") {
		t.Errorf("rules file does not start with the header comment:\n%s", buf.String())
	}
	back, err := ParseRules(&buf, "rules")
	if err != nil {
		t.Fatal(err)
	}
	if len(back) != 4 {
		t.Fatalf("read %d rules, want 4 (allgather 2: two ranges, allgather 4: one, barrier 2: one):\n%v", len(back), back)
	}
	cases := []struct {
		coll         string
		ranks, bytes int
		want         string
		found        bool
	}{
		{"allgather", 2, 0, "default", true},
		{"allgather", 2, 65535, "default", true},
		{"allgather", 2, 65536, "ring", true},
		{"allgather", 3, 1 << 22, "ring", true}, // 3 ranks use the rules of 2
		{"allgather", 8, 1 << 22, "default", true},
		{"allgather", 1, 1 << 22, "ring", true}, // below every listed count: the smallest
		{"barrier", 64, 0, "tree", true},
		{"bcast", 2, 0, "default", false},
	}
	for _, c := range cases {
		got, ok := back.Lookup(c.coll, c.ranks, c.bytes)
		if got.String() != c.want || ok != c.found {
			t.Errorf("Lookup(%s, %d, %d) = %v, %v; want %s, %v", c.coll, c.ranks, c.bytes, got, ok, c.want, c.found)
		}
	}
}

func TestParseRulesErrors(t *testing.T) {
	_, err := ParseRules(strings.NewReader("bcast 4 0 binomial\nbcast 4 1024 linear\n# x\nBcast 4 0 linear\n"), "f")
	if want := "f:4: bcast at ranks 4 from 0 bytes is given twice (lines 1 and 4); keep one algorithm per collective, ranks and from_bytes"; err == nil || err.Error() != want {
		t.Errorf("a rule given twice: error %v, want %q", err, want)
	}
	for _, in := range []string{"", "# only a comment\n", "bcast 2 0\n", "bcast x 0 ring\n", "bcast 2 -1 ring\n", "bcast 2 0 ring:seg=x\n"} {
		if _, err := ParseRules(strings.NewReader(in), "f"); err == nil {
			t.Errorf("ParseRules(%q) succeeded", in)
		} else if in != "" && !strings.HasPrefix(err.Error(), "f:") {
			t.Errorf("error %q does not name the file", err)
		}
	}
}

func TestParseOMPIInfo(t *testing.T) {
	o := readOMPIInfo(t)
	b := o.Algorithms["bcast"]
	if len(b) != 9 || b[0] != (Config{Algorithm: "basic_linear", ID: 1}) || b[8] != (Config{Algorithm: "scatter_allgather_ring", ID: 9}) {
		t.Errorf("bcast algorithms = %v, want 1 basic_linear .. 9 scatter_allgather_ring", b)
	}
	if len(o.Algorithms["barrier"]) != 6 || !o.Segmentable["bcast"] || o.Segmentable["barrier"] {
		t.Errorf("barrier algorithms %v, segmentable %v", o.Algorithms["barrier"], o.Segmentable)
	}
	if o.OMPIFanout("bcast") != 4 || o.OMPIFanout("barrier") != 0 {
		t.Errorf("fanouts: bcast %d (want 4), barrier %d (want 0)", o.OMPIFanout("bcast"), o.OMPIFanout("barrier"))
	}
	if _, err := ParseOMPIInfo(strings.NewReader("mca:coll:tuned:param:coll_tuned_priority:value:30\n")); err == nil {
		t.Error("ParseOMPIInfo without algorithm controls succeeded")
	}
}

func TestWriteOMPI(t *testing.T) {
	var buf bytes.Buffer
	err := WriteOMPI(&buf, []string{"measured by test"}, sampleTables(t), func(string) int { return 4 })
	if err != nil {
		t.Fatal(err)
	}
	var body []string
	for _, l := range strings.Split(buf.String(), "\n") {
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		body = append(body, l)
	}
	want := []string{
		"2 # number of collectives",
		"0 # collective id: allgather",
		"2 # number of communicator sizes",
		"2 # communicator size",
		"2 # number of message sizes",
		"0 0 0 0 # default",
		"131072 4 4 0 # ring", // 65536 bytes per rank times 2 ranks
		"4 # communicator size",
		"1 # number of message sizes",
		"0 0 0 0 # default",
		"6 # collective id: barrier",
		"1 # number of communicator sizes",
		"2 # communicator size",
		"1 # number of message sizes",
		"0 6 4 0 # tree",
	}
	if strings.Join(body, "\n") != strings.Join(want, "\n") {
		t.Errorf("rules file body:\n%s\nwant:\n%s", strings.Join(body, "\n"), strings.Join(want, "\n"))
	}
	bad := []Table{{Collective: "bcast", Ranks: 2, Ranges: []Range{{Winner: Config{Algorithm: "x"}}}}}
	if err := WriteOMPI(&buf, nil, bad, nil); err == nil {
		t.Error("WriteOMPI of an algorithm without a number succeeded")
	}
}
