package testbed

import (
	"container/heap"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/mpbench/mpbench/testbed/medium"
	"golang.org/x/sys/unix"
)

// spinWindow is how long before a frame's delivery time the forwarder
// stops sleeping and polls its TAPs and the clock. A sleep (ppoll) of a
// real-time thread wakes 10-50 usec late on a loaded 2-CPU host; polling
// longer costs a core at high frame rates (docs/testbed.md).
const spinWindow = 30 * time.Microsecond

// delivery is one frame due at one port.
type delivery struct {
	at    time.Duration
	seq   uint64
	port  int
	frame []byte
}

type deliveryHeap []delivery

func (h deliveryHeap) Len() int { return len(h) }
func (h deliveryHeap) Less(i, j int) bool {
	return h[i].at < h[j].at || h[i].at == h[j].at && h[i].seq < h[j].seq
}
func (h deliveryHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *deliveryHeap) Push(x any)   { *h = append(*h, x.(delivery)) }
func (h *deliveryHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// forwarder carries frames between the nodes' TAP devices through a model.
// One OS thread (loop) does all the work: it reads every frame as it comes,
// asks the model when it arrives, and writes it to the receiver's TAP at
// that time. A frame crossing an idle testbed so costs one thread wake-up
// (the read's); a reader and a separate delivery thread cost two, and the
// second is on the frame's path whenever it outlasts the frame's wire time
// (docs/testbed.md).
type forwarder struct {
	cfg    Config
	fds    []int         // TAP of each node (port), non-blocking
	pfds   []unix.PollFd // fds, then the stop eventfd
	stop   int           // eventfd: end loop
	origin time.Time
	limit  int
	buf    []byte

	// Owned by loop.
	model    medium.Medium
	pending  deliveryHeap
	queued   []int // frames waiting per port
	seq      uint64
	rng      *rand.Rand
	txAhead  time.Duration // a port's frames go to the model while its transmitter is free within this
	hostQ    [][]hostFrame // per port: frames read, not yet given to the model
	ackFirst bool          // pure ACKs go ahead of waiting data in hostQ
	refs     map[*byte]int // deliveries left per frame buffer, for framePool
	spin     afterFrame    // polls instead of sleeping just after a frame (Config.Poll)
	pollFrom time.Duration // start of the current round of the loop

	mu    sync.Mutex // guards stats and late (writeStats reads them)
	stats Stats
	late  []time.Duration // ring of recent lateness
	lateN int
}

// RunForwarder is the testbed's forwarder process: it opens eth0 of every
// node of testbed name, reports readiness by writing "ok\n" (or one error
// line) to ready (then closes it), and forwards frames until SIGTERM or
// SIGINT, or until the owner process (Config.Owner) exits, in which case it
// removes the testbed itself.
func RunForwarder(name string, ready *os.File) error {
	fail := func(err error) error {
		if ready != nil {
			fmt.Fprintf(ready, "%v\n", err)
			ready.Close()
		}
		return err
	}
	st, err := Load(name)
	if err != nil {
		return fail(err)
	}
	cfg := st.Config
	m, err := cfg.Medium()
	if err != nil {
		return fail(err)
	}
	f := newForwarder(cfg, m)
	for k := 1; k <= cfg.Nodes; k++ {
		fd, err := openTAP(cfg.Node(k), "eth0")
		if err == nil {
			err = unix.SetNonblock(fd, true)
		}
		if err != nil {
			return fail(fmt.Errorf("node %d: %v", k, err))
		}
		f.fds = append(f.fds, fd)
		f.pfds = append(f.pfds, unix.PollFd{Fd: int32(fd), Events: unix.POLLIN})
	}
	if f.stop, err = unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK); err != nil {
		return fail(err)
	}
	f.pfds = append(f.pfds, unix.PollFd{Fd: int32(f.stop), Events: unix.POLLIN})
	if err := os.WriteFile(filepath.Join(Dir(name), "forwarder.pid"), fmt.Appendf(nil, "%d\n", os.Getpid()), 0o644); err != nil {
		return fail(err)
	}
	f.origin = time.Now()
	f.writeStats()
	if ready != nil {
		fmt.Fprintln(ready, "ok")
		ready.Close()
	}

	// The loop's thread keeps its P through its short waits (rawPpoll):
	// another P serves signals, the stats ticker and the owner check.
	if runtime.GOMAXPROCS(0) < 2 {
		runtime.GOMAXPROCS(2)
	}
	done := make(chan struct{})
	go func() {
		f.loop()
		close(done)
	}()
	end := func() {
		unix.Write(f.stop, []byte{1, 0, 0, 0, 0, 0, 0, 0})
		<-done
		f.writeStats()
	}
	sigs := make(chan os.Signal, 1)
	notifyStop(sigs)
	tick := time.NewTicker(500 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-sigs:
			end()
			return nil
		case <-tick.C:
			f.writeStats()
			if cfg.Owner != 0 && unix.Kill(cfg.Owner, 0) == unix.ESRCH {
				end()
				for _, fd := range f.fds {
					unix.Close(fd)
				}
				return removeTestbed(name, false)
			}
		}
	}
}

