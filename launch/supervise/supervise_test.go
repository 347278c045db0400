package supervise

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mpbench/mpbench/launch"
	"github.com/mpbench/mpbench/result/rowfile"
)

const pingPongTable = "# Benchmarking PingPong \n# #processes = 2 \n       #bytes #repetitions      t[usec]   Mbytes/sec\n" +
	"            0         1000         2.24         0.00\n"

// TestWatchRunAccount: the launcher's account of a job that succeeds,
// fails after rank 0 printed a row, stalls, runs past its timeout, is
// refused as bad input before it starts, or is interrupted.
func TestWatchRunAccount(t *testing.T) {
	failing := errors.New("rank 1 exited with status 3")
	printThen := func(err error) func(context.Context, io.Writer) error {
		return func(_ context.Context, w io.Writer) error {
			io.WriteString(w, pingPongTable)
			return err
		}
	}
	hang := func(ctx context.Context, w io.Writer) error {
		io.WriteString(w, pingPongTable)
		<-ctx.Done()
		return ctx.Err()
	}
	var out strings.Builder
	if err := (Watch{Stdout: &out}).Run(context.Background(), printThen(nil)); err != nil || out.String() != pingPongTable {
		t.Errorf("a job that succeeds: %v, output %q", err, out.String())
	}
	err := Watch{}.Run(context.Background(), printThen(failing))
	if want := "run failed: rank 1 exited with status 3; the job was at PingPong on 2 processes, last row #bytes 0"; err == nil || err.Error() != want || !errors.Is(err, failing) {
		t.Errorf("a failing job: %v, want %q wrapping the launcher's error", err, want)
	}
	err = Watch{Stall: 50 * time.Millisecond}.Run(context.Background(), hang)
	var st *StalledError
	if !errors.As(err, &st) || !strings.HasPrefix(err.Error(), "run failed: no output from rank 0 for 50ms (--stall)") ||
		!strings.HasSuffix(err.Error(), "the job was at PingPong on 2 processes, last row #bytes 0") {
		t.Errorf("a stalled job: %v", err)
	}
	err = Watch{Timeout: 50 * time.Millisecond}.Run(context.Background(), hang)
	if err == nil || err.Error() != "run failed: the job ran longer than --timeout 50ms and was stopped" {
		t.Errorf("a job past its timeout: %v", err)
	}
	refused := &launch.EnvError{Err: errors.New(`MPBENCH_SOCKBUF="abc": want a socket buffer size in bytes > 0`)}
	if err := (Watch{}).Run(context.Background(), func(context.Context, io.Writer) error { return refused }); err != refused {
		t.Errorf("a job the launcher refused to start: %v, want its *launch.EnvError unchanged (not a failed run)", err)
	}
	interrupt := errors.New("interrupted by SIGINT")
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(interrupt)
	if err := (Watch{Stall: time.Hour}).Run(ctx, hang); err != interrupt {
		t.Errorf("an interrupted job: %v, want the interrupt unchanged", err)
	}
}

