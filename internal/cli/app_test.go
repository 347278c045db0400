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

// TestProgressPrinter checks the progress line's timing: nothing before
// the first interval, then at most one line per interval, none for the
// last unit.
func TestProgressPrinter(t *testing.T) {
	var out bytes.Buffer
	start := time.Now().Add(-25 * time.Millisecond)
	p := progressPrinter(&out, start, 20*time.Millisecond)
	p(1, 4) // 25 ms in: prints
	p(2, 4) // within the next 20 ms: silent
	if got, want := out.String(), "mpbench: progress: rank 0 at 25% (1 of 4 units), 0 s\n"; got != want {
		t.Errorf("first lines %q, want %q", got, want)
	}
	time.Sleep(25 * time.Millisecond)
	p(4, 4) // the last unit: the report follows, no line
	if strings.Count(out.String(), "\n") != 1 {
		t.Errorf("a line for the last unit: %q", out.String())
	}
	p(3, 4)
	if !strings.HasSuffix(out.String(), "at 75% (3 of 4 units), 0 s\n") {
		t.Errorf("no second line after the interval: %q", out.String())
	}
	quiet := progressPrinter(&out, time.Now(), time.Hour)
	out.Reset()
	quiet(1, 2)
	if out.Len() != 0 {
		t.Errorf("a line before the first interval: %q", out.String())
	}
}
