package cli

import (
	"github.com/spf13/cobra"

	"github.com/mpbench/mpbench/app"
	"github.com/mpbench/mpbench/app/npb"
	"github.com/mpbench/mpbench/launch"
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
			f.memoryFix = "lower -np"
			return runApp(cmd, &f, inv, "ep", func(c *app.Comm) (*app.Report, error) {
				return npb.EP(c, cl)
			})
		},
	}
	cmd.Flags().StringVar(&class, "class", "S", "problem class: S, W, A, B, C or D")
	addAppFlags(cmd.Flags(), &f)
	return cmd
}

// newAppFTCmd is "mpbench app ft".
func newAppFTCmd(inv *invocation) *cobra.Command {
	var f appFlags
	var class string
	cmd := &cobra.Command{
		Use:   "ft [--class S|W|A|B] [-np P]",
		Short: "NAS Parallel Benchmarks FT (NPB 3.4): 3-D FFTs with Alltoall transposes",
		Long: `NPB's FT kernel (NPB 3.4, ft.f) on mpbench's communicator: a 3-D FFT PDE solver
whose grid is distributed in slabs; every 3-D FFT transposes the grid with one
Alltoall, and every iteration reduces a checksum to rank 0, printed as NPB
prints it. Verified against NPB 3.4's checksums (relative error 1e-12);
a failed verification exits with status 1. Classes: S (64x64x64, 6
iterations), W (128x128x32, 6), A (256x256x128, 6), B (512x256x256, 20).
-np must divide the grid's ny and nz (a power of two). The memory the class
needs is checked against the host's available memory before ranks start.`,
		Example: `  mpbench app ft --class W -np 4`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cl, err := npb.LookupFT(class)
			if err != nil {
				return usageErrorf("--class %s: %v", class, err)
			}
			np := int64(f.np)
			if np < 1 || cl.NY%np != 0 || cl.NZ%np != 0 {
				return usageErrorf("-np %d: FT class %s (%dx%dx%d) needs a process count dividing %d; use 1, 2, 4, ...", f.np, cl.Name, cl.NX, cl.NY, cl.NZ, min(cl.NY, cl.NZ))
			}
			if need, avail := npb.FTBytes(cl.NX, cl.NY, cl.NZ, 1), launch.MemAvailable(); avail > 0 && need > avail && !launch.IsWorker() {
				return usageErrorf("FT class %s needs %.1f GiB over all ranks, the host has %.1f GiB available; use a smaller class", cl.Name, float64(need)/(1<<30), float64(avail)/(1<<30))
			}
			f.memoryFix = "use a smaller --class"
			return runApp(cmd, &f, inv, "ft", func(c *app.Comm) (*app.Report, error) {
				return npb.FT(c, cl, cmd.OutOrStdout())
			})
		},
	}
	cmd.Flags().StringVar(&class, "class", "S", "problem class: S, W, A or B")
	addAppFlags(cmd.Flags(), &f)
	return cmd
}
