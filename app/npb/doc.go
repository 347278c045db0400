// Package npb holds two kernels of the NAS Parallel Benchmarks, version
// 3.4 (NPB3.4-MPI: ep.f, ft.f, common/randdp.f, print_results.f), written
// on mpbench's communicator: EP (embarrassingly parallel: Gaussian pairs
// from NPB's linear congruential generator, one Allreduce of sums and
// counts at the end) and FT (a 3-D FFT PDE solver: 3-D FFTs whose
// transposes are Alltoalls, a checksum reduced every iteration). Problem
// classes, verification values and tolerances are NPB 3.4's; the output
// follows NPB's (print_results), with mpbench's split of the time into
// computation and communication after it.
//
// EP's verification sums are the signed sums of NPB3.4-MPI's ep.f (the
// same values as NPB 3.3's MPI and OpenMP versions), checked to a relative
// error of 1e-8 as ep.f does. FT's are the per-iteration checksums of
// NPB3.4-MPI's ft.f verify, to a relative error of 1e-12.
//
// Global indices, element counts, offsets and seeds' jump distances are
// int64 everywhere (a class D FT grid has 2^31 points, class E 2^34).
package npb
