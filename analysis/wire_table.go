package analysis

import (
	"fmt"
	"math"
)

// DefaultLatencySizes is the number of smallest sizes the study averages to
// obtain the latency (seed 001: "the first 7 values of the difference").
const DefaultLatencySizes = 7

// WireRow is one row of the study's wire-time tables (seed tables 4.1,
// 4.2, 4.4): the framing of one message size and what the measurement
// leaves after the wire time.
type WireRow struct {
	Bytes        int64   // message size, bytes
	Frames       int64   // frames on the wire
	TotalBytes   int64   // bytes on the wire, framing included
	WireUsec     float64 // ideal transmission time of TotalBytes, usec
	ReportedUsec float64 // measured time, usec (PingPong: half the round trip)
	DiffUsec     float64 // ReportedUsec - WireUsec, usec
	// MiBps is the measured bandwidth bytes / ReportedUsec in MiB/s (2^20
	// bytes), the unit of the study's bandwidth column; NaN when the
	// reported time is not positive.
	MiBps float64
	// MBps is the same bandwidth in MB/s (10^6 bytes).
	MBps float64
}

// WireTable computes the wire-time table of a size sweep under a model:
// one row per point, in the points' order.
func WireTable(m WireModel, pts []Point) []WireRow {
	out := make([]WireRow, len(pts))
	for i, p := range pts {
		w := m.WireUsec(p.Bytes)
		r := WireRow{
			Bytes: p.Bytes, Frames: m.Frames(p.Bytes), TotalBytes: m.TotalBytes(p.Bytes),
			WireUsec: w, ReportedUsec: p.Usec, DiffUsec: p.Usec - w, MiBps: math.NaN(), MBps: math.NaN(),
		}
		if p.Usec > 0 {
			r.MBps = float64(p.Bytes) / p.Usec
			r.MiBps = r.MBps * 1e6 / (1 << 20)
		}
		out[i] = r
	}
	return out
}

// Latency returns the study's latency estimate in usec: the mean of
// DiffUsec over the first k rows of a wire table (k = DefaultLatencySizes
// in the study; rows in ascending size order as WireTable returns them
// for Points' output). Error when the table has fewer than k rows or k < 1.
func Latency(rows []WireRow, k int) (float64, error) {
	switch {
	case k < 1:
		return math.NaN(), fmt.Errorf("latency over the first %d sizes: k must be 1 or more", k)
	case len(rows) < k:
		return math.NaN(), fmt.Errorf("latency over the first %d sizes: the sweep has %d sizes; k must be <= %d", k, len(rows), len(rows))
	}
	sum := 0.0
	for _, r := range rows[:k] {
		sum += r.DiffUsec
	}
	return sum / float64(k), nil
}
