package bench

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
)

func TestSizes(t *testing.T) {
	o := DefaultOptions()
	s := o.Sizes()
	if len(s) != 24 || s[0] != 0 || s[1] != 1 || s[2] != 2 || s[23] != 4194304 {
		t.Errorf("default sizes %v: want 0, 1, 2, 4, ..., 4194304", s)
	}
	o.MsgLogMin, o.MsgLogMax = 3, 5
	if got := fmt.Sprint(o.Sizes()); got != "[0 8 16 32]" {
		t.Errorf("-msglog 3:5 sizes %s, want [0 8 16 32]", got)
	}
	// The top of the range stays positive and the sweep ends (no wrap).
	o.MsgLogMin, o.MsgLogMax = 29, MaxMsgLog
	if got := fmt.Sprint(o.Sizes()); got != "[0 536870912 1073741824]" {
		t.Errorf("-msglog 29:30 sizes %s", got)
	}
	o.MsgLens = []int64{32000, 3, 0}
	if got := fmt.Sprint(o.Sizes()); got != "[32000 3 0]" {
		t.Errorf("-msglen sizes %s, want file order", got)
	}
}

func TestBaseRepetitions(t *testing.T) {
	o := DefaultOptions()
	want := map[int64]int{0: 1000, 1: 1000, 32768: 1000, 65536: 640, 131072: 320, 262144: 160,
		524288: 80, 1048576: 40, 2097152: 20, 4194304: 10, 1 << 25: 1, 1 << 30: 1, 50000: 838}
	for bytes, n := range want {
		if got := o.BaseRepetitions(bytes); got != n {
			t.Errorf("%d bytes: %d repetitions, want %d", bytes, got, n)
		}
	}
	o.MsgsPerSample, o.OverallVolBytes = 50, 1<<20 // -iter 50,1
	for bytes, n := range map[int64]int{0: 50, 16384: 50, 32768: 32, 1 << 21: 1} {
		if got := o.BaseRepetitions(bytes); got != n {
			t.Errorf("-iter 50,1: %d bytes: %d repetitions, want %d", bytes, got, n)
		}
	}
}

func TestCapRepetitions(t *testing.T) {
	for _, tc := range []struct {
		n, prev      int
		probe, limit float64
		want         int
	}{
		{1000, 0, 1e-6, 10, 1000},  // fits easily
		{1000, 0, 0.1, 10, 101},    // 1 + 10/0.1
		{1000, 0, 20, 10, 1},       // one iteration exceeds the limit
		{1000, 640, 1e-6, 10, 640}, // never more than the previous size
		{10, 640, 1e-6, 10, 10},
		{1000, 0, 0, 10, 1000}, // probe below clock resolution
	} {
		if got := CapRepetitions(tc.n, tc.prev, tc.probe, tc.limit); got != tc.want {
			t.Errorf("CapRepetitions(%d, %d, %v, %v) = %d, want %d", tc.n, tc.prev, tc.probe, tc.limit, got, tc.want)
		}
	}
}

func TestSecondProbeRepetitions(t *testing.T) {
	for _, tc := range []struct {
		n     int
		probe float64
		want  int
	}{
		{1000, 1e-4, 1000},  // below 1 ms: IMB's 1000
		{1000, 4.2e-3, 238}, // 1/4.2 ms = 238.1
		{10, 0.0256, 10},    // 4 MiB Uniband: 39 fit in a second, the base is 10
		{1000, 0.5, 2},
		{1000, 1.5, 1}, // one iteration is longer than a second: no second probe
		{5, 0, 5},
	} {
		if got := SecondProbeRepetitions(tc.n, tc.probe); got != tc.want {
			t.Errorf("SecondProbeRepetitions(%d, %v) = %d, want %d", tc.n, tc.probe, got, tc.want)
		}
	}
}

func TestTimeFit(t *testing.T) {
	for _, tc := range []struct {
		n            int
		probe, limit float64
		want         int
	}{
		{10, 0.0256, 3, 118},        // 1 + 3/0.0256 = 118.19
		{1000, 1e-9, 10, 1000},      // at or below 1e-8 s IMB keeps the base count
		{1000, 1e-8, 10, 1000},      //
		{1000, 2e-8, 10, 500000000}, // 500000001 in float32, as IMB computes it
		{7, 1e-7, 1e6, 7},           // 1e13 does not fit in an int32: the base count
		{1000, 20, 10, 1},           // 1.5
	} {
		if got := TimeFit(tc.n, tc.probe, tc.limit); got != tc.want {
			t.Errorf("TimeFit(%d, %v, %v) = %d, want %d", tc.n, tc.probe, tc.limit, got, tc.want)
		}
	}
}

