package analysis

// MbpsFromMBps converts a bandwidth in Mbytes/sec, with mbyte bytes per
// Mbyte (result.MB or result.MiB), to Mbit/s (10^6 bit/s). For IMB up to
// 2017 (MiB) this is the study's "x 8 x 1.048576" (thesis 3.2.1).
func MbpsFromMBps(mbytesPerSec, mbyte float64) float64 {
	return mbytesPerSec * mbyte * 8 / 1e6
}
