// Command mpbench is a message-passing runtime, launcher and
// IMB-MPI1-compatible benchmark suite. See "mpbench --help".
package main

import (
	"os"

	"github.com/mpbench/mpbench/internal/cli"
)

func main() {
	os.Exit(cli.Main(cli.Args(os.Args), os.Stdout, os.Stderr))
}
