package comm

import (
	"fmt"
	"sort"
	"strings"
)

// DebugState describes this rank's pending point-to-point state for a
// hang report: per matching context, the posted receives and the
// unexpected messages (in matching order), then the rendezvous sends
// awaiting a CTS and the receives awaiting Data. One line per entry, ranks
// and tags as on the wire (world ranks; reserved tags as wire tags), each
// request with its flags (done, waiting: its owner is parked on it, act:
// protocol action pending, 1 CTS 2 Data, claimed: being run). Empty queues
// print nothing, so an idle rank is one line.
func (w *World) DebugState() string {
	return w.e.debugState()
}

func (e *engine) debugState() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	var b strings.Builder
	fmt.Fprintf(&b, "world rank %d (closed %v):\n", e.rank, e.closed)
	ctxs := make([]uint32, 0, len(e.queues))
	for ctx := range e.queues {
		ctxs = append(ctxs, ctx)
	}
	sort.Slice(ctxs, func(i, j int) bool { return ctxs[i] < ctxs[j] })
	for _, ctx := range ctxs {
		q := e.queues[ctx]
		for r := q.postedHead; r != nil; r = r.next {
			fmt.Fprintf(&b, "  context %d: posted receive from %d tag %d (%d-byte buffer)%s\n", ctx, r.peer, r.tag, len(r.buf), r.flags())
		}
		for m := q.unexpHead; m != nil; m = m.next {
			kind := map[msgKind]string{msgEager: "eager", msgRTS: "rts", msgSelf: "self"}[m.kind]
			fmt.Fprintf(&b, "  context %d: unexpected %s message from %d tag %d, %d bytes\n", ctx, kind, m.src, m.tag, m.n)
		}
	}
	for cookie, r := range e.rdvSend {
		fmt.Fprintf(&b, "  rendezvous send to %d context %d tag %d cookie %d, %d bytes, awaiting CTS%s\n", r.peer, r.ctx, r.tag, cookie, len(r.buf), r.flags())
	}
	for k, r := range e.rdvRecv {
		fmt.Fprintf(&b, "  rendezvous receive from %d context %d tag %d cookie %d, %d bytes, awaiting Data%s\n", k.src, r.ctx, r.mtag, k.cookie, r.mlen, r.flags())
	}
	for peer, err := range e.failed {
		if err != nil {
			fmt.Fprintf(&b, "  peer %d failed: %v\n", peer, err)
		}
	}
	return b.String()
}

// flags describes a request's wake-up and action state. Caller holds e.mu.
func (r *request) flags() string {
	return fmt.Sprintf(" [done %v waiting %v act %d claimed %v blocking %v]", r.done, r.waiting, r.act, r.claimed, r.blocking)
}
