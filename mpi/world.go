//go:build mpi

package mpi

// #include "shim.h"
import "C"

import (
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"unsafe"

	"github.com/mpbench/mpbench/comm"
)

func init() {
	// MPI_THREAD_FUNNELED: all MPI calls come from the thread that called
	// MPI_Init_thread. Locking the main goroutine to the main OS thread
	// during package initialisation keeps it there for the whole program.
	runtime.LockOSThread()
}

var (
	initMu   sync.Mutex
	world    *Comm
	finished bool
	tagUB    int // largest tag the library accepts (MPI_TAG_UB attribute)
)

// Comm is a communicator of the linked MPI library (MPI_Comm). It implements
// comm.Comm and adds the library's collectives. Its methods must be called
// from the goroutine that called Init.
type Comm struct {
	h     C.MPI_Comm
	rank  int
	size  int
	owned bool     // created by Split or CollectiveComm: Free releases it
	coll  *Comm    // duplicate for collectives, made by CollectiveComm
	out   [3]C.int // status of the last blocking receive (mpb_status)
	empty [2]byte  // distinct addresses for the empty buffers of a 0-byte loop (RunLoop)
}

var _ comm.Comm = (*Comm)(nil)

// Thread is an MPI thread level (MPI-3.1 §12.4.3), in increasing order of
// support: ThreadSingle < ThreadFunneled < ThreadSerialized < ThreadMultiple.
type Thread int

// The four thread levels. mpbench makes every MPI call from its main
// goroutine, locked to the main thread, so ThreadFunneled is the level it
// truthfully needs (the Go runtime runs other threads); ThreadSingle is
// what MPI_Init gives C benchmarks such as NetPIPE and IMB without
// -thread_level, and Open MPI 4 takes its locks from ThreadFunneled up.
const (
	ThreadSingle Thread = iota
	ThreadFunneled
	ThreadSerialized
	ThreadMultiple
)

// threadNames are the levels' names as IMB's -thread_level option takes
// them.
var threadNames = [...]string{"single", "funneled", "serialized", "multiple"}

// String is the level's name as IMB's -thread_level takes it, e.g.
// "funneled".
func (t Thread) String() string {
	if t < 0 || int(t) >= len(threadNames) {
		return fmt.Sprintf("Thread(%d)", int(t))
	}
	return threadNames[t]
}

// ParseThread reads a thread level as IMB's -thread_level option spells it:
// single, funneled, serialized or multiple (case-insensitive).
func ParseThread(s string) (Thread, error) {
	for i, n := range threadNames {
		if strings.EqualFold(s, n) {
			return Thread(i), nil
		}
	}
	return 0, fmt.Errorf("-thread_level %q: expected -thread_level single, funneled, serialized or multiple", s)
}

// Init is InitThread(ThreadFunneled).
func Init() (*Comm, error) { return InitThread(ThreadFunneled) }

// InitThread initialises MPI asking for thread level required
// (MPI_Init_thread), sets MPI_ERRORS_RETURN on MPI_COMM_WORLD and returns the
// world communicator. Call it from the main goroutine; every later MPI call
// must come from that goroutine, whatever the level. It fails when the
// library provides less than required. A second call returns the same
// communicator; a call after Finalize fails.
func InitThread(required Thread) (*Comm, error) {
	initMu.Lock()
	defer initMu.Unlock()
	if finished {
		return nil, errors.New("mpi: Init after Finalize: MPI cannot be restarted in one process")
	}
	if world != nil {
		return world, nil
	}
	if required < ThreadSingle || required > ThreadMultiple {
		return nil, fmt.Errorf("mpi: InitThread: %v is not a thread level", required)
	}
	runtime.LockOSThread()
	// A launcher that binds the rank to one core (Open MPI does) leaves
	// the runtime one P. Then sysmon takes that P from every MPI call that
	// outlasts its 20 us tick, since no P is idle, and the rank pays a
	// context switch per call: a 1 MiB PingPong ran 40% slower than in C.
	// A second, idle P makes sysmon leave calls alone (runtime/proc.go:
	// retake); it costs nothing while no other goroutine runs.
	if runtime.GOMAXPROCS(0) < 2 {
		runtime.GOMAXPROCS(2)
	}
	want := C.mpb_thread_level(C.int(required))
	var provided C.int
	if err := check("MPI_Init_thread", C.mpb_init(want, &provided)); err != nil {
		return nil, err
	}
	if provided < want {
		return nil, fmt.Errorf("mpi: the library provides thread level %s, below the %s asked for (-thread_level)", C.GoString(C.mpb_thread_name(provided)), C.GoString(C.mpb_thread_name(want)))
	}
	var ub C.int
	if err := check("MPI_Comm_get_attr(MPI_TAG_UB)", C.mpb_tag_ub(&ub)); err != nil {
		return nil, err
	}
	tagUB = int(ub)
	w, err := wrap(C.mpb_world(), false)
	if err != nil {
		return nil, err
	}
	world = w
	return world, nil
}

// Finalize ends MPI (MPI_Finalize). Every communicator and request becomes
// unusable. Calling it twice, or before Init, is an error.
func Finalize() error {
	initMu.Lock()
	defer initMu.Unlock()
	if world == nil || finished {
		return errors.New("mpi: Finalize without a preceding Init")
	}
	finished = true
	return check("MPI_Finalize", C.MPI_Finalize())
}

// Abort terminates every process of the job with exit code code
// (MPI_Abort on MPI_COMM_WORLD). It does not return.
func Abort(code int) {
	C.MPI_Abort(C.mpb_world(), C.int(code))
}

