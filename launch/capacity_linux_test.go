package launch

import (
	"os"
	"path/filepath"
	"testing"
)

// TestPidsFree reads the tightest pids cgroup of a process from its
// cgroup list, cgroup v1's pids hierarchy, ancestors included.
func TestPidsFree(t *testing.T) {
	root := t.TempDir()
	write := func(path, s string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(root, "self"), "9:name=systemd:/\n8:pids:/a/b\n4:memory:/x\n0::/\n")
	write(filepath.Join(root, "pids/a/b/pids.max"), "max\n")
	write(filepath.Join(root, "pids/a/b/pids.current"), "5\n")
	write(filepath.Join(root, "pids/a/pids.max"), "100\n")
	write(filepath.Join(root, "pids/a/pids.current"), "40\n")
	free, dir := pidsFree(filepath.Join(root, "self"), root)
	if free != 60 || dir != filepath.Join(root, "pids/a") {
		t.Errorf("pidsFree = %d, %s; want 60 in %s", free, dir, filepath.Join(root, "pids/a"))
	}
	write(filepath.Join(root, "none"), "0::/\n")
	if free, _ := pidsFree(filepath.Join(root, "none"), root); free != -1 {
		t.Errorf("no pids limit: %d, want -1", free)
	}
}
