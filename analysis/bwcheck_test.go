package analysis

import (
	"strings"
	"testing"

	"github.com/mpbench/mpbench/result"
)

// TestCheckBandwidthColumn: a column printed as IMB does (factor x bytes
// / t_max under the file's Mbyte) passes; printed under the other Mbyte
// or off by 10^6 it is reported, saying which.
func TestCheckBandwidthColumn(t *testing.T) {
	mk := func(bench string, factor, printedMbyte, scale float64) []result.Row {
		var rows []result.Row
		for b := int64(1); b <= 1<<22; b *= 4 {
			r := result.NewRow(bench, 2, b)
			r.TMax = 10 + float64(b)/1000
			r.MBps = scale * factor * float64(b) / r.TMax * 1e6 / printedMbyte
			rows = append(rows, r)
		}
		return rows
	}
	for _, c := range []struct {
		name  string
		rows  []result.Row
		mbyte float64
		want  string
	}{
		{"PingPong MB", mk("PingPong", 1, result.MB, 1), result.MB, ""},
		{"Sendrecv MiB", mk("Sendrecv", 2, result.MiB, 1), result.MiB, ""},
		{"Exchange MB", mk("Exchange", 4, result.MB, 1), result.MB, ""},
		{"printed in MiB, read as MB", mk("PingPong", 1, result.MiB, 1), result.MB, "matches under MB=2^20"},
		{"printed in MB, read as MiB", mk("Sendrecv", 2, result.MB, 1), result.MiB, "matches under MB=10^6"},
		{"off by 10^6", mk("PingPong", 1, result.MB, 1e6), result.MB, "off by a factor 10^6"},
		{"edited", mk("PingPong", 1, result.MB, 1.5), result.MB, "not IMB's factor"},
	} {
		msg, ok := CheckBandwidthColumn(c.rows, c.mbyte)
		if ok != (c.want == "") || !strings.Contains(msg, c.want) {
			t.Errorf("%s: ok %v, %q; want %q", c.name, ok, msg, c.want)
		}
		if !ok && !strings.HasPrefix(msg, "Mbytes/sec column does not match bytes/t_max under") {
			t.Errorf("%s: %q", c.name, msg)
		}
	}
}
