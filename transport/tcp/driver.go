package tcp

import (
	"context"
	"fmt"

	"github.com/mpbench/mpbench/transport"
)

func init() { transport.Register(driver{}) }

// driver registers the transport as "tcp"; it is a transport.ProcessDriver.
type driver struct{}

var _ transport.ProcessDriver = driver{}

func (driver) Properties() transport.Properties {
	return transport.Properties{
		Name:    "tcp",
		Summary: "TCP between ranks on any hosts (loopback on one)",
		// A rendezvous round trip costs about as much as 100 KiB on the
		// wire, and with 4 MiB socket buffers eager sends measured faster
		// up to 256 KiB.
		EagerBytes: 256 << 10,
		Reach:      transport.AnyHost,
		Progress:   transport.PolledByWaiter,
		Settings:   []transport.IntSetting{SocketBufferSetting},
	}
}

func (driver) NewJob(n int) ([]transport.Endpoint, error) { return NewJob(n, Options{}) }

// Prepare binds the rank's port on cfg.Addr (Listen); its address is the
// port's "host:port".
func (driver) Prepare(cfg transport.ProcessConfig) (transport.Prepared, error) {
	o := Options{Rank: cfg.Rank, Size: cfg.Size, Secret: cfg.Secret, Addr: cfg.Addr, SocketBufferBytes: cfg.Setting(SocketBufferSetting)}
	if cfg.Refused != nil {
		where := fmt.Sprintf("rank %d's TCP port", cfg.Rank)
		o.Refused = func(remote string, reason error) { cfg.Refused(where, remote, reason) }
	}
	ln, err := Listen(o)
	if err != nil {
		return nil, err
	}
	return prepared{ln}, nil
}

// prepared is a Listener seen as a transport.Prepared.
type prepared struct{ ln *Listener }

func (p prepared) Addr() string { return p.ln.Addr() }

func (p prepared) Abort() { p.ln.Close() }

// Connect builds the mesh to the ranks in reach (Listener.Connect).
func (p prepared) Connect(ctx context.Context, addrs []string, reach []bool) (transport.Endpoint, error) {
	if len(addrs) != len(reach) {
		p.ln.Close()
		return nil, fmt.Errorf("tcp: %d addresses and %d reach flags", len(addrs), len(reach))
	}
	view := make([]string, len(addrs))
	for r := range addrs {
		if reach[r] {
			view[r] = addrs[r]
		}
	}
	if r := p.ln.opts.Rank; r < len(view) {
		view[r] = p.ln.Addr()
	}
	ep, err := p.ln.Connect(ctx, view)
	if err != nil {
		return nil, err
	}
	return ep, nil
}
