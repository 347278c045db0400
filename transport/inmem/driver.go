package inmem

import (
	"fmt"

	"github.com/mpbench/mpbench/transport"
)

func init() { transport.Register(driver{}) }

// driver registers the transport as "inmem".
type driver struct{}

func (driver) Properties() transport.Properties {
	return transport.Properties{
		Name:     "inmem",
		Summary:  "goroutine ranks of one process, for tests",
		Reach:    transport.SameProcess,
		Progress: transport.DeliverOnSend,
	}
}

func (driver) NewJob(n int) ([]transport.Endpoint, error) {
	if n < 1 {
		return nil, fmt.Errorf("inmem: job of %d ranks: need at least 1", n)
	}
	return New(n), nil
}
