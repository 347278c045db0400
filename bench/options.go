package bench

import (
	"math"
	"time"

	"github.com/mpbench/mpbench/coll"
	"github.com/mpbench/mpbench/result"
)

// Defaults of the IMB-MPI1 options, from IMB's src_c/IMB_settings.h
// (MINMSGLOG, MAXMSGLOG, MSGSPERSAMPLE, OVERALL_VOL, SECS_PER_SAMPLE).
const (
	DefaultMsgLogMin       = 0
	DefaultMsgLogMax       = 22
	DefaultMsgsPerSample   = 1000
	DefaultOverallVolBytes = 40 << 20 // 40 MiB
	DefaultTimeLimit       = 10.0     // seconds per message size
	// MaxMsgLog is the largest accepted -msglog exponent: sizes stay at or
	// below 2^30 bytes (IMB requires max < 31).
	MaxMsgLog = 30
	// MaxMsgLen is the largest accepted message size in bytes.
	MaxMsgLen = int64(1) << MaxMsgLog
	// DefaultMemBytes is the default -mem limit on one process's benchmark
	// buffers (IMB_mem_info.h MAX_MEM_USAGE, 1 GB).
	DefaultMemBytes = int64(1) << 30
)

// Values of Options.IterPolicy, IMB's -iter_policy (IMB_mem_manager.c,
// IMB_init_buffers_iter; see Options.SampleRepetitions).
const (
	IterDynamic = "dynamic" // volume cap, then min(n, prev, 1 + secs/t) (IMB's default)
	IterOff     = "off"     // MsgsPerSample repetitions at every size
	// IterMultipleNP: a multiple of the group's process count that falls
	// with the size (MultipleNPRepetitions), without probes or -time cap.
	IterMultipleNP = "multiple_np"
	// IterAuto: IterMultipleNP for the rooted collectives (Spec.Rooted),
	// IterDynamic for every other benchmark.
	IterAuto = "auto"
)

// Off-cache defaults used for "-off_cache -1" (IMB takes them from
// src_c/IMB_mem_info.h, which is per machine; mpbench fixes them).
const (
	DefaultCacheBytes = 8 << 20 // 8 MiB: larger than the last-level cache slice of one core on common CPUs
	DefaultCacheLine  = 64      // bytes
)

