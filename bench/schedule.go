package bench

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode"
)

// Sizes returns the message sizes of a run in bytes, in order: the -msglen
// list when o.MsgLens is non-nil, else 0 followed by 2^a, 2^(a+1), ...,
// 2^b for -msglog a:b (IMB's sweep, src_c/IMB_settings.h MINMSGLOG and
// MAXMSGLOG; sample: -msglog 3:28 gives 0, 8, 16, ...), without the 0
// under -zero_size off (NoZeroSize). Sizes are int64 so the largest, 2^30,
// cannot wrap.
func (o *Options) Sizes() []int64 {
	if o.MsgLens != nil {
		return append([]int64(nil), o.MsgLens...)
	}
	sizes := []int64{0}
	if o.NoZeroSize {
		sizes = sizes[:0]
	}
	for e := o.MsgLogMin; e <= o.MsgLogMax; e++ {
		sizes = append(sizes, int64(1)<<e)
	}
	return sizes
}

// BaseRepetitions is IMB's repetition count before the time cap, for
// message size bytes: MsgsPerSample for 0 bytes, else
// max(1, min(OverallVolBytes/bytes, MsgsPerSample)) (IMB_mem_manager.c with
// MSGSPERSAMPLE 1000, OVERALL_VOL 40 MiB: 1000 up to 32 KiB, 640 at 64 KiB,
// ..., 10 at 4 MiB).
//
// Under -iter_policy off it is MsgsPerSample at every size (IMB 2019u6
// with -iter 100000 -iter_policy off runs 100000 repetitions at 2048
// bytes, above the volume cap).
func (o *Options) BaseRepetitions(bytes int64) int {
	if bytes <= 0 || o.IterPolicy == IterOff {
		return o.MsgsPerSample
	}
	n := o.OverallVolBytes / bytes
	if n > int64(o.MsgsPerSample) {
		n = int64(o.MsgsPerSample)
	}
	if n < 1 {
		n = 1
	}
	return int(n)
}

// SampleRepetitions is IMB's n_sample of one message size of benchmark s
// on groups of procs processes before any probe (IMB 2021.x,
// IMB_mem_manager.c, IMB_init_buffers_iter): BaseRepetitions under the
// dynamic and off policies, and for the unrooted benchmarks under auto;
// MultipleNPRepetitions of MsgsPerSample under multiple_np, and for the
// rooted collectives (Spec.Rooted) under auto. A benchmark without sizes
// (Barrier, IMB's Sync type) counts as its largest size, 2^b bytes of
// -msglog a:b in whole elements, as IMB runs it there. It is also the
// count the -off_cache slots and the -mem check are computed for.
func (o *Options) SampleRepetitions(s *Spec, bytes int64, procs int) int {
	if o.Probes(s) || o.IterPolicy == IterOff {
		return o.BaseRepetitions(bytes)
	}
	if s.Class.Sizeless {
		unit := o.dataTypeSize()
		if s.Reduction {
			unit = int64(o.redType().Size())
		}
		bytes = (int64(1) << o.MsgLogMax) / unit * unit // IMB's MAXMSG
	}
	return MultipleNPRepetitions(o.MsgsPerSample, bytes, procs, o.MsgLogMax)
}

// Probes reports whether the counts of benchmark s come from probes
// capped by -time: under the dynamic policy, and for the unrooted
// benchmarks under auto. Otherwise (off, multiple_np, the rooted
// collectives under auto) every size runs its SampleRepetitions once
// untimed before the warm-up, as IMB does.
func (o *Options) Probes(s *Spec) bool {
	switch o.IterPolicy {
	case "", IterDynamic:
		return true
	case IterAuto:
		return !s.Rooted
	}
	return false
}

// TimeBounded reports whether -time bounds every message size of the
// run: every benchmark of o.Benchmarks (the default list when empty) has
// its counts from probes (Probes).
func (o *Options) TimeBounded() bool {
	names := o.Benchmarks
	if len(names) == 0 {
		names = DefaultNames()
	}
	for _, name := range names {
		if s, ok := Lookup(name); ok && !o.Probes(&s) {
			return false
		}
	}
	return true
}

