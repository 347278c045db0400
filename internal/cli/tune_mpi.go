//go:build mpi

package cli

import "github.com/mpbench/mpbench/transport/mpi"

func init() { tuneFlavor = mpi.Flavor }
