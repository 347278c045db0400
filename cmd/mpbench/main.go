// Command mpbench is a message-passing runtime, launcher and
// IMB-MPI1-compatible benchmark suite. See "mpbench --help".
package main

import (
	"os"

	"github.com/mpbench/mpbench/internal/cli"
	"github.com/mpbench/mpbench/launch"
)

func main() {
	cli.LimitMallocArenas() // under ulimit -v: again, with one glibc malloc arena
	go exitOnFatal()
	os.Exit(cli.Main(cli.Args(os.Args), os.Stdout, os.Stderr))
}

// exitOnFatal ends the process when a goroutine reports on launch.Fatal
// that it must end at once, though the command may be blocked waiting for
// a peer: the rank's launcher is gone, or rank 0 of a job on an MPI library
// was signalled inside a library call. The message was printed and the
// result files closed by then; the status is cli.ExitStatus's.
func exitOnFatal() {
	os.Exit(cli.ExitStatus(<-launch.Fatal()))
}