// newForwarder returns the forwarder of cfg through model m, without
// devices.
func newForwarder(cfg Config, m medium.Medium) *forwarder {
	return &forwarder{cfg: cfg, model: m, limit: cfg.QueueLimit(), queued: make([]int, cfg.Nodes), buf: make([]byte, 65536+14),
		rng: rand.New(rand.NewPCG(cfg.Seed, 0x6c6f7373)), refs: map[*byte]int{}, late: make([]time.Duration, 4096),
		txAhead: TxAhead(cfg.RateBps, cfg.MTU), hostQ: make([][]hostFrame, cfg.Nodes), ackFirst: true,
		spin: newAfterFrame(cfg.Poll, cfg.Nodes)}
}

// loop forwards frames until the stop eventfd is written, on one OS thread
// at real-time priority. It sleeps in ppoll on every TAP until a frame
// comes or until spinWindow before the next event is due (a delivery, or
// a port's transmitter taking the next frame of its host queue); reads
// every frame waiting, gives the models the frames their transmitters may
// take, and writes every frame whose time has come. Within spinWindow of
// an event it polls without sleeping, so frames that come meanwhile are
// read (and timed) when they come. Within Config.Poll of a delivery to a
// node that answers such deliveries it polls too, within the CPU budget of
// afterFrame, so that a reply coming soon after a frame costs no wake-up;
// the time spent so is counted in Stats.PolledMs.
func (f *forwarder) loop() {
	runtime.LockOSThread()
	realtime()
	for first := 0; ; first = (first + 1) % len(f.fds) {
		now := f.now()
		next := time.Duration(math.MaxInt64)
		if len(f.pending) > 0 {
			next = f.pending[0].at
		}
		for port, q := range f.hostQ {
			if len(q) > 0 {
				next = min(next, f.model.TxFree(port)-f.txAhead)
			}
		}
		timeout := 100 * time.Millisecond // idle
		if next < math.MaxInt64 {
			timeout = max(next-now-spinWindow, 0)
		}
		wasPolling := f.spin.polling
		if f.spin.poll(now) {
			timeout = 0
		}
		if wasPolling {
			f.mu.Lock()
			f.stats.PolledMs += float64(now-f.pollFrom) / 1e6
			f.mu.Unlock()
		}
		f.pollFrom = now
		if _, err := rawPpoll(f.pfds, timeout); errors.Is(err, unix.EINTR) {
			continue
		} else if err != nil {
			return
		}
		if f.pfds[len(f.fds)].Revents != 0 {
			return
		}
		for port := range f.fds {
			p := &f.pfds[port]
			if p.Revents&(unix.POLLERR|unix.POLLHUP|unix.POLLNVAL) != 0 {
				p.Fd = -1 // the node's device is gone: stop watching it
			} else if p.Revents != 0 {
				f.read(port)
			}
		}
		// Ports in turn from a different first one each round, so that on a
		// shared medium no port is always served first.
		now = f.now()
		for k := range f.fds {
			f.feed((first+k)%len(f.fds), now)
		}
		f.deliverDue()
	}
}

