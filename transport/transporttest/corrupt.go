package transporttest

import (
	"fmt"
	"math/rand/v2"
	"sync"

	"github.com/mpbench/mpbench/transport"
)

// Corrupter injects payload corruption for integrity tests: while armed,
// the next payload a wrapped endpoint delivers (an Eager or Data frame of
// at least one byte) gets one bit flipped at a random offset, after the
// transport has read it and before the runtime sees it, as a fault on the
// wire or in a ring would. The transport's own path (rings, single copy,
// sockets) is untouched. Safe for concurrent use.
type Corrupter struct {
	// Only, when set, limits the flips to the frames it accepts (e.g. a
	// benchmark's messages, not its runner's control messages).
	Only func(transport.Header) bool

	mu    sync.Mutex
	rng   *rand.Rand
	armed bool
	flips []string // one description per flipped bit
}

// NewCorrupter returns a disarmed Corrupter drawing offsets from seed.
func NewCorrupter(seed uint64) *Corrupter {
	return &Corrupter{rng: rand.New(rand.NewPCG(seed, 0x5eed))}
}

// Arm makes the next delivered payload get a flipped bit; Disarm cancels
// an arm not yet used.
func (c *Corrupter) Arm()    { c.set(true) }
func (c *Corrupter) Disarm() { c.set(false) }

func (c *Corrupter) set(armed bool) {
	c.mu.Lock()
	c.armed = armed
	c.mu.Unlock()
}

// Flips returns a description (kind, source, tag, length, offset and bit)
// of every bit flipped so far.
func (c *Corrupter) Flips() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.flips...)
}

// flip flips one random bit of p if armed, and disarms.
func (c *Corrupter) flip(h transport.Header, p []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.armed || len(p) == 0 || c.Only != nil && !c.Only(h) {
		return
	}
	c.armed = false
	off, bit := c.rng.IntN(len(p)), c.rng.IntN(8)
	p[off] ^= 1 << bit
	c.flips = append(c.flips, fmt.Sprintf("%v frame from rank %d, tag %d, %d bytes: bit %d of byte %d", h.Kind, h.Source, h.Tag, len(p), bit, off))
}

// Wrap returns ep with every delivered payload passing through c. The
// wrapper keeps ep's transport.Progresser and transport.SendStarter.
func (c *Corrupter) Wrap(ep transport.Endpoint) transport.Endpoint {
	w := &corruptEndpoint{Endpoint: ep, c: c}
	_, prog := ep.(transport.Progresser)
	_, start := ep.(transport.SendStarter)
	switch {
	case prog && start:
		return struct {
			*corruptEndpoint
			transport.Progresser
			transport.SendStarter
		}{w, ep.(transport.Progresser), ep.(transport.SendStarter)}
	case prog:
		return struct {
			*corruptEndpoint
			transport.Progresser
		}{w, ep.(transport.Progresser)}
	case start:
		return struct {
			*corruptEndpoint
			transport.SendStarter
		}{w, ep.(transport.SendStarter)}
	}
	return w
}

type corruptEndpoint struct {
	transport.Endpoint
	c *Corrupter
}

func (w *corruptEndpoint) Start(h transport.Handler) error {
	return w.Endpoint.Start(&corruptHandler{h: h, c: w.c})
}

type corruptHandler struct {
	h transport.Handler
	c *Corrupter
}

func (ch *corruptHandler) Deliver(h transport.Header, read func([]byte) error) error {
	if h.Kind != transport.Eager && h.Kind != transport.Data || h.Length == 0 {
		return ch.h.Deliver(h, read)
	}
	return ch.h.Deliver(h, func(dst []byte) error {
		err := read(dst)
		if err == nil && dst != nil {
			ch.c.flip(h, dst)
		}
		return err
	})
}

func (ch *corruptHandler) PeerFailed(peer int, err error) {
	if fh, ok := ch.h.(transport.FailureHandler); ok {
		fh.PeerFailed(peer, err)
	}
}
