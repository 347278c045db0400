package medium

import (
	"fmt"
	"math/rand/v2"
	"time"
)

// IEEE 802.11g (ERP-OFDM) timing, IEEE Std 802.11-2020 clause 17 (OFDM PHY,
// Table 17-21 timing-related parameters) and clause 18 (ERP: short slot,
// 6 usec signal extension), clause 10.3.2.3 (DIFS = SIFS + 2 x slot) and
// clause 9.3.1.3 (ACK frame: 14 bytes).
const (
	WifiSlot        = 9 * time.Microsecond  // aSlotTime, short slot (ERP only BSS)
	WifiSIFS        = 10 * time.Microsecond // aSIFSTime
	WifiDIFS        = WifiSIFS + 2*WifiSlot // 28 usec
	WifiPreamble    = 20 * time.Microsecond // PLCP preamble 16 usec + SIGNAL 4 usec
	WifiSymbol      = 4 * time.Microsecond  // OFDM symbol with guard interval
	WifiSignalExt   = 6 * time.Microsecond  // ERP-OFDM signal extension
	WifiCWMin       = 15                    // aCWmin: backoff 0..15 slots
	WifiServiceBits = 16                    // PLCP SERVICE field
	WifiTailBits    = 6                     // convolutional code tail
	WifiACKBytes    = 14                    // ACK frame: control 2, duration 2, RA 6, FCS 4
	// WifiMACOverhead is what an 802.11 data frame adds to an Ethernet
	// frame's client data in place of the 14-byte MAC header: MAC header 24,
	// LLC/SNAP 8, FCS 4.
	WifiMACOverhead = 24 + 8 + 4
	// WifiPHYRateBps is 802.11g's top data rate; WifiDataBitsPerSymbol and
	// WifiACKBitsPerSymbol are N_DBPS at 54 Mbit/s and at 24 Mbit/s (the
	// highest basic rate not above 54, at which the ACK is sent).
	WifiPHYRateBps        = 54e6
	WifiDataBitsPerSymbol = 216
	WifiACKBitsPerSymbol  = 96
)

// WifiOptions are the wifi model's own parameters.
type WifiOptions struct {
	// Relay sends every frame through an access point (infrastructure
	// mode, as with the study's wifi router): station to AP, then AP to
	// station, two transmissions on the one medium. False is ad hoc mode.
	Relay bool
	// Jitter draws each backoff uniformly from 0..CWmin slots instead of
	// charging its mean, 7.5 slots.
	Jitter bool
	// Seed seeds the backoff draws.
	Seed uint64
}

// Wifi is a shared half-duplex medium with 802.11g's per-frame cost. Each
// transmission of a unicast frame occupies the medium for DIFS + backoff +
// preamble + data symbols + signal extension + SIFS + ACK; a broadcast has
// no ACK. Contention is first come, first served (no collisions).
//
// Rate scaling: every 802.11g time is multiplied by 54 Mbit/s / RateBps,
// so RateBps = 54e6 is 802.11g itself, and a network scaled to a lower
// rate keeps 802.11g's proportions of overhead to data.
type Wifi struct {
	p     Params
	o     WifiOptions
	scale float64
	free  time.Duration
	rng   *rand.Rand
}

// NewWifi returns an idle wifi medium. Errors: see Params.Validate.
func NewWifi(p Params, o WifiOptions) (*Wifi, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return &Wifi{p: p, o: o, scale: WifiPHYRateBps / p.RateBps, rng: rand.New(rand.NewPCG(o.Seed, 0x6d7062))}, nil
}

// Ports returns the number of stations.
func (w *Wifi) Ports() int { return w.p.Ports }

// Describe names the model and its parameters.
func (w *Wifi) Describe() string {
	mode := "ad hoc"
	if w.o.Relay {
		mode = "through an access point"
	}
	bo := "mean backoff"
	if w.o.Jitter {
		bo = "random backoff"
	}
	return fmt.Sprintf("wifi: 802.11g shared medium, 54 Mbit/s scaled to %s (x%.3g times), %s, %s, latency %v",
		FormatRate(w.p.RateBps), w.scale, mode, bo, w.p.Latency)
}

// symbols returns the OFDM symbols carrying n bytes at bitsPerSymbol.
func symbols(n, bitsPerSymbol int) int {
	bits := WifiServiceBits + 8*n + WifiTailBits
	return (bits + bitsPerSymbol - 1) / bitsPerSymbol
}

// WifiAirtime returns the unscaled medium occupancy of one transmission of
// an Ethernet frame of frameLen bytes (MAC header and client data), with
// the given backoff in slots, and with an ACK when acked: DIFS + backoff x
// slot + preamble + symbols x 4 usec + signal extension [+ SIFS + ACK].
// For a 1514-byte frame with the mean backoff and an ACK: 393.5 usec.
func WifiAirtime(frameLen int, backoffSlots float64, acked bool) time.Duration {
	mpdu := frameLen - 14 + WifiMACOverhead
	d := WifiDIFS + time.Duration(backoffSlots*float64(WifiSlot)) +
		WifiPreamble + time.Duration(symbols(mpdu, WifiDataBitsPerSymbol))*WifiSymbol + WifiSignalExt
	if acked {
		d += WifiSIFS + WifiPreamble + time.Duration(symbols(WifiACKBytes, WifiACKBitsPerSymbol))*WifiSymbol + WifiSignalExt
	}
	return d
}

// transmit occupies the medium for one transmission starting no earlier
// than now and returns its end.
func (w *Wifi) transmit(frameLen int, acked bool, now time.Duration) time.Duration {
	slots := float64(WifiCWMin) / 2
	if w.o.Jitter {
		slots = float64(w.rng.IntN(WifiCWMin + 1))
	}
	air := time.Duration(float64(WifiAirtime(frameLen, slots, acked)) * w.scale)
	end := max(now, w.free) + air
	w.free = end
	return end
}

// TxFree returns when the medium is free (after the access point's relay
// of the last frame), for every station; see Medium.
func (w *Wifi) TxFree(int) time.Duration { return w.free }

// Send accounts for one frame; see Medium.
func (w *Wifi) Send(src, dst, frameLen int, now time.Duration) []Arrival {
	end := w.transmit(frameLen, w.o.Relay || dst != Broadcast, now)
	if w.o.Relay {
		end = w.transmit(frameLen, dst != Broadcast, end)
	}
	var out []Arrival
	for _, d := range destinations(w.p.Ports, src, dst) {
		out = append(out, Arrival{Port: d, At: end + w.p.Latency})
	}
	return out
}
