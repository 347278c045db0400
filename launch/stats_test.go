package launch

import (
	"regexp"
	"testing"
)

// TestStatsLine: the figures a soak reads, each plausible for this process.
func TestStatsLine(t *testing.T) {
	line := statsLine(3)
	m := regexp.MustCompile(`^mpbench-stats: rank 3: goroutines (\d+), heap (\d+\.\d) MiB, threads (\d+), rss (\d+\.\d) MiB\n$`).FindStringSubmatch(line)
	if m == nil {
		t.Fatalf("stats line %q", line)
	}
	if m[1] == "0" || m[3] == "0" || m[4] == "0.0" {
		t.Errorf("a running Go process has goroutines, threads and resident memory: %q", line)
	}
}
