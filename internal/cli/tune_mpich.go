package cli

// newMPICHLibrary reads the installed MPICH's algorithm controls.
func newMPICHLibrary() (tuneLibrary, error) {
	return nil, usageErrorf("tune --transport mpi: tuning MPICH is not supported by this mpbench yet; build with -tags mpi for Open MPI")
}
