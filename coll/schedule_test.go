package coll

import (
	"reflect"
	"testing"

	"github.com/mpbench/mpbench/comm"
)

func TestBinomialTree(t *testing.T) {
	for p := 1; p <= 33; p++ {
		parentOf := make([]int, p)
		for i := range parentOf {
			parentOf[i] = -2
		}
		for vr := 0; vr < p; vr++ {
			for _, ch := range binomialChildren(vr, p) {
				if parentOf[ch] != -2 {
					t.Fatalf("p=%d: %d has two parents", p, ch)
				}
				parentOf[ch] = vr
			}
		}
		// round in which each rank receives, sends going out in list order
		round := make([]int, p)
		for vr := 0; vr < p; vr++ {
			for i, ch := range binomialChildren(vr, p) {
				round[ch] = round[vr] + i + 1
			}
		}
		rounds := 0
		for _, r := range round {
			rounds = max(rounds, r)
		}
		if rounds != ceilLog2(p) {
			t.Fatalf("p=%d: %d rounds, want ceil(log2 p) = %d", p, rounds, ceilLog2(p))
		}
		for vr := 1; vr < p; vr++ {
			if got := binomialParent(vr); got != parentOf[vr] {
				t.Fatalf("p=%d: parent(%d) = %d, children lists say %d", p, vr, got, parentOf[vr])
			}
			// a subtree is the node plus its children's subtrees, contiguous
			end := vr + 1
			ch := binomialChildren(vr, p)
			for i := len(ch) - 1; i >= 0; i-- {
				if ch[i] != end {
					t.Fatalf("p=%d: subtree of %d not contiguous: child %d, expected %d", p, vr, ch[i], end)
				}
				end = subtreeEnd(ch[i], p)
			}
			if end != subtreeEnd(vr, p) {
				t.Fatalf("p=%d: subtree of %d ends at %d, subtreeEnd says %d", p, vr, end, subtreeEnd(vr, p))
			}
		}
	}
	if got := binomialChildren(0, 8); !reflect.DeepEqual(got, []int{4, 2, 1}) {
		t.Fatalf("children of the root of 8 = %v, want [4 2 1] (largest subtree first)", got)
	}
}

func TestSegments(t *testing.T) {
	cases := []struct {
		n, seg, elem int
		want         []int
	}{
		{0, 16, 1, []int{0}},
		{15, 16, 1, []int{0, 15}},
		{17, 16, 1, []int{0, 16, 17}},
		{32, 16, 1, []int{0, 16, 32}},
		{20, 10, 8, []int{0, 8, 16, 20}}, // seg rounded down to whole elements
		{16, 3, 8, []int{0, 8, 16}},      // at least one element
		{10, 0, 1, []int{0, 10}},         // 0 = one segment
	}
	for _, c := range cases {
		if got := segments(c.n, c.seg, c.elem); !reflect.DeepEqual(got, c.want) {
			t.Errorf("segments(%d, %d, %d) = %v, want %v", c.n, c.seg, c.elem, got, c.want)
		}
	}
}

func TestFold(t *testing.T) {
	for p := 1; p <= 40; p++ {
		f := newFold(p)
		if f.pof2 > p || 2*f.pof2 <= p || f.pof2&(f.pof2-1) != 0 {
			t.Fatalf("p=%d: pof2 %d", p, f.pof2)
		}
		seen := map[int]bool{}
		for r := 0; r < p; r++ {
			nr := f.newRank(r)
			if nr < 0 {
				if r >= 2*f.rem || r%2 != 0 {
					t.Fatalf("p=%d: rank %d sits out", p, r)
				}
				continue
			}
			if seen[nr] || f.oldRank(nr) != r {
				t.Fatalf("p=%d: rank %d -> new %d -> old %d", p, r, nr, f.oldRank(nr))
			}
			seen[nr] = true
		}
		if len(seen) != f.pof2 {
			t.Fatalf("p=%d: %d active ranks, want %d", p, len(seen), f.pof2)
		}
		g := f.groups(evenLayout(10*p, p, 1))
		if !g.isPacked() || g.total() != 10*p {
			t.Fatalf("p=%d: groups %v not a packed cover of the vector", p, g)
		}
	}
}