// now is the time since the forwarder started, the models' clock.
func (f *forwarder) now() time.Duration { return time.Since(f.origin) }

// TxAhead returns how far ahead of a port's transmitter the forwarder
// gives that port's frames to the model: two full frames at rateBps
// (1500-byte MTU at 20 Mbit/s: 1.2 ms), at least 2 ms, so that a
// forwarder woken late by the host's scheduler still finds the next frame
// in the model and the line does not idle.
func TxAhead(rateBps float64, mtu int) time.Duration {
	frames := time.Duration(2 * float64(medium.WireBytes(mtu+14)) * 8 / rateBps * 1e9)
	return max(frames, 2*time.Millisecond)
}

// readBurst bounds the frames read from one TAP in one round, so that one
// busy sender does not hold up deliveries that are due.
const readBurst = 32

// hostFrame is a frame read from a node's TAP and not yet given to the
// model: it waits in the node's transmit queue.
type hostFrame struct {
	frame []byte
	dst   int
	at    time.Duration // when it was read
}

// read takes the frames waiting at node port's TAP (at most readBurst)
// into the port's host queue (enqueue); feed gives them to the model.
func (f *forwarder) read(port int) {
	for range readBurst {
		n, err := rawRead(f.fds[port], f.buf)
		if err != nil {
			return // EAGAIN: none left
		}
		if n >= 14 {
			f.enqueue(port, f.buf[:n], f.now())
		}
	}
}

// enqueue puts a copy of frame, read from port's TAP at now, into the
// port's host queue, or drops it when its receiver's queue is full. A
// pure TCP acknowledgement goes ahead of the data frames waiting there:
// a real host's NIC holds a frame or two, and the rest of what its TCP
// connections send waits in their sockets (TCP small queues), so an ACK
// of the other direction's data leaves after those few frames, not after
// a window of data. The forwarder cannot leave data in the sockets (a TAP
// device orphans every frame it queues, so TCP small queues never hold
// back a sender), so it keeps the order a host's queues would give
// (docs/testbed.md, "Design").
func (f *forwarder) enqueue(port int, frame []byte, now time.Duration) {
	dst := f.portOf(frame[:6])
	f.mu.Lock()
	f.stats.Frames++
	f.stats.Bytes += uint64(len(frame))
	if len(frame) > f.cfg.MTU+14 {
		f.stats.Oversize++
	}
	full := dst != medium.Broadcast && f.queued[dst] >= f.limit
	if full {
		f.stats.QueueDrops++
	}
	f.mu.Unlock()
	if full {
		return
	}
	if dst != medium.Broadcast {
		f.queued[dst]++
	}
	f.spin.heard(port, now)
	hf := hostFrame{frame: append(framePool.Get().([]byte)[:0], frame...), dst: dst, at: now}
	q := f.hostQ[port]
	i := len(q)
	if f.ackFirst && pureACK(hf.frame) {
		for i = 0; i < len(q) && pureACK(q[i].frame); i++ {
		}
	}
	f.hostQ[port] = slices.Insert(q, i, hf)
}

// feed gives the model the frames of port's host queue, in order, while
// the port's transmitter is free within txAhead of now.
func (f *forwarder) feed(port int, now time.Duration) {
	for len(f.hostQ[port]) > 0 && f.model.TxFree(port)-now <= f.txAhead {
		hf := f.hostQ[port][0]
		f.hostQ[port] = f.hostQ[port][1:]
		if len(f.hostQ[port]) == 0 {
			f.hostQ[port] = f.hostQ[port][:0:0] // let the backing array go
		}
		arrivals := f.model.Send(port, hf.dst, len(hf.frame), hf.at)
		if f.cfg.Loss > 0 && f.rng.Float64() < f.cfg.Loss {
			f.mu.Lock()
			f.stats.Lost++
			f.mu.Unlock()
			if hf.dst != medium.Broadcast {
				f.queued[hf.dst]--
			}
			framePool.Put(hf.frame)
			continue
		}
		f.refs[&hf.frame[0]] = len(arrivals)
		for _, a := range arrivals {
			f.seq++
			heap.Push(&f.pending, delivery{at: a.At, seq: f.seq, port: a.Port, frame: hf.frame})
			if hf.dst == medium.Broadcast {
				f.queued[a.Port]++
			}
		}
	}
}

