package analysis

import "fmt"

// The study's framing presets, exactly as the seed documents compute their
// tables (seed 001 tables 4.1 and 4.2, seed 002 table 4.4). They are
// reproductions of the study, not physical models: see EthernetModel and
// InfiniBandModel for those.
const (
	// PresetEthernet100 is seed 001 table 4.1: total = bytes + 26, no
	// splitting, 0.1 usec per byte (100 Mbit/s with 10 line bits per byte).
	PresetEthernet100 = "ethernet-100"
	// PresetFC1G is seed 001 table 4.2 (Fibre Channel framing on 1 Gbit/s
	// Ethernet): frames of 2048 B, total = bytes + 36 + 12 (frames - 1),
	// 0.01 usec per byte (1 ns/bit, 8b/10b coding). 36 = SOF 4 + frame
	// header 24 + CRC 4 + EOF 4; further frames carry SOF, CRC, EOF = 12.
	PresetFC1G = "fc-1g"
	// PresetIBSeed is seed 002 table 4.4 (InfiniBand as the seed models
	// it): frames of 2048 B, total = bytes + 64 + 12 (frames - 1), 0.01
	// usec per byte.
	PresetIBSeed = "ib-seed"
)

// StudyModel returns one of the study's presets by name (PresetEthernet100,
// PresetFC1G, PresetIBSeed); ok is false for any other name.
func StudyModel(name string) (m WireModel, ok bool) {
	switch name {
	case PresetEthernet100:
		return WireModel{Name: name, FirstOverhead: 26, NsPerByte: 100,
			Source: "seed 001, table 4.1: total = bytes + 26, 0.1 us/B"}, true
	case PresetFC1G:
		return WireModel{Name: name, FramePayload: 2048, FirstOverhead: 36, FrameOverhead: 12, NsPerByte: 10,
			Source: "seed 001, table 4.2: Fibre Channel frames (SOF 4, header 24, CRC 4, EOF 4), 2048 B payload, 0.01 us/B"}, true
	case PresetIBSeed:
		return WireModel{Name: name, FramePayload: 2048, FirstOverhead: 64, FrameOverhead: 12, NsPerByte: 10,
			Source: "seed 002, table 4.4: 64 B datagram overhead, 2048 B frames, 0.01 us/B"}, true
	}
	return WireModel{}, false
}

// Ethernet framing constants, IEEE Std 802.3-2018 clause 3 (MAC frame
// format) and clause 4.4.2 (interPacketGap), RFC 791 (IPv4 header),
// RFC 9293 (TCP header) and RFC 7323 (TCP timestamps option).
const (
	EthPreambleSFD  = 8  // preamble 7 + start frame delimiter 1 (802.3 3.2.1-3.2.2)
	EthMACHeader    = 14 // destination 6 + source 6 + length/type 2 (802.3 3.2.3-3.2.6)
	EthFCS          = 4  // frame check sequence, CRC-32 (802.3 3.2.9)
	EthIFG          = 12 // minimum inter-packet gap, 96 bit times (802.3 4.4.2)
	EthMinClient    = 46 // minimum MAC client data; shorter data is padded (802.3 3.2.7)
	IPv4Header      = 20 // IPv4 header without options (RFC 791)
	TCPHeader       = 20 // TCP header without options (RFC 9293)
	TCPTimestampOpt = 12 // timestamps option 10 + 2 NOP padding (RFC 7323 3.2)
)

// EthernetRatesMbps are the MAC data rates the Ethernet presets accept, by
// spec name, in Mbit/s (IEEE 802.3 clauses 14 10BASE-T, 25 100BASE-TX,
// 36/40 1000BASE-X/T, 49/52 10GBASE-R, 107 25GBASE-R, 82 100GBASE-R). The
// PHY's line coding (4B5B, 8b/10b, 64b/66b) runs faster than these rates
// and is therefore not charged again.
var EthernetRatesMbps = map[string]float64{
	"10m": 10, "100m": 100, "1g": 1000, "10g": 10000, "25g": 25000, "100g": 100000,
}

// EthernetModel returns a physical model of TCP/IPv4 over Ethernet at the
// given MAC data rate (Mbit/s) and IP MTU (bytes; 1500 standard, 9000
// jumbo). Each frame carries one TCP segment of at most MTU - 40 bytes
// (MTU - 52 with TCP timestamps) and costs preamble+SFD 8, MAC header 14,
// IPv4 20, TCP 20 (+12), FCS 4 and the inter-frame gap 12 bytes of line
// time; short segments are padded to the 46-byte minimum MAC client data.
// TCP acknowledgements travel in the other direction of a full-duplex link
// and are not charged. Errors: rate <= 0, MTU outside 576..9216.
func EthernetModel(rateMbps float64, mtu int64, tcpTimestamps bool) (WireModel, error) {
	if !(rateMbps > 0) {
		return WireModel{}, fmt.Errorf("ethernet model: rate must be > 0 Mbit/s (got %g)", rateMbps)
	}
	if mtu < 576 || mtu > 9216 {
		return WireModel{}, fmt.Errorf("ethernet model: MTU %d out of range; use 576..9216 (1500 standard, 9000 jumbo)", mtu)
	}
	hdr := int64(IPv4Header + TCPHeader)
	if tcpTimestamps {
		hdr += TCPTimestampOpt
	}
	perFrame := int64(EthPreambleSFD+EthMACHeader+EthFCS+EthIFG) + hdr
	minPayload := int64(EthMinClient) - hdr
	if minPayload < 0 {
		minPayload = 0
	}
	name := fmt.Sprintf("eth:%s:mtu=%d", rateName(rateMbps), mtu)
	if tcpTimestamps {
		name += ":ts"
	}
	return WireModel{
		Name: name, FramePayload: mtu - hdr, FirstOverhead: perFrame, FrameOverhead: perFrame,
		MinPayload: minPayload, NsPerByte: 8000 / rateMbps,
		Source: "IEEE 802.3-2018 clauses 3, 4.4.2; RFC 791; RFC 9293; RFC 7323",
	}, nil
}

