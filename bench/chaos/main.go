// Command chaos is mpbench's fault-injection campaign: it runs real jobs
// (`mpbench run`) on shared memory, TCP and a hybrid of both, injects a
// fault into each at a random point and counts every way mpbench breaks a
// promise of README.md ("What mpbench guarantees when things fail").
//
// Usage:
//
//	go run ./bench/chaos [-deaths 100] [-interrupts 50] [-transports shm,tcp,hybrid] [-seed N] [-np 0] [-bound 8s] [-ceiling 5m] [-skip 0] [-v]
//	go run ./bench/chaos -short      # CI: 8 deaths and 5 interrupts per transport, bound 15 s
//	go run ./bench/chaos -seed 17 -list   # the faults of a campaign, numbered, without running them
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
// (plus the 10 s stopped-rank limit for a SIGSTOP), plus the load's delay,
// with the documented exit status (1 for a rank fault, 130 SIGINT, 143
// SIGTERM, 137 for the launcher's SIGKILL) and one line on stderr naming
// the rank hit (not one that failed because of it) and the cause ("killed
// by signal SIGKILL"); that no process of the job runs afterwards (the
// ranks it started, any process with the job's secret); that no
// shared-memory segment of the job is left in /dev/shm; that every row
// printed before the fault is in the JSON Lines and CSV files; and that
// both end with an end record naming the fault. A fault that came after
// the job had ended is counted as missed and retried.
//
// The load's delay is the larger of two measures taken over the job's end:
// how late this process's own 50 ms timer fired, summed (lagMeter), and how
// long the job's processes waited for a CPU (waitMeter, from the kernel's
// per-thread run-queue time). Both are near 0 on an idle host, so there a
// job is held to -bound alone; a job that hangs waits for no CPU and is
// caught at the bound on any host; and a job starved by other work is not
// called a hang while it waits its turn. Whatever the load, a job still
// running -ceiling after its fault is a hang. A job stopped by its own
// launcher's watchdog (--stall, --timeout) before its fault while its
// processes waited for a CPU at least half of the time (a starved job, not
// a hung one) is counted as starved and its fault run again on a new job;
// a job that fails without a fault otherwise is a defect (faultless).
//
// It prints one line per defect (every fault with -v, each with its number
// in the campaign) and a table per transport: faults, missed, starved,
// hangs, orphans, leaked segments, lost rows, misattributed, wrong exit
// status, bad end records, extra stderr lines, jobs failed without a fault,
// the slowest end after a kill or interrupt and after a stop, the ends
// beyond -bound that the load's delay allowed, and the largest timer lag
// and CPU wait. -skip N runs the campaign from its fault N+1 (the same
// -seed and counts give the same faults), to continue one that was
// stopped. SIGINT or SIGTERM stops the campaign: the job running is killed
// and cleaned up, and the table of the faults run so far is printed.
// Exit status: 0 no defect, 1 a defect (or a job could not start), 2 bad
// flags, 130 or 143 when stopped by SIGINT or SIGTERM.
package main

import (
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
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
	bound := flag.Duration("bound", 8*time.Second, "longest a job may take to end after a kill or interrupt (a stop gets 10 s more), plus the load's delay")
	ceiling := flag.Duration("ceiling", 5*time.Minute, "longest a job may take to end after a fault whatever the load")
	skip := flag.Int("skip", 0, "run the campaign from fault skip+1 (to continue one stopped after skip faults)")
	short := flag.Bool("short", false, "CI form: -deaths 8 -interrupts 5 -bound 15s unless given")
	verbose := flag.Bool("v", false, "print every fault, not only defects")
	list := flag.Bool("list", false, "print the campaign's faults, numbered, without running them")
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
	if err == nil && (*deaths < 0 || *interrupts < 0 || *deaths+*interrupts == 0 || *np < 0 || *np == 1 || *bound <= 0 || *ceiling < *bound+stoppedLimit) {
		err = fmt.Errorf("want -deaths and -interrupts >= 0 (not both 0), -np 0 or >= 2, -bound > 0 and -ceiling at least -bound + 10s")
	}
	if total := len(chosen) * (*deaths + *interrupts); err == nil && (*skip < 0 || *skip >= total) {
		err = fmt.Errorf("-skip %d: want 0 to %d, fewer than the campaign's %d faults", *skip, total-1, total)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "chaos:", err)
		os.Exit(2)
	}
	if *list {
		for _, s := range schedule(*seed, chosen, *deaths, *interrupts, *np) {
			fmt.Printf("#%d %-6s %s\n", s.n, s.tr, s.f)
		}
		return
	}
	c := &campaign{seed: *seed, verbose: *verbose, trs: chosen}
	r := &runner{mpbench: *mpbench, bound: *bound, ceiling: *ceiling}
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	go func() { r.stop(<-sigs) }()
	err = c.run(r, *deaths, *interrupts, *np, *skip)
	c.print(os.Stdout)
	var stopped *stoppedError
	switch {
	case errors.As(err, &stopped):
		fmt.Printf("%v after %d faults (the next to run: -skip %d)\n", stopped, c.done, *skip+c.done)
		if s, ok := stopped.sig.(syscall.Signal); ok {
			os.Exit(128 + int(s))
		}
		os.Exit(1)
	case err != nil:
		fmt.Fprintf(os.Stderr, "chaos: %v (after %d faults; the next to run: -skip %d)\n", err, c.done, *skip+c.done)
		os.Exit(1)
	case c.defects > 0:
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
	trs     []string
	counts  map[string]*counts
	defects int
	done    int // faults run (after -skip)
}

