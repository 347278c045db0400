package launch

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// writeFiles creates files (path relative to dir: content).
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for p, c := range files {
		p = filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestOOMWatch: the memory cgroup is found in cgroup v1 (its memory
// controller, even beside a unified hierarchy) and v2 layouts; a rise of
// its oom_kill count gives the note naming the cgroup and its limit, or
// the host's memory when the cgroup has none; no rise, or no cgroup,
// gives none.
func TestOOMWatch(t *testing.T) {
	for _, c := range []struct {
		name, proc string
		files      map[string]string
		counter    string // file whose oom_kill rises
		rose       string // its content after the kill
		want       string
	}{
		{"v1", "9:name=systemd:/\n4:memory:/job/a\n0::/\n",
			map[string]string{"memory/job/a/memory.oom_control": "oom_kill_disable 0\nunder_oom 0\noom_kill 2\n", "memory/job/a/memory.limit_in_bytes": "209715200\n"},
			"memory/job/a/memory.oom_control", "oom_kill_disable 0\nunder_oom 0\noom_kill 3\n",
			"by the kernel's OOM killer: memory cgroup ROOT/memory/job/a reached its limit of 200 MiB; raise the limit or lower -np or the largest message size"},
		{"v1 without limit", "4:memory:/\n",
			map[string]string{"memory/memory.oom_control": "oom_kill 0\n", "memory/memory.limit_in_bytes": "9223372036854771712\n"},
			"memory/memory.oom_control", "oom_kill 1\n",
			"by the kernel's OOM killer: the host ran out of memory; lower -np or the largest message size"},
		{"v2", "0::/user.slice/job\n",
			map[string]string{"user.slice/job/memory.events": "low 0\nhigh 0\nmax 4\noom 1\noom_kill 0\n", "user.slice/job/memory.max": "1073741824\n"},
			"user.slice/job/memory.events", "low 0\nhigh 0\nmax 9\noom 2\noom_kill 1\n",
			"by the kernel's OOM killer: memory cgroup ROOT/user.slice/job reached its limit of 1024 MiB; raise the limit or lower -np or the largest message size"},
		{"v2 max", "0::/job\n",
			map[string]string{"job/memory.events": "oom_kill 5\n", "job/memory.max": "max\n"},
			"job/memory.events", "oom_kill 6\n",
			"by the kernel's OOM killer: the host ran out of memory; lower -np or the largest message size"},
		{"no memory controller", "0::/job\n", map[string]string{"job/cgroup.procs": ""}, "", "", ""},
	} {
		root := t.TempDir()
		writeFiles(t, root, c.files)
		proc := filepath.Join(root, "proc-cgroup")
		writeFiles(t, root, map[string]string{"proc-cgroup": c.proc})
		w := oomWatchAt(proc, root)
		if n := w.note(DefaultMemoryFix); n != "" {
			t.Errorf("%s: note %q before any kill", c.name, n)
		}
		if c.counter != "" {
			writeFiles(t, root, map[string]string{c.counter: c.rose})
		}
		if got, want := w.note(DefaultMemoryFix), strings.ReplaceAll(c.want, "ROOT", root); got != want {
			t.Errorf("%s: note\n %q\nwant %q", c.name, got, want)
		}
	}
	// An application's own fix (Spec.MemoryFix) ends the note.
	root := t.TempDir()
	writeFiles(t, root, map[string]string{"proc-cgroup": "0::/job\n", "job/memory.events": "oom_kill 5\n", "job/memory.max": "max\n"})
	w := oomWatchAt(filepath.Join(root, "proc-cgroup"), root)
	writeFiles(t, root, map[string]string{"job/memory.events": "oom_kill 6\n"})
	if got, want := w.note("lower -n"), "by the kernel's OOM killer: the host ran out of memory; lower -n"; got != want {
		t.Errorf("note %q, want %q", got, want)
	}
	if w := oomWatchAt("/nonexistent/cgroup", "/nonexistent"); w.note(DefaultMemoryFix) != "" {
		t.Error("no cgroup file: a note")
	}
}

// TestOOMNoteInLine: the note goes into the launcher's line of a rank
// killed by SIGKILL, after the signal.
func TestOOMNoteInLine(t *testing.T) {
	cmd := exec.Command("sh", "-c", "kill -9 $$")
	werr := cmd.Run()
	var ee *exec.ExitError
	if !errors.As(werr, &ee) {
		t.Fatalf("sh killing itself: %v", werr)
	}
	e := &RankError{Rank: 1, Err: &exitError{err: werr, oom: "by the kernel's OOM killer: the host ran out of memory"}}
	if got := e.Error(); got != "launch: rank 1: killed by signal SIGKILL (by the kernel's OOM killer: the host ran out of memory)" {
		t.Errorf("line %q", got)
	}
}
