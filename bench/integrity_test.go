package bench

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/mpbench/mpbench/coll"
	"github.com/mpbench/mpbench/comm"
	"github.com/mpbench/mpbench/comm/commtest"
	"github.com/mpbench/mpbench/transport"
	"github.com/mpbench/mpbench/transport/hybrid"
	"github.com/mpbench/mpbench/transport/shm"
	"github.com/mpbench/mpbench/transport/transporttest"
)

// EnvCorruptions sets how many payload corruptions
// TestCheckCatchesInjectedCorruption injects in all (default: two per
// benchmark, spread over the transports), e.g. 1110 for the campaign by
// hand: 1110 spread over the 23 benchmarks put over 1,000 flips into the
// 20 that -check must catch (Uniband, Biband and Exchange take the rest;
// see partlyChecked):
//
//	MPBENCH_CORRUPTIONS=1110 go test -run TestCheckCatchesInjectedCorruption -v ./bench
const EnvCorruptions = "MPBENCH_CORRUPTIONS"

// integrityRanks is the job size of the campaign: every collective runs on
// 4 ranks, point-to-point benchmarks on 2 of them.
const integrityRanks = 4

// integrityEndpoints connects a job of integrityRanks ranks over name:
// a registered transport, or "hybrid", ranks 0-1 and 2-3 on two "hosts"
// (shared memory within, TCP between), as mpbench's launcher wires a
// multi-host job.
func integrityEndpoints(t *testing.T, name string) []transport.Endpoint {
	t.Helper()
	switch name {
	case "shm":
		return integrityShm(t)
	case "hybrid":
	default:
		return commtest.Endpoints(t, name, integrityRanks)
	}
	shmEps, tcpEps := integrityShm(t), commtest.Endpoints(t, "tcp", integrityRanks)
	eps := make([]transport.Endpoint, integrityRanks)
	for r := range eps {
		route := make([]int, integrityRanks)
		for p := range route {
			if p/2 != r/2 {
				route[p] = 1
			}
		}
		ep, err := hybrid.New(r, integrityRanks, []hybrid.Part{{Name: "shm", Endpoint: shmEps[r]}, {Name: "tcp", Endpoint: tcpEps[r]}}, route)
		if err != nil {
			t.Fatal(err)
		}
		eps[r] = ep
	}
	return eps
}

// integrityShm returns the shared-memory endpoints of a job of
// integrityRanks with single copy from 32 KiB, whatever the default
// threshold, so that the campaign's 40 and 128 KiB payloads are read by
// process_vm_readv and its 8 B and 4 KiB ones through the rings.
func integrityShm(t *testing.T) []transport.Endpoint {
	t.Helper()
	eps, err := shm.NewJob(integrityRanks, shm.Options{CMABytes: 32 << 10})
	if err != nil {
		t.Fatalf("shm job of %d ranks: %v", integrityRanks, err)
	}
	return eps
}

// partlyChecked are the benchmarks whose -check pass cannot see every
// flip, as their receives overwrite one another in IMB's buffers: every
// message of Uniband's and Biband's window lands in one receive buffer, so
// only the window's last message is compared (and the 1-byte
// acknowledgements are not compared at all), and both of Exchange's
// receives write one buffer, so only the right neighbour's message is.
var partlyChecked = map[string]bool{"Uniband": true, "Biband": true, "Exchange": true}

// integrityCell counts one transport and benchmark of the campaign.
type integrityCell struct {
	injected, detected, missed int // missed: the armed rank received no payload
	firstMiss                  string
}

