package testbed

import (
	"fmt"
	"time"

	"github.com/mpbench/mpbench/testbed/medium"
	"github.com/mpbench/mpbench/transport"
)

// MessageOneWay is the one-way time of one small message from node 1 to
// node 2 through the idle model, with the message's frame counted two
// ways. Frames are as the forwarder reads them (MAC header and client
// data); wire bytes add padding to the minimum frame, FCS, preamble and
// the inter-frame gap (medium.WireBytes).
type MessageOneWay struct {
	Payload int // message bytes
	// Segment is a TCP segment carrying the message's bytes alone:
	// analysis' wire model of the message in an MPI library's file
	// (mpbench analyze --wire eth:RATE of IMB or OSU output), the frame a
	// raw TCP ping-pong sends (testbed check).
	SegmentFrame, SegmentWire int
	Segment                   time.Duration
	// Runtime is the segment mpbench's TCP runtime sends: its frame header
	// (transport.HeaderSize bytes) before the message's bytes, in one
	// segment without TCP options, the reply carrying the ACK; analysis'
	// wire model of an mpbench file over TCP (analysis.RuntimeHeader).
	RuntimeFrame, RuntimeWire int
	Runtime                   time.Duration
}

// OneWayOf returns the MessageOneWay of a message of payload bytes on the
// network of c. Error: a message that does not fit in one segment with
// the runtime's header (payload > MTU - 40 - transport.HeaderSize).
func (c Config) OneWayOf(payload int) (MessageOneWay, error) {
	if limit := c.MTU - (medium.TCPFrameHeader - 14) - transport.HeaderSize; payload < 0 || payload > limit {
		return MessageOneWay{}, fmt.Errorf("message of %d bytes: one segment carries 0 to %d with the runtime's header", payload, limit)
	}
	oneWay := func(tcpPayload int) (frame, wire int, d time.Duration, err error) {
		m, err := c.Medium()
		if err != nil {
			return 0, 0, 0, err
		}
		frame = medium.TCPFrameHeader + tcpPayload
		return frame, medium.WireBytes(frame), medium.OneWay(m, 0, 1, tcpPayload), nil
	}
	o := MessageOneWay{Payload: payload}
	var err error
	if o.SegmentFrame, o.SegmentWire, o.Segment, err = oneWay(payload); err != nil {
		return o, err
	}
	o.RuntimeFrame, o.RuntimeWire, o.Runtime, err = oneWay(transport.HeaderSize + payload)
	return o, err
}

// String writes o as testbed status prints it (bench/testbedlat/run.sh
// reads the two times).
func (o MessageOneWay) String() string {
	return fmt.Sprintf("%d-byte message, node 1 to 2, idle model: analysis' wire model %.2f usec (frame %d bytes, %d B of line time); mpbench's runtime %.2f usec (its %d-byte header: frame %d bytes, %d B of line time)",
		o.Payload, float64(o.Segment)/1e3, o.SegmentFrame, o.SegmentWire, float64(o.Runtime)/1e3, transport.HeaderSize, o.RuntimeFrame, o.RuntimeWire)
}
