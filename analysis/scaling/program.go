package scaling

import (
	"path/filepath"
	"strconv"
	"strings"
)

// launchers are the commands that start another program (an MPI
// launcher, a batch system's, or a wrapper), whose own options precede
// it: ProgramName looks past them.
var launchers = map[string]bool{
	"mpirun": true, "mpiexec": true, "mpiexec.hydra": true, "orterun": true, "prterun": true, "srun": true,
	"aprun": true, "jsrun": true, "prun": true, "ibrun": true, "charmrun": true,
	"env": true, "time": true, "nice": true, "nohup": true, "taskset": true, "numactl": true, "stdbuf": true, "chrt": true,
}

// valued are the launchers' options that take a value in the next
// argument (the number of values), as "-np 4" or "--mca btl tcp,self"
// (Open MPI, MPICH's Hydra, Slurm's srun, ALPS's aprun); values that are
// numbers or hold {np} are skipped whatever the option.
var valued = map[string]int{
	"-np": 1, "-n": 1, "-N": 1, "-c": 1, "-d": 1, "-H": 1, "-host": 1, "--host": 1, "-hosts": 1,
	"-hostfile": 1, "--hostfile": 1, "-machinefile": 1, "--machinefile": 1, "-f": 1, "-ppn": 1, "--ppn": 1,
	"-npernode": 1, "--npernode": 1, "-wdir": 1, "--wdir": 1, "-x": 1, "--map-by": 1, "-map-by": 1,
	"--bind-to": 1, "-bind-to": 1, "--rank-by": 1, "-rank-by": 1, "-p": 1, "--partition": 1, "-t": 1,
	"--time": 1, "-A": 1, "--account": 1, "-w": 1, "--nodelist": 1, "--ntasks": 1, "--ntasks-per-node": 1,
	"--cpus-per-task": 1, "-iface": 1, "-launcher": 1, "-u": 1, "-C": 1, "-m": 1,
	"-genv": 2, "-env": 2, "--mca": 2, "-mca": 2, "-gmca": 2, "--gmca": 2,
}

// ProgramName is the name by which a scaling sweep's rows name an external
// command argv ({np} placeholders in it or not): the base name of the
// program it runs, looking past launchers and their options, so that
// "mpirun -np {np} lmp -in in.lj" is "lmp" and "srun -n {np} --mpi=pmix
// ./ft.A.x" is "ft.A.x". A launcher without a program after it is named
// itself.
func ProgramName(argv []string) string {
	if len(argv) == 0 {
		return ""
	}
	name := filepath.Base(argv[0])
	if !launchers[name] {
		return name
	}
	for i := 1; i < len(argv); i++ {
		a := argv[i]
		switch {
		case strings.HasPrefix(a, "-"):
			if !strings.Contains(a, "=") {
				i += valued[a]
			}
		case isValue(a) || name == "env" && strings.Contains(a, "="):
		default:
			return ProgramName(argv[i:])
		}
	}
	return name
}

// isValue reports whether a launcher's argument a is an option's value
// rather than a program: a number, or an {np} placeholder.
func isValue(a string) bool {
	if strings.Contains(a, "{np}") {
		return true
	}
	_, err := strconv.ParseFloat(a, 64)
	return err == nil
}
