package shm

import (
	"crypto/sha256"
	"encoding/hex"
)

// JobPrefix returns the file name prefix of every segment of the job with
// this secret: "mpbench-" and 16 hex digits of SHA-256("mpbench-shm\x00" +
// secret). It does not reveal the secret, and a launcher that knows the
// secret can remove whatever a crashed job left behind (RemoveJob).
func JobPrefix(secret []byte) string {
	sum := sha256.Sum256(append([]byte("mpbench-shm\x00"), secret...))
	return "mpbench-" + hex.EncodeToString(sum[:8]) + "-"
}
