package matmul

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/mpbench/mpbench/analysis"
)

// Predicted is one row of the prediction table: the communication time
// predicted by expression 4.4 and, when known, the one measured.
type Predicted struct {
	analysis.MatmulPrediction
	MeasuredS float64 // median communication measured inside the Bcasts (max over ranks), seconds; NaN if none
}

// WritePredictions prints the prediction table: one row per process count
// with the grid, the block size, the two Bcast times used and their
// sources, the predicted communication time, the measured one and their
// ratio. Rows whose Bcast times come from the model are the model's
// answer, not a measurement's, and say so in their source columns.
func WritePredictions(w io.Writer, rows []Predicted) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%6s %7s %12s %12s %-22s %12s %-22s %13s %12s %10s\n", "N", "grid", "block[B]",
		"Bcast_q[us]", "source", "Bcast_p[us]", "source", "predicted[s]", "measured[s]", "pred/meas")
	for _, r := range rows {
		meas, ratio := "-", "-"
		if !math.IsNaN(r.MeasuredS) {
			meas = fmt.Sprintf("%.4g", r.MeasuredS)
			if r.MeasuredS > 0 {
				ratio = fmt.Sprintf("%.3g", r.TotalS/r.MeasuredS)
			}
		}
		fmt.Fprintf(&b, "%6d %7s %12d %12.4g %-22s %12.4g %-22s %13.4g %12s %10s\n", r.Nodes, fmt.Sprintf("%dx%d", r.P, r.Q),
			r.BlockBytes, r.BcastQ.Usec, r.BcastQ.Source, r.BcastP.Usec, r.BcastP.Source, r.TotalS, meas, ratio)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
