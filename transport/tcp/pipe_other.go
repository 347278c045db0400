//go:build !linux

package tcp

import "golang.org/x/sys/unix"

// wakePipe returns the read and write ends of a non-blocking, close-on-exec
// pipe: a byte written to w ends the poller's poll(2) on r. Systems without
// pipe2(2) set the flags after creating the pipe.
func wakePipe() (r, w int, err error) {
	var p [2]int
	if err = unix.Pipe(p[:]); err != nil {
		return -1, -1, err
	}
	for _, fd := range p {
		unix.CloseOnExec(fd)
		if err = unix.SetNonblock(fd, true); err != nil {
			unix.Close(p[0])
			unix.Close(p[1])
			return -1, -1, err
		}
	}
	return p[0], p[1], nil
}
