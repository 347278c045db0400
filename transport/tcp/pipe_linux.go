package tcp

import "golang.org/x/sys/unix"

// wakePipe returns the read and write ends of a non-blocking, close-on-exec
// pipe: a byte written to w ends the poller's poll(2) on r.
func wakePipe() (r, w int, err error) {
	var p [2]int
	if err = unix.Pipe2(p[:], unix.O_NONBLOCK|unix.O_CLOEXEC); err != nil {
		return -1, -1, err
	}
	return p[0], p[1], nil
}
