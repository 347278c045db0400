//go:build !linux

package launch

// exitedAddressSpaceLimit returns 0: the limit of an exited process is read
// from Linux's /proc only.
func exitedAddressSpaceLimit(pid int, name string) uint64 { return 0 }
