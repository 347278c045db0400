package medium

import (
	"fmt"
	"time"

	"github.com/mpbench/mpbench/analysis"
)

// Arrival is the delivery of one frame to one port: the port index and the
// time the frame's last bit reaches the node (plus the configured latency).
type Arrival struct {
	Port int
	At   time.Duration
}

// Medium is a network model. Send accounts for one frame of frameLen bytes
// (MAC header and client data, as read from a TAP device) entering at port
// src at time now, destined to port dst, or to every other port when dst is
// Broadcast. It returns the arrivals, in port order, and updates the
// model's state. Ports are 0..Ports()-1. A Medium is not safe for
// concurrent use; the forwarder serialises calls.
type Medium interface {
	Send(src, dst, frameLen int, now time.Duration) []Arrival
	// TxFree returns when port src can start sending its next frame: the
	// end of the frames from src already given to Send on a switch (its
	// line to the switch), the end of every frame on the one medium of a
	// hub or wifi. Until then a real station's frames wait in its own
	// transmit queue, which its TCP stack keeps short (TCP small queues).
	TxFree(src int) time.Duration
	// Ports returns the number of ports (nodes).
	Ports() int
	// Describe returns one line naming the model and its parameters.
	Describe() string
}

// Broadcast as the destination of Send delivers the frame to every port
// but the source.
const Broadcast = -1

// Params are the parameters every model shares.
type Params struct {
	// Ports is the number of nodes, at least 2.
	Ports int
	// RateBps is the line rate in bit/s (the MAC data rate of Ethernet; for
	// Wifi the rate that stands for 802.11g's 54 Mbit/s, see Wifi).
	RateBps float64
	// Latency is added to every arrival: propagation and device latency,
	// one way, end to end.
	Latency time.Duration
}

// Validate reports parameters no model can use.
func (p Params) Validate() error {
	switch {
	case p.Ports < 2:
		return fmt.Errorf("a network needs at least 2 nodes, got %d", p.Ports)
	case !(p.RateBps >= 1e3 && p.RateBps <= 1e11):
		return fmt.Errorf("rate %g bit/s out of range; use 1kbit to 100gbit", p.RateBps)
	case p.Latency < 0:
		return fmt.Errorf("latency %v must be >= 0", p.Latency)
	}
	return nil
}

// WireBytes returns the line time of an Ethernet frame in bytes: the frame
// as read from a TAP device (frameLen bytes: MAC header and client data),
// padded to the 60-byte minimum (64 with FCS), plus FCS 4, preamble and SFD
// 8 and the inter-frame gap 12 (IEEE 802.3-2018 clauses 3.2, 4.4.2).
func WireBytes(frameLen int) int {
	minLen := analysis.EthMACHeader + analysis.EthMinClient
	if frameLen < minLen {
		frameLen = minLen
	}
	return frameLen + analysis.EthFCS + analysis.EthPreambleSFD + analysis.EthIFG
}

// txTime returns the time bytes take on a line of rateBps bit/s.
func txTime(bytes int, rateBps float64) time.Duration {
	return time.Duration(float64(bytes) * 8 * 1e9 / rateBps)
}

// destinations returns the ports a frame from src to dst reaches.
func destinations(ports, src, dst int) []int {
	if dst != Broadcast {
		return []int{dst}
	}
	out := make([]int, 0, ports-1)
	for p := range ports {
		if p != src {
			out = append(out, p)
		}
	}
	return out
}