// maxStarved is how many jobs in a row a fault may lose to starvation
// before the campaign gives up on the machine.
const maxStarved = 10

// run builds mpbench when needed and injects the faults, transports taking
// turns so that they share the machine's load, from fault skip+1 on.
func (c *campaign) run(r *runner, deaths, interrupts, np, skip int) error {
	c.counts = map[string]*counts{}
	for _, tr := range c.trs {
		c.counts[tr] = &counts{}
	}
	dir, err := os.MkdirTemp("", "chaos")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	r.dir = dir
	if r.mpbench == "" {
		r.mpbench = filepath.Join(dir, "mpbench")
		if out, err := exec.Command("go", "build", "-o", r.mpbench, "./cmd/mpbench").CombinedOutput(); err != nil {
			return fmt.Errorf("building mpbench (run from the repository root or pass -mpbench): %v\n%s", err, out)
		}
	}
	fmt.Printf("# chaos: seed %d, %d deaths and %d interrupts per transport, bound %v, ceiling %v\n", c.seed, deaths, interrupts, r.bound, r.ceiling)
	all := schedule(c.seed, c.trs, deaths, interrupts, np)
	if skip > 0 {
		fmt.Printf("# chaos: from fault %d of %d (-skip %d)\n", skip+1, len(all), skip)
	}
	for _, s := range all[skip:] {
		if err := c.fault(r, s.n, s.tr, s.f); err != nil {
			return err
		}
		c.done++
		if s.n%10 == 0 {
			fmt.Fprintf(os.Stderr, "chaos: %d/%d faults\n", s.n, len(all))
		}
	}
	return nil
}

// scheduled is a fault in the campaign's order.
type scheduled struct {
	n  int // its number, from 1
	tr string
	f  fault
}

// schedule returns the campaign's faults in the order they run: each
// transport's plan drawn in turn from one generator seeded with seed, then
// the transports taking turns fault by fault. The same seed, transports
// and counts give the same faults, which -skip relies on.
func schedule(seed uint64, trs []string, deaths, interrupts, np int) []scheduled {
	rng := rand.New(rand.NewPCG(seed, 0x6368616f73))
	plans := map[string][]fault{}
	turn := 0
	for _, tr := range trs {
		plans[tr] = plan(rng, deaths, interrupts, np, &turn)
	}
	var out []scheduled
	for i := range deaths + interrupts {
		for _, tr := range trs {
			out = append(out, scheduled{n: len(out) + 1, tr: tr, f: plans[tr][i]})
		}
	}
	return out
}

// fault runs fault number n, f, on transport tr until it is injected:
// again on a new job when the job ended first (earlier in the job) or was
// starved, and counts its outcome.
func (c *campaign) fault(r *runner, n int, tr string, f fault) error {
	k := c.counts[tr]
	ended, starved := 0, 0
	for {
		o, a, why, err := r.one(f, tr)
		if err != nil {
			return err
		}
		switch a {
		case injected:
			k.add(f, o)
			c.report(n, tr, f, o)
			return nil
		case ranOut:
			k.missed++
			// A short job: hit it earlier, in rows and in time (a job
			// of 1-4 MiB messages over shared memory can end within
			// the fault's delay after its first row).
			f.afterRows /= 2
			f.extra /= 2
		case starvedJob:
			k.starved++
			starved++
			fmt.Printf("#%d %-6s %s: starved, run again: %s\n", n, tr, f, why)
			if starved >= maxStarved {
				return fmt.Errorf("%s: %s: %d jobs in a row starved before the fault: the machine is too busy", tr, f, starved)
			}
			continue
		case faultless:
			k.faultless++
			c.defects++
			fmt.Printf("#%d %-6s %s: DEFECT: %s\n", n, tr, f, why)
		}
		if ended++; ended >= 6 {
			return fmt.Errorf("%s: %s: the job ended before the fault 6 times", tr, f)
		}
	}
}

// report prints a fault's line when it showed a defect or with -v.
func (c *campaign) report(n int, tr string, f fault, o outcome) {
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
	fmt.Printf("#%d %-6s %s: ended %.2fs after the fault: %s", n, tr, f, o.endSec, verdict)
	for _, n := range o.notes {
		fmt.Printf("; %s", n)
	}
	fmt.Println()
}
