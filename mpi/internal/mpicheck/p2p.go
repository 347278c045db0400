//go:build mpi

package main

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"strconv"

	"github.com/mpbench/mpbench/comm"
	"github.com/mpbench/mpbench/mpi"
)

// pattern fills a buffer of n bytes whose content depends on seed.
func pattern(n int, seed int) []byte {
	b := make([]byte, n)
	x := uint32(seed)*2654435761 + 1
	for i := range b {
		x = x*1664525 + 1013904223
		b[i] = byte(x >> 24)
	}
	return b
}

// u64 encodes v as 8 bytes in the host's byte order.
func u64(v int) []byte { return binary.NativeEndian.AppendUint64(nil, uint64(v)) }

// wantStatus compares a receive status.
func wantStatus(st comm.Status, src, tag, n int) error {
	if st.Source != src || st.Tag != tag || st.Count != n {
		return fmt.Errorf("status %+v, want {Source:%d Tag:%d Count:%d}", st, src, tag, n)
	}
	return nil
}

func p2pChecks() []check {
	return []check{
		{"rank-size-clock", checkBasics},
		{"ordering", checkOrdering},
		{"wildcards", checkWildcards},
		{"tag-selection", checkTagSelection},
		{"high-tags", checkHighTags},
		{"sizes-0B-64MiB", checkSizes},
		{"truncate", checkTruncate},
		{"bad-arguments", checkBadArgs},
		{"100-outstanding-requests", checkManyRequests},
		{"sendrecv-ring", checkSendrecvRing},
		{"exchange-loop-layout", checkExchangeLoop},
		{"p2p-loops-receive-any-tag", checkP2PLoopsAnyTag},
		{"data-type-loops", checkDataTypeLoops},
		{"split", checkSplit},
		{"collective-comm", checkCollectiveComm},
	}
}

// checkBasics compares Rank/Size with the launcher's environment and checks
// the clock.
func checkBasics(c *mpi.Comm) error {
	for _, k := range [][2]string{{"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"}, {"PMI_RANK", "PMI_SIZE"}} {
		r, s := os.Getenv(k[0]), os.Getenv(k[1])
		if r == "" {
			continue
		}
		if r != strconv.Itoa(c.Rank()) || s != strconv.Itoa(c.Size()) {
			return fmt.Errorf("Rank/Size %d/%d, launcher says %s=%s %s=%s", c.Rank(), c.Size(), k[0], r, k[1], s)
		}
	}
	t0 := c.Wtime()
	t1 := c.Wtime()
	if t1 < t0 || c.Wtick() <= 0 || c.Wtick() > 0.01 {
		return fmt.Errorf("Wtime %v then %v, Wtick %v: want non-decreasing time and 0 < tick <= 10 ms", t0, t1, c.Wtick())
	}
	return nil
}

// checkOrdering: rank 0 sends 200 numbered messages of mixed sizes (eager
// and rendezvous) to every other rank, which must receive them in order.
func checkOrdering(c *mpi.Comm) error {
	const n = 200
	size := func(i int) int { return 8 + (i%5)*40000 }
	if c.Rank() == 0 {
		for i := 0; i < n; i++ {
			for d := 1; d < c.Size(); d++ {
				b := make([]byte, size(i))
				copy(b, u64(i))
				if err := c.Send(b, d, 7); err != nil {
					return err
				}
			}
		}
		return nil
	}
	buf := make([]byte, 8+4*40000)
	for i := 0; i < n; i++ {
		st, err := c.Recv(buf, 0, comm.AnyTag)
		if err != nil {
			return err
		}
		if err := wantStatus(st, 0, 7, size(i)); err != nil {
			return fmt.Errorf("message %d: %v", i, err)
		}
		if got := int(binary.NativeEndian.Uint64(buf)); got != i {
			return fmt.Errorf("message %d arrived as number %d: overtaken", i, got)
		}
	}
	return nil
}