func TestEvenLayout(t *testing.T) {
	l := evenLayout(40, 3, 4) // 10 elements over 3 ranks: 4, 3, 3
	if !reflect.DeepEqual(l.cnt, []int{16, 12, 12}) || !reflect.DeepEqual(l.off, []int{0, 16, 28}) {
		t.Fatalf("evenLayout(40, 3, 4) = %+v", l)
	}
}

// perRank counts messages and bytes each rank sends on the collective
// context (the fake's duplicate has context 101).
func perRank(tr []sent, p int) (msgs, bytes []int) {
	msgs, bytes = make([]int, p), make([]int, p)
	for _, s := range tr {
		if s.ctx == 101 {
			msgs[s.src]++
			bytes[s.src] += s.bytes
		}
	}
	return msgs, bytes
}

func TestTraceShapes(t *testing.T) {
	const p, n = 6, 600
	run := func(spec string, f func(a Algorithms, c comm.Comm) error) []sent {
		a, err := ParseAlgorithms(spec)
		if err != nil {
			t.Fatal(err)
		}
		return runFake(t, p, func(c comm.Comm) error { return f(a, c) })
	}
	bcast := func(a Algorithms, c comm.Comm) error { return a.Bcast(c, make([]byte, n), 2) }

	// binomial: p-1 messages of n bytes in all, every rank but the root
	// receives exactly one.
	tr := run("bcast=binomial", bcast)
	recvd := make([]int, p)
	for _, s := range tr {
		if s.bytes != n {
			t.Fatalf("binomial bcast sent %d bytes, want %d", s.bytes, n)
		}
		recvd[s.dst]++
	}
	if !reflect.DeepEqual(recvd, []int{1, 1, 0, 1, 1, 1}) {
		t.Fatalf("binomial bcast receives per rank %v", recvd)
	}

	// linear: the root sends all p-1 messages.
	msgs, _ := perRank(run("bcast=linear", bcast), p)
	if !reflect.DeepEqual(msgs, []int{0, 0, 5, 0, 0, 0}) {
		t.Fatalf("linear bcast messages per rank %v", msgs)
	}

	// pipeline with 256-byte segments: 3 segments (256, 256, 88) on each
	// of the p-1 links of the chain 2->3->4->5->0->1.
	tr = run("bcast=pipeline:seg=256", bcast)
	msgs, _ = perRank(tr, p)
	if !reflect.DeepEqual(msgs, []int{3, 0, 3, 3, 3, 3}) {
		t.Fatalf("pipelined bcast messages per rank %v", msgs)
	}
	for _, s := range tr {
		if s.dst != (s.src+1)%p || (s.bytes != 256 && s.bytes != 88) {
			t.Fatalf("pipelined bcast message %+v off the chain or segment sizes", s)
		}
	}

	// scatter_allgather: every rank sends (p-1) ring blocks of n/p bytes
	// plus scatter messages; the root's total is below linear's (p-1)n.
	_, by := perRank(run("bcast=scatter_allgather", bcast), p)
	if by[2] >= (p-1)*n || by[1] < (p-1)*n/p {
		t.Fatalf("scatter_allgather bytes per rank %v", by)
	}

	// pairwise alltoall: p-1 messages of one block per rank.
	msgs, by = perRank(run("alltoall=pairwise", func(a Algorithms, c comm.Comm) error {
		return a.Alltoall(c, make([]byte, p*10), make([]byte, p*10))
	}), p)
	for r := 0; r < p; r++ {
		if msgs[r] != p-1 || by[r] != (p-1)*10 {
			t.Fatalf("pairwise alltoall rank %d: %d messages, %d bytes", r, msgs[r], by[r])
		}
	}

	// bruck allgather: ceil(log2 p) = 3 messages per rank, p-1 blocks.
	msgs, by = perRank(run("allgather=bruck", func(a Algorithms, c comm.Comm) error {
		return a.Allgather(c, make([]byte, 10), make([]byte, p*10))
	}), p)
	for r := 0; r < p; r++ {
		if msgs[r] != 3 || by[r] != (p-1)*10 {
			t.Fatalf("bruck allgather rank %d: %d messages, %d bytes", r, msgs[r], by[r])
		}
	}

	// linear gather: all traffic goes to the root.
	for _, s := range run("gather=linear", func(a Algorithms, c comm.Comm) error {
		return a.Gather(c, make([]byte, 10), make([]byte, p*10), 4)
	}) {
		if s.ctx == 101 && s.dst != 4 {
			t.Fatalf("linear gather message %+v not to the root", s)
		}
	}

	// dissemination barrier: ceil(log2 p) empty messages per rank.
	msgs, by = perRank(run("barrier=dissemination", func(a Algorithms, c comm.Comm) error { return a.Barrier(c) }), p)
	for r := 0; r < p; r++ {
		if msgs[r] != 3 || by[r] != 0 {
			t.Fatalf("dissemination barrier rank %d: %d messages, %d bytes", r, msgs[r], by[r])
		}
	}
}

