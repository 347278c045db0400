package bench

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/mpbench/mpbench/result"
)

func TestDefaultOptionsValid(t *testing.T) {
	o := DefaultOptions()
	if err := o.Validate(); err != nil {
		t.Fatal(err)
	}
	if o.NPMin != 2 || o.MsgLogMax != 22 || o.MsgsPerSample != 1000 || o.OverallVolBytes != 40<<20 ||
		o.TimeLimit != 10 || !o.Sync || !o.Warmup || o.Check || o.Multi != result.MultiNone || o.MByte != result.MB {
		t.Errorf("DefaultOptions() = %+v: want IMB 2021 defaults", o)
	}
}

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		edit func(*Options)
		want string // start of the error
	}{
		{func(o *Options) { o.NPMin = 0 }, "-npmin 0: expected"},
		{func(o *Options) { o.MsgLogMin, o.MsgLogMax = 4, 2 }, "-msglog 4:2: expected -msglog a:b with integers 0 <= a <= b <= 30"},
		{func(o *Options) { o.MsgLogMax = 31 }, "-msglog 0:31: expected"},
		{func(o *Options) { o.MsgLens = []int64{} }, "-msglen: the file lists no sizes"},
		{func(o *Options) { o.MsgLens = []int64{8, -1} }, "-msglen: -1: expected a size in bytes 0..1073741824"},
		{func(o *Options) { o.MsgsPerSample = 0 }, "-iter 0: expected"},
		{func(o *Options) { o.OverallVolBytes = 0 }, "-iter volume 0 bytes: expected"},
		{func(o *Options) { o.TimeLimit = 0 }, "-time 0: expected"},
		{func(o *Options) { o.TimeLimit = math.Inf(1) }, "-time +Inf: expected -time seconds with a finite number"},
		{func(o *Options) { o.Settle = 2 * time.Minute }, "--settle 2m0s: expected at most 1m0s"},
		{func(o *Options) { o.Params = map[string]int{"window_size": 0} }, "-window_size 0: expected -window_size N with 1 <= N <= 65536"},
		{func(o *Options) { o.Params = map[string]int{"window_size": 1<<16 + 1} }, "-window_size 65537: expected -window_size N with 1 <= N <= 65536"},
		{func(o *Options) { o.Params = map[string]int{"windows": 4} }, "-windows: no benchmark takes this option; the benchmarks' own options are -window_size"},
		{func(o *Options) { o.IterPolicy = "sometimes" }, "-iter_policy sometimes: expected -iter_policy dynamic, off, multiple_np or auto"},
		{func(o *Options) { o.OffCache = -2 }, "-off_cache -2: expected"},
		{func(o *Options) { o.Multi = 2 }, "-multi 2: expected -multi 0 or -multi 1"},
		{func(o *Options) { o.MByte = 1000 }, "Mbyte of 1000 bytes: expected"},
		{func(o *Options) { o.Benchmarks = []string{"PingPong", "Pingpang"} }, `unknown benchmark "Pingpang"; accepted names (any case): PingPong, PingPongSpecificSource, PingPongAnySource, PingPing`},
	} {
		o := DefaultOptions()
		tc.edit(&o)
		err := o.Validate()
		var oe *OptionError
		if !errors.As(err, &oe) || !strings.HasPrefix(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("Validate() = %v, want an *OptionError of one line starting %q", err, tc.want)
		}
	}
	o := DefaultOptions()
	o.Params = map[string]int{WindowSize.Name: 1 << 16}
	o.MsgLens = []int64{32000}
	o.MsgLogMax = 99 // ignored under -msglen
	o.Benchmarks = []string{"pingpong", "SENDRECV"}
	if err := o.Validate(); err != nil {
		t.Errorf("case-insensitive names with -msglen: %v", err)
	}
}

func TestParseIter(t *testing.T) {
	for _, tc := range []struct {
		in  string
		n   int
		vol int64
	}{
		{"1000", 1000, DefaultOverallVolBytes},
		{"20,8", 20, 8 << 20},
		{" 5 , 1 ,7", 5, 1 << 20}, // IMB-EXT's third value is ignored
	} {
		if n, vol, err := ParseIter(tc.in); n != tc.n || vol != tc.vol || err != nil {
			t.Errorf("ParseIter(%q) = %d, %d, %v; want %d, %d", tc.in, n, vol, err, tc.n, tc.vol)
		}
	}
	for _, bad := range []string{"0", "x", "10,0", "10,y", "1,2,3,4", "10,2000000"} {
		if _, _, err := ParseIter(bad); err == nil || !strings.HasPrefix(err.Error(), "-iter "+bad+": expected -iter n[,MiB]") {
			t.Errorf("ParseIter(%q): %v, want the -iter form named", bad, err)
		}
	}
}

// TestParseSwitch: every spelling of IMB's switches in any case, and one
// line naming the option for anything else.
func TestParseSwitch(t *testing.T) {
	for s, want := range map[string]bool{"1": true, "on": true, "Yes": true, "TRUE": true, " 0 ": false, "off": false, "no": false, "False": false} {
		if got, err := ParseSwitch("sync", s); got != want || err != nil {
			t.Errorf("-sync %q: %v, %v; want %v", s, got, err, want)
		}
	}
	for s, want := range map[string]string{
		"2":       "-zero_size 2: expected -zero_size 1 or -zero_size 0 (on/off)",
		"":        "-zero_size : expected -zero_size 1 or -zero_size 0 (on/off)",
		"on\noff": `-zero_size "on\noff": expected -zero_size 1 or -zero_size 0 (on/off)`,
	} {
		if _, err := ParseSwitch("zero_size", s); err == nil || err.Error() != want {
			t.Errorf("-zero_size %q: %v, want %q", s, err, want)
		}
	}
}

// TestOptionErrors: every parser of an IMB option value, and CheckPlan's
// process counts and -mem, refuse bad input with an *OptionError, which
// a command line maps to its usage status.
func TestOptionErrors(t *testing.T) {
	pingpong := DefaultOptions()
	pingpong.Benchmarks = []string{"PingPong"}
	bigMem := DefaultOptions()
	bigMem.MemBytes = 1 << 10
	for name, err := range map[string]error{
		"ParseMsgLog":      last(ParseMsgLog("9:x")),
		"ParseIter":        last(ParseIter("0")),
		"ParseOffCache":    last(ParseOffCache("abc")),
		"ParseMem":         second(ParseMem("-1")),
		"ParseSwitch":      second(ParseSwitch("sync", "maybe")),
		"ParseDataType":    last(ParseDataType("quad")),
		"ParseRedDataType": second(ParseRedDataType("quad")),
		"ParseMap":         second(ParseMap("3x3", 4)),
		"ReadMsgLen":       second(ReadMsgLen(strings.NewReader("12k\n"))),
		"ProcessCounts":    second(ProcessCounts(4, 2)),
		"CheckTimeLimit":   CheckTimeLimit(math.NaN()),
		"CheckPlan np":     CheckPlan(pingpong, 1),
		"CheckPlan -mem":   CheckPlan(bigMem, 2),
	} {
		var oe *OptionError
		if !errors.As(err, &oe) || oe.Error() != err.Error() {
			t.Errorf("%s: %T %v, want an *OptionError", name, err, err)
		}
	}
}

func second[A, B any](_ A, b B) B { return b }

func last[A, B, C any](_ A, _ B, c C) C { return c }
