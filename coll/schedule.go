package coll

// Pure schedule helpers shared by the algorithms: binomial trees, block
// layouts, segments and the power-of-two fold. None of them communicates.

// rel is rank's position relative to root (MPICH's "relative rank").
func rel(rank, root, p int) int { return (rank - root + p) % p }

// abs is the rank at relative position vr from root.
func abs(vr, root, p int) int { return (vr + root) % p }

// binomialParent is the parent of relative rank vr in a binomial tree of p
// ranks rooted at relative rank 0 (vr with its lowest set bit cleared), or
// -1 for the root.
func binomialParent(vr int) int {
	if vr == 0 {
		return -1
	}
	return vr & (vr - 1)
}

// binomialChildren lists the children of relative rank vr, largest subtree
// first (the order in which MPICH's binomial broadcast sends). Child vr+m
// roots the subtree of relative ranks [vr+m, min(vr+2m, p)).
func binomialChildren(vr, p int) []int {
	low := p // vr == 0: every power of two below p
	if vr != 0 {
		low = vr & -vr
	}
	var ch []int
	for m := highBit(low - 1); m > 0; m >>= 1 {
		if m < low && vr+m < p {
			ch = append(ch, vr+m)
		}
	}
	return ch
}

// subtreeEnd is one past the last relative rank of the subtree rooted at vr.
func subtreeEnd(vr, p int) int {
	if vr == 0 {
		return p
	}
	return min(vr+(vr&-vr), p)
}

// highBit is the largest power of two <= x (0 for x <= 0).
func highBit(x int) int {
	if x <= 0 {
		return 0
	}
	h := 1
	for h <= x/2 {
		h <<= 1
	}
	return h
}

// ceilLog2 is the number of rounds of a doubling algorithm over p ranks.
func ceilLog2(p int) int {
	k := 0
	for 1<<k < p {
		k++
	}
	return k
}

// layout places p blocks in a buffer: block i is buf[off[i] : off[i]+cnt[i]].
type layout struct {
	cnt, off []int
}

// packedLayout places blocks of the given sizes one after the other.
func packedLayout(cnt []int) layout {
	off := make([]int, len(cnt))
	s := 0
	for i, c := range cnt {
		off[i] = s
		s += c
	}
	return layout{cnt: cnt, off: off}
}

// evenLayout splits n bytes into p blocks of whole elements of size elem, as
// even as possible, the larger blocks first (block i has ceil or floor of
// (n/elem)/p elements).
func evenLayout(n, p, elem int) layout {
	elems := n / elem
	cnt := make([]int, p)
	for i := range cnt {
		c := elems / p
		if i < elems%p {
			c++
		}
		cnt[i] = c * elem
	}
	return packedLayout(cnt)
}

// uniformLayout is p blocks of b bytes each.
func uniformLayout(p, b int) layout {
	cnt := make([]int, p)
	for i := range cnt {
		cnt[i] = b
	}
	return packedLayout(cnt)
}

// block returns block i of buf.
func (l layout) block(buf []byte, i int) []byte { return buf[l.off[i] : l.off[i]+l.cnt[i]] }

// span returns blocks [i, j) of buf, which must be adjacent (packed).
func (l layout) span(buf []byte, i, j int) []byte {
	if i >= j {
		return buf[:0]
	}
	return buf[l.off[i] : l.off[j-1]+l.cnt[j-1]]
}

// spanAt is span for a buffer holding the layout from offset base on.
func (l layout) spanAt(buf []byte, base, i, j int) []byte {
	if i >= j {
		return buf[:0]
	}
	return buf[l.off[i]-base : l.off[j-1]+l.cnt[j-1]-base]
}

// total is the sum of the block sizes.
func (l layout) total() int {
	s := 0
	for _, c := range l.cnt {
		s += c
	}
	return s
}

// isPacked reports whether the blocks are adjacent in index order from 0.
func (l layout) isPacked() bool {
	s := 0
	for i, c := range l.cnt {
		if l.off[i] != s {
			return false
		}
		s += c
	}
	return true
}

// segments splits n bytes into segments of seg bytes (the last one shorter),
// with seg rounded down to a whole number of elements of size elem (at least
// one element). It returns the segment start offsets plus n as the last
// entry, so segment i is [s[i], s[i+1]); n == 0 gives no segments.
func segments(n, seg, elem int) []int {
	if seg <= 0 || seg >= n {
		seg = n
	}
	seg -= seg % elem
	if seg < elem {
		seg = elem
	}
	s := []int{}
	for o := 0; o < n; o += seg {
		s = append(s, o)
	}
	return append(s, n)
}

// fold describes the step that reduces p ranks to the largest power of two
// pof2 <= p (Thakur, Rabenseifner & Gropp 2005, section 4.4): of the first
// 2*rem ranks (rem = p - pof2), each even rank hands its data to the odd rank
// above it and sits out; the odd rank 2i+1 becomes new rank i, and rank
// r >= 2*rem becomes new rank r-rem.
type fold struct{ p, pof2, rem int }

func newFold(p int) fold {
	q := highBit(p)
	return fold{p: p, pof2: q, rem: p - q}
}

// newRank is rank's position among the pof2 active ranks, or -1 if it sits out.
func (f fold) newRank(rank int) int {
	switch {
	case rank >= 2*f.rem:
		return rank - f.rem
	case rank%2 == 1:
		return rank / 2
	}
	return -1
}

// oldRank is the rank of new rank nr.
func (f fold) oldRank(nr int) int {
	if nr < f.rem {
		return 2*nr + 1
	}
	return nr + f.rem
}

// groups merges a layout of p blocks into pof2 groups: group nr covers the
// blocks of the ranks it stands for (2nr and 2nr+1 for nr < rem, else
// nr+rem). The blocks of a group must be adjacent, as in a packed layout.
func (f fold) groups(l layout) layout {
	g := layout{cnt: make([]int, f.pof2), off: make([]int, f.pof2)}
	for nr := 0; nr < f.pof2; nr++ {
		lo := nr + f.rem
		if nr < f.rem {
			lo = 2 * nr
		}
		hi := f.oldRank(nr) + 1
		g.off[nr] = l.off[lo]
		g.cnt[nr] = l.off[hi-1] + l.cnt[hi-1] - l.off[lo]
	}
	return g
}
