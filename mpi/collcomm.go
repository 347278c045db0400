//go:build mpi

package mpi

// #include "shim.h"
import "C"

import "github.com/mpbench/mpbench/comm"

// CollectiveComm returns a communicator with the same group and rank order
// as c but its own message space (MPI_Comm_dup), on which package coll runs
// its algorithms so that their messages never match the caller's
// point-to-point traffic (coll.Private). The first call is collective over
// c (every rank calls it, in the same order as other collectives); later
// calls return the same communicator. Free on c frees it too.
func (c *Comm) CollectiveComm() (comm.Comm, error) {
	if c.coll != nil {
		return c.coll, nil
	}
	var h C.MPI_Comm
	if err := check("MPI_Comm_dup", C.MPI_Comm_dup(c.h, &h)); err != nil {
		return nil, err
	}
	d, err := wrap(h, true)
	if err != nil {
		return nil, err
	}
	c.coll = d
	return d, nil
}