func rateName(mbps float64) string {
	for k, v := range EthernetRatesMbps {
		if v == mbps {
			return k
		}
	}
	return fmt.Sprintf("%gm", mbps)
}

// InfiniBand packet constants, IBTA InfiniBand Architecture Specification
// Volume 1 (release 1.4), chapter 7.7 (LRH), 9.2 (BTH), 7.8 (ICRC, VCRC),
// 9.2 PadCnt (payload padded to 4 bytes).
const (
	IBLRH   = 8  // local route header (vol 1 7.7)
	IBBTH   = 12 // base transport header (vol 1 9.2)
	IBICRC  = 4  // invariant CRC (vol 1 7.8.1)
	IBVCRC  = 2  // variant CRC (vol 1 7.8.2)
	IBAlign = 4  // payload padded to a multiple of 4 bytes (BTH PadCnt, vol 1 9.2)
)

// IBSpeed is one InfiniBand data rate generation: per-lane signalling rate
// and line code.
type IBSpeed struct {
	Name     string  // "sdr", "ddr", ...
	LaneGbd  float64 // per-lane signalling rate, Gbaud
	CodeNum  float64 // line code efficiency numerator (8 of 8b/10b, 64 of 64b/66b)
	CodeDen  float64 // line code efficiency denominator
	Standard string  // where the rate is defined
}

// IBSpeeds lists the InfiniBand generations by name. SDR, DDR and QDR use
// 8b/10b; FDR and later 64b/66b (IBTA vol 2, physical layer). HDR really
// signals 53.125 GBd PAM4 with RS-FEC; it is modelled by its 50 Gbit/s
// per-lane data rate as 51.5625 GBd with 64b/66b.
var IBSpeeds = map[string]IBSpeed{
	"sdr": {"sdr", 2.5, 8, 10, "IBTA vol 2, 2.5 GBd 8b/10b"},
	"ddr": {"ddr", 5, 8, 10, "IBTA vol 2, 5 GBd 8b/10b"},
	"qdr": {"qdr", 10, 8, 10, "IBTA vol 2, 10 GBd 8b/10b"},
	"fdr": {"fdr", 14.0625, 64, 66, "IBTA vol 2 release 1.3, 14.0625 GBd 64b/66b"},
	"edr": {"edr", 25.78125, 64, 66, "IBTA vol 2 release 1.3, 25.78125 GBd 64b/66b"},
	"hdr": {"hdr", 51.5625, 64, 66, "IBTA vol 2 release 1.4, 50 Gbit/s per lane (modelled as 51.5625 GBd 64b/66b)"},
}

// InfiniBandModel returns a physical model of reliable-connection SEND
// traffic on an InfiniBand link: speed by name (sdr, ddr, qdr, fdr, edr,
// hdr), link width in lanes (1, 4, 8 or 12) and path MTU (256, 512, 1024,
// 2048 or 4096 bytes). Every packet carries LRH 8 + BTH 12 + ICRC 4 +
// VCRC 2 = 26 bytes of headers and at most MTU payload bytes padded to 4;
// RDMA extended headers (RETH 16) and link-level flow-control packets are
// not charged. Data rate = width x lane rate x code efficiency.
func InfiniBandModel(speed string, width int, mtu int64) (WireModel, error) {
	s, ok := IBSpeeds[speed]
	if !ok {
		return WireModel{}, fmt.Errorf("infiniband model: unknown speed %q; use sdr, ddr, qdr, fdr, edr or hdr", speed)
	}
	switch width {
	case 1, 4, 8, 12:
	default:
		return WireModel{}, fmt.Errorf("infiniband model: width %dx not defined; use 1x, 4x, 8x or 12x", width)
	}
	switch mtu {
	case 256, 512, 1024, 2048, 4096:
	default:
		return WireModel{}, fmt.Errorf("infiniband model: MTU %d not defined; use 256, 512, 1024, 2048 or 4096", mtu)
	}
	gbps := float64(width) * s.LaneGbd * s.CodeNum / s.CodeDen
	per := int64(IBLRH + IBBTH + IBICRC + IBVCRC)
	return WireModel{
		Name: fmt.Sprintf("ib:%s:%dx:mtu=%d", s.Name, width, mtu), FramePayload: mtu,
		FirstOverhead: per, FrameOverhead: per, PayloadAlign: IBAlign, NsPerByte: 8 / gbps,
		Source: "IBTA InfiniBand Architecture Specification vol 1 (LRH 7.7, BTH 9.2, ICRC/VCRC 7.8); " + s.Standard,
	}, nil
}