// Options are the IMB-MPI1 run options, named after IMB's command-line
// flags. The zero value is not valid; start from DefaultOptions.
type Options struct {
	NPMin                int      // -npmin: smallest process count of the sweep, default 2
	MsgLogMin, MsgLogMax int      // -msglog a:b: sizes 0, 2^a, ..., 2^b bytes; default 0:22
	MsgLens              []int64  // -msglen FILE contents in bytes; overrides -msglog when non-nil
	MsgsPerSample        int      // -iter first value: repetitions for small sizes, default 1000
	OverallVolBytes      int64    // -iter second value (IMB takes it in MiB): volume cap per size in bytes, default 40 MiB
	TimeLimit            float64  // -time: seconds per message size, default 10
	OffCache             int64    // -off_cache: 0 off (default), -1 DefaultCacheBytes, >0 cache size in bytes
	CacheLine            int      // -off_cache second value: cache line in bytes; 0 means DefaultCacheLine
	Sync                 bool     // -sync (default true): barrier between timed calls of collectives, as IMB does
	Warmup               bool     // -warm_up (default true): warm-up iterations before timing
	Check                bool     // -check: verify every received byte of every repetition
	MemBytes             int64    // -mem (IMB: GB per process, default 1): limit on one process's buffer bytes, default 1 GiB
	Multi                int      // -multi: result.MultiNone (default), result.MultiWorst (0), result.MultiEach (1)
	MByte                float64  // bytes per Mbyte in Mbytes/sec: result.MB (default, IMB >= 2018) or result.MiB (IMB <= 2017)
	Benchmarks           []string // benchmark names in run order, case-insensitive; empty means DefaultNames()
	// NoZeroSize is IMB's -zero_size off: the -msglog sweep starts at 2^a
	// without the 0-byte size (a -msglen list is kept as given).
	NoZeroSize bool
	// IterPolicy is IMB's -iter_policy: IterDynamic (default; "" means the
	// same) caps repetitions by volume and -time, IterOff runs
	// MsgsPerSample repetitions at every size, IterMultipleNP a multiple
	// of the process count that falls with the size, IterAuto
	// IterMultipleNP for rooted collectives and IterDynamic otherwise.
	IterPolicy string
	// RootShift is IMB's -root_shift: rooted collectives (Bcast, Reduce,
	// Gather(v), Scatter(v)) use root (i mod procs) in iteration i instead
	// of the fixed root 0 (IMB_bcast.c: root = (root+1) % num_procs).
	// Default off, as in IMB since 2017.
	RootShift bool
	// Algorithms selects the collective algorithms (mpbench's --coll, see
	// coll.ParseAlgorithms); the zero value uses coll's decision table, or
	// the library's own collectives where the communicator offers them
	// natively (coll.NativeBcast, ...).
	Algorithms coll.Algorithms
	// Params are the values of the benchmark classes' own options
	// (Class.Params, e.g. WindowSize's -window_size) by name; one not in
	// the map has its Default (see Param).
	Params map[string]int
	// RedType is IMB's -red_data_type: the element type of the reduction
	// benchmarks; 0 means coll.Float32 (MPI_FLOAT, IMB's default).
	RedType coll.Datatype
	// DataType is IMB's -data_type for the benchmarks that move bytes:
	// the MPI datatype's name ("MPI_BYTE", the default when ""; "MPI_CHAR",
	// "MPI_INT", "MPI_FLOAT", "MPI_DOUBLE") and element size (0 means 1).
	// Every message size is rounded up to whole elements, as IMB-MPI1 does
	// with the size of its send datatype for the benchmarks that do not
	// reduce (alignSizes): -msglog 0:3 of MPI_INT runs 0, 4 and 8 bytes.
	DataType     string
	DataTypeSize int
	// IMBBarrier is IMB's -imb_barrier: the barriers of the collectives
	// and Barrier (two before every call of the kernel, and the one after
	// each collective call under -sync) use a barrier of point-to-point
	// messages written in package bench instead of the communicator's
	// Barrier; the point-to-point benchmarks keep the communicator's
	// (Spec.LibraryBarrier), as in IMB-MPI1 2021.x.
	IMBBarrier bool
	// MsgPause is IMB's -msg_pause: after each message size's timed loop
	// every active rank pauses a tenth of the time that loop and its
	// barriers took, at least 0.1 s (see MsgPause).
	MsgPause bool
	// Map is IMB's -map PxQ as {P, Q}; {0, 0} or a 1 in either place keeps
	// the world's rank order. Otherwise groups are filled in the order of
	// IMB's key (Q * rank) mod (P*Q - 1) (0 kept for ranks 0 and P*Q-1),
	// ties by rank (IMB_init_communicator), so that on Q hosts of P
	// processes placed host by host PingPong pairs ranks of two hosts.
	Map [2]int
	// PerRepetition keeps every repetition's time of the timed loop (one
	// clock read per repetition) and gives each row its result.Spread: the
	// times of the row's first rank, or of its slowest rank for
	// collectives, gathered after the loop.
	PerRepetition bool
	// SyncAll is mpbench's --sync-all: the barrier between timed calls of
	// collectives (-sync) joins every active rank, all of -multi's groups
	// at once, so that the groups' calls start together in every
	// repetition (IMB's joins one group's ranks, and the groups' loops
	// drift apart); and every row of a collective (or Barrier) gets the
	// extra column result.ExtraCallMax (CallMax over its ranks'
	// repetition times, kept as under PerRepetition): how long each
	// repetition lasted until its slowest rank left the call, averaged.
	// That is what a step of simultaneous collectives costs an
	// application that starts them together and waits for the last
	// (mpbench app matmul --sync's comm_calls_max_s), where t_max, the
	// slowest rank's mean, lets the slowest rank change from call to call
	// unseen.
	SyncAll bool
	// NoTimeOut measures every message size of a benchmark however long it
	// has run (mpbench's --all-sizes). By default the runner applies
	// IMB-MPI1's time-out: once a benchmark (at one process count) has run
	// longer than BenchmarkTimeLimit when the probes of a size end, that
	// size gets IMB's "time-out." row and the benchmark's remaining sizes
	// and process counts are not run (Block.TimeOut).
	NoTimeOut bool
	// Settle is how long the ranks exchange barriers before the first
	// benchmark, so that start-up activity of the runtime, the library
	// and the kernel is over before timing (see settle); 0 skips it.
	// DefaultOptions sets DefaultSettle.
	Settle time.Duration
}

// DefaultOptions returns IMB-MPI1 2021.x defaults: -npmin 2, -msglog 0:22,
// -iter 1000,40, -time 10, no -off_cache, -sync on, -warm_up on, no -check,
// no -multi, Mbytes of 10^6 bytes, the default benchmark list; and
// mpbench's settle phase of DefaultSettle before the first benchmark.
func DefaultOptions() Options {
	return Options{
		NPMin:           2,
		MsgLogMin:       DefaultMsgLogMin,
		MsgLogMax:       DefaultMsgLogMax,
		MsgsPerSample:   DefaultMsgsPerSample,
		OverallVolBytes: DefaultOverallVolBytes,
		TimeLimit:       DefaultTimeLimit,
		Sync:            true,
		Warmup:          true,
		MemBytes:        DefaultMemBytes,
		Multi:           result.MultiNone,
		MByte:           result.MB,
		Settle:          DefaultSettle,
	}
}

