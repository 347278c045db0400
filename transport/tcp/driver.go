package tcp

import (
	"context"
	"fmt"

	"github.com/mpbench/mpbench/transport"
)

func init() { transport.Register(driver{}) }

// EagerBytes is the eager threshold in bytes the runtime uses over TCP: a
// rendezvous round trip costs about as much as 100 KiB on the wire, and
// with 4 MiB socket buffers eager sends measured faster up to 256 KiB.
const EagerBytes = 256 << 10

// EnvSocketBuffer names the environment variable that sets
// Options.SocketBufferBytes for ranks started by a launcher: bytes > 0, or
// -1 for the kernel's default.
const EnvSocketBuffer = "MPBENCH_SOCKBUF"

// driver registers the transport as "tcp"; it is a transport.ProcessDriver.
type driver struct{}

var _ transport.ProcessDriver = driver{}

func (driver) Properties() transport.Properties {
	return transport.Properties{
		Name:       "tcp",
		Summary:    "TCP between ranks on any hosts (loopback on one)",
		EagerBytes: EagerBytes,
		Reach:      transport.AnyHost,
		Progress:   transport.PolledByWaiter,
		Settings:   []transport.IntSetting{socketBufferSetting},
	}
}

func (driver) NewJob(n int) ([]transport.Endpoint, error) { return NewJob(n, Options{}) }

// socketBufferSetting is EnvSocketBuffer: 0 when unset.
var socketBufferSetting = transport.IntSetting{Env: EnvSocketBuffer, Want: "a socket buffer size in bytes > 0, or -1 for the kernel default",
	Valid: func(n int) bool { return n > 0 || n == -1 }}

// Prepare binds the rank's port on cfg.Addr (Listen); its address is the
// port's "host:port".
func (driver) Prepare(cfg transport.ProcessConfig) (transport.Prepared, error) {
	sockBuf, err := socketBufferSetting.Read(cfg.Getenv)
	if err != nil {
		return nil, err
	}
	o := Options{Rank: cfg.Rank, Size: cfg.Size, Secret: cfg.Secret, Addr: cfg.Addr, SocketBufferBytes: sockBuf}
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
