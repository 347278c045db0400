package cli

import (
	"errors"
	"io/fs"
	"net"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/mpbench/mpbench/launch"
	"github.com/mpbench/mpbench/transport"
)

// hostFlags place the ranks of "mpbench run" on several hosts.
type hostFlags struct {
	hostfile string
	hosts    string
	mapBy    string
	agent    string
	iface    string
}

// addHostFlags defines the multi-host options on fs.
func addHostFlags(fs *pflag.FlagSet, h *hostFlags) {
	fs.StringVar(&h.hostfile, "hostfile", "", "start ranks on the hosts in FILE: \"host slots=N\" (Open MPI) or \"host:N\" (MPICH) per line, # comments; -np defaults to the total slots")
	fs.StringVar(&h.hosts, "host", "", "start ranks on these hosts: a,b:2 (host[:slots], default 1 slot)")
	fs.StringVar(&h.mapBy, "map-by", launch.MapBySlot, "slot: fill each host's slots in turn; node: one rank per host, round robin")
	fs.StringVar(&h.agent, "launch-agent", "", "command that starts a rank on another host, {host} replaced by its name (default \"ssh -o BatchMode=yes -o ConnectTimeout=20 -T {host}\"; e.g. \"ip netns exec {host}\")")
	fs.StringVar(&h.iface, "if", "", "network of the job: interface name (eth1) or CIDR (10.1.0.0/16, fd00::/64); the rendezvous and every rank's TCP port use their host's address in it")
}

// hostPlan is where the ranks of a job run.
type hostPlan struct {
	hosts []string // host of each rank; nil: all on this host
	agent launch.Agent
}

// plan checks the host options and places the ranks of a job of *np
// ranks on the transport mode (--transport; ifaddr: the --ifaddr option
// of mpbench run, "" for none): hostList, then place. Without --hostfile
// or --host every rank is local; with one of them and -np not given, *np
// becomes the total number of slots (set on fs, so the ranks see it).
func (h *hostFlags) plan(np *int, mode, ifaddr string, fs *pflag.FlagSet) (hostPlan, error) {
	list, agent, err := h.hostList(ifaddr)
	if err != nil {
		return hostPlan{agent: agent}, err
	}
	if list == nil {
		return hostPlan{agent: agent}, checkCapacity(*np, nil, mode)
	}
	if !fs.Changed("np") {
		*np = launch.Slots(list)
		if err := fs.Set("np", strconv.Itoa(*np)); err != nil {
			return hostPlan{}, err
		}
	}
	hosts, err := h.place(list, *np, mode)
	if err == nil {
		err = checkCapacity(*np, hosts, mode)
	}
	return hostPlan{hosts: hosts, agent: agent}, err
}

// checkCapacity refuses, before anything is created, a job whose ranks on
// this host do not fit within its limits (launch.CheckCapacity: processes,
// open files, memory, /dev/shm); none for mode "mpi", whose ranks the MPI
// library's launcher starts, nor in a rank (the launcher checked).
func checkCapacity(np int, hosts []string, mode string) error {
	if mode == "mpi" || launch.IsWorker() {
		return nil
	}
	return launch.CheckCapacity(np, hosts, mode)
}

// hostList checks the placement options that do not depend on the number
// of ranks (--if, and against ifaddr, the --ifaddr of mpbench run;
// --launch-agent; --map-by; one of --hostfile and --host) and reads the
// hosts of --hostfile or --host, nil when neither is given. Commands that
// pass these options on to their jobs (tune) call it alone, to refuse a
// bad one once before the first job instead of failing every job; each
// job places its own ranks (place).
func (h *hostFlags) hostList(ifaddr string) ([]launch.Host, launch.Agent, error) {
	var agent launch.Agent
	if h.iface != "" && ifaddr != "" {
		return nil, agent, usageErrorf("--if %s and --ifaddr %s: give one (--if picks each host's own address)", h.iface, ifaddr)
	}
	if h.iface != "" {
		if _, _, err := net.ParseCIDR(h.iface); err != nil && strings.Contains(h.iface, "/") {
			return nil, agent, usageErrorf("--if %s: not a network (%v); give a network such as 10.1.0.0/16 or fd00::/64, or an interface name", h.iface, err)
		} else if err != nil {
			if _, err := net.InterfaceByName(h.iface); err != nil && !h.multiHost() {
				return nil, agent, usageErrorf("--if %s: no such interface here and not a CIDR network; give an interface name (ip link) or a network such as 10.1.0.0/16", h.iface)
			}
		}
	}
	if h.agent != "" {
		a, err := launch.ParseAgent(h.agent)
		if err != nil {
			return nil, agent, err
		}
		agent = a
	}
	if h.mapBy != launch.MapBySlot && h.mapBy != launch.MapByNode {
		return nil, agent, usageErrorf("--map-by %s: expected --map-by slot or --map-by node", h.mapBy)
	}
	var list []launch.Host
	var err error
	switch {
	case h.hostfile != "" && h.hosts != "":
		return nil, agent, usageErrorf("--hostfile %s and --host %s: give one of them", h.hostfile, h.hosts)
	case h.hostfile != "":
		list, err = readHostfile(h.hostfile)
	case h.hosts != "":
		list, err = launch.ParseHostList(h.hosts)
	}
	return list, agent, err
}

// place maps np ranks onto the hosts of list (--map-by) and checks that
// the transport mode reaches across the hosts they land on: one that
// reaches only ranks of one host (shm) is refused for ranks on several.
// It returns the host of each rank.
func (h *hostFlags) place(list []launch.Host, np int, mode string) ([]string, error) {
	hosts, err := launch.MapRanks(list, np, h.mapBy)
	if err != nil {
		return nil, err
	}
	if d, ok := transport.Lookup(mode); ok && d.Properties().Reach < transport.AnyHost {
		distinct := map[string]bool{}
		for _, h := range hosts {
			if launch.IsLocalHost(h) {
				h = ""
			}
			distinct[h] = true
		}
		if len(distinct) > 1 {
			return nil, usageErrorf("--transport %s: the ranks are on %d hosts and %s does not reach across hosts; use --transport auto (%s) or %s",
				mode, len(distinct), mode, autoSummary(), strings.Join(reaching(transport.AnyHost), " or "))
		}
	}
	return hosts, nil
}

// readHostfile reads --hostfile path (launch.ReadHostfile); a file that
// cannot be opened is a usage error naming the option: "--hostfile /nope:
// no such file".
func readHostfile(path string) ([]launch.Host, error) {
	list, err := launch.ReadHostfile(path)
	var pe *fs.PathError
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, usageErrorf("--hostfile %s: no such file", path)
	case errors.As(err, &pe):
		return nil, usageErrorf("--hostfile %s: %v", path, pe.Err)
	}
	return list, err
}

// runArgs returns the options of h that were given, as "mpbench run"
// arguments, for commands (tune) that start run jobs on the same hosts.
func (h *hostFlags) runArgs() []string {
	var a []string
	for _, o := range []struct{ name, v, def string }{
		{"--hostfile", h.hostfile, ""}, {"--host", h.hosts, ""}, {"--map-by", h.mapBy, launch.MapBySlot},
		{"--launch-agent", h.agent, ""}, {"--if", h.iface, ""},
	} {
		if o.v != o.def {
			a = append(a, o.name, o.v)
		}
	}
	return a
}

// multiHost reports whether --hostfile or --host was given.
func (h *hostFlags) multiHost() bool { return h.hostfile != "" || h.hosts != "" }

// multiHost reports whether --hostfile or --host was given.
func (f *runFlags) multiHost() bool { return f.hostOpts.multiHost() }
