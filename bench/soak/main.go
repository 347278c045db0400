// Command soak runs one long job of mixed benchmarks per transport and
// prints, every minute, what its processes hold: each rank's resident
// memory (RSS), goroutines and threads, and the launcher's RSS. A runtime
// that leaks (a goroutine per message, a queue that keeps frames) shows
// as a figure that grows; a healthy one stays flat.
//
// Usage:
//
//	go run ./bench/soak [-duration 10m] [-transports shm,tcp,hybrid] [-np 8] [-every 1m] [-concurrent]
//	go run ./bench/soak -duration 1h        # the hour per transport of docs/reliability.md
//	go run ./bench/soak -duration 1h -concurrent   # the three hours in one
//	go run ./bench/soak -duration 1h -concurrent -keep DIR   # and keep the jobs' result files in DIR
//	go run ./bench/soak -analyze DIR   # the drift table of the result files a soak kept in DIR
//
// Each transport gets one job of -np ranks (8 on a 2-core host is
// oversubscribed, on purpose) running PingPong, Sendrecv, Exchange,
// Allreduce, Alltoall, Bcast, Allgather and Reduce at 0 B, 1 KiB, 64 KiB and
// 1 MiB, those four sizes repeated (a -msglen file) so that each benchmark
// measures every size again and again, for -duration, after which the job
// is stopped with SIGINT. The transports' jobs run one after the other, or
// with -concurrent all at the same time (3 x -np ranks on the host: each
// transport's figures then include the load of the others). Ranks report
// their goroutines through MPBENCH_STATS (package launch); RSS and threads
// come from /proc. The hybrid transport runs half the ranks in a mount
// namespace of their own (as bench/chaos does; root and unshare(1)).
//
// At the end it prints, per transport, the figures of the first sample
// after the warm-up minute next to the last, and the drift of the results
// judged against the run's own noise: for every benchmark and size, the
// median time of the first third of its rows (calibration pass and jobs in
// order) against the median of the last third, inside its noise when the
// ratio lies within the interquartile ratio Q3/Q1 of the times inside
// either window (see drift), one table line per benchmark and size and the
// count inside. A job that ends before -duration (the calibration pass ran
// under a heavier load) is followed by one sized to the time left at the
// pace just measured. The jobs' result files (JSON Lines) are deleted at
// the end, or kept with -keep DIR, where -analyze DIR reads them later.
//
// Exit status: 0 when the job ran until stopped and goroutines and RSS
// stayed flat (goroutines at most 2 more, RSS at most 25% + 8 MiB more),
// 1 otherwise, 2 bad flags. The drift verdicts are counted, not part of
// the status: a stationary series lies outside its noise by chance now
// and then (TestDriftFalseOutsideRate), and a host's load moves the
// times. -analyze exits 0 once it has printed the table, 2 when DIR holds
// no result file.
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

var benchmarks = []string{"PingPong", "Sendrecv", "Exchange", "Allreduce", "Alltoall", "Bcast", "Allgather", "Reduce"}

var sizes = []int{0, 1024, 65536, 1 << 20}

const hybridAgent = `unshare -m sh -c 'mount -t tmpfs soak /dev/shm && exec "$@"' {host}`

