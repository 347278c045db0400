package analysis

import (
	"fmt"
	"math"
	"sort"

	"github.com/mpbench/mpbench/result"
)

// bwFactors are the multiples of bytes / t_max that IMB prints as
// Mbytes/sec: 1 (PingPong, PingPing, one-sided Unidir), 2 (Sendrecv,
// Bidir: both directions), 4 (Exchange: two neighbours each way); IMB
// src_c scale_bw.
var bwFactors = []float64{1, 2, 4}

// bwTolerance is the relative disagreement allowed between a printed
// bandwidth and bytes / t_max: both are rounded to two decimals, and only
// sizes of 1 KiB and more with at least 1 Mbyte/s are compared.
const bwTolerance = 0.03

// CheckBandwidthColumn checks a size sweep's printed Mbytes/sec against
// its printed t_max: IMB computes the column as factor x bytes / t_max
// in Mbytes of mbyte bytes (factor 1, 2 or 4 by benchmark). The median
// ratio over the sizes >= 1 KiB must match one factor within 3%. When it
// does not, msg says how the column disagrees: it matches under the
// other Mbyte (10^6 against 2^20: a wrong Mbyte for the version, or an
// unknown IMB version guessed wrong), it is off by 10^6 (bytes/s or
// bytes/usec), or neither. ok is true when the column matches or cannot
// be checked (no row with both columns).
func CheckBandwidthColumn(rows []result.Row, mbyte float64) (msg string, ok bool) {
	m, n := bandwidthRatio(rows, mbyte)
	if n == 0 || factorNear(m) {
		return "", true
	}
	other, otherName, name := float64(result.MiB), "MB=2^20", "MB=10^6"
	if mbyte == result.MiB {
		other, otherName, name = result.MB, "MB=10^6", "MB=2^20"
	}
	head := fmt.Sprintf("Mbytes/sec column does not match bytes/t_max under %s (median ratio %.4g of bytes/t_max over %d sizes >= 1 KiB)", name, m, n)
	switch alt := m * other / mbyte; {
	case factorNear(alt):
		return head + fmt.Sprintf("; it matches under %s: the file's Mbyte is %s, not the %s its version implies (bandwidths and the Mbyte of this run are in doubt)", otherName, otherName, name), false
	case factorNear(m/1e6) || factorNear(m*1e6):
		return head + "; it is off by a factor 10^6 (bytes/s or bytes/usec printed as Mbytes/sec)", false
	}
	return head + "; the column is not IMB's factor x bytes / t_max (1, 2 or 4) under either Mbyte: times or bandwidths are edited or mislabelled", false
}

// bandwidthRatio is the median over the sizes >= 1 KiB with both columns
// of printed Mbytes/sec (in Mbytes of mbyte bytes) over bytes / t_max,
// and how many sizes it is taken over.
func bandwidthRatio(rows []result.Row, mbyte float64) (float64, int) {
	var q []float64
	for _, r := range rows {
		if r.Bytes >= 1024 && r.MBps >= 1 && r.TMax > 0 {
			q = append(q, r.MBps*mbyte/1e6/(float64(r.Bytes)/r.TMax))
		}
	}
	if len(q) == 0 {
		return math.NaN(), 0
	}
	sort.Float64s(q)
	return median(q), len(q)
}

// CheckedMByte returns the Mbyte (result.MB or result.MiB) under which a
// sweep's Mbytes/sec column matches IMB's factor x bytes / t_max
// (CheckBandwidthColumn), trying mbyte first; 0 when it cannot be checked
// or matches under neither.
func CheckedMByte(rows []result.Row, mbyte float64) float64 {
	m, n := bandwidthRatio(rows, mbyte)
	if n == 0 {
		return 0
	}
	for _, mb := range []float64{mbyte, result.MB, result.MiB} {
		if factorNear(m * mb / mbyte) {
			return mb
		}
	}
	return 0
}

// factorNear reports whether q is within bwTolerance of one of bwFactors.
func factorNear(q float64) bool {
	for _, f := range bwFactors {
		if math.Abs(q/f-1) <= bwTolerance {
			return true
		}
	}
	return false
}
