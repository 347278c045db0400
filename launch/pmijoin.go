package launch

import (
	"context"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"strconv"

	"github.com/mpbench/mpbench/launch/pmi"
	"github.com/mpbench/mpbench/transport"
)

// Ranks started by a PMI launcher (Slurm's srun --mpi=pmi2, MPICH's
// mpiexec): there is no mpbench launcher; the ranks find each other through
// the launcher's PMI key-value space (package launch/pmi). Rank 0 makes
// the job secret and puts it there (it is as private as the launcher
// keeps its key-value space; it is not on any command line); after a fence
// every rank puts its shared-memory host id and TCP address, fences again
// and reads everyone's. Values are hex-encoded (PMI-1 cannot carry '=' or
// blanks). The transports then connect and authenticate as under mpbench's
// launcher.

// PMI key names.
const (
	pmiKeySecret = "mpbench-secret"
	pmiKeyAddr   = "mpbench-addr-"
	pmiKeyHost   = "mpbench-host-"
)

// Slurm step variables (srun): the task count of the step and this task's
// rank in it.
const (
	EnvSlurmStepTasks = "SLURM_STEP_NUM_TASKS"
	EnvSlurmProcID    = "SLURM_PROCID"
)

// IsPMIRank reports whether this process was started by a PMI launcher
// (PMI_FD or PMI_PORT is set) rather than by mpbench's launcher.
func IsPMIRank() bool { return !IsWorker() && pmi.Present(os.Getenv) }

// SrunWithoutPMI returns the number of tasks when this process is one task
// of a Slurm step of several tasks started without a PMI socket (srun
// without --mpi=pmi2, field case B32: each task would run as a job of its
// own), else 0.
func SrunWithoutPMI() int {
	n, err := strconv.Atoi(os.Getenv(EnvSlurmStepTasks))
	if err != nil || n < 2 || os.Getenv(EnvSlurmProcID) == "" || pmi.Present(os.Getenv) {
		return 0
	}
	return n
}

// PMIConn is a rank's connection to its PMI launcher, opened before
// wire-up so that the job's size is known first (under Hydra's PMI_PORT
// mode only the server tells it).
type PMIConn struct {
	c *pmi.Client
}

// ConnectPMI connects to the PMI server of a rank started by a PMI
// launcher (PMI_FD, or PMI_PORT and PMI_ID) and learns rank and size.
func ConnectPMI() (*PMIConn, error) {
	c, err := pmi.Connect(os.Getenv, pmi.DefaultTimeout)
	if err != nil {
		return nil, err
	}
	return &PMIConn{c: c}, nil
}

// Size is the number of ranks of the job.
func (p *PMIConn) Size() int { return p.c.Size() }

// Close closes the connection without joining (a rank that refuses to
// run); the launcher takes the rank for a failed one.
func (p *PMIConn) Close() { p.c.Close() }

// Join is JoinJob for a rank started by a PMI launcher: it exchanges the
// job secret and every rank's addresses through the launcher's key-value
// space, and returns the connected endpoint and the job (Job.Wireup
// "PMI-1" or "PMI-2", with the launcher: "srun", "mpiexec", or "mpiexec,
// PMI_PORT" under Hydra's -pmi-port; Job.Hosts: each rank's host name).
// The optional MPBENCH_TRANSPORT, MPBENCH_IF, MPBENCH_IFADDR and
// MPBENCH_BIND variables and the transports' own (MPBENCH_SOCKBUF,
// MPBENCH_SHM_CMA) apply.
// Under srun the world size must equal SLURM_STEP_NUM_TASKS. PMI is
// finalized (or, on error, the connection closed) before Join returns.
func (p *PMIConn) Join(ctx context.Context) (transport.Endpoint, Job, error) {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, joinTimeout)
		defer cancel()
	}
	c := p.c
	ep, job, err := joinPMI(ctx, c)
	if err != nil {
		c.Close()
		return nil, Job{}, fmt.Errorf("launch: rank %d (%s): %w", c.Rank(), c.Version(), err)
	}
	if err := c.Finalize(); err != nil {
		ep.Close()
		return nil, Job{}, err
	}
	return ep, job, nil
}

