//go:build mpi

package cli

import "github.com/mpbench/mpbench/mpi"

func init() { tuneFlavor = mpi.Flavor }
