package launch

import (
	"bufio"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"time"

	"github.com/mpbench/mpbench/transport"
	"github.com/mpbench/mpbench/transport/auth"
	"github.com/mpbench/mpbench/transport/hybrid"
	"github.com/mpbench/mpbench/transport/shm"
	"github.com/mpbench/mpbench/transport/tcp"
)

// joinTimeout bounds Join when ctx has no deadline: rendezvous plus mesh.
const joinTimeout = 60 * time.Second

// Job describes the job a rank joined, for result headers and metadata.
type Job struct {
	// Hosts is the host of every rank (len size), as the launcher named
	// it (hostfile, --host) or, for a local job, this host's name.
	Hosts []string
	// Wireup says how the ranks found each other: "mpbench launcher",
	// "PMI-1" or "PMI-2".
	Wireup string
}

// WireupLauncher is Job.Wireup for ranks started by mpbench's launcher.
const WireupLauncher = "mpbench launcher"

// Join is JoinJob without the job description.
func Join(ctx context.Context) (transport.Endpoint, error) {
	ep, _, err := JoinJob(ctx)
	return ep, err
}

// JoinJob is the worker side of start-up: it reads MPBENCH_RENDEZVOUS,
// MPBENCH_SECRET, MPBENCH_RANK and MPBENCH_SIZE (and the optional
// MPBENCH_TRANSPORT, MPBENCH_IF, MPBENCH_IFADDR, MPBENCH_SOCKBUF,
// MPBENCH_SHM_CMA), creates the rank's shared-memory segment and binds its
// TCP port (as the transport mode asks), registers its address with the
// launcher's rendezvous, receives every rank's address and returns the
// connected endpoint (not yet started) and the job's rank-to-host map:
// transport/shm to the ranks on this host and transport/tcp to the others
// (MPBENCH_TRANSPORT=auto, the default), a hybrid of both when the job
// spans hosts; tcp only or shm only when MPBENCH_TRANSPORT says so.
// TransportName names what was chosen. Errors name the missing or invalid
// variable, or the step that failed. If ctx has no deadline, JoinJob gives
// up after 60 s.
//
// From a successful JoinJob on, the process watches its control
// connection: if the launcher goes away, the process prints one line to
// stderr and exits with status 1, so no rank outlives its launcher.
func JoinJob(ctx context.Context) (transport.Endpoint, Job, error) {
	w, err := readWorkerEnv(os.Getenv)
	if err != nil {
		return nil, Job{}, err
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, joinTimeout)
		defer cancel()
	}
	var d net.Dialer
	ctl, err := d.DialContext(ctx, "tcp", w.rendezvous)
	if err != nil {
		return nil, Job{}, fmt.Errorf("launch: rank %d on host %s: connecting to the rendezvous at %s (%s): %w", w.rank, hostName(), w.rendezvous, EnvRendezvous, err)
	}
	ep, job, err := join(ctx, w, ctl)
	if err != nil {
		ctl.Close()
		return nil, Job{}, fmt.Errorf("launch: rank %d: %w", w.rank, err)
	}
	go watchLauncher(ctl, w)
	startStats(os.Stderr, w.rank)
	return ep, job, nil
}

// hostName is this host's name for messages.
func hostName() string {
	n, err := os.Hostname()
	if err != nil {
		return "?"
	}
	return n
}

func join(ctx context.Context, w workerEnv, ctl net.Conn) (transport.Endpoint, Job, error) {
	ifAddr, err := w.interfaceAddr()
	if err != nil {
		return nil, Job{}, err
	}
	if ifAddr == "" {
		ifAddr = ctl.LocalAddr().(*net.TCPAddr).IP.String()
	}
	l, err := prepare(w, ifAddr)
	if err != nil {
		return nil, Job{}, err
	}
	t, err := exchange(ctx, ctl, []byte(w.secret), register{Rank: w.rank, Size: w.size, Addr: formatAddr(l.me)})
	if err != nil {
		l.abort()
		return nil, Job{}, err
	}
	ep, err := connect(ctx, w, l.me, t.Addrs, l.pend, l.ln, l.abort)
	return ep, Job{Hosts: t.Hosts, Wireup: WireupLauncher}, err
}

