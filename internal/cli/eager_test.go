package cli

import "testing"

// TestDefaultEager: each transport gets its measured threshold, a mixed
// job the smaller one, anything else the runtime's default.
func TestDefaultEager(t *testing.T) {
	for name, want := range map[string]int{"tcp": 262144, "shm": 65536, "shm+tcp": 65536, "mpi": 65536} {
		if got := defaultEager(name); got != want {
			t.Errorf("defaultEager(%q) = %d, want %d", name, got, want)
		}
	}
}
