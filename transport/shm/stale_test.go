//go:build linux

package shm

import (
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// TestRemoveStale: of old segment files, those whose owner is gone or
// whose control block was never written are removed; a running owner's
// and every young file stay, and so do files of other programs.
func TestRemoveStale(t *testing.T) {
	dir := t.TempDir()
	p, err := Prepare(Options{Rank: 0, Size: 2, Secret: []byte("stale-test"), Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Abort()
	live := p.Path() // owner: this test process
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(live)
	binary.NativeEndian.PutUint32(b[16:20], uint32(dead.Process.Pid)) // owner gone
	write := func(name string, data []byte) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	orphan := write("mpbench-00000000000000aa-1", b)
	blank := write("mpbench-00000000000000bb-0", make([]byte, 4096)) // killed before its control block
	young := write("mpbench-00000000000000cc-2", b)
	other := write("vader_segment.0", b)
	old := time.Now().Add(-2 * StaleAge)
	for _, path := range []string{live, orphan, blank, other} {
		os.Chtimes(path, old, old)
	}
	removed, err := RemoveStale(dir, StaleAge)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(removed)
	if want := []string{orphan, blank}; !slices.Equal(removed, want) {
		t.Errorf("removed %v, want %v", removed, want)
	}
	for _, path := range []string{live, young, other} {
		if _, err := os.Stat(path); err != nil {
			t.Errorf("%s removed: %v", path, err)
		}
	}
}

// TestRemoveStaleZombieOwner: a segment whose owner has exited but was not
// yet collected by its parent (a zombie, as ranks of a launcher killed with
// SIGKILL can stay under a slow init) is a leftover and is removed.
func TestRemoveStaleZombieOwner(t *testing.T) {
	dir := t.TempDir()
	p, err := Prepare(Options{Rank: 0, Size: 2, Secret: []byte("zombie-test"), Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Abort()
	z := exec.Command("true")
	if err := z.Start(); err != nil {
		t.Fatal(err)
	}
	defer z.Wait() // collect it at the end
	deadline := time.Now().Add(10 * time.Second)
	for !exited(z.Process.Pid) {
		if time.Now().After(deadline) {
			t.Fatalf("process %d never showed as a zombie in /proc", z.Process.Pid)
		}
		time.Sleep(5 * time.Millisecond)
	}
	b, _ := os.ReadFile(p.Path())
	binary.NativeEndian.PutUint32(b[16:20], uint32(z.Process.Pid))
	path := filepath.Join(dir, "mpbench-00000000000000dd-1")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-2 * StaleAge)
	os.Chtimes(path, old, old)
	if ownerRuns(z.Process.Pid) {
		t.Errorf("ownerRuns(%d) of a zombie: true, want false", z.Process.Pid)
	}
	if !ownerRuns(os.Getpid()) {
		t.Errorf("ownerRuns of this test process: false, want true")
	}
	removed, err := RemoveStale(dir, StaleAge)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(removed, path) {
		t.Errorf("removed %v, want %s (its owner is a zombie)", removed, path)
	}
}