func main() {
	mpbench := flag.String("mpbench", "", "path of the mpbench binary (default: build ./cmd/mpbench into a temporary directory)")
	duration := flag.Duration("duration", 10*time.Minute, "how long each transport's job runs")
	trs := flag.String("transports", "shm,tcp,hybrid", "transports, comma-separated: shm, tcp, hybrid")
	np := flag.Int("np", 8, "ranks")
	every := flag.Duration("every", time.Minute, "sampling period")
	passes := flag.Int("passes", 0, "passes over the benchmarks and sizes in the job (0: as many as one timed pass says fit in -duration)")
	concurrent := flag.Bool("concurrent", false, "run the transports' jobs at the same time instead of one after the other")
	keep := flag.String("keep", "", "keep the jobs' result files (TRANSPORT-calibrate.jsonl, TRANSPORT-JOB.jsonl) in this directory, created if missing")
	analyze := flag.String("analyze", "", "run nothing: print the drift table of the result files a soak kept in this directory (-keep)")
	flag.Parse()
	if *analyze != "" {
		if _, _, err := analyzeDir(os.Stdout, *analyze); err != nil {
			fmt.Fprintln(os.Stderr, "soak:", err)
			os.Exit(2)
		}
		return
	}
	list := strings.Split(*trs, ",")
	for _, t := range list {
		if !slices.Contains([]string{"shm", "tcp", "hybrid"}, t) || *np < 2 || *duration < 2**every || *every <= 0 {
			fmt.Fprintln(os.Stderr, "soak: want -transports of shm, tcp, hybrid, -np >= 2 and -duration >= 2 x -every")
			os.Exit(2)
		}
	}
	if *keep != "" {
		if err := keepDir(*keep); err != nil {
			fmt.Fprintln(os.Stderr, "soak:", err)
			os.Exit(2)
		}
	}
	dir, err := os.MkdirTemp("", "soak")
	if err != nil {
		fmt.Fprintln(os.Stderr, "soak:", err)
		os.Exit(1)
	}
	defer os.RemoveAll(dir)
	out := dir
	if *keep != "" {
		out = *keep
	}
	if *mpbench == "" {
		*mpbench = filepath.Join(dir, "mpbench")
		if msg, err := exec.Command("go", "build", "-o", *mpbench, "./cmd/mpbench").CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "soak: building mpbench (run from the repository root or pass -mpbench): %v\n%s", err, msg)
			os.Exit(1)
		}
	}
	ok, summaries := runAll(list, *concurrent, func(tr string) (bool, summary) {
		s := &soak{mpbench: *mpbench, dir: dir, out: out, tr: tr, np: *np, duration: *duration, every: *every, passes: *passes}
		return s.run()
	})
	fmt.Println("# transport: goroutines (max over ranks) and RSS MiB (max over ranks; launcher) at the first sample after a minute -> at the last; results' drift against their noise")
	for _, s := range summaries {
		fmt.Println(s.line)
	}
	fmt.Println(driftLegend)
	for i, s := range summaries {
		s.drift.write(os.Stdout, list[i])
	}
	if !ok {
		os.Exit(1)
	}
}

// keepDir makes dir, if missing, for -keep; one that already holds result
// files is refused (a later -analyze would mix two soaks).
func keepDir(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("-keep %s: %v; expected a directory the soak can create or write", dir, err)
	}
	if old, _ := filepath.Glob(filepath.Join(dir, "*.jsonl")); len(old) > 0 {
		return fmt.Errorf("-keep %s: already holds result files (%s); expected an empty or new directory", dir, filepath.Base(old[0]))
	}
	return nil
}

// summary is one transport's account: its line and its drift table.
type summary struct {
	line  string
	drift driftReport
}

// runAll runs run for every transport of list, one after the other or, if
// concurrent, all at once, and returns whether every run was good and their
// summaries in the order of list.
func runAll(list []string, concurrent bool, run func(tr string) (bool, summary)) (bool, []summary) {
	oks := make([]bool, len(list))
	summaries := make([]summary, len(list))
	var wg sync.WaitGroup
	for i, tr := range list {
		if concurrent {
			wg.Go(func() { oks[i], summaries[i] = run(tr) })
		} else {
			oks[i], summaries[i] = run(tr)
		}
	}
	wg.Wait()
	return !slices.Contains(oks, false), summaries
}

// soak is one transport's job: the job's -msglen files go to dir, its
// result files to out.
type soak struct {
	mpbench, dir, out, tr string
	np, passes            int
	duration, every       time.Duration

	mu    sync.Mutex
	stats map[int]rankStats // latest MPBENCH_STATS line of each rank
}

type rankStats struct{ goroutines int }

// sample is one minute's figures.
type sample struct {
	at                   time.Duration
	goroutines, threads  int
	rssMiB, launcherMiB  float64
	minGoroutines, ranks int
	minRSSMiB            float64
}

var statsRe = regexp.MustCompile(`mpbench-stats: rank (\d+): goroutines (\d+),`)

