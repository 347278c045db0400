package testbed

// CheckRow is one measurement of Check next to the model's value.
type CheckRow struct {
	Test     string  `json:"test"`     // e.g. "latency 1<->2", "bulk 2->1"
	Unit     string  `json:"unit"`     // "usec" or "Mbit/s"
	Model    float64 `json:"model"`    // the model's value (latency: plus the loopback latency)
	Measured float64 `json:"measured"` // the median of the measurement
	Judged   bool    `json:"judged"`   // whether the tolerance applies (bandwidth rows)
}

// Ratio returns Measured / Model.
func (r CheckRow) Ratio() float64 { return r.Measured / r.Model }

// CheckOptions size Check's measurements.
type CheckOptions struct {
	Seconds float64 // length of each bulk transfer at the model's rate
	Pings   int     // ping-pong round trips per latency row
}
