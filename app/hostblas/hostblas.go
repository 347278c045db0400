// Package hostblas chooses the BLAS that runs the applications' dense
// kernels (the block matrix product's local products): the host's
// OpenBLAS, loaded at run time from its shared library, or gonum's pure Go
// BLAS.
//
// OpenBLAS is opened with dlopen through github.com/ebitengine/purego, so
// that mpbench builds with no C compiler, no BLAS headers and no build tag,
// and one binary uses OpenBLAS on hosts that have its shared library
// (Debian: libopenblas0) and gonum elsewhere. Only cblas_dgemm is taken
// from OpenBLAS; every other routine stays gonum's.
//
// purego makes a CGO_ENABLED=0 binary dynamically linked (it needs the C
// library's dlopen), so a build with the noopenblas tag leaves it out:
// gonum only, and with CGO_ENABLED=0 a static binary to copy to hosts
// whose C library may differ.
package hostblas

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/blas/gonum"
)

// Choice is the BLAS asked for on the command line.
type Choice string

// The choices: Auto is OpenBLAS when its shared library loads and gonum
// otherwise; Gonum and OpenBLAS insist on one (OpenBLAS fails when the
// library does not load).
const (
	Auto     Choice = "auto"
	Gonum    Choice = "gonum"
	OpenBLAS Choice = "openblas"
)

// ParseChoice returns the Choice named s ("auto", "gonum" or "openblas").
func ParseChoice(s string) (Choice, error) {
	switch c := Choice(s); c {
	case Auto, Gonum, OpenBLAS:
		return c, nil
	}
	return "", fmt.Errorf("unknown BLAS %q; expected auto, gonum or openblas", s)
}

// DefaultLibraries are the shared libraries tried in order when none is
// named: OpenBLAS's own names, then the generic libblas.so.3, accepted only
// if it is OpenBLAS (a Debian alternative can point it at OpenBLAS, BLIS
// or the slower reference BLAS).
var DefaultLibraries = []string{"libopenblas.so.0", "libopenblas.so", "libblas.so.3"}

// GonumName describes gonum's BLAS in reports.
const GonumName = "gonum (pure Go)"

// Info names the BLAS that Use installed, for reports and result files.
type Info struct {
	// Name is "gonum", or the library's version, e.g. "OpenBLAS 0.3.21".
	Name string
	// Threads is how many threads one Dgemm call may run on: OpenBLAS's
	// thread count (openblas_get_num_threads), or for gonum GOMAXPROCS,
	// the bound on its Dgemm's worker goroutines running at once.
	Threads int
	// Library is the OpenBLAS shared library's file (Library.Path), ""
	// for gonum; Config its openblas_get_config string.
	Library, Config string
	// Fallback is true when Auto runs gonum because no OpenBLAS loaded.
	Fallback bool
}

// String is the line that names the BLAS in reports: "gonum (pure Go)",
// "gonum (pure Go); no OpenBLAS library loaded", or e.g. "OpenBLAS 0.3.21
// cblas_dgemm, 1 thread, /usr/lib/.../libopenblasp-r0.3.21.so".
func (i Info) String() string {
	if i.Library == "" {
		if i.Fallback {
			return GonumName + "; no OpenBLAS library loaded"
		}
		return GonumName
	}
	th := "threads"
	if i.Threads == 1 {
		th = "thread"
	}
	return fmt.Sprintf("%s cblas_dgemm, %d %s, %s", i.Name, i.Threads, th, i.Library)
}

// FieldKeys are the result.Meta.Info keys that Fields may return, in
// the order Fields describes them.
var FieldKeys = []string{"blas", "blas_threads", "blas_library", "blas_config", "blas_fallback"}

// Fields returns i as a result file's metadata (result.Meta.Info): blas
// (Name), blas_threads (Threads, decimal), and for OpenBLAS blas_library
// (Library) and blas_config (Config); for gonum that Auto fell back to,
// blas_fallback "no OpenBLAS library loaded".
func (i Info) Fields() map[string]string {
	m := map[string]string{"blas": i.Name, "blas_threads": strconv.Itoa(i.Threads)}
	if i.Library != "" {
		m["blas_library"], m["blas_config"] = i.Library, i.Config
	}
	if i.Fallback {
		m["blas_fallback"] = "no OpenBLAS library loaded"
	}
	return m
}

// gonumInfo is gonum's BLAS as Info.
func gonumInfo(fallback bool) Info {
	return Info{Name: "gonum", Threads: runtime.GOMAXPROCS(0), Fallback: fallback}
}

