package tcp

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// writeChunk is the most a writev(2) of a long frame hands the kernel:
// while more than 2*writeChunk bytes of a frame remain, writeFrame writes
// writeChunk at a time, then the rest at once. Each call ends with the
// kernel pushing what it queued, so the receiver copies the first piece
// out while the sender copies the next in; a frame written in one call
// reached the receiver only once the whole call had been copied in, which
// made a 1 MiB PingPong over loopback take 4 times a 512 KiB one where
// the libraries take 1.7-1.8 (docs/runtime-progress.md, "TCP: long frames in
// pieces").
const writeChunk = 512 << 10

// iovBytes is the total length of iov's buffers.
func iovBytes(iov []unix.Iovec) uint64 {
	var n uint64
	for _, v := range iov {
		n += v.Len
	}
	return n
}

// limitIOV shortens iov to its first max bytes for one writev(2): it
// returns the number of buffers k to pass and, when the k-th buffer
// (index cut) had to be shortened, cut and that buffer's full length,
// which the caller restores after the call; cut is -1 when the first k
// buffers hold exactly max bytes. iov must hold more than max bytes.
func limitIOV(iov []unix.Iovec, max uint64) (k, cut int, full uint64) {
	var before uint64
	for i := range iov {
		if before+iov[i].Len > max {
			if before == max {
				return i, -1, 0
			}
			full = iov[i].Len
			iov[i].Len = max - before
			return i + 1, i, full
		}
		before += iov[i].Len
	}
	return len(iov), -1, 0
}

// writeFrame writes header, payload and trailer (either may be empty) to p's socket
// with writev(2), long frames in pieces of writeChunk, waiting for room in the socket's buffer when it is full
// (the rank's input is read meanwhile by the poller goroutine, see
// askPoller). The caller holds p.mu.
func (e *Endpoint) writeFrame(p *peer, hdr, payload, trailer []byte) error {
	n := 0
	for _, b := range [3][]byte{hdr, payload, trailer} {
		if len(b) > 0 {
			p.iov[n].Base = &b[0]
			p.iov[n].SetLen(len(b))
			n++
		}
	}
	iov := p.iov[:n]
	defer func() { p.iov[0].Base, p.iov[1].Base, p.iov[2].Base = nil, nil, nil }() // do not keep the payload alive
	for len(iov) > 0 {
		k, cut, full := len(iov), -1, uint64(0)
		if iovBytes(iov) > 2*writeChunk {
			k, cut, full = limitIOV(iov, writeChunk)
		}
		n, _, errno := unix.Syscall(unix.SYS_WRITEV, uintptr(p.fd), uintptr(unsafe.Pointer(&iov[0])), uintptr(k))
		if cut >= 0 {
			iov[cut].Len = full
		}
		switch errno {
		case 0:
		case unix.EINTR:
			continue
		case unix.EAGAIN:
			e.askPoller()
			if err := e.waitFD(p, unix.POLLOUT, 0); err != nil {
				return err
			}
			continue
		default:
			return errno
		}
		w := uint64(n)
		for len(iov) > 0 && w >= iov[0].Len {
			w -= iov[0].Len
			iov = iov[1:]
		}
		if len(iov) > 0 && w > 0 {
			iov[0].Base = (*byte)(unsafe.Add(unsafe.Pointer(iov[0].Base), w))
			iov[0].Len -= w
		}
	}
	return nil
}
