package coll

import "github.com/mpbench/mpbench/comm"

// Building blocks of the power-of-two algorithms (recursive halving and
// doubling) and of the fold that makes them work for any p (Thakur,
// Rabenseifner & Gropp 2005, section 4.4; Rabenseifner 2004).

// foldIn is the fold's first step for reductions: among the first 2*rem
// ranks each even rank sends its whole vector to the odd rank above it,
// which combines it as work = work op incoming. Cost alpha + n(beta+gamma)
// when rem > 0, nothing otherwise.
func foldIn(c comm.Comm, f fold, work, tmp []byte, dt Datatype, op Op, tag int) error {
	me := c.Rank()
	if me >= 2*f.rem {
		return nil
	}
	if me%2 == 0 {
		return send(c, work, me+1, tag)
	}
	if err := recv(c, tmp[:len(work)], me-1, tag); err != nil {
		return err
	}
	reduce(dt, op, work, tmp[:len(work)])
	return nil
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
// rank nr ends with group nr of g fully reduced. Cost log2 pof2 alpha +
// (pof2-1)/pof2 n (beta+gamma).
func halve(c comm.Comm, f fold, nr int, work, tmp []byte, g layout, dt Datatype, op Op, tag int) error {
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
		if err := sendrecv(c, g.span(work, slo, shi), partner, tmp[:len(keep)], partner, tag); err != nil {
			return err
		}
		reduce(dt, op, keep, tmp[:len(keep)])
		lo, hi = klo, khi
	}
	return nil
}

// double is recursive doubling among the pof2 active ranks: new rank nr
// starts with group nr of g and in round k swaps its 2^k groups with the
// partner at distance 2^k, so all end with every group. Cost
// log2 pof2 alpha + (pof2-1)/pof2 n beta.
func double(c comm.Comm, f fold, nr int, buf []byte, g layout, tag int) error {
	for m := 1; m < f.pof2; m <<= 1 {
		pn := nr ^ m
		mine, theirs := nr&^(m-1), pn&^(m-1)
		partner := f.oldRank(pn)
		if err := sendrecv(c, g.span(buf, mine, mine+m), partner, g.span(buf, theirs, theirs+m), partner, tag); err != nil {
			return err
		}
	}
	return nil
}
