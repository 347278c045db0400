package shm

import "github.com/mpbench/mpbench/transport"

func init() { transport.Register(driver{}) }

// driver registers the transport as "shm"; it is a transport.ProcessDriver
// and a transport.JobCleaner.
type driver struct{}

var (
	_ transport.ProcessDriver = driver{}
	_ transport.JobCleaner    = driver{}
)

func (driver) Properties() transport.Properties {
	return transport.Properties{
		Name:    "shm",
		Summary: "shared memory between the ranks of one host (Linux)",
		// Eager up to single copy's threshold (DefaultCMABytes): a
		// rendezvous below it costs its RTS/CTS round trip, which with
		// more ranks than CPUs waits for the receiver to be scheduled,
		// and an eager payload streams through the ring as fast
		// (docs/runtime-progress.md, "np 4 after the barrier change,
		// and the eager limit on shared memory").
		EagerBytes:   DefaultCMABytes,
		Reach:        transport.SameHost,
		Progress:     transport.PolledByWaiter,
		Report:       copyPathReport,
		HostShmBytes: hostBytes,
		Settings:     []transport.IntSetting{CMASetting},
	}
}

func (driver) NewJob(n int) ([]transport.Endpoint, error) { return NewJob(n, Options{}) }

// Prepare creates the rank's segment (Prepare), which is the
// transport.Prepared.
func (driver) Prepare(cfg transport.ProcessConfig) (transport.Prepared, error) {
	p, err := Prepare(Options{Rank: cfg.Rank, Size: cfg.Size, Secret: cfg.Secret, CMABytes: cfg.Setting(CMASetting)})
	if err != nil {
		return nil, err
	}
	return p, nil
}

// RemoveJob removes the job's segments left in DefaultDir.
func (driver) RemoveJob(secret []byte) { RemoveJob("", secret) }

// RemoveStale removes segments of dead jobs older than StaleAge.
func (driver) RemoveStale() { RemoveStale("", StaleAge) }

// hostBytes is the space n ranks of one host take in /dev/shm: n segments
// of SegmentBytes(n) bytes; none for fewer than 2 ranks (no peer).
func hostBytes(n int) int64 {
	if n < 2 {
		return 0
	}
	return int64(n) * SegmentBytes(n)
}
