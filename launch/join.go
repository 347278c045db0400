package launch

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"time"

	"github.com/mpbench/mpbench/transport"
	"github.com/mpbench/mpbench/transport/tcp"
)

// joinTimeout bounds Join when ctx has no deadline: rendezvous plus mesh.
const joinTimeout = 60 * time.Second

// exitLauncherLost is the status a worker exits with when its control
// connection to the launcher drops.
const exitLauncherLost = 1

// Join is the worker side of start-up: it reads MPBENCH_RENDEZVOUS,
// MPBENCH_SECRET, MPBENCH_RANK and MPBENCH_SIZE (and the optional
// MPBENCH_IFADDR, MPBENCH_SOCKBUF), binds the rank's TCP port, registers its
// address with the launcher's rendezvous, receives every rank's address and
// returns the connected tcp endpoint (not yet started). Errors name the
// missing or invalid variable, or the step that failed. If ctx has no
// deadline, Join gives up after 60 s.
//
// From a successful Join on, the process watches its control connection:
// if the launcher goes away, the process prints one line to stderr and
// exits with status 1, so no rank outlives its launcher.
func Join(ctx context.Context) (transport.Endpoint, error) {
	w, err := readWorkerEnv(os.Getenv)
	if err != nil {
		return nil, err
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, joinTimeout)
		defer cancel()
	}
	var d net.Dialer
	ctl, err := d.DialContext(ctx, "tcp", w.rendezvous)
	if err != nil {
		return nil, fmt.Errorf("launch: rank %d: connecting to the rendezvous at %s (%s): %w", w.rank, w.rendezvous, EnvRendezvous, err)
	}
	ep, err := join(ctx, w, ctl)
	if err != nil {
		ctl.Close()
		return nil, fmt.Errorf("launch: rank %d: %w", w.rank, err)
	}
	go watchLauncher(ctl, w)
	return ep, nil
}

func join(ctx context.Context, w workerEnv, ctl net.Conn) (*tcp.Endpoint, error) {
	ifAddr := w.ifAddr
	if ifAddr == "" {
		ifAddr = ctl.LocalAddr().(*net.TCPAddr).IP.String()
	}
	ln, err := tcp.Listen(tcp.Options{Rank: w.rank, Size: w.size, Secret: []byte(w.secret), Addr: ifAddr, SocketBufferBytes: w.sockBuf})
	if err != nil {
		return nil, err
	}
	addrs, err := exchange(ctx, ctl, register{Secret: w.secret, Rank: w.rank, Size: w.size, Addr: ln.Addr()})
	if err != nil {
		ln.Close()
		return nil, err
	}
	return ln.Connect(ctx, addrs)
}

// exchange sends the registration and waits for the address table.
func exchange(ctx context.Context, ctl net.Conn, m register) ([]string, error) {
	stop := context.AfterFunc(ctx, func() { ctl.SetDeadline(time.Now()) })
	defer stop()
	b, _ := json.Marshal(m)
	if _, err := ctl.Write(append(b, '\n')); err != nil {
		return nil, fmt.Errorf("registering with the rendezvous: %w", err)
	}
	line, err := bufio.NewReaderSize(ctl, maxLine).ReadSlice('\n')
	if err != nil {
		if ctx.Err() != nil {
			err = context.Cause(ctx)
		}
		return nil, fmt.Errorf("waiting for the rendezvous table: %w", err)
	}
	var t table
	if err := json.Unmarshal(line, &t); err != nil {
		return nil, fmt.Errorf("rendezvous table: %w", err)
	}
	if t.Error != "" {
		return nil, fmt.Errorf("rendezvous rejected this rank: %s", t.Error)
	}
	if len(t.Addrs) != m.Size {
		return nil, fmt.Errorf("rendezvous table has %d addresses for %d ranks", len(t.Addrs), m.Size)
	}
	ctl.SetDeadline(time.Time{})
	return t.Addrs, nil
}

// watchLauncher blocks on the control connection, on which the launcher
// sends nothing after the table; when it ends, the launcher is gone and the
// process exits.
func watchLauncher(ctl net.Conn, w workerEnv) {
	_, err := io.Copy(io.Discard, ctl)
	if err == nil {
		err = io.EOF
	}
	fmt.Fprintf(os.Stderr, "mpbench: rank %d: lost the control connection to the launcher at %s (%v); exiting\n", w.rank, w.rendezvous, err)
	os.Exit(exitLauncherLost)
}
