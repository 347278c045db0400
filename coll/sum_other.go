//go:build !amd64

package coll

// sumBlocks has no vector kernel on this architecture: Go's scalar loop
// sums every element (combineAs).
func sumBlocks(dt Datatype, dst, a, b []byte) int { return 0 }

// hasVectorSum reports whether sumBlocks has a kernel on this CPU.
func hasVectorSum() bool { return false }