func joinPMI(ctx context.Context, c *pmi.Client) (transport.Endpoint, Job, error) {
	launcher := "mpiexec"
	if os.Getenv(pmi.EnvFD) == "" {
		launcher = "mpiexec, " + pmi.EnvPort
	}
	if s := os.Getenv(EnvSlurmStepTasks); s != "" {
		launcher = "srun"
		if s != strconv.Itoa(c.Size()) {
			return nil, Job{}, fmt.Errorf("srun started %s=%s tasks but PMI says the job has %d ranks", EnvSlurmStepTasks, s, c.Size())
		}
	}
	w := workerEnv{rank: c.Rank(), size: c.Size()}
	if err := w.readOptional(os.Getenv); err != nil {
		return nil, Job{}, err
	}
	if c.Rank() == 0 {
		secret, err := newSecret()
		if err != nil {
			return nil, Job{}, err
		}
		if err := c.Put(pmiKeySecret, secret); err != nil {
			return nil, Job{}, err
		}
	}
	if err := c.Fence(); err != nil {
		return nil, Job{}, err
	}
	secret, err := c.Get(pmiKeySecret)
	if err != nil {
		return nil, Job{}, err
	}
	w.secret = secret
	ifAddr, err := w.interfaceAddr()
	if err != nil {
		return nil, Job{}, err
	}
	if ifAddr == "" {
		ifAddr = defaultIfAddr()
	}
	l, err := prepare(w, ifAddr)
	if err != nil {
		return nil, Job{}, err
	}
	addrs, hosts, err := pmiExchange(c, formatAddr(l.me), hostName())
	if err != nil {
		l.abort()
		return nil, Job{}, err
	}
	ep, name, err := connect(ctx, w, l, addrs)
	return ep, Job{Hosts: hosts, Wireup: c.Version().String() + " (" + launcher + ")", Transport: name}, err
}

// pmiExchange puts this rank's address and host name, fences, and reads
// every rank's.
func pmiExchange(c *pmi.Client, addr, host string) (addrs, hosts []string, err error) {
	r := strconv.Itoa(c.Rank())
	if err := c.Put(pmiKeyAddr+r, hex.EncodeToString([]byte(addr))); err != nil {
		return nil, nil, err
	}
	if err := c.Put(pmiKeyHost+r, hex.EncodeToString([]byte(host))); err != nil {
		return nil, nil, err
	}
	if err := c.Fence(); err != nil {
		return nil, nil, err
	}
	get := func(key string) (string, error) {
		v, err := c.Get(key)
		if err != nil {
			return "", err
		}
		b, err := hex.DecodeString(v)
		if err != nil {
			return "", fmt.Errorf("PMI key %s: %q is not mpbench's encoding", key, v)
		}
		return string(b), nil
	}
	addrs, hosts = make([]string, c.Size()), make([]string, c.Size())
	for i := range c.Size() {
		if addrs[i], err = get(pmiKeyAddr + strconv.Itoa(i)); err != nil {
			return nil, nil, err
		}
		if hosts[i], err = get(pmiKeyHost + strconv.Itoa(i)); err != nil {
			return nil, nil, err
		}
	}
	return addrs, hosts, nil
}

// defaultIfAddr is the address a PMI rank's TCP port binds to when
// MPBENCH_IF and MPBENCH_IFADDR are unset: the first non-loopback address
// this host's name resolves to, else the first global unicast address of
// an interface that is up, else 127.0.0.1 (a one-host job).
func defaultIfAddr() string {
	if ips, err := net.LookupIP(hostName()); err == nil {
		for _, ip := range ips {
			if !ip.IsLoopback() && ip.IsGlobalUnicast() {
				return ip.String()
			}
		}
	}
	if addrs, err := net.InterfaceAddrs(); err == nil {
		for _, a := range addrs {
			if ipn, ok := a.(*net.IPNet); ok && ipn.IP.IsGlobalUnicast() && ipn.IP.To4() != nil {
				return ipn.IP.String()
			}
		}
	}
	return "127.0.0.1"
}
