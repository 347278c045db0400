package medium

import (
	"fmt"
	"time"
)

// Hub is a repeater: one half-duplex medium shared by all ports. A frame
// waits until the medium is free, occupies it for its wire time, and
// reaches every other port (the receiver keeps it) Latency after its last
// bit. Arbitration is first come, first served: collisions and the binary
// exponential backoff of CSMA/CD are not modelled, so the hub's capacity
// is the full rate shared among all senders, an upper bound of what a real
// hub gives.
type Hub struct {
	p    Params
	free time.Duration // when the medium is free
}

// NewHub returns an idle hub. Errors: see Params.Validate.
func NewHub(p Params) (*Hub, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return &Hub{p: p}, nil
}

// Ports returns the number of ports.
func (h *Hub) Ports() int { return h.p.Ports }

// Describe names the model and its parameters.
func (h *Hub) Describe() string {
	return fmt.Sprintf("hub: one half-duplex medium at %s shared by all nodes, latency %v", FormatRate(h.p.RateBps), h.p.Latency)
}

// TxFree returns when the medium is free, for every port; see Medium.
func (h *Hub) TxFree(int) time.Duration { return h.free }

// Send accounts for one frame; see Medium.
func (h *Hub) Send(src, dst, frameLen int, now time.Duration) []Arrival {
	end := max(now, h.free) + txTime(WireBytes(frameLen), h.p.RateBps)
	h.free = end
	var out []Arrival
	for _, d := range destinations(h.p.Ports, src, dst) {
		out = append(out, Arrival{Port: d, At: end + h.p.Latency})
	}
	return out
}