func TestListRepetitions(t *testing.T) {
	sizes := []int64{32768, 4194304, 65536}
	counts := []int{1000, 10, 640}
	for _, tc := range []struct {
		n     int
		probe float64
		bytes int64
		want  int
	}{
		{1000, 1e-6, 8, 1000},   // the earlier sizes are larger: they bound the count from below only
		{40, 1e-6, 1 << 20, 40}, // the base binds
		{320, 0.5, 131072, 21},  // 1 + 10/0.5, between 4 MiB's 10 below and 32 and 64 KiB's counts above
		{1000, 2, 16, 1000},     // 6 by the time, raised to the larger sizes' 1000
	} {
		if got := ListRepetitions(tc.n, tc.probe, 10, tc.bytes, sizes, counts); got != tc.want {
			t.Errorf("ListRepetitions(%d, %v, 10, %d) = %d, want %d", tc.n, tc.probe, tc.bytes, got, tc.want)
		}
	}
	// A smaller size's count bounds a larger size's from above.
	if got := ListRepetitions(10, 1e-6, 10, 4<<20, []int64{1 << 20}, []int{5}); got != 5 {
		t.Errorf("4 MiB after 1 MiB's 5: %d repetitions, want 5", got)
	}
}

func TestFormatMem(t *testing.T) {
	for bytes, want := range map[int64]string{1 << 30: "1", 2 << 30: "2", 2<<30 + 1: "2.01", 3 << 29: "1.5", 1: "0.01"} {
		if got := FormatMem(bytes); got != want {
			t.Errorf("FormatMem(%d) = %q, want %q", bytes, got, want)
		}
		if n, err := ParseMem(FormatMem(bytes)); err != nil || n < bytes {
			t.Errorf("ParseMem(FormatMem(%d)) = %d, %v: want >= %d", bytes, n, err, bytes)
		}
	}
}

func TestSizesZeroSizeAndIterPolicy(t *testing.T) {
	o := DefaultOptions()
	o.MsgLogMin, o.MsgLogMax = 10, 11
	o.NoZeroSize = true
	if got := fmt.Sprint(o.Sizes()); got != "[1024 2048]" {
		t.Errorf("-zero_size off -msglog 10:11: sizes %s, want [1024 2048]", got)
	}
	o.MsgsPerSample = 100000
	if got := o.BaseRepetitions(2048); got != 20480 {
		t.Errorf("-iter 100000 at 2048 bytes: %d repetitions, want 40 MiB/2048 = 20480", got)
	}
	o.IterPolicy = IterOff
	if got := o.BaseRepetitions(2048); got != 100000 {
		t.Errorf("-iter 100000 -iter_policy off at 2048 bytes: %d repetitions, want 100000 (IMB 2019u6)", got)
	}
}

func TestWarmupRepetitions(t *testing.T) {
	for n, want := range map[int]int{1000: 100, 640: 64, 80: 8, 40: 4, 20: 2, 10: 1, 5: 1, 2: 1, 1: 0} {
		if got := WarmupRepetitions(n); got != want {
			t.Errorf("WarmupRepetitions(%d) = %d, want %d", n, got, want)
		}
	}
}

func TestProcessCounts(t *testing.T) {
	for _, tc := range []struct {
		npmin, np int
		want      string
	}{
		{2, 2, "[2]"}, {2, 3, "[2 3]"}, {2, 8, "[2 4 8]"}, {2, 12, "[2 4 8 12]"},
		{1, 5, "[1 2 4 5]"}, {3, 16, "[3 6 12 16]"}, {64, 64, "[64]"},
	} {
		got, err := ProcessCounts(tc.npmin, tc.np)
		if err != nil || fmt.Sprint(got) != tc.want {
			t.Errorf("ProcessCounts(%d, %d) = %v, %v; want %s", tc.npmin, tc.np, got, err, tc.want)
		}
	}
	_, err := ProcessCounts(8, 4)
	if err == nil || !strings.Contains(err.Error(), "-npmin 8") || !strings.Contains(err.Error(), "-np 8") {
		t.Errorf("ProcessCounts(8, 4) error %v: want one naming -npmin 8 and -np 8", err)
	}
}

