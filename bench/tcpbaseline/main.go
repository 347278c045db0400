// Command tcpbaseline measures what a plain Go TCP socket ping-pong achieves
// on this host and prints it next to mpbench's own PingPong, so the runtime's
// overhead over the raw socket can be read as a ratio from one run.
//
// Usage:
//
//	go run ./bench/tcpbaseline [-mpbench PATH] [-sizes 0,8,1048576,4194304] [-repeats 5]
//
// The raw ping-pong runs between two OS processes (this program re-executes
// itself as the echo peer) over 127.0.0.1 with TCP_NODELAY, the same
// process layout as `mpbench run -np 2 PingPong`. Each figure uses IMB's
// PingPong definitions: t = half the round-trip time averaged over the
// repetitions of one sample (IMB's repetition schedule: 1000 repetitions up
// to 32 KiB, then 40 MiB / size), bandwidth = bytes / t in MB/s with
// 1 MB = 10^6 bytes. A 0-byte message still needs a frame on the wire, so
// the raw ping-pong carries max(bytes, 1) bytes. Samples of the two are
// interleaved and the median of -repeats samples is printed.
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

func main() {
	if len(os.Args) > 2 && os.Args[1] == "-echo" {
		if err := echo(os.Args[2]); err != nil {
			fmt.Fprintln(os.Stderr, "tcpbaseline echo:", err)
			os.Exit(1)
		}
		return
	}
	mpbench := flag.String("mpbench", "", "path of the mpbench binary (default: build ./cmd/mpbench into a temporary directory)")
	sizesFlag := flag.String("sizes", "0,8,1048576,4194304", "message sizes in bytes, comma-separated")
	repeats := flag.Int("repeats", 5, "interleaved samples of each tool per size; the median is printed")
	flag.Parse()
	sizes, err := parseSizes(*sizesFlag)
	if err != nil {
		fmt.Fprintln(os.Stderr, "tcpbaseline:", err)
		os.Exit(2)
	}
	if err := run(*mpbench, sizes, *repeats); err != nil {
		fmt.Fprintln(os.Stderr, "tcpbaseline:", err)
		os.Exit(1)
	}
}

func parseSizes(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 0 {
			return nil, fmt.Errorf("-sizes %q: expected comma-separated non-negative byte counts, e.g. 0,8,1048576", s)
		}
		out = append(out, n)
	}
	return out, nil
}

// reps is IMB's default repetition count for a message of n bytes:
// min(1000, 40 MiB / n), at least 1 (IMB_settings.h MSGSPERSAMPLE, OVERALL_VOL).
func reps(n int) int {
	if n == 0 {
		return 1000
	}
	return max(1, min(1000, 40*1048576/n))
}

func run(mpbench string, sizes []int, repeats int) error {
	if mpbench == "" {
		dir, err := os.MkdirTemp("", "tcpbaseline")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		mpbench = filepath.Join(dir, "mpbench")
		build := exec.Command("go", "build", "-o", mpbench, "./cmd/mpbench")
		build.Stderr = os.Stderr
		if err := build.Run(); err != nil {
			return fmt.Errorf("building mpbench (run from the repository root or pass -mpbench): %w", err)
		}
	}
	raw := map[int][]float64{}
	mpb := map[int][]float64{}
	for i := 0; i < repeats+1; i++ { // the first pass warms up and is thrown away
		for _, n := range sizes {
			t, err := rawPingPong(n)
			if err != nil {
				return err
			}
			if i > 0 {
				raw[n] = append(raw[n], t)
			}
		}
		ts, err := mpbenchPingPong(mpbench, sizes)
		if err != nil {
			return err
		}
		if i > 0 {
			for n, t := range ts {
				mpb[n] = append(mpb[n], t)
			}
		}
	}
	fmt.Printf("# PingPong, 2 processes on this host over TCP loopback; median of %d interleaved samples\n", repeats)
	fmt.Printf("# t = half round trip [usec]; bandwidth in MB/s with 1 MB = 10^6 bytes\n")
	fmt.Printf("%12s %14s %14s %12s %14s %14s %12s\n", "#bytes", "raw t[usec]", "mpbench t", "t ratio", "raw MB/s", "mpbench MB/s", "bw ratio")
	for _, n := range sizes {
		r, m := median(raw[n]), median(mpb[n])
		rbw, mbw := float64(n)/r, float64(n)/m
		bwRatio := "-"
		if n > 0 {
			bwRatio = fmt.Sprintf("%.2f", mbw/rbw)
		}
		fmt.Printf("%12d %14.2f %14.2f %12.2f %14.2f %14.2f %12s\n", n, r, m, m/r, rbw, mbw, bwRatio)
	}
	return nil
}

