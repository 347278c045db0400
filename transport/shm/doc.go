// Package shm implements transport.Endpoint for ranks on one host through
// shared memory (Linux).
//
// # Segments
//
// Each rank creates its own segment, a file in /dev/shm named
// JobPrefix(secret)+rank (mode 0600, created exclusively) before it
// registers with the job's rendezvous, so the file exists by the time peers
// learn of it. Nothing is inherited from the launcher: ranks started on
// other hosts create their own. After the rendezvous (Pending.Attach) every
// rank maps the segments of the peers on its host and counts itself in
// their control blocks; a rank unlinks its file as soon as all of them have
// mapped it, so a rank that crashes later leaves nothing in /dev/shm. A
// launcher cleans up after a rank that died during start-up with
// RemoveJob.
//
// A segment holds a control block and one ring per source rank: the ring
// from rank s lives in the receiver's segment, rank s is its only producer
// and the owner its only consumer (lock-free single-producer /
// single-consumer, head and tail counters on separate cache lines, updated
// with sync/atomic on the mapping). See layout.go for the byte layout.
//
// # Frames
//
// A ring carries the same frames as transport/tcp, each behind an 8-byte
// mark that the consumer polls (see markBytes): a 32-byte
// transport.Header, then the payload, padded to 8 bytes. A frame of at
// most a fragment that fits in the free space before the ring's end is
// written straight into the ring (header encoded in place, payload copied
// once), padded to end on a cache line (flagLine, so the next frame
// starts on one and a small frame's mark, header and up to 24 payload
// bytes travel between the cores as one line) and published by one store
// of its mark, the only full barrier of its send (writeWhole); the
// consumer, seeing a mark, asks its core to fetch the line of the next
// frame's while it delivers this one (prefetch). A frame longer
// than a fragment (an eighth of the ring, at most 32 KiB) moves through
// the ring a fragment at a time, the receiver copying one out while the
// sender copies the next in (copy-in/copy-out, see stream.go). Rings are
// 1 MiB in jobs of up to 9 ranks and smaller in larger jobs
// (DefaultRingBytes), so that a frame has up to a ring of fragments in
// flight while ranks stream to each other both ways. A
// payload of 4 KiB or more copied through the ring starts on a cache line
// of it (flagAlign), and its copies in and out use the CPU's string-move
// instruction where that is faster than Go's copy (moveBytes). A
// payload of at least Options.CMABytes is not copied into the
// ring when the receiver has found at start-up that process_vm_readv works
// on the sender (cross-memory attach; it needs ptrace permission, which
// Yama or a container may deny): the header then carries the payload's
// address, the receiver copies it once, straight from the sender's memory
// into the buffer its Handler supplies, and acknowledges; Send returns
// after the acknowledgement. The probe's answer per peer, and why a peer
// is read through the ring (turned off, refused with EPERM, ENOSYS), is
// Endpoint.CopyPath; mpbench run prints it in the "# Single copy" header
// line.
//
// # Waiting
//
// A rank waiting in the runtime polls the rings on its own goroutine
// (transport.Progresser) for up to Options.Spin (500 µs, or 1 ms yielding
// the CPU between looks when the host's ranks outnumber its CPUs) and then
// blocks; a message is thus
// delivered without a hand-off between goroutines or threads. A poller
// goroutine per endpoint delivers what arrives while the rank is not
// waiting: it never spins (it would compete with the rank for the CPU) but
// sleeps on a futex in the control block (FUTEX_WAIT without
// FUTEX_PRIVATE_FLAG, as the word is shared between processes). Producers
// wake it only when it asked to be woken, which it does not while the rank
// polls or is between two waits (it then looks every millisecond), so a
// busy rank costs its peers no system calls; once the rank's Progress has
// given up and the rank sleeps, the poller always asks, so no message
// waits for a timed look. Producers waiting for ring
// space or for an acknowledgement spin and then sleep likewise. Spinning
// is bounded, so ranks that share cores do not starve each other.
//
// # Failures and shutdown
//
// Every rank holds a pidfd of each peer. A peer whose process ends without
// having written a goodbye frame (Close) is reported once through the
// Handler's optional transport.FailureHandler, and Sends to it fail with a
// *transport.PeerError. Ranks of one process (NewJob's, in tests) cannot
// see each other's end through the pidfd they share: they watch each
// other's Endpoint.Kill instead, which ends a rank as its process's crash
// would, so that the conformance suite's peer failure runs on shm too.
package shm
