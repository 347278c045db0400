package medium

import (
	"fmt"
	"time"
)

// Switch is a full-duplex store-and-forward Ethernet switch: each port has
// a line towards the switch and a line towards the node, both at the rate.
// A frame is serialised on the sender's line (waiting for it to be free),
// received whole by the switch, then serialised on each receiver's line
// (waiting for that line), and arrives Latency after its last bit. Frames
// to different receivers do not interfere; frames to one receiver queue on
// its line. The switch's queues are unbounded (the forwarder bounds them).
type Switch struct {
	p        Params
	up, down []time.Duration // when each port's line to / from the switch is free
}

// NewSwitch returns a switch with every line idle. Errors: see
// Params.Validate.
func NewSwitch(p Params) (*Switch, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return &Switch{p: p, up: make([]time.Duration, p.Ports), down: make([]time.Duration, p.Ports)}, nil
}

// Ports returns the number of ports.
func (s *Switch) Ports() int { return s.p.Ports }

// Describe names the model and its parameters.
func (s *Switch) Describe() string {
	return fmt.Sprintf("switch: full duplex, store and forward, %s per port and direction, latency %v", FormatRate(s.p.RateBps), s.p.Latency)
}

// TxFree returns when port src's line to the switch is free; see Medium.
func (s *Switch) TxFree(src int) time.Duration { return s.up[src] }

// Send accounts for one frame; see Medium.
func (s *Switch) Send(src, dst, frameLen int, now time.Duration) []Arrival {
	tx := txTime(WireBytes(frameLen), s.p.RateBps)
	start := max(now, s.up[src])
	inSwitch := start + tx
	s.up[src] = inSwitch
	var out []Arrival
	for _, d := range destinations(s.p.Ports, src, dst) {
		end := max(inSwitch, s.down[d]) + tx
		s.down[d] = end
		out = append(out, Arrival{Port: d, At: end + s.p.Latency})
	}
	return out
}
