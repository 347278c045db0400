package medium

import (
	"fmt"
	"strconv"
	"strings"
)

// ParseRate reads a rate as tc writes it: a number with the unit bit,
// kbit, mbit or gbit (powers of 1000; "bps" suffixes are refused because
// tc reads them as bytes per second). "100mbit" is 1e8 bit/s. Rates
// outside 1 bit/s .. MaxRate are refused.
func ParseRate(s string) (float64, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	units := []struct {
		suffix string
		mult   float64
	}{{"gbit", 1e9}, {"mbit", 1e6}, {"kbit", 1e3}, {"bit", 1}}
	for _, u := range units {
		if num, ok := strings.CutSuffix(t, u.suffix); ok {
			v, err := strconv.ParseFloat(num, 64)
			if err != nil || !(v*u.mult >= 1 && v*u.mult <= MaxRate) {
				break
			}
			return v * u.mult, nil
		}
	}
	return 0, fmt.Errorf("rate %q: write a number and a unit, e.g. 100mbit, 10mbit, 54mbit, 1gbit, from 1bit to 1000gbit", s)
}

// MaxRate is the largest rate ParseRate accepts, in bit/s (1000gbit).
const MaxRate = 1e12

// FormatRate writes a rate in bit/s with the largest unit that keeps it
// readable: 1e8 is "100mbit".
func FormatRate(bps float64) string {
	switch {
	case bps >= 1e9:
		return strconv.FormatFloat(bps/1e9, 'g', 6, 64) + "gbit"
	case bps >= 1e6:
		return strconv.FormatFloat(bps/1e6, 'g', 6, 64) + "mbit"
	case bps >= 1e3:
		return strconv.FormatFloat(bps/1e3, 'g', 6, 64) + "kbit"
	}
	return strconv.FormatFloat(bps, 'g', 6, 64) + "bit"
}

// Kinds are the model names New accepts.
var Kinds = []string{"switch", "hub", "wifi"}

// New returns the model of the given kind ("switch", "hub", "wifi"; wifi
// in infrastructure mode, with random backoff when jitter is set).
func New(kind string, p Params, jitter bool, seed uint64) (Medium, error) {
	switch kind {
	case "switch":
		return NewSwitch(p)
	case "hub":
		return NewHub(p)
	case "wifi":
		return NewWifi(p, WifiOptions{Relay: true, Jitter: jitter, Seed: seed})
	}
	return nil, fmt.Errorf("network %q: use one of %s", kind, strings.Join(Kinds, ", "))
}
