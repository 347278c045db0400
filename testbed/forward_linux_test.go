package testbed

import (
	"testing"
	"time"

	"github.com/mpbench/mpbench/testbed/medium"
)

// tcpFrame returns an Ethernet frame from node src to node dst carrying an
// IPv4 TCP segment with the given flags and payload bytes.
func tcpFrame(src, dst int, flags byte, payload int) []byte {
	f := make([]byte, 14+20+20+payload)
	d, s := MAC(dst), MAC(src)
	copy(f[0:], d[:])
	copy(f[6:], s[:])
	f[12], f[13] = 0x08, 0x00
	ip := f[14:]
	ip[0] = 0x45
	total := 20 + 20 + payload
	ip[2], ip[3] = byte(total>>8), byte(total)
	ip[9] = 6
	tcp := ip[20:]
	tcp[12] = 5 << 4
	tcp[13] = flags
	return f
}

const (
	tcpFIN = 0x01
	tcpSYN = 0x02
	tcpPSH = 0x08
	tcpACK = 0x10
)

func TestPureACK(t *testing.T) {
	arp := tcpFrame(1, 2, tcpACK, 0)
	arp[12], arp[13] = 0x08, 0x06
	ipv6 := tcpFrame(1, 2, tcpACK, 0)
	ipv6[12], ipv6[13] = 0x86, 0xdd
	udp := tcpFrame(1, 2, tcpACK, 0)
	udp[14+9] = 17
	for _, c := range []struct {
		name  string
		frame []byte
		want  bool
	}{
		{"ACK", tcpFrame(1, 2, tcpACK, 0), true},
		{"data", tcpFrame(1, 2, tcpACK|tcpPSH, 1460), false},
		{"one byte", tcpFrame(1, 2, tcpACK|tcpPSH, 1), false},
		{"SYN-ACK", tcpFrame(1, 2, tcpSYN|tcpACK, 0), false},
		{"FIN-ACK", tcpFrame(1, 2, tcpFIN|tcpACK, 0), false},
		{"ARP", arp, false},
		{"IPv6", ipv6, false},
		{"UDP", udp, false},
		{"short", tcpFrame(1, 2, tcpACK, 0)[:40], false},
	} {
		if got := pureACK(c.frame); got != c.want {
			t.Errorf("%s: pureACK = %v, want %v", c.name, got, c.want)
		}
	}
}

// TestACKAheadOfData: node 1 has 20 full data frames for node 2 in its
// transmit queue when it sends an ACK (of node 2's data). A host keeps
// only a few frames in its NIC, so the ACK leaves after those, not after
// the 20; in the order of the frames as read it would wait for all 20.
func TestACKAheadOfData(t *testing.T) {
	for _, ackFirst := range []bool{true, false} {
		cfg := Config{Name: "t", Nodes: 2, Net: "switch", RateBps: 20e6, MTU: 1500}
		m, err := cfg.Medium()
		if err != nil {
			t.Fatal(err)
		}
		f := newForwarder(cfg, m)
		f.ackFirst = ackFirst
		data := tcpFrame(1, 2, tcpACK|tcpPSH, 1460)
		for range 20 {
			f.enqueue(0, data, 0)
		}
		f.enqueue(0, tcpFrame(1, 2, tcpACK, 0), 0)
		// The forwarder feeds the model as the line frees, at least every
		// frame time (615 usec at 20 Mbit/s).
		for now := time.Duration(0); now < 20*time.Millisecond; now += 100 * time.Microsecond {
			f.feed(0, now)
		}
		if n := len(f.hostQ[0]); n != 0 {
			t.Fatalf("ackFirst %v: %d frames left in the host queue", ackFirst, n)
		}
		var ackAt time.Duration
		before := 0 // data frames delivered before the ACK
		for _, d := range f.pending {
			if len(d.frame) == 54 {
				ackAt = d.at
			}
		}
		for _, d := range f.pending {
			if len(d.frame) > 54 && d.at < ackAt {
				before++
			}
		}
		frame := time.Duration(float64(medium.WireBytes(1514)) * 8 / cfg.RateBps * float64(time.Second))
		if ackFirst && (before > 5 || ackAt > f.txAhead+3*frame) {
			t.Errorf("ACK behind %d data frames, delivered at %v; want it behind at most the frames within txAhead (%v) of the line", before, ackAt, f.txAhead)
		}
		if !ackFirst && before != 20 {
			t.Errorf("without ACKs first: ACK behind %d data frames, want all 20 (the order read)", before)
		}
		if f.queued[1] != 21 {
			t.Errorf("%d frames counted for node 2's queue, want 21", f.queued[1])
		}
	}
}