// TestWatchRunSeals: a failed job's row files end with the launcher's
// account: appended where rank 0 wrote no end record, in place of rank 0's
// with Replace; a job that succeeds, and files of a rank 0 on another host,
// are left alone.
func TestWatchRunSeals(t *testing.T) {
	dir := t.TempDir()
	files := rowfile.Files{JSON: filepath.Join(dir, "run.jsonl"), CSV: filepath.Join(dir, "run.csv")}
	const rank0JSON = `{"type":"meta"}` + "\n" + `{"type":"row"}` + "\n" + `{"type":"end","status":"failed","error":"rank 0: comm: world closed"}` + "\n"
	const rank0CSV = "# format=mpbench-csv\nbenchmark,processes\nPingPong,2\n" // killed before its end record
	read := func(path string) string { b, _ := os.ReadFile(path); return string(b) }
	failing := func(_ context.Context, w io.Writer) error {
		io.WriteString(w, pingPongTable)
		return errors.New("launch: rank 1: killed by signal SIGKILL")
	}
	const account = "run failed: launch: rank 1: killed by signal SIGKILL; the job was at PingPong on 2 processes, last row #bytes 0"
	for _, tc := range []struct {
		name     string
		w        Watch
		job      func(context.Context, io.Writer) error
		jsonl    string // the JSON Lines file after the job
		csvEnded bool   // the CSV file got the account
	}{
		{"success", Watch{Files: files, Replace: true}, func(context.Context, io.Writer) error { return nil }, rank0JSON, false},
		{"seal", Watch{Files: files}, failing, rank0JSON, true},
		{"replace", Watch{Files: files, Replace: true, Hosts: []string{"localhost", "node2"}}, failing,
			`{"type":"meta"}` + "\n" + `{"type":"row"}` + "\n" + `{"type":"end","status":"failed","error":"` + account + `"}` + "\n", true},
		{"rank 0 on another host", Watch{Files: files, Replace: true, Hosts: []string{"node2.invalid", "localhost"}}, failing, rank0JSON, false},
	} {
		os.WriteFile(files.JSON, []byte(rank0JSON), 0o644)
		os.WriteFile(files.CSV, []byte(rank0CSV), 0o644)
		tc.w.Run(context.Background(), tc.job)
		if got := read(files.JSON); got != tc.jsonl {
			t.Errorf("%s: JSON Lines file\n%s\nwant\n%s", tc.name, got, tc.jsonl)
		}
		want := rank0CSV
		if tc.csvEnded {
			want += "# end=failed: " + account + "\n"
		}
		if got := read(files.CSV); got != want {
			t.Errorf("%s: CSV file\n%s\nwant\n%s", tc.name, got, want)
		}
	}
}

// TestCommandRun: a launcher's exit status and a launcher that cannot be
// started are named; a stalled launcher is stopped with SIGTERM.
func TestCommandRun(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh on this host")
	}
	var stdout, stderr strings.Builder
	err = Command{Argv: []string{sh, "-c", "echo out; echo err >&2; exit 3"}, Stdout: &stdout, Stderr: &stderr, Note: "its ranks' messages are above"}.Run(context.Background())
	var ee *ExitError
	if want := sh + " exited with status 3 (its ranks' messages are above)"; err == nil || err.Error() != want || !errors.As(err, &ee) || ee.ExitCode() != 3 {
		t.Errorf("exit 3: %v, want an *ExitError %q", err, want)
	}
	err = Command{Argv: []string{sh, "-c", "kill -KILL $$"}, Name: "mpbench app ep"}.Run(context.Background())
	if want := "mpbench app ep killed by signal SIGKILL"; err == nil || err.Error() != want {
		t.Errorf("a killed child: %v, want %q", err, want)
	}
	if stdout.String() != "out\n" || stderr.String() != "err\n" {
		t.Errorf("output %q / %q, want out / err", stdout.String(), stderr.String())
	}
	err = Command{Argv: []string{"/nonexistent/mpirun"}, Install: "install the MPI library's launcher, Debian: openmpi-bin"}.Run(context.Background())
	if err == nil || !strings.HasPrefix(err.Error(), "starting /nonexistent/mpirun: ") || !strings.HasSuffix(err.Error(), "(install the MPI library's launcher, Debian: openmpi-bin)") {
		t.Errorf("a missing launcher: %v", err)
	}
	start := time.Now()
	err = Watch{Stall: 200 * time.Millisecond}.Run(context.Background(), func(ctx context.Context, w io.Writer) error {
		return Command{Argv: []string{sh, "-c", "echo '# Benchmarking Barrier '; exec sleep 60"}, Stdout: w}.Run(ctx)
	})
	if took := time.Since(start); took > 30*time.Second {
		t.Errorf("the stalled launcher was stopped after %v; SIGTERM should end sleep at once", took)
	}
	var st *StalledError
	if !errors.As(err, &st) || !strings.Contains(err.Error(), "the job was at Barrier, before its first row") {
		t.Errorf("a stalled launcher: %v", fmt.Sprint(err))
	}
	// An interrupt is passed on as the signal the user sent.
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	stdoutPipe := &lockedBuilder{}
	go func() {
		for !strings.Contains(stdoutPipe.String(), "ready") {
			time.Sleep(10 * time.Millisecond)
		}
		cancel(interruptCause{})
	}()
	err = Command{Argv: []string{sh, "-c", "trap 'echo got INT; exit 0' INT; echo ready; while :; do sleep 0.05; done"}, Stdout: stdoutPipe}.Run(ctx)
	if !strings.Contains(stdoutPipe.String(), "got INT") {
		t.Errorf("an interrupted child: %v, output %q; want it to get SIGINT", err, stdoutPipe.String())
	}
}

