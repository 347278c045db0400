package medium

import (
	"container/heap"
	"time"

	"github.com/mpbench/mpbench/analysis"
)

// TCPFrameHeader is the frame of a TCP/IPv4 segment as the forwarder sees
// it, less the segment's payload, in bytes: MAC header 14, IPv4 20, TCP
// 20, no TCP options (the testbed turns TCP timestamps off).
const TCPFrameHeader = analysis.EthMACHeader + analysis.IPv4Header + analysis.TCPHeader

// Flow is one bulk TCP transfer from port Src to port Dst.
type Flow struct{ Src, Dst int }

// BulkPayloadBps returns the TCP payload rate in bit/s the model m carries
// from port src to port dst in steady state; see FlowsPayloadBps.
func BulkPayloadBps(m Medium, src, dst, mtu int, rateBps float64) float64 {
	return FlowsPayloadBps(m, []Flow{{src, dst}}, mtu, rateBps)[0]
}

// FlowsPayloadBps returns the TCP payload rate in bit/s of each of several
// simultaneous bulk transfers through model m. Each flow offers n full
// segments (MTU - 40 bytes of payload each), the i-th at the time the
// sender's line would finish the (i-1)-th, and the receiver sends a pure
// ACK (a 54-byte frame) for every second segment when it arrives, as TCP's
// delayed ACK does; frames are given to the model in time order. A flow's
// rate is n x payload x 8 / the arrival of its last frame (segment or
// ACK: a window-limited sender waits for the ACKs), for n = 2000. m's
// state is advanced; use a fresh model.
func FlowsPayloadBps(m Medium, flows []Flow, mtu int, rateBps float64) []float64 {
	const n = 2000
	payload := mtu - analysis.IPv4Header - analysis.TCPHeader
	pace := txTime(WireBytes(payload+TCPFrameHeader), rateBps)
	var evs eventHeap
	for k := range flows {
		for i := range n {
			heap.Push(&evs, event{at: time.Duration(i) * pace, flow: k, seg: i})
		}
	}
	last := make([]time.Duration, len(flows))
	for evs.Len() > 0 {
		e := heap.Pop(&evs).(event)
		f := flows[e.flow]
		if e.ack {
			a := m.Send(f.Dst, f.Src, TCPFrameHeader, e.at)
			last[e.flow] = max(last[e.flow], a[0].At)
			continue
		}
		a := m.Send(f.Src, f.Dst, payload+TCPFrameHeader, e.at)
		last[e.flow] = max(last[e.flow], a[0].At)
		if e.seg%2 == 1 {
			heap.Push(&evs, event{at: a[0].At, flow: e.flow, ack: true})
		}
	}
	out := make([]float64, len(flows))
	for k := range flows {
		out[k] = float64(n*payload*8) / last[k].Seconds()
	}
	return out
}

// event is a frame offered to the model at a time.
type event struct {
	at   time.Duration
	flow int
	seg  int
	ack  bool
}

type eventHeap []event

func (h eventHeap) Len() int           { return len(h) }
func (h eventHeap) Less(i, j int) bool { return h[i].at < h[j].at }
func (h eventHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *eventHeap) Push(x any)        { *h = append(*h, x.(event)) }
func (h *eventHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// OneWay returns the time an idle model m takes to deliver one TCP segment
// carrying payload bytes from src to dst. m's state is advanced; use a
// fresh model.
func OneWay(m Medium, src, dst, payload int) time.Duration {
	return m.Send(src, dst, payload+TCPFrameHeader, 0)[0].At
}
