package cli

import (
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/mpbench/mpbench/bench"
	"github.com/mpbench/mpbench/result"
)

// parseRun parses run options as the run and worker commands do.
func parseRun(t *testing.T, args ...string) (*runFlags, *pflag.FlagSet) {
	t.Helper()
	fs := pflag.NewFlagSet("run", pflag.ContinueOnError)
	var f runFlags
	addRunFlags(fs, &f)
	if err := fs.Parse(args); err != nil {
		t.Fatalf("parse %v: %v", args, err)
	}
	f.benchmarks = fs.Args()
	return &f, fs
}

func mustOptions(t *testing.T, args ...string) bench.Options {
	t.Helper()
	f, _ := parseRun(t, args...)
	o, err := f.benchOptions()
	if err != nil {
		t.Fatalf("%v: %v", args, err)
	}
	return o
}

func TestRunOptionsIMB(t *testing.T) {
	if o := mustOptions(t, "--mem=2", "--msglog=30:30", "PingPong"); o.MemBytes != 2<<30 {
		t.Errorf("-mem 2: %d bytes, want %d", o.MemBytes, 2<<30)
	}
	if o := mustOptions(t, "--np=1", "Sendrecv", "Exchange"); o.NPMin != 1 {
		t.Errorf("-np 1 without -npmin: npmin %d, want 1", o.NPMin)
	}
	if o := mustOptions(t, "--np=4", "Sendrecv"); o.NPMin != 2 {
		t.Errorf("-np 4 without -npmin: npmin %d, want 2", o.NPMin)
	}
	if o := mustOptions(t, "PingPong", "pingpong", "Sendrecv", "PINGPONG"); len(o.Benchmarks) != 2 || o.Benchmarks[0] != "PingPong" || o.Benchmarks[1] != "Sendrecv" {
		t.Errorf("duplicate names: %v, want [PingPong Sendrecv]", o.Benchmarks)
	}
	if o := mustOptions(t, "--zero_size=off", "--msglog=10:11"); !o.NoZeroSize || len(o.Sizes()) != 2 {
		t.Errorf("-zero_size off: sizes %v", o.Sizes())
	}
	if o := mustOptions(t, "--iter_policy=off", "--iter=100000"); o.IterPolicy != bench.IterOff || o.BaseRepetitions(2048) != 100000 {
		t.Errorf("-iter_policy off -iter 100000: policy %q, %d repetitions at 2048 bytes", o.IterPolicy, o.BaseRepetitions(2048))
	}
	if o := mustOptions(t, "--iter=5,1,2"); o.MsgsPerSample != 5 || o.OverallVolBytes != 1<<20 {
		t.Errorf("-iter 5,1,2: %d, %d bytes; want 5, 1 MiB (the third value is IMB-EXT's, ignored)", o.MsgsPerSample, o.OverallVolBytes)
	}
}

func TestOptionMapStoresEffectiveMByte(t *testing.T) {
	f, fs := parseRun(t, "--mib")
	o, err := f.benchOptions()
	if err != nil || o.MByte != result.MiB {
		t.Fatalf("--mib: %v, %v", o.MByte, err)
	}
	if got := optionMap(fs, nil)["mbyte"]; got != "2^20" {
		t.Errorf("--mib: options mbyte=%q, want 2^20", got)
	}
	_, fs = parseRun(t)
	if got := optionMap(fs, nil)["mbyte"]; got != "1e6" {
		t.Errorf("default: options mbyte=%q, want 1e6", got)
	}
}

func TestStallLimit(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want time.Duration
	}{
		{nil, 2 * time.Minute},                      // 10 x 10 s is below the floor
		{[]string{"--time=60"}, 10 * time.Minute},   // 10 x -time
		{[]string{"--stall=30s"}, 30 * time.Second}, // given
		{[]string{"--stall=-1s"}, 0},                // off
		{[]string{"--iter_policy=off"}, 0},          // no time bound per size
		{[]string{"--iter_policy=off", "--stall=5m"}, 5 * time.Minute},
		{[]string{"--iter_policy=multiple_np"}, 0},                                // counts without a -time cap
		{[]string{"--iter_policy=auto"}, 0},                                       // the default list has Bcast, Reduce, ...
		{[]string{"--iter_policy=auto", "pingpong", "alltoall"}, 2 * time.Minute}, // both probe
		{[]string{"--iter_policy=auto", "pingpong", "bcast"}, 0},
	} {
		f, _ := parseRun(t, tc.args...)
		o, err := f.benchOptions()
		if err != nil {
			t.Fatal(err)
		}
		if got := f.stallLimit(o); got != tc.want {
			t.Errorf("%v: stall limit %v, want %v", tc.args, got, tc.want)
		}
	}
}

// TestSwitchOptions: IMB's on/off options take every spelling of IMB's
// switches, set the options they stand for, keep the text as given for
// the workers' command line and the metadata, and -warmup and -warm_up are
// one option; a bad value fails the parse in bench's wording.
func TestSwitchOptions(t *testing.T) {
	f, fs := parseRun(t, "--sync=off", "--warm_up=NO", "--zero_size=0", "--root_shift=on", "--imb_barrier=yes", "--msg_pause=TRUE", "--show_tail=1")
	o, err := f.benchOptions()
	if err != nil {
		t.Fatal(err)
	}
	if o.Sync || o.Warmup || !o.NoZeroSize || !o.RootShift || !o.IMBBarrier || !o.MsgPause || !o.PerRepetition || !f.imb.showTail {
		t.Errorf("switches not applied: %+v", o)
	}
	m := optionMap(fs, nil)
	for name, want := range map[string]string{"sync": "off", "warmup": "NO", "zero_size": "0", "root_shift": "on", "msg_pause": "TRUE", "show_tail": "1"} {
		if m[name] != want {
			t.Errorf("metadata %s=%q, want %q as given", name, m[name], want)
		}
	}
	if got := changedFlags(fs); len(got) != 7 || got[0] != "--sync=off" {
		t.Errorf("worker arguments %q", got)
	}
	if o := mustOptions(t, "--warmup=0"); o.Warmup {
		t.Error("-warmup 0: warm-up still on")
	}
	if o := mustOptions(t); !o.Sync || !o.Warmup || o.NoZeroSize || o.RootShift || o.IMBBarrier || o.MsgPause {
		t.Errorf("IMB's defaults: %+v", o)
	}
	fs = pflag.NewFlagSet("run", pflag.ContinueOnError)
	addRunFlags(fs, new(runFlags))
	err = fs.Parse([]string{"--sync=maybe"})
	if want := "-sync maybe: expected -sync 1 or -sync 0 (on/off)"; err == nil || (&invocation{}).flagError(nil, err).Error() != want {
		t.Errorf("-sync maybe: %v, want %q", err, want)
	}
}
