// Package transfer is the study's file-transfer test (seed 000, section
// 3.1): a client sends "files" of given sizes to a server over TCP, each
// transfer on a new connection, and times each from the connection's start
// until the server confirms it has every byte. Bandwidth is size / time.
// The study sent 0 B, 1 B, 1 KB, 1 MB, 10 MB and 100 MB ten times each over
// every network and reported Mbit/s (its table 4.1: 10 MB files).
//
// Protocol: the client connects, writes the size as an 8-byte big-endian
// integer and then the bytes, and reads one byte back; the server reads the
// size and exactly that many bytes, then writes one byte and closes.
package transfer

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"time"
)

// DefaultPort is the server's TCP port when none is given.
const DefaultPort = 5210

// StudySizes are the file sizes of seed 000 section 3.1, in bytes (KB and
// MB as 10^3 and 10^6: the study's 100 MB file took about 100000 "Kbytes"
// on its figure 4.1's axis).
var StudySizes = []int64{0, 1, 1e3, 1e6, 10e6, 100e6}

// MaxSize bounds one transfer: 64 GB.
const MaxSize = 64e9

// Serve answers transfers on ln until it is closed; each connection is
// served on its own goroutine. A client's error ends its connection only.
// Serve returns the listener's error (net.ErrClosed after Close).
func Serve(ln net.Listener) error {
	for {
		c, err := ln.Accept()
		if err != nil {
			return err
		}
		go func() {
			defer c.Close()
			serveOne(c)
		}()
	}
}

// serveOne receives one file and confirms it.
func serveOne(c net.Conn) error {
	var hdr [8]byte
	if _, err := io.ReadFull(c, hdr[:]); err != nil {
		return err
	}
	size := int64(binary.BigEndian.Uint64(hdr[:]))
	if size < 0 || size > MaxSize {
		return fmt.Errorf("size %d out of range", size)
	}
	n, err := io.CopyN(io.Discard, c, size)
	if err != nil {
		return fmt.Errorf("received %d of %d bytes: %v", n, size, err)
	}
	_, err = c.Write([]byte{1})
	return err
}

// chunk is the buffer the client writes from: 1 MiB of zeros.
var chunk = make([]byte, 1<<20)

// Send makes one transfer of size bytes over a connection from dial and
// returns its time: from just before dial until the server's confirmation
// arrives (connection set-up included, as when a program sends a file).
func Send(dial func() (net.Conn, error), size int64) (time.Duration, error) {
	if size < 0 || size > MaxSize {
		return 0, fmt.Errorf("size %d out of range 0..%d", size, int64(MaxSize))
	}
	start := time.Now()
	c, err := dial()
	if err != nil {
		return 0, err
	}
	defer c.Close()
	var hdr [8]byte
	binary.BigEndian.PutUint64(hdr[:], uint64(size))
	if _, err := c.Write(hdr[:]); err != nil {
		return 0, err
	}
	for left := size; left > 0; {
		n := min(left, int64(len(chunk)))
		if _, err := c.Write(chunk[:n]); err != nil {
			return 0, fmt.Errorf("sending %d bytes: %v", size, err)
		}
		left -= n
	}
	var ack [1]byte
	if _, err := io.ReadFull(c, ack[:]); err != nil {
		return 0, fmt.Errorf("waiting for the server's confirmation of %d bytes: %v", size, err)
	}
	return time.Since(start), nil
}

// ParseSizes reads a comma-separated list of sizes: a number of bytes with
// an optional unit K, M, G (10^3, 10^6, 10^9, as the study counts) or Ki,
// Mi, Gi (2^10, 2^20, 2^30); "B" may follow. "0,1,1K,1M" is 0, 1, 1000,
// 1000000.
func ParseSizes(s string) ([]int64, error) {
	var out []int64
	for _, f := range strings.Split(s, ",") {
		t := strings.TrimSuffix(strings.ToUpper(strings.TrimSpace(f)), "B")
		mult := int64(1)
		for _, u := range []struct {
			suffix string
			m      int64
		}{{"KI", 1 << 10}, {"MI", 1 << 20}, {"GI", 1 << 30}, {"K", 1e3}, {"M", 1e6}, {"G", 1e9}} {
			if v, ok := strings.CutSuffix(t, u.suffix); ok {
				t, mult = v, u.m
				break
			}
		}
		v, err := strconv.ParseFloat(t, 64)
		if err != nil || v < 0 || v*float64(mult) > MaxSize {
			return nil, fmt.Errorf("size %q: give bytes with an optional unit, e.g. 0,1,1K,1M,10M,100M (K = 10^3, Ki = 2^10), at most 64G", f)
		}
		out = append(out, int64(v*float64(mult)))
	}
	if len(out) == 0 {
		return nil, errors.New("no sizes given")
	}
	return out, nil
}

// FormatSize writes a size the way ParseSizes reads it, with the largest
// decimal unit that divides it: 10000000 is "10M".
func FormatSize(b int64) string {
	switch {
	case b >= 1e9 && b%1e9 == 0:
		return strconv.FormatInt(b/1e9, 10) + "G"
	case b >= 1e6 && b%1e6 == 0:
		return strconv.FormatInt(b/1e6, 10) + "M"
	case b >= 1e3 && b%1e3 == 0:
		return strconv.FormatInt(b/1e3, 10) + "K"
	}
	return strconv.FormatInt(b, 10)
}