// run calibrates, then runs jobs until -duration has passed (one job,
// unless it ends early: the next is then sized to the time left, see
// nextPasses), and returns whether every job ran until stopped
// and the figures stayed flat, and the summary.
func (s *soak) run() (bool, summary) {
	repeats := s.passes
	var paths []string
	if repeats == 0 {
		pass, err := s.calibrate()
		if err != nil {
			return false, summary{line: fmt.Sprintf("%-6s FAILED: %v", s.tr, err)}
		}
		paths = append(paths, s.calibrationPath())
		repeats = max(1, int(s.duration/pass)+1)
		fmt.Printf("# %s: one pass of %d benchmarks x %d sizes took %v\n", s.tr, len(benchmarks), len(sizes), pass.Round(time.Millisecond))
	}
	fmt.Printf("# %s: np %d, %v, %d passes, sample every %v\n", s.tr, s.np, s.duration, repeats, s.every)
	start := time.Now()
	deadline := start.Add(s.duration)
	var samples []sample
	good := true
	var failure string
	for job := 1; time.Now().Before(deadline); job++ {
		began := time.Now()
		ok, msg, jsonPath := s.job(job, repeats, start, deadline, &samples)
		paths = append(paths, jsonPath)
		if !ok {
			good, failure = false, " FAILED: "+msg
			break
		}
		repeats = nextPasses(repeats, time.Since(began), time.Until(deadline))
	}
	drift := analyzeFiles(paths...)
	flat, growth := flatness(samples)
	if !flat {
		failure += " GROWS"
	}
	return good && flat, summary{line: fmt.Sprintf("%-6s %s; %s%s", s.tr, growth, drift.summary(), failure), drift: drift}
}

// nextPasses is the number of passes for the job after one of passes
// that ended after took, before the deadline, with left to go: a job
// that ends early ran faster than the calibration said (it ran under
// another load), so the next is sized to the time left at the pace just
// measured, with one pass to spare (the job is stopped at the deadline).
func nextPasses(passes int, took, left time.Duration) int {
	if took <= 0 || left <= 0 {
		return passes
	}
	return max(1, int(float64(passes)*left.Seconds()/took.Seconds())+1)
}

// command is the job's mpbench command with each size repeated repeats
// times, writing rows to jsonPath.
func (s *soak) command(repeats int, jsonPath string) *exec.Cmd {
	lens := filepath.Join(s.dir, fmt.Sprintf("%s-%d.msglen", s.tr, repeats))
	var b strings.Builder
	for range repeats {
		for _, n := range sizes {
			fmt.Fprintln(&b, n)
		}
	}
	os.WriteFile(lens, []byte(b.String()), 0o644)
	// --stall 1h: oversubscribed ranks at nice 19 on a busy host may take
	// minutes for a row; the soak looks for leaks, not speed.
	args := []string{"run", "-np", strconv.Itoa(s.np), "-npmin", strconv.Itoa(s.np), "-msglen", lens, "-time", "0.5", "--all-sizes", "--stall", "1h", "--json", jsonPath}
	if s.tr == "hybrid" {
		first := (s.np + 1) / 2
		args = append(args, "--host", fmt.Sprintf("localhost:%d,soakb:%d", first, s.np-first), "--launch-agent", hybridAgent, "--if", "127.0.0.0/8")
	} else {
		args = append(args, "--transport", s.tr)
	}
	cmd := exec.Command(s.mpbench, append(args, benchmarks...)...)
	cmd.Env = append(os.Environ(), fmt.Sprintf("MPBENCH_STATS=%v", s.every/2))
	return cmd
}

// calibrationPath is the calibration job's result file.
func (s *soak) calibrationPath() string { return filepath.Join(s.out, s.tr+"-calibrate.jsonl") }

// calibrate times one pass over every benchmark and size.
func (s *soak) calibrate() (time.Duration, error) {
	cmd := s.command(1, s.calibrationPath())
	start := time.Now()
	if out, err := cmd.CombinedOutput(); err != nil {
		return 0, fmt.Errorf("calibration job: %v: %s", err, lastLine(out))
	}
	return time.Since(start), nil
}

func lastLine(b []byte) string {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return lines[len(lines)-1]
}

