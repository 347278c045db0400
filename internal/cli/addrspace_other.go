//go:build !linux

package cli

// checkAddressSpace returns nil: the address space Go's runtime reserves
// at start was measured on Linux only.
func checkAddressSpace() error { return nil }

// LimitMallocArenas does nothing: the malloc arenas it bounds are glibc's
// (Linux).
func LimitMallocArenas() {}
