// Package auth proves, on a new connection between two processes of one
// job, that each side holds the job secret, without sending the secret:
// challenge and response with HMAC-SHA256 over fresh nonces.
//
// Each side sends a fresh random nonce (NonceSize bytes), then a MAC
// (MACSize bytes) computed by Sum over its role, both nonces and the
// connection's context (ranks, job size, addresses: whatever both sides
// must agree on). A side accepts the other once Verify passes for the
// other's role. Roles differ per side ("tcp dialer", "tcp acceptor", ...),
// so a MAC cannot be reflected back to the side that made it, and fresh
// nonces on both sides make a recorded exchange useless later. This is the
// mutual authentication of RFC 2104 HMAC in a challenge-response exchange
// as in ISO/IEC 9798-4; the MAC key is the job secret itself.
package auth

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
)

// NonceSize is the length of a nonce in bytes (256 bits).
const NonceSize = 32

// MACSize is the length of a MAC in bytes (HMAC-SHA256).
const MACSize = sha256.Size

// NewNonce returns NonceSize random bytes from crypto/rand.
func NewNonce() ([]byte, error) {
	n := make([]byte, NonceSize)
	if _, err := rand.Read(n); err != nil {
		return nil, fmt.Errorf("auth: nonce: %w", err)
	}
	return n, nil
}

// Sum is HMAC-SHA256 keyed with secret over role and then each part, every
// field preceded by its length (8 bytes, big endian) so that no two
// different sequences of fields give the same input.
func Sum(secret []byte, role string, parts ...[]byte) []byte {
	m := hmac.New(sha256.New, secret)
	var l [8]byte
	for _, p := range append([][]byte{[]byte(role)}, parts...) {
		binary.BigEndian.PutUint64(l[:], uint64(len(p)))
		m.Write(l[:])
		m.Write(p)
	}
	return m.Sum(nil)
}

// Verify reports whether mac is Sum(secret, role, parts...), comparing in
// constant time.
func Verify(mac, secret []byte, role string, parts ...[]byte) bool {
	return hmac.Equal(mac, Sum(secret, role, parts...))
}

// Ints encodes integers (ranks, sizes) as one MAC part.
func Ints(v ...int) []byte {
	b := make([]byte, 8*len(v))
	for i, x := range v {
		binary.BigEndian.PutUint64(b[8*i:], uint64(int64(x)))
	}
	return b
}
