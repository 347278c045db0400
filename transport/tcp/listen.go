package tcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"syscall"
	"time"

	"github.com/mpbench/mpbench/transport"
)

// Listener is a rank's bound TCP port before the mesh is built.
type Listener struct {
	opts Options
	ln   *net.TCPListener
}

// Listen validates o and binds the rank's TCP port on o.Addr. The caller
// publishes Addr to the other ranks and then calls Connect, or Close to give
// up.
func Listen(o Options) (*Listener, error) {
	opts, err := o.withDefaults()
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", opts.Addr)
	if err != nil {
		return nil, fmt.Errorf("tcp: rank %d: %w%s", opts.Rank, err, transport.LocalPortHint(err))
	}
	return &Listener{opts: opts, ln: ln.(*net.TCPListener)}, nil
}

// Addr is the "host:port" peers dial to reach this rank.
func (l *Listener) Addr() string { return l.ln.Addr().String() }

// Close releases the port; use it only if Connect is not called.
func (l *Listener) Close() error { return l.ln.Close() }

// Connect builds the full mesh: addrs[r] is rank r's Listener.Addr for every
// rank (len(addrs) == Size). This rank dials every higher rank and accepts
// every lower one. An empty addrs[r] leaves rank r out (another transport
// reaches it, e.g. shared memory on the same host): rank r must leave this
// rank out likewise, and Sends to a left-out rank fail. Connect returns when a connection to each peer has passed
// the handshake, or with an error naming the failing peer when ctx ends or a
// peer rejects the handshake. The listener is closed in every case.
func (l *Listener) Connect(ctx context.Context, addrs []string) (*Endpoint, error) {
	o := &l.opts
	if len(addrs) != o.Size {
		l.ln.Close()
		return nil, fmt.Errorf("tcp: %d peer addresses for a job of %d ranks", len(addrs), o.Size)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	conns := make([]*net.TCPConn, o.Size)
	var (
		mu       sync.Mutex
		firstErr error
		wg       sync.WaitGroup
	)
	fail := func(err error) {
		mu.Lock()
		if firstErr == nil {
			firstErr = err
		}
		mu.Unlock()
		cancel()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		if err := l.acceptLower(ctx, addrs, conns, &mu); err != nil {
			fail(err)
		}
	}()
	for peer := o.Rank + 1; peer < o.Size; peer++ {
		if addrs[peer] == "" {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := l.dial(ctx, peer, addrs[peer])
			if err != nil {
				fail(fmt.Errorf("tcp: rank %d connecting to rank %d at %s: %w", o.Rank, peer, addrs[peer], err))
				return
			}
			mu.Lock()
			conns[peer] = c
			mu.Unlock()
		}()
	}
	// Unblock Accept when ctx ends.
	stop := context.AfterFunc(ctx, func() { l.ln.Close() })
	wg.Wait()
	stop()
	l.ln.Close()
	if firstErr != nil {
		for _, c := range conns {
			if c != nil {
				c.Close()
			}
		}
		return nil, firstErr
	}
	return newEndpoint(o, conns, ranksOnHost(l.Addr(), addrs))
}

// ranksOnHost counts the ranks whose address has the host of addr (this
// rank's), this rank included.
func ranksOnHost(addr string, addrs []string) int {
	host, _, _ := net.SplitHostPort(addr)
	n := 0
	for _, a := range addrs {
		if h, _, err := net.SplitHostPort(a); err == nil && h == host {
			n++
		}
	}
	return max(n, 1)
}

// acceptLower accepts until every lower rank has connected and passed the
// handshake. Each connection's handshake runs on its own goroutine, so a
// connection that sends nothing (a port scanner, a stranger) holds only
// itself, for at most HandshakeTimeout, never the ranks behind it.
// Connections that fail the handshake are answered, closed and otherwise
// ignored; those still in their handshake when every rank is in are closed.
func (l *Listener) acceptLower(ctx context.Context, addrs []string, conns []*net.TCPConn, mu *sync.Mutex) error {
	o := &l.opts
	need := 0
	for r := range o.Rank {
		if addrs[r] != "" {
			need++
		}
	}
	if need == 0 {
		return nil
	}
	claimed := make(chan struct{}, need) // one per rank whose handshake passed
	acceptErr := make(chan error, 1)
	var (
		pendMu  sync.Mutex
		pending = map[*net.TCPConn]bool{}
		stopped bool
	)
	go func() {
		for {
			c, err := l.ln.AcceptTCP()
			if err != nil {
				var ne net.Error
				if errors.As(err, &ne) && ne.Timeout() {
					continue
				}
				acceptErr <- err
				return
			}
			pendMu.Lock()
			if stopped {
				pendMu.Unlock()
				c.Close()
				continue
			}
			pending[c] = true
			pendMu.Unlock()
			go func() {
				ok := l.acceptHandshake(c, addrs, conns, mu)
				pendMu.Lock()
				delete(pending, c)
				pendMu.Unlock()
				if ok {
					claimed <- struct{}{}
				} else {
					c.Close()
				}
			}()
		}
	}()
	defer func() {
		pendMu.Lock()
		stopped = true
		for c := range pending {
			c.Close() // a stranger's handshake in progress
		}
		pendMu.Unlock()
	}()
	for ; need > 0; need-- {
		select {
		case <-claimed:
		case err := <-acceptErr:
			if ctx.Err() != nil {
				return fmt.Errorf("tcp: rank %d waiting for lower ranks %v: %w", o.Rank, missing(addrs, conns, mu, 0, o.Rank), context.Cause(ctx))
			}
			return fmt.Errorf("tcp: rank %d accept: %w", o.Rank, err)
		}
	}
	return nil
}

// acceptHandshake runs the acceptor's side of the handshake on c; a rank
// that passes it is stored in conns before the final status goes out, so
// that a second connection claiming the same rank is refused. A refused
// connection is reported to Options.Refused.
func (l *Listener) acceptHandshake(c *net.TCPConn, addrs []string, conns []*net.TCPConn, mu *sync.Mutex) bool {
	o := &l.opts
	c.SetDeadline(time.Now().Add(o.HandshakeTimeout))
	rankOK := func(r int) bool {
		mu.Lock()
		defer mu.Unlock()
		return r >= 0 && r < o.Rank && addrs[r] != "" && conns[r] == nil
	}
	claim := func(r int) bool {
		mu.Lock()
		defer mu.Unlock()
		if conns[r] != nil {
			return false
		}
		conns[r] = c
		return true
	}
	_, err := o.acceptHello(c, rankOK, claim)
	if err == nil {
		err = o.tune(c)
	}
	if err != nil {
		mu.Lock()
		for r := range conns {
			if conns[r] == c {
				conns[r] = nil // claimed, then failed
			}
		}
		mu.Unlock()
		// A handshake cut by acceptLower closing c (every rank is in, or
		// the wire-up ended) was not refused, and a peer that hung up
		// mid-handshake (a rank that died while dialling: the launcher
		// names its death) refused nothing either: nothing to report.
		if o.Refused != nil && !errors.Is(err, net.ErrClosed) && !hungUp(err) {
			o.Refused(c.RemoteAddr().String(), err)
		}
		return false
	}
	c.SetDeadline(time.Time{})
	return true
}

// hungUp reports whether err says the other side ended the connection
// (end of stream, reset, broken pipe) rather than sent something wrong.
func hungUp(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}

// dial connects to peer at addr, retrying refused or dropped connections with
// exponential backoff until ctx ends, and runs the dialer's handshake.
func (l *Listener) dial(ctx context.Context, peer int, addr string) (*net.TCPConn, error) {
	var d net.Dialer
	backoff := 5 * time.Millisecond
	for {
		c, err := d.DialContext(ctx, "tcp", addr)
		if err == nil {
			err = l.dialHandshake(ctx, c.(*net.TCPConn), peer)
			if err == nil {
				return c.(*net.TCPConn), nil
			}
			c.Close()
			if errors.Is(err, errRejected) {
				return nil, err
			}
		}
		t := time.NewTimer(backoff)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, fmt.Errorf("%w (last attempt: %v)%s", context.Cause(ctx), err, transport.LocalPortHint(err))
		case <-t.C:
		}
		backoff = min(2*backoff, time.Second)
	}
}

// dialHandshake runs the dialer's side of the handshake on c, for at most
// HandshakeTimeout and never past the end of ctx: a peer stopped in the
// middle of its answer does not hold Connect after the wire-up's limit.
func (l *Listener) dialHandshake(ctx context.Context, c *net.TCPConn, peer int) error {
	o := &l.opts
	c.SetDeadline(time.Now().Add(o.HandshakeTimeout))
	stop := context.AfterFunc(ctx, func() { c.SetDeadline(time.Now()) })
	err := o.dialHello(c, peer)
	if err == nil {
		err = o.tune(c)
	}
	if !stop() && err == nil {
		err = context.Cause(ctx) // the deadline may already be cut short
	}
	if err != nil {
		return err
	}
	return c.SetDeadline(time.Time{})
}

// missing lists the ranks in [lo, hi) without a connection (and not left
// out).
func missing(addrs []string, conns []*net.TCPConn, mu *sync.Mutex, lo, hi int) []int {
	mu.Lock()
	defer mu.Unlock()
	var m []int
	for r := lo; r < hi; r++ {
		if addrs[r] != "" && conns[r] == nil {
			m = append(m, r)
		}
	}
	return m
}
