//go:build mpi && mpich

package cref

// MPICH under the tags mpi,mpich (see flags_ompi.go). MPICH's mpi.h makes
// gcc 12 warn (-Wstringop-overflow) on the status-ignore constants; the
// warning is harmless and silenced, as in package mpi.

// #cgo pkg-config: mpich
// #cgo CFLAGS: -Wno-stringop-overflow
import "C"
