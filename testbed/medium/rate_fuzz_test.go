package medium

import (
	"math"
	"strings"
	"testing"
)

// FuzzParseRate checks the testbed's rate parser on any text: an accepted
// rate is a finite number of bit/s > 0 that FormatRate prints back as a
// rate reading within its 6 digits; an error is one line.
// Run: go test ./testbed/medium -run '^$' -fuzz '^FuzzParseRate$' -fuzztime 30s
func FuzzParseRate(f *testing.F) {
	for _, s := range []string{"100mbit", "10Mbit", "54mbit", "1gbit", "1e3kbit", "infmbit", "1e308gbit", "0bit", "100mbps", " 5 bit "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		bps, err := ParseRate(s)
		if err != nil {
			if strings.ContainsAny(err.Error(), "\r\n") {
				t.Fatalf("error is not one line: %q", err)
			}
			return
		}
		if !(bps >= 1 && bps <= MaxRate) {
			t.Fatalf("%q reads as %g bit/s", s, bps)
		}
		back, err := ParseRate(FormatRate(bps))
		if err != nil || math.Abs(back-bps) > 1e-5*bps {
			t.Fatalf("%q (%g bit/s) prints as %q, which reads as %g, %v", s, bps, FormatRate(bps), back, err)
		}
	})
}
