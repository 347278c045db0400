package launch

import (
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"

	"github.com/mpbench/mpbench/transport"
)

// Environment variables of the worker bootstrap (see the package doc).
const (
	EnvRendezvous     = "MPBENCH_RENDEZVOUS"
	EnvSecret         = "MPBENCH_SECRET"
	EnvRank           = "MPBENCH_RANK"
	EnvSize           = "MPBENCH_SIZE"
	EnvIfAddr         = "MPBENCH_IFADDR"
	EnvIf             = "MPBENCH_IF"
	EnvRendezvousBind = "MPBENCH_RENDEZVOUS_BIND"
	EnvTransport      = "MPBENCH_TRANSPORT"
	EnvBind           = "MPBENCH_BIND"
)

// Binding of ranks to CPUs (MPBENCH_BIND): core pins each rank to a CPU of
// its own (its index among the ranks on its host), none leaves placement
// to the kernel; unset binds when the host's ranks do not outnumber its
// CPUs.
const (
	BindCore = "core"
	BindNone = "none"
)

// TransportAuto is the default transport mode (MPBENCH_TRANSPORT): every
// transport the launcher can start ranks on, each peer reached through the
// first that reaches it (transport.ProcessDrivers: shared memory between
// ranks on the same host, TCP between hosts). Any other mode is the name of
// one such transport, used alone.
const TransportAuto = "auto"

// workerEnv is a worker's bootstrap configuration.
type workerEnv struct {
	rendezvous string
	secret     string
	rank, size int
	ifAddr     string // "" means: the control connection's local address
	ifSpec     string // MPBENCH_IF: interface name or CIDR (InterfaceAddr), "" for none
	transport  string // TransportAuto or the name of a launchable transport
	bind       string // BindCore, BindNone or "" (automatic)
	// settings are the transports' own settings, read and checked
	// (transport.ReadSettings) for transport.ProcessConfig.Settings.
	settings map[string]int
}

// readWorkerEnv parses the bootstrap variables through getenv; errors name
// the variable and the accepted form.
func readWorkerEnv(getenv func(string) string) (workerEnv, error) {
	var w workerEnv
	w.rendezvous = getenv(EnvRendezvous)
	if _, _, err := net.SplitHostPort(w.rendezvous); err != nil || w.rendezvous == "" {
		return w, fmt.Errorf("launch: %s=%q: want host:port of the launcher's rendezvous", EnvRendezvous, w.rendezvous)
	}
	w.secret = getenv(EnvSecret)
	if w.secret == "" {
		return w, fmt.Errorf("launch: %s is not set: want the job secret given by the launcher", EnvSecret)
	}
	var err error
	if w.size, err = strconv.Atoi(getenv(EnvSize)); err != nil || w.size < 1 {
		return w, fmt.Errorf("launch: %s=%q: want the number of ranks, an integer >= 1", EnvSize, getenv(EnvSize))
	}
	if w.rank, err = strconv.Atoi(getenv(EnvRank)); err != nil || w.rank < 0 || w.rank >= w.size {
		return w, fmt.Errorf("launch: %s=%q: want an integer rank in 0..%d (%s=%d)", EnvRank, getenv(EnvRank), w.size-1, EnvSize, w.size)
	}
	if err := w.readOptional(getenv); err != nil {
		return w, &WorkerError{Op: "launch", Rank: w.rank, Err: err}
	}
	return w, nil
}

// readOptional parses the optional variables (interface, transport mode,
// binding, and every launchable transport's own settings,
// transport.ReadSettings) through getenv; an error is an *EnvError.
func (w *workerEnv) readOptional(getenv func(string) string) error {
	w.transport = strings.ToLower(strings.TrimSpace(getenv(EnvTransport)))
	if w.transport == "" {
		w.transport = TransportAuto
	}
	if len(w.drivers()) == 0 {
		names := transport.Launchable()
		return &EnvError{Err: fmt.Errorf("%s=%q: want auto (each peer through the first of %s that reaches it) or one of %s",
			EnvTransport, getenv(EnvTransport), strings.Join(names, ", "), strings.Join(names, ", "))}
	}
	return w.readSettings(getenv)
}

// readSettings parses the optional variables but the transport mode
// (interface address, binding, the transports' own settings) through
// getenv; an error is an *EnvError (CheckEnv).
func (w *workerEnv) readSettings(getenv func(string) string) error {
	w.ifAddr = getenv(EnvIfAddr)
	if w.ifAddr != "" && net.ParseIP(w.ifAddr) == nil {
		return &EnvError{Err: fmt.Errorf("%s=%q: want an IP address of this host's interface, e.g. 10.0.0.2", EnvIfAddr, w.ifAddr)}
	}
	w.ifSpec = getenv(EnvIf)
	switch w.bind = getenv(EnvBind); w.bind {
	case "", BindCore, BindNone:
	default:
		return &EnvError{Err: fmt.Errorf("%s=%q: want core (a CPU per rank) or none", EnvBind, w.bind)}
	}
	var err error
	if w.settings, err = transport.ReadSettings(getenv); err != nil {
		return &EnvError{Err: err}
	}
	return nil
}

// drivers returns the transports w's transport mode allows, in the order
// the rank prefers them; none for an unknown mode.
func (w *workerEnv) drivers() []transport.ProcessDriver { return modeDrivers(w.transport) }

// modeDrivers returns the transports transport mode allows (every
// launchable one for TransportAuto or "", else the one of that name), in
// the order a rank prefers them; none for an unknown mode.
func modeDrivers(mode string) []transport.ProcessDriver {
	all := transport.ProcessDrivers()
	if mode == TransportAuto || mode == "" {
		return all
	}
	for _, d := range all {
		if d.Properties().Name == mode {
			return []transport.ProcessDriver{d}
		}
	}
	return nil
}

// IsWorker reports whether this process was started by a launcher, that is
// whether MPBENCH_RENDEZVOUS is set.
func IsWorker() bool { return os.Getenv(EnvRendezvous) != "" }

// rankEnv returns the bootstrap variables for one rank.
func rankEnv(rendezvous, secret string, rank, size int) []string {
	return []string{
		EnvRendezvous + "=" + rendezvous,
		EnvSecret + "=" + secret,
		EnvRank + "=" + strconv.Itoa(rank),
		EnvSize + "=" + strconv.Itoa(size),
	}
}
