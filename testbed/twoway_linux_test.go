package testbed

import (
	"testing"
	"time"

	"github.com/mpbench/mpbench/testbed/medium"
)

// TestTwoWayBulk: 1 MiB from node 1 to node 2 and back, one way at a time
// (PingPong) and both ways at once (PingPing), across a 20 Mbit/s
// switch, timed by the kernels' receive stamps (timeLegs), the best of
// several rounds (bestOf). Full duplex: each direction of PingPing keeps
// about the rate of one way alone, less its share of the line with the
// other direction's ACKs (model 0.973); a shared medium gives 0.5. The
// test holds PingPing / PingPong to at least 0.9, the study's figure for a
// switch, 7.5% below the model: on a host at load average 40-45 the best
// of three rounds whose writes started together came out 0.956-0.960
// (2026-12-02), so a bound nearer the model judges the host. The order of
// ACKs and data in a node's queue, which once cost PingPing 3-6% on a
// quiet host (0.940-0.960) and nothing measurable at load average 51,
// is checked on the model's clock by TestACKAheadOfData.
func TestTwoWayBulk(t *testing.T) {
	needRoot(t)
	name := uniqueName("w")
	cfg := testConfig(name)
	cfg.Nodes = 2
	st, err := Up(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer Down(name)
	a, b := dialStamped(t, st, 1, 2)
	ab, ba := leg{a, b}, leg{b, a}
	const size = 1 << 20
	msg := make([]byte, size)
	together := 0 // rounds whose PingPing writes started together
	measure := func() []time.Duration {
		one, _ := timeLegs(t, []leg{ab}, msg)
		back, _ := timeLegs(t, []leg{ba}, msg)
		d, tog := timeLegs(t, []leg{ab, ba}, msg)
		if tog {
			together++
		}
		return []time.Duration{one[0], back[0], slowest(d, tog)}
	}
	measure() // slow start and buffers settle
	measure()
	together = 0
	model := func(flows ...medium.Flow) time.Duration {
		m, _ := cfg.Medium()
		rates := medium.FlowsPayloadBps(m, flows, cfg.MTU, cfg.RateBps)
		return payloadTime(size, min(rates[0], rates[len(rates)-1]))
	}
	onePP := model(medium.Flow{Src: 0, Dst: 1})
	models := []time.Duration{onePP, onePP, model(medium.Flow{Src: 0, Dst: 1}, medium.Flow{Src: 1, Dst: 0})}
	// The verdict: PingPing / PingPong at least twoWayMin. Rounds end once
	// every time is within near of its model.
	const twoWayMin, near = 0.9, 1.005
	best, rounds := bestOf(near, models, measure)
	t.Logf("best of %d rounds (%d with PingPing's writes together): one way %v, %v; both ways %v (models %v)", rounds, together, best[0], best[1], best[2], models)
	if pp := min(best[0], best[1]); float64(pp) > near*float64(onePP) {
		// One way alone does not depend on how the forwarder orders ACKs:
		// missing its model in every round, the host stalled every transfer.
		t.Skipf("the host lengthened every one of %d one-way transfers by more than %.1f%% (best %v, model %v): no verdict on PingPing at this load", 2*rounds, (near-1)*100, pp, onePP)
	}
	// A round counts for PingPing only when its two writes started within
	// legsStartWithin; a loaded host lets few do so (3-4 of 11-12 at load
	// average 40-53), and one such round can still be slowed by the host.
	// A miss over fewer than twoWayRounds of them gives no verdict.
	const twoWayRounds = 3
	ratio := float64(min(best[0], best[1])) / float64(best[2])
	switch {
	case ratio >= twoWayMin:
	case together < twoWayRounds:
		t.Skipf("PingPing / PingPong %.3f, but in only %d of %d rounds did the two writes of PingPing take less than %v (%d needed): no verdict on PingPing at this load", ratio, together, rounds, legsStartWithin, twoWayRounds)
	default:
		t.Errorf("PingPing / PingPong bandwidth %.3f, the best of %d rounds with the writes together; want about 0.973 (the model: full duplex, each line shared with the other direction's ACKs) and at least %.2f (a shared medium gives 0.5)", ratio, together, twoWayMin)
	}
}
