// Package tcp implements transport.Endpoint over TCP: one connection per pair
// of ranks (a full mesh), frames written with one vectored write, one reader
// goroutine per peer.
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
// Both directions of a new connection start with a hello of 16 bytes followed
// by the job secret (all integers little endian):
//
//	offset  size  field
//	0       4     magic "MPBT"
//	4       1     protocol version (1)
//	5       1     status (0 ok; in a reply: 1 bad secret, 2 bad size, 3 bad rank)
//	6       2     secret length in bytes (at most MaxSecretBytes)
//	8       4     sender's rank
//	12      4     job size (number of ranks)
//	16      n     secret
//
// The dialer sends first; the acceptor checks magic, version, size, that the
// rank is a lower rank not yet connected, and compares the secret in constant
// time (crypto/subtle). On success it answers with its own hello; otherwise it
// answers with a non-zero status and an empty secret, closes the connection
// and keeps waiting for the right peer. The dialer checks the reply the same
// way (the acceptor must be the rank it meant to reach and know the secret).
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
// # Shutdown
//
// Close sends a goodbye frame (Kind 0xFF, never delivered) to every peer,
// shuts down the sending half of each connection and then keeps reading (and
// discarding) until every peer has closed too, or Options.CloseTimeout has
// passed. A reader that sees end-of-stream after a goodbye, or any error
// after the local Close began, reports nothing. Every other read error or
// end-of-stream is a failure of that peer: it is reported once as a
// *transport.PeerError through the Handler's optional
// transport.FailureHandler, and later Sends to that peer return it. Because
// each side reads until the other's end-of-stream before closing its socket,
// no data is lost to a TCP reset when ranks finish at different times.
package tcp