// TestPrivateContext: collectives never send on the caller's own context,
// and a user message pending with tag 1 is not consumed by them.
func TestPrivateContext(t *testing.T) {
	tr := runFake(t, 3, func(c comm.Comm) error {
		if c.Rank() == 0 {
			if err := c.Send([]byte("user"), 1, tagBcast); err != nil {
				return err
			}
		}
		if err := Bcast(c, make([]byte, 4), 0); err != nil {
			return err
		}
		if c.Rank() == 1 {
			buf := make([]byte, 4)
			if _, err := c.Recv(buf, 0, tagBcast); err != nil || string(buf) != "user" {
				return err
			}
		}
		return nil
	})
	user := 0
	for _, s := range tr {
		if s.ctx == 1 {
			user++
		}
	}
	if user != 1 {
		t.Fatalf("%d messages on the user context, want only the user's 1", user)
	}
}

// TestZeroCountSendsNothing: a collective on 0 bytes returns without any
// message, as MPI libraries do for a zero count, so IMB's 0-byte rows
// measure the call, not an empty exchange.
func TestZeroCountSendsNothing(t *testing.T) {
	calls := map[string]func(c comm.Comm) error{
		"Allreduce":            func(c comm.Comm) error { return Allreduce(c, nil, nil, Float32, Sum) },
		"Reduce":               func(c comm.Comm) error { return Reduce(c, nil, nil, Float32, Sum, 0) },
		"Allgather":            func(c comm.Comm) error { return Allgather(c, nil, nil) },
		"Alltoall":             func(c comm.Comm) error { return Alltoall(c, nil, nil) },
		"Gather":               func(c comm.Comm) error { return Gather(c, nil, nil, 0) },
		"Scatter":              func(c comm.Comm) error { return Scatter(c, nil, nil, 0) },
		"Reduce_scatter_block": func(c comm.Comm) error { return ReduceScatterBlock(c, nil, nil, Float32, Sum) },
		"Reduce_scatter":       func(c comm.Comm) error { return ReduceScatter(c, nil, nil, make([]int, c.Size()), Float32, Sum) },
		"Bcast":                func(c comm.Comm) error { return Bcast(c, nil, 0) },
	}
	for name, f := range calls {
		if tr := runFake(t, 4, f); len(tr) != 0 {
			t.Errorf("%s on 0 bytes sent %d messages, want 0", name, len(tr))
		}
	}
}
