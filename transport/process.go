package transport

import (
	"cmp"
	"context"
	"slices"
)

// ProcessDriver is a registered transport whose ranks are separate
// processes, wired up by a launcher (mpbench's, or a PMI launcher) in two
// steps: every rank prepares its side (creates a segment, binds a port) and
// publishes Prepared.Addr; once it has every rank's address it connects.
// Package launch builds every job's endpoint through this interface, so a
// registered transport that implements it is available to `mpbench run
// --transport NAME` and to auto, without launch naming it.
type ProcessDriver interface {
	Driver
	// Prepare readies this rank's side of a job. It is called before the
	// rank publishes its address, so that what peers look for exists when
	// they look. Errors say why the transport cannot run here.
	Prepare(cfg ProcessConfig) (Prepared, error)
}

// ProcessConfig is what a launcher tells a ProcessDriver about the rank.
type ProcessConfig struct {
	// Rank and Size place the rank in the job, 0 <= Rank < Size.
	Rank, Size int
	// Secret is the job secret every connection or segment must prove.
	Secret []byte
	// Addr is the IP address of this host's interface that a network
	// transport binds and advertises, e.g. "10.0.0.2".
	Addr string
	// Settings are the values of the transports' own settings
	// (Properties.Settings) by variable name, read and checked by the
	// launcher (ReadSettings); see Setting.
	Settings map[string]int
	// Refused, if not nil, is told of every incoming connection that failed
	// the transport's handshake (a stranger, another job): where says what
	// was connected to ("rank 3's TCP port"), then the remote address and
	// the reason. The rank goes on waiting.
	Refused func(where, remote string, reason error)
}

// Setting returns the value of the transport's setting s that the
// launcher read: 0 (the transport's default) when unset.
func (c ProcessConfig) Setting(s IntSetting) int { return c.Settings[s.Env] }

// Prepared is one rank's side of a transport between Prepare and Connect.
type Prepared interface {
	// Addr is what a peer needs, besides being on the same host for a
	// SameHost transport, to reach this rank ("" if nothing), e.g. tcp's
	// "host:port". It must not contain ';' or '='.
	Addr() string
	// Connect reaches every rank r with reach[r] true, whose address is
	// addrs[r] (len(addrs) == len(reach) == Size; this rank's own entries
	// are ignored). Every such rank r connects to this rank with the same
	// transport at the same time. It returns the endpoint, not yet
	// started, or an error naming the peer or step; in every case what
	// Prepare made is released or owned by the endpoint.
	Connect(ctx context.Context, addrs []string, reach []bool) (Endpoint, error)
	// Abort releases what Prepare made, instead of Connect.
	Abort()
}

// JobCleaner is implemented by a ProcessDriver whose ranks leave files on
// the host that outlive a crashed rank (shared-memory segments). The
// launcher calls RemoveStale before a job and RemoveJob after it.
type JobCleaner interface {
	// RemoveJob removes what the ranks of the job with this secret left
	// on this host.
	RemoveJob(secret []byte)
	// RemoveStale removes what jobs whose launcher died left on this host.
	RemoveStale()
}

// ProcessDrivers returns the registered transports mpbench's launcher
// starts ranks on, narrowest reach first (a SameHost transport before an
// AnyHost one), then by name: the order in which a rank prefers them for a
// peer that several reach.
func ProcessDrivers() []ProcessDriver {
	var out []ProcessDriver
	for _, d := range Drivers() { // sorted by name
		if pd, ok := d.(ProcessDriver); ok {
			out = append(out, pd)
		}
	}
	slices.SortStableFunc(out, func(a, b ProcessDriver) int { return cmp.Compare(a.Properties().Reach, b.Properties().Reach) })
	return out
}
