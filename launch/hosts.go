package launch

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mpbench/mpbench/result"
)

// Host is one entry of a host list: a host name (or address) and the number
// of ranks it takes.
type Host struct {
	// Name is the host as the launch agent knows it: a name ssh resolves, an
	// IPv4 or IPv6 address, or, with a --launch-agent template such as
	// "ip netns exec {host}", whatever the template expects.
	Name string
	// Slots is the number of ranks the host takes, 1..MaxSlots.
	Slots int
}

// MaxSlots is the largest number of slots a host list may give one host.
const MaxSlots = 1 << 20

// ParseHostfile reads a hostfile in Open MPI's syntax ("node1 slots=4",
// optionally "max_slots=N", which is accepted and ignored) or MPICH's
// ("node1:4"), one host per line; a host without a count has one slot. "#"
// starts a comment; blank lines are skipped. A host listed twice adds its
// slots, in the position of its first line. IPv6 addresses are written bare
// ("fd00::2 slots=2") or in brackets with an MPICH count ("[fd00::2]:2").
// Errors name the file (name, for messages only) and the line.
func ParseHostfile(r io.Reader, name string) (hosts []Host, err error) {
	defer asHostsError(&err)
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line, _, _ := strings.Cut(sc.Text(), "#")
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		h, err := parseHostWord(fields[0])
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %v", name, n, err)
		}
		for _, f := range fields[1:] {
			k, v, _ := strings.Cut(f, "=")
			switch k {
			case "slots", "cpu", "cpus":
				s, err := strconv.Atoi(v)
				if err != nil || s < 1 || s > MaxSlots {
					return nil, fmt.Errorf("%s:%d: %q: want slots=N with N >= 1", name, n, f)
				}
				h.Slots = s
			case "max_slots", "max-slots":
			default:
				return nil, fmt.Errorf("%s:%d: %q: unknown field; want \"host slots=N\" (Open MPI) or \"host:N\" (MPICH)", name, n, f)
			}
		}
		if hosts, err = addHost(hosts, h); err != nil {
			return nil, fmt.Errorf("%s:%d: %v", name, n, err)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(hosts) == 0 {
		return nil, fmt.Errorf("%s: no hosts; want one host per line, e.g. \"node1 slots=2\" or \"node1:2\"", name)
	}
	return hosts, nil
}

// ReadHostfile is ParseHostfile on the file at path.
func ReadHostfile(path string) ([]Host, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, &HostsError{Err: err}
	}
	defer f.Close()
	return ParseHostfile(f, path)
}

// ParseHostList parses a --host list, "a,b:2,c" (Open MPI and MPICH): hosts
// separated by commas, each with an optional ":slots" (default 1).
func ParseHostList(s string) (hosts []Host, err error) {
	defer asHostsError(&err)
	for _, w := range strings.Split(s, ",") {
		w = strings.TrimSpace(w)
		if w == "" {
			return nil, fmt.Errorf("--host %q: empty host name; want e.g. \"node1,node2:2\"", s)
		}
		h, err := parseHostWord(w)
		if err != nil {
			return nil, fmt.Errorf("--host %q: %v", s, err)
		}
		if hosts, err = addHost(hosts, h); err != nil {
			return nil, fmt.Errorf("--host %q: %v", s, err)
		}
	}
	return hosts, nil
}

// parseHostWord parses "host", "host:N", "[v6addr]:N" or a bare IPv6
// address.
func parseHostWord(w string) (Host, error) {
	h := Host{Name: w, Slots: 1}
	count := ""
	switch {
	case strings.HasPrefix(w, "["):
		end := strings.Index(w, "]")
		if end < 0 {
			return h, fmt.Errorf("%q: missing ']' after an IPv6 address", w)
		}
		h.Name = w[1:end]
		if rest := w[end+1:]; rest != "" {
			if !strings.HasPrefix(rest, ":") {
				return h, fmt.Errorf("%q: want [address]:N", w)
			}
			count = rest[1:]
		}
	case strings.Count(w, ":") == 1:
		h.Name, count, _ = strings.Cut(w, ":")
	}
	if count != "" {
		s, err := strconv.Atoi(count)
		if err != nil || s < 1 || s > MaxSlots {
			return h, fmt.Errorf("%q: want host:N with 1 <= N <= %d slots", w, MaxSlots)
		}
		h.Slots = s
	}
	if h.Name == "" {
		return h, fmt.Errorf("%q: empty host name", w)
	}
	if strings.HasPrefix(h.Name, "-") {
		// ssh, the default launch agent, would read it as an option
		// (-oProxyCommand=... runs a command on this host).
		return h, fmt.Errorf("%q: a host name cannot start with '-'", w)
	}
	if i := strings.IndexFunc(h.Name, badHostRune); i >= 0 {
		return h, fmt.Errorf("%q: a host name cannot hold %q", w, []rune(h.Name[i:])[0])
	}
	if addr, _, _ := strings.Cut(h.Name, "%"); strings.Contains(h.Name, ":") && net.ParseIP(addr) == nil {
		return h, fmt.Errorf("%q: want host:N, or an IPv6 address as fd00::2 or [fd00::2]:N", w)
	}
	return h, nil
}

