// Command wireup measures how long a job takes from launch to its first
// benchmark, at several process counts, on mpbench's own launcher and,
// when mpiexec.mpich is installed, under MPICH's mpiexec through PMI.
//
// Usage:
//
//	go run ./bench/wireup [-mpbench PATH] [-np 2,4,8,16] [-rounds 5]
//
// One sample is the wall-clock time from starting the command to the
// line "# Benchmarking" on its standard output: process start-up,
// rendezvous or PMI exchange, shared-memory and TCP set-up and the header,
// with --settle 0 so that no settling barriers are counted. Rounds are
// interleaved (every np and launcher once per round) so that load on the
// host affects all alike; the median, minimum and maximum of the rounds are
// printed, and the median per rank relative to the smallest np's, which
// stays near or below 1 when wire-up grows at most linearly with np.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

func main() {
	bin := flag.String("mpbench", "", "mpbench executable (default: build ./cmd/mpbench)")
	nps := flag.String("np", "2,4,8,16", "process counts")
	rounds := flag.Int("rounds", 5, "interleaved rounds")
	flag.Parse()
	if *bin == "" {
		dir, err := os.MkdirTemp("", "wireup")
		if err != nil {
			fail(err)
		}
		defer os.RemoveAll(dir)
		*bin = filepath.Join(dir, "mpbench")
		if out, err := exec.Command("go", "build", "-o", *bin, "./cmd/mpbench").CombinedOutput(); err != nil {
			fail(fmt.Errorf("go build: %v\n%s", err, out))
		}
	}
	var counts []int
	for _, s := range strings.Split(*nps, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 2 {
			fail(fmt.Errorf("-np %s: want process counts >= 2", *nps))
		}
		counts = append(counts, n)
	}
	args := []string{"run", "--settle", "0", "-msglog", "0:0", "-iter", "1", "-iter_policy", "off", "PingPong"}
	launchers := []struct {
		name string
		cmd  func(np int) []string
	}{{"mpbench run -np N", func(np int) []string {
		return append([]string{*bin}, append(args, "-np", strconv.Itoa(np))...)
	}}}
	if mpiexec, err := exec.LookPath("mpiexec.mpich"); err == nil {
		launchers = append(launchers, struct {
			name string
			cmd  func(np int) []string
		}{"mpiexec.mpich -n N (PMI)", func(np int) []string {
			return append([]string{mpiexec, "-n", strconv.Itoa(np), *bin}, args...)
		}})
	}
	samples := map[string]map[int][]time.Duration{}
	for _, l := range launchers {
		samples[l.name] = map[int][]time.Duration{}
	}
	for range *rounds {
		for _, np := range counts {
			for _, l := range launchers {
				d, err := sample(l.cmd(np))
				if err != nil {
					fail(fmt.Errorf("%s at np %d: %v", l.name, np, err))
				}
				samples[l.name][np] = append(samples[l.name][np], d)
			}
		}
	}
	fmt.Printf("# wire-up: launch to the first \"# Benchmarking\" line, %d interleaved rounds, ms\n", *rounds)
	fmt.Printf("%-26s %4s %9s %9s %9s %14s\n", "launcher", "np", "median", "min", "max", "per rank / np"+strconv.Itoa(counts[0]))
	for _, l := range launchers {
		base := median(samples[l.name][counts[0]]).Seconds() / float64(counts[0])
		for _, np := range counts {
			s := samples[l.name][np]
			m := median(s)
			fmt.Printf("%-26s %4d %9.1f %9.1f %9.1f %14.2f\n", l.name, np, ms(m), ms(s[0]), ms(s[len(s)-1]), m.Seconds()/float64(np)/base)
		}
	}
}

// sample runs argv and returns the time until "# Benchmarking" appears on
// its stdout; the command is then left to finish.
func sample(argv []string) (time.Duration, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return 0, err
	}
	var errb strings.Builder
	cmd.Stderr = &errb
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	var d time.Duration
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if d == 0 && strings.HasPrefix(sc.Text(), "# Benchmarking") {
			d = time.Since(start)
		}
	}
	if err := cmd.Wait(); err != nil {
		return 0, fmt.Errorf("%v: %s", err, errb.String())
	}
	if d == 0 {
		return 0, fmt.Errorf("no \"# Benchmarking\" line")
	}
	return d, nil
}

// median sorts s and returns its middle value.
func median(s []time.Duration) time.Duration {
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func fail(err error) {
	fmt.Fprintln(os.Stderr, "wireup:", err)
	os.Exit(1)
}
