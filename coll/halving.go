package coll

import "github.com/mpbench/mpbench/comm"

// Building blocks of the power-of-two algorithms (recursive halving and
// doubling) and of the fold that makes them work for any p (Thakur,
// Rabenseifner & Gropp 2005, section 4.4; Rabenseifner 2004).

// foldIn is the fold's first step for reductions: among the first 2*rem
// ranks each even rank sends its whole vector src to the odd rank above it,
// which combines them as work = src op incoming. It returns the vector the
// rank's later steps start from: work where it combined, src otherwise
// (work may be src, for an in-place reduction). Cost alpha + n(beta+gamma)
// when rem > 0, nothing otherwise.
func foldIn(c comm.Comm, f fold, src, work, tmp []byte, dt Datatype, op Op, tag int) ([]byte, error) {
	me := c.Rank()
	if me >= 2*f.rem {
		return src, nil
	}
	if me%2 == 0 {
		return src, send(c, src, me+1, tag)
	}
	if err := recv(c, tmp[:len(src)], me-1, tag); err != nil {
		return src, err
	}
	combine(dt, op, work, src, tmp)
	return work, nil
}

// foldOut is the fold's last step: each odd rank among the first 2*rem sends
// the whole result to the even rank below it. Cost alpha + n beta.
func foldOut(c comm.Comm, f fold, buf []byte, tag int) error {
	me := c.Rank()
	if me >= 2*f.rem {
		return nil
	}
	if me%2 == 1 {
		return send(c, buf, me-1, tag)
	}
	return recv(c, buf, me+1, tag)
}

// halve is recursive halving among the pof2 active ranks (nr = new rank):
// in round k partners at distance pof2/2^k swap the halves of their current
// group range that the other keeps and combine the half they keep, so new
// rank nr ends with group nr of g fully reduced in work. The vector starts
// in cur (work itself, or a source left unmodified: the first round sends
// from it and combines into work). Cost log2 pof2 alpha +
// (pof2-1)/pof2 n (beta+gamma).
func halve(c comm.Comm, f fold, nr int, cur, work, tmp []byte, g layout, dt Datatype, op Op, tag int) error {
	lo, hi := 0, f.pof2
	for hi-lo > 1 {
		half := (hi - lo) / 2
		mid := lo + half
		klo, khi, slo, shi := lo, mid, mid, hi
		if nr >= mid {
			klo, khi, slo, shi = mid, hi, lo, mid
		}
		keep := g.span(work, klo, khi)
		partner := f.oldRank(nr ^ half)
		if err := sendrecv(c, g.span(cur, slo, shi), partner, tmp[:len(keep)], partner, tag); err != nil {
			return err
		}
		combine(dt, op, keep, g.span(cur, klo, khi), tmp[:len(keep)])
		cur = work
		lo, hi = klo, khi
	}
	return nil
}

// double is recursive doubling among the pof2 active ranks from round
// first on (0: from the start): new rank nr has groups [nr &^ (2^first-1),
// that + 2^first) of g and in round k swaps its 2^k groups with the
// partner at distance 2^k, so all end with every group. Cost
// log2 pof2 alpha + (pof2-1)/pof2 n beta.
func double(c comm.Comm, f fold, nr int, buf []byte, g layout, first, tag int) error {
	for m := 1 << first; m < f.pof2; m <<= 1 {
		pn := nr ^ m
		mine, theirs := nr&^(m-1), pn&^(m-1)
		partner := f.oldRank(pn)
		if err := sendrecv(c, g.span(buf, mine, mine+m), partner, g.span(buf, theirs, theirs+m), partner, tag); err != nil {
			return err
		}
	}
	return nil
}
