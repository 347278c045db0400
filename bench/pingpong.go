package bench

// PingPong (IMB_pingpong.c, IMB 2021.x; since 2017u1 with a specific
// source, like PingPongSpecificSource): rank 0 sends a message to rank 1
// and waits for rank 1's message back; rank 1 receives, then sends.
// t = half the round trip (ScaleTime 0.5), Mbytes/sec = bytes/t.
func init() {
	Register(Spec{
		Name: "PingPong", Class: SingleTransfer, Default: true, Pair: true,
		ScaleTime: 0.5, ScaleBW: 1,
		Expect: ExpectFrom(otherOfPair),
		Kernel: pingPong,
	})
}

func pingPong(e *Env, n int) (float64, error) {
	c := e.Comm
	first := c.Rank() == 0
	peer := 1 - c.Rank()
	start := c.Wtime()
	for i := 0; i < n; i++ {
		if first {
			if err := c.Send(e.Send(i), peer, 0); err != nil {
				return 0, err
			}
			if _, err := c.Recv(e.Recv(i), peer, 0); err != nil {
				return 0, err
			}
		} else {
			if _, err := c.Recv(e.Recv(i), peer, 0); err != nil {
				return 0, err
			}
			if err := c.Send(e.Send(i), peer, 0); err != nil {
				return 0, err
			}
		}
	}
	return c.Wtime() - start, nil
}

// otherOfPair is the source of every message in a 2-rank group.
func otherOfPair(rank, _ int) []int { return []int{1 - rank} }
