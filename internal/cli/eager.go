package cli

import "github.com/mpbench/mpbench/comm"

// Eager thresholds in bytes per transport, used when --eager is not given.
// Chosen from PingPong at 16 KiB to 256 KiB with --eager 8192, 65536 and
// 262144 on loopback (2 cores, Go 1.26):
//   - shm: payloads from 16 KiB on are read by single copy, so eager and
//     rendezvous both copy once and rendezvous costs only two small frames;
//     eager up to 64 KiB was fastest there (64 KiB: 6.0 µs eager against
//     8-9 µs by rendezvous) and rendezvous beyond (256 KiB: 18 µs against
//     30-100 µs eager, whose copy into an unexpected buffer may be needed).
//   - tcp: a rendezvous round trip costs about as much as 100 KiB on the
//     wire; with 4 MiB socket buffers eager up to 256 KiB was faster
//     (128 KiB: 110-120 µs against 165-210 µs; 256 KiB: 130-150 µs against
//     200-230 µs).
const (
	eagerShm = comm.DefaultEagerLimit // 65536
	eagerTCP = 256 << 10
)

// defaultEager is the eager threshold in bytes for the transport named
// ("shm", "tcp", "shm+tcp"); a job mixing transports takes the smaller.
func defaultEager(transport string) int {
	switch transport {
	case "tcp":
		return eagerTCP
	case "shm", "shm+tcp":
		return eagerShm
	}
	return comm.DefaultEagerLimit
}
