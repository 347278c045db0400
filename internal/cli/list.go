package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/mpbench/mpbench/bench"
)

// listBenchmarks prints "mpbench run -list": every benchmark in run order
// under IMB-MPI1's heading, as IMB-MPI1 -list prints its suite (imb.cpp:
// program name, "List of benchmarks:", the suite name, then one indented
// name per line with " (non-default)" after those that do not run when no
// name is given), and the benchmark's class.
func listBenchmarks(w io.Writer) error {
	var b strings.Builder
	b.WriteString("mpbench run\nList of benchmarks:\nIMB-MPI1:\n")
	for _, name := range bench.Names() {
		spec, _ := bench.Lookup(name)
		fmt.Fprintf(&b, "    %s", name)
		if !spec.Default {
			b.WriteString(" (non-default)")
		}
		fmt.Fprintf(&b, "\n        %s\n", spec.Class)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
