package tune

import (
	"os"
	"reflect"
	"testing"
)

// TestOMPIConfigs: from Open MPI 4.1.4's ompi_info, bcast's nine
// algorithms with chain and pipeline once more per segment size, and
// allreduce's two_proc-free list; two_proc algorithms only on 2 ranks.
func TestOMPIConfigs(t *testing.T) {
	o := readOMPIInfo(t)
	var got []string
	for _, c := range o.Configs("bcast", 4, []int{1024, 8192}) {
		got = append(got, c.String())
	}
	want := []string{"basic_linear", "chain", "chain:seg=1024", "chain:seg=8192", "pipeline", "pipeline:seg=1024", "pipeline:seg=8192",
		"split_binary_tree", "binary_tree", "binomial", "knomial", "scatter_allgather", "scatter_allgather_ring"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("bcast on 4 ranks:\n got %v\nwant %v", got, want)
	}
	two := func(np int) (n int) {
		for _, c := range o.Configs("allgather", np, nil) {
			if c.Algorithm == "two_proc" {
				n++
			}
		}
		return n
	}
	if two(2) != 1 || two(4) != 0 {
		t.Errorf("allgather's two_proc: %d on 2 ranks, %d on 4; want 1 and 0", two(2), two(4))
	}
	if cs := o.Configs("nosuch", 4, []int{1024}); cs != nil {
		t.Errorf("a collective ompi_info does not list: %v", cs)
	}
}

// TestVersions reads the libraries' version lines, and gives the plain
// name when there is none.
func TestVersions(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{OMPIVersion("Open MPI v4.1.4\n\nhttps://www.open-mpi.org/community/help/\n"), "Open MPI v4.1.4"},
		{OMPIVersion("ompi_info: command not found"), "Open MPI"},
		{MPICHVersion("MPICH Version:      4.0\nMPICH Release date: Fri Jan 21 10:42:29 CST 2022\n"), "MPICH 4.0"},
		{MPICHVersion(""), "MPICH"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}

// TestMPICHRejected: the probe is seen only when MPICH names exactly its
// key.
func TestMPICHRejected(t *testing.T) {
	stderr := "Error: unrecognized key algorithm=MPIR_Bcast_intra_mpbench_probe\n"
	if key, seen := MPICHRejected(stderr, "bcast", "mpbench_probe"); !seen || key != "algorithm=MPIR_Bcast_intra_mpbench_probe" {
		t.Errorf("bcast: %q %v", key, seen)
	}
	if _, seen := MPICHRejected(stderr, "reduce", "mpbench_probe"); seen {
		t.Error("reduce's probe seen in bcast's complaint")
	}
}

// readOMPIInfo parses Open MPI 4.1.4's ompi_info output in testdata.
func readOMPIInfo(t *testing.T) OMPI {
	t.Helper()
	f, err := os.Open("testdata/ompi_info-4.1.4.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	o, err := ParseOMPIInfo(f)
	if err != nil {
		t.Fatal(err)
	}
	return o
}
