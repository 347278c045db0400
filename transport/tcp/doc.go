// Package tcp implements transport.Endpoint over TCP: one connection per pair
// of ranks (a full mesh), frames written with vectored writes, and the
// sockets read by the rank that waits (transport.Progresser).
//
// # Setting up a job
//
// Each rank calls Listen, which binds a TCP port on Options.Addr (default
// 127.0.0.1, an ephemeral port). The rank publishes Listener.Addr through some
// rendezvous (package launch runs one), learns every rank's address and calls
// Listener.Connect. The lower rank of each pair dials the higher one, retrying
// with exponential backoff (5 ms doubling to 1 s) until the context ends, so
// that many simultaneous connects are not lost to a full accept backlog.
//
// # Handshake
//
// Every new connection proves, in both directions, that the other side
// holds the job secret, without sending it (package transport/auth:
// HMAC-SHA256 over fresh nonces). The dialer sends a hello of 48 bytes
// (integers little endian):
//
//	offset  size  field
//	0       4     magic "MPBT"
//	4       1     protocol version (2)
//	5       1     status (0 ok; from the acceptor: 2 bad size, 3 bad rank)
//	6       2     unused (0)
//	8       4     sender's rank
//	12      4     job size (number of ranks)
//	16      32    sender's nonce
//
// The acceptor checks magic, version, size and that the rank is a lower
// rank not yet connected, and answers with its own hello (its nonce) and
// 32 more bytes: HMAC(secret, "mpbench tcp acceptor v2", dialer's nonce,
// acceptor's nonce, dialer's rank, acceptor's rank, size). The dialer checks
// that MAC (the acceptor must be the rank it meant to reach and know the
// secret) and sends its own, with the role "mpbench tcp dialer v2"; the
// acceptor checks it and ends the handshake with one status byte (0, or 1
// for a wrong secret). A connection refused by the acceptor is closed and
// reported to Options.Refused with its address; the acceptor keeps waiting
// for the right peer, so a stray or hostile client cannot stop the job.
//
// # Frames
//
// After the handshake a connection carries frames: a transport.Header (32
// bytes, see package transport) followed, for the kinds Eager, Data and
// Control, by Header.Length payload bytes. RTS and CTS carry no payload. Each
// Send writes header and payload with one writev under the connection's send
// mutex, so frames of concurrent Sends never interleave and per-source order
// is the TCP stream order.
//
// What a peer's stream may hold is bounded, so that no byte sequence keeps
// a rank's reader from returning: a header with an unknown kind, another
// rank as source or a length above 2^48 bytes (more than any rank can
// hold) fails that peer at once, since nothing after it can be trusted;
// a frame whose header arrived but whose payload then stops for
// Options.FrameStall (60 s) fails the peer too, instead of holding the
// reader, and with it every other peer's frames, for ever.
//
// # Progress
//
// After the handshake each socket is taken out of Go's netpoller (its
// descriptor is duplicated and the net.Conn closed) and kept non-blocking.
// A goroutine of the rank that waits for a message calls Progress, which
// reads every socket without blocking (read(2) for one peer, poll(2) with
// a zero timeout then read(2) for several) and delivers the frames found,
// for up to Options.Spin (500 us, or 1 ms when the ranks on the host
// outnumber its CPUs), yielding the CPU (sched_yield) between two looks.
// One goroutine reads at a time. When a Progress call
// gives up, the rank sleeps on its request and the endpoint's poller
// goroutine reads instead, blocked in poll(2) on all sockets at once. While
// a Progress call polls, or one has just found what it waited for, the
// poller sleeps (at most 1 ms at a time) without watching the sockets, so
// a message to a polling rank wakes no second thread. A frame whose header
// has arrived is delivered at once; the rest of its payload is read as the
// sender writes it, straight into the receive buffer once at least 64 KiB
// are missing, reading again without blocking (yielding the CPU between two
// tries) for up to Options.Spin after the last byte that came before
// sleeping in poll(2). A Send that finds the socket's buffer full waits in poll(2)
// for room and asks the poller to read meanwhile, so two ranks sending
// each other large frames never wait for each other.
//
// # Shutdown
//
// Close sends a goodbye frame (Kind 0xFF, never delivered) to every peer,
// shuts down the sending half of each connection and then keeps reading (and
// discarding) until every peer has closed too, or Options.CloseTimeout has
// passed. End-of-stream after a goodbye, or any error after the local Close
// began, is reported as nothing. Every other read error or
// end-of-stream is a failure of that peer: it is reported once as a
// *transport.PeerError through the Handler's optional
// transport.FailureHandler, and later Sends to that peer return it. Because
// each side reads until the other's end-of-stream before closing its socket,
// no data is lost to a TCP reset when ranks finish at different times.
package tcp
