package bench

import (
	"strings"
	"testing"

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
		{func(o *Options) { o.MsgLens = []int64{8, -1} }, "-msglen: size -1: expected"},
		{func(o *Options) { o.MsgsPerSample = 0 }, "-iter 0: expected"},
		{func(o *Options) { o.OverallVolBytes = 0 }, "-iter volume 0 bytes: expected"},
		{func(o *Options) { o.TimeLimit = 0 }, "-time 0: expected"},
		{func(o *Options) { o.OffCache = -2 }, "-off_cache -2: expected"},
		{func(o *Options) { o.Multi = 2 }, "-multi 2: expected -multi 0 or -multi 1"},
		{func(o *Options) { o.MByte = 1000 }, "Mbyte of 1000 bytes: expected"},
		{func(o *Options) { o.Benchmarks = []string{"PingPong", "Pingpang"} }, `unknown benchmark "Pingpang": accepted names are PingPong, PingPongSpecificSource, PingPongAnySource, PingPing`},
	} {
		o := DefaultOptions()
		tc.edit(&o)
		err := o.Validate()
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("Validate() = %v, want one line starting %q", err, tc.want)
		}
	}
	o := DefaultOptions()
	o.MsgLens = []int64{32000}
	o.MsgLogMax = 99 // ignored under -msglen
	o.Benchmarks = []string{"pingpong", "SENDRECV"}
	if err := o.Validate(); err != nil {
		t.Errorf("case-insensitive names with -msglen: %v", err)
	}
}