// Use installs the BLAS chosen for this process as gonum's blas64
// implementation, so that blas64.Gemm and every caller of it run on it, and
// returns what it installed (Info; its String is the line that names it in
// reports).
//
// libs are the shared libraries to try (nil: DefaultLibraries); threads is
// OpenBLAS's thread count per process (openblas_set_num_threads; 0 leaves
// it to OpenBLAS: OPENBLAS_NUM_THREADS, else one per CPU). With Auto a
// library that does not load leaves gonum, and Info says so (Fallback);
// with OpenBLAS it is an error naming every library tried and why it
// failed.
func Use(choice Choice, libs []string, threads int) (Info, error) {
	if threads < 0 {
		return Info{}, fmt.Errorf("OpenBLAS thread count %d: expected >= 0 (0: OpenBLAS's own default)", threads)
	}
	if choice == Gonum {
		blas64.Use(gonum.Implementation{})
		return gonumInfo(false), nil
	}
	if len(libs) == 0 {
		libs = DefaultLibraries
	}
	lib, err := Open(libs, threads)
	if err != nil {
		if choice == OpenBLAS {
			return Info{}, err
		}
		blas64.Use(gonum.Implementation{})
		return gonumInfo(true), nil
	}
	blas64.Use(lib.Implementation())
	return lib.Info(), nil
}

// Info describes the library as Use reports it, with its thread count now.
func (l *Library) Info() Info {
	return Info{Name: l.Version, Threads: l.Threads(), Library: l.Path, Config: l.Config}
}

// String names the library for reports: its version, the routine used,
// its thread count and the file it was loaded from (Info.String).
func (l *Library) String() string { return l.Info().String() }

// version is the first two words of openblas_get_config's string
// ("OpenBLAS 0.3.21 DYNAMIC_ARCH NO_AFFINITY Zen MAX_THREADS=64" gives
// "OpenBLAS 0.3.21"), or "OpenBLAS" when it says less.
func version(config string) string {
	f := strings.Fields(config)
	if len(f) >= 2 && f[0] == "OpenBLAS" {
		return f[0] + " " + f[1]
	}
	return "OpenBLAS"
}

// Library is an OpenBLAS loaded into the process by Open.
type Library struct {
	// Path is the file the library was mapped from (/proc/self/maps,
	// symbolic links resolved by the loader), or the name given to
	// dlopen where the map cannot tell.
	Path string
	// Version is the library's version, e.g. "OpenBLAS 0.3.21".
	Version string
	// Config is openblas_get_config's whole string, e.g. "OpenBLAS
	// 0.3.21 DYNAMIC_ARCH NO_AFFINITY Zen MAX_THREADS=64".
	Config string

	dgemm      func(order, tA, tB, m, n, k int32, alpha float64, a *float64, lda int32, b *float64, ldb int32, beta float64, c *float64, ldc int32)
	setThreads func(n int32)
	getThreads func() int32
}

// Threads returns the library's thread count (openblas_get_num_threads).
func (l *Library) Threads() int { return int(l.getThreads()) }

// SetThreads sets the library's thread count for every later call
// (openblas_set_num_threads; n >= 1).
func (l *Library) SetThreads(n int) { l.setThreads(int32(n)) }

// Implementation returns gonum's BLAS with Dgemm computed by the
// library's cblas_dgemm, for blas64.Use.
func (l *Library) Implementation() blas.Float64 { return withDgemm{lib: l} }

// Open loads the first of libs (shared-library names as dlopen takes
// them, or paths) that is an OpenBLAS: it must export cblas_dgemm,
// openblas_set_num_threads, openblas_get_num_threads and
// openblas_get_config. With threads > 0 the library runs threads threads
// (OPENBLAS_NUM_THREADS is set before loading it, so that it starts no
// more, and openblas_set_num_threads after, for a library already
// loaded); 0 leaves OpenBLAS's own count. The error is one line naming
// every library tried and why it was refused, or, in a build that loads
// none (the noopenblas tag; systems other than linux/amd64 and
// linux/arm64), why.
func Open(libs []string, threads int) (*Library, error) {
	if why := noLoad(); why != "" {
		return nil, fmt.Errorf("no OpenBLAS loaded: %s", why)
	}
	if threads > 0 {
		os.Setenv("OPENBLAS_NUM_THREADS", strconv.Itoa(threads))
	}
	var why []string
	for _, name := range libs {
		lib, err := open(name)
		if err == nil {
			if threads > 0 {
				lib.SetThreads(threads)
			}
			return lib, nil
		}
		why = append(why, strings.ReplaceAll(err.Error(), "\n", " "))
	}
	return nil, fmt.Errorf("no OpenBLAS shared library loaded (%s); install OpenBLAS (Debian: apt-get install libopenblas0) or use gonum's BLAS",
		strings.Join(why, "; "))
}
