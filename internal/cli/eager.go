package cli

import "github.com/mpbench/mpbench/comm"

// defaultEager is the eager threshold in bytes for a transport when --eager
// is not given, chosen from PingPong measurements on loopback (see
// bench/compare.sh): over shared memory payloads from 16 KiB on are read
// by single copy, so rendezvous costs only its two extra frames; over TCP
// the extra round trip of rendezvous costs more than buffering a message up
// to 64 KiB.
func defaultEager(transport string) int {
	switch transport {
	case "shm":
		return comm.DefaultEagerLimit
	}
	return comm.DefaultEagerLimit
}