// TagUB is the largest tag the library accepts (the MPI_TAG_UB attribute,
// at least 32767 by MPI-3.1 §8.1.2); 0 before Init. Open MPI 4 has 2^31-1,
// MPICH 4 2^28-1. Every tag 0..comm.MaxTag is accepted; when TagUB is
// smaller, tags are folded modulo TagUB+1 (see the package documentation).
func TagUB() int { return tagUB }

// LibraryVersion returns the library's version string
// (MPI_Get_library_version), e.g. "Open MPI v4.1.4, ...". It may be called
// before Init.
func LibraryVersion() string {
	buf := make([]byte, int(C.mpb_max_library_version_string()))
	var n C.int
	if C.MPI_Get_library_version((*C.char)(unsafe.Pointer(&buf[0])), &n) != success {
		return Flavor
	}
	s := string(buf[:n])
	for len(s) > 0 && (s[len(s)-1] == '\n' || s[len(s)-1] == 0) {
		s = s[:len(s)-1]
	}
	return s
}

// StandardVersion returns the version of the MPI standard the library
// implements (MPI_Get_version), e.g. "3.1" for Open MPI 4 and 4.0 for
// MPICH 4: what IMB-MPI1 prints on its "# MPI Version" line. It may be
// called before Init.
func StandardVersion() string {
	var major, minor C.int
	if C.MPI_Get_version(&major, &minor) != success {
		return ""
	}
	return fmt.Sprintf("%d.%d", int(major), int(minor))
}

// ThreadLevel returns the thread level the library provides after Init, as
// MPI_Query_thread reports it, by its MPI name: "MPI_THREAD_SINGLE", "MPI_THREAD_FUNNELED",
// "MPI_THREAD_SERIALIZED" or "MPI_THREAD_MULTIPLE" (InitThread asks for a
// level, and a library may provide more; MPI-3.1 §12.4.3).
// It fails before Init and after Finalize.
func ThreadLevel() (string, error) {
	initMu.Lock()
	defer initMu.Unlock()
	if world == nil || finished {
		return "", errors.New("mpi: ThreadLevel needs MPI initialised (after Init, before Finalize)")
	}
	var level C.int
	if err := check("MPI_Query_thread", C.MPI_Query_thread(&level)); err != nil {
		return "", err
	}
	name := C.mpb_thread_name(level)
	if name == nil {
		return "", fmt.Errorf("mpi: MPI_Query_thread returned %d, not one of the four MPI thread levels", int(level))
	}
	return C.GoString(name), nil
}

// wrap reads rank and size of h.
func wrap(h C.MPI_Comm, owned bool) (*Comm, error) {
	var r, s C.int
	if err := check("MPI_Comm_rank", C.MPI_Comm_rank(h, &r)); err != nil {
		return nil, err
	}
	if err := check("MPI_Comm_size", C.MPI_Comm_size(h, &s)); err != nil {
		return nil, err
	}
	return &Comm{h: h, rank: int(r), size: int(s), owned: owned}, nil
}

// Rank is the calling process's rank in c (MPI_Comm_rank).
func (c *Comm) Rank() int { return c.rank }

// Size is the number of ranks in c (MPI_Comm_size).
func (c *Comm) Size() int { return c.size }

// Barrier blocks until every rank of c has entered it (MPI_Barrier).
func (c *Comm) Barrier() error {
	return check("MPI_Barrier", C.MPI_Barrier(c.h))
}

// Split partitions c by color; ranks with equal color form a new
// communicator ordered by (key, rank in c) (MPI_Comm_split). It is
// collective over c. A rank passing comm.Undefined gets a nil comm.Comm and
// a nil error. The result is a *Comm; release it with Free.
func (c *Comm) Split(color, key int) (comm.Comm, error) {
	if color < 0 && color != comm.Undefined {
		return nil, fmt.Errorf("mpi: Split: color %d is negative; want >= 0 or comm.Undefined", color)
	}
	cc := C.int(color)
	if color == comm.Undefined {
		cc = C.mpb_undefined()
	}
	var h C.MPI_Comm
	if err := check("MPI_Comm_split", C.MPI_Comm_split(c.h, cc, C.int(key), &h)); err != nil {
		return nil, err
	}
	if C.mpb_is_comm_null(h) != 0 {
		return nil, nil
	}
	n, err := wrap(h, true)
	if err != nil {
		return nil, err
	}
	return n, nil
}

// Free releases a communicator made by Split, and its CollectiveComm if
// one was made (MPI_Comm_free); it is collective over c. Freeing the world
// communicator is an error.
func (c *Comm) Free() error {
	if !c.owned {
		return errors.New("mpi: Free: only communicators made by Split can be freed")
	}
	if c.coll != nil {
		if err := c.coll.Free(); err != nil {
			return err
		}
		c.coll = nil
	}
	c.owned = false
	return check("MPI_Comm_free", C.MPI_Comm_free(&c.h))
}

// Wtime is the library's wall clock in seconds since an arbitrary origin
// fixed for the process (MPI_Wtime).
func (c *Comm) Wtime() float64 { return float64(C.MPI_Wtime()) }

// Wtick is the resolution of Wtime in seconds (MPI_Wtick).
func (c *Comm) Wtick() float64 { return float64(C.MPI_Wtick()) }

// LauncherCommand returns the command line that starts np ranks of a
// program built against this package's library, without the program: for
// Open MPI "mpirun.openmpi --allow-run-as-root --oversubscribe -np N" (the
// options let root run it, as in CI, and allow more ranks than cores), for
// MPICH "mpiexec.mpich -n N". The launchers are named explicitly because
// Debian's plain "mpirun" belongs to whichever library was installed first.
func LauncherCommand(np int) []string {
	return append(append([]string{}, launcher...), strconv.Itoa(np))
}
