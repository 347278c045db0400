package testbed

import (
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/mpbench/mpbench/testbed/medium"
	"github.com/mpbench/mpbench/transfer"
)

// Check measures testbed st link by link and returns each measurement with
// the model's value:
//
//   - "loopback": half the round trip of a 1-byte TCP ping-pong on node
//     1's lo (the software latency of the host, no emulated network);
//   - "latency 1<->K": the same ping-pong between node 1 and node K; the
//     model is medium.OneWay of a 1-byte segment plus the loopback value;
//   - "bulk K->1": one TCP transfer of Seconds at the model's rate, over a
//     new connection, timed until node 1 confirms; the model is
//     medium.BulkPayloadBps;
//   - "two transfers": 2->1 and 4->3 at once (1->2 and 2->1 with fewer
//     than 4 nodes), their aggregate rate (both transfers' bytes over the
//     time from the first start to the last end); the model is
//     medium.FlowsPayloadBps summed.
func Check(st State, o CheckOptions) ([]CheckRow, error) {
	cfg := st.Config
	n := cfg.Nodes
	srv := make([]net.Listener, n+1)  // transfer servers
	echo := make([]net.Listener, n+1) // ping-pong echo servers
	defer func() {
		for k := 1; k <= n; k++ {
			for _, l := range []net.Listener{srv[k], echo[k]} {
				if l != nil {
					l.Close()
				}
			}
		}
	}()
	for k := 1; k <= n; k++ {
		err := InNode(cfg.Node(k), func() (err error) {
			if srv[k], err = net.Listen("tcp", Addr(k)+":0"); err != nil {
				return err
			}
			echo[k], err = net.Listen("tcp", Addr(k)+":0")
			return err
		})
		if err != nil {
			return nil, err
		}
		go transfer.Serve(srv[k])
		go serveEcho(echo[k])
	}
	var lo net.Listener
	if err := InNode(cfg.Node(1), func() (err error) { lo, err = net.Listen("tcp", "127.0.0.1:0"); return err }); err != nil {
		return nil, err
	}
	defer lo.Close()
	go serveEcho(lo)

	var rows []CheckRow
	loop, err := pingPong(cfg.Node(1), lo.Addr().String(), o.Pings)
	if err != nil {
		return nil, fmt.Errorf("loopback ping-pong: %v", err)
	}
	rows = append(rows, CheckRow{Test: "loopback (node 1)", Unit: "usec", Model: loop, Measured: loop})
	for k := 2; k <= n; k++ {
		m, _ := cfg.Medium()
		model := float64(medium.OneWay(m, 0, k-1, 1))/1e3 + loop
		lat, err := pingPong(cfg.Node(1), echo[k].Addr().String(), o.Pings)
		if err != nil {
			return rows, fmt.Errorf("ping-pong 1<->%d: %v", k, err)
		}
		rows = append(rows, CheckRow{Test: fmt.Sprintf("latency 1<->%d", k), Unit: "usec", Model: model, Measured: lat})
	}
	size := int64(cfg.RateBps / 8 * o.Seconds)
	for k := 2; k <= n; k++ {
		m, _ := cfg.Medium()
		model := medium.BulkPayloadBps(m, k-1, 0, cfg.MTU, cfg.RateBps)
		got, err := bulk(cfg, []medium.Flow{{Src: k - 1, Dst: 0}}, srv, size)
		if err != nil {
			return rows, err
		}
		rows = append(rows, CheckRow{Test: fmt.Sprintf("bulk %d->1", k), Unit: "Mbit/s", Model: model / 1e6, Measured: got / 1e6, Judged: true})
	}
	flows := []medium.Flow{{Src: 0, Dst: 1}, {Src: 1, Dst: 0}}
	name := "two transfers 1->2 + 2->1"
	if n >= 4 {
		flows, name = []medium.Flow{{Src: 1, Dst: 0}, {Src: 3, Dst: 2}}, "two transfers 2->1 + 4->3"
	}
	m, _ := cfg.Medium()
	var model float64
	for _, r := range medium.FlowsPayloadBps(m, flows, cfg.MTU, cfg.RateBps) {
		model += r
	}
	got, err := bulk(cfg, flows, srv, size)
	if err != nil {
		return rows, err
	}
	rows = append(rows, CheckRow{Test: name, Unit: "Mbit/s", Model: model / 1e6, Measured: got / 1e6, Judged: true})
	return rows, nil
}

// serveEcho answers every byte it reads with the same bytes.
func serveEcho(ln net.Listener) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		go func() {
			defer c.Close()
			io.Copy(c, c)
		}()
	}
}

// pingPong connects from node ns to addr and returns the median half
// round trip of n 1-byte exchanges, in usec, after n/10 warm-up ones.
func pingPong(ns, addr string, n int) (float64, error) {
	var c net.Conn
	if err := InNode(ns, func() (err error) { c, err = net.DialTimeout("tcp", addr, 5*time.Second); return err }); err != nil {
		return 0, err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(60 * time.Second))
	b := []byte{1}
	half := make([]float64, 0, n)
	for i := range n + n/10 {
		t := time.Now()
		if _, err := c.Write(b); err != nil {
			return 0, err
		}
		if _, err := io.ReadFull(c, b); err != nil {
			return 0, err
		}
		if i >= n/10 {
			half = append(half, float64(time.Since(t))/2e3)
		}
	}
	sort.Float64s(half)
	return half[len(half)/2], nil
}

// bulk runs one transfer of size bytes per flow at once, each from its
// source node to the transfer server of its destination, and returns their
// aggregate payload rate in bit/s: the bytes of all over the time from the
// first start to the last end. Transfers that start apart (a sender that
// waited for a CPU) overlap less; the sum of their own rates would then
// count the same line time twice, and two transfers on a hub would carry
// more than the medium.
func bulk(cfg Config, flows []medium.Flow, srv []net.Listener, size int64) (float64, error) {
	var wg sync.WaitGroup
	starts := make([]time.Time, len(flows))
	ends := make([]time.Time, len(flows))
	errs := make([]error, len(flows))
	for i, f := range flows {
		wg.Add(1)
		go func() {
			defer wg.Done()
			addr := srv[f.Dst+1].Addr().String()
			dial := func() (c net.Conn, err error) {
				err = InNode(cfg.Node(f.Src+1), func() (err error) { c, err = net.DialTimeout("tcp", addr, 5*time.Second); return err })
				return c, err
			}
			starts[i] = time.Now()
			d, err := transfer.Send(dial, size)
			if err != nil {
				errs[i] = fmt.Errorf("transfer %d->%d: %v", f.Src+1, f.Dst+1, err)
				return
			}
			ends[i] = starts[i].Add(d)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return 0, err
	}
	first, last := slices.MinFunc(starts, time.Time.Compare), slices.MaxFunc(ends, time.Time.Compare)
	return float64(size) * float64(len(flows)) * 8 / last.Sub(first).Seconds(), nil
}
