package imb

import (
	"regexp"

	"github.com/mpbench/mpbench/result"
)

// markRE matches a line only IMB prints: its banner title, the rule of
// dashes, a "# Benchmarking" or "#processes =" line, the "#repetitions"
// column heading, the MPI_Finalize line.
var markRE = regexp.MustCompile(`^#-?\s*(Benchmarking\s|#processes\s*=)|^#-{40}|MPI Benchmark|#repetitions|All processes entering MPI_Finalize`)

func init() {
	result.RegisterFormat(result.Format{
		Name:      "imb",
		Title:     "IMB text output",
		Mark:      markRE.MatchString,
		Order:     20,
		Parse:     Parse,
		NotFormat: ErrNotIMB,
	})
}
