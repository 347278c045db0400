package report

import (
	"fmt"
	"strings"
	"unicode"

	"gonum.org/v1/plot"

	"github.com/mpbench/mpbench/result"
)

// Figure is one plot of a report with its name and caption.
type Figure struct {
	// ID is unique within a report and safe as a file name and an HTML
	// id: "latency-pingpong", "bandwidth-osu-bw", "abg-1".
	ID      string
	Title   string
	Caption string
	Plot    *plot.Plot
	Curves  int // curves drawn (legend entries)
}

// MaxCurves is the most curves one figure overlays; more runs of a
// benchmark are spread over several figures so that legends stay legible.
const MaxCurves = 10

// Figures builds every plot of a report: for each benchmark name, the
// time and (where a bandwidth exists) the bandwidth against size with one
// curve per run and process count, so that runs sharing a benchmark are
// overlaid (MaxCurves at most per figure); then, for each run measured at
// several process counts, the ABG against the process count. Benchmarks are in order of first
// appearance. Series with no point to draw are skipped, not errors.
func Figures(reps []RunReport) []Figure {
	var order []string
	byBench := map[string][]Labelled{}
	runs := map[string]bool{}
	for _, r := range reps {
		runs[r.Label()] = true
	}
	for _, r := range reps {
		for _, s := range r.Series {
			if _, ok := byBench[s.Benchmark]; !ok {
				order = append(order, s.Benchmark)
			}
			label := s.Case()
			if s.Multi != result.MultiNone {
				label = "Multi " + label
			}
			if len(runs) > 1 {
				label = r.Label() + " " + label
			}
			byBench[s.Benchmark] = append(byBench[s.Benchmark], Labelled{Label: label, Series: s})
		}
	}
	ids := map[string]int{}
	var figs []Figure
	add := func(kind, title string, p *plot.Plot, caption string, curves int) {
		id := uniqueID(ids, kind+"-"+slug(title))
		figs = append(figs, Figure{ID: id, Title: title, Caption: caption, Plot: p, Curves: curves})
	}
	for _, b := range order {
		all := byBench[b]
		for from := 0; from < len(all); from += MaxCurves {
			series := all[from:min(from+MaxCurves, len(all))]
			name := b
			if len(all) > MaxCurves {
				name = fmt.Sprintf("%s (curves %d-%d of %d)", b, from+1, from+len(series), len(all))
			}
			if p, caption, err := LatencyPlot(name+": time against size", series); err == nil {
				cs, _ := latencyCurves(series)
				add("latency", name, p, caption, drawn(cs))
			}
			if p, caption, err := BandwidthPlot(name+": bandwidth against size", series); err == nil {
				cs, _, _, _ := bandwidthCurves(series)
				add("bandwidth", name, p, caption, drawn(cs))
			}
		}
	}
	for _, r := range reps {
		title := r.Label() + ": time of the call against processes"
		if p, caption, err := CountTimePlot(title, r.Sizeless); err == nil {
			add("count-time", r.Label(), p, caption, len(countTimeCurves(r.Sizeless)))
		}
	}
	for _, r := range reps {
		for _, a := range r.Apps {
			title := fmt.Sprintf("%s: %s against processes", r.Label(), a.label())
			if p, caption, err := AppScalingPlot(title, a); err == nil {
				add("app-scaling", r.Label()+" "+a.Name, p, caption, len(appCurves(a)))
			}
		}
	}
	for _, r := range reps {
		if len(r.ABG) == 0 {
			continue
		}
		title := r.Label() + ": aggregate bandwidth against processes"
		if p, caption, err := ABGPlot(title, ABGCurves("", r.ABG)); err == nil {
			add("abg", r.Label(), p, caption, drawn(abgCurves(ABGCurves("", r.ABG))))
		}
	}
	return figs
}

// slug lower-cases s and keeps letters and digits, other runs becoming
// one '-'.
func slug(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if r < 128 && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
			b.WriteRune(r)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
	}
	return strings.TrimSuffix(b.String(), "-")
}

// uniqueID returns id, or id-2, id-3, ... when id was used before.
func uniqueID(seen map[string]int, id string) string {
	seen[id]++
	if n := seen[id]; n > 1 {
		return fmt.Sprintf("%s-%d", id, n)
	}
	return id
}
