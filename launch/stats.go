package launch

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/metrics"
	"time"
)

// EnvStats, set to a period such as "60s", makes every rank of a job
// started by Run print one line on its stderr each period (the launcher
// passes it on, prefixed "[rank N] "):
//
//	mpbench-stats: rank 3: goroutines 14, heap 5.1 MiB, threads 9, rss 31.2 MiB
//
// goroutines is runtime.NumGoroutine, heap the bytes of live and
// unswept heap objects (runtime/metrics /memory/classes/heap/objects:bytes,
// read without stopping the world), threads and rss the process's
// Threads and VmRSS from /proc/self/status (1 MiB = 2^20 bytes). A debug
// aid for long runs (the soak in bench/soak reads it): a leak of
// goroutines or memory in the runtime shows as a count that grows.
const EnvStats = "MPBENCH_STATS"

// startStats starts the stats printer when EnvStats is set; a value that
// is not a positive duration is ignored with one line on w.
func startStats(w io.Writer, rank int) {
	s := os.Getenv(EnvStats)
	if s == "" {
		return
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		fmt.Fprintf(w, "rank %d: %s=%q ignored: want a period such as 60s\n", rank, EnvStats, s)
		return
	}
	go func() {
		for range time.Tick(d) {
			io.WriteString(w, statsLine(rank))
		}
	}()
}

// statsLine is one line of EnvStats output.
func statsLine(rank int) string {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(sample)
	var heap uint64
	if sample[0].Value.Kind() == metrics.KindUint64 {
		heap = sample[0].Value.Uint64()
	}
	threads, rss := selfStatus()
	return fmt.Sprintf("mpbench-stats: rank %d: goroutines %d, heap %.1f MiB, threads %d, rss %.1f MiB\n",
		rank, runtime.NumGoroutine(), float64(heap)/(1<<20), threads, float64(rss)/(1<<20))
}
