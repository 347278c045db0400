package tcp

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"

	"github.com/mpbench/mpbench/transport/auth"
)

// The handshake (see the package doc): hello, hello with MAC, MAC, status.
const (
	helloMagic   = "MPBT"
	helloVersion = 2
	helloHead    = 16                         // magic, version, status, 2 unused, rank, size
	helloSize    = helloHead + auth.NonceSize // the dialer's hello
	replySize    = helloSize + auth.MACSize   // the acceptor's hello with its MAC
	roleDialer   = "mpbench tcp dialer v2"    // MAC roles
	roleAcceptor = "mpbench tcp acceptor v2"
)

// Handshake status codes (byte 5 of the acceptor's hello, and its last
// byte).
const (
	statusOK        = 0
	statusBadSecret = 1
	statusBadSize   = 2
	statusBadRank   = 3
)

// errRejected marks a handshake the other side refused, or failed; dialing
// does not retry it.
var errRejected = errors.New("handshake rejected")

// hello is the first message in each direction of a connection.
type hello struct {
	status uint8
	rank   int
	size   int
	nonce  []byte // auth.NonceSize bytes
	mac    []byte // the acceptor's MAC; nil in the dialer's hello
}

func (h *hello) write(w io.Writer) error {
	b := make([]byte, helloSize, replySize)
	copy(b, helloMagic)
	b[4] = helloVersion
	b[5] = h.status
	binary.LittleEndian.PutUint32(b[8:], uint32(h.rank))
	binary.LittleEndian.PutUint32(b[12:], uint32(h.size))
	copy(b[helloHead:], h.nonce)
	if h.mac != nil {
		b = b[:replySize]
		copy(b[helloSize:], h.mac)
	}
	_, err := w.Write(b)
	return err
}

// readHello reads a hello, with a MAC when withMAC.
func readHello(r io.Reader, withMAC bool) (hello, error) {
	n := helloSize
	if withMAC {
		n = replySize
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(r, b[:helloHead]); err != nil {
		return hello{}, fmt.Errorf("reading hello: %w", err)
	}
	if string(b[:4]) != helloMagic || b[4] != helloVersion {
		return hello{}, fmt.Errorf("not an mpbench tcp peer of this version (magic %q version %d, want %q %d)", b[:4], b[4], helloMagic, helloVersion)
	}
	if _, err := io.ReadFull(r, b[helloHead:]); err != nil {
		return hello{}, fmt.Errorf("reading hello: %w", err)
	}
	h := hello{
		status: b[5],
		rank:   int(int32(binary.LittleEndian.Uint32(b[8:]))),
		size:   int(int32(binary.LittleEndian.Uint32(b[12:]))),
		nonce:  b[helloHead:helloSize],
	}
	if withMAC {
		h.mac = b[helloSize:]
	}
	return h, nil
}

// macParts is what both MACs of a connection cover besides the role: both
// nonces, the dialer's and the acceptor's rank and the job size.
func macParts(dialerNonce, acceptorNonce []byte, dialer, acceptor, size int) [][]byte {
	return [][]byte{dialerNonce, acceptorNonce, auth.Ints(dialer, acceptor, size)}
}

// acceptHello runs the acceptor's side on c: read the dialer's hello, check
// size and rank (rankOK), answer with a fresh nonce and this side's MAC,
// check the dialer's MAC, claim the rank (claim: false when another
// connection has it already), send the final status. It returns the
// dialer's rank, or an error saying why the connection was refused.
func (o *Options) acceptHello(c net.Conn, rankOK, claim func(int) bool) (int, error) {
	h, err := readHello(c, false)
	if err != nil {
		return 0, err
	}
	reply := hello{rank: o.Rank, size: o.Size, nonce: make([]byte, auth.NonceSize), mac: make([]byte, auth.MACSize)}
	switch {
	case h.size != o.Size:
		reply.status, err = statusBadSize, fmt.Errorf("peer says job size %d, this rank has %d", h.size, o.Size)
	case !rankOK(h.rank):
		reply.status, err = statusBadRank, fmt.Errorf("unexpected peer rank %d", h.rank)
	}
	if err != nil {
		reply.write(c)
		return 0, err
	}
	if reply.nonce, err = auth.NewNonce(); err != nil {
		return 0, err
	}
	parts := macParts(h.nonce, reply.nonce, h.rank, o.Rank, o.Size)
	reply.mac = auth.Sum(o.Secret, roleAcceptor, parts...)
	if err := reply.write(c); err != nil {
		return 0, err
	}
	mac := make([]byte, auth.MACSize)
	if _, err := io.ReadFull(c, mac); err != nil {
		return 0, fmt.Errorf("reading the peer's MAC: %w", err)
	}
	if !auth.Verify(mac, o.Secret, roleDialer, parts...) {
		c.Write([]byte{statusBadSecret})
		return 0, errors.New("failed authentication (wrong job secret)")
	}
	if !claim(h.rank) {
		c.Write([]byte{statusBadRank})
		return 0, fmt.Errorf("rank %d is connected already", h.rank)
	}
	if _, err := c.Write([]byte{statusOK}); err != nil {
		return 0, err
	}
	return h.rank, nil
}

// dialHello runs the dialer's side on c, connected to peer: send a hello
// with a fresh nonce, check the acceptor's answer (rank, size, MAC), send
// this side's MAC and read the final status. Refusals by either side wrap
// errRejected.
func (o *Options) dialHello(c net.Conn, peer int) error {
	nonce, err := auth.NewNonce()
	if err != nil {
		return err
	}
	if err := (&hello{rank: o.Rank, size: o.Size, nonce: nonce}).write(c); err != nil {
		return err
	}
	h, err := readHello(c, true)
	if err != nil {
		return err
	}
	if h.status != statusOK {
		return fmt.Errorf("%w by rank %d: %s", errRejected, h.rank, statusText(h.status))
	}
	if h.rank != peer || h.size != o.Size {
		return fmt.Errorf("%w: the peer is rank %d of %d, want rank %d of %d", errRejected, h.rank, h.size, peer, o.Size)
	}
	parts := macParts(nonce, h.nonce, o.Rank, peer, o.Size)
	if !auth.Verify(h.mac, o.Secret, roleAcceptor, parts...) {
		return fmt.Errorf("%w: rank %d failed authentication (wrong job secret)", errRejected, peer)
	}
	if _, err := c.Write(auth.Sum(o.Secret, roleDialer, parts...)); err != nil {
		return err
	}
	var st [1]byte
	if _, err := io.ReadFull(c, st[:]); err != nil {
		return fmt.Errorf("reading the handshake status: %w", err)
	}
	if st[0] != statusOK {
		return fmt.Errorf("%w by rank %d: %s", errRejected, peer, statusText(st[0]))
	}
	return nil
}

func statusText(s uint8) string {
	switch s {
	case statusBadSecret:
		return "wrong job secret"
	case statusBadSize:
		return "job size mismatch"
	case statusBadRank:
		return "unexpected or duplicate rank"
	}
	return fmt.Sprintf("status %d", s)
}
