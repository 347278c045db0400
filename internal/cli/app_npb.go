package cli

import (
	"github.com/spf13/cobra"

	"github.com/mpbench/mpbench/app"
	"github.com/mpbench/mpbench/app/npb"
)

// newAppEPCmd is "mpbench app ep".
func newAppEPCmd(inv *invocation) *cobra.Command {
	var f appFlags
	var class string
	cmd := &cobra.Command{
		Use:   "ep [--class S|W|A|B|C|D] [-np P]",
		Short: "NAS Parallel Benchmarks EP (NPB 3.4): Gaussian pairs, one Allreduce at the end",
		Long: `NPB's EP kernel (NPB 3.4, ep.f) on mpbench's communicator: 2^(M+1) numbers of
NPB's linear congruential generator (a = 5^13, modulus 2^46) become Gaussian
pairs counted in square annuli; the ranks combine their sums and counts with
Allreduce. Verified against NPB 3.4's signed sums (relative error 1e-8);
a failed verification exits with status 1. Classes: S (M = 24), W (25),
A (28), B (30), C (32), D (36).`,
		Example: `  mpbench app ep --class A -np 2`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cl, err := npb.LookupEP(class)
			if err != nil {
				return usageErrorf("--class %s: %v", class, err)
			}
			return runApp(cmd, &f, inv, "ep", func(c *app.Comm) (*app.Report, error) {
				return npb.EP(c, cl)
			})
		},
	}
	cmd.Flags().StringVar(&class, "class", "S", "problem class: S, W, A, B, C or D")
	addAppFlags(cmd.Flags(), &f)
	return cmd
}
