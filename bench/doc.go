// Package bench implements the IMB-MPI1 benchmarks and the runner that
// drives them, written once against comm.Comm so that they run unchanged on
// every mpbench transport and on a real MPI library.
//
// Semantics follow Intel MPI Benchmarks 2021.x (IMB-MPI1; sources named in
// each docstring):
//
//   - Sizes: 0, 2^a, ..., 2^b bytes for -msglog a:b (default 0:22), or the
//     -msglen list. Sizes are int64; the largest accepted is 2^30.
//   - Repetitions: max(1, min(OverallVol/size, MsgsPerSample)) (1000 up to
//     32 KiB, 640 at 64 KiB, ..., 10 at 4 MiB), then capped after a
//     one-iteration probe by min(n, previous n, 1 + -time/t_probe), agreed
//     by all ranks.
//   - Warm-up: n/10 iterations, at least min(10, n). Two barriers before
//     each timed loop.
//   - Times: each rank times n iterations and divides by n; PingPong halves
//     it (half round trip). Rank 0 gathers the times and reports t_min,
//     t_max and t_avg over the row's ranks, in usec.
//   - Mbytes/sec = ScaleBW * bytes / t_max with ScaleBW 1 for PingPong and
//     PingPing, 2 for Sendrecv and 4 for Exchange; one Mbyte is
//     Options.MByte bytes (10^6 as IMB since 2018, or 2^20).
//   - Uniband and Biband (IMB_bandwidth.c) time one window of
//     -window_size non-blocking messages per pair (and direction) plus an
//     acknowledgement; Msg/sec = ScaleBW * window * pairs / t_max and
//     Mbytes/sec = Msg/sec * bytes / Mbyte, no time column. They run on
//     even process counts. PingPong and PingPing also come as
//     SpecificSource and AnySource variants (MPI_ANY_SOURCE receives).
//   - -npmin P: process counts P, 2P, 4P, ... and always np; single-transfer
//     benchmarks run on 2 processes. Ranks outside the groups idle until
//     the block ends. -multi 0|1: np/N groups of N run at once; -multi 0
//     reports one row over all groups (worst case: t_max over every rank),
//     -multi 1 one row per group.
//   - -off_cache: each repetition uses the next slot of a buffer spanning
//     twice the cache, slots two cache lines apart.
//   - -mem: a size whose buffers exceed the limit (default 1 GiB per
//     process) is refused on every rank before anything runs.
//   - -check: an untimed pass after the timed loop repeats the n
//     repetitions with send areas filled by Pattern and verifies every
//     received byte; defects abort the run with a *CheckError.
//     Reductions fill their send areas with small integers as float32
//     (FillReduction), so the reference sum every rank computes locally
//     is exact in any order of addition.
//   - Collectives (Allreduce ... Bcast, Barrier; IMB_allreduce.c and
//     siblings): each call is timed on its own and the times summed, with
//     a barrier after each call outside the timed region under -sync;
//     no bandwidth column. Reductions use MPI_FLOAT and MPI_SUM, sizes in
//     whole elements (0, 4, 8, ...). Rooted collectives use root 0, or
//     root i mod procs in iteration i under -root_shift. The kernels call
//     package coll with Options.Algorithms, and each block and row names
//     the algorithm per size (Block.Algorithms, result.Row.Algorithm).
//
// The runner's own coordination (probe, repetition count, results,
// verdicts) uses point-to-point messages only, never package coll, so the
// collective benchmarks that measure coll do not depend on it.
//
// Adding a benchmark is one file: a Kernel that moves bytes for n
// iterations and returns the elapsed seconds, and a Register call in init
// with the benchmark's class, time and bandwidth scales, buffer areas and,
// for -check, what each rank expects to receive. A benchmark of a kind IMB's
// classes do not cover declares its own Class in the same file: its table's
// columns (imb.Layout), how a row's rates follow from its times, its process
// counts. Output formats (IMB text, JSON, CSV) are not this package's: they
// implement Sink and take a block's columns from its Class.
package bench
