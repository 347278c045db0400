// Command mpbench is a message-passing runtime, launcher and
// IMB-MPI1-compatible benchmark suite. See "mpbench --help".
package main

import (
	"os"

	"github.com/mpbench/mpbench/internal/cli"
	"github.com/mpbench/mpbench/launch"
)

// main runs the command and exits with its status, or earlier with the
// status of a report on launch.Fatal: a goroutine found that the process
// must end at once though the command may be blocked waiting for a peer
// (the rank's launcher is gone, or rank 0 of a job on an MPI library was
// signalled inside a library call); the message was printed and the result
// files closed by then; the status is cli.ExitStatus's. os.Exit is called
// here only.
func main() {
	cli.LimitMallocArenas() // under ulimit -v: again, with one glibc malloc arena
	done := make(chan int, 1)
	go func() { done <- cli.Main(cli.Args(os.Args), os.Stdout, os.Stderr) }()
	select {
	case status := <-done:
		os.Exit(status)
	case err := <-launch.Fatal():
		os.Exit(cli.ExitStatus(err))
	}
}
