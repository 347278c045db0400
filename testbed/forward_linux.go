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
	"sync/atomic"
	"time"

	"github.com/mpbench/mpbench/testbed/medium"
	"golang.org/x/sys/unix"
)

// spinWindow is how long before a frame's delivery time the delivery
// thread stops sleeping and polls the clock. A sleep (ppoll) of a
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
type forwarder struct {
	cfg    Config
	fds    []int
	origin time.Time
	limit  int

	mu      sync.Mutex
	model   medium.Medium
	pending deliveryHeap
	queued  []int // frames waiting per port
	seq     uint64
	rng     *rand.Rand
	stats   Stats
	refs    map[*byte]int   // deliveries left per frame buffer, for framePool
	late    []time.Duration // ring of recent lateness
	lateN   int

	wake  int         // eventfd: a new earliest delivery
	newer atomic.Bool // set with wake, polled while spinning
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
	f := &forwarder{cfg: cfg, model: m, limit: cfg.QueueLimit(), queued: make([]int, cfg.Nodes),
		rng: rand.New(rand.NewPCG(cfg.Seed, 0x6c6f7373)), refs: map[*byte]int{}, late: make([]time.Duration, 4096)}
	for k := 1; k <= cfg.Nodes; k++ {
		fd, err := openTAP(cfg.Node(k), "eth0")
		if err != nil {
			return fail(fmt.Errorf("node %d: %v", k, err))
		}
		f.fds = append(f.fds, fd)
	}
	if f.wake, err = unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK); err != nil {
		return fail(err)
	}
	if err := os.WriteFile(filepath.Join(Dir(name), "forwarder.pid"), fmt.Appendf(nil, "%d\n", os.Getpid()), 0o644); err != nil {
		return fail(err)
	}
	f.origin = time.Now()
	f.writeStats()
	if ready != nil {
		fmt.Fprintln(ready, "ok")
		ready.Close()
	}

	stop := make(chan struct{})
	for port := range f.fds {
		go f.read(port)
	}
	go f.deliver(stop)
	sigs := make(chan os.Signal, 1)
	notifyStop(sigs)
	tick := time.NewTicker(500 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-sigs:
			close(stop)
			f.writeStats()
			return nil
		case <-tick.C:
			f.writeStats()
			if cfg.Owner != 0 && unix.Kill(cfg.Owner, 0) == unix.ESRCH {
				close(stop)
				f.writeStats()
				for _, fd := range f.fds {
					unix.Close(fd)
				}
				return removeTestbed(name, false)
			}
		}
	}
}

// read forwards the frames node port sends.
func (f *forwarder) read(port int) {
	runtime.LockOSThread()
	realtime()
	maxLen := f.cfg.MTU + 14
	buf := make([]byte, 65536+14)
	for {
		n, err := unix.Read(f.fds[port], buf)
		if err != nil {
			if errors.Is(err, unix.EINTR) || errors.Is(err, unix.EAGAIN) {
				continue
			}
			return
		}
		if n < 14 {
			continue
		}
		now := time.Since(f.origin)
		dst := f.portOf(buf[:6])
		frame := append(framePool.Get().([]byte)[:0], buf[:n]...)
		f.mu.Lock()
		f.stats.Frames++
		f.stats.Bytes += uint64(n)
		if n > maxLen {
			f.stats.Oversize++
		}
		if dst != medium.Broadcast && f.queued[dst] >= f.limit {
			f.stats.QueueDrops++
			f.mu.Unlock()
			framePool.Put(frame)
			continue
		}
		arrivals := f.model.Send(port, dst, n, now)
		if f.cfg.Loss > 0 && f.rng.Float64() < f.cfg.Loss {
			f.stats.Lost++
			f.mu.Unlock()
			framePool.Put(frame)
			continue
		}
		f.refs[&frame[0]] = len(arrivals)
		earliest := len(f.pending) == 0
		for _, a := range arrivals {
			if !earliest && a.At < f.pending[0].at {
				earliest = true
			}
			f.seq++
			heap.Push(&f.pending, delivery{at: a.At, seq: f.seq, port: a.Port, frame: frame})
			f.queued[a.Port]++
		}
		f.mu.Unlock()
		if earliest {
			f.newer.Store(true)
			unix.Write(f.wake, []byte{1, 0, 0, 0, 0, 0, 0, 0})
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

// deliver writes each frame to its receiver at the model's time, on one
// OS thread: it sleeps (ppoll on the wake eventfd, woken by an earlier
// frame) until spinWindow before the time, then polls the clock.
func (f *forwarder) deliver(stop chan struct{}) {
	runtime.LockOSThread()
	realtime()
	drain := make([]byte, 8)
	for {
		select {
		case <-stop:
			return
		default:
		}
		f.mu.Lock()
		if len(f.pending) == 0 {
			f.newer.Store(false)
			f.mu.Unlock()
			f.sleep(100 * time.Millisecond)
			unix.Read(f.wake, drain)
			continue
		}
		d := f.pending[0]
		wait := d.at - time.Since(f.origin)
		if wait <= 0 {
			heap.Pop(&f.pending)
			f.queued[d.port]--
			f.stats.Delivered++
			f.late[f.lateN%len(f.late)] = -wait
			f.lateN++
			f.mu.Unlock()
			unix.Write(f.fds[d.port], d.frame)
			f.release(d.frame)
			continue
		}
		f.newer.Store(false)
		f.mu.Unlock()
		if wait > spinWindow {
			f.sleep(wait - spinWindow)
			unix.Read(f.wake, drain)
			continue
		}
		for time.Since(f.origin) < d.at && !f.newer.Load() {
		}
	}
}

// sleep blocks for at most d, or until the wake eventfd is written.
func (f *forwarder) sleep(d time.Duration) {
	ts := unix.NsecToTimespec(int64(d))
	fds := []unix.PollFd{{Fd: int32(f.wake), Events: unix.POLLIN}}
	unix.Ppoll(fds, &ts, nil)
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
// with the ranks. The threads sleep between frames; the kernel's real-time
// throttling bounds them anyway. Where this is refused, they stay normal.
func realtime() {
	unix.SchedSetAttr(0, &unix.SchedAttr{Policy: unix.SCHED_FIFO, Priority: 10}, 0)
}

// framePool recycles frame buffers, so the forwarder does not make garbage
// (a collection's pause would delay frames).
var framePool = sync.Pool{New: func() any { return make([]byte, 0, 9216) }}

// release returns a delivered frame's buffer to framePool after its last
// delivery.
func (f *forwarder) release(frame []byte) {
	f.mu.Lock()
	k := &frame[0]
	f.refs[k]--
	last := f.refs[k] <= 0
	if last {
		delete(f.refs, k)
	}
	f.mu.Unlock()
	if last {
		framePool.Put(frame)
	}
}
