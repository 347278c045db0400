package launch

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mpbench/mpbench/transport"
)

// The test binary doubles as the job's worker (and as a launcher to kill):
// TestMain runs the mode named by MPBENCH_TESTMODE instead of the tests.
const (
	envMode       = "MPBENCH_TESTMODE"
	envDir        = "MPBENCH_TESTDIR"        // where workers write rank-N.pid once joined
	envFailRank   = "MPBENCH_TESTFAILRANK"   // mode fail: the rank that exits 3
	envIgnoreTerm = "MPBENCH_TESTIGNORETERM" // mode hang: ignore SIGTERM
)

// exitLauncherLost is the status of a test worker whose launcher is gone,
// cmd/mpbench's for a *LauncherLostError.
const exitLauncherLost = 1

func TestMain(m *testing.M) {
	if _, err := BootstrapFromStdin(os.Args[1:], ""); err != nil { // a rank started through a launch agent
		ReportError(os.Stderr, err)
		os.Exit(2)
	}
	go func() { <-Fatal(); os.Exit(exitLauncherLost) }() // as cmd/mpbench does
	switch mode := os.Getenv(envMode); mode {
	case "":
		os.Exit(m.Run())
	case "launcher":
		os.Exit(testLauncher())
	case "lowfd":
		os.Exit(testLowFDLauncher())
	default:
		os.Exit(testWorker(mode))
	}
}

// testLauncher runs a 3-rank job of hanging workers until it is killed.
func testLauncher() int {
	exe, _ := os.Executable()
	err := Run(context.Background(), Spec{NP: 3, Argv: []string{exe}, Env: []string{quickExit, envMode + "=hang"}, Stderr: os.Stderr})
	fmt.Fprintln(os.Stderr, "launcher:", err)
	return 1
}

// testLowFDLauncher runs a job of 30 hanging ranks with an open-file
// limit of 85 and prints Run's error: starting the ranks takes two
// descriptors per rank (its stderr pipe, its pidfd), accepting their
// connections one more, so the launcher runs out while ranks connect.
// The check of the host's limits before the ranks start, which would
// refuse the job, is left out.
func testLowFDLauncher() int {
	exe, _ := os.Executable()
	hostCapacity = func() Capacity { return unlimited }
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &syscall.Rlimit{Cur: 85, Max: 85}); err != nil {
		fmt.Println("setrlimit:", err)
		return 1
	}
	err := Run(context.Background(), Spec{NP: 30, Argv: []string{exe}, Env: []string{quickExit, envMode + "=latehang"}, Timeout: 60 * time.Second})
	fmt.Println(err)
	return 0
}

