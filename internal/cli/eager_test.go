package cli

import (
	"slices"
	"strings"
	"testing"

	"github.com/mpbench/mpbench/transport"
)

// TestDefaultEager: each transport gets its measured threshold, a mixed
// job the smaller one, anything else the runtime's default.
func TestDefaultEager(t *testing.T) {
	for name, want := range map[string]int{"tcp": 262144, "shm": 1048576, "shm+tcp": 262144, "mpi": 65536} {
		if got := defaultEager(name); got != want {
			t.Errorf("defaultEager(%q) = %d, want %d", name, got, want)
		}
	}
}

// TestTransportFlag: --transport accepts auto, each registered transport
// the launcher starts ranks on (shm and tcp among them), and mpi where it is
// meant; the help names every one of them with its summary.
func TestTransportFlag(t *testing.T) {
	launchable := transport.Launchable()
	for _, want := range []string{"shm", "tcp"} {
		if !slices.Contains(launchable, want) {
			t.Fatalf("launchable transports %v lack %s", launchable, want)
		}
	}
	for _, ok := range append([]string{"auto"}, launchable...) {
		if err := checkTransport(ok, false); err != nil {
			t.Errorf("checkTransport(%q): %v", ok, err)
		}
	}
	if err := checkTransport("mpi", true); err != nil {
		t.Errorf("checkTransport(mpi) where MPI is accepted: %v", err)
	}
	list := "auto, " + strings.Join(launchable, ", ")
	for _, bad := range []string{"mpi", "inmem", "udp", ""} {
		err := checkTransport(bad, false)
		if err == nil || !strings.HasSuffix(err.Error(), "expected one of "+list) {
			t.Errorf("checkTransport(%q) = %v, want an error listing %s", bad, err, list)
		}
	}
	help := transportHelp(true)
	wants := []string{list + ", mpi:", "shm: shared memory", "tcp: TCP", "mpi: the linked MPI library"}
	for _, name := range launchable {
		d, _ := transport.Lookup(name)
		wants = append(wants, name+": "+d.Properties().Summary)
	}
	for _, want := range wants {
		if !strings.Contains(help, want) {
			t.Errorf("help %q lacks %q", help, want)
		}
	}
}
