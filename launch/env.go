package launch

import (
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
)

// Environment variables of the worker bootstrap (see the package doc).
const (
	EnvRendezvous     = "MPBENCH_RENDEZVOUS"
	EnvSecret         = "MPBENCH_SECRET"
	EnvRank           = "MPBENCH_RANK"
	EnvSize           = "MPBENCH_SIZE"
	EnvIfAddr         = "MPBENCH_IFADDR"
	EnvIf             = "MPBENCH_IF"
	EnvSockBuf        = "MPBENCH_SOCKBUF"
	EnvRendezvousBind = "MPBENCH_RENDEZVOUS_BIND"
	EnvTransport      = "MPBENCH_TRANSPORT"
	EnvShmCMA         = "MPBENCH_SHM_CMA"
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

// Transport modes (MPBENCH_TRANSPORT): shared memory between ranks on the
// same host and TCP between hosts (auto, the default), TCP only, or shared
// memory only.
const (
	TransportAuto = "auto"
	TransportTCP  = "tcp"
	TransportShm  = "shm"
)

// workerEnv is a worker's bootstrap configuration.
type workerEnv struct {
	rendezvous string
	secret     string
	rank, size int
	ifAddr     string // "" means: the control connection's local address
	ifSpec     string // MPBENCH_IF: interface name or CIDR (InterfaceAddr), "" for none
	sockBuf    int    // 0 means the transport's default
	transport  string // TransportAuto, TransportTCP or TransportShm
	shmCMA     int    // shm.Options.CMABytes (0: default)
	bind       string // BindCore, BindNone or "" (automatic)
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
	return w, w.readOptional(getenv)
}

// readOptional parses the optional variables (interface, transport mode,
// binding, shared memory and socket settings) through getenv.
func (w *workerEnv) readOptional(getenv func(string) string) error {
	var err error
	w.ifAddr = getenv(EnvIfAddr)
	if w.ifAddr != "" && net.ParseIP(w.ifAddr) == nil {
		return fmt.Errorf("launch: %s=%q: want an IP address of this host's interface, e.g. 10.0.0.2", EnvIfAddr, w.ifAddr)
	}
	w.ifSpec = getenv(EnvIf)
	switch w.transport = strings.ToLower(strings.TrimSpace(getenv(EnvTransport))); w.transport {
	case "":
		w.transport = TransportAuto
	case TransportAuto, TransportTCP, TransportShm:
	default:
		return fmt.Errorf("launch: %s=%q: want auto (shared memory on a host, TCP between hosts), tcp or shm", EnvTransport, getenv(EnvTransport))
	}
	switch w.bind = getenv(EnvBind); w.bind {
	case "", BindCore, BindNone:
	default:
		return fmt.Errorf("launch: %s=%q: want core (a CPU per rank) or none", EnvBind, w.bind)
	}
	if s := getenv(EnvShmCMA); s != "" {
		if w.shmCMA, err = strconv.Atoi(s); err != nil {
			return fmt.Errorf("launch: %s=%q: want the smallest payload in bytes read by single copy, or -1 to copy through the rings", EnvShmCMA, s)
		}
	}
	if s := getenv(EnvSockBuf); s != "" {
		if w.sockBuf, err = strconv.Atoi(s); err != nil || w.sockBuf == 0 || w.sockBuf < -1 {
			return fmt.Errorf("launch: %s=%q: want a socket buffer size in bytes > 0, or -1 for the kernel default", EnvSockBuf, s)
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
