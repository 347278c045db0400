package shm

import (
	"context"

	"github.com/mpbench/mpbench/transport"
)

func init() { transport.Register(driver{}) }

// EagerBytes is the eager threshold in bytes the runtime uses over shared
// memory: payloads from DefaultCMABytes on are read by single copy, so
// eager and rendezvous copy alike and rendezvous only adds two small frames;
// eager up to 64 KiB measured fastest, rendezvous beyond (a large eager
// payload may have to be copied into an unexpected-message buffer first).
const EagerBytes = 64 << 10

// EnvCMA names the environment variable that sets Options.CMABytes for
// ranks started by a launcher: the smallest payload in bytes read by single
// copy, -1 to copy every payload through the rings.
const EnvCMA = "MPBENCH_SHM_CMA"

// driver registers the transport as "shm"; it is a transport.ProcessDriver
// and a transport.JobCleaner.
type driver struct{}

var (
	_ transport.ProcessDriver = driver{}
	_ transport.JobCleaner    = driver{}
)

func (driver) Properties() transport.Properties {
	return transport.Properties{
		Name:       "shm",
		Summary:    "shared memory between the ranks of one host (Linux)",
		EagerBytes: EagerBytes,
		Reach:      transport.SameHost,
		Progress:   transport.PolledByWaiter,
		Report:     copyPathReport,
		Settings:   []transport.IntSetting{cmaSetting},
	}
}

func (driver) NewJob(n int) ([]transport.Endpoint, error) { return NewJob(n, Options{}) }

// cmaSetting is EnvCMA: 0 when unset.
var cmaSetting = transport.IntSetting{Env: EnvCMA, Want: "the smallest payload in bytes read by single copy, or -1 to copy through the rings"}

// Prepare creates the rank's segment (Prepare); its address is empty: the
// ranks of one host find each other's segments by the job secret.
func (driver) Prepare(cfg transport.ProcessConfig) (transport.Prepared, error) {
	cma, err := cmaSetting.Read(cfg.Getenv)
	if err != nil {
		return nil, err
	}
	p, err := Prepare(Options{Rank: cfg.Rank, Size: cfg.Size, Secret: cfg.Secret, CMABytes: cma})
	if err != nil {
		return nil, err
	}
	return prepared{p}, nil
}

// RemoveJob removes the job's segments left in DefaultDir.
func (driver) RemoveJob(secret []byte) { RemoveJob("", secret) }

// RemoveStale removes segments of dead jobs older than StaleAge.
func (driver) RemoveStale() { RemoveStale("", StaleAge) }

// prepared is a Pending seen as a transport.Prepared.
type prepared struct{ p *Pending }

func (prepared) Addr() string { return "" }

func (p prepared) Abort() { p.p.Abort() }

// Connect attaches the segments of the ranks in reach (Attach).
func (p prepared) Connect(ctx context.Context, _ []string, reach []bool) (transport.Endpoint, error) {
	ep, err := p.p.Attach(ctx, reach)
	if err != nil {
		return nil, err
	}
	return ep, nil
}