// Validate checks every option and returns the first problem as one line
// naming the option and its accepted form, or nil.
func (o *Options) Validate() error {
	if o.NPMin < 1 {
		return optionErrorf("-npmin %d: expected -npmin P with an integer P >= 1", o.NPMin)
	}
	if o.MsgLens == nil {
		if o.MsgLogMin < 0 || o.MsgLogMax > MaxMsgLog || o.MsgLogMin > o.MsgLogMax {
			return optionErrorf("-msglog %d:%d: expected -msglog a:b with integers 0 <= a <= b <= %d", o.MsgLogMin, o.MsgLogMax, MaxMsgLog)
		}
	} else {
		if len(o.MsgLens) == 0 {
			return optionErrorf("-msglen: the file lists no sizes; expected one size in bytes per line")
		}
		for _, n := range o.MsgLens {
			if err := checkSize("-msglen", n); err != nil {
				return err
			}
		}
	}
	if o.Settle < 0 {
		return optionErrorf("--settle %v: expected a duration >= 0, e.g. 100ms, or 0 for none", o.Settle)
	}
	if o.Settle > MaxSettle {
		return optionErrorf("--settle %v: expected at most %v (the settle phase only has to outlast a job's start-up)", o.Settle, MaxSettle)
	}
	if err := o.checkParams(); err != nil {
		return err
	}
	if o.RedType != 0 && o.RedType.Size() == 0 {
		return optionErrorf("-red_data_type %v: expected %s", o.RedType, redDataTypeNames())
	}
	if o.DataTypeSize < 0 || o.DataTypeSize > 16 {
		return optionErrorf("-data_type element of %d bytes: expected 1..16", o.DataTypeSize)
	}
	if o.Map[0] < 0 || o.Map[1] < 0 {
		return optionErrorf("-map %dx%d: expected -map PxQ with integers P, Q >= 1", o.Map[0], o.Map[1])
	}
	if o.MsgsPerSample < 1 {
		return optionErrorf("-iter %d: expected -iter n[,MiB] with n >= 1", o.MsgsPerSample)
	}
	if o.OverallVolBytes < 1 {
		return optionErrorf("-iter volume %d bytes: expected -iter n,MiB with MiB >= 1", o.OverallVolBytes)
	}
	if err := CheckTimeLimit(o.TimeLimit); err != nil {
		return err
	}
	if o.OffCache < -1 {
		return optionErrorf("-off_cache %d: expected -off_cache -1 or a cache size > 0", o.OffCache)
	}
	if o.CacheLine < 0 || o.CacheLine > 1<<20 {
		return optionErrorf("-off_cache line %d: expected a cache line of 1..1048576 bytes", o.CacheLine)
	}
	if o.MemBytes < 1 {
		return optionErrorf("-mem %d bytes: expected -mem GB with GB > 0", o.MemBytes)
	}
	switch o.Multi {
	case result.MultiNone, result.MultiWorst, result.MultiEach:
	default:
		return optionErrorf("-multi %d: expected -multi 0 or -multi 1", o.Multi)
	}
	if o.MByte != result.MB && o.MByte != result.MiB {
		return optionErrorf("Mbyte of %v bytes: expected %v (MB) or %v (MiB)", o.MByte, float64(result.MB), float64(result.MiB))
	}
	switch o.IterPolicy {
	case "", IterDynamic, IterOff, IterMultipleNP, IterAuto:
	default:
		return optionErrorf("-iter_policy %s: expected -iter_policy dynamic, off, multiple_np or auto", o.IterPolicy)
	}
	for _, name := range o.Benchmarks {
		if _, ok := Lookup(name); !ok {
			return unknownBenchmark(name)
		}
	}
	return nil
}

// redType is the reduction element type, RedType or IMB's default float.
func (o *Options) redType() coll.Datatype {
	if o.RedType == 0 {
		return coll.Float32
	}
	return o.RedType
}

// dataTypeSize is the -data_type element size in bytes (1 by default).
func (o *Options) dataTypeSize() int64 {
	return int64(max(o.DataTypeSize, 1))
}

// CheckTimeLimit checks IMB's -time value, seconds per message size: a
// finite number above 0 (NaN and infinities are refused). The error names
// the option and an example.
func CheckTimeLimit(seconds float64) error {
	if !(seconds > 0) || math.IsInf(seconds, 0) {
		return optionErrorf("-time %v: expected -time seconds with a finite number of seconds > 0, e.g. -time 10", seconds)
	}
	return nil
}