func median(v []float64) float64 {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	if len(s) == 0 {
		return 0
	}
	return s[len(s)/2]
}

// rawPingPong starts an echo process and returns half the mean round trip
// of reps(n) exchanges of n bytes, in microseconds, after a warm-up.
func rawPingPong(n int) (float64, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	self, err := os.Executable()
	if err != nil {
		return 0, err
	}
	peer := exec.Command(self, "-echo", ln.Addr().String())
	peer.Stderr = os.Stderr
	if err := peer.Start(); err != nil {
		return 0, err
	}
	defer peer.Wait()
	c, err := ln.Accept()
	if err != nil {
		return 0, err
	}
	defer c.Close()
	w := bufio.NewWriter(c)
	if err := binaryInts(w, n, reps(n)); err != nil {
		return 0, err
	}
	buf := make([]byte, max(n, 1))
	warm := max(10, reps(n)/10)
	for i := 0; i < warm; i++ {
		if err := roundTrip(c, buf); err != nil {
			return 0, err
		}
	}
	start := time.Now()
	for i := 0; i < reps(n); i++ {
		if err := roundTrip(c, buf); err != nil {
			return 0, err
		}
	}
	el := time.Since(start)
	return el.Seconds() * 1e6 / float64(reps(n)) / 2, nil
}

func roundTrip(c net.Conn, buf []byte) error {
	if _, err := c.Write(buf); err != nil {
		return err
	}
	_, err := io.ReadFull(c, buf)
	return err
}

func binaryInts(w *bufio.Writer, a, b int) error {
	fmt.Fprintf(w, "%d %d\n", a, b)
	return w.Flush()
}

// echo is the peer process: it reads the size and count, then echoes every
// message back until the connection closes.
func echo(addr string) error {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return err
	}
	defer c.Close()
	r := bufio.NewReader(c)
	line, err := r.ReadString('\n')
	if err != nil {
		return err
	}
	var n, count int
	if _, err := fmt.Sscanf(line, "%d %d", &n, &count); err != nil {
		return err
	}
	buf := make([]byte, max(n, 1))
	for {
		if _, err := io.ReadFull(r, buf); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		if _, err := c.Write(buf); err != nil {
			if errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ECONNRESET) {
				return nil // the measuring side has finished
			}
			return err
		}
	}
}

// mpbenchPingPong runs `mpbench run -np 2 --transport tcp PingPong` on the sizes over
// TCP and returns t[usec] per size from its JSON Lines output.
func mpbenchPingPong(bin string, sizes []int) (map[int]float64, error) {
	dir, err := os.MkdirTemp("", "tcpbaseline")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	lens := filepath.Join(dir, "msglen")
	var sb strings.Builder
	for _, n := range sizes {
		fmt.Fprintln(&sb, n)
	}
	if err := os.WriteFile(lens, []byte(sb.String()), 0o644); err != nil {
		return nil, err
	}
	out := filepath.Join(dir, "pp.json")
	cmd := exec.Command(bin, "run", "-np", "2", "--transport", "tcp", "PingPong", "-msglen", lens, "--json", out, "--quiet")
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("mpbench run: %w", err)
	}
	return readJSONTimes(out)
}

// readJSONTimes extracts bytes -> t[usec] (the row's t_max) from an mpbench
// JSON Lines file.
func readJSONTimes(path string) (map[int]float64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[int]float64{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var row struct {
			Bytes *int64   `json:"bytes"`
			TMax  *float64 `json:"t_max_usec"`
		}
		if json.Unmarshal(sc.Bytes(), &row) != nil || row.Bytes == nil || row.TMax == nil {
			continue
		}
		out[int(*row.Bytes)] = *row.TMax
	}
	return out, sc.Err()
}
