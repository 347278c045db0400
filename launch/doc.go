// Package launch starts the ranks of an mpbench job and bootstraps each rank's
// transport.
//
// # Launcher side
//
// Run starts Spec.NP processes of Spec.Argv. Nothing is inherited from the
// launcher but the environment: each rank learns where the job's rendezvous
// is and how to prove it belongs to the job from four variables,
//
//	MPBENCH_RENDEZVOUS  host:port of the launcher's rendezvous listener
//	MPBENCH_SECRET      random job secret (64 hex digits)
//	MPBENCH_RANK        this process's rank, 0 <= rank < size
//	MPBENCH_SIZE        number of ranks in the job
//
// so that the same bootstrap works when ranks are started on other hosts
// (ssh, srun, ip netns exec). The launcher binds the rendezvous on
// MPBENCH_RENDEZVOUS_BIND from its own environment (default 127.0.0.1:0).
//
// Every rank runs in its own process group with the parent-death signal set
// to SIGKILL (Linux), so no rank outlives the launcher. If a rank exits
// non-zero or is killed, Run stops the others (SIGTERM to each rank's process
// group, SIGKILL after a 2 s grace period) and returns a *RankError naming the
// first failing rank, its exit status or signal and the last line it wrote
// to stderr. All children are always reaped.
//
// # Rendezvous protocol
//
// A worker connects to MPBENCH_RENDEZVOUS and sends one JSON line
// {"secret", "rank", "size", "addr"} where addr is its transport's listen
// address. The launcher checks the secret (constant time), rank and size.
// When all ranks have registered it answers each with one JSON line
// {"addrs": [addr of rank 0, ...]}; a rejected worker gets {"error": "..."}.
// The connection then stays open for the job's lifetime: a worker whose
// control connection drops (the launcher died) exits at once with status 1.
//
// # Worker side
//
// IsWorker reports whether the process was started by a launcher; Join reads
// the environment, registers with the rendezvous and returns a connected
// transport/tcp endpoint. Optional variables: MPBENCH_IFADDR is the
// interface address the rank's transport binds and advertises (default: the
// local address of the control connection, 127.0.0.1 for local jobs);
// MPBENCH_SOCKBUF is the TCP socket buffer size in bytes (default 4 MiB; -1
// leaves the kernel default).
package launch