// TestCheckCatchesInjectedCorruption is the -check campaign: it runs every
// benchmark that supports -check over shm, tcp, inmem and hybrid, and in
// each run flips one bit of one payload a random rank receives in a random
// repetition of the -check pass (a benchmark message, not the runner's
// control messages; transporttest.Corrupter: after the
// transport read it, before the runtime sees it), at a random size of the
// eager, single-copy and rendezvous ranges (single copy from 32 KiB on
// shared memory, integrityShm). Every injected flip must fail
// the run with a *CheckError, except where -check cannot see it by
// construction (partlyChecked; they are counted and printed, not
// required). Reductions run on -red_data_type int in the first pass over
// the benchmarks and on char (1-byte elements, sums wrapping modulo 2^8) in
// the second; both are exact: in float a flip of a low mantissa bit can
// round away in the sum, leaving every result byte right. It prints
// detected/injected per transport and benchmark with -v.
func TestCheckCatchesInjectedCorruption(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the corruption campaign runs jobs of 4 ranks on every transport")
	}
	var names []string
	for _, n := range Names() {
		if s, _ := Lookup(n); s.Expect != nil {
			names = append(names, n)
		}
	}
	transports := []string{"shm", "tcp", "inmem", "hybrid"}
	total := 2 * len(names) // every benchmark twice; every transport about len(names)/2 times
	if s := os.Getenv(EnvCorruptions); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			t.Fatalf("%s=%q: want a number of injections >= 1", EnvCorruptions, s)
		}
		total = n
	}
	rng := rand.New(rand.NewPCG(uint64(total), 35))
	sizes := []int64{8, 4096, 40 << 10, 128 << 10} // eager in the ring (8 B to 40 KiB), rendezvous
	cells := map[string]*integrityCell{}
	t.Cleanup(func() { corruptSend, checkDone = nil, nil })
	for i := 0; i < total; i++ {
		// Every benchmark and transport comes in turn; with the counts
		// coprime (23 benchmarks, 4 transports) 92 injections meet every
		// pair.
		tr, name := transports[i%len(transports)], names[i%len(names)]
		red := []coll.Datatype{coll.Int32, coll.Char}[i/len(names)%2]
		key := tr + " " + name
		if cells[key] == nil {
			cells[key] = &integrityCell{}
		}
		c := cells[key]
		// A rank that receives nothing in the chosen repetition (a root,
		// an idle rank) gets no flip: try again, a few times.
		for try := 0; try < 8; try++ {
			size, rank, rep := sizes[rng.IntN(len(sizes))], rng.IntN(integrityRanks), rng.IntN(3)
			flips, err := corruptRun(t, tr, name, red, size, rank, rep, rng.Uint64())
			if len(flips) == 0 {
				c.missed++
				if err != nil {
					t.Fatalf("%s over %s, %d bytes, no corruption injected: %v", name, tr, size, err)
				}
				continue
			}
			c.injected++
			var ce *CheckError
			if errors.As(err, &ce) {
				c.detected++
			} else if c.firstMiss == "" {
				c.firstMiss = fmt.Sprintf("%d bytes, rank %d, repetition %d: %s: run returned %v", size, rank, rep, flips[0], err)
			}
			break
		}
	}
	keys := make([]string, 0, len(cells))
	for k := range cells {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var injected, detected, winInjected, winDetected int
	for _, k := range keys {
		c := cells[k]
		t.Logf("%-36s detected/injected %3d/%-3d (arms without a payload: %d)", k, c.detected, c.injected, c.missed)
		if partlyChecked[strings.Fields(k)[1]] {
			winInjected, winDetected = winInjected+c.injected, winDetected+c.detected
			continue
		}
		injected, detected = injected+c.injected, detected+c.detected
		if c.detected != c.injected {
			t.Errorf("%s: %d of %d corruptions not detected; first: %s", k, c.injected-c.detected, c.injected, c.firstMiss)
		}
	}
	t.Logf("total detected/injected %d/%d; Uniband, Biband and Exchange (not required) %d/%d", detected, injected, winDetected, winInjected)
	if injected+winInjected < total*3/4 {
		t.Errorf("only %d of %d corruptions could be injected", injected, total)
	}
}

// corruptRun runs benchmark name at one size with -check over transport
// tr (reductions on elements of red) and arms a bit flip on rank at
// repetition rep of the -check pass. It
// returns the flips made and the first error of any rank (a *CheckError
// when one rank reports defects).
func corruptRun(t *testing.T, tr, name string, red coll.Datatype, size int64, rank, rep int, seed uint64) ([]string, error) {
	t.Helper()
	eps := integrityEndpoints(t, tr)
	corrupters := make([]*transporttest.Corrupter, len(eps))
	for r := range eps {
		corrupters[r] = transporttest.NewCorrupter(seed + uint64(r))
		corrupters[r].Only = func(h transport.Header) bool { return h.Tag < tagSamples } // not the runner's control messages
		eps[r] = corrupters[r].Wrap(eps[r])
	}
	corruptSend = func(e *Env, i int, _ []byte) {
		if me := e.Comm.Rank(); me == rank {
			if i == rep {
				corrupters[me].Arm()
			} else if i > rep {
				corrupters[me].Disarm()
			}
		}
	}
	checkDone = func(e *Env) { corrupters[e.Comm.Rank()].Disarm() }
	o := DefaultOptions()
	o.Benchmarks = []string{name}
	o.NPMin = integrityRanks
	o.MsgLens = []int64{size}
	o.IterPolicy, o.MsgsPerSample = IterOff, 3
	o.Settle = 0
	o.Check = true
	if s, _ := Lookup(name); s.Reduction {
		o.RedType = red
	}
	var mu sync.Mutex
	var first error
	commtest.RunOn(t, eps, comm.Config{}, func(c comm.Comm) error {
		err := Run(context.Background(), c, o, nil)
		mu.Lock()
		defer mu.Unlock()
		var ce *CheckError
		if first == nil || errors.As(err, &ce) && !errors.As(first, &ce) {
			first = err
		}
		return nil
	})
	return corrupters[rank].Flips(), first
}
