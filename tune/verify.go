package tune

// Tuned marks the points of the tuned configuration in a verification
// run (mpbench tune --verify), which measures the configuration a tuning
// file gives each point against the library's default (the zero Config).
var Tuned = Config{Algorithm: "tuned"}

// VerifyPoint is one row of a verification: the default's and the tuned
// configuration's rounds at one point (times in usec, IMB's t_max), and
// the verdict.
type VerifyPoint struct {
	Collective string  `json:"collective"`
	Ranks      int     `json:"ranks"`
	Bytes      int     `json:"bytes"`
	Rule       string  `json:"rule"` // the configuration the tuning file gives this point
	Default    Stats   `json:"default"`
	Tuned      Stats   `json:"tuned"`
	Speedup    float64 `json:"speedup"` // default median / tuned median
	Verdict    string  `json:"verdict"` // "faster", "slower", "same" (within noise), "default rule" (both ran the default algorithm)
}

// Verify pairs the default's and the tuned configuration's points of ps
// (the tuned ones have Config Tuned) and gives each tuned point a verdict
// under the rules of tables: "faster" when the tuned configuration beats
// the default beyond noise (Stats.Beats with minGain, a fraction),
// "slower" when the default beats it, "same" otherwise. Where the rule
// keeps the default algorithm both configurations ran the same code, so
// any difference is the machine's (an oversubscribed host's rounds can
// differ beyond their own spread): the verdict is "default rule", neither
// faster nor slower. The result is in the order of the tuned points in ps.
func Verify(ps []Point, tables []Table, minGain float64) []VerifyPoint {
	type key struct {
		coll         string
		ranks, bytes int
	}
	def := map[key]Stats{}
	for _, p := range ps {
		if p.Config.IsDefault() {
			def[key{p.Collective, p.Ranks, p.Bytes}] = Summarize(p.Times)
		}
	}
	rules := RulesFromTables(tables)
	var out []VerifyPoint
	for _, p := range ps {
		if p.Config != Tuned {
			continue
		}
		d := def[key{p.Collective, p.Ranks, p.Bytes}]
		t := Summarize(p.Times)
		rule, _ := rules.Lookup(p.Collective, p.Ranks, p.Bytes)
		v := VerifyPoint{Collective: p.Collective, Ranks: p.Ranks, Bytes: p.Bytes, Rule: rule.String(),
			Default: d, Tuned: t, Speedup: d.Median / t.Median, Verdict: "same"}
		switch {
		case rule.IsDefault():
			v.Verdict = "default rule"
		case t.Beats(d, minGain):
			v.Verdict = "faster"
		case d.Beats(t, minGain):
			v.Verdict = "slower"
		}
		out = append(out, v)
	}
	return out
}