// interruptCause is the cause of a context ended by Ctrl-C
// (launch.Interrupt).
type interruptCause struct{}

// Error returns "interrupted by SIGINT".
func (interruptCause) Error() string { return "interrupted by SIGINT" }

// Signal returns SIGINT.
func (interruptCause) Signal() syscall.Signal { return syscall.SIGINT }

// lockedBuilder is a strings.Builder safe for one writer and concurrent
// readers.
type lockedBuilder struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuilder) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuilder) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestEndStuck: a run that ends by itself, before or within the grace
// after the signal, keeps its files as rank 0 wrote them; one still
// running after the grace gets the signal's end record, where rank 0
// wrote none.
func TestEndStuck(t *testing.T) {
	dir := t.TempDir()
	files := rowfile.Files{JSON: filepath.Join(dir, "run.jsonl"), CSV: filepath.Join(dir, "run.csv")}
	const rank0JSON = `{"type":"meta"}` + "\n" + `{"type":"row"}` + "\n"
	const rank0CSV = "# format=mpbench-csv\nbenchmark,processes\nPingPong,2\n"
	signal := errors.New("interrupted by SIGTERM; rows measured so far were kept")
	read := func(path string) string { b, _ := os.ReadFile(path); return string(b) }
	for _, tc := range []struct {
		name     string
		signal   bool          // the context ends
		endAfter time.Duration // the run ends this long after the start (0: never)
		stuck    bool
	}{
		{"ends without a signal", false, time.Millisecond, false},
		{"ends within the grace", true, 20 * time.Millisecond, false},
		{"stuck", true, 0, true},
	} {
		os.WriteFile(files.JSON, []byte(rank0JSON), 0o644)
		os.WriteFile(files.CSV, []byte(rank0CSV), 0o644)
		ctx, cancel := context.WithCancelCause(context.Background())
		if tc.signal {
			cancel(signal)
		}
		done := make(chan struct{})
		if tc.endAfter > 0 {
			time.AfterFunc(tc.endAfter, func() { close(done) })
		}
		grace := time.Hour
		if tc.stuck {
			grace = 10 * time.Millisecond
		}
		err := EndStuck(ctx, done, grace, files)
		cancel(nil)
		wantJSON, wantCSV := rank0JSON, rank0CSV
		if tc.stuck {
			wantJSON += `{"type":"end","status":"failed","error":"` + signal.Error() + `"}` + "\n"
			wantCSV += "# end=failed: " + signal.Error() + "\n"
			if err != signal {
				t.Errorf("%s: %v, want the signal's cause", tc.name, err)
			}
		} else if err != nil {
			t.Errorf("%s: %v, want nil", tc.name, err)
		}
		if got := read(files.JSON); got != wantJSON {
			t.Errorf("%s: JSON Lines file\n%s\nwant\n%s", tc.name, got, wantJSON)
		}
		if got := read(files.CSV); got != wantCSV {
			t.Errorf("%s: CSV file\n%s\nwant\n%s", tc.name, got, wantCSV)
		}
	}
}