// badHostRune reports the characters a host name cannot hold: blanks and
// control characters, and those of the host list syntaxes (",", "#", "=",
// brackets).
func badHostRune(r rune) bool {
	return unicode.IsSpace(r) || unicode.IsControl(r) || strings.ContainsRune(",#=[]", r) || r == utf8.RuneError
}

// addHost appends h, or adds its slots to an earlier entry of the same
// name; a host's slots stay at most MaxSlots.
func addHost(hosts []Host, h Host) ([]Host, error) {
	for i := range hosts {
		if hosts[i].Name == h.Name {
			if hosts[i].Slots+h.Slots > MaxSlots {
				return nil, fmt.Errorf("host %s: more than %d slots", h.Name, MaxSlots)
			}
			hosts[i].Slots += h.Slots
			return hosts, nil
		}
	}
	return append(hosts, h), nil
}

// Slots is the total number of slots of hosts.
func Slots(hosts []Host) int {
	n := 0
	for _, h := range hosts {
		n += h.Slots
	}
	return n
}

// Mapping policies of MapRanks (Open MPI's --map-by names).
const (
	MapBySlot = "slot" // fill each host's slots before the next host
	MapByNode = "node" // one rank per host in turn, round robin
)

// MapRanks places np ranks on hosts and returns the host name of each rank
// (len np). MapBySlot gives host 0 its slots first (ranks 0..s0-1), then
// host 1, ...; MapByNode deals ranks round robin over the hosts that still
// have free slots. It refuses np above the total slots and an unknown
// policy, naming the fix.
func MapRanks(hosts []Host, np int, policy string) (_ []string, err error) {
	defer asHostsError(&err)
	if total := Slots(hosts); np > total {
		return nil, fmt.Errorf("-np %d: the hosts offer %d slots; lower -np or give hosts more slots (\"host slots=N\", \"host:N\")", np, total)
	}
	out := make([]string, 0, np)
	switch policy {
	case MapBySlot, "":
		for _, h := range hosts {
			for s := 0; s < h.Slots && len(out) < np; s++ {
				out = append(out, h.Name)
			}
		}
	case MapByNode:
		used := make([]int, len(hosts))
		for len(out) < np {
			for i, h := range hosts {
				if used[i] < h.Slots && len(out) < np {
					out = append(out, h.Name)
					used[i]++
				}
			}
		}
	default:
		return nil, fmt.Errorf("--map-by %s: want slot (fill each host in turn) or node (round robin over hosts)", policy)
	}
	return out, nil
}

// IsLocalHost reports whether name is this host: "localhost", a loopback
// address, or this host's name (os.Hostname, also without its domain).
// Ranks on it are started directly, without the launch agent.
func IsLocalHost(name string) bool {
	if name == "localhost" {
		return true
	}
	if ip := net.ParseIP(name); ip != nil {
		return ip.IsLoopback()
	}
	hn, err := os.Hostname()
	if err != nil {
		return false
	}
	short, _, _ := strings.Cut(hn, ".")
	return name == hn || name == short
}

// FormatRankHosts describes a rank-to-host map (hosts[r] is rank r's host)
// in one line, hosts in order of their first rank, ranks as ranges:
// "node1: 0-1; node2: 2-3" or, mapped by node, "node1: 0,2; node2: 1,3"
// (result.RankHosts.Format).
func FormatRankHosts(hosts []string) string { return result.RankHosts(hosts).Format(nil) }