// MultipleNPRepetitions is IMB's count under -iter_policy multiple_np
// (IMB 2021.x, IMB_mem_manager.c, IMB_init_buffers_iter), for n = -iter's
// first value, message size bytes, procs processes per group and -msglog
// a:b's b (kept at 22 when -msglen or -msgsize list the sizes): with
// init = max(bytes, 4) and M = 2^b, t = (int)(n M / (procs init + M) +
// 0.5), the count is max(t - t mod procs, procs). It is a multiple of
// procs, so that every rank is a rooted collective's root equally often
// under -root_shift, and falls with the size from about n at 0 bytes to
// n/(procs+1) at M; the volume cap and -time do not apply. Examples for
// n = 1000, b = 22: 1000 at 0 bytes, 970 at 64 KiB and 332 at 4 MiB on 2
// processes, 200 on 4 processes at 4 MiB. IMB computes procs*init + M in C int; the
// wrap-around of that sum past 2^31 (sizes of 2^29 bytes and more on 4
// processes) is reproduced, as is x86's conversion of an out-of-range
// double to INT_MIN, so such sizes get procs repetitions, as in IMB.
func MultipleNPRepetitions(n int, bytes int64, procs, maxMsgLog int) int {
	p := int32(procs)
	maxMsg := int32(1) << maxMsgLog
	den := p*int32(max(bytes, assignSize)) + maxMsg // int arithmetic, wrapping as IMB's
	v := float64(n)*float64(maxMsg)/float64(den) + 0.5
	t := int32(math.MinInt32) // cvttsd2si of NaN, infinities and out-of-range values
	if v > math.MinInt32-1 && v < math.MaxInt32+1 {
		t = int32(v)
	}
	return int(max(t-t%p, p))
}

// CapRepetitions applies IMB's dynamic iteration policy (ITER_POLICY
// imode_dynamic; IMB 2021.x, src_cpp/helpers/helper_IMB_functions.h,
// IMB_init_buffers_iter) to a size of a -msglog sweep: given the base
// count n, the previous size's count prev (0 for the first size) and
// probe, the per-iteration time in seconds of the second probe (slowest
// rank; see SecondProbeRepetitions), it returns min(n, prev, TimeFit).
// Counts therefore never grow from one size to the next, and one size
// takes about limit seconds at most.
func CapRepetitions(n, prev int, probe, limit float64) int {
	if prev > 0 && prev < n {
		n = prev
	}
	return max(min(n, TimeFit(n, probe, limit)), 1)
}

// ListRepetitions is CapRepetitions for a size of a -msglen or -msgsize
// list, where IMB 2021.x does not bound a size by the previous size's
// count but keeps the counts monotonic in the size (IMB_init_buffers_iter,
// numiters): starting from TimeFit, every earlier size of the list that is
// smaller than bytes bounds the count from above by its own count, every
// other earlier size from below; the result is at most n. earlier and
// counts are the list's sizes measured so far and their counts. Example:
// the list 4194304, 8 gives 8 bytes the base 1000, not 4 MiB's 10.
func ListRepetitions(n int, probe, limit float64, bytes int64, earlier []int64, counts []int) int {
	t := TimeFit(n, probe, limit)
	for i, c := range counts {
		if earlier[i] < bytes {
			t = min(t, c)
		} else {
			t = max(t, c)
		}
	}
	return max(min(n, t), 1)
}

// TimeFit is IMB's t_sample, the iterations that fit in limit seconds at
// probe seconds each: 1 + limit/probe, computed in float32 and truncated
// as IMB does; n (the base count) when probe is 1e-8 s or less or the value
// does not fit in an int32.
func TimeFit(n int, probe, limit float64) int {
	v := float32(1 + limit/probe)
	if !(probe > 1e-8) || !(v <= float32(math.MaxInt32)) {
		return n
	}
	return int(v)
}

// probeRate is IMB's MSGSPERSAMPLE as its probe reads it: the compiled-in
// 1000, whatever -iter sets (IMB_settings.h).
const probeRate = 1000

// SecondProbeRepetitions is the length in iterations of IMB's second probe
// of a message size under the dynamic policy (IMB 2021.x,
// IMB_init_buffers_iter): from the first probe, one iteration whose
// slowest rank took probe seconds, IMB estimates the iterations that fill
// one second (1000 below 1 ms, 1/probe rounded below 1 s, else 1) and
// runs min(n, that) iterations of the base count n again, when that is
// more than 1. The second probe's time alone then sets the cap
// (CapRepetitions, ListRepetitions); with no second probe the first's
// does. So a single cold or descheduled first iteration does not cap a
// size, and every size runs its loop about once more, untimed, before
// the warm-up.
func SecondProbeRepetitions(n int, probe float64) int {
	est := 1
	switch {
	case probe < 1.0/probeRate:
		est = probeRate
	case probe < 1:
		est = int(1/probe + 0.5)
	}
	return min(n, est)
}

