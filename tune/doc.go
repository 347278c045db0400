// Package tune turns measurements of every algorithm of a collective into a
// decision: which algorithm to use at which process count and message size,
// and the tuning files that carry that decision to mpbench's own runtime
// (its rules file, read by "mpbench run --coll-rules"), to Open MPI (the
// coll_tuned dynamic rules file of Open MPI 4.x) and to MPICH (the
// collective-selection JSON of MPICH 4.x).
//
// # The winner rule
//
// Every configuration (an algorithm, with its segment size where it has
// one) and the library's default are measured at the same points
// (collective, process count, message size) in several interleaved rounds,
// one time per round. An algorithm replaces the default at a point only
// when it is faster beyond the spread of the repeats: its slowest round is
// faster than the default's fastest round, and its median is at least
// MinGain faster than the default's median. Among the algorithms that pass,
// the lowest median wins; where none passes the default stays (a tie keeps
// the library's own choice). Adjacent measured sizes with the same winner
// merge into one range. Where the runtime names the algorithm its default
// runs (mpbench's own table), that algorithm's rounds count as the
// default's: both measure the same thing, and the pooled rounds guard
// against a default whose few rounds all met a busy machine. See Decide.
//
// # Message sizes
//
// Sizes are IMB's #bytes of the benchmark (the buffer of Bcast, the vector
// of Reduce and Allreduce, the block per rank of Allgather, the block per
// destination of Alltoall; Barrier has none and is measured at size 0).
// The writers convert them to each library's measure of a message (Open
// MPI's and MPICH's total message size of Allgather and Alltoall is the
// block times the number of ranks).
//
// The package does no measuring: the points come from "mpbench tune"
// (internal/cli), which runs the benchmarks and reads their result files.
package tune
