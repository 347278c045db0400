package scaling

import (
	"strings"
	"testing"
)

// TestProgramName names external commands by the program they run, past
// launchers, their options and values.
func TestProgramName(t *testing.T) {
	for cmd, want := range map[string]string{
		"sleep 0.{np}":                               "sleep",
		"/usr/bin/sleep 1":                           "sleep",
		"mpirun -np {np} lmp -in in.lj":              "lmp",
		"mpirun -np {np} gmx_mpi mdrun -s topol.tpr": "gmx_mpi",
		"mpirun --oversubscribe -np {np} --mca btl tcp,self ./ft.A.x": "ft.A.x",
		"mpiexec -n {np} -genv OMP_NUM_THREADS 1 /opt/npb/ep.B.x":     "ep.B.x",
		"srun -n {np} --mpi=pmix ./a.out":                             "a.out",
		"env OMP_NUM_THREADS=1 mpirun -np {np} lmp":                   "lmp",
		"nice -n 19 mpirun -np {np} --map-by core lmp":                "lmp",
		"mpirun -np {np}": "mpirun",
	} {
		if got := ProgramName(strings.Fields(cmd)); got != want {
			t.Errorf("%q: %q, want %q", cmd, got, want)
		}
	}
}