func TestParseMsgLog(t *testing.T) {
	for in, want := range map[string][2]int{"0:22": {0, 22}, "3:28": {3, 28}, "5": {0, 5}, " 2 : 4 ": {2, 4}, "30:30": {30, 30}} {
		lo, hi, err := ParseMsgLog(in)
		if err != nil || lo != want[0] || hi != want[1] {
			t.Errorf("ParseMsgLog(%q) = %d, %d, %v; want %v", in, lo, hi, err, want)
		}
	}
	for _, in := range []string{"3:x", "4:2", "-1:3", "0:31", "0:63", "", "a", "1:2:3"} {
		_, _, err := ParseMsgLog(in)
		if err == nil || !strings.HasPrefix(err.Error(), "-msglog "+in+":") || !strings.Contains(err.Error(), "expected -msglog a:b") {
			t.Errorf("ParseMsgLog(%q) error %v: want \"-msglog %s: expected -msglog a:b ...\"", in, err, in)
		}
	}
}

func TestReadMsgLen(t *testing.T) {
	got, err := ReadMsgLen(strings.NewReader("# lengths\n32000\n\n  3  \n0\n# end\n"))
	if err != nil || fmt.Sprint(got) != "[32000 3 0]" {
		t.Errorf("ReadMsgLen = %v, %v; want [32000 3 0]", got, err)
	}
	for in, line := range map[string]string{"8\n12k\n": "line 2", "1\n-4\n": "line 2", "2147483648\n": "line 1", "\n\n1.5": "line 3"} {
		_, err := ReadMsgLen(strings.NewReader(in))
		if err == nil || !strings.Contains(err.Error(), "-msglen "+line) {
			t.Errorf("ReadMsgLen(%q) error %v: want one naming %s", in, err, line)
		}
	}
	if _, err := ReadMsgLen(strings.NewReader("# nothing\n\n")); err == nil {
		t.Error("ReadMsgLen of a file without sizes: want an error")
	}
}

func TestParseOffCache(t *testing.T) {
	for in, want := range map[string][2]int64{"-1": {-1, 64}, "-2": {-1, 64}, "0": {0, 64}, "16": {16 << 20, 64}, "2.5,128": {5 << 19, 128}} {
		size, line, err := ParseOffCache(in)
		if err != nil || size != want[0] || int64(line) != want[1] {
			t.Errorf("ParseOffCache(%q) = %d, %d, %v; want %v", in, size, line, err, want)
		}
	}
	for _, in := range []string{"1e-9", "x", "16,0", "16,x", "NaN", "Inf"} {
		if _, _, err := ParseOffCache(in); err == nil || !strings.Contains(err.Error(), "-off_cache "+in) {
			t.Errorf("ParseOffCache(%q) error %v: want one naming the value", in, err)
		}
	}
}

func TestParseMem(t *testing.T) {
	if n, err := ParseMem("1.5"); err != nil || n != 3<<29 {
		t.Errorf("ParseMem(1.5) = %d, %v; want %d", n, err, 3<<29)
	}
	for _, in := range []string{"0", "-1", "x", "NaN", "Inf"} {
		if _, err := ParseMem(in); err == nil || !strings.HasPrefix(err.Error(), "-mem "+in+": expected") {
			t.Errorf("ParseMem(%q) error %v", in, err)
		}
	}
}

func TestPlanMemoryLimit(t *testing.T) {
	o := DefaultOptions()
	o.MsgLogMax = MaxMsgLog // 1 GiB messages
	o.Benchmarks = []string{"PingPong"}
	// PingPong needs 1 GiB to send and 1 GiB to receive: above the default 1 GiB.
	err := CheckPlan(o, 2)
	want := "PingPong at 1073741824 bytes on 2 processes needs 2147483648 bytes of buffers per process, above -mem 1 (1073741824 bytes); run with -mem 2 or more"
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("CheckPlan error %v, want %q", err, want)
	}
	o.MemBytes = 2 << 30
	if err := CheckPlan(o, 2); err != nil {
		t.Errorf("with -mem 2: %v", err)
	}
	// Exchange sends two messages; off-cache buffers count too.
	o.MsgLogMax = 20
	o.OffCache = -1
	o.MemBytes = 30 << 20
	o.Benchmarks = []string{"Exchange"}
	need := bufferBytes(func() *Spec { s, _ := Lookup("Exchange"); return &s }(), 1<<20, 2, &o)
	if need < 3*DefaultCacheBytes {
		t.Errorf("Exchange 1 MiB off-cache buffers %d bytes: want about twice the cache per area", need)
	}
	if _, err := makePlan(&o, 2); err == nil || !strings.Contains(err.Error(), "Exchange at") {
		t.Errorf("Exchange off-cache over -mem 30 MiB: error %v", err)
	}
}

