//go:build mpi && !mpich

package cref

// Open MPI under the tag mpi, as in package mpi: each library's
// link flags have a file of their own behind an exclusive constraint, so
// that the build cache cannot reuse one library's flags for the other.

// #cgo pkg-config: ompi
import "C"
