package cli

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/mpbench/mpbench/app"
	"github.com/mpbench/mpbench/app/matmul"
	"github.com/mpbench/mpbench/comm"
	"github.com/mpbench/mpbench/comm/commtest"
)

// TestAppRankFailsUnverified checks that a run whose result does not
// verify ends every rank with errNotVerified after rank 0 printed
// "UNSUCCESSFUL", and that a verified one succeeds.
func TestAppRankFailsUnverified(t *testing.T) {
	for _, verified := range []bool{false, true} {
		var out bytes.Buffer
		errs := make([]error, 2)
		commtest.Run(t, 2, comm.Config{}, func(c comm.Comm) error {
			cmd := &cobra.Command{}
			cmd.SetOut(&out)
			var f appFlags
			addAppFlags(cmd.Flags(), &f)
			errs[c.Rank()] = appRank(context.Background(), cmd, &f, &invocation{}, c, jobTransport{Name: "inmem"}, func(ac *app.Comm) (*app.Report, error) {
				return &app.Report{App: "EP", Class: "S", NP: 2, Verified: verified && ac.Rank() == 0,
					Ranks: []app.RankTimes{{Total: 1}, {Total: 1}}}, nil
			})
			return nil
		})
		for r, err := range errs {
			if verified != (err == nil) || (!verified && !errors.Is(err, errNotVerified)) {
				t.Errorf("verified=%v: rank %d returned %v", verified, r, err)
			}
		}
		want := " Verification    =             UNSUCCESSFUL\n"
		if verified {
			want = " Verification    =               SUCCESSFUL\n"
		}
		if !bytes.Contains(out.Bytes(), []byte(want)) {
			t.Errorf("verified=%v: output lacks %s:\n%s", verified, want, out.String())
		}
	}
}

// TestProgressPrinter checks the progress line's timing on a clock the
// test sets: nothing before the first interval, then at most one line per
// interval, none for the last unit.
func TestProgressPrinter(t *testing.T) {
	var out bytes.Buffer
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	now := start
	p := progressPrinter(&out, start, 10*time.Second, func() time.Time { return now })
	now = start.Add(5 * time.Second)
	p(1, 8) // before the first interval: silent
	now = start.Add(12 * time.Second)
	p(2, 8) // 12 s in: prints
	now = start.Add(21 * time.Second)
	p(3, 8) // within 10 s of the last line: silent
	if got, want := out.String(), "mpbench: progress: rank 0 at 25% (2 of 8 units), 12 s\n"; got != want {
		t.Errorf("first lines %q, want %q", got, want)
	}
	now = start.Add(23 * time.Second)
	p(8, 8) // the last unit: the report follows, no line
	if strings.Count(out.String(), "\n") != 1 {
		t.Errorf("a line for the last unit: %q", out.String())
	}
	p(6, 8)
	if want := "mpbench: progress: rank 0 at 75% (6 of 8 units), 23 s\n"; !strings.HasSuffix(out.String(), want) || strings.Count(out.String(), "\n") != 2 {
		t.Errorf("lines %q, want a second one, %q", out.String(), want)
	}
}

// TestCheckMatmulMemory: a product that needs more than the available
// memory (5 n^2 float64 on 2 ranks without verification: 40 n^2 bytes)
// is one usage error naming the need, the memory available and the
// largest order that fits, which does fit (and the next does not).
func TestCheckMatmulMemory(t *testing.T) {
	const avail = 21 << 30
	cfg := matmul.Config{N: 100000}
	err := checkMatmulMemory(cfg, 2, avail)
	want := "-n 100000: the product needs 372.5 GiB over all ranks, the host has 21.0 GiB available; use -n 23742 or less"
	if err == nil || err.Error() != want || ExitStatus(err) != ExitUsage {
		t.Fatalf("got %v, want %q", err, want)
	}
	fit, over := cfg, cfg
	fit.N, over.N = 23742, 23743
	if matmul.Bytes(fit, 2) > avail || matmul.Bytes(over, 2) <= avail {
		t.Errorf("23742 is not the largest order that fits: %d, %d bytes", matmul.Bytes(fit, 2), matmul.Bytes(over, 2))
	}
	if err := checkMatmulMemory(matmul.Config{N: 2000, Verify: true}, 4, avail); err != nil {
		t.Errorf("n = 2000 in 21 GiB: %v", err)
	}
	if err := checkMatmulMemory(cfg, 2, 0); err != nil {
		t.Errorf("available memory unknown: %v", err)
	}
}
