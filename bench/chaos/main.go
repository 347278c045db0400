// Command chaos is mpbench's fault-injection campaign: it runs real jobs
// (`mpbench run`) on shared memory, TCP and a hybrid of both, injects a
// fault into each at a random point and counts every way mpbench breaks a
// promise of README.md ("What mpbench guarantees when things fail").
//
// Usage:
//
//	go run ./bench/chaos [-deaths 100] [-interrupts 50] [-transports shm,tcp,hybrid] [-seed N] [-np 0] [-bound 8s] [-v]
//	go run ./bench/chaos -short      # CI: 8 deaths and 5 interrupts per transport, bound 15 s
//
// Faults, per transport: -deaths rank faults (SIGKILL of a random rank at
// a random row of a run over every message size, or during start-up;
// SIGKILL of a random rank while 1-4 MiB messages move, which on TCP
// closes the peer's socket in the middle of a rendezvous transfer; one in
// ten a SIGSTOP of a random rank) and -interrupts launcher faults (SIGINT
// and SIGTERM in turn, one in five a SIGKILL, after which nothing may be
// left: no process, no segment, no row lost; nobody is left to print or to
// write an end record). Each job runs -np ranks (0: 2 to 4 at random) and
// two benchmarks taken in turn from every IMB-MPI1 benchmark. The hybrid
// transport puts half the ranks on a second "host": a mount namespace with
// a private /dev/shm (unshare(1), root), started through --launch-agent,
// so the job runs shared memory within and TCP between the two.
//
// For every fault it checks that the launcher ends within -bound of it
// (plus the 10 s stopped-rank limit for a SIGSTOP, plus the load's delay:
// how late this process's own 50 ms timer fired meanwhile, summed, which
// is near 0 on an idle host; see lagMeter), with the documented
// exit status (1 for a rank fault, 130 SIGINT, 143 SIGTERM, 137 for the
// launcher's SIGKILL) and one line
// on stderr naming the rank hit (not one that failed because of it) and
// the cause ("killed by signal SIGKILL"); that no process of the job
// runs afterwards (the ranks it started, any process with the job's
// secret); that no shared-memory segment of the job is left in /dev/shm;
// that every row printed before the fault is in the JSON Lines and CSV
// files; and that both end with an end record naming the fault. A fault
// that came after the job had ended is counted as missed and retried.
//
// It prints one line per defect (every fault with -v) and a table per
// transport: faults, missed, hangs, orphans, leaked segments, lost rows,
// misattributed, wrong exit status, bad end records, extra stderr lines,
// the slowest end after a kill or interrupt and after a stop, the ends
// beyond -bound that the load's delay allowed, and the largest such delay.
// Exit status: 0 no defect, 1 a defect (or a job could not start), 2 bad
// flags.
package main

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

var modes = []string{"shm", "tcp", "hybrid"}

func main() {
	mpbench := flag.String("mpbench", "", "path of the mpbench binary (default: build ./cmd/mpbench into a temporary directory)")
	deaths := flag.Int("deaths", 100, "rank faults per transport (kill -9, kill -9 during large transfers, SIGSTOP)")
	interrupts := flag.Int("interrupts", 50, "SIGINT, SIGTERM and (one in five) SIGKILL to the launcher, per transport")
	trs := flag.String("transports", strings.Join(modes, ","), "transports, comma-separated: shm, tcp, hybrid")
	seed := flag.Uint64("seed", uint64(time.Now().UnixNano()), "random seed (printed, to replay a campaign)")
	np := flag.Int("np", 0, "ranks per job (0: 2 to 4 at random)")
	bound := flag.Duration("bound", 8*time.Second, "longest a job may take to end after a kill or interrupt (a stop gets 10 s more)")
	short := flag.Bool("short", false, "CI form: -deaths 8 -interrupts 5 -bound 15s unless given")
	verbose := flag.Bool("v", false, "print every fault, not only defects")
	flag.Parse()
	if *short {
		given := map[string]bool{}
		flag.Visit(func(f *flag.Flag) { given[f.Name] = true })
		if !given["deaths"] {
			*deaths = 8
		}
		if !given["interrupts"] {
			*interrupts = 5
		}
		if !given["bound"] {
			*bound = 15 * time.Second
		}
	}
	chosen, err := parseTransports(*trs)
	if err == nil && (*deaths < 0 || *interrupts < 0 || *deaths+*interrupts == 0 || *np < 0 || *np == 1 || *bound <= 0) {
		err = fmt.Errorf("want -deaths and -interrupts >= 0 (not both 0), -np 0 or >= 2 and -bound > 0")
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "chaos:", err)
		os.Exit(2)
	}
	c := &campaign{seed: *seed, verbose: *verbose}
	if err := c.run(*mpbench, chosen, *deaths, *interrupts, *np, *bound); err != nil {
		fmt.Fprintln(os.Stderr, "chaos:", err)
		os.Exit(1)
	}
	c.print(os.Stdout, chosen)
	if c.defects > 0 {
		fmt.Printf("FAIL: %d faults showed a defect (seed %d)\n", c.defects, *seed)
		os.Exit(1)
	}
	fmt.Println("ok: every column 0")
}