// interfaceAddr is the address the rank's TCP port binds to as the
// environment sets it (MPBENCH_IFADDR, or this host's address in
// MPBENCH_IF), or "" when it does not.
func (w *workerEnv) interfaceAddr() (string, error) {
	if w.ifAddr == "" && w.ifSpec != "" {
		ip, err := InterfaceAddr(w.ifSpec)
		if err != nil {
			return "", fmt.Errorf("host %s: %w", hostName(), err)
		}
		return ip.String(), nil
	}
	return w.ifAddr, nil
}

// local is a rank's transports before wire-up: its shared-memory segment
// and TCP port (either nil as the transport mode says) and its address
// for the other ranks.
type local struct {
	pend *shm.Pending
	ln   *tcp.Listener
	me   peerAddr
}

// abort releases what prepare made.
func (l *local) abort() {
	if l.pend != nil {
		l.pend.Abort()
	}
	if l.ln != nil {
		l.ln.Close()
	}
}

// prepare creates the rank's shared-memory segment and binds its TCP port
// on ifAddr, as w's transport mode asks.
func prepare(w workerEnv, ifAddr string) (*local, error) {
	secret := []byte(w.secret)
	l := &local{}
	var err error
	if w.transport != TransportTCP {
		l.pend, err = shm.Prepare(shm.Options{Rank: w.rank, Size: w.size, Secret: secret, CMABytes: w.shmCMA})
		if err != nil {
			return nil, fmt.Errorf("%w (%s=tcp avoids shared memory)", err, EnvTransport)
		}
	}
	l.me.host = hostID()
	if w.transport != TransportShm {
		refuse := &refusals{report: func(m string) { fmt.Fprintln(os.Stderr, m) }}
		where := fmt.Sprintf("rank %d's TCP port", w.rank)
		l.ln, err = tcp.Listen(tcp.Options{Rank: w.rank, Size: w.size, Secret: secret, Addr: ifAddr, SocketBufferBytes: w.sockBuf,
			Refused: func(remote string, reason error) { refuse.refused(where, remote, reason) }})
		if err != nil {
			l.abort()
			return nil, err
		}
		l.me.tcp = l.ln.Addr()
	}
	return l, nil
}

// connect builds the endpoint from the rendezvous table: shared memory to
// the ranks on this host (unless tcp only), TCP to the others.
func connect(ctx context.Context, w workerEnv, me peerAddr, table []string, pend *shm.Pending, ln *tcp.Listener, abort func()) (transport.Endpoint, error) {
	sameHost := make([]bool, w.size) // for binding to CPUs
	local := make([]bool, w.size)    // reached through shared memory
	tcpView := make([]string, w.size)
	route := make([]int, w.size)
	remote := false
	for r, s := range table {
		a, err := parseAddr(s)
		if err != nil {
			abort()
			return nil, err
		}
		sameHost[r] = a.host == me.host
		local[r] = pend != nil && sameHost[r]
		switch {
		case r == w.rank:
			tcpView[r] = me.tcp
		case local[r]:
			route[r] = 0
		case a.tcp == "" || ln == nil:
			abort()
			return nil, fmt.Errorf("rank %d is on another host and rank %d has no TCP port (%s=%s): use %s=auto or tcp", r, w.rank, EnvTransport, w.transport, EnvTransport)
		default:
			tcpView[r], route[r], remote = a.tcp, 1, true
		}
	}
	bind(w, sameHost, remote || pend == nil)
	if pend == nil {
		return ln.Connect(ctx, tcpView) // tcp only
	}
	var parts []hybrid.Part
	{
		sep, err := pend.Attach(ctx, local)
		if err != nil {
			if ln != nil {
				ln.Close()
			}
			return nil, err
		}
		parts = append(parts, hybrid.Part{Name: TransportShm, Endpoint: sep})
	}
	if ln != nil && remote {
		tep, err := ln.Connect(ctx, tcpView)
		if err != nil {
			parts[0].Endpoint.Close()
			return nil, err
		}
		parts = append(parts, hybrid.Part{Name: TransportTCP, Endpoint: tep})
	} else if ln != nil {
		ln.Close()
	}
	if len(parts) == 1 {
		return parts[0].Endpoint, nil // every peer on this host
	}
	return hybrid.New(w.rank, w.size, parts, route)
}

