package medium

import (
	"time"

	"github.com/mpbench/mpbench/analysis"
)

// TCP/IPv4 frame sizes as the forwarder sees them, without TCP options
// (the testbed turns TCP timestamps off): MAC header 14, IPv4 20, TCP 20.
const tcpFrameHeader = analysis.EthMACHeader + analysis.IPv4Header + analysis.TCPHeader

// BulkPayloadBps returns the TCP payload rate in bit/s the model m carries
// from port src to port dst in steady state: n full segments (MTU - 40
// bytes of payload each) queued at time 0, and a pure ACK (a 54-byte
// frame) sent back for every second segment when it arrives, as TCP's
// delayed ACK does. The rate is n x payload x 8 / arrival of the last
// segment, for n = 2000. m's state is advanced; use a fresh model.
func BulkPayloadBps(m Medium, src, dst, mtu int) float64 {
	const n = 2000
	payload := mtu - analysis.IPv4Header - analysis.TCPHeader
	var last time.Duration
	for i := range n {
		a := m.Send(src, dst, payload+tcpFrameHeader, 0)
		last = a[0].At
		if i%2 == 1 {
			m.Send(dst, src, tcpFrameHeader, last)
		}
	}
	return float64(n*payload*8) / last.Seconds()
}

// OneWay returns the time an idle model m takes to deliver one TCP segment
// carrying payload bytes from src to dst. m's state is advanced; use a
// fresh model.
func OneWay(m Medium, src, dst, payload int) time.Duration {
	return m.Send(src, dst, payload+tcpFrameHeader, 0)[0].At
}
