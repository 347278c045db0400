// Package all registers every transport of mpbench (transport.Register):
// importing it for its side effect makes them known to package launch, to
// `mpbench run --transport` and to the tests that run over every
// transport. Adding a transport is its package and one line here.
package all

import (
	_ "github.com/mpbench/mpbench/transport/inmem"
	_ "github.com/mpbench/mpbench/transport/shm"
	_ "github.com/mpbench/mpbench/transport/tcp"
)