// checkWildcards: every rank but 0 sends its rank (tag 100+rank) to rank 0,
// which receives with AnySource/AnyTag and must see each sender once, with a
// status naming it.
func checkWildcards(c *mpi.Comm) error {
	if c.Rank() != 0 {
		return c.Send(u64(c.Rank()), 0, 100+c.Rank())
	}
	seen := map[int]bool{}
	buf := make([]byte, 64)
	for i := 1; i < c.Size(); i++ {
		st, err := c.Recv(buf, comm.AnySource, comm.AnyTag)
		if err != nil {
			return err
		}
		from := int(binary.NativeEndian.Uint64(buf))
		if err := wantStatus(st, from, 100+from, 8); err != nil {
			return err
		}
		if seen[from] {
			return fmt.Errorf("rank %d received twice", from)
		}
		seen[from] = true
	}
	return nil
}

// checkTagSelection: rank 1 sends tags 5 then 6; rank 0 receives tag 6
// first, then tag 5 from AnySource, then an Irecv with AnyTag matches a
// third message.
func checkTagSelection(c *mpi.Comm) error {
	switch c.Rank() {
	case 1:
		for _, t := range []int{5, 6, 9} {
			if err := c.Send(u64(t), 0, t); err != nil {
				return err
			}
		}
	case 0:
		buf := make([]byte, 8)
		for _, t := range []int{6, 5} {
			st, err := c.Recv(buf, comm.AnySource, t)
			if err != nil {
				return err
			}
			if err := wantStatus(st, 1, t, 8); err != nil {
				return err
			}
			if got := binary.NativeEndian.Uint64(buf); got != uint64(t) {
				return fmt.Errorf("tag %d carried payload %d", t, got)
			}
		}
		r, err := c.Irecv(buf, 1, comm.AnyTag)
		if err != nil {
			return err
		}
		st, err := r.Wait()
		if err != nil {
			return err
		}
		if err := wantStatus(st, 1, 9, 8); err != nil {
			return err
		}
	}
	return nil
}

// checkHighTags: tags up to comm.MaxTag work on every library (MPICH's
// MPI_TAG_UB is 2^28-1); rank 1 sends MaxTag, MaxTag-1 and 0, rank 0
// receives them in the order MaxTag-1, 0, MaxTag and each status names the
// tag asked for.
func checkHighTags(c *mpi.Comm) error {
	tags := []int{comm.MaxTag, comm.MaxTag - 1, 0}
	switch c.Rank() {
	case 1:
		for _, t := range tags {
			if err := c.Send(u64(t), 0, t); err != nil {
				return err
			}
		}
	case 0:
		buf := make([]byte, 8)
		for _, t := range []int{comm.MaxTag - 1, 0, comm.MaxTag} {
			st, err := c.Recv(buf, 1, t)
			if err != nil {
				return err
			}
			if err := wantStatus(st, 1, t, 8); err != nil {
				return err
			}
			if got := binary.NativeEndian.Uint64(buf); got != uint64(t) {
				return fmt.Errorf("tag %d carried payload %d", t, got)
			}
		}
	}
	return nil
}

// checkSizes: 0 B and 64 MiB messages between ranks 0 and 1, blocking and
// non-blocking, contents compared.
func checkSizes(c *mpi.Comm) error {
	for _, n := range []int{0, 1, 64 << 20} {
		want := pattern(n, n)
		switch c.Rank() {
		case 0:
			if err := c.Send(want, 1, 1); err != nil {
				return err
			}
			r, err := c.Isend(want, 1, 2)
			if err != nil {
				return err
			}
			if _, err := r.Wait(); err != nil {
				return err
			}
		case 1:
			for tag := 1; tag <= 2; tag++ {
				got := make([]byte, n)
				var st comm.Status
				var err error
				if tag == 1 {
					st, err = c.Recv(got, 0, tag)
				} else {
					var r comm.Request
					if r, err = c.Irecv(got, 0, tag); err == nil {
						st, err = r.Wait()
					}
				}
				if err != nil {
					return fmt.Errorf("%d bytes, tag %d: %w", n, tag, err)
				}
				if err := wantStatus(st, 0, tag, n); err != nil {
					return err
				}
				if !bytes.Equal(got, want) {
					return fmt.Errorf("%d bytes, tag %d: contents differ", n, tag)
				}
			}
		}
	}
	return nil
}