// TestPlanMemoryTiny: -mem 1e-9 (1 byte) is named as given, not as the
// 0.01 GB FormatMem would round it up to, and the -mem suggested is the
// run's largest need, with which the whole run passes (the need of the
// first size over the limit would fail at the next size).
func TestPlanMemoryTiny(t *testing.T) {
	o := DefaultOptions()
	var err error
	if o.MemBytes, err = ParseMem("1e-9"); err != nil || o.MemBytes != 1 {
		t.Fatalf("ParseMem(1e-9) = %d, %v; want 1 byte", o.MemBytes, err)
	}
	err = CheckPlan(o, 2)
	want := "PingPong at 0 bytes on 2 processes needs 8 bytes of buffers per process, above -mem 1e-09 (1 bytes); run with -mem 0.02 or more, or lower -msglog/-msglen"
	if err == nil || err.Error() != want {
		t.Fatalf("CheckPlan error %v, want %q", err, want)
	}
	if o.MemBytes, err = ParseMem("0.02"); err != nil {
		t.Fatal(err)
	}
	if err := CheckPlan(o, 2); err != nil {
		t.Errorf("with the -mem suggested: %v", err)
	}
	for bytes, text := range map[int64]string{1 << 30: "1", 3 << 29: "1.5", 1: "1e-09", 1 << 20: "0.000976563", 1<<30 + 1: "1.000000001"} {
		if got := memValue(bytes); got != text {
			t.Errorf("memValue(%d) = %q, want %q", bytes, got, text)
		}
	}
}

// TestMultiPlanLayout: under -multi 0 the process counts follow -npmin as
// without -multi (IMB's helper_init_scope: npmin, 2 npmin, ..., np), each
// count running np/P groups; PingPong runs at 2 processes only, as np/2
// pairs (IMB-MPI1 2019 -multi 0 on 4 ranks prints Multi-PingPong 2x2, and
// Multi-Barrier 2x2 followed by Barrier on 4: PerfKitBenchmarker's test
// data).
func TestMultiPlanLayout(t *testing.T) {
	for _, tc := range []struct {
		np, npmin int
		name      string
		want      string // processes x groups (+idle) of each block
	}{
		{4, 2, "Sendrecv", "[2x2 4x1]"},
		{4, 2, "Barrier", "[2x2 4x1]"},
		{4, 2, "PingPong", "[2x2]"},
		{8, 2, "PingPong", "[2x4]"},
		{6, 2, "Sendrecv", "[2x3 4x1+2 6x1]"},
		{8, 4, "Sendrecv", "[4x2 8x1]"},
		{4, 4, "Sendrecv", "[4x1]"},
	} {
		o := DefaultOptions()
		o.Benchmarks, o.Multi, o.NPMin = []string{tc.name}, 0, tc.npmin
		plan, err := makePlan(&o, tc.np)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, bp := range plan {
			s := fmt.Sprintf("%dx%d", bp.block.Processes, len(bp.block.Groups))
			if bp.block.Idle > 0 {
				s += fmt.Sprintf("+%d", bp.block.Idle)
			}
			got = append(got, s)
		}
		if fmt.Sprint(got) != tc.want {
			t.Errorf("%s -np %d -npmin %d -multi 0: blocks %v, want %s", tc.name, tc.np, tc.npmin, got, tc.want)
		}
	}
}

// TestMultipleNPRepetitions checks IMB's -iter_policy multiple_np rule
// (IMB_init_buffers_iter) at the default -iter 1000 and -msglog 0:22,
// and at the sizes whose procs*init + 2^b wraps past 2^31 in IMB's int
// arithmetic (TestMultipleNPRepetitionsIMB compares with IMB's output).
func TestMultipleNPRepetitions(t *testing.T) {
	for _, tc := range []struct {
		bytes        int64
		procs, msglg int
		want         int
	}{
		{0, 2, 22, 1000}, {1, 2, 22, 1000}, {4, 4, 22, 1000}, {65536, 2, 22, 970}, {4194304, 2, 22, 332},
		{4194304, 4, 22, 200}, {1048576, 4, 22, 500}, {8, 3, 3, 249}, {0, 3, 3, 399},
		{1 << 29, 4, 30, 4}, // 4*2^29 + 2^30 wraps to -2^30: a negative count, so procs
		{1 << 30, 3, 30, 3}, // 3*2^30 + 2^30 wraps to 0: n M / 0 is +Inf, converted to INT_MIN
		{1 << 29, 2, 30, 2}, // 2*2^29 + 2^30 = 2^31 wraps to -2^31
	} {
		if got := MultipleNPRepetitions(1000, tc.bytes, tc.procs, tc.msglg); got != tc.want {
			t.Errorf("MultipleNPRepetitions(1000, %d bytes, %d procs, msglog max %d) = %d, want %d", tc.bytes, tc.procs, tc.msglg, got, tc.want)
		}
	}
}