// exchange reads the launcher's challenge, sends the registration with its
// MAC and waits for the address table, which must carry the launcher's MAC
// (rvauth.go).
func exchange(ctx context.Context, ctl net.Conn, secret []byte, m register) (table, error) {
	stop := context.AfterFunc(ctx, func() { ctl.SetDeadline(time.Now()) })
	defer stop()
	in := bufio.NewReaderSize(ctl, maxLine)
	wait := func(what string, v any) error {
		line, err := in.ReadSlice('\n')
		if err != nil {
			if ctx.Err() != nil {
				err = context.Cause(ctx)
			}
			return fmt.Errorf("waiting for the %s: %w", what, err)
		}
		if err := json.Unmarshal(line, v); err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		return nil
	}
	var ch challenge
	if err := wait("rendezvous challenge", &ch); err != nil {
		return table{}, err
	}
	launcherNonce, err := hex.DecodeString(ch.Nonce)
	if err != nil || len(launcherNonce) != auth.NonceSize {
		return table{}, fmt.Errorf("rendezvous challenge %q: not a nonce", ch.Nonce)
	}
	rankNonce, err := auth.NewNonce()
	if err != nil {
		return table{}, err
	}
	m.Nonce = hex.EncodeToString(rankNonce)
	m.MAC = hex.EncodeToString(rankMAC(secret, launcherNonce, rankNonce, m))
	b, _ := json.Marshal(m)
	if _, err := ctl.Write(append(b, '\n')); err != nil {
		return table{}, fmt.Errorf("registering with the rendezvous: %w", err)
	}
	var t table
	if err := wait("rendezvous table", &t); err != nil {
		return table{}, err
	}
	if t.Error != "" {
		return table{}, fmt.Errorf("rendezvous rejected this rank: %s", t.Error)
	}
	mac, err := hex.DecodeString(t.MAC)
	if err != nil || !auth.Verify(mac, secret, roleLauncher, launcherNonce, rankNonce, auth.Ints(m.Rank, m.Size), tableBody(t)) {
		return table{}, errors.New("the rendezvous table failed authentication (not made with this job's secret)")
	}
	if len(t.Addrs) != m.Size {
		return table{}, fmt.Errorf("rendezvous table has %d addresses for %d ranks", len(t.Addrs), m.Size)
	}
	if len(t.Hosts) != m.Size {
		return table{}, fmt.Errorf("rendezvous table has %d hosts for %d ranks", len(t.Hosts), m.Size)
	}
	ctl.SetDeadline(time.Time{})
	return t, nil
}

// watchLauncher blocks on the control connection, on which the launcher
// sends nothing after the table; when it ends, the launcher is gone: it
// prints so and reports a *LauncherLostError to Fatal.
func watchLauncher(ctl net.Conn, w workerEnv) {
	_, err := io.Copy(io.Discard, ctl)
	if err == nil {
		err = io.EOF
	}
	lost := &LauncherLostError{Rank: w.rank, Where: w.rendezvous, Err: err}
	fmt.Fprintf(os.Stderr, "mpbench: %v; exiting\n", lost)
	reportFatal(lost)
}

// bind pins the rank to a CPU of its own (its index among the ranks on
// this host) when MPBENCH_BIND is core, or, by default, when the host's
// ranks do not outnumber its CPUs and no peer is reached over TCP. A rank
// with TCP peers is left unbound by default: its socket reader goroutines
// and the goroutine waiting for them would share one CPU (measured with
// PingPong over loopback TCP on 2 CPUs: 1 MiB took about 700 usec bound
// against 400 usec unbound), whereas shared-memory ranks poll and gain
// from a core of their own.
func bind(w workerEnv, sameHost []bool, usesTCP bool) {
	idx, n := 0, 0
	for r, l := range sameHost {
		if l || r == w.rank {
			if r < w.rank {
				idx++
			}
			n++
		}
	}
	if w.bind == BindCore || (w.bind == "" && !usesTCP && n <= allowedCPUs()) {
		bindToCPU(idx % max(allowedCPUs(), 1))
	}
}
