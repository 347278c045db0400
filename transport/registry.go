package transport

import (
	"fmt"
	"slices"
	"strings"
	"sync"
)

// Reach says which ranks a transport connects.
type Reach uint8

const (
	// SameProcess: the ranks are goroutines of one process (tests).
	SameProcess Reach = iota + 1
	// SameHost: the ranks are processes of one host.
	SameHost
	// AnyHost: the ranks are processes on any hosts the network joins.
	AnyHost
)

// String returns "process", "host" or "hosts".
func (r Reach) String() string {
	switch r {
	case SameProcess:
		return "process"
	case SameHost:
		return "host"
	case AnyHost:
		return "hosts"
	}
	return fmt.Sprintf("Reach(%d)", r)
}

// ProgressModel says who delivers a transport's incoming frames.
type ProgressModel uint8

const (
	// DeliverOnSend: the sender's goroutine calls the receiver's Handler.
	DeliverOnSend ProgressModel = iota + 1
	// PolledByWaiter: the rank's waiting goroutine polls the input
	// (Progresser) and completes started sends (SendStarter); a helper
	// goroutine delivers what arrives while no goroutine of the rank waits.
	PolledByWaiter
	// ReaderGoroutines: one goroutine per peer reads and delivers.
	ReaderGoroutines
)

// String returns "on-send", "polled" or "reader-goroutines".
func (m ProgressModel) String() string {
	switch m {
	case DeliverOnSend:
		return "on-send"
	case PolledByWaiter:
		return "polled"
	case ReaderGoroutines:
		return "reader-goroutines"
	}
	return fmt.Sprintf("ProgressModel(%d)", m)
}

// Properties describe a registered transport.
type Properties struct {
	// Name is what users and flags call it: "shm", "tcp", "inmem".
	Name string
	// Summary is one line for help texts, e.g. "shared memory between
	// ranks of one host".
	Summary string
	// EagerBytes is the eager threshold in bytes the runtime uses over
	// this transport unless told otherwise; 0 means the runtime's default.
	EagerBytes int
	// Reach says which ranks it connects.
	Reach Reach
	// Progress says who delivers incoming frames.
	Progress ProgressModel
	// Report, when not nil, is the line the transport adds to a run's
	// header and metadata (e.g. shm's "# Single copy").
	Report *PeerReport
	// HostShmBytes, when not nil, is the space in bytes that n ranks of
	// one host take in its shared-memory file system (/dev/shm) over this
	// transport; a launcher checks it against the free space before any
	// rank starts. Nil means the transport uses none.
	HostShmBytes func(n int) int64
	// Settings are the environment variables a ProcessDriver takes
	// (ProcessConfig.Setting), e.g. tcp's MPBENCH_SOCKBUF. A launcher
	// reads and checks them (ReadSettings) before any transport is
	// prepared, so a bad value is refused whichever transport runs.
	Settings []IntSetting
}

// Driver is a registered transport: its properties and a way to connect the
// ranks of a job inside one process, which tests (package
// transport/transporttest, comm's tests) use. A driver that also
// implements ProcessDriver is one mpbench's launcher starts ranks on.
type Driver interface {
	// Properties describes the transport; it returns the same value on
	// every call.
	Properties() Properties
	// NewJob returns n connected endpoints of one job whose ranks all live
	// in this process (endpoint i has rank i), not yet started. Errors say
	// why the transport cannot run here (e.g. no /dev/shm).
	NewJob(n int) ([]Endpoint, error)
}

var (
	driversMu sync.RWMutex
	drivers   = map[string]Driver{}
)

// Register makes a transport known by its Properties().Name; transport
// packages call it from init. It panics on a nil driver, an empty name or
// a name registered twice (programmer errors).
func Register(d Driver) {
	if d == nil {
		panic("transport: Register of a nil driver")
	}
	name := d.Properties().Name
	if name == "" || strings.ContainsAny(name, "+, ") {
		panic(fmt.Sprintf("transport: Register of a driver named %q: want a non-empty name without '+', ',' or spaces", name))
	}
	driversMu.Lock()
	defer driversMu.Unlock()
	if _, dup := drivers[name]; dup {
		panic("transport: Register called twice for " + name)
	}
	drivers[name] = d
}

// Lookup returns the driver registered as name.
func Lookup(name string) (Driver, bool) {
	driversMu.RLock()
	defer driversMu.RUnlock()
	d, ok := drivers[name]
	return d, ok
}

// Drivers returns every registered driver, sorted by name.
func Drivers() []Driver {
	driversMu.RLock()
	defer driversMu.RUnlock()
	out := make([]Driver, 0, len(drivers))
	for _, d := range drivers {
		out = append(out, d)
	}
	slices.SortFunc(out, func(a, b Driver) int { return strings.Compare(a.Properties().Name, b.Properties().Name) })
	return out
}

// Launchable returns the names of the registered transports mpbench's
// launcher can start ranks on (those that implement ProcessDriver), sorted.
func Launchable() []string {
	var names []string
	for _, d := range Drivers() {
		if _, ok := d.(ProcessDriver); ok {
			names = append(names, d.Properties().Name)
		}
	}
	return names
}

// EagerBytes returns the eager threshold in bytes for a job over the
// transports named by combined ("shm", "tcp", or "shm+tcp" for a job that
// uses both): the smallest of their Properties.EagerBytes, 0 if none is
// registered or none sets one.
func EagerBytes(combined string) int {
	n := 0
	for _, name := range strings.Split(combined, "+") {
		if d, ok := Lookup(name); ok {
			if b := d.Properties().EagerBytes; b > 0 && (n == 0 || b < n) {
				n = b
			}
		}
	}
	return n
}
