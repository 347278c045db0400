package cli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/mpbench/mpbench/bench"
)

// runMain calls Main in process and returns status, stdout and stderr.
func runMain(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Main(args, &out, &errb)
	return code, out.String(), errb.String()
}

// TestBadInputExits2 checks that each kind of bad input is rejected before
// any process starts: exit status 2, nothing on stdout, and exactly one
// line on stderr naming the problem and the accepted form.
func TestBadInputExits2(t *testing.T) {
	dir := t.TempDir()
	badLens := filepath.Join(dir, "lens")
	if err := os.WriteFile(badLens, []byte("8\n12k\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	goodLens := filepath.Join(dir, "goodlens")
	if err := os.WriteFile(goodLens, []byte("8\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	twiceRules := filepath.Join(dir, "twice.rules")
	if err := os.WriteFile(twiceRules, []byte("bcast 2 0 binomial\nbcast 2 0 linear\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	notResult := filepath.Join(dir, "bad.txt")
	if err := os.WriteFile(notResult, []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		args []string
		want []string // substrings of the error line
	}{
		{"unknown benchmark", []string{"run", "pingpang"}, []string{`unknown benchmark "pingpang"`, "PingPong"}},
		{"np below pair", []string{"run", "-np", "1", "pingpong"}, []string{"PingPong needs 2 processes", "-np 2"}},
		{"npmin above np", []string{"run", "-np", "2", "-npmin", "4", "sendrecv"}, []string{"-npmin 4", "-np 4"}},
		{"malformed msglog", []string{"run", "-msglog", "3-9", "pingpong"}, []string{"-msglog 3-9", "expected -msglog a:b"}},
		{"msglog too large", []string{"run", "-msglog", "0:40"}, []string{"-msglog 0:40", "<= 30"}},
		{"unreadable msglen", []string{"run", "-msglen", filepath.Join(dir, "missing"), "pingpong"}, []string{"-msglen", "missing", "cannot read"}},
		{"bad msglen line", []string{"run", "-msglen", badLens, "pingpong"}, []string{"line 2", "12k"}},
		{"zero time", []string{"run", "-time", "0", "pingpong"}, []string{"-time 0", "seconds > 0"}},
		{"negative time", []string{"run", "-time=-3", "pingpong"}, []string{"-time -3", "seconds > 0"}},
		{"bad multi", []string{"run", "-multi", "2"}, []string{"-multi 2", "-multi 0 or -multi 1"}},
		{"bad mbyte", []string{"run", "--mbyte", "1000"}, []string{"--mbyte 1000", "1e6", "2^20"}},
		{"bad iter", []string{"run", "-iter", "0"}, []string{"-iter 0", "n >= 1"}},
		{"bad sync", []string{"run", "-sync", "maybe"}, []string{"-sync maybe", "-sync 1 or -sync 0"}},
		{"bad off_cache", []string{"run", "-off_cache", "abc"}, []string{"-off_cache abc"}},
		{"thread level on own runtime", []string{"run", "-thread_level", "single", "pingpong"}, []string{"-thread_level single", "MPI librar", "--transport mpi"}},
		{"unknown single-dash option", []string{"run", "-npmax", "4"}, []string{"unknown option -npmax"}},
		{"unknown double-dash option", []string{"run", "--npmax", "4"}, []string{"unknown option --npmax; see 'mpbench run --help'"}},
		{"non-numeric np", []string{"run", "-np", "four"}, []string{"-np four: expected an integer: number of processes"}},
		{"non-numeric time", []string{"run", "-time", "abc"}, []string{"-time abc: expected a number: IMB -time seconds"}},
		{"time out of range", []string{"run", "-time", "1e400"}, []string{"-time 1e400: expected a number in range"}},
		{"infinite time", []string{"run", "-time", "inf"}, []string{"-time +Inf: expected -time seconds with a finite number"}},
		{"msglen directory", []string{"run", "-msglen", dir, "pingpong"}, []string{"-msglen " + dir + ": is a directory; expected a readable file"}},
		{"json and csv one file", []string{"run", "--json", filepath.Join(dir, "r"), "--csv", filepath.Join(dir, ".", "r")}, []string{"name the same file"}},
		{"json on stdout", []string{"run", "--json", "-"}, []string{"--json -: standard output carries the IMB text"}},
		{"mbyte and mib", []string{"run", "--mbyte", "1e6", "--mib"}, []string{"--mbyte 1e6 and --mib contradict"}},
		{"bad iter_policy", []string{"run", "-iter_policy", "sometimes"}, []string{"-iter_policy sometimes: expected -iter_policy dynamic, off, multiple_np or auto"}},
		{"bad zero_size", []string{"run", "-zero_size", "maybe"}, []string{"-zero_size maybe: expected -zero_size 1 or -zero_size 0"}},
		{"bad mem", []string{"run", "-mem", "0"}, []string{"-mem 0: expected -mem GB"}},
		{"1 GiB over -mem", []string{"run", "-msglog", "30:30", "pingpong"}, []string{"needs 2147483648 bytes of buffers per process, above -mem 1 (1073741824 bytes); run with -mem 2 or more"}},
		{"np 1 with explicit npmin", []string{"run", "-np", "1", "-npmin", "2", "sendrecv"}, []string{"-npmin 2: only 1 processes"}},
		{"unwritable json", []string{"run", "--json", filepath.Join(dir, "no", "such", "dir.jsonl"), "pingpong"}, []string{"--json", "cannot create"}},
		{"data_type float16", []string{"run", "-data_type", "float16"}, []string{"-data_type float16: mpbench has no float16", "byte, char, int, float or double"}},
		{"bad data_type", []string{"run", "-data_type", "long"}, []string{"-data_type long: expected byte, char, int, float or double"}},
		{"red_data_type float16", []string{"run", "-red_data_type", "float16"}, []string{"-red_data_type float16: mpbench's reductions have no float16 elements; expected float, double, int or char"}},
		{"bad red_data_type", []string{"run", "-red_data_type", "long"}, []string{"-red_data_type long: expected float, double, int or char"}},
		{"contig_type resize", []string{"run", "-contig_type", "resize"}, []string{"-contig_type resize: mpbench moves contiguous elements only"}},
		{"map larger than np", []string{"run", "-np", "2", "-map", "2x2"}, []string{"-map 2x2: P x Q = 4 is more than the 2 processes"}},
		{"malformed map", []string{"run", "-map", "2by2"}, []string{"-map 2by2: expected -map PxQ"}},
		{"bad msgsize", []string{"run", "-msgsize", "8,1k"}, []string{`-msgsize 8,1k: "1k": expected a size in bytes 0..1073741824`}},
		{"msgsize and msglen", []string{"run", "-msgsize", "8", "-msglen", goodLens}, []string{"-msgsize and -msglen both list message sizes"}},
		{"missing input", []string{"run", "-input", filepath.Join(dir, "missing")}, []string{"-input", "cannot read the file"}},
		{"unknown include", []string{"run", "-include", "uniband,triband"}, []string{`unknown benchmark "triband"`}},
		{"exclude everything", []string{"run", "-exclude", "pingpong", "pingpong"}, []string{"-exclude pingpong leaves no benchmark"}},
		{"bad window_size", []string{"run", "-window_size", "0", "uniband"}, []string{"-window_size 0: expected -window_size N with 1 <= N"}},
		{"bad imb_barrier", []string{"run", "-imb_barrier", "maybe"}, []string{"-imb_barrier maybe: expected"}},
		{"bad warm_up", []string{"run", "-warm_up", "2", "pingpong"}, []string{"-warm_up 2: expected -warm_up 1 or -warm_up 0 (on/off)"}},
		{"bad root_shift", []string{"run", "--root_shift=sometimes"}, []string{"-root_shift sometimes: expected -root_shift 1 or -root_shift 0 (on/off)"}},
		{"uniband on one process", []string{"run", "-np", "1", "uniband"}, []string{"Uniband needs 2 processes"}},
		{"unknown command", []string{"runn"}, []string{`mpbench: unknown command "runn" (did you mean run or tune?); expected one of analyze, app, `, "; see 'mpbench --help'\n"}},
		{"argument to version", []string{"version", "x"}, []string{`mpbench: unexpected argument "x": expected mpbench version; see 'mpbench version --help'`}},
		{"unknown application", []string{"app", "nosuchapp"}, []string{`mpbench: unknown application "nosuchapp"; expected one of ep, ft, matmul; see 'mpbench app --help'`}},
		{"application missing", []string{"app", "-np", "4"}, []string{`mpbench: missing application before -np; expected one of ep, ft, matmul; see 'mpbench app --help'`}},
		{"unknown testbed command", []string{"testbed", "nosuch"}, []string{`mpbench: unknown testbed command "nosuch"; expected one of check, down, exec, run, status, study, tune, up; see 'mpbench testbed --help'`}},
		{"unknown transfer command", []string{"transfer", "nosuch"}, []string{`mpbench: unknown transfer command "nosuch"; expected one of send, serve; see 'mpbench transfer --help'`}},
		{"file given to predict", []string{"predict", "/nonexistent"}, []string{`mpbench: unknown application "/nonexistent"; expected one of matmul; see 'mpbench predict --help'`}},
		{"misspelt application", []string{"app", "matmull", "-n", "100"}, []string{`unknown application "matmull" (did you mean matmul?)`}},
		{"load out of range", []string{"app", "matmul", "-n", "100", "--load", "99999999"}, []string{"--load 99999999: the number of load threads per rank must be 0 to 64"}},
		{"negative load", []string{"app", "ep", "--load", "-1"}, []string{"--load -1: the number of load threads per rank must be 0 to 64"}},
		{"transfer send without host", []string{"transfer", "send"}, []string{"mpbench: missing HOST[:PORT]: expected mpbench transfer send HOST[:PORT]; see 'mpbench transfer send --help'"}},
		{"transfer send two hosts", []string{"transfer", "send", "a", "b"}, []string{`mpbench: unexpected argument "b": expected mpbench transfer send HOST[:PORT]`}},
		{"testbed exec without command", []string{"testbed", "exec", "--node", "1"}, []string{"mpbench: missing COMMAND: expected mpbench testbed exec --node K -- COMMAND [ARGS...]; see 'mpbench testbed exec --help'"}},
		{"predict matmul with a file argument", []string{"predict", "matmul", "bc.jsonl"}, []string{`mpbench: unexpected argument "bc.jsonl": expected mpbench predict matmul --bench FILE [-n 2000]`}},
		{"compare one file", []string{"compare", "a.txt"}, []string{"mpbench: missing B: expected mpbench compare A B [C...]; see 'mpbench compare --help'"}},
		{"scaling np not integers", []string{"scaling", "-np", "x", "--", "app", "ep"}, []string{"mpbench: -np x: expected integers separated by commas, such as 1,2,4: process counts"}},
		{"missing coll-rules file", []string{"run", "--coll-rules", "/nonexistent", "pingpong"}, []string{"mpbench: --coll-rules /nonexistent: cannot read the file (no such file or directory); expected a decision table written by 'mpbench tune -o DIR' (DIR/mpbench.rules)"}},
		{"coll-rules directory", []string{"run", "--coll-rules", dir, "pingpong"}, []string{"mpbench: --coll-rules " + dir + ": is a directory; expected a decision table"}},
		{"testbed network", []string{"testbed", "run", "--net", "foo", "--", "pingpong"}, []string{"mpbench: --net foo: expected one of switch, hub, wifi"}},
		{"unknown help topic", []string{"help", "app", "nosuch"}, []string{`mpbench: unknown application "nosuch"; expected one of ep, ft, matmul; see 'mpbench app --help'`}},
		{"host list with a blank", []string{"app", "ep", "--host", "a b"}, []string{`mpbench: --host "a b": "a b": a host name cannot hold ' '`}},
		{"tune output is a file", []string{"tune", "-o", badLens}, []string{"mpbench: -o " + badLens + ": cannot create the directory (not a directory); expected a writable directory"}},
		{"scaling unknown application", []string{"scaling", "--", "app", "bogus"}, []string{"mpbench: scaling -- app: unknown application \"bogus\"; expected one of ep, ft, matmul; see 'mpbench app --help'\n"}},
		{"scaling without application", []string{"scaling", "--", "app"}, []string{"mpbench: scaling -- app: missing application; expected one of ep, ft, matmul; see 'mpbench app --help'\n"}},
		{"scaling application after an option", []string{"scaling", "--", "app", "-n", "10"}, []string{"mpbench: scaling -- app: missing application before -n; expected one of ep, ft, matmul; see 'mpbench app --help'\n"}},
		{"testbed run unknown application", []string{"testbed", "run", "--", "app", "matmull", "-n", "10"}, []string{"mpbench: testbed run -- app: unknown application \"matmull\" (did you mean matmul?); expected one of ep, ft, matmul; see 'mpbench app --help'\n"}},
		{"negative c1", []string{"scaling", "--c1", "-1", "--", "app", "ep"}, []string{"mpbench: --c1 -1: expected the one-process time in seconds, > 0"}},
		{"predict bench missing", []string{"predict", "matmul", "--bench", filepath.Join(dir, "nope")}, []string{"mpbench: --bench " + filepath.Join(dir, "nope") + ": no such file"}},
		{"cpuprofile directory missing", []string{"run", "--cpuprofile", filepath.Join(dir, "no", "cpu"), "pingpong"}, []string{"mpbench: --cpuprofile " + filepath.Join(dir, "no", "cpu") + ".RANK: cannot create the file (no such file or directory); expected a writable path"}},
		{"transfer listen address", []string{"transfer", "serve", "--listen", "bad"}, []string{"mpbench: --listen bad: expected [HOST]:PORT, e.g. :5210 or 10.77.0.1:5210"}},
		{"bad --coll", []string{"run", "--coll", "bcast=fast", "pingpong"}, []string{`--coll bcast=fast: unknown bcast algorithm "fast"`}},
		{"worker outside a job", []string{"worker"}, []string{"started by 'mpbench run'"}},
		{"transfer json on stdout", []string{"transfer", "send", "127.0.0.1:1", "--json", "-"}, []string{"mpbench: --json -: standard output carries the transfer table; expected --json FILE"}},
		{"transfer json and csv one file", []string{"transfer", "send", "127.0.0.1:1", "--json", filepath.Join(dir, "t"), "--csv", filepath.Join(dir, "t")},
			[]string{"mpbench: --json " + filepath.Join(dir, "t") + " and --csv " + filepath.Join(dir, "t") + " name the same file; expected two different files"}},
		{"transfer unwritable csv", []string{"transfer", "send", "127.0.0.1:1", "--csv", filepath.Join(dir, "no", "t.csv")},
			[]string{"mpbench: --csv " + filepath.Join(dir, "no", "t.csv") + ": cannot create the file (no such file or directory); expected a writable path"}},
		{"app json on stdout", []string{"app", "ep", "--json", "-"}, []string{"mpbench: --json -: standard output carries the application's report; expected --json FILE"}},
		{"scaling json on stdout", []string{"scaling", "--json", "-", "--", "app", "ep"}, []string{"mpbench: --json -: standard output carries the scaling table; expected --json FILE"}},
		{"app transport mpi", []string{"app", "ep", "--transport", "mpi"}, []string{"mpbench: --transport mpi: mpbench app does not start an MPI library's launcher", "(e.g. mpirun -np 4 mpbench app ep)"}},
		{"missing hostfile", []string{"run", "--hostfile", filepath.Join(dir, "nope"), "pingpong"}, []string{"mpbench: --hostfile " + filepath.Join(dir, "nope") + ": no such file\n"}},
		{"run's option given to tune", []string{"tune", "-mem", "0"}, []string{"mpbench: unknown option -mem; see 'mpbench tune --help'"}},
		{"bad value, two dashes", []string{"run", "--time", "abc"}, []string{"mpbench: --time abc: expected a number: IMB -time seconds"}},
		{"missing value", []string{"run", "-np"}, []string{"mpbench: -np: expected an integer: number of processes"}},
		{"missing value, two dashes", []string{"run", "pingpong", "--np"}, []string{"mpbench: --np: expected an integer: number of processes"}},
		{"coll given twice in --coll", []string{"run", "--coll", "bcast=linear,bcast=binomial", "pingpong"},
			[]string{"mpbench: --coll bcast=linear,bcast=binomial: bcast is given twice (bcast=linear and bcast=binomial); give each collective one algorithm\n"}},
		{"seg given twice", []string{"run", "--coll", "bcast=pipeline:seg=8:seg=16", "pingpong"}, []string{"mpbench: --coll bcast=pipeline:seg=8:seg=16: seg is given twice; give one segment size\n"}},
		{"--coll given twice", []string{"run", "--coll", "bcast=linear", "--coll", "allreduce=ring", "pingpong"},
			[]string{"mpbench: --coll is given twice (bcast=linear and allreduce=ring); give one --coll with the collectives separated by commas, e.g. --coll bcast=linear,allreduce=ring\n"}},
		{"app --coll given twice", []string{"app", "ep", "--coll", "bcast=linear", "--coll", "bcast=binomial"}, []string{"mpbench: --coll is given twice (bcast=linear and bcast=binomial)"}},
		{"rule given twice", []string{"run", "--coll-rules", twiceRules, "pingpong"},
			[]string{"mpbench: --coll-rules " + twiceRules + ":2: bcast at ranks 2 from 0 bytes is given twice (lines 1 and 2)"}},
		{"bad seg named once", []string{"run", "--coll", "bcast=pipeline:seg=-1", "pingpong"}, []string{"mpbench: --coll bcast=pipeline:seg=-1: seg must be a positive number of bytes, got \"-1\"\n"}},
		{"bad seg among overrides", []string{"run", "--coll", "allreduce=ring,bcast=pipeline:seg=-1", "pingpong"},
			[]string{"mpbench: --coll allreduce=ring,bcast=pipeline:seg=-1: \"bcast=pipeline:seg=-1\": seg must be a positive number of bytes, got \"-1\"\n"}},
		{"bad override form", []string{"run", "--coll", "bcast", "pingpong"}, []string{"mpbench: --coll bcast: expected collective=algorithm[:seg=BYTES]"}},
		{"tiny -mem", []string{"run", "-mem", "1e-9", "pingpong"}, []string{"needs 8 bytes of buffers per process, above -mem 1e-09 (1 bytes); run with -mem 0.01 or more"}},
		{"matmul -n not a number", []string{"app", "matmul", "-n", "abc"}, []string{"mpbench: -n abc: expected an integer: matrix order n"}},
		{"matmul --n not a number", []string{"app", "matmul", "--n", "abc"}, []string{"mpbench: --n abc: expected an integer: matrix order n"}},
		{"predict -n not a number", []string{"predict", "matmul", "-n", "abc"}, []string{"mpbench: -n abc: expected an integer: matrix order n"}},
		{"analyze -k not a number", []string{"analyze", "-k", "x", goodLens}, []string{"mpbench: -k x: expected an integer: latency"}},
		{"compare a bad file with itself", []string{"compare", notResult, notResult}, []string{"mpbench: " + notResult + ": not benchmark output"}},
		{"analyze a bad file twice", []string{"analyze", notResult, notResult}, []string{"mpbench: " + notResult + ": not benchmark output"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, out, errs := runMain(t, c.args...)
			if code != ExitUsage {
				t.Errorf("exit status %d, want %d (stderr %q)", code, ExitUsage, errs)
			}
			if out != "" {
				t.Errorf("stdout should be empty, got %q", out)
			}
			if strings.Count(errs, "\n") != 1 || !strings.HasPrefix(errs, "mpbench: ") {
				t.Errorf("want one line \"mpbench: ...\" on stderr, got %q", errs)
			}
			for _, w := range c.want {
				if !strings.Contains(errs, w) {
					t.Errorf("stderr %q lacks %q", errs, w)
				}
			}
		})
	}
}

// TestSameLineEveryCommand: an option value that several commands take is
// refused with the same line by each, whichever command checks it.
func TestSameLineEveryCommand(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	input := write("input", "PingPong\npingpang\n")
	lens := write("lens", "8\n1k\n")
	for _, c := range []struct {
		name     string
		commands [][]string
		want     string // in the line of every command
		spelled  bool   // the lines differ only where they name the value as given
	}{
		{"no processes", [][]string{
			{"run", "-np", "0"},
			{"app", "ep", "-np", "0"},
			{"app", "matmul", "-np", "0"},
			{"scaling", "--np", "1,0", "--", "app", "ep"},
			{"predict", "matmul", "--bench", filepath.Join(dir, "none.jsonl"), "--np", "2,0"},
			{"tune", "-np", "0"},
		}, "-np 0: expected a process count N >= 1, e.g. -np 4", false},
		{"negative timeout", [][]string{
			{"run", "--timeout", "-1s"},
			{"app", "ep", "--timeout", "-1s"},
			{"app", "matmul", "--timeout", "-1s"},
		}, "--timeout -1s: expected a duration >= 0, e.g. 30m", false},
		{"unknown transport", [][]string{
			{"run", "--transport", "foo"},
			{"tune", "--transport", "foo"},
		}, "--transport foo: expected one of auto, ", false},
		{"unknown transport of an application", [][]string{
			{"app", "ep", "--transport", "foo"},
			{"app", "matmul", "--transport", "foo"},
		}, checkTransport("foo", false).Error() + "\n", false},
		{"missing hostfile", [][]string{
			{"run", "--hostfile", filepath.Join(dir, "nope")},
			{"app", "ep", "--hostfile", filepath.Join(dir, "nope")},
			{"tune", "--hostfile", filepath.Join(dir, "nope"), "-o", filepath.Join(dir, "tuned")},
		}, "mpbench: --hostfile " + filepath.Join(dir, "nope") + ": no such file\n", false},
		{"unknown algorithm", [][]string{
			{"run", "--coll", "bcast=fast"},
			{"run", "--coll", "bcast=fast", "--show-algorithms"},
			{"app", "ep", "--coll", "bcast=fast"},
			{"app", "matmul", "--coll", "bcast=fast"},
		}, `--coll bcast=fast: unknown bcast algorithm "fast"`, false},
		{"unknown benchmark", [][]string{
			{"run", "pingpang"},
			{"run", "-include", "pingpang"},
			{"run", "-exclude", "pingpang"},
			{"run", "-input", input},
		}, `unknown benchmark "pingpang"; accepted names (any case): ` + strings.Join(bench.Names(), ", "), false},
		{"size out of range", [][]string{
			{"run", "-msgsize", "8,1k"},
			{"run", "-msglen", lens},
		}, `"1k": expected a size in bytes 0..1073741824`, true},
		{"unknown option of run", [][]string{
			{"run", "-npmax", "4"},
			{"run", "--npmax", "4"},
		}, "; see 'mpbench run --help'", true},
		{"unknown option of analyze", [][]string{
			{"analyze", "-bogus"},
			{"analyze", "-x"},
			{"analyze", "--bogus"},
		}, "; see 'mpbench analyze --help'", true},
		{"matrix order", [][]string{
			{"app", "matmul", "-n", "0"},
			{"predict", "matmul", "--bench", filepath.Join(dir, "none.jsonl"), "-n", "0"},
		}, "-n 0: the matrix order must be >= 1", false},
		{"thread level", [][]string{
			{"run", "-thread_level", "many"},
			{"run", "--transport", "mpi", "-thread_level", "many"},
		}, `-thread_level "many": expected -thread_level single, funneled, serialized or multiple`, false},
	} {
		first := ""
		for _, args := range c.commands {
			code, out, errs := runMain(t, args...)
			if code != ExitUsage || out != "" || strings.Count(errs, "\n") != 1 || !strings.HasPrefix(errs, "mpbench: ") || !strings.Contains(errs, c.want) {
				t.Errorf("%s: %q: status %d, stdout %q, stderr %q; want status 2 and one line with %q", c.name, args, code, out, errs, c.want)
			}
			if first == "" {
				first = errs
			}
			if !c.spelled && errs != first {
				t.Errorf("%s: %q prints %q, %q prints %q", c.name, c.commands[0], first, args, errs)
			}
		}
	}
}

func TestVersion(t *testing.T) {
	code, out, errs := runMain(t, "version")
	want := "mpbench " + Version + " " + runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH + "\n"
	if code != 0 || out != want || errs != "" {
		t.Errorf("version: status %d, stdout %q, stderr %q; want 0, %q", code, out, errs, want)
	}
}

func TestRunHelpDocumentsOptions(t *testing.T) {
	for _, args := range [][]string{{"run", "--help"}, {"run", "-help"}, {"run", "-h"}} {
		code, out, _ := runMain(t, args...)
		if code != 0 {
			t.Fatalf("%v: status %d", args, code)
		}
		for _, w := range []string{"--msglog", "--npmin", "--off_cache", "--multi", "--mbyte", "10^6", "2^20", "--json", "--csv", "--timeout", "--eager", "-np"} {
			if !strings.Contains(out, w) {
				t.Errorf("%v: help lacks %q", args, w)
			}
		}
	}
}

func TestNormaliseArgs(t *testing.T) {
	long := map[string]bool{"np": true, "npmin": true, "msglog": true, "off_cache": true, "check": false, "json": true, "sync": true}
	cases := []struct{ in, want []string }{
		{[]string{"run", "-np", "4", "-npmin", "2", "pingpong"}, []string{"run", "--np", "4", "--npmin", "2", "pingpong"}},
		{[]string{"run", "-msglog=0:4", "-check", "-off_cache", "-1"}, []string{"run", "--msglog=0:4", "--check", "--off_cache", "-1"}},
		{[]string{"run", "--json", "-np", "-sync", "0"}, []string{"run", "--json", "-np", "--sync", "0"}}, // "-np" is --json's value
		{[]string{"run", "-h", "--", "-np"}, []string{"run", "-h", "--", "-np"}},
	}
	for _, c := range cases {
		got, _, err := normaliseArgs(c.in, long, "mpbench run")
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("normaliseArgs(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
	if _, dashed, _ := normaliseArgs([]string{"run", "-np", "4", "--npmin", "2", "-msglog=0:4"}, long, "mpbench run"); !reflect.DeepEqual(dashed, map[string]bool{"np": true, "msglog": true}) {
		t.Errorf("options given with one dash: %v, want np and msglog", dashed)
	}
	if _, _, err := normaliseArgs([]string{"run", "-bogus"}, long, "mpbench run"); err == nil || !isUsage(err) || err.Error() != "unknown option -bogus; see 'mpbench run --help'" {
		t.Errorf("unknown single-dash option: err = %v, want the usage error naming it", err)
	}
}

func TestExitStatus(t *testing.T) {
	if ExitStatus(nil) != 0 || ExitStatus(errInterrupted) != 130 || ExitStatus(usageErrorf("x")) != 2 || ExitStatus(os.ErrClosed) != 1 {
		t.Error("exit status mapping changed")
	}
	_, _, badIter := bench.ParseMsgLog("4:2")
	if got := ExitStatus(fmt.Errorf("bench: %w", badIter)); got != ExitUsage {
		t.Errorf("a wrapped *bench.OptionError gives exit status %d, want %d", got, ExitUsage)
	}
}

func TestBenchmarkList(t *testing.T) {
	dir := t.TempDir()
	input := filepath.Join(dir, "input")
	if err := os.WriteFile(input, []byte("# IMB -input file\nbiband\n\nUniband extra words\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	defaults := strings.Join(bench.DefaultNames(), " ")
	for _, c := range []struct {
		flags imbFlags
		args  []string
		want  string
	}{
		{imbFlags{}, nil, ""}, // the default list
		{imbFlags{}, []string{"pingpong,SENDRECV", "pingpong"}, "PingPong Sendrecv"},
		{imbFlags{input: input}, []string{"pingping"}, "PingPing Biband Uniband"},
		{imbFlags{include: "uniband"}, nil, "Uniband " + defaults},
		{imbFlags{include: "biband", exclude: "pingpong"}, []string{"pingpong", "exchange"}, "Biband Exchange"},
		{imbFlags{exclude: "barrier"}, nil, strings.TrimSuffix(defaults, " Barrier")},
	} {
		got, err := c.flags.benchmarkList(c.args)
		if err != nil || strings.Join(got, " ") != c.want {
			t.Errorf("%+v %v: %q, %v; want %q", c.flags, c.args, strings.Join(got, " "), err, c.want)
		}
	}
}

func TestArgsAsIMBProgram(t *testing.T) {
	for _, c := range []struct {
		argv []string
		want string
	}{
		{[]string{"/usr/bin/mpbench", "run", "-np", "2"}, "[run -np 2]"},
		{[]string{"/opt/imb/IMB-MPI1", "-msglog", "0:3", "PingPong"}, "[run -msglog 0:3 PingPong]"},
		{[]string{"IMB-MPI1"}, "[run]"},
		{nil, "[]"},
	} {
		if got := fmt.Sprint(Args(c.argv)); got != c.want {
			t.Errorf("Args(%q) = %s, want %s", c.argv, got, c.want)
		}
	}
}
