package cli

import (
	"sort"

	"github.com/spf13/cobra"

	"github.com/mpbench/mpbench/app"
	"github.com/mpbench/mpbench/app/hostblas"
	"github.com/mpbench/mpbench/app/matmul"
	"github.com/mpbench/mpbench/launch"
)

// newAppMatmulCmd is "mpbench app matmul".
func newAppMatmulCmd(inv *invocation) *cobra.Command {
	var f appFlags
	var n int
	var square, noVerify, sync, cold bool
	var blasName, blasLib string
	var blasThreads int
	cmd := &cobra.Command{
		Use:   "matmul [-n N] [-np P] [--square] [--load K] [--blas auto|gonum|openblas]",
		Short: "Block matrix product over a p x q process grid (the study's section 4.3.3)",
		Long: `The study's block matrix product: n x n float64 matrices distributed in blocks
over a p x q process grid (p the largest divisor of -np not above its square
root), each grid row broadcasting its A blocks (q Bcasts among q ranks) and
each grid column its B blocks (p Bcasts among p ranks), with the local block
products between the broadcasts. --square computes the study's
A x A; the default is a general A x B. For n <= 2000 rank 0 checks the result
against a serial product and fails above a max relative error of 1e-10.
Communication time is the time measured inside the Bcasts; compute time the
time in the local products. Without --sync, comm includes the time a rank
waits in a Bcast for its root to finish computing (and, with more ranks than
CPUs, for a CPU another rank's product holds); --sync puts two barriers of
the whole grid before every Bcast step and one after it, so that the rows'
(columns') Bcasts start together and run with no rank computing, and reports
that waiting separately: comm is then the simultaneous Bcasts of expression
4.4. (The second barrier before a step is entered by ranks that have all left
the first, so the Bcast does not count how late a rank that slept in the first
one left it: that skew is reported on its own, align_calls_max_s.) Before the timed
phase every rank makes one untimed pass of the same Bcasts on the same
buffers, so that the timed ones do not pay the first transfer's costs
(page faults, a virtual machine's page-table fills); --cold skips it.

The local products run on the host's OpenBLAS when its shared library
loads (libopenblas.so.0; Debian: apt-get install libopenblas0), on one
thread per rank unless --blas-threads says otherwise, and on gonum's pure Go
BLAS otherwise; the report's "Local products" line names the BLAS that ran
and the file it came from. --blas gonum or --blas openblas insists on one.`,
		Example: `  mpbench app matmul -n 1000 -np 4
  mpbench app matmul -n 2000 -np 2 --square --load 1 --json mm.jsonl`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkMatrixOrder(n); err != nil {
				return err
			}
			if n < f.np {
				return usageErrorf("-n %d on %d ranks: every rank needs a block; use -n >= -np", n, f.np)
			}
			blas, err := useBLAS(blasName, blasLib, blasThreads)
			if err != nil {
				return err
			}
			f.info = blas.Fields()
			cfg := matmul.Config{N: n, Square: square, Verify: !noVerify && n <= matmul.MaxVerify, Sync: sync, Cold: cold, BLAS: blas.String()}
			if err := checkMatmulMemory(cfg, f.np, launch.MemAvailable()); err != nil && !launch.IsWorker() {
				return err
			}
			f.memoryFix = "lower -n"
			return runApp(cmd, &f, inv, "matmul", func(c *app.Comm) (*app.Report, error) {
				return matmul.Run(c, cfg)
			})
		},
	}
	fs := cmd.Flags()
	fs.IntVarP(&n, "n", "n", 2000, "matrix order n (n x n float64 matrices)")
	fs.BoolVar(&square, "square", false, "compute A x A, as the study did (default A x B)")
	fs.BoolVar(&noVerify, "no-verify", false, "skip the serial product on rank 0 (done by default for n <= 2000)")
	fs.BoolVar(&sync, "sync", false, "two barriers of the whole grid before every Bcast step and one after it, their time reported as wait: comm is then the simultaneous Bcasts' transfers alone, started together, as IMB's (Multi-)Bcast and 'mpbench predict matmul' count them")
	fs.BoolVar(&cold, "cold", false, "skip the untimed warm-up pass of the Bcasts: the timed Bcasts then include each block's first transfer")
	fs.StringVar(&blasName, "blas", string(hostblas.Auto), "BLAS of the local products: auto (the host's OpenBLAS if its shared library loads, else gonum), gonum, or openblas (fails if it does not load)")
	fs.IntVar(&blasThreads, "blas-threads", 1, "OpenBLAS threads per rank (ranks share the CPUs; 0: OpenBLAS's own default, OPENBLAS_NUM_THREADS or one per CPU)")
	fs.StringVar(&blasLib, "blas-lib", "", "OpenBLAS shared library to load, a name or a path (default: libopenblas.so.0, libopenblas.so, then libblas.so.3 if it is OpenBLAS)")
	addAppFlags(fs, &f)
	return cmd
}

// useBLAS installs the BLAS that --blas, --blas-lib and --blas-threads
// choose (hostblas.Use) and returns what it installed, for the report and
// the result files; bad options and a --blas openblas whose library does
// not load are usage errors (exit 2), before any rank starts.
func useBLAS(name, lib string, threads int) (hostblas.Info, error) {
	choice, err := hostblas.ParseChoice(name)
	if err != nil {
		return hostblas.Info{}, usageErrorf("--blas %s: %v", name, err)
	}
	if threads < 0 {
		return hostblas.Info{}, usageErrorf("--blas-threads %d: expected >= 0 (0: OpenBLAS's own default)", threads)
	}
	var libs []string
	if lib != "" {
		libs = []string{lib}
	}
	info, err := hostblas.Use(choice, libs, threads)
	if err != nil {
		return hostblas.Info{}, usageErrorf("--blas openblas: %v", err)
	}
	return info, nil
}

// checkMatmulMemory refuses a product cfg on np ranks whose memory
// (matmul.Bytes) exceeds avail, the host's available memory in bytes (<=
// 0: unknown, not checked), with the largest -n that fits.
func checkMatmulMemory(cfg matmul.Config, np int, avail int64) error {
	need := matmul.Bytes(cfg, np)
	if avail <= 0 || need <= avail {
		return nil
	}
	fits := sort.Search(cfg.N, func(m int) bool {
		c := cfg
		c.N, c.Verify = m+1, cfg.Verify && m+1 <= matmul.MaxVerify
		return matmul.Bytes(c, np) > avail
	})
	return usageErrorf("-n %d: the product needs %.1f GiB over all ranks, the host has %.1f GiB available; use -n %d or less", cfg.N, float64(need)/(1<<30), float64(avail)/(1<<30), fits)
}

// checkMatrixOrder checks -n, the matrix order of mpbench app matmul and
// mpbench predict matmul: at least 1.
func checkMatrixOrder(n int) error {
	if n < 1 {
		return usageErrorf("-n %d: the matrix order must be >= 1", n)
	}
	return nil
}
