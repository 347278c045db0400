package analysis

import (
	"testing"

	"github.com/mpbench/mpbench/result"
)

// TestRunConditions: a condition at the tool's default is no condition;
// IMB's header and its option state one datatype alike.
func TestRunConditions(t *testing.T) {
	for _, c := range []struct {
		info, options map[string]string
		want          string
	}{
		{map[string]string{"datatype": "MPI_BYTE", "red_datatype": "MPI_FLOAT", "op": "MPI_SUM"}, nil, ""},
		{map[string]string{"datatype": "MPI_CHAR."}, map[string]string{"root_shift": "off"}, ""},
		{map[string]string{"datatype": "MPI_INT"}, map[string]string{"data_type": "int"}, "datatype=int"},
		{nil, map[string]string{"data_type": "int", "root_shift": "1", "window_size": "16"}, "datatype=int, window=16, root shift=1"},
		{nil, map[string]string{"data_type": "byte", "red_data_type": "float", "root_shift": "0", "window_size": "256"}, ""},
		{map[string]string{"window_size": "64", "op": "MPI_MAX"}, nil, "op=max"},
	} {
		if got := RunConditions(result.Meta{Info: c.info, Options: c.options}); got != c.want {
			t.Errorf("info %v options %v: %q, want %q", c.info, c.options, got, c.want)
		}
	}
}

// TestBenchConditions: a condition keeps apart only the benchmarks it
// changes: the reduction datatype and op reductions, the window the
// windowed benchmarks, the root shift the rooted collectives.
func TestBenchConditions(t *testing.T) {
	m := result.Meta{Info: map[string]string{"red_datatype": "MPI_DOUBLE", "op": "MPI_MAX"},
		Options: map[string]string{"window_size": "64", "root_shift": "1", "data_type": "int"}}
	for _, c := range []struct{ bench, want string }{
		{"PingPong", "datatype=int"},
		{"Allgather", "datatype=int"},
		{"Allreduce", "datatype=int, reduction datatype=double, op=max"},
		{"Reduce", "datatype=int, reduction datatype=double, op=max, root shift=1"},
		{"Bcast", "datatype=int, root shift=1"},
		{"Biband", "datatype=int, window=64"},
		{"osu_bw", "datatype=int, window=64"},
		{"osu_allreduce", "datatype=int, reduction datatype=double, op=max"},
		{"", "datatype=int, reduction datatype=double, op=max, window=64, root shift=1"},
	} {
		if got := BenchConditions(m, c.bench); got != c.want {
			t.Errorf("%q: %q, want %q", c.bench, got, c.want)
		}
	}
}