// TestSampleRepetitionsByPolicy: which benchmarks take multiple_np's
// counts under each policy, and Barrier counted at its largest size.
func TestSampleRepetitionsByPolicy(t *testing.T) {
	o := DefaultOptions()
	spec := func(name string) *Spec {
		s, ok := Lookup(name)
		if !ok {
			t.Fatalf("no %s", name)
		}
		return &s
	}
	for _, tc := range []struct {
		policy, name string
		bytes        int64
		procs, want  int
		probes       bool
	}{
		{IterDynamic, "Bcast", 4194304, 4, 10, true},
		{IterOff, "Bcast", 4194304, 4, 1000, false},
		{IterMultipleNP, "Allreduce", 4194304, 4, 200, false},
		{IterMultipleNP, "Barrier", 0, 2, 332, false}, // at 2^22 bytes, as IMB runs Barrier
		{IterAuto, "Allreduce", 4194304, 4, 10, true},
		{IterAuto, "Barrier", 0, 4, 1000, true},
		{IterAuto, "Bcast", 4194304, 4, 200, false},
		{IterAuto, "Reduce", 1048576, 4, 500, false},
		{IterAuto, "Gatherv", 0, 3, 999, false},
		{IterAuto, "Scatter", 0, 2, 1000, false},
	} {
		o.IterPolicy = tc.policy
		s := spec(tc.name)
		if got := o.SampleRepetitions(s, tc.bytes, tc.procs); got != tc.want || o.Probes(s) != tc.probes {
			t.Errorf("-iter_policy %s %s at %d bytes on %d: %d repetitions, probes %v; want %d, %v",
				tc.policy, tc.name, tc.bytes, tc.procs, got, o.Probes(s), tc.want, tc.probes)
		}
	}
	o.IterPolicy = IterAuto
	if o.TimeBounded() {
		t.Error("-iter_policy auto on the default list (Bcast, Reduce, ...): TimeBounded, want not")
	}
	o.Benchmarks = []string{"PingPong", "Alltoall"}
	if !o.TimeBounded() {
		t.Error("-iter_policy auto PingPong Alltoall: not TimeBounded, want bounded (both probe)")
	}
}

// TestMultipleNPRepetitionsIMB checks every row of IMB-MPI1 2021.11 on
// Open MPI under -iter_policy multiple_np, and the rooted collective's
// rows under auto, against SampleRepetitions: `mpirun -np P IMB-MPI1
// -msglog 0:16 -npmin P -iter_policy POLICY PingPong Allreduce Alltoall
// Bcast` for P = 2, 4 (bench/testdata/imb-2021.11-ompi-*.txt).
func TestMultipleNPRepetitionsIMB(t *testing.T) {
	for _, policy := range []string{IterMultipleNP, IterAuto} {
		for _, np := range []int{2, 4} {
			name := fmt.Sprintf("testdata/imb-2021.11-ompi-%s-np%d.txt", policy, np)
			data, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			o := DefaultOptions()
			o.MsgLogMin, o.MsgLogMax, o.IterPolicy = 0, 16, policy
			var spec Spec
			procs, rows := 0, 0
			for _, line := range strings.Split(string(data), "\n") {
				f := strings.Fields(line)
				switch {
				case len(f) == 3 && f[1] == "Benchmarking":
					spec, _ = Lookup(f[2])
				case len(f) == 4 && f[1] == "#processes":
					procs, _ = strconv.Atoi(f[3])
				case len(f) >= 3 && line[0] == ' ':
					bytes, err1 := strconv.ParseInt(f[0], 10, 64)
					reps, err2 := strconv.Atoi(f[1])
					if err1 != nil || err2 != nil || o.Probes(&spec) {
						continue
					}
					rows++
					if got := o.SampleRepetitions(&spec, bytes, procs); got != reps {
						t.Errorf("%s: %s at %d bytes on %d: %d repetitions, IMB-MPI1 %d", name, spec.Name, bytes, procs, got, reps)
					}
				}
			}
			if want := map[string]int{IterMultipleNP: 70, IterAuto: 18}[policy]; rows != want {
				t.Errorf("%s: %d rows of counts without probes, want %d", name, rows, want)
			}
		}
	}
}
