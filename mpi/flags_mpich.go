//go:build mpi && mpich

package mpi

// MPICH is chosen with the tags mpi,mpich. See flags_ompi.go for why each
// library's link flags have a file of their own. MPICH's mpi.h makes gcc 12
// warn (-Wstringop-overflow) on the status-ignore constants; the warning is
// harmless and silenced.

// #cgo pkg-config: mpich
// #cgo CFLAGS: -Wno-stringop-overflow
import "C"

// Flavor names the MPI library this binary was built against: "openmpi"
// (tags mpi) or "mpich" (tags mpi,mpich).
const Flavor = "mpich"

// launcher is the library's job launcher and its options, ending with the
// process-count option (see LauncherCommand).
var launcher = []string{"mpiexec.mpich", "-n"}
