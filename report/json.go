package report

import (
	"math"

	"github.com/mpbench/mpbench/analysis"
)

// The numeric JSON forms of a run's results, beside the sections' tables
// and sentences, so that scripts need not parse sentences. Absent or
// undefined values are null.

// jsonSegment is one segment of a Hockney fit.
type jsonSegment struct {
	Segment         string   `json:"segment"` // "single"; "eager", "rendezvous"; "short", "eager", "rendezvous"
	MinBytes        int64    `json:"min_bytes"`
	MaxBytes        int64    `json:"max_bytes"`
	AlphaUsec       *float64 `json:"alpha_usec"`
	BandwidthMBps   *float64 `json:"bandwidth_mbps"` // MB = 10^6 B; null when the fitted time falls with size
	NHalfBytes      *float64 `json:"n_half_bytes"`
	R2              *float64 `json:"r2"`
	LineRatePercent *float64 `json:"line_rate_percent"` // null without a wire model
	Points          int      `json:"points"`
	Poor            bool     `json:"poor_fit"` // R^2 below analysis.PoorR2
	// LeftOut are the sizes the robust fit left out of the segment.
	LeftOut []jsonPoint `json:"left_out"`
}

// jsonPoint is a point of a sweep.
type jsonPoint struct {
	Bytes int64   `json:"bytes"`
	Usec  float64 `json:"usec"`
}

// jsonSeries is one size sweep's figures.
type jsonSeries struct {
	Benchmark   string        `json:"benchmark"`
	Processes   *int          `json:"processes"` // null when the source printed none
	Groups      int           `json:"groups"`
	Group       *int          `json:"group"` // IMB -multi 1 group, else null
	Multi       bool          `json:"multi"`
	Idle        int           `json:"idle,omitempty"` // ranks waiting beside a -multi layout
	Mode        string        `json:"mode,omitempty"`
	Conditions  string        `json:"conditions,omitempty"`    // run conditions not at the tool's default
	Series      string        `json:"series"`                  // the series' label, e.g. "Multi-Allgather 3x32"
	Placement   string        `json:"placement,omitempty"`     // hosts of the series' ranks, when the run records them
	CrossHosts  *bool         `json:"between_hosts,omitempty"` // some group's ranks are on different hosts; null when not recorded
	Headline    string        `json:"time_column"`             // "t_max" (IMB) or "t_avg" (OSU)
	Derived     bool          `json:"times_from_bandwidth"`
	WireModel   string        `json:"wire_model,omitempty"`
	PayloadMBps *float64      `json:"payload_mbps,omitempty"`
	K           int           `json:"k,omitempty"`  // sizes the latency averages, with a wire model
	LatencyUsec *float64      `json:"latency_usec"` // null without a wire model or with fewer than k sizes
	BreakBytes  *int64        `json:"break_bytes"`  // null when one line fits best; else the last segment's first size
	Breaks      []int64       `json:"breaks"`       // first size of each segment after the first, [] for one line
	Fit         []jsonSegment `json:"fit"`
	FitError    string        `json:"fit_error,omitempty"`
}

// jsonScaling is one switch/shared-medium classification.
type jsonScaling struct {
	Benchmark      string    `json:"benchmark"`
	Bytes          int64     `json:"bytes"`
	Class          string    `json:"class"`
	Slope          *float64  `json:"slope"`
	Steps          []float64 `json:"step_slopes"`
	Changes        bool      `json:"changes_between_counts"`
	ABGGrowth      *float64  `json:"abg_growth"`
	TransferGrowth *float64  `json:"transfer_growth"`
}

// jsonCountTime is a size-less benchmark's time at one process count.
type jsonCountTime struct {
	Benchmark string   `json:"benchmark"`
	Multi     bool     `json:"multi"`
	Processes *int     `json:"processes"`
	Usec      *float64 `json:"usec"`
	Growth    *float64 `json:"growth"`
}

// jf returns v, or nil for NaN and infinities.
func jf(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

// ji returns n, or nil when n < 0 (unknown) or, with positive set, n <= 0.
func ji(n int, positive bool) *int {
	if n < 0 || positive && n == 0 {
		return nil
	}
	return &n
}

func jsonSegmentOf(name string, f analysis.Fit) jsonSegment {
	j := jsonSegment{Segment: name, MinBytes: f.MinBytes, MaxBytes: f.MaxBytes, AlphaUsec: jf(f.AlphaUsec),
		BandwidthMBps: jf(f.BandwidthMBps), NHalfBytes: jf(f.NHalfBytes), R2: jf(f.R2), LineRatePercent: jf(f.LineRatePct), Points: f.Points,
		Poor: f.Poor(), LeftOut: []jsonPoint{}}
	for _, o := range f.Outliers {
		j.LeftOut = append(j.LeftOut, jsonPoint{o.Bytes, o.Usec})
	}
	return j
}

// jsonSeriesOf gives a sweep's figures; k is the latency's number of sizes.
func jsonSeriesOf(s SeriesReport, k int) jsonSeries {
	j := jsonSeries{Benchmark: s.Benchmark, Processes: ji(s.Processes, true), Groups: s.Groups, Group: ji(s.Group, false),
		Multi: s.Multi >= 0, Idle: s.Idle, Mode: s.Mode, Conditions: s.Conditions, Series: s.Label(), Derived: s.DerivedTimes, LatencyUsec: jf(s.LatencyUsec), Fit: []jsonSegment{}}
	if s.Placement != nil {
		cross := s.Placement.Crossing() > 0
		j.Placement, j.CrossHosts = s.Placement.String(), &cross
	}
	j.Headline = "t_max"
	if len(s.Rows) > 0 {
		j.Headline = s.Rows[0].Headline.String()
	}
	if s.Model != nil {
		j.WireModel, j.PayloadMBps, j.K = s.Model.Name, jf(s.Model.PayloadMBps()), k
	}
	j.Breaks = append([]int64{}, s.Fit.Breaks...)
	if s.FitErr != nil {
		j.FitError = s.FitErr.Error()
		return j
	}
	if s.Fit.Split {
		b := s.Fit.BreakBytes
		j.BreakBytes = &b
	}
	for i, name := range s.Fit.SegmentNames() {
		j.Fit = append(j.Fit, jsonSegmentOf(name, s.Fit.Segments[i]))
	}
	return j
}

// jsonFigures gives a run's numeric results.
func (r RunReport) jsonFigures(k int) (series []jsonSeries, scaling []jsonScaling, sizeless []jsonCountTime) {
	series, scaling, sizeless = []jsonSeries{}, []jsonScaling{}, []jsonCountTime{}
	for _, s := range r.Series {
		series = append(series, jsonSeriesOf(s, k))
	}
	for _, s := range r.Scaling {
		scaling = append(scaling, jsonScaling{Benchmark: s.Benchmark, Bytes: s.Bytes, Class: s.Class.String(), Slope: jf(s.Slope),
			Steps: s.Steps, Changes: s.Changes, ABGGrowth: jf(s.ABGGrowth), TransferGrowth: jf(s.TransferGrowth)})
	}
	for _, c := range r.Sizeless {
		sizeless = append(sizeless, jsonCountTime{Benchmark: c.Benchmark, Multi: c.Multi, Processes: ji(c.Processes, true),
			Usec: jf(c.Usec), Growth: jf(c.Growth)})
	}
	return series, scaling, sizeless
}
