package tcp

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// writeFrame writes header, payload and trailer (either may be empty) to p's socket
// with writev(2), waiting for room in the socket's buffer when it is full
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
		n, _, errno := unix.Syscall(unix.SYS_WRITEV, uintptr(p.fd), uintptr(unsafe.Pointer(&iov[0])), uintptr(len(iov)))
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
