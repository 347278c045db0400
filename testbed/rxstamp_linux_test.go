package testbed

import (
	"math"
	"net"
	"slices"
	"sync"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// rxConn is one end of a TCP connection between two nodes whose kernel
// stamps every segment it receives (SO_TIMESTAMPING, software): the time
// the last byte of a message arrived is the kernel's, taken in the
// forwarder's delivery, not the reading process's.
type rxConn struct {
	c  *net.TCPConn
	rc interface {
		Read(func(uintptr) bool) error
		Control(func(uintptr)) error
	}
}

func newRxConn(t *testing.T, c net.Conn) rxConn {
	t.Helper()
	tc := c.(*net.TCPConn)
	rc, err := tc.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var serr error
	rc.Control(func(fd uintptr) {
		// Buffers that hold a whole message: the writer queues it in one
		// call, so the transfer runs in the kernels and the forwarder only.
		for _, o := range []int{unix.SO_SNDBUFFORCE, unix.SO_RCVBUFFORCE} {
			if err := unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, o, 8<<20); err != nil {
				serr = err
			}
		}
		if err := unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_TIMESTAMPING,
			unix.SOF_TIMESTAMPING_RX_SOFTWARE|unix.SOF_TIMESTAMPING_SOFTWARE); err != nil {
			serr = err
		}
	})
	if serr != nil {
		t.Fatal(serr)
	}
	return rxConn{c: tc, rc: rc}
}

// dialStamped connects node src of st to node dst over the emulated
// network and returns both ends as rxConn; they are closed when t ends.
func dialStamped(t *testing.T, st State, src, dst int) (from, to rxConn) {
	t.Helper()
	var ln net.Listener
	if err := InNode(st.Node(dst), func() (err error) { ln, err = net.Listen("tcp", Addr(dst)+":0"); return err }); err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var c net.Conn
	if err := InNode(st.Node(src), func() (err error) { c, err = net.Dial("tcp", ln.Addr().String()); return err }); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	s, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return newRxConn(t, c), newRxConn(t, s)
}

// leg is one direction of a connection: written at from, received at to.
type leg struct{ from, to rxConn }

// timeLegs writes msg once on every leg, one leg after the other, and
// returns per leg the time from before the first write to the kernel's
// receipt of the leg's last byte. Each write queues the whole message in
// the socket (newRxConn's buffers), so from then on the transfers run in
// the nodes' kernels and the forwarder; the writing process's scheduling
// enters only the start, and can only lengthen a time. together reports
// whether the writes took at most legsStartWithin: legs started further
// apart overlap less, so that several legs at once would look faster than
// they are (a PingPing whose second write waited for a CPU for a whole
// message is two PingPongs).
func timeLegs(t *testing.T, legs []leg, msg []byte) (d []time.Duration, together bool) {
	t.Helper()
	at := make([]time.Time, len(legs))
	errs := make([]error, len(legs))
	var wg sync.WaitGroup
	t0 := time.Now()
	for i, l := range legs {
		if _, err := l.from.c.Write(msg); err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() { defer wg.Done(); at[i], errs[i] = l.to.recv(len(msg)) }()
	}
	together = time.Since(t0) <= legsStartWithin
	wg.Wait()
	d = make([]time.Duration, len(legs))
	for i := range legs {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		d[i] = at[i].Sub(t0)
	}
	return d, together
}

// legsStartWithin bounds the writes of one timeLegs call: 2 ms, under 0.5%
// of the transfers the tests time (0.44-1.1 s). Writing 1 MiB into a
// socket takes 0.2-1.5 ms; longer, the writer waited for a CPU.
const legsStartWithin = 2 * time.Millisecond

// slowest returns the longest of d when its legs started together, and
// apart otherwise: such a round gives no time for legs at once (bestOf
// keeps the shortest time of each quantity).
func slowest(d []time.Duration, together bool) time.Duration {
	if !together {
		return apart
	}
	return slices.Max(d)
}

// apart is slowest's time of legs that did not start together.
const apart = time.Duration(math.MaxInt64)

// Rounds of bestOf: at least bestMinRounds, at most bestMaxRounds.
const (
	bestMinRounds = 3
	bestMaxRounds = 12
)

// bestOf runs measure in rounds and returns the shortest time of each
// quantity it measures, and the number of rounds. The host can only
// lengthen a transfer through the emulated network, never shorten it (the
// forwarder delivers no frame before the model's time, and a process or
// kernel that waits for a CPU only adds time), so the shortest round is
// the one the host disturbed least: a loaded host needs more rounds to
// find an undisturbed one, a wrong model or forwarder misses in every
// round. Rounds end once every best time is at most near (e.g. 1.02)
// times its model (models, same order as measure's times), so a network
// that misses its model runs all bestMaxRounds.
func bestOf(near float64, models []time.Duration, measure func() []time.Duration) (best []time.Duration, rounds int) {
	for rounds < bestMaxRounds {
		d := measure()
		rounds++
		if best == nil {
			best = d
		}
		done := rounds >= bestMinRounds
		for i := range d {
			best[i] = min(best[i], d[i])
			done = done && float64(best[i]) <= near*float64(models[i])
		}
		if done {
			break
		}
	}
	return best, rounds
}

// payloadTime returns the time a message of size bytes takes at rateBps
// of TCP payload.
func payloadTime(size int, rateBps float64) time.Duration {
	return time.Duration(float64(size) * 8 / rateBps * 1e9)
}

// recv reads n bytes and returns when the kernel received the last of them.
func (r rxConn) recv(n int) (time.Time, error) {
	buf := make([]byte, 1<<20)
	oob := make([]byte, 512)
	var last time.Time
	for got := 0; got < n; {
		var k int
		var rerr error
		err := r.rc.Read(func(fd uintptr) bool {
			var oobn int
			k, oobn, _, _, rerr = unix.Recvmsg(int(fd), buf[:min(len(buf), n-got)], oob, 0)
			if rerr == unix.EAGAIN {
				return false
			}
			if msgs, err := unix.ParseSocketControlMessage(oob[:oobn]); err == nil {
				for _, m := range msgs {
					if m.Header.Level == unix.SOL_SOCKET && m.Header.Type == unix.SO_TIMESTAMPING && len(m.Data) >= int(unsafe.Sizeof(unix.Timespec{})) {
						ts := *(*unix.Timespec)(unsafe.Pointer(&m.Data[0]))
						last = time.Unix(ts.Unix())
					}
				}
			}
			return true
		})
		if err == nil {
			err = rerr
		}
		if err != nil {
			return last, err
		}
		if k == 0 {
			return last, unix.ECONNRESET
		}
		got += k
	}
	return last, nil
}
