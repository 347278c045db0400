package cli

import (
	"strings"
	"testing"
)

// TestDefaultEager: each transport gets its measured threshold, a mixed
// job the smaller one, anything else the runtime's default.
func TestDefaultEager(t *testing.T) {
	for name, want := range map[string]int{"tcp": 262144, "shm": 65536, "shm+tcp": 65536, "mpi": 65536} {
		if got := defaultEager(name); got != want {
			t.Errorf("defaultEager(%q) = %d, want %d", name, got, want)
		}
	}
}

// TestTransportFlag: --transport accepts auto, each registered transport
// the launcher starts ranks on, and mpi where it is meant; the help names
// every one of them with its summary.
func TestTransportFlag(t *testing.T) {
	for _, ok := range []string{"auto", "shm", "tcp"} {
		if err := checkTransport(ok, false); err != nil {
			t.Errorf("checkTransport(%q): %v", ok, err)
		}
	}
	if err := checkTransport("mpi", true); err != nil {
		t.Errorf("checkTransport(mpi) where MPI is accepted: %v", err)
	}
	for _, bad := range []string{"mpi", "inmem", "udp", ""} {
		err := checkTransport(bad, false)
		if err == nil || !strings.Contains(err.Error(), "expected one of auto, shm, tcp") {
			t.Errorf("checkTransport(%q) = %v, want an error listing auto, shm, tcp", bad, err)
		}
	}
	help := transportHelp(true)
	for _, want := range []string{"auto, shm, tcp, mpi:", "shm: shared memory", "tcp: TCP", "mpi: the linked MPI library"} {
		if !strings.Contains(help, want) {
			t.Errorf("help %q lacks %q", help, want)
		}
	}
}
