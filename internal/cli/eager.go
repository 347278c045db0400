package cli

import (
	"fmt"
	"strings"

	"github.com/mpbench/mpbench/comm"
	"github.com/mpbench/mpbench/launch"
	"github.com/mpbench/mpbench/transport"
)

// defaultEager is the eager threshold in bytes for the transport named
// ("shm", "tcp", "shm+tcp"): the registered transports' own
// (transport.EagerBytes; a job mixing transports takes the smaller), else
// the runtime's default.
func defaultEager(name string) int {
	if n := transport.EagerBytes(name); n > 0 {
		return n
	}
	return comm.DefaultEagerLimit
}

// transportModes returns the values --transport accepts for mpbench's own
// runtime: auto, then every registered transport the launcher starts ranks
// on; withMPI adds "mpi".
func transportModes(withMPI bool) []string {
	modes := append([]string{launch.TransportAuto}, transport.Launchable()...)
	if withMPI {
		modes = append(modes, "mpi")
	}
	return modes
}

// transportHelp is the usage text of --transport, built from the registry.
func transportHelp(withMPI bool) string {
	var b strings.Builder
	b.WriteString(strings.Join(transportModes(withMPI), ", ") + ": auto takes " + autoSummary())
	for _, name := range transport.Launchable() {
		d, _ := transport.Lookup(name)
		fmt.Fprintf(&b, "; %s: %s", name, d.Properties().Summary)
	}
	if withMPI {
		b.WriteString("; mpi: the linked MPI library, started with its launcher (binary built with -tags mpi)")
	}
	return b.String()
}

// reaching returns the launchable transports of the given reach, in the
// order a rank prefers them.
func reaching(r transport.Reach) []string {
	var names []string
	for _, d := range transport.ProcessDrivers() {
		if d.Properties().Reach == r {
			names = append(names, d.Properties().Name)
		}
	}
	return names
}

// autoSummary says what --transport auto takes, from the registry: "shm
// between ranks on one host, tcp between hosts".
func autoSummary() string {
	var parts []string
	if n := reaching(transport.SameHost); len(n) > 0 {
		parts = append(parts, strings.Join(n, " or ")+" between ranks on one host")
	}
	if n := reaching(transport.AnyHost); len(n) > 0 {
		parts = append(parts, strings.Join(n, " or ")+" between hosts")
	}
	return strings.Join(parts, ", ")
}

// checkTransport validates a --transport value; the error names the
// accepted values.
func checkTransport(name string, withMPI bool) error {
	modes := transportModes(withMPI)
	for _, m := range modes {
		if name == m {
			return nil
		}
	}
	return usageErrorf("--transport %s: expected one of %s", name, strings.Join(modes, ", "))
}
