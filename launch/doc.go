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
// # Other hosts
//
// Spec.Hosts places ranks on hosts (ParseHostfile, ParseHostList,
// MapRanks). A rank on another host is started through a launch agent
// (Agent: ssh in batch mode by default, or a template such as
// "ip netns exec {host}") as "<agent words> <executable> BootstrapArg"; its
// arguments, environment and job secret travel as one JSON line on its
// standard input (BootstrapFromStdin), never on a command line. The remote
// executable must be the launcher's build (BuildID and version), else it
// refuses naming its host. Spec.If (MPBENCH_IF for ranks) picks the
// network by interface name or CIDR (InterfaceAddr). Every rank learns the
// rank-to-host map (JoinJob, Job.Hosts). Ranks in different network
// namespaces count as different hosts.
//
// A job stopped by the caller (ctx, e.g. Ctrl-C) passes the signal on: a
// rank on this host gets it in its process group, a rank started through
// the agent as a stop line on its bootstrap pipe, which it raises in its
// own process (a signal to the agent would end only ssh, cutting the rank
// off before it could end its run in order). The agent is killed when the
// grace period below is over.
//
// Every rank runs in its own process group with the parent-death signal set
// to SIGKILL (Linux), so no rank outlives the launcher. When the job ends
// the launcher removes any shared-memory segment of the job still in
// /dev/shm (ranks unlink their own once mapped; only a rank that died
// during start-up leaves one). If a rank exits
// non-zero or is killed, Run stops the others (SIGTERM to each rank's process
// group, SIGKILL after a 2 s grace period) and returns a *RankError naming the
// first failing rank, its exit status or signal and the last line it wrote
// to stderr, or the rank's own account of the failure when it wrote one
// with ReportError (that line is not copied to the job's stderr, so a
// failure every rank sees is printed once). A rank stopped (process state
// T, e.g. by SIGSTOP) for 10 s fails the job the same way, since no other
// rank can progress without it; when Spec.Timeout passes, the error names
// the ranks still running and which of them are stopped (T, t) or in
// uninterruptible sleep (D). All children are always reaped.
//
// # Rendezvous protocol
//
// A worker connects to MPBENCH_RENDEZVOUS and sends one JSON line
// {"secret", "rank", "size", "addr"} where addr is
// "host=<id>;<transport>=<address>;..." with one field per transport the
// rank prepared, e.g. "host=<id>;shm=;tcp=10.0.0.2:40123"
// (ranks with the same host id share memory; see route.go). The launcher checks the secret (constant time), rank and size.
// When all ranks have registered it answers each with one JSON line
// {"addrs": [addr of rank 0, ...]}; a rejected worker gets {"error": "..."}.
// The connection then stays open for the job's lifetime: a worker whose
// control connection drops (the launcher died) exits at once with status 1.
//
// # Worker side
//
// IsWorker reports whether the process was started by a launcher; JoinJob
// reads the environment, registers with the rendezvous and returns a
// connected endpoint. It knows no transport by name: every registered
// transport.ProcessDriver (package transport/all registers them) prepares
// its side and publishes its address, and each peer is reached through the
// first that reaches it, narrowest reach first: shared memory
// (transport/shm) between ranks on the same host, TCP (transport/tcp)
// between hosts. Optional variables: MPBENCH_TRANSPORT is auto (default)
// or the name of one transport to use alone (tcp, shm); MPBENCH_BIND is
// core (pin each rank to a CPU of its own) or none (by default ranks are
// pinned when a host's ranks do not outnumber its CPUs and no transport
// in use reaches other hosts); MPBENCH_IFADDR is the interface address
// the rank's transport binds and advertises (default: the local address
// of the control connection, 127.0.0.1 for local jobs); MPBENCH_STATS=60s
// makes every rank print its goroutine count, heap and RSS on stderr each
// minute (EnvStats). Transports read their own: MPBENCH_SHM_CMA
// (shm.CMASetting) is the smallest payload in bytes read by single copy (-1:
// always copy through the rings); MPBENCH_SOCKBUF (tcp.SocketBufferSetting) is
// the TCP socket buffer size in bytes (default 4 MiB; -1 leaves the kernel
// default).
package launch