// checkTruncate: a 16-byte message into an 8-byte buffer fails with
// comm.ErrTruncate, for Recv and for Irecv+Wait, and the communicator stays
// usable afterwards.
func checkTruncate(c *mpi.Comm) error {
	switch c.Rank() {
	case 0:
		for tag := 3; tag <= 5; tag++ {
			if err := c.Send(pattern(16, tag), 1, tag); err != nil {
				return err
			}
		}
	case 1:
		small := make([]byte, 8)
		if _, err := c.Recv(small, 0, 3); !errors.Is(err, comm.ErrTruncate) {
			return fmt.Errorf("Recv of 16 bytes into 8: error %v, want comm.ErrTruncate", err)
		}
		r, err := c.Irecv(small, 0, 4)
		if err != nil {
			return err
		}
		_, werr := r.Wait()
		if !errors.Is(werr, comm.ErrTruncate) {
			return fmt.Errorf("Irecv of 16 bytes into 8: error %v, want comm.ErrTruncate", werr)
		}
		var me *mpi.Error
		if !errors.As(werr, &me) {
			return fmt.Errorf("truncation error %T is not an *mpi.Error", werr)
		}
		full := make([]byte, 16)
		if _, err := c.Recv(full, 0, 5); err != nil || !bytes.Equal(full, pattern(16, 5)) {
			return fmt.Errorf("receive after truncation: %v", err)
		}
	}
	return nil
}

// checkBadArgs: invalid ranks and tags are refused before reaching MPI.
func checkBadArgs(c *mpi.Comm) error {
	if err := c.Send(nil, c.Size(), 0); !errors.Is(err, comm.ErrRank) {
		return fmt.Errorf("Send to rank %d: %v, want comm.ErrRank", c.Size(), err)
	}
	if _, err := c.Recv(nil, -7, 0); !errors.Is(err, comm.ErrRank) {
		return fmt.Errorf("Recv from rank -7: %v, want comm.ErrRank", err)
	}
	if _, err := c.Isend(nil, 0, -3); !errors.Is(err, comm.ErrTag) {
		return fmt.Errorf("Isend with tag -3: %v, want comm.ErrTag", err)
	}
	if _, err := c.Irecv(nil, 0, comm.MaxTag+1); !errors.Is(err, comm.ErrTag) {
		return fmt.Errorf("Irecv with tag MaxTag+1: %v, want comm.ErrTag", err)
	}
	return nil
}

// checkManyRequests: 100 Irecvs from the left neighbour posted in reverse
// tag order and 100 Isends to the right neighbour outstanding at once,
// completed by polling Test on half and Wait on the rest.
func checkManyRequests(c *mpi.Comm) error {
	const n = 100
	right, left := (c.Rank()+1)%c.Size(), (c.Rank()+c.Size()-1)%c.Size()
	rbufs := make([][]byte, n)
	recvs := make([]comm.Request, n)
	for t := n - 1; t >= 0; t-- {
		rbufs[t] = make([]byte, 100+t*1000)
		r, err := c.Irecv(rbufs[t], left, t)
		if err != nil {
			return err
		}
		recvs[t] = r
	}
	sends := make([]comm.Request, n)
	for t := 0; t < n; t++ {
		r, err := c.Isend(pattern(100+t*1000, c.Rank()*1000+t), right, t)
		if err != nil {
			return err
		}
		sends[t] = r
	}
	for t := 0; t < n; t += 2 {
		for {
			done, st, err := recvs[t].Test()
			if err != nil {
				return err
			}
			if done {
				if err := wantStatus(st, left, t, 100+t*1000); err != nil {
					return err
				}
				break
			}
		}
	}
	if err := comm.Waitall(recvs); err != nil {
		return err
	}
	if err := comm.Waitall(sends); err != nil {
		return err
	}
	for t := 0; t < n; t++ {
		st, err := recvs[t].Wait() // completed: same result again
		if err != nil {
			return err
		}
		if err := wantStatus(st, left, t, 100+t*1000); err != nil {
			return err
		}
		if !bytes.Equal(rbufs[t], pattern(100+t*1000, left*1000+t)) {
			return fmt.Errorf("request %d: contents differ", t)
		}
	}
	return nil
}

