package testbed

import (
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

// openTAP creates TAP device ifname in namespace ns and returns its file
// descriptor (blocking). The device lives while the descriptor is open. No
// IFF_VNET_HDR: the device has no offloads, so the kernel hands it frames
// of at most MTU + 14 bytes (GSO done in software) and GRO never merges
// the frames written to it.
func openTAP(ns, ifname string) (int, error) {
	fd := -1
	err := InNode(ns, func() error {
		var err error
		fd, err = unix.Open("/dev/net/tun", unix.O_RDWR|unix.O_CLOEXEC, 0)
		if err != nil {
			return err
		}
		var req [unix.IFNAMSIZ + 64]byte
		copy(req[:], ifname)
		*(*uint16)(unsafe.Pointer(&req[unix.IFNAMSIZ])) = unix.IFF_TAP | unix.IFF_NO_PI
		if _, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), unix.TUNSETIFF, uintptr(unsafe.Pointer(&req[0]))); e != 0 {
			unix.Close(fd)
			return fmt.Errorf("TUNSETIFF %s: %v", ifname, e)
		}
		return nil
	})
	return fd, err
}
