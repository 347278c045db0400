package bench

import (
	"github.com/mpbench/mpbench/comm"
	"github.com/mpbench/mpbench/result"
	"github.com/mpbench/mpbench/result/imb"
)

// Uniband and Biband (IMB_bandwidth.c, IMB_uni_bandwidth and
// IMB_bi_bandwidth; MPI1_benchmark.cpp flags PARALLEL_TRANSFER_MSG_RATE):
// the group of an even number of ranks forms peers = procs/2 pairs, rank
// r < peers with rank r+peers. In one iteration of Uniband each rank r <
// peers posts WindowSize (-window_size, default 256) MPI_Isend of
// bytes to its partner and waits for all of them, then receives a 1-byte
// acknowledgement; the partner posts as many MPI_Irecv, waits, and sends
// the acknowledgement. In Biband both ranks of a pair post the window of
// MPI_Irecv and then of MPI_Isend, wait for all, and the lower rank
// receives the acknowledgement. Message k of the window uses the send and
// receive slot k (IMB: ws % cache_iter), so without -off_cache every
// message of a window shares one buffer, as in IMB.
//
// The table has no time column (IMB's OUT_BW_AND_MSG_RATE): with t_max the
// slowest rank's time per iteration in usec,
// Msg/sec = ScaleBW * 10^6 * window * peers / t_max and
// Mbytes/sec = Msg/sec * bytes / Mbyte (IMB_output.c,
// IMB_display_times); ScaleBW is 1 for Uniband and 2 for Biband (its
// SCALE_BW_DOUBLE: every pair moves a window each way). Their class,
// ParallelTransferMsgRate, with its table layout, its rates (MessageRate)
// and its parameter (WindowSize), is declared here with them.
func init() {
	Register(Spec{
		Name: "Uniband", Class: ParallelTransferMsgRate, LibraryBarrier: true,
		ScaleTime: 1, ScaleBW: 1,
		Expect:   ExpectFrom(partner),
		Received: func(e *Env, _ int) int64 { return receivedIf(e, e.Comm.Rank() >= e.Comm.Size()/2) },
		Kernel:   func(e *Env, n int) (float64, error) { return window(e, n, false) },
	})
	Register(Spec{
		Name: "Biband", Class: ParallelTransferMsgRate, LibraryBarrier: true,
		ScaleTime: 1, ScaleBW: 2,
		Expect: ExpectFrom(partner),
		Kernel: func(e *Env, n int) (float64, error) { return window(e, n, true) },
	})
}

// WindowSize is IMB's -window_size, the parameter of
// ParallelTransferMsgRate: the messages Uniband and Biband keep in flight
// per pair and direction in one iteration, default 256 (MPI1_suite.cpp);
// at most 2^16 requests a rank keeps in flight.
var WindowSize = Param{Name: "window_size", Default: 256, Min: 1, Max: 1 << 16,
	Usage: "IMB -window_size N: messages in flight per pair and direction in Uniband and Biband"}

// ParallelTransferMsgRate is the class of Uniband and Biband: pairs of an
// even group keep a window of WindowSize messages in flight; Mbytes/sec and
// Msg/sec (MessageRate), no time column.
var ParallelTransferMsgRate = &Class{Name: "parallel transfer (message rate)", Layout: fixedLayout(imb.OutBWMsgRate),
	Rates: MessageRate, Pairs: true, Params: []Param{WindowSize}}

// MessageRate is IMB_display_times' message rate of Uniband and Biband, a
// Class.Rates: with t_max the slowest rank's time per iteration in usec,
// Msg/sec = ScaleBW * 10^6 * window * pairs / t_max (window = b's
// WindowSize, pairs = processes/2) and Mbytes/sec = Msg/sec * bytes / Mbyte
// (both 0 when t_max is 0); a block without ScaleBW has neither.
func MessageRate(b Block, row *result.Row) {
	if b.ScaleBW <= 0 {
		return
	}
	row.MBps, row.MsgRate = 0, 0
	if row.TMax > 0 {
		row.MsgRate = b.ScaleBW * 1e6 * float64(b.Params[WindowSize.Name]) * float64(b.Processes/2) / row.TMax
		row.MBps = row.MsgRate * float64(row.Bytes) / b.MByte
	}
}

// partner is the rank paired with rank in a group of procs ranks: r and
// r+procs/2.
func partner(rank, procs int) []int {
	peers := procs / 2
	if rank < peers {
		return []int{rank + peers}
	}
	return []int{rank - peers}
}

// receivedIf is a Spec.Received value: the whole message when the calling
// rank receives one, else nothing.
func receivedIf(e *Env, receives bool) int64 {
	if receives {
		return e.Bytes
	}
	return 0
}

// windowTag is the tag of the window's messages and acknowledgements
// (IMB_bandwidth.c's s_tag = r_tag = 1).
const windowTag = 1

// window times n iterations of Uniband (bidir false) or Biband (true) on
// the calling rank; a communicator that runs loops itself runs it as
// comm.LoopUniband or comm.LoopBiband.
func window(e *Env, n int, bidir bool) (float64, error) {
	c := e.Comm
	peers := c.Size() / 2
	sender := c.Rank() < peers
	peer := partner(c.Rank(), c.Size())[0]
	w := max(e.Params[WindowSize.Name], 1)
	kind := comm.LoopUniband
	if bidir {
		kind = comm.LoopBiband
	}
	if secs, ran, err := e.runLoop(comm.Loop{Kind: kind, Peer: peer, Tag: windowTag, Starts: sender, Window: w}, n); ran {
		return secs, err
	}
	reqs := make([]comm.Request, 2*w)
	ack := make([]byte, 1)
	start := c.Wtime()
	last := start
	for i := 0; i < n; i++ {
		var err error
		k := 0
		if bidir || !sender {
			err = postWindow(e, reqs[k:k+w], peer, true)
			k += w
		}
		if err == nil && (bidir || sender) {
			err = postWindow(e, reqs[k:k+w], peer, false)
			k += w
		}
		if werr := comm.Waitall(reqs[:k]); err == nil {
			err = werr
		}
		clear(reqs)
		if err == nil && sender {
			_, err = c.Recv(ack, peer, windowTag)
		} else if err == nil {
			err = c.Send(ack, peer, windowTag)
		}
		if err != nil {
			return 0, err
		}
		e.tick(i, &last)
	}
	return c.Wtime() - start, nil
}

// postWindow starts len(reqs) receives (recv) or sends of e.Bytes with
// peer, message k in slot k, and stores their requests in reqs. On an
// error the requests already started stay in reqs for the caller to wait.
func postWindow(e *Env, reqs []comm.Request, peer int, recv bool) error {
	var err error
	for k := range reqs {
		if recv {
			reqs[k], err = e.Comm.Irecv(e.Recv(k), peer, windowTag)
		} else {
			reqs[k], err = e.Comm.Isend(e.Send(k), peer, windowTag)
		}
		if err != nil {
			return err
		}
	}
	return nil
}
