//go:build mpi && !mpich

package mpi

// Open MPI is the default library under the mpi build tag. Its link flags
// live in a file of their own, behind a constraint that excludes MPICH: with
// both libraries' directives in one file the build cache was seen to reuse
// the wrong link flags (a binary meant for Open MPI linked libmpich).

// #cgo pkg-config: ompi
import "C"

// Flavor names the MPI library this binary was built against: "openmpi"
// (tags mpi) or "mpich" (tags mpi,mpich).
const Flavor = "openmpi"

// launcher is the library's job launcher and its options, ending with the
// process-count option (see LauncherCommand).
var launcher = []string{"mpirun.openmpi", "--allow-run-as-root", "--oversubscribe", "-np"}
