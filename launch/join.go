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
	"slices"
	"strings"
	"time"

	"github.com/mpbench/mpbench/transport"
	// Every transport registers itself; launch builds endpoints through
	// the registry (transport.ProcessDriver).
	_ "github.com/mpbench/mpbench/transport/all"
	"github.com/mpbench/mpbench/transport/auth"
	"github.com/mpbench/mpbench/transport/hybrid"
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
	// Transport names the transports the rank reaches its peers with,
	// joined by "+" in the order the rank prefers them: "shm", "tcp",
	// "shm+tcp" for a job spanning hosts.
	Transport string
}

// WireupLauncher is Job.Wireup for ranks started by mpbench's launcher.
const WireupLauncher = "mpbench launcher"

// JoinJob is the worker side of start-up: it reads MPBENCH_RENDEZVOUS,
// MPBENCH_SECRET, MPBENCH_RANK and MPBENCH_SIZE (and the optional
// MPBENCH_TRANSPORT, MPBENCH_IF, MPBENCH_IFADDR, MPBENCH_BIND and the
// transports' own variables, e.g. MPBENCH_SOCKBUF, MPBENCH_SHM_CMA),
// prepares the rank's side of every registered transport the launcher can
// start ranks on (transport.ProcessDrivers: a shared-memory segment, a
// bound TCP port), or of the one MPBENCH_TRANSPORT names, registers its
// addresses with the launcher's rendezvous, receives every rank's and
// returns the connected endpoint (not yet started) and the job: each peer
// is reached through the first transport that reaches it (shared memory
// on this host, TCP to other hosts), through a transport/hybrid endpoint
// when the job uses several; Job.Transport names what was chosen. Errors
// name the missing or invalid variable, or the step that failed. If ctx
// has no deadline, JoinJob gives up after 60 s.
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
		return nil, Job{}, &WorkerError{Op: "launch", Rank: w.rank, Host: hostName(), Err: fmt.Errorf("connecting to the rendezvous at %s (%s): %w%s", w.rendezvous, EnvRendezvous, err, transport.LocalPortHint(err))}
	}
	ep, job, err := join(ctx, w, ctl)
	if err != nil {
		ctl.Close()
		return nil, Job{}, &WorkerError{Op: "launch", Rank: w.rank, Err: err}
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
	ep, name, err := connect(ctx, w, l, t.Addrs)
	return ep, Job{Hosts: t.Hosts, Wireup: WireupLauncher, Transport: name}, err
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

// local is a rank's transports before wire-up: those its transport mode
// allows, in the order it prefers them (transport.ProcessDrivers), each
// prepared, and its address for the other ranks.
type local struct {
	drivers  []transport.ProcessDriver
	prepared []transport.Prepared // prepared[i] is drivers[i]'s; nil once released
	me       peerAddr
}

// abort releases every transport prepare made and connect did not take.
func (l *local) abort() {
	for i, p := range l.prepared {
		if p != nil {
			p.Abort()
			l.prepared[i] = nil
		}
	}
}

// prepare readies each transport w's mode allows (its shared-memory
// segment, its port bound on ifAddr), in preference order.
func prepare(w workerEnv, ifAddr string) (*local, error) {
	refuse := &refusals{report: func(m string) { fmt.Fprintln(os.Stderr, m) }}
	cfg := transport.ProcessConfig{Rank: w.rank, Size: w.size, Secret: []byte(w.secret), Addr: ifAddr, Settings: w.settings, Refused: refuse.refused}
	l := &local{me: peerAddr{host: hostID(), addrs: map[string]string{}}}
	for _, d := range w.drivers() {
		p, err := d.Prepare(cfg)
		if err != nil {
			l.abort()
			return nil, withAvoidHint(err, d)
		}
		l.drivers = append(l.drivers, d)
		l.prepared = append(l.prepared, p)
		l.me.addrs[d.Properties().Name] = p.Addr()
	}
	return l, nil
}

// withAvoidHint adds to the error of transport d that could not be
// prepared which MPBENCH_TRANSPORT values do without it: the launchable
// transports that reach any host, when d is not one of them.
func withAvoidHint(err error, d transport.ProcessDriver) error {
	if d.Properties().Reach >= transport.AnyHost {
		return err
	}
	var alt []string
	for _, o := range transport.ProcessDrivers() {
		if o.Properties().Reach >= transport.AnyHost {
			alt = append(alt, o.Properties().Name)
		}
	}
	if len(alt) == 0 {
		return err
	}
	return fmt.Errorf("%w (%s=%s avoids %s)", err, EnvTransport, strings.Join(alt, " or "), d.Properties().Name)
}

// connect builds the endpoint from the rendezvous table: each peer is
// reached through the first of l's transports that the peer also prepared
// and that reaches it (a SameHost transport only a peer on this host), so
// both ends of every pair choose the same one. Transports no peer needs
// are released (all but the first when the rank has no peers); with one
// transport in use its endpoint is returned, with several a
// transport/hybrid endpoint routing each peer to its own. The name is the
// transports in use joined by "+" ("shm", "tcp", "shm+tcp").
func connect(ctx context.Context, w workerEnv, l *local, table []string) (transport.Endpoint, string, error) {
	n := len(l.drivers)
	sameHost := make([]bool, w.size) // for binding to CPUs
	route := make([]int, w.size)     // index into l.drivers
	addrs, reach := make([][]string, n), make([][]bool, n)
	for i := range n {
		addrs[i], reach[i] = make([]string, w.size), make([]bool, w.size)
	}
	used := make([]bool, n)
	for r, s := range table {
		a, err := parseAddr(s)
		if err != nil {
			l.abort()
			return nil, "", err
		}
		sameHost[r] = a.host == l.me.host
		if r == w.rank {
			continue
		}
		route[r] = -1
		for i, d := range l.drivers {
			addr, has := a.addrs[d.Properties().Name]
			if has && (sameHost[r] || d.Properties().Reach >= transport.AnyHost) {
				route[r], addrs[i][r], reach[i][r], used[i] = i, addr, true, true
				break
			}
		}
		if route[r] < 0 {
			l.abort()
			where := "on another host"
			if sameHost[r] {
				where = "on this host"
			}
			return nil, "", fmt.Errorf("rank %d is %s and no transport of rank %d reaches it (%s=%s): use %s=auto or %s",
				r, where, w.rank, EnvTransport, w.transport, EnvTransport, strings.Join(anyHost(), " or "))
		}
	}
	if !slices.Contains(used, true) && n > 0 {
		used[0] = true // no peers: the preferred transport alone
	}
	network := false
	for i, d := range l.drivers {
		if !used[i] {
			l.prepared[i].Abort()
			l.prepared[i] = nil
		} else if d.Properties().Reach >= transport.AnyHost {
			network = true
		}
	}
	bind(w, sameHost, network)
	var parts []hybrid.Part
	partOf := make([]int, n) // index into parts of a used transport
	for i, d := range l.drivers {
		if !used[i] {
			continue
		}
		p := l.prepared[i]
		l.prepared[i] = nil // Connect owns it now
		ep, err := p.Connect(ctx, addrs[i], reach[i])
		if err != nil {
			for _, q := range parts {
				q.Endpoint.Close()
			}
			l.abort()
			return nil, "", err
		}
		partOf[i] = len(parts)
		parts = append(parts, hybrid.Part{Name: d.Properties().Name, Endpoint: ep})
	}
	if len(parts) == 1 {
		return parts[0].Endpoint, parts[0].Name, nil
	}
	for r := range route {
		if r != w.rank {
			route[r] = partOf[route[r]]
		}
	}
	h, err := hybrid.New(w.rank, w.size, parts, route)
	if err != nil {
		for _, q := range parts {
			q.Endpoint.Close()
		}
		return nil, "", err
	}
	return h, h.Name(), nil
}

// anyHost returns the names of the launchable transports that reach any
// host.
func anyHost() []string {
	var names []string
	for _, d := range transport.ProcessDrivers() {
		if d.Properties().Reach >= transport.AnyHost {
			names = append(names, d.Properties().Name)
		}
	}
	return names
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
	ReportFatal(lost)
}

// bind pins the rank to a CPU of its own (its index among the ranks on
// this host) when MPBENCH_BIND is core, or, by default, when the host's
// ranks do not outnumber its CPUs and no transport in use reaches other
// hosts (network is false). A rank with TCP peers is left unbound by
// default: its socket reader goroutines and the goroutine waiting for them
// would share one CPU (measured with PingPong over loopback TCP on 2 CPUs:
// 1 MiB took about 700 usec bound against 400 usec unbound), whereas
// shared-memory ranks poll and gain from a core of their own.
func bind(w workerEnv, sameHost []bool, network bool) {
	idx, n := 0, 0
	for r, l := range sameHost {
		if l || r == w.rank {
			if r < w.rank {
				idx++
			}
			n++
		}
	}
	if w.bind == BindCore || (w.bind == "" && !network && n <= allowedCPUs()) {
		bindToCPU(idx % max(allowedCPUs(), 1))
	}
}