// BenchmarkTimeLimit is IMB-MPI1's time limit for one benchmark, in
// seconds: max(max(n_lens, b - a) - 1, 1) x -time, where n_lens is the
// number of -msglen/-msgsize sizes (0 without them) and a:b the -msglog
// exponents, which keep their value (default 0:22) when a size list is
// given (IMB 2021.x, src_cpp/helpers/helper_IMB_functions.h
// helper_time_check; IMB_2018.c for the C-era suite). Examples: -msglog
// 10:22 -time 2 gives 22 s; the defaults -msglog 0:22 -time 10 give 210 s;
// -msglog 20:20 gives 1 x -time. The runner stops a benchmark at the first
// message size whose probes end after this limit (see Options.NoTimeOut).
func (o *Options) BenchmarkTimeLimit() float64 {
	nLens := 0
	if o.MsgLens != nil {
		nLens = len(o.MsgLens)
	}
	return float64(max(max(nLens, o.MsgLogMax-o.MsgLogMin)-1, 1)) * o.TimeLimit
}

// WarmupRepetitions is the number of untimed iterations IMB-MPI1 2021.x
// runs before the timed ones (IMB_warm_up.c, WARMUP_PERCENT 10): n/10,
// but 1 when that is 0 and n > 1; for n = 1 none (IMB then calls the
// benchmark with 0 iterations, its two barriers only). Intel's source
// after 2021.11 (commit 46e8757, May 2026, in no release yet) raises it to
// at least min(10, n); mpbench follows the released IMB-MPI1 that
// frameworks drive and that bench/compare-imb.sh compares with.
func WarmupRepetitions(n int) int {
	w := n / 10
	if w == 0 && n > 1 {
		w = 1
	}
	return w
}

// ProcessCounts returns the process counts of the -npmin sweep on np
// processes: npmin, 2*npmin, 4*npmin, ... below np, then np itself
// (IMB.c's loop: NP = min(2*NP, np) until np is reached). It returns an
// error when npmin > np.
func ProcessCounts(npmin, np int) ([]int, error) {
	if npmin < 1 {
		return nil, optionErrorf("-npmin %d: expected -npmin P with an integer P >= 1", npmin)
	}
	if npmin > np {
		return nil, optionErrorf("-npmin %d: only %d processes are running; use -npmin 1..%d or run with -np %d or more", npmin, np, np, npmin)
	}
	var out []int
	for p := npmin; ; p *= 2 {
		if p >= np {
			out = append(out, np)
			return out, nil
		}
		out = append(out, p)
	}
}

// ParseMsgLog parses IMB's -msglog value "a:b" (sizes 0, 2^a, ..., 2^b) or
// "b" (meaning 0:b) into its exponents, with 0 <= a <= b <= MaxMsgLog.
func ParseMsgLog(s string) (lo, hi int, err error) {
	bad := func() (int, int, error) {
		return 0, 0, optionErrorf("-msglog %s: expected -msglog a:b with integers 0 <= a <= b <= %d", shown(s), MaxMsgLog)
	}
	a, b, found := strings.Cut(strings.TrimSpace(s), ":")
	if !found {
		a, b = "0", a
	}
	if lo, err = strconv.Atoi(strings.TrimSpace(a)); err != nil {
		return bad()
	}
	if hi, err = strconv.Atoi(strings.TrimSpace(b)); err != nil {
		return bad()
	}
	if lo < 0 || hi > MaxMsgLog || lo > hi {
		return bad()
	}
	return lo, hi, nil
}

// ReadMsgLen reads an IMB -msglen file: one message size in bytes per
// line, blank lines and lines starting with '#' ignored; sizes need not be
// powers of two and are kept in file order. Errors name the line:
// "-msglen line 3: "12k": expected a size in bytes 0..1073741824".
func ReadMsgLen(r io.Reader) ([]int64, error) {
	sc := bufio.NewScanner(r)
	sizes := []int64{}
	line := 1
	for ; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		n, err := parseSize(fmt.Sprintf("-msglen line %d", line), text)
		if err != nil {
			return nil, err
		}
		sizes = append(sizes, n)
	}
	if err := sc.Err(); err != nil {
		return nil, scanError("-msglen", "size in bytes", line, err)
	}
	if len(sizes) == 0 {
		return nil, optionErrorf("-msglen: the file lists no sizes; expected one size in bytes per line")
	}
	return sizes, nil
}

// ParseIter parses IMB's -iter msgspersample[,overall_vol_MiB[,msgs_nonaggr]]
// into the repetitions for small sizes (>= 1) and the volume cap per size
// in bytes (MiB >= 1; DefaultOverallVolBytes when not given). The third
// value is accepted and ignored: it only matters for IMB-EXT.
func ParseIter(s string) (n int, volBytes int64, err error) {
	bad := optionErrorf("-iter %s: expected -iter n[,MiB] with integers n >= 1 and MiB >= 1", shown(s))
	parts := strings.Split(s, ",")
	if len(parts) > 3 {
		return 0, 0, bad
	}
	n, err = strconv.Atoi(strings.TrimSpace(parts[0]))
	if err != nil || n < 1 {
		return 0, 0, bad
	}
	volBytes = DefaultOverallVolBytes
	if len(parts) > 1 {
		mib, err := strconv.ParseInt(strings.TrimSpace(parts[1]), 10, 64)
		if err != nil || mib < 1 || mib > 1<<20 {
			return 0, 0, bad
		}
		volBytes = mib << 20
	}
	return n, volBytes, nil
}

