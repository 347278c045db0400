package transfer

import (
	"fmt"
	"net"
	"time"

	"github.com/mpbench/mpbench/analysis"
)

// Plan is one run of the file-transfer test: every size in Sizes (bytes),
// in order, sent Repeat times; Wire, if not nil, is the wire model of the
// rows' percentages (Summarise).
type Plan struct {
	Sizes  []int64
	Repeat int
	Wire   *analysis.WireModel
}

// Measure runs p against the server that dial reaches (to names it in
// errors, e.g. "10.77.0.1:5210"), a new connection per transfer (Send),
// and returns one Row per size. Each row is handed to done, if not nil, as
// soon as its size is measured (to write it to a file while the run goes
// on). On the first failed transfer Measure returns the rows of the sizes
// measured before and an error naming the size and the server: "transfer
// of 1000000 bytes to 10.77.0.1:5210: ...".
func Measure(dial func() (net.Conn, error), to string, p Plan, done func(Row)) ([]Row, error) {
	var rows []Row
	for _, size := range p.Sizes {
		var times []time.Duration
		for range p.Repeat {
			t, err := Send(dial, size)
			if err != nil {
				return rows, fmt.Errorf("transfer of %d bytes to %s: %v", size, to, err)
			}
			times = append(times, t)
		}
		r := Summarise(size, times, p.Wire)
		rows = append(rows, r)
		if done != nil {
			done(r)
		}
	}
	return rows, nil
}
