package app

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestStartLoad: the load processes run until stop, which ends them with
// SIGTERM (well before the SIGKILL 5 s later) and waits for them; a
// context ended by Ctrl-C passes SIGINT on to them, as to every child
// mpbench supervises; a program that cannot start is named.
func TestStartLoad(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	// Each process notes its start and the signal that ends it in a file
	// of its own (its pid).
	script := `d=$0; trap 'echo TERM > $d/$$.end; exit 0' TERM; trap 'echo INT > $d/$$.end; exit 0' INT; : > $d/$$.up; while :; do sleep 0.05; done`
	waitFiles := func(dir, suffix string, n int) []string {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for {
			files, _ := filepath.Glob(filepath.Join(dir, "*"+suffix))
			if len(files) >= n {
				return files
			}
			if time.Now().After(deadline) {
				t.Fatalf("%d of %d %s files after 30 s", len(files), n, suffix)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	ends := func(dir string) []string {
		t.Helper()
		var got []string
		files, _ := filepath.Glob(filepath.Join(dir, "*.end"))
		for _, f := range files {
			b, _ := os.ReadFile(f)
			got = append(got, strings.TrimSpace(string(b)))
		}
		return got
	}

	stopped := filepath.Join(dir, "stopped")
	os.Mkdir(stopped, 0o755)
	stop, err := StartLoad(context.Background(), []string{sh, "-c", script, stopped}, 2)
	if err != nil {
		t.Fatal(err)
	}
	waitFiles(stopped, ".up", 2)
	stop()
	// A process still running at the SIGKILL 5 s later writes no end file:
	// two TERM files are two processes ended by SIGTERM, however long a
	// loaded host took to run their traps.
	if got := ends(stopped); len(got) != 2 || got[0] != "TERM" || got[1] != "TERM" {
		t.Errorf("stopped processes ended by %v, want TERM twice (stop waits for them)", got)
	}

	interrupted := filepath.Join(dir, "interrupted")
	os.Mkdir(interrupted, 0o755)
	ctx, cancel := context.WithCancelCause(context.Background())
	stop, err = StartLoad(ctx, []string{sh, "-c", script, interrupted}, 2)
	if err != nil {
		t.Fatal(err)
	}
	waitFiles(interrupted, ".up", 2)
	cancel(ctrlC{})
	waitFiles(interrupted, ".end", 2)
	stop()
	if got := ends(interrupted); len(got) != 2 || got[0] != "INT" || got[1] != "INT" {
		t.Errorf("processes of an interrupted rank ended by %v, want INT twice", got)
	}

	if _, err := StartLoad(context.Background(), []string{filepath.Join(dir, "no-such-program")}, 2); err == nil ||
		!strings.HasPrefix(err.Error(), "starting CPU load process 1 of 2 ("+filepath.Join(dir, "no-such-program")+"): ") {
		t.Errorf("a program that cannot start: %v", err)
	}
}

// ctrlC is the cause of a context ended by Ctrl-C (a launch.Interrupt).
type ctrlC struct{}

// Error returns "interrupted by SIGINT".
func (ctrlC) Error() string { return "interrupted by SIGINT" }

// Signal returns SIGINT.
func (ctrlC) Signal() syscall.Signal { return syscall.SIGINT }
