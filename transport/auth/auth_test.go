package auth

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"testing"
)

func TestSum(t *testing.T) {
	secret := []byte("job secret")
	a, b := bytes.Repeat([]byte{1}, NonceSize), bytes.Repeat([]byte{2}, NonceSize)
	mac := Sum(secret, "dialer", a, b, Ints(0, 1, 4))
	if len(mac) != MACSize || !Verify(mac, secret, "dialer", a, b, Ints(0, 1, 4)) {
		t.Fatal("own MAC does not verify")
	}
	// The input is length-prefixed fields: check against HMAC computed by hand.
	h := hmac.New(sha256.New, secret)
	h.Write([]byte{0, 0, 0, 0, 0, 0, 0, 1, 'r'})
	h.Write([]byte{0, 0, 0, 0, 0, 0, 0, 2, 'x', 'y'})
	if got, want := hex.EncodeToString(Sum(secret, "r", []byte("xy"))), hex.EncodeToString(h.Sum(nil)); got != want {
		t.Errorf("Sum %s, want %s", got, want)
	}
	for name, ok := range map[string]bool{
		"other secret":   Verify(mac, []byte("job secreT"), "dialer", a, b, Ints(0, 1, 4)),
		"other role":     Verify(mac, secret, "acceptor", a, b, Ints(0, 1, 4)),
		"nonces swapped": Verify(mac, secret, "dialer", b, a, Ints(0, 1, 4)),
		"other ranks":    Verify(mac, secret, "dialer", a, b, Ints(1, 0, 4)),
		"fields moved":   Verify(Sum(secret, "dialer", []byte("ab"), []byte("c")), secret, "dialer", []byte("a"), []byte("bc")),
	} {
		if ok {
			t.Errorf("%s: verified", name)
		}
	}
	n1, err1 := NewNonce()
	n2, err2 := NewNonce()
	if err1 != nil || err2 != nil || len(n1) != NonceSize || bytes.Equal(n1, n2) {
		t.Errorf("nonces %x %x (%v %v)", n1, n2, err1, err2)
	}
}
