package tcp

import (
	"fmt"
	"github.com/mpbench/mpbench/transport"
	"net"
	"time"
)

// MaxSecretBytes is the longest job secret (the handshake's MAC key).
const MaxSecretBytes = 1024

// DefaultHandshakeTimeout is how long an incoming or outgoing connection
// may take over its handshake (Options.HandshakeTimeout) before it is
// closed and, if incoming, reported as refused. It is three times the 10 s
// for which mpbench's launcher lets a rank stay stopped (SIGSTOP) before it
// names that rank and stops the job (2 s later every rank is gone): a rank
// stopped in the middle of its handshake is then named by the launcher,
// and its peer, ended with the job, never reports the silent connection as
// a stranger's. A stranger that connects and stays silent holds only its
// own connection meanwhile, never the wire-up.
const DefaultHandshakeTimeout = 30 * time.Second

// DefaultSocketBufferBytes is the SO_SNDBUF and SO_RCVBUF size (4 MiB) set on
// every connection unless Options.SocketBufferBytes says otherwise.
const DefaultSocketBufferBytes = 4 << 20

// SocketBufferSetting is the environment variable MPBENCH_SOCKBUF, which
// sets Options.SocketBufferBytes for ranks started by a launcher: bytes >
// 0, or -1 for the kernel's default (0 when unset:
// DefaultSocketBufferBytes).
var SocketBufferSetting = transport.IntSetting{Env: "MPBENCH_SOCKBUF",
	Want:  "a socket buffer size in bytes > 0, or -1 for the kernel default",
	Valid: func(n int) bool { return n > 0 || n == -1 }}

// Options configure one rank's endpoint.
type Options struct {
	// Rank is this rank, 0 <= Rank < Size.
	Rank int
	// Size is the number of ranks in the job (>= 1).
	Size int
	// Secret is the job secret every connection must present (1 to
	// MaxSecretBytes bytes).
	Secret []byte
	// Addr is the interface address to bind and advertise, as "host" or
	// "host:port" (port 0 or absent: an ephemeral port). It must be a
	// concrete address that peers can reach, not 0.0.0.0 or ::. Empty means
	// "127.0.0.1".
	Addr string
	// SocketBufferBytes sets SO_SNDBUF and SO_RCVBUF in bytes on every
	// connection. 0 means DefaultSocketBufferBytes; a negative value leaves
	// the kernel's defaults (and its buffer auto-tuning) alone.
	SocketBufferBytes int
	// HandshakeTimeout bounds one connection's handshake. 0 means
	// DefaultHandshakeTimeout (30 s).
	HandshakeTimeout time.Duration
	// Refused, if not nil, is called with the remote address and the
	// reason for every incoming connection that fails the handshake (not
	// an mpbench peer, wrong job secret, wrong size or rank, silent until
	// HandshakeTimeout). A client that only hangs up mid-handshake (such
	// as a rank killed while dialling) is not reported. The connection is
	// closed and the rank goes on waiting for its peers.
	Refused func(remote string, reason error)
	// CloseTimeout bounds how long Close waits for peers to close their
	// side. 0 means 10 s.
	CloseTimeout time.Duration
	// FrameStall is how long the rank waits for the rest of a frame whose
	// header has arrived before it fails that peer (the frame stopped
	// half-way: the peer is stopped or gone, or its stream is out of
	// step). 0 means DefaultFrameStall (60 s); negative means no limit.
	FrameStall time.Duration
	// Verify appends a CRC-32C of header and payload to every frame sent
	// (transport.EnvVerify; false means as MPBENCH_VERIFY says). Frames
	// that carry one are checked on arrival whatever this says.
	Verify bool
	// Spin is how long a waiting rank reads its sockets without blocking
	// (Endpoint.Progress, yielding its CPU between two looks) before it
	// sleeps until the poller goroutine delivers. 0 means 500 µs when the
	// ranks on this host (peers whose address has this rank's host) do
	// not outnumber its CPUs, else 1 ms (busypoll.Budget); negative means
	// never spin.
	Spin time.Duration
}

func (o *Options) withDefaults() (Options, error) {
	c := *o
	if c.Size < 1 || c.Rank < 0 || c.Rank >= c.Size {
		return c, fmt.Errorf("tcp: rank %d, size %d: need size >= 1 and 0 <= rank < size", c.Rank, c.Size)
	}
	if len(c.Secret) == 0 || len(c.Secret) > MaxSecretBytes {
		return c, fmt.Errorf("tcp: secret of %d bytes: need 1 to %d bytes", len(c.Secret), MaxSecretBytes)
	}
	if c.Addr == "" {
		c.Addr = "127.0.0.1"
	}
	if !c.Verify {
		c.Verify = transport.VerifyFromEnv()
	}
	if _, _, err := net.SplitHostPort(c.Addr); err != nil {
		c.Addr = net.JoinHostPort(c.Addr, "0")
	}
	host, _, err := net.SplitHostPort(c.Addr)
	if err != nil {
		return c, fmt.Errorf("tcp: address %q: want host or host:port", o.Addr)
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		return c, fmt.Errorf("tcp: address %q: need a concrete interface address peers can reach, not %s", o.Addr, host)
	}
	if c.SocketBufferBytes == 0 {
		c.SocketBufferBytes = DefaultSocketBufferBytes
	}
	if c.HandshakeTimeout <= 0 {
		c.HandshakeTimeout = DefaultHandshakeTimeout
	}
	if c.CloseTimeout <= 0 {
		c.CloseTimeout = 10 * time.Second
	}
	return c, nil
}

// tune sets TCP_NODELAY and the socket buffer sizes on a new connection.
func (o *Options) tune(c *net.TCPConn) error {
	if err := c.SetNoDelay(true); err != nil {
		return err
	}
	if o.SocketBufferBytes > 0 {
		if err := c.SetWriteBuffer(o.SocketBufferBytes); err != nil {
			return err
		}
		if err := c.SetReadBuffer(o.SocketBufferBytes); err != nil {
			return err
		}
	}
	return nil
}
