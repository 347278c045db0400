package launch

import (
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestParseHostfile(t *testing.T) {
	const f = `# Open MPI and MPICH lines mixed
node1 slots=2 max_slots=4
node2:3   # MPICH count

node3
fd00::5 slots=2
[fd00::6]:2
node1 slots=1
`
	got, err := ParseHostfile(strings.NewReader(f), "hf")
	if err != nil {
		t.Fatal(err)
	}
	want := []Host{{"node1", 3}, {"node2", 3}, {"node3", 1}, {"fd00::5", 2}, {"fd00::6", 2}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	for _, bad := range []struct{ text, want string }{
		{"node1 slots=0\n", "hf:1: \"slots=0\": want slots=N"},
		{"\nnode1 weight=2\n", "hf:2: \"weight=2\": unknown field"},
		{"node1:x\n", "hf:1: \"node1:x\": want host:N"},
		{"[fd00::1\n", "missing ']'"},
		{"# only a comment\n\n", "hf: no hosts"},
	} {
		if _, err := ParseHostfile(strings.NewReader(bad.text), "hf"); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%q: error %v, want %q", bad.text, err, bad.want)
		}
	}
}

func TestParseHostList(t *testing.T) {
	got, err := ParseHostList("a,b:2,[fd00::1]:3")
	if want := []Host{{"a", 1}, {"b", 2}, {"fd00::1", 3}}; err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("got %v %v, want %v", got, err, want)
	}
	if _, err := ParseHostList("a,,b"); err == nil {
		t.Error("empty entry accepted")
	}
}

func TestMapRanks(t *testing.T) {
	hosts := []Host{{"a", 2}, {"b", 1}, {"c", 3}}
	for _, tc := range []struct {
		np     int
		policy string
		want   string
	}{
		{6, MapBySlot, "a a b c c c"},
		{4, MapBySlot, "a a b c"},
		{6, MapByNode, "a b c a c c"},
		{4, MapByNode, "a b c a"},
	} {
		got, err := MapRanks(hosts, tc.np, tc.policy)
		if err != nil || strings.Join(got, " ") != tc.want {
			t.Errorf("np %d by %s: %v %v, want %s", tc.np, tc.policy, got, err, tc.want)
		}
	}
	if _, err := MapRanks(hosts, 7, MapBySlot); err == nil || !strings.Contains(err.Error(), "-np 7: the hosts offer 6 slots") {
		t.Errorf("np above slots: %v", err)
	}
	if _, err := MapRanks(hosts, 2, "socket"); err == nil {
		t.Error("unknown policy accepted")
	}
}

func TestFormatRankHosts(t *testing.T) {
	for _, tc := range []struct{ hosts, want string }{
		{"a a b b", "a: 0-1; b: 2-3"},
		{"a b a b", "a: 0,2; b: 1,3"},
		{"a a a b a", "a: 0-2,4; b: 3"},
		{"x", "x: 0"},
	} {
		if got := FormatRankHosts(strings.Fields(tc.hosts)); got != tc.want {
			t.Errorf("%q: %q, want %q", tc.hosts, got, tc.want)
		}
	}
}

func TestAgent(t *testing.T) {
	for _, tc := range []struct{ tmpl, want string }{
		{"ip netns exec {host}", "ip|netns|exec|n1|/bin/mpbench|" + BootstrapArg},
		{"ssh -p 2222", "ssh|-p|2222|n1|/bin/mpbench|" + BootstrapArg},
		{`ssh -F 'my config' -o "User=a b" {host}.cluster`, "ssh|-F|my config|-o|User=a b|n1.cluster|/bin/mpbench|" + BootstrapArg},
	} {
		a, err := ParseAgent(tc.tmpl)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(a.Command("n1", []string{"/bin/mpbench", BootstrapArg}), "|"); got != tc.want {
			t.Errorf("%q: %q, want %q", tc.tmpl, got, tc.want)
		}
	}
	if got := strings.Join(Agent{}.Command("n1", []string{"x"}), " "); got != "ssh -o BatchMode=yes -o ConnectTimeout=20 -T n1 x" {
		t.Errorf("default agent: %q", got)
	}
	for _, bad := range []string{"", "  ", "ssh 'unterminated"} {
		if _, err := ParseAgent(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	if !shellSafe("/usr/local/bin/mpbench-1.2_x86") || shellSafe("/home/a b/mpbench") || shellSafe("/x/$(rm)") {
		t.Error("shellSafe")
	}
}

func TestInterfaceAddr(t *testing.T) {
	for _, spec := range []string{"lo", "127.0.0.0/8"} {
		if ip, err := InterfaceAddr(spec); err != nil || ip.String() != "127.0.0.1" {
			t.Errorf("--if %s: %v %v, want 127.0.0.1", spec, ip, err)
		}
	}
	for _, spec := range []string{"nosuchif0", "203.0.113.248/29"} {
		if _, err := InterfaceAddr(spec); err == nil || !strings.Contains(err.Error(), "lo=127.0.0.1") {
			t.Errorf("--if %s: %v, want an error listing this host's addresses", spec, err)
		}
	}
}

// TestHostsErrors: every parser of where ranks run refuses bad input with a
// *HostsError, which a command line maps to its usage status, keeping the
// message that names the input.
func TestHostsErrors(t *testing.T) {
	two := []Host{{Name: "a", Slots: 1}, {Name: "b", Slots: 1}}
	for name, err := range map[string]error{
		"ParseHostfile": second(ParseHostfile(strings.NewReader("node1 slots=x\n"), "hf")),
		"ReadHostfile":  second(ReadHostfile(filepath.Join(t.TempDir(), "missing"))),
		"ParseHostList": second(ParseHostList("a,,b")),
		"MapRanks np":   second(MapRanks(two, 3, MapBySlot)),
		"MapRanks -map": second(MapRanks(two, 2, "core")),
		"ParseAgent":    second(ParseAgent(`ssh "unterminated`)),
	} {
		var he *HostsError
		if !errors.As(err, &he) || he.Error() != err.Error() || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %T %v, want a one-line *HostsError", name, err, err)
		}
	}
}

func second[A any](_ A, err error) error { return err }