// ParseOffCache parses IMB's -off_cache value "cache_size[,cache_line_size]":
// cache_size is in MiB (a decimal number, as IMB reads it) and the optional
// line size in bytes (default DefaultCacheLine). As in IMB-MPI1 2021.x
// (MPI1_suite.cpp), a negative cache_size ("-1") selects DefaultCacheBytes
// (returned as -1) and 0 turns off-cache off (returned as 0). It returns
// the cache size and line in bytes.
func ParseOffCache(s string) (cacheBytes int64, line int, err error) {
	bad := func() (int64, int, error) {
		return 0, 0, optionErrorf("-off_cache %s: expected -off_cache -1 (8 MiB), 0 (off) or -off_cache MiB[,line_bytes] with MiB > 0", shown(s))
	}
	size, ls, hasLine := strings.Cut(strings.TrimSpace(s), ",")
	mib, err := strconv.ParseFloat(strings.TrimSpace(size), 64)
	if err != nil || math.IsNaN(mib) || math.IsInf(mib, 0) {
		return bad()
	}
	line = DefaultCacheLine
	if hasLine {
		if line, err = strconv.Atoi(strings.TrimSpace(ls)); err != nil || line < 1 || line > 1<<20 {
			return bad()
		}
	}
	switch {
	case mib < 0:
		return -1, line, nil
	case mib == 0:
		return 0, line, nil
	}
	if mib > 1<<20 || int64(mib*(1<<20)) < 1 {
		return bad()
	}
	return int64(mib * (1 << 20)), line, nil
}

// FormatMem renders bytes as an IMB -mem value in GB (2^30 bytes, as
// ParseMem reads it), rounded up to two decimals so that the value given
// back to -mem is never below bytes: 2147483648 gives "2",
// 2147483649 gives "2.01".
func FormatMem(bytes int64) string {
	gb := math.Ceil(float64(bytes)/(1<<30)*100) / 100
	return strconv.FormatFloat(gb, 'f', -1, 64)
}

// memValue renders a -mem limit of bytes as the shortest number of GB
// that ParseMem reads back as the same bytes: 1073741824 gives "1",
// 1 (from -mem 1e-9) gives "1e-09", where FormatMem's rounding up would
// print 0.01, a limit 10 million times larger than the one in force.
func memValue(bytes int64) string {
	lo := float64(bytes) / (1 << 30)
	for digits := 1; digits <= 17; digits++ {
		scale := math.Pow(10, float64(digits-1)-math.Floor(math.Log10(lo)))
		for _, gb := range []float64{math.Round(lo*scale) / scale, math.Ceil(lo*scale) / scale} {
			s := strconv.FormatFloat(gb, 'g', -1, 64)
			if n, err := ParseMem(s); err == nil && n == bytes {
				return s
			}
		}
	}
	return strconv.FormatFloat(lo, 'g', -1, 64) // exact: bytes / 2^30
}

// ParseMem parses IMB's -mem value, a decimal number of GB per process,
// into bytes. mpbench reads a GB as 2^30 bytes, the larger of the two
// readings, so that it never refuses a size IMB would accept.
func ParseMem(s string) (int64, error) {
	gb, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || !(gb > 0) || gb > 1<<20 || int64(gb*(1<<30)) < 1 {
		return 0, optionErrorf("-mem %s: expected -mem GB with a number of GB > 0", shown(s))
	}
	return int64(gb * (1 << 30)), nil
}

// ParseSwitch parses the value s of IMB's on/off option named option
// (-sync, -warm_up, -zero_size, -root_shift, -imb_barrier, -msg_pause,
// -show_tail): 1, on, yes or true; 0, off, no or false; in any case.
func ParseSwitch(option, s string) (bool, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "1", "on", "yes", "true":
		return true, nil
	case "0", "off", "no", "false":
		return false, nil
	}
	return false, optionErrorf("-%s %s: expected -%s 1 or -%s 0 (on/off)", option, shown(s), option, option)
}

// shown is an option value as an error message prints it: as given, or
// quoted when it holds a line break or another control character, so that
// the message stays one line.
func shown(s string) string {
	if strings.IndexFunc(s, unicode.IsControl) >= 0 {
		return strconv.Quote(s)
	}
	return s
}
