package analysis

import (
	"math"
	"strings"
	"testing"
)

// FuzzParseWireModel checks the wire-model parser on any spec: an error is
// one line naming the accepted forms; an accepted model validates, and its
// wire bytes and time are finite, never below the payload, and grow with
// the message size.
// Run: go test ./analysis -run '^$' -fuzz '^FuzzParseWireModel$' -fuzztime 30s
func FuzzParseWireModel(f *testing.F) {
	for _, s := range []string{"ethernet-100", "fc-1g", "ib-seed", "eth:1g:mtu=9000:ts", "ib:qdr:4x:mtu=2048", "eth:10m",
		"custom:overhead=26,frame=2048,perframe=12,usperbyte=0.1", "custom:mbps=1e-320", "custom:frame=4,align=3,gbps=1",
		"ib:edr:0x", "eth:100m:mtu=-1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		m, err := ParseWireModel(spec)
		if err != nil {
			if strings.ContainsAny(err.Error(), "\r\n") || !strings.Contains(err.Error(), WireSpecForms) {
				t.Fatalf("error %q: want one line naming the forms", err)
			}
			return
		}
		if err := m.Validate(); err != nil {
			t.Fatalf("%q accepted but invalid: %v", spec, err)
		}
		prevBytes, prevUsec := int64(-1), -1.0
		for _, n := range []int64{0, 1, 63, 64, 1500, 4096, 65536, 1 << 20, 1 << 30} {
			b, us := m.TotalBytes(n), m.WireUsec(n)
			if b < n || b < prevBytes || math.IsNaN(us) || math.IsInf(us, 0) || us < prevUsec {
				t.Fatalf("%q at %d bytes: %d wire bytes, %g usec (previous size %d, %g)", spec, n, b, us, prevBytes, prevUsec)
			}
			prevBytes, prevUsec = b, us
		}
	})
}