func parseTransports(s string) ([]string, error) {
	var out []string
	for _, t := range strings.Split(s, ",") {
		t = strings.TrimSpace(t)
		if !slices.Contains(modes, t) {
			return nil, fmt.Errorf("-transports %q: want shm, tcp or hybrid, comma-separated", s)
		}
		if t == "hybrid" {
			if _, err := exec.LookPath("unshare"); err != nil || os.Geteuid() != 0 {
				return nil, fmt.Errorf("-transports hybrid needs root and unshare(1) from util-linux (a second host is a mount namespace); leave it out: -transports shm,tcp")
			}
		}
		out = append(out, t)
	}
	return out, nil
}

// campaign holds the counts of a run.
type campaign struct {
	seed    uint64
	verbose bool
	counts  map[string]*counts
	defects int
}

// counts are one transport's columns.
type counts struct {
	deaths, interrupts, missed           int
	hangs, orphans, segments, lostRows   int
	misnamed, wrongStatus, badEnd, noisy int
	maxEnd, maxEndStop                   float64
	overBound                            int     // ends beyond the bound, within it plus the load delay
	maxLag                               float64 // the largest load delay measured over a fault
}

func (c *counts) add(f fault, o outcome) {
	if f.kind.death() {
		c.deaths++
	} else {
		c.interrupts++
	}
	c.hangs += b2i(o.hang)
	c.orphans += o.orphans
	c.segments += o.segments
	c.lostRows += o.lostRows
	c.misnamed += b2i(o.misnamed)
	c.wrongStatus += b2i(o.wrongStatus)
	c.badEnd += b2i(o.badEnd)
	c.noisy += b2i(o.noisy)
	c.maxLag = max(c.maxLag, o.lagSec)
	if !o.hang && o.endSec > o.boundSec {
		c.overBound++
	}
	if f.kind == stopRank {
		c.maxEndStop = max(c.maxEndStop, o.endSec)
	} else {
		c.maxEnd = max(c.maxEnd, o.endSec)
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// run builds mpbench when needed and injects the faults, transports taking
// turns so that they share the machine's load.
func (c *campaign) run(mpbench string, trs []string, deaths, interrupts, np int, bound time.Duration) error {
	dir, err := os.MkdirTemp("", "chaos")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if mpbench == "" {
		mpbench = filepath.Join(dir, "mpbench")
		if out, err := exec.Command("go", "build", "-o", mpbench, "./cmd/mpbench").CombinedOutput(); err != nil {
			return fmt.Errorf("building mpbench (run from the repository root or pass -mpbench): %v\n%s", err, out)
		}
	}
	fmt.Printf("# chaos: seed %d, %d deaths and %d interrupts per transport, bound %v\n", c.seed, deaths, interrupts, bound)
	rng := rand.New(rand.NewPCG(c.seed, 0x6368616f73))
	r := &runner{mpbench: mpbench, dir: dir, bound: bound}
	plans := map[string][]fault{}
	c.counts = map[string]*counts{}
	turn := 0
	for _, tr := range trs {
		plans[tr] = plan(rng, deaths, interrupts, np, &turn)
		c.counts[tr] = &counts{}
	}
	total := len(trs) * (deaths + interrupts)
	done := 0
	for i := range deaths + interrupts {
		for _, tr := range trs {
			f := plans[tr][i]
			for tries := 0; ; tries++ {
				o, injected, err := r.one(f, tr)
				if err != nil {
					return err
				}
				if !injected {
					c.counts[tr].missed++
					if tries >= 5 {
						return fmt.Errorf("%s: %s: the job ended before the fault 6 times", tr, f)
					}
					f.afterRows /= 2 // a short job: hit it earlier
					continue
				}
				c.counts[tr].add(f, o)
				c.report(tr, f, o)
				break
			}
			done++
			if done%10 == 0 {
				fmt.Fprintf(os.Stderr, "chaos: %d/%d faults\n", done, total)
			}
		}
	}
	return nil
}

// report prints a fault's line when it showed a defect or with -v.
func (c *campaign) report(tr string, f fault, o outcome) {
	if o.defect() {
		c.defects++
	}
	if !o.defect() && !c.verbose {
		return
	}
	verdict := "ok"
	if o.defect() {
		verdict = "DEFECT"
	}
	fmt.Printf("%-6s %s: ended %.2fs after the fault: %s", tr, f, o.endSec, verdict)
	for _, n := range o.notes {
		fmt.Printf("; %s", n)
	}
	fmt.Println()
}

// print writes the table.
func (c *campaign) print(w *os.File, trs []string) {
	fmt.Fprintf(w, "%-9s %6s %10s %6s %5s %7s %8s %9s %12s %10s %7s %6s %8s %9s %10s %9s\n",
		"transport", "deaths", "interrupts", "missed", "hangs", "orphans", "segments", "lost_rows",
		"misattributed", "wrong_exit", "bad_end", "noisy", "max_end_s", "max_stop_s", "over_bound", "max_lag_s")
	for _, tr := range trs {
		k := c.counts[tr]
		fmt.Fprintf(w, "%-9s %6d %10d %6d %5d %7d %8d %9d %12d %10d %7d %6d %8.2f %9.2f %10d %9.2f\n",
			tr, k.deaths, k.interrupts, k.missed, k.hangs, k.orphans, k.segments, k.lostRows,
			k.misnamed, k.wrongStatus, k.badEnd, k.noisy, k.maxEnd, k.maxEndStop, k.overBound, k.maxLag)
	}
}

// one runs f on a job over transport mode: it reports the outcome and
// whether the fault was injected before the job ended.
func (r *runner) one(f fault, mode string) (outcome, bool, error) {
	var o outcome
	j, err := r.start(f, mode)
	if err != nil {
		return o, false, err
	}
	defer j.cleanDir()
	if !j.findRanks(30 * time.Second) {
		return o, false, r.missed(j)
	}
	if !f.startup && !j.waitRows(f.afterRows) {
		return o, false, r.missed(j)
	}
	time.Sleep(f.extra)
	before := j.stdout.snapshot()
	if !j.inject() {
		return o, false, r.missed(j)
	}
	bound := r.bound
	if f.kind == stopRank {
		bound += stoppedLimit
	}
	lag := startLag()
	check := time.NewTicker(100 * time.Millisecond)
wait:
	for {
		select {
		case <-j.done:
			break wait
		case <-check.C:
			if allowed := bound + lag.lag(); time.Since(j.injected) > allowed {
				o.hang = true
				o.notef("still running %v after the fault (bound %v + load delay %v)", allowed.Round(10*time.Millisecond), bound, lag.lag().Round(10*time.Millisecond))
				j.kill()
				break wait
			}
		}
	}
	check.Stop()
	o.lagSec, o.boundSec = lag.end().Seconds(), bound.Seconds()
	o.endSec = j.ended.Sub(j.injected).Seconds()
	if o.endSec > bound.Seconds() && !o.hang {
		o.notef("ended %.2fs after the fault: beyond the bound %v, within it plus the load delay %.2fs", o.endSec, bound, o.lagSec)
	}
	checkProcesses(j, &o)
	checkSegments(r, j, &o)
	rows, err := printedRows(before)
	if err != nil {
		o.notef("reading the rows printed before the fault: %v", err)
	}
	checkFiles(j, rows, &o)
	if !o.hang {
		checkReport(j, &o)
	}
	return o, true, nil
}

// missed ends a job whose fault could not be injected: it fails when the
// job itself failed without one.
func (r *runner) missed(j *job) error {
	select {
	case <-j.done:
	case <-time.After(time.Second):
		j.kill()
		return nil
	}
	if j.status != 0 {
		return fmt.Errorf("job %v failed without a fault (status %d): %s", j.cmd.Args, j.status, j.stderr.String())
	}
	return nil
}
