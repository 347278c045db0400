package testbed

import (
	"container/heap"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
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
	model   medium.Medium
	pending deliveryHeap
	queued  []int // frames waiting per port
	seq     uint64
	rng     *rand.Rand
	refs    map[*byte]int // deliveries left per frame buffer, for framePool

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
	f := &forwarder{cfg: cfg, model: m, limit: cfg.QueueLimit(), queued: make([]int, cfg.Nodes), buf: make([]byte, 65536+14),
		rng: rand.New(rand.NewPCG(cfg.Seed, 0x6c6f7373)), refs: map[*byte]int{}, late: make([]time.Duration, 4096)}
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

// loop forwards frames until the stop eventfd is written, on one OS thread
// at real-time priority: it sleeps in ppoll on every TAP until a frame
// comes or until spinWindow before the next delivery is due, reads every
// frame waiting, and writes every frame whose time has come; within
// spinWindow of a delivery it polls the TAPs without sleeping, so frames
// that come meanwhile are read (and timed) when they come.
func (f *forwarder) loop() {
	runtime.LockOSThread()
	realtime()
	for {
		timeout := 100 * time.Millisecond // idle
		if len(f.pending) > 0 {
			timeout = max(f.pending[0].at-f.now()-spinWindow, 0)
		}
		ts := unix.NsecToTimespec(int64(timeout))
		if _, err := unix.Ppoll(f.pfds, &ts, nil); errors.Is(err, unix.EINTR) {
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
		f.deliverDue()
	}
}

// now is the time since the forwarder started, the models' clock.
func (f *forwarder) now() time.Duration { return time.Since(f.origin) }

// readBurst bounds the frames read from one TAP in one round, so that one
// busy sender does not hold up deliveries that are due.
const readBurst = 32

// read takes the frames waiting at node port's TAP (at most readBurst)
// through the model.
func (f *forwarder) read(port int) {
	maxLen := f.cfg.MTU + 14
	for range readBurst {
		n, err := unix.Read(f.fds[port], f.buf)
		if err != nil {
			return // EAGAIN: none left
		}
		if n < 14 {
			continue
		}
		now := f.now()
		dst := f.portOf(f.buf[:6])
		f.mu.Lock()
		f.stats.Frames++
		f.stats.Bytes += uint64(n)
		if n > maxLen {
			f.stats.Oversize++
		}
		full := dst != medium.Broadcast && f.queued[dst] >= f.limit
		if full {
			f.stats.QueueDrops++
		}
		f.mu.Unlock()
		if full {
			continue
		}
		arrivals := f.model.Send(port, dst, n, now)
		if f.cfg.Loss > 0 && f.rng.Float64() < f.cfg.Loss {
			f.mu.Lock()
			f.stats.Lost++
			f.mu.Unlock()
			continue
		}
		frame := append(framePool.Get().([]byte)[:0], f.buf[:n]...)
		f.refs[&frame[0]] = len(arrivals)
		for _, a := range arrivals {
			f.seq++
			heap.Push(&f.pending, delivery{at: a.At, seq: f.seq, port: a.Port, frame: frame})
			f.queued[a.Port]++
		}
	}
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
		unix.Write(f.fds[d.port], d.frame)
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
