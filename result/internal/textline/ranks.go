package textline

import (
	"regexp"
	"strconv"
)

// pinRankRE matches one rank's line of a launcher's pinning report: Intel
// MPI's I_MPI_DEBUG table ("[0] MPI startup(): 3       30267    host01
// {3,7}", under "Rank Pid Node name Pin cpu") and Open MPI's
// --report-bindings ("[host01:12345] MCW rank 3 bound to socket 0[core 3
// ...]").
var pinRankRE = regexp.MustCompile(`^\[\d+\] MPI startup\(\):\s+(\d+)\s+\d+\s+\S+\s+\{?[\d,\-]+\}?\s*$|MCW rank (\d+) (?:bound|is not bound)`)

// PinnedRank returns the rank a line of a launcher's pinning report is
// about (Intel MPI's I_MPI_DEBUG pinning table, Open MPI's
// --report-bindings), with ok false for other lines. The highest rank
// plus one is the job's process count.
func PinnedRank(line string) (rank int, ok bool) {
	sm := pinRankRE.FindStringSubmatch(line)
	if sm == nil {
		return 0, false
	}
	s := sm[1]
	if s == "" {
		s = sm[2]
	}
	n, err := strconv.Atoi(s)
	return n, err == nil
}
