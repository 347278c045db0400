package cli

import (
	"bytes"
	"errors"
	"testing"

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
			errs[c.Rank()] = appRank(cmd, &f, &invocation{}, c, "inmem", func(ac *app.Comm) (*app.Report, error) {
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