// pureACK reports whether an Ethernet frame is an IPv4 TCP segment
// without payload and without SYN, FIN or RST: an acknowledgement only.
func pureACK(frame []byte) bool {
	if len(frame) < 14+20 || frame[12] != 0x08 || frame[13] != 0x00 {
		return false
	}
	ip := frame[14:]
	ihl := int(ip[0]&0x0f) * 4
	if ip[0]>>4 != 4 || ip[9] != 6 || ihl < 20 || len(ip) < ihl+20 {
		return false
	}
	total := int(ip[2])<<8 | int(ip[3])
	tcp := ip[ihl:]
	doff := int(tcp[12]>>4) * 4
	const synFinRst = 0x07
	return tcp[13]&synFinRst == 0 && total == ihl+doff
}

// portOf returns the port of a destination MAC address, or Broadcast for
// group addresses and unknown stations.
func (f *forwarder) portOf(mac []byte) int {
	for k := 1; k <= f.cfg.Nodes; k++ {
		m := MAC(k)
		if string(mac) == string(m[:]) {
			return k - 1
		}
	}
	return medium.Broadcast
}

// deliverDue writes every frame whose delivery time has come to its
// receiver's TAP, in time order, and records how late each was.
func (f *forwarder) deliverDue() {
	for len(f.pending) > 0 {
		d := f.pending[0]
		late := f.now() - d.at
		if late < 0 {
			return
		}
		heap.Pop(&f.pending)
		f.queued[d.port]--
		rawWrite(f.fds[d.port], d.frame)
		f.spin.delivered(d.port, d.at+late)
		f.release(d.frame)
		f.mu.Lock()
		f.stats.Delivered++
		f.late[f.lateN%len(f.late)] = late
		f.lateN++
		f.mu.Unlock()
	}
}

// writeStats stores the counters in stats.json.
func (f *forwarder) writeStats() {
	f.mu.Lock()
	s := f.stats
	n := min(f.lateN, len(f.late))
	late := append([]time.Duration(nil), f.late[:n]...)
	f.mu.Unlock()
	if n > 0 {
		sort.Slice(late, func(i, j int) bool { return late[i] < late[j] })
		s.LateP50Usec = float64(late[n/2]) / 1e3
		s.LateP99Usec = float64(late[n*99/100]) / 1e3
	}
	s.Updated = time.Now()
	b, _ := json.MarshalIndent(s, "", "  ")
	p := filepath.Join(Dir(f.cfg.Name), "stats.json")
	if os.WriteFile(p+".tmp", b, 0o644) == nil {
		os.Rename(p+".tmp", p)
	}
}

// realtime moves the calling OS thread to SCHED_FIFO (priority 10), so a
// frame is read and delivered on time even when the host's CPUs are busy
// with the ranks. The thread sleeps between frames; the kernel's real-time
// throttling bounds it anyway. Where this is refused, it stays normal.
func realtime() {
	unix.SchedSetAttr(0, &unix.SchedAttr{Policy: unix.SCHED_FIFO, Priority: 10}, 0)
}

// framePool recycles frame buffers, so the forwarder does not make garbage
// (a collection's pause would delay frames).
var framePool = sync.Pool{New: func() any { return make([]byte, 0, 9216) }}

// release returns a delivered frame's buffer to framePool after its last
// delivery.
func (f *forwarder) release(frame []byte) {
	k := &frame[0]
	f.refs[k]--
	if f.refs[k] <= 0 {
		delete(f.refs, k)
		framePool.Put(frame)
	}
}
