package comm

import "fmt"

// Tags: user messages use 0..MaxTag. Negative tags from -2 down to
// MinReservedTag are reserved for the runtime and collectives: they travel
// in a separate context of the communicator, so they never match receives
// with user tags, not even AnyTag ones (which match user tags only), and a
// receive for a reserved tag names it exactly. -1 is AnyTag. Package coll
// runs its collectives on CollectiveComm instead, a whole separate space.

// MinReservedTag is the smallest reserved (negative) tag accepted by the
// World's Send, Recv and friends.
const MinReservedTag = -MaxTag - 2

// wireTag maps a tag given to a send or receive on c to its context and
// wire tag (>= 0); AnyTag stays AnyTag in the user context.
func (c *communicator) wireTag(tag int) (ctx uint32, wire int32) {
	if tag >= 0 || tag == AnyTag {
		return c.ctx(c.kinds.user), int32(tag)
	}
	return c.ctx(c.kinds.reserved), int32(-tag - 2)
}

// userTag maps a wire tag received on context ctx back to the tag the
// sender used.
func userTag(ctx uint32, wire int32) int {
	if k := ctx % ctxKinds; k == ctxReserved || k == ctxCollReserved {
		return -int(wire) - 2
	}
	return int(wire)
}

// checkTag validates a tag; wild allows AnyTag (receives).
func checkTag(op string, tag int, wild bool) error {
	if tag > MaxTag || tag < MinReservedTag || (tag == AnyTag && !wild) {
		accepted := "0..MaxTag"
		if wild {
			accepted += " or AnyTag"
		}
		return fmt.Errorf("comm: %s with tag %d: %w (want %s, %d, or reserved %d..-2)", op, tag, ErrTag, accepted, MaxTag, MinReservedTag)
	}
	return nil
}

// sendArgs validates the destination and tag of a send and returns the
// destination's world rank, context and wire tag.
func (c *communicator) sendArgs(op string, dest, tag int) (int, uint32, int32, error) {
	if dest < 0 || dest >= c.size {
		return 0, 0, 0, fmt.Errorf("comm: %s to rank %d: %w (want 0..%d)", op, dest, ErrRank, c.size-1)
	}
	if err := checkTag(op, tag, false); err != nil {
		return 0, 0, 0, err
	}
	ctx, wire := c.wireTag(tag)
	return c.world[dest], ctx, wire, nil
}

// recvArgs validates the source and tag of a receive and returns the
// source's world rank (or AnySource), context and wire tag (or AnyTag).
func (c *communicator) recvArgs(op string, source, tag int) (int, uint32, int32, error) {
	if (source < 0 || source >= c.size) && source != AnySource {
		return 0, 0, 0, fmt.Errorf("comm: %s from rank %d: %w (want 0..%d or AnySource)", op, source, ErrRank, c.size-1)
	}
	if err := checkTag(op, tag, true); err != nil {
		return 0, 0, 0, err
	}
	src := AnySource
	if source != AnySource {
		src = c.world[source]
	}
	ctx, wire := c.wireTag(tag)
	return src, ctx, wire, nil
}

// Send sends buf to rank dest with tag (MPI_Send, standard mode): eagerly
// if len(buf) <= the eager limit, else by rendezvous, returning once the
// receiver took the data. Errors wrap ErrRank, ErrTag, ErrClosed, or name
// the failed rank.
func (c *communicator) Send(buf []byte, dest, tag int) error {
	dst, ctx, wire, err := c.sendArgs("send", dest, tag)
	if err != nil {
		return err
	}
	return c.send(buf, dst, ctx, wire)
}

// send is Send on a world rank, a context and a wire tag.
func (c *communicator) send(buf []byte, dst int, ctx uint32, wire int32) error {
	r, err := c.e.startSend(c, buf, dst, ctx, wire, true, nil)
	if r == nil || err != nil {
		return err
	}
	c.e.wait(r, nil, false)
	err = r.err
	putReq(r)
	return err
}

// Recv receives the earliest matching message into buf (MPI_Recv); source
// may be AnySource and tag AnyTag. The Status gives the actual source,
// tag and byte count. A message longer than buf fails with ErrTruncate.
func (c *communicator) Recv(buf []byte, source, tag int) (Status, error) {
	src, ctx, wire, err := c.recvArgs("recv", source, tag)
	if err != nil {
		return Status{}, err
	}
	return c.recv(buf, src, ctx, wire)
}

// recv is Recv from a world rank (or AnySource), on a context, with a
// wire tag.
func (c *communicator) recv(buf []byte, src int, ctx uint32, wire int32) (Status, error) {
	r := c.e.newRequest(c, reqRecv, buf, src, ctx, wire, true, nil)
	if joined, done := c.e.startRecv(r, true); !done {
		c.e.wait(r, nil, joined)
	}
	st, err := r.st, r.err
	putReq(r)
	return st, err
}

// Isend starts a send (MPI_Isend). Eager sends complete at once; the
// returned request of a rendezvous send completes when the Data is sent,
// which happens even if the caller does not wait.
func (c *communicator) Isend(buf []byte, dest, tag int) (Request, error) {
	dst, ctx, wire, err := c.sendArgs("isend", dest, tag)
	if err != nil {
		return nil, err
	}
	r, err := c.e.startSend(c, buf, dst, ctx, wire, false, nil)
	if err != nil {
		return nil, err
	}
	if r == nil {
		return doneRequest{}, nil
	}
	return r, nil
}

// Irecv posts a receive (MPI_Irecv); see Recv for matching and errors,
// which the request's Wait returns.
func (c *communicator) Irecv(buf []byte, source, tag int) (Request, error) {
	src, ctx, wire, err := c.recvArgs("irecv", source, tag)
	if err != nil {
		return nil, err
	}
	r := c.e.newRequest(c, reqRecv, buf, src, ctx, wire, false, nil)
	c.e.startRecv(r, false)
	return r, nil
}

// Sendrecv posts the receive, starts the send and waits for both
// (MPI_Sendrecv); it returns the receive's Status and the first error.
func (c *communicator) Sendrecv(sendbuf []byte, dest, sendtag int, recvbuf []byte, source, recvtag int) (Status, error) {
	dst, sctx, swire, err := c.sendArgs("sendrecv", dest, sendtag)
	if err != nil {
		return Status{}, err
	}
	src, rctx, rwire, err := c.recvArgs("sendrecv", source, recvtag)
	if err != nil {
		return Status{}, err
	}
	return c.sendrecv(sendbuf, dst, sctx, swire, recvbuf, src, rctx, rwire)
}

// sendrecv is Sendrecv on world ranks, contexts and wire tags.
func (c *communicator) sendrecv(sbuf []byte, dst int, sctx uint32, stag int32, rbuf []byte, src int, rctx uint32, rtag int32) (Status, error) {
	e := c.e
	rr := e.newRequest(c, reqRecv, rbuf, src, rctx, rtag, true, nil)
	joined, rdone := e.startRecv(rr, true)
	sr, serr := e.startSend(c, sbuf, dst, sctx, stag, true, rr.w)
	if serr != nil {
		e.cancel(rr, serr)
	}
	if !rdone || sr != nil {
		e.wait(rr, sr, joined)
	}
	st, err := rr.st, rr.err
	if sr != nil {
		if serr == nil {
			serr = sr.err
		}
		putReq(sr)
	}
	putReq(rr)
	if err == nil {
		err = serr
	}
	return st, err
}
