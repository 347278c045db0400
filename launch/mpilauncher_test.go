package launch

import "testing"

// clearLauncherEnv unsets (empties) every variable the MPI launcher
// functions read, for the test's duration.
func clearLauncherEnv(t *testing.T) {
	for _, v := range append([]string{"PMIX_RANK", "PMIX_NAMESPACE", "PMI_FD", "PMI_PORT", "PMI_SIZE",
		"OMPI_COMM_WORLD_SIZE", EnvSlurmStepTasks, EnvSlurmProcID, EnvRendezvous}, MPIRankVars...) {
		t.Setenv(v, "")
	}
}

// TestMPILauncher: the first rank variable set names the launcher, its
// value the rank (not a number: no rank), the first size variable set the
// job's size; none set is no launcher.
func TestMPILauncher(t *testing.T) {
	for _, tc := range []struct {
		name        string
		env         map[string]string
		wantVar     string
		wantRank    int
		wantRankOK  bool
		wantSize    int
		wantSizeVar string
		wantSizeOK  bool
	}{
		{"none", nil, "", 0, false, 0, "", false},
		{"open mpi", map[string]string{"OMPI_COMM_WORLD_RANK": "3", "OMPI_COMM_WORLD_SIZE": "4"}, EnvOMPIRank, 3, true, 4, "OMPI_COMM_WORLD_SIZE", true},
		{"hydra", map[string]string{"PMI_RANK": "1", "PMI_SIZE": "2"}, "PMI_RANK", 1, true, 2, "PMI_SIZE", true},
		{"hydra -pmi-port", map[string]string{"PMI_ID": "0"}, "PMI_ID", 0, true, 0, "", false},
		{"open mpi before pmi", map[string]string{"PMI_RANK": "1", "OMPI_COMM_WORLD_RANK": "2"}, EnvOMPIRank, 2, true, 0, "", false},
		{"rank not a number", map[string]string{"PMI_RANK": "x", "PMI_SIZE": "y"}, "PMI_RANK", 0, false, 0, "PMI_SIZE", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clearLauncherEnv(t)
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			r, rok := MPILauncherRank()
			n, nv, nok := MPILauncherSize()
			if v := MPILauncher(); v != tc.wantVar || r != tc.wantRank || rok != tc.wantRankOK || n != tc.wantSize || nv != tc.wantSizeVar || nok != tc.wantSizeOK {
				t.Errorf("launcher %q, rank (%d, %v), size (%d, %q, %v); want %q, (%d, %v), (%d, %q, %v)",
					v, r, rok, n, nv, nok, tc.wantVar, tc.wantRank, tc.wantRankOK, tc.wantSize, tc.wantSizeVar, tc.wantSizeOK)
			}
		})
	}
}

// TestPMIxOnly: PMIX_RANK and PMIX_NAMESPACE without a PMI socket give the
// namespace; either missing, or a PMI socket beside them, gives "".
func TestPMIxOnly(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  map[string]string
		want string
	}{
		{"prterun", map[string]string{"PMIX_RANK": "0", "PMIX_NAMESPACE": "prte-vm-1@1"}, "prte-vm-1@1"},
		{"no rank", map[string]string{"PMIX_NAMESPACE": "prte-vm-1@1"}, ""},
		{"no namespace", map[string]string{"PMIX_RANK": "0"}, ""},
		{"pmi too", map[string]string{"PMIX_RANK": "0", "PMIX_NAMESPACE": "ns", "PMI_PORT": "vm:1234", "PMI_ID": "0"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clearLauncherEnv(t)
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			if got := PMIxOnly(); got != tc.want {
				t.Errorf("PMIxOnly() = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestSrunTasks: the step's task count as srun set it, and task 0 only for
// SLURM_PROCID 0.
func TestSrunTasks(t *testing.T) {
	for _, tc := range []struct {
		tasks, procID string
		wantFirst     bool
	}{{"", "", false}, {"4", "0", true}, {"4", "3", false}} {
		clearLauncherEnv(t)
		t.Setenv(EnvSlurmStepTasks, tc.tasks)
		t.Setenv(EnvSlurmProcID, tc.procID)
		if n, first := SrunTasks(); n != tc.tasks || first != tc.wantFirst {
			t.Errorf("%+v: SrunTasks() = (%q, %v), want (%q, %v)", tc, n, first, tc.tasks, tc.wantFirst)
		}
	}
}
