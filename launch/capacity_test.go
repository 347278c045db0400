package launch

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// unlimited is a Capacity that bounds nothing.
var unlimited = Capacity{Tasks: -1, Files: -1, Memory: -1, Shm: -1}

// TestCapacityRefusesEachLimit: each of the host's limits, set low, refuses
// a job it cannot hold with the largest -np that fits under it and the way
// to raise it; a job within every limit is not refused.
func TestCapacityRefusesEachLimit(t *testing.T) {
	for _, c := range []struct {
		name   string
		cap    Capacity
		np     int
		mode   string
		max    int
		wants  []string
		within int // a -np the same limits hold
	}{
		{"memory", Capacity{Tasks: -1, Files: -1, Memory: 1 << 30, MemoryLimit: "the host has 1024 MiB available (MemAvailable)", Shm: -1},
			100000, "tcp", 64, []string{"-np 100000: this host cannot hold 100000 ranks: 100000 ranks need at least 1562.5 GiB of memory (16 MiB per rank), and the host has 1024 MiB available (MemAvailable); the largest -np that fits is 64"}, 64},
		{"files", Capacity{Tasks: -1, Files: 1024, Memory: -1, Shm: -1},
			2000, "tcp", 338, []string{"2000 ranks need about 6008 open files per process, and the limit is 1024; raise it (ulimit -n 6008); the largest -np that fits is 338"}, 338},
		{"a rank's files", Capacity{Tasks: -1, Files: 20, Memory: -1, Shm: -1},
			12, "tcp", 4, []string{"12 ranks need about 44 open files per process, and the limit is 20"}, 4},
		{"tasks", Capacity{Tasks: 600, TasksLimit: "the pids cgroup /sys/fs/cgroup/pids/job (raise its pids.max)", Files: -1, Memory: -1, Shm: -1},
			101, "shm", 100, []string{"101 ranks need about 606 processes and threads, and the pids cgroup /sys/fs/cgroup/pids/job (raise its pids.max) lets 600 more start; the largest -np that fits is 100"}, 100},
		// /dev/shm of 64 MiB: 7 ranks' rings of 1 MiB take 49 MiB and
		// change, 8 ranks' 64 MiB and their control blocks.
		{"shm", Capacity{Tasks: -1, Files: -1, Memory: -1, Shm: 64 << 20},
			64, "shm", 7, []string{"64 ranks' shared-memory rings need 513 MiB in /dev/shm, which has 64 MiB free; free space there or mount it larger (mount -o remount,size=514m /dev/shm), or run with --transport tcp; the largest -np that fits is 7"}, 7},
	} {
		err := c.cap.Check(c.np, c.np, c.mode)
		var ce *CapacityError
		if !errors.As(err, &ce) {
			t.Errorf("%s: Check(%d) = %v, want a *CapacityError", c.name, c.np, err)
			continue
		}
		if ce.Max != c.max {
			t.Errorf("%s: largest -np %d, want %d", c.name, ce.Max, c.max)
		}
		for _, w := range c.wants {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %q\nlacks %q", c.name, err, w)
			}
		}
		if strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: not one line: %q", c.name, err)
		}
		if err := c.cap.Check(c.within, c.within, c.mode); err != nil {
			t.Errorf("%s: -np %d refused: %v", c.name, c.within, err)
		}
	}
	if err := unlimited.Check(100000, 100000, "shm"); err != nil {
		t.Errorf("no limits: %v", err)
	}
	// tcp takes nothing in /dev/shm (no HostShmBytes), auto takes shm's.
	full := Capacity{Tasks: -1, Files: -1, Memory: -1, Shm: 0}
	if err := full.Check(64, 64, "tcp"); err != nil {
		t.Errorf("tcp bounded by /dev/shm: %v", err)
	}
	if err := full.Check(64, 64, TransportAuto); err == nil || !strings.Contains(err.Error(), "/dev/shm") {
		t.Errorf("auto with /dev/shm full: %v, want the /dev/shm refusal", err)
	}
}

// TestCapacityTightestLimit: when several limits are too low, the refusal
// names the one that holds the fewest ranks, and the largest -np fits
// under all of them.
func TestCapacityTightestLimit(t *testing.T) {
	c := Capacity{Tasks: 60, TasksLimit: "ulimit -u", Files: 1024, Memory: 1 << 30, MemoryLimit: "MemAvailable", Shm: -1}
	err := c.Check(100000, 100000, "tcp")
	if err == nil || !strings.Contains(err.Error(), "processes and threads") || !strings.Contains(err.Error(), "the largest -np that fits is 10 ") {
		t.Errorf("Check = %v, want the task limit (10 ranks) named", err)
	}
}

// TestCapacityCountsLocalRanks: only the ranks placed on this host count,
// and the largest -np counts the others too.
func TestCapacityCountsLocalRanks(t *testing.T) {
	c := Capacity{Tasks: -1, Files: -1, Memory: 1 << 30, MemoryLimit: "MemAvailable", Shm: -1}
	if err := c.Check(1000, 64, "tcp"); err != nil {
		t.Errorf("64 of 1000 ranks here: %v", err)
	}
	var ce *CapacityError
	if err := c.Check(1000, 100, "tcp"); !errors.As(err, &ce) || ce.Max != 964 || ce.Local != 100 {
		t.Errorf("100 of 1000 ranks here: %v, want the largest -np 964", err)
	}
}

// TestRunRefusesBeyondCapacity: Run starts no rank of a job the host's
// limits cannot hold (the limits injected: -np 100000 is never started).
func TestRunRefusesBeyondCapacity(t *testing.T) {
	saved := hostCapacity
	t.Cleanup(func() { hostCapacity = saved })
	hostCapacity = func() Capacity {
		return Capacity{Tasks: -1, Files: -1, Memory: 64 << 20, MemoryLimit: "the host has 64 MiB available (MemAvailable)", Shm: -1}
	}
	marker := filepath.Join(t.TempDir(), "started")
	err := Run(context.Background(), Spec{NP: 100000, Argv: []string{"/bin/sh", "-c", "touch " + marker}, Env: []string{EnvTransport + "=tcp"}})
	var ce *CapacityError
	if !errors.As(err, &ce) || ce.Max != 4 {
		t.Fatalf("Run = %v, want a *CapacityError with the largest -np 4", err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("a rank was started")
	}
}