// checkSendrecvRing shifts each rank's data one step right with Sendrecv.
func checkSendrecvRing(c *mpi.Comm) error {
	right, left := (c.Rank()+1)%c.Size(), (c.Rank()+c.Size()-1)%c.Size()
	for _, n := range []int{0, 8, 1 << 20} {
		got := make([]byte, n)
		st, err := c.Sendrecv(pattern(n, c.Rank()), right, 11, got, comm.AnySource, 11)
		if err != nil {
			return err
		}
		if err := wantStatus(st, left, 11, n); err != nil {
			return err
		}
		if !bytes.Equal(got, pattern(n, left)) {
			return fmt.Errorf("%d bytes from rank %d: contents differ", n, left)
		}
	}
	return nil
}

// checkSplit splits by parity with keys reversing the order, leaves rank 0
// out with comm.Undefined, and checks ranks, sizes and traffic in the parts.
func checkSplit(c *mpi.Comm) error {
	color := c.Rank() % 2
	if c.Rank() == 0 {
		color = comm.Undefined
	}
	sub, err := c.Split(color, -c.Rank())
	if err != nil {
		return err
	}
	if c.Rank() == 0 {
		if sub != nil {
			return fmt.Errorf("Split with Undefined returned %v, want nil", sub)
		}
		return nil
	}
	var members []int // world ranks of this color, in key order (descending rank)
	for r := c.Size() - 1; r >= 1; r-- {
		if r%2 == color {
			members = append(members, r)
		}
	}
	if sub.Size() != len(members) || members[sub.Rank()] != c.Rank() {
		return fmt.Errorf("color %d: rank %d of %d, want rank %d of %d", color, sub.Rank(), sub.Size(), indexOf(members, c.Rank()), len(members))
	}
	m := sub.(*mpi.Comm)
	defer m.Free()
	send := u64(c.Rank())
	recv := make([]byte, 8)
	if err := m.Allreduce(send, recv, mpi.Sum, mpi.Int64); err != nil {
		return err
	}
	want := 0
	for _, r := range members {
		want += r
	}
	if got := int(binary.NativeEndian.Uint64(recv)); got != want {
		return fmt.Errorf("Allreduce of world ranks in color %d: %d, want %d", color, got, want)
	}
	if sub.Size() > 1 {
		right := (sub.Rank() + 1) % sub.Size()
		left := (sub.Rank() + sub.Size() - 1) % sub.Size()
		st, err := sub.Sendrecv(u64(c.Rank()), right, 1, recv, comm.AnySource, comm.AnyTag)
		if err != nil {
			return err
		}
		if err := wantStatus(st, left, 1, 8); err != nil {
			return err
		}
		if got := int(binary.NativeEndian.Uint64(recv)); got != members[left] {
			return fmt.Errorf("sub-rank %d got world rank %d from its left, want %d", sub.Rank(), got, members[left])
		}
	}
	return nil
}

func indexOf(v []int, x int) int {
	for i, y := range v {
		if y == x {
			return i
		}
	}
	return -1
}

// checkCollectiveComm: CollectiveComm keeps group and rank order, returns
// the same communicator twice, and its messages never match the parent's:
// rank 0 sends "dup" on it and then "parent" on the world, both tag 0;
// rank 1 receives with wildcards on the world first and must get "parent".
func checkCollectiveComm(c *mpi.Comm) error {
	d, err := c.CollectiveComm()
	if err != nil {
		return err
	}
	if again, _ := c.CollectiveComm(); again != d {
		return fmt.Errorf("second CollectiveComm returned a different communicator")
	}
	if d.Rank() != c.Rank() || d.Size() != c.Size() {
		return fmt.Errorf("CollectiveComm is rank %d of %d, want %d of %d", d.Rank(), d.Size(), c.Rank(), c.Size())
	}
	switch c.Rank() {
	case 0:
		if err := d.Send([]byte("dup"), 1, 0); err != nil {
			return err
		}
		return c.Send([]byte("parent"), 1, 0)
	case 1:
		buf := make([]byte, 16)
		st, err := c.Recv(buf, comm.AnySource, comm.AnyTag)
		if err != nil {
			return err
		}
		if got := string(buf[:st.Count]); got != "parent" {
			return fmt.Errorf("world receive got %q, want \"parent\": the duplicate's message matched", got)
		}
		st, err = d.Recv(buf, 0, 0)
		if err != nil {
			return err
		}
		if got := string(buf[:st.Count]); got != "dup" {
			return fmt.Errorf("duplicate receive got %q, want \"dup\"", got)
		}
	}
	return nil
}
