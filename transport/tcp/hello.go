package tcp

import (
	"crypto/subtle"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

const (
	helloMagic   = "MPBT"
	helloVersion = 1
	helloSize    = 16
)

// Handshake status codes (byte 5 of a hello).
const (
	statusOK        = 0
	statusBadSecret = 1
	statusBadSize   = 2
	statusBadRank   = 3
)

// errRejected marks a handshake the other side refused; dialing does not
// retry it.
var errRejected = errors.New("handshake rejected")

// hello is the first message in each direction of a connection.
type hello struct {
	status uint8
	rank   int
	size   int
	secret []byte
}

func (h *hello) write(w io.Writer) error {
	b := make([]byte, helloSize+len(h.secret))
	copy(b, helloMagic)
	b[4] = helloVersion
	b[5] = h.status
	binary.LittleEndian.PutUint16(b[6:], uint16(len(h.secret)))
	binary.LittleEndian.PutUint32(b[8:], uint32(h.rank))
	binary.LittleEndian.PutUint32(b[12:], uint32(h.size))
	copy(b[helloSize:], h.secret)
	_, err := w.Write(b)
	return err
}

func readHello(r io.Reader) (hello, error) {
	var b [helloSize]byte
	if _, err := io.ReadFull(r, b[:]); err != nil {
		return hello{}, fmt.Errorf("reading hello: %w", err)
	}
	if string(b[:4]) != helloMagic || b[4] != helloVersion {
		return hello{}, fmt.Errorf("not an mpbench tcp peer (magic %q version %d)", b[:4], b[4])
	}
	h := hello{
		status: b[5],
		rank:   int(int32(binary.LittleEndian.Uint32(b[8:]))),
		size:   int(int32(binary.LittleEndian.Uint32(b[12:]))),
	}
	n := int(binary.LittleEndian.Uint16(b[6:]))
	if n > MaxSecretBytes {
		return hello{}, fmt.Errorf("secret of %d bytes exceeds %d", n, MaxSecretBytes)
	}
	h.secret = make([]byte, n)
	if _, err := io.ReadFull(r, h.secret); err != nil {
		return hello{}, fmt.Errorf("reading hello secret: %w", err)
	}
	return h, nil
}

// check validates a peer's hello against this job: size, secret (constant
// time) and that the rank satisfies rankOK. It returns the status to answer.
func (h *hello) check(o *Options, rankOK func(int) bool) (uint8, error) {
	switch {
	case subtle.ConstantTimeCompare(h.secret, o.Secret) != 1:
		return statusBadSecret, errors.New("wrong job secret")
	case h.size != o.Size:
		return statusBadSize, fmt.Errorf("peer says job size %d, this rank has %d", h.size, o.Size)
	case !rankOK(h.rank):
		return statusBadRank, fmt.Errorf("unexpected peer rank %d", h.rank)
	}
	return statusOK, nil
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
