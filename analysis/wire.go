package analysis

import (
	"errors"
	"fmt"
)

// WireModel is a framing model of a link: how many bytes a message of a
// given size occupies on the wire and how long the line takes to carry
// them. The wire time is the ideal transmission time of the frames alone,
// without software, NIC or switch latency; the study subtracts it from the
// reported time to expose the latency (seed tables 4.1, 4.2, 4.4).
//
// A message of b bytes travels as n = b + MessageHeader bytes (the
// runtime's own header before the message's bytes in the same stream),
// cut into frames of at most FramePayload bytes (one frame when
// FramePayload is 0, and one frame for n = 0). The total on the wire is
//
//	total = n + padding + FirstOverhead + FrameOverhead x (frames - 1)
//
// where padding brings the last frame's payload up to MinPayload and then
// up to a multiple of PayloadAlign. The wire time is total x NsPerByte.
type WireModel struct {
	Name string // preset name or spec the model was built from
	// FramePayload is the largest number of message bytes in one frame;
	// 0 means messages are never split.
	FramePayload int64
	// FirstOverhead is the framing on the first frame of a message, in
	// bytes: headers sent once per message plus that frame's own framing.
	FirstOverhead int64
	// FrameOverhead is the framing on each further frame, in bytes.
	FrameOverhead int64
	// MinPayload pads a frame whose payload is shorter (Ethernet's minimum
	// frame size), in bytes; 0 for none.
	MinPayload int64
	// PayloadAlign pads each frame's payload up to a multiple of this many
	// bytes (InfiniBand's 4-byte PadCnt); 0 or 1 for none.
	PayloadAlign int64
	// NsPerByte is the line time of one byte in nanoseconds, line coding
	// included (e.g. 10 ns at 1 Gbaud with 8b/10b coding).
	NsPerByte float64
	// Source names the standard or document the constants come from.
	Source string
	// MessageHeader is the header, in bytes, that the message-passing
	// runtime writes before every message's bytes in the byte stream
	// carrying them, so that it is framed with them. 0 from every preset
	// and spec; ForRun sets it for the runtimes whose header a result
	// file identifies (RuntimeHeader).
	MessageHeader int64
}

// MinNsPerByte and MaxNsPerByte bound a link's line time per byte: 0.001
// ns/B is 8 Tbit/s, 10^6 ns/B is 8 kbit/s; beyond them a model is a typo,
// not a network.
const (
	MinNsPerByte = 1e-3
	MaxNsPerByte = 1e6
)

// MaxFrameBytes bounds the byte counts of a model (payloads, overheads):
// 1 GiB.
const MaxFrameBytes = 1 << 30

// Validate reports a model whose parameters cannot describe a link: a
// line time per byte that is not finite or lies outside [MinNsPerByte,
// MaxNsPerByte], negative or larger than MaxFrameBytes byte counts, a
// frame payload that is not a multiple of the alignment.
func (m WireModel) Validate() error {
	switch {
	case !(m.NsPerByte >= MinNsPerByte && m.NsPerByte <= MaxNsPerByte):
		return fmt.Errorf("wire model %q: time per byte must lie in %g-%g ns (8 Tbit/s to 8 kbit/s), got %.4g ns", m.Name, MinNsPerByte, MaxNsPerByte, m.NsPerByte)
	case max(m.FramePayload, m.FirstOverhead, m.FrameOverhead, m.MinPayload, m.PayloadAlign, m.MessageHeader) > MaxFrameBytes:
		return fmt.Errorf("wire model %q: frame payload, overheads and message header must be at most %d bytes", m.Name, MaxFrameBytes)
	case m.FramePayload < 0 || m.FirstOverhead < 0 || m.FrameOverhead < 0 || m.MinPayload < 0 || m.PayloadAlign < 0 || m.MessageHeader < 0:
		return fmt.Errorf("wire model %q: frame payload, overheads and message header must be >= 0 bytes", m.Name)
	case m.FramePayload > 0 && m.PayloadAlign > 1 && m.FramePayload%m.PayloadAlign != 0:
		return fmt.Errorf("wire model %q: frame payload %d is not a multiple of the alignment %d", m.Name, m.FramePayload, m.PayloadAlign)
	}
	return nil
}

// Frames returns the number of frames a message of the given size in
// bytes needs: ceil((bytes + MessageHeader) / FramePayload), at least 1.
func (m WireModel) Frames(bytes int64) int64 {
	n := m.carried(bytes)
	if n <= 0 || m.FramePayload <= 0 {
		return 1
	}
	return (n + m.FramePayload - 1) / m.FramePayload
}

// carried returns the bytes the frames of a message of the given size
// carry: the message (negative counts as 0) and the runtime's header.
func (m WireModel) carried(bytes int64) int64 {
	return max(bytes, 0) + m.MessageHeader
}

// TotalBytes returns the bytes on the wire for a message of the given size:
// the runtime's header (MessageHeader), payload, padding and framing of
// all its frames.
func (m WireModel) TotalBytes(bytes int64) int64 {
	frames := m.Frames(bytes)
	bytes = m.carried(bytes)
	full := int64(0)
	if m.FramePayload > 0 {
		full = (frames - 1) * m.FramePayload
	}
	last := bytes - full
	if last < m.MinPayload {
		last = m.MinPayload
	}
	if m.PayloadAlign > 1 {
		last = (last + m.PayloadAlign - 1) / m.PayloadAlign * m.PayloadAlign
	}
	return full + last + m.FirstOverhead + m.FrameOverhead*(frames-1)
}

// WireUsec returns the wire time of a message of the given size in usec:
// TotalBytes x NsPerByte / 1000.
func (m WireModel) WireUsec(bytes int64) float64 {
	return float64(m.TotalBytes(bytes)) * m.NsPerByte / 1000
}

// LineRateMbps returns the line's data rate in Mbit/s (10^6 bit/s):
// 8000 / NsPerByte.
func (m WireModel) LineRateMbps() float64 { return 8000 / m.NsPerByte }

// PayloadMBps returns the asymptotic payload bandwidth in MB/s (10^6
// bytes/s) for very long messages: the line rate times the payload share
// of a full frame, FramePayload / (FramePayload + FrameOverhead).
func (m WireModel) PayloadMBps() float64 {
	r := 1000 / m.NsPerByte
	if m.FramePayload > 0 {
		r *= float64(m.FramePayload) / float64(m.FramePayload+m.FrameOverhead)
	}
	return r
}

// errBadSpec is wrapped by every wire-model parsing error.
var errBadSpec = errors.New("bad wire model spec")