// job runs one job until it ends or deadline passes (then SIGINT),
// sampling every -every, and reports whether it ran until stopped or to
// its end without error.
func (s *soak) job(n, repeats int, start, deadline time.Time, samples *[]sample) (bool, string, string) {
	jsonPath := filepath.Join(s.out, fmt.Sprintf("%s-%d.jsonl", s.tr, n))
	cmd := s.command(repeats, jsonPath)
	cmd.Stdout = io.Discard
	errPipe, _ := cmd.StderrPipe()
	s.stats = map[int]rankStats{}
	if err := cmd.Start(); err != nil {
		return false, err.Error(), jsonPath
	}
	var other bytes.Buffer // stderr lines that are not stats
	readDone := make(chan struct{})
	go func() { s.readStats(errPipe, &other); close(readDone) }()
	done := make(chan error, 1)
	go func() { <-readDone; done <- cmd.Wait() }()
	tick := time.NewTicker(s.every)
	defer tick.Stop()
	stop := time.After(time.Until(deadline))
	for {
		select {
		case <-tick.C:
			sm := s.sample(cmd.Process.Pid, time.Since(start))
			*samples = append(*samples, sm)
			fmt.Printf("%-6s %6s job %d ranks %d goroutines %d-%d threads max %d rss MiB %.1f-%.1f launcher rss MiB %.1f\n",
				s.tr, sm.at.Round(time.Second), n, sm.ranks, sm.minGoroutines, sm.goroutines, sm.threads, sm.minRSSMiB, sm.rssMiB, sm.launcherMiB)
		case <-stop:
			cmd.Process.Signal(syscall.SIGINT)
			stop = nil
		case err := <-done:
			status := 0
			if ee, ok := err.(*exec.ExitError); ok {
				status = ee.ExitCode()
			}
			if status == 0 || stop == nil && status == 130 {
				return true, "", jsonPath
			}
			return false, fmt.Sprintf("job %d ended after %v with status %d: %s", n, time.Since(start).Round(time.Second), status, strings.TrimSpace(other.String())), jsonPath
		}
	}
}

// readStats keeps the latest goroutine count of each rank and the other
// lines of stderr.
func (s *soak) readStats(r io.Reader, other *bytes.Buffer) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		m := statsRe.FindStringSubmatch(line)
		if m == nil {
			other.WriteString(line + "\n")
			continue
		}
		rank, _ := strconv.Atoi(m[1])
		g, _ := strconv.Atoi(m[2])
		s.mu.Lock()
		s.stats[rank] = rankStats{goroutines: g}
		s.mu.Unlock()
	}
}

// sample reads the ranks' figures: goroutines from their stats lines,
// threads and RSS of the launcher's children from /proc.
func (s *soak) sample(launcher int, at time.Duration) sample {
	sm := sample{at: at, minGoroutines: -1, minRSSMiB: -1}
	s.mu.Lock()
	for _, st := range s.stats {
		sm.goroutines = max(sm.goroutines, st.goroutines)
		if sm.minGoroutines < 0 || st.goroutines < sm.minGoroutines {
			sm.minGoroutines = st.goroutines
		}
	}
	s.mu.Unlock()
	_, sm.launcherMiB = status(launcher)
	for _, pid := range children(launcher) {
		threads, rss := status(pid)
		sm.ranks++
		sm.threads = max(sm.threads, threads)
		sm.rssMiB = max(sm.rssMiB, rss)
		if sm.minRSSMiB < 0 || rss < sm.minRSSMiB {
			sm.minRSSMiB = rss
		}
	}
	return sm
}

// flatness compares the first sample after a minute (the warm-up: buffers
// of the largest size allocated, every connection made) with the last.
func flatness(samples []sample) (bool, string) {
	var first *sample
	for i := range samples {
		if samples[i].at >= time.Minute {
			first = &samples[i]
			break
		}
	}
	if first == nil || len(samples) == 0 {
		return false, "no sample after the first minute"
	}
	last := samples[len(samples)-1]
	flat := last.goroutines <= first.goroutines+2 && last.rssMiB <= 1.25*first.rssMiB+8
	return flat, fmt.Sprintf("goroutines %d -> %d, rss MiB %.1f -> %.1f, launcher rss MiB %.1f -> %.1f (%v -> %v)",
		first.goroutines, last.goroutines, first.rssMiB, last.rssMiB, first.launcherMiB, last.launcherMiB,
		first.at.Round(time.Second), last.at.Round(time.Second))
}

// status returns a process's Threads and VmRSS in MiB from /proc.
func status(pid int) (int, float64) {
	b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	var threads int
	var rss float64
	for _, line := range strings.Split(string(b), "\n") {
		k, v, _ := strings.Cut(line, ":")
		f := strings.Fields(v)
		if len(f) == 0 {
			continue
		}
		n, _ := strconv.ParseFloat(f[0], 64)
		switch k {
		case "Threads":
			threads = int(n)
		case "VmRSS":
			rss = n / 1024
		}
	}
	return threads, rss
}

// children lists the processes whose parent is pid.
func children(pid int) []int {
	ents, _ := os.ReadDir("/proc")
	want := strconv.Itoa(pid)
	var out []int
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, _ := os.ReadFile("/proc/" + e.Name() + "/stat")
		if i := bytes.LastIndexByte(b, ')'); i >= 0 {
			if f := strings.Fields(string(b[i+1:])); len(f) > 1 && f[1] == want {
				out = append(out, p)
			}
		}
	}
	return out
}
