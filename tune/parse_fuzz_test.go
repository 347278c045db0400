package tune

import (
	"bufio"
	"bytes"
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// addLines seeds f with the first n lines of a testdata file.
func addLines(f *testing.F, name string, n int) {
	f.Helper()
	data, err := os.ReadFile("testdata/" + name)
	if err != nil {
		f.Fatal(err)
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	f.Add(bytes.Join(lines[:min(n, len(lines))], nil))
}

func oneLineErr(t *testing.T, err error) {
	t.Helper()
	if msg := err.Error(); msg == "" || strings.ContainsAny(msg, "\r\n") {
		t.Fatalf("error is not one line: %q", msg)
	}
}

// FuzzParseRules checks the rules-file reader on any file: errors are one
// line naming the file; accepted rules have ranks >= 1 and from_bytes >= 0,
// are sorted, and written back with WriteRules read the same.
// Run: go test ./tune -run '^$' -fuzz '^FuzzParseRules$' -fuzztime 30s
func FuzzParseRules(f *testing.F) {
	var buf bytes.Buffer
	rs := Rules{{"bcast", 4, 0, Config{Algorithm: "binomial"}}, {"bcast", 4, 65536, Config{Algorithm: "pipeline", Segment: 16384}},
		{"allreduce", 2, 0, Config{}}}
	if err := WriteRules(&buf, []string{"measured on a test", "second line"}, rs); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes())
	f.Add([]byte("bcast 4 0 pipeline:seg=0\n"))
	f.Add([]byte("Bcast 1 0 auto # x\nreduce 2 -1 ring\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		rs, err := ParseRules(bytes.NewReader(data), "rules")
		if err != nil {
			oneLineErr(t, err)
			if !strings.HasPrefix(err.Error(), "rules") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		for i, r := range rs {
			if r.Ranks < 1 || r.From < 0 || r.Collective == "" || r.Config.Segment < 0 {
				t.Fatalf("rule %+v accepted", r)
			}
			if i > 0 && (rs[i-1].Collective > r.Collective || rs[i-1].Collective == r.Collective &&
				(rs[i-1].Ranks > r.Ranks || rs[i-1].Ranks == r.Ranks && rs[i-1].From > r.From)) {
				t.Fatalf("rules not sorted at %d: %+v", i, rs)
			}
		}
		var back bytes.Buffer
		if err := WriteRules(&back, []string{"fuzz"}, rs); err != nil {
			t.Fatal(err)
		}
		again, err := ParseRules(&back, "back")
		if err != nil || !reflect.DeepEqual(again, rs) {
			t.Fatalf("rules %+v written back read as %+v, %v", rs, again, err)
		}
	})
}

// FuzzParseOMPIInfo checks the ompi_info reader on any output: accepted
// algorithms have non-zero numbers in increasing order and names; errors
// are one line.
// Run: go test ./tune -run '^$' -fuzz '^FuzzParseOMPIInfo$' -fuzztime 30s
func FuzzParseOMPIInfo(f *testing.F) {
	addLines(f, "ompi_info-4.1.4.txt", 60)
	f.Add([]byte("mca:coll:tuned:param:coll_tuned_use_dynamic_rules:value:false\nmca:coll:tuned:param:coll_tuned_dynamic_rules_filename:value:\n" +
		"mca:coll:tuned:param:coll_tuned_bcast_algorithm:enumerator:value:1:basic_linear\nmca:coll:tuned:param:coll_tuned_bcast_algorithm:enumerator:value:0:ignore\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		o, err := ParseOMPIInfo(bytes.NewReader(data))
		if err != nil {
			oneLineErr(t, err)
			return
		}
		if !o.DynamicRules || len(o.Algorithms) == 0 {
			t.Fatalf("accepted without dynamic rules or algorithms: %+v", o)
		}
		for coll, algs := range o.Algorithms {
			for i, a := range algs {
				if a.ID == 0 || i > 0 && algs[i-1].ID > a.ID {
					t.Fatalf("%s: algorithms %+v", coll, algs)
				}
			}
		}
	})
}

var algName = regexp.MustCompile(`^[a-z0-9_]+$`)

// FuzzParseMPIVars checks the mpivars reader on any output: every name is
// a plain algorithm name, "auto" left out; errors are one line.
// Run: go test ./tune -run '^$' -fuzz '^FuzzParseMPIVars$' -fuzztime 30s
func FuzzParseMPIVars(f *testing.F) {
	data, err := os.ReadFile("testdata/mpivars-4.0.2.txt")
	if err != nil {
		f.Fatal(err)
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if strings.Contains(sc.Text(), "MPIR_CVAR_BCAST_INTRA_ALGORITHM") {
			f.Add(append(sc.Bytes(), '\n'))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		cs, err := ParseMPIVars(bytes.NewReader(data), "bcast")
		if err != nil {
			oneLineErr(t, err)
			return
		}
		for _, c := range cs {
			if !algName.MatchString(c.Algorithm) || c.Algorithm == "auto" {
				t.Fatalf("algorithm %q read", c.Algorithm)
			}
		}
	})
}

// FuzzParseTree checks the reader of MPICH's collective-selection JSON on
// any text: a tree it reads is written by writeTree as JSON that reads as
// the same tree, keys in the same order.
// Run: go test ./tune -run '^$' -fuzz '^FuzzParseTree$' -fuzztime 30s
func FuzzParseTree(f *testing.F) {
	f.Add([]byte(`{"collective=bcast": {"comm_size<=8": {"algorithm=MPIR_Bcast_intra_binomial": {}}, "comm_size=any": {}}}`))
	f.Add([]byte(`{"a": {}, "a": {"\u00e9\n": {}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		ns, err := parseTree(data)
		if err != nil {
			return
		}
		var buf bytes.Buffer
		w := bufio.NewWriter(&buf)
		writeTree(w, ns, "")
		w.Flush()
		again, err := parseTree(buf.Bytes())
		if err != nil || !sameTree(again, ns) {
			t.Fatalf("tree %+v written as\n%s\nreads as %+v, %v", ns, buf.Bytes(), again, err)
		}
	})
}

func sameTree(a, b []node) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].key != b[i].key || !sameTree(a[i].kids, b[i].kids) {
			return false
		}
	}
	return true
}
