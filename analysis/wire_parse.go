package analysis

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// WireSpecForms lists the accepted wire-model spec forms, for help texts
// and error messages.
const WireSpecForms = "ethernet-100, fc-1g, ib-seed, " +
	"eth:<10m|100m|1g|10g|25g|100g>[:mtu=1500|9000][:ts], " +
	"ib:<sdr|ddr|qdr|fdr|edr|hdr>[:1x|4x|8x|12x][:mtu=2048|4096], " +
	"custom:overhead=B,frame=B,perframe=B,usperbyte=X (or nsperbyte=X, mbps=X, gbps=X; optional minpayload=B, align=B)"

// ParseWireModel builds a wire model from a spec string:
//
//	ethernet-100 | fc-1g | ib-seed          the study's presets (StudyModel)
//	eth:1g:mtu=9000:ts                      EthernetModel (mtu default 1500; ts = TCP timestamps)
//	ib:qdr:4x:mtu=2048                      InfiniBandModel (width default 4x, mtu default 2048)
//	custom:overhead=26,frame=2048,perframe=12,usperbyte=0.1
//
// In custom specs overhead is the per-message framing in bytes (first
// frame), perframe the framing of each further frame, frame the payload
// per frame (0 or absent: never split), and the line time is given by
// exactly one of usperbyte, nsperbyte, mbps or gbps (bit rate). Names and
// keys are case-insensitive. Errors are one line naming the problem and
// the accepted forms (WireSpecForms).
func ParseWireModel(spec string) (WireModel, error) {
	s := strings.ToLower(strings.TrimSpace(spec))
	if m, ok := StudyModel(s); ok {
		return m, nil
	}
	kind, rest, _ := strings.Cut(s, ":")
	var m WireModel
	var err error
	switch kind {
	case "eth", "ethernet":
		m, err = parseEthernet(rest)
	case "ib", "infiniband":
		m, err = parseIB(rest)
	case "custom":
		m, err = parseCustom(rest)
	default:
		err = fmt.Errorf("unknown preset")
	}
	if err == nil {
		err = m.Validate()
	}
	if err != nil {
		return WireModel{}, fmt.Errorf("%w %q: %v; valid: %s", errBadSpec, spec, err, WireSpecForms)
	}
	return m, nil
}

func parseEthernet(rest string) (WireModel, error) {
	parts := strings.Split(rest, ":")
	rate, ok := EthernetRatesMbps[parts[0]]
	if !ok {
		return WireModel{}, fmt.Errorf("unknown Ethernet rate %q", parts[0])
	}
	mtu, ts := int64(1500), false
	for _, p := range parts[1:] {
		switch {
		case p == "ts":
			ts = true
		case strings.HasPrefix(p, "mtu="):
			v, err := strconv.ParseInt(p[4:], 10, 64)
			if err != nil {
				return WireModel{}, fmt.Errorf("bad MTU %q", p[4:])
			}
			mtu = v
		default:
			return WireModel{}, fmt.Errorf("unknown Ethernet option %q", p)
		}
	}
	return EthernetModel(rate, mtu, ts)
}

func parseIB(rest string) (WireModel, error) {
	parts := strings.Split(rest, ":")
	width, mtu := 4, int64(2048)
	for _, p := range parts[1:] {
		switch {
		case strings.HasSuffix(p, "x"):
			v, err := strconv.Atoi(strings.TrimSuffix(p, "x"))
			if err != nil {
				return WireModel{}, fmt.Errorf("bad link width %q", p)
			}
			width = v
		case strings.HasPrefix(p, "mtu="):
			v, err := strconv.ParseInt(p[4:], 10, 64)
			if err != nil {
				return WireModel{}, fmt.Errorf("bad MTU %q", p[4:])
			}
			mtu = v
		default:
			return WireModel{}, fmt.Errorf("unknown InfiniBand option %q", p)
		}
	}
	return InfiniBandModel(parts[0], width, mtu)
}

// rateKeys are the custom parameters giving the line rate.
var rateKeys = map[string]bool{"usperbyte": true, "nsperbyte": true, "mbps": true, "gbps": true}

func parseCustom(rest string) (WireModel, error) {
	m := WireModel{Name: "custom:" + rest, Source: "user parameters"}
	rates := 0
	for _, kv := range strings.Split(rest, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
		if !ok {
			return WireModel{}, fmt.Errorf("custom parameter %q is not key=value", kv)
		}
		x, err := strconv.ParseFloat(v, 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) || x < 0 {
			return WireModel{}, fmt.Errorf("custom parameter %q: %q is not a finite number >= 0", k, v)
		}
		if rateKeys[k] && x == 0 {
			return WireModel{}, fmt.Errorf("custom parameter %q: must be > 0", k)
		}
		if !rateKeys[k] && x != math.Trunc(x) {
			return WireModel{}, fmt.Errorf("custom parameter %q: %q is not a whole number of bytes", k, v)
		}
		switch k {
		case "overhead":
			m.FirstOverhead = int64(x)
		case "perframe":
			m.FrameOverhead = int64(x)
		case "frame":
			m.FramePayload = int64(x)
		case "minpayload":
			m.MinPayload = int64(x)
		case "align":
			m.PayloadAlign = int64(x)
		case "usperbyte":
			m.NsPerByte, rates = x*1000, rates+1
		case "nsperbyte":
			m.NsPerByte, rates = x, rates+1
		case "mbps":
			m.NsPerByte, rates = 8000/x, rates+1
		case "gbps":
			m.NsPerByte, rates = 8/x, rates+1
		default:
			return WireModel{}, fmt.Errorf("unknown custom parameter %q", k)
		}
	}
	if rates != 1 {
		return WireModel{}, fmt.Errorf("custom model needs exactly one of usperbyte, nsperbyte, mbps, gbps")
	}
	return m, nil
}