func testWorker(mode string) int {
	if mode == "leak" {
		return leakSegment()
	}
	if mode == "latehang" {
		time.Sleep(time.Second) // connect only once every rank is started
		mode = "hang"
	}
	joinWait := 20 * time.Second
	if mode == "stophandshake" { // rank 0 stops during the wire-up, rank 1 waits for it
		if os.Getenv(EnvRank) == "0" {
			return stopInHandshake()
		}
		mode, joinWait = "hang", time.Minute
	}
	ctx, cancel := context.WithTimeout(context.Background(), joinWait)
	defer cancel()
	if mode == "badenv" { // a setting the launcher's environment did not have
		os.Setenv(envBadSetting, "abc")
	}
	ep, job, err := JoinJob(ctx)
	if err != nil && mode == "badenv" {
		ReportError(os.Stderr, err) // as cmd/mpbench's worker does
		return 1
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	rank := ep.Rank()
	if mode == "where" { // where this rank is and how it reaches its peers
		fmt.Fprintf(os.Stderr, "rank %d: %s %s %s\n", rank, job.Transport, FormatRankHosts(job.Hosts), job.Wireup)
		mode = "exchange"
	}
	col := &collector{frames: make(chan frame, 1024)}
	if err := ep.Start(col); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	// The signal dispositions a mode needs are set before the pid file
	// is written: a test signals a rank as soon as it sees that file.
	sigs := make(chan os.Signal, 1)
	switch {
	case mode == "graceful":
		signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	case mode == "hang" && os.Getenv(envIgnoreTerm) != "":
		signal.Ignore(syscall.SIGTERM)
	}
	if dir := os.Getenv(envDir); dir != "" {
		writePidFile(dir, rank)
	}
	switch mode {
	case "exchange":
		if err := exchangeAll(ep, col); err != nil {
			fmt.Fprintf(os.Stderr, "rank %d: %v\n", rank, err)
			return 1
		}
		if rank == 0 {
			fmt.Printf("exchange ok np=%d\n", ep.Size())
		} else {
			fmt.Printf("rank %d stdout is discarded\n", rank)
		}
		fmt.Fprintf(os.Stderr, "rank %d: done\n", rank)
		ep.Close()
		return 0
	case "fail":
		if strconv.Itoa(rank) == os.Getenv(envFailRank) {
			fmt.Fprintf(os.Stderr, "rank %d: giving up: boom\n", rank)
			return 3
		}
	case "collateral": // rank 1 reports a lost peer at once; rank 0 is killed 150 ms later
		if err := rootIgnoresTerm(ep, col); err != nil {
			fmt.Fprintf(os.Stderr, "rank %d: %v\n", rank, err)
			return 3
		}
		if rank == 1 {
			fmt.Fprintln(os.Stderr, "rank 1: lost rank 0")
			return 1
		}
		if rank == 0 {
			time.Sleep(150 * time.Millisecond)
			syscall.Kill(os.Getpid(), syscall.SIGKILL)
		}
	case "relayed": // ranks 1, 2 relay rank 0's failure at once; rank 0 reports its own 150 ms later
		if err := rootIgnoresTerm(ep, col); err != nil {
			fmt.Fprintf(os.Stderr, "rank %d: %v\n", rank, err)
			return 3
		}
		if rank != 0 {
			ReportError(os.Stderr, relayedErr{"csv: write: no space left on device"})
			return 1
		}
		time.Sleep(150 * time.Millisecond) // still closing its files when the others end
		ReportError(os.Stderr, errors.New("csv: write: no space left on device"))
		return 1
	case "crash": // rank 1 dereferences a nil pointer
		if rank == 1 {
			fmt.Fprintln(os.Stderr, "rank 1: about to crash")
			var p *collector
			close(p.frames)
		}
	case "report":
		fmt.Fprintf(os.Stderr, "rank %d: an ordinary line\n", rank)
		ReportError(os.Stderr, fmt.Errorf("problem seen by rank %d\nsecond line", rank))
		return 1
	case "hang": // SIGTERM ignored with envIgnoreTerm (above)
	case "graceful": // end in order on SIGINT or SIGTERM, naming it
		fmt.Fprintf(os.Stderr, "rank %d: stopped by %v\n", rank, <-sigs)
		ep.Close()
		return 0
	default:
		fmt.Fprintf(os.Stderr, "unknown %s=%q\n", envMode, mode)
		return 2
	}
	select {}
}

// relayedErr is another rank's failure relayed to this one, as bench's
// *RelayedError.
type relayedErr struct{ note string }

func (e relayedErr) Error() string { return e.note }
func (e relayedErr) Relayed() bool { return true }

func writePidFile(dir string, rank int) {
	name := filepath.Join(dir, fmt.Sprintf("rank-%d.pid", rank))
	os.WriteFile(name+".tmp", []byte(strconv.Itoa(os.Getpid())), 0o644)
	os.Rename(name+".tmp", name)
}

type frame struct {
	h       transport.Header
	payload []byte
}

// collector is a Handler that queues frames and ignores peer failures.
type collector struct{ frames chan frame }

func (c *collector) Deliver(h transport.Header, read func([]byte) error) error {
	var p []byte
	if h.Kind != transport.RTS && h.Kind != transport.CTS && h.Length > 0 {
		p = make([]byte, h.Length)
		if err := read(p); err != nil {
			return err
		}
	}
	c.frames <- frame{h, p}
	return nil
}

// exchangeAll sends every peer three small Eager frames and one 1 MiB Data
// frame and checks what arrives from every peer, in order.
// rootIgnoresTerm makes rank 0 ignore SIGTERM before any other rank goes
// on: rank 0 then tells each the others, which wait for it. Without the
// wait, a loaded host could deliver the launcher's SIGTERM (sent when the
// others end) before rank 0 had ignored it.
func rootIgnoresTerm(ep transport.Endpoint, col *collector) error {
	if ep.Rank() == 0 {
		signal.Ignore(syscall.SIGTERM)
		for dst := 1; dst < ep.Size(); dst++ {
			h, p := exchangeFrame(0, dst, 0)
			if err := ep.Send(dst, h, p); err != nil {
				return err
			}
		}
		return nil
	}
	select {
	case <-col.frames:
		return nil
	case <-time.After(20 * time.Second):
		return errors.New("rank 0 did not say it ignores SIGTERM within 20 s")
	}
}

func exchangeAll(ep transport.Endpoint, col *collector) error {
	rank, size := ep.Rank(), ep.Size()
	var wg sync.WaitGroup
	errs := make(chan error, size)
	for dst := range size {
		if dst == rank {
			continue
		}
		wg.Go(func() {
			for seq := range 4 {
				h, p := exchangeFrame(rank, dst, seq)
				if err := ep.Send(dst, h, p); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	next := make([]int, size)
	for range 4 * (size - 1) {
		select {
		case f := <-col.frames:
			src := int(f.h.Source)
			want, wantP := exchangeFrame(src, rank, next[src])
			if f.h != want || !bytes.Equal(f.payload, wantP) {
				return fmt.Errorf("frame %d from rank %d: got %+v, want %+v", next[src], src, f.h, want)
			}
			next[src]++
		case err := <-errs:
			return err
		case <-time.After(20 * time.Second):
			return fmt.Errorf("frames missing after 20 s: got %v per source", next)
		}
	}
	wg.Wait()
	return nil
}

func exchangeFrame(src, dst, seq int) (transport.Header, []byte) {
	p := []byte(fmt.Sprintf("from %d to %d #%d", src, dst, seq))
	kind := transport.Eager
	if seq == 3 {
		kind = transport.Data
		p = bytes.Repeat(p, (1<<20)/len(p)+1)[:1<<20]
	}
	return transport.Header{Kind: kind, Source: int32(src), Tag: int32(seq), Length: uint64(len(p))}, p
}
