package launch

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// checkHosts asserts what every parsed host list must hold: names that
// ssh cannot read as options and that the list syntaxes can carry, slots
// in 1..MaxSlots, no name twice; and that the list written back as a
// hostfile (Open MPI and MPICH syntax) and as a --host list reads the same.
func checkHosts(t *testing.T, hosts []Host) {
	t.Helper()
	if len(hosts) == 0 {
		t.Fatal("no hosts and no error")
	}
	seen := map[string]bool{}
	var ompi, mpich bytes.Buffer
	var list []string
	for _, h := range hosts {
		if h.Name == "" || strings.HasPrefix(h.Name, "-") || strings.IndexFunc(h.Name, badHostRune) >= 0 {
			t.Fatalf("host name %q accepted", h.Name)
		}
		if h.Slots < 1 || h.Slots > MaxSlots {
			t.Fatalf("host %q with %d slots", h.Name, h.Slots)
		}
		if seen[h.Name] {
			t.Fatalf("host %q listed twice", h.Name)
		}
		seen[h.Name] = true
		word := h.Name
		if strings.Contains(word, ":") {
			word = "[" + word + "]"
		}
		fmt.Fprintf(&ompi, "%s slots=%d\n", h.Name, h.Slots)
		fmt.Fprintf(&mpich, "%s:%d # from the fuzzer\n", word, h.Slots)
		list = append(list, fmt.Sprintf("%s:%d", word, h.Slots))
	}
	for _, back := range []struct {
		what string
		read func() ([]Host, error)
	}{
		{"Open MPI hostfile", func() ([]Host, error) { return ParseHostfile(&ompi, "back") }},
		{"MPICH hostfile", func() ([]Host, error) { return ParseHostfile(&mpich, "back") }},
		{"--host list", func() ([]Host, error) { return ParseHostList(strings.Join(list, ",")) }},
	} {
		got, err := back.read()
		if err != nil || !reflect.DeepEqual(got, hosts) {
			t.Fatalf("%v written as a %s reads as %v, %v", hosts, back.what, got, err)
		}
	}
}

func oneLine(t *testing.T, err error) {
	t.Helper()
	if msg := err.Error(); msg == "" || strings.ContainsAny(msg, "\r\n") {
		t.Fatalf("error is not one line: %q", msg)
	}
}

// FuzzParseHostfile checks the hostfile reader on any file (checkHosts;
// errors of one line).
// Run: go test ./launch -run '^$' -fuzz '^FuzzParseHostfile$' -fuzztime 30s
func FuzzParseHostfile(f *testing.F) {
	f.Add([]byte("node1 slots=2\nnode2:4 # MPICH\n\n# comment\nfd00::5 slots=2 max_slots=4\n[fd00::6]:2\nnode1\n"))
	f.Add([]byte("-oProxyCommand=touch\tslots=1\n"))
	f.Add([]byte("a slots=1048576\na\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		hosts, err := ParseHostfile(bytes.NewReader(data), "hf")
		if err != nil {
			oneLine(t, err)
			if !strings.HasPrefix(err.Error(), "hf") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		checkHosts(t, hosts)
	})
}

// FuzzParseHostList checks the --host parser on any text (checkHosts;
// errors of one line).
// Run: go test ./launch -run '^$' -fuzz '^FuzzParseHostList$' -fuzztime 30s
func FuzzParseHostList(f *testing.F) {
	for _, s := range []string{"a,b:2,[fd00::1]:3", "a,,b", "a:0", "-x", "a b", "fe80::1%eth0", "n:1048576,n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		hosts, err := ParseHostList(s)
		if err != nil {
			oneLine(t, err)
			return
		}
		checkHosts(t, hosts)
	})
}
