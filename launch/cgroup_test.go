package launch

import (
	"os"
	"path/filepath"
	"testing"
)

// TestCgroupDir finds a controller's cgroup in cgroup v1 and v2 lists.
func TestCgroupDir(t *testing.T) {
	tmp := t.TempDir()
	cases := []struct {
		name, list, controller string
		dir                    string
		v1                     bool
	}{
		{"v1 own hierarchy", "8:pids:/a/b\n4:memory:/x\n0::/u\n", "pids", "/r/pids/a/b", true},
		{"v1 co-mounted", "3:cpu,cpuacct,memory:/job\n", "memory", "/r/memory/job", true},
		{"v1 listed after unified", "0::/u\n4:memory:/x\n", "memory", "/r/memory/x", true},
		{"no prefix match", "5:pids_x:/p\n0::/u\n", "pids", "/r/u", false},
		{"v2 only", "0::/user.slice/session-1.scope\n", "memory", "/r/user.slice/session-1.scope", false},
		{"neither", "1:name=systemd:/\n", "memory", "", false},
		{"garbage", "no colons\n\n", "pids", "", false},
	}
	for i, c := range cases {
		proc := filepath.Join(tmp, "cgroup"+string(rune('a'+i)))
		if err := os.WriteFile(proc, []byte(c.list), 0o644); err != nil {
			t.Fatal(err)
		}
		dir, v1 := cgroupDir(proc, "/r", c.controller)
		if dir != c.dir || v1 != c.v1 {
			t.Errorf("%s: cgroupDir = %q, %v; want %q, %v", c.name, dir, v1, c.dir, c.v1)
		}
	}
	if dir, _ := cgroupDir(filepath.Join(tmp, "missing"), "/r", "pids"); dir != "" {
		t.Errorf("missing file: %q, want \"\"", dir)
	}
}
