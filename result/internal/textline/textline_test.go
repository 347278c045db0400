package textline

import (
	"reflect"
	"testing"
)

func TestClean(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"Mon Oct 15 15:04:29 2018[1,0]<stdout>:# Benchmarking Allreduce", "# Benchmarking Allreduce"},
		{"[1,12]<stderr>:oops", "oops"},
		{"#---\r", "#---"},
		{"# Date : x^M", "# Date : x"},
		{`\# OSU MPI Latency Test v7.5`, "# OSU MPI Latency Test v7.5"},
		{"[3] #bytes #repetitions", "#bytes #repetitions"},
		{"[0] MPI startup(): I_MPI_DEBUG=5", "[0] MPI startup(): I_MPI_DEBUG=5"},
		{"[ 0.83, 0.97 ]", "[ 0.83, 0.97 ]"},
		{"[host01][[4571,1],13][x] cannot", "[host01][[4571,1],13][x] cannot"},
	} {
		if got := Clean(c.in); got != c.want {
			t.Errorf("Clean(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	if got := Lines([]byte("a\r\nb\r\n")); !reflect.DeepEqual(got, []string{"a", "b"}) {
		t.Errorf("Lines CRLF = %q", got)
	}
	if got := Lines([]byte("a\rb\r")); !reflect.DeepEqual(got, []string{"a", "b"}) {
		t.Errorf("Lines CR = %q", got)
	}
}

func TestCommandOptions(t *testing.T) {
	prog, before, after, ok := Command(`mpirun -np 4 C:\imb\IMB-MPI1.exe -msglog 3:28 -off_cache -1 -zero_size off -list pingpong`,
		func(b string) bool { return b == "IMB-MPI1" })
	if !ok || prog != "IMB-MPI1" || len(before) != 3 || len(after) != 8 {
		t.Fatalf("Command = %q %q %q %v", prog, before, after, ok)
	}
	opts, words := Options(after)
	want := map[string]string{"msglog": "3:28", "off_cache": "-1", "zero_size": "off", "list": "pingpong"}
	if !reflect.DeepEqual(opts, want) || len(words) != 0 {
		t.Errorf("Options = %v %v", opts, words)
	}
	opts, words = Options([]string{"-f", "-m", "4096:4096", "--np=3", "x"})
	if !reflect.DeepEqual(opts, map[string]string{"f": "", "m": "4096:4096", "np": "3"}) || !reflect.DeepEqual(words, []string{"x"}) {
		t.Errorf("Options = %v %v", opts, words)
	}
}

func TestClassify(t *testing.T) {
	if !IsAbort("application called MPI_Abort(MPI_COMM_WORLD, 16) - process 15") || IsAbort("Invalid benchmark name off") {
		t.Error("IsAbort")
	}
	if !IsNotable("WARNING: release_mt library was used") || IsNotable("Results:  1.09 us 11937.62 MB/s") {
		t.Error("IsNotable")
	}
}
