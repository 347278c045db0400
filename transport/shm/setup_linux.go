package shm

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"github.com/mpbench/mpbench/transport"
	"github.com/mpbench/mpbench/transport/internal/busypoll"
)

// Pending is a rank's segment, created but not yet connected to its
// peers' segments.
type Pending struct {
	opts   Options
	g      geometry
	path   string
	own    view
	killed *atomic.Bool // the endpoint's Kill flag, in inProcess until attached
}

// Prepare validates o and creates this rank's segment file
// (Dir/JobPrefix(Secret)+rank, mode 0600, exclusive). Call it before the
// rank publishes its address, so that peers find the file; then Attach, or
// Abort to give up.
func Prepare(o Options) (*Pending, error) {
	opts, err := o.withDefaults()
	if err != nil {
		return nil, err
	}
	g := newGeometry(opts.Size, opts.RingBytes)
	path := segmentPath(opts.Dir, opts.Secret, opts.Rank)
	killed := new(atomic.Bool)
	inProcess.Store(path, killed) // before the file: a peer that finds the file finds this
	v, err := createSegment(path, g, opts.Rank)
	if err != nil {
		inProcess.Delete(path)
		return nil, err
	}
	return &Pending{opts: opts, g: g, path: path, own: v, killed: killed}, nil
}

// Path is the segment file's path (it is unlinked by Attach).
func (p *Pending) Path() string { return p.path }

// Abort unlinks and unmaps the segment.
func (p *Pending) Abort() {
	inProcess.Delete(p.path)
	unix.Unlink(p.path)
	unix.Munmap(p.own.mem)
}

// Addr is "" (a transport.Prepared's address): the ranks of one host
// find each other's segments by the job secret.
func (p *Pending) Addr() string { return "" }

// Connect attaches the segments of the ranks in reach (Attach), as a
// transport.Prepared; addrs are not needed.
func (p *Pending) Connect(ctx context.Context, _ []string, reach []bool) (transport.Endpoint, error) {
	ep, err := p.Attach(ctx, reach)
	if err != nil {
		return nil, err
	}
	return ep, nil
}

// Attach maps the segment of every rank r with local[r] true (len(local) ==
// Size; this rank's own entry is ignored), registers with it, waits until
// every such peer has mapped this rank's segment and then unlinks the file:
// from then on nothing is left in Dir even if a rank crashes. It probes
// whether process_vm_readv may read each peer's memory (single copy; the
// answer per peer is Endpoint.CopyPath) and returns the endpoint, not yet
// started. Errors name the peer or step; on error the segment is removed.
func (p *Pending) Attach(ctx context.Context, local []bool) (*Endpoint, error) {
	o := &p.opts
	if len(local) != o.Size {
		p.Abort()
		return nil, fmt.Errorf("shm: %d locality flags for a job of %d ranks", len(local), o.Size)
	}
	e := &Endpoint{
		rank: o.Rank, size: o.Size, own: p.own,
		in: make([]*inPeer, o.Size), out: make([]*outPeer, o.Size), live: make([]*liveness, o.Size),
		spin: o.Spin, cmaMin: o.CMABytes, pollerDone: make(chan struct{}), kick: make(chan struct{}, 1),
		verify: o.Verify || transport.VerifyFromEnv(), killed: p.killed,
	}
	nLocal := 1
	for r, l := range local {
		if l && r != o.Rank {
			nLocal++
		}
	}
	e.oversubscribed = busypoll.Oversubscribed(nLocal)
	if o.Spin == 0 {
		e.spin = busypoll.Budget(nLocal)
	}
	for r, l := range local {
		if !l || r == o.Rank {
			continue
		}
		v, err := openPeer(ctx, segmentPath(o.Dir, o.Secret, r), p.g, r)
		if err != nil {
			p.Abort()
			return nil, err
		}
		e.live[r] = openLiveness(int(v.ctl().pid))
		if f, ok := inProcess.Load(segmentPath(o.Dir, o.Secret, r)); ok {
			e.live[r].killed = f.(*atomic.Bool) // looked up before the peer learns we attached
		}
		v.ctl().attached.Add(1)
		hdr, data := v.ring(o.Rank)
		e.out[r] = &outPeer{rank: r, dst: v, hdr: hdr, data: data, tail: hdr.tail.Load(), headSeen: hdr.head.Load(), cmaSent: hdr.acks.Load()}
		e.outList = append(e.outList, e.out[r])
		ihdr, idata := p.own.ring(r)
		in := &inPeer{e: e, rank: r, hdr: ihdr, space: &ihdr.space, data: idata}
		in.readFn = in.read
		e.in[r] = in
		e.inList = append(e.inList, in)
	}
	if err := p.waitAttached(ctx, e, uint32(nLocal-1)); err != nil {
		p.Abort()
		return nil, err
	}
	unix.Unlink(p.path)
	inProcess.Delete(p.path) // every peer has looked it up
	probe := o.probe
	if probe == nil {
		probe = cmaProbe
	}
	e.paths = make([]CopyPath, o.Size)
	for _, in := range e.inList {
		e.paths[in.rank] = PathOff
		if o.CMABytes > 0 {
			e.paths[in.rank] = probe(e.live[in.rank].pid, e.out[in.rank].dst.ctl())
		}
		if e.paths[in.rank] == PathSingle {
			p.own.cmaFrom(in.rank).Store(1)
		}
	}
	return e, nil
}

// openPeer opens rank r's segment, retrying while the file does not exist
// yet, until ctx ends.
func openPeer(ctx context.Context, path string, g geometry, r int) (view, error) {
	for {
		v, err := openSegment(path, g, r)
		if err == nil || !errors.Is(err, os.ErrNotExist) {
			return v, err
		}
		select {
		case <-ctx.Done():
			return view{}, fmt.Errorf("%w (waiting for it: %v)", err, context.Cause(ctx))
		case <-time.After(time.Millisecond):
		}
	}
}

// waitAttached waits until want peers have mapped this rank's segment.
func (p *Pending) waitAttached(ctx context.Context, e *Endpoint, want uint32) error {
	c := p.own.ctl()
	for c.attached.Load() < want {
		for _, l := range e.live {
			if l != nil && l.dead() {
				return fmt.Errorf("shm: rank %d: peer process %d ended during start-up", p.opts.Rank, l.pid)
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("shm: rank %d: %d of %d peers on this host mapped its segment: %w", p.opts.Rank, c.attached.Load(), want, context.Cause(ctx))
		case <-time.After(200 * time.Microsecond):
		}
	}
	return nil
}
