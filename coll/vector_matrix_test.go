package coll

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/mpbench/mpbench/comm"
)

// The v variants with uneven counts and displacements that place the
// blocks in reverse rank order with 3-byte gaps (not packed).

func vcounts(n, p int) []int {
	c := make([]int, p)
	for i := range c {
		c[i] = n + (i*5)%4
	}
	return c
}

func reverseDispls(cnt []int) (displs []int, size int) {
	displs = make([]int, len(cnt))
	for i := len(cnt) - 1; i >= 0; i-- {
		displs[i] = size
		size += cnt[i] + 3
	}
	return displs, size
}

func TestGathervMatrix(t *testing.T) {
	forMatrix(t, "gatherv", func(t *testing.T, a Algorithms, p, n int) {
		cnt := vcounts(n, p)
		dsp, size := reverseDispls(cnt)
		for _, root := range roots(p) {
			runRanks(t, p, func(c comm.Comm) error {
				var recv []byte
				if c.Rank() == root {
					recv = make([]byte, size)
				}
				if err := a.Gatherv(c, pattern(c.Rank(), cnt[c.Rank()]), recv, cnt, dsp, root); err != nil {
					return err
				}
				if c.Rank() == root {
					return checkBlocks(recv, layout{cnt, dsp}, func(i int) []byte { return pattern(i, cnt[i]) })
				}
				return nil
			})
		}
	})
}

func TestScattervMatrix(t *testing.T) {
	forMatrix(t, "scatterv", func(t *testing.T, a Algorithms, p, n int) {
		cnt := vcounts(n, p)
		dsp, size := reverseDispls(cnt)
		for _, root := range roots(p) {
			runRanks(t, p, func(c comm.Comm) error {
				var send []byte
				if c.Rank() == root {
					send = make([]byte, size)
					for i := range cnt {
						copy(send[dsp[i]:], pattern(i, cnt[i]))
					}
				}
				recv := make([]byte, cnt[c.Rank()])
				if err := a.Scatterv(c, send, cnt, dsp, recv, root); err != nil {
					return err
				}
				if !bytes.Equal(recv, pattern(c.Rank(), cnt[c.Rank()])) {
					return fmt.Errorf("root %d: wrong block", root)
				}
				return nil
			})
		}
	})
}

func TestAllgathervMatrix(t *testing.T) {
	forMatrix(t, "allgatherv", func(t *testing.T, a Algorithms, p, n int) {
		cnt := vcounts(n, p)
		runRanks(t, p, func(c comm.Comm) error {
			send := pattern(c.Rank(), cnt[c.Rank()])
			want := func(i int) []byte { return pattern(i, cnt[i]) }
			dsp, size := reverseDispls(cnt)
			recv := make([]byte, size)
			if err := a.Allgatherv(c, send, recv, cnt, dsp); err != nil {
				return err
			}
			if err := checkBlocks(recv, layout{cnt, dsp}, want); err != nil {
				return fmt.Errorf("gapped displacements: %w", err)
			}
			packed := make([]byte, packedLayout(cnt).total())
			if err := a.Allgatherv(c, send, packed, cnt, nil); err != nil {
				return err
			}
			return checkBlocks(packed, packedLayout(cnt), want)
		})
	})
}

func TestAlltoallvMatrix(t *testing.T) {
	forMatrix(t, "alltoallv", func(t *testing.T, a Algorithms, p, n int) {
		if n == mib && p > 5 {
			n = mib / 8
		}
		// rank i sends s(i, j) bytes to rank j.
		s := func(i, j int) int { return n + (i*3+j)%4 }
		runRanks(t, p, func(c comm.Comm) error {
			me := c.Rank()
			sc, rc := make([]int, p), make([]int, p)
			for j := 0; j < p; j++ {
				sc[j], rc[j] = s(me, j), s(j, me)
			}
			sd, ssize := reverseDispls(sc)
			send := make([]byte, ssize)
			for j := range sc {
				copy(send[sd[j]:], pattern(me*p+j, sc[j]))
			}
			recv := make([]byte, packedLayout(rc).total())
			if err := a.Alltoallv(c, send, sc, sd, recv, rc, nil); err != nil {
				return err
			}
			return checkBlocks(recv, packedLayout(rc), func(i int) []byte { return pattern(i*p+me, rc[i]) })
		})
	})
}
