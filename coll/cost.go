package coll

import (
	"fmt"
	"strings"
)

// Hockney is the point-to-point model of the algorithms' cost formulas: a
// message of n bytes takes Alpha + n Beta (Hockney 1994), Alpha the
// latency of a message and Beta the time per byte, in one time unit
// (mpbench predict: usec and usec per byte).
type Hockney struct {
	Alpha, Beta float64
}

// message is the time of one message of n bytes.
func (h Hockney) message(n float64) float64 { return h.Alpha + n*h.Beta }

// Cost returns the modelled time, in h's unit, of one call of collective
// (a name as in ParseAlgorithms) by the algorithm ch on p ranks with n
// bytes (as Select's bytes), from the cost formula documented with the
// algorithm (Thakur, Rabenseifner & Gropp 2005; Barnett et al. 1996); 0 on
// one rank. A segmented algorithm's Segment 0 means DefaultSegment. Error
// when the collective is unknown, ch is none of its algorithms, or the
// algorithm has no formula (every Bcast algorithm has one, the other
// collectives' have none yet): never another algorithm's time.
func Cost(collective string, ch Choice, p, n int, h Hockney) (float64, error) {
	s := specOf(collective)
	if s == nil {
		return 0, choiceErrorf("unknown collective %q (valid: %s)", collective, collectiveNames())
	}
	a := s.algorithm(ch.Algorithm)
	if a == nil {
		return 0, choiceErrorf("no %s algorithm %q (valid: %s)", s.name, ch.Algorithm, strings.Join(s.names(), ", "))
	}
	if a.cost == nil {
		return 0, fmt.Errorf("coll: no cost formula for the %s algorithm %q (the model knows %s)", s.name, ch.Algorithm, strings.Join(s.costed(), ", "))
	}
	if p <= 1 {
		return 0, nil
	}
	return a.cost(p, float64(n), ch.segment(), h), nil
}

// costed lists the algorithms of s that have a cost formula.
func (s *collSpec) costed() []string {
	var n []string
	for _, a := range s.algs {
		if a.cost != nil {
			n = append(n, a.name)
		}
	}
	return n
}
