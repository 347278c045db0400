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
