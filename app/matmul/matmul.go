// Package matmul is the block matrix product of the study's section 4.3.3:
// C = A x B (or the study's C = A x A) for n x n float64 matrices
// distributed in blocks over a p x q process grid, the blocks exchanged by
// broadcasts along the grid's rows and columns.
//
// # Algorithm
//
// On N = p x q ranks (p the largest divisor of N not above sqrt(N), as
// analysis.Grid), rank r is grid cell (i, j) = (r / q, r mod q) and holds
// block (i, j) of A, of B and of C: the rows of row part i (n split in p
// nearly equal parts) and the columns of column part j (n split in q
// parts). C(i,j) = sum over k of A(i, k) B(k, j), where the inner index
// runs over the whole order n: A's blocks cut it in q parts, B's in p.
//
// Each row of the grid broadcasts its A blocks among its q ranks, one
// after the other (q Bcasts with q ranks, rooted at column 0, 1, ...), and
// each column broadcasts its B blocks among its p ranks (p Bcasts with p
// ranks). The broadcasts are interleaved in the order of the inner index
// they cover, and after each one the rank multiplies the part of the inner
// index now covered by both an A and a B block into its C block. So the
// communication is exactly the study's expression 4.4,
//
//	q x multi_p Bcast_q(M/N) + p x multi_q Bcast_p(M/N)
//
// (M the bytes of one matrix, M/N one block), with computation between the
// broadcasts of a row as the study describes, and all rows (and all
// columns) broadcasting at the same time. With p = q this is SUMMA (van de
// Geijn & Watts, "SUMMA: scalable universal matrix multiplication
// algorithm", 1997) with one block per panel.
//
// Local block products call blas64.Gemm, which runs whatever
// implementation blas64.Use installed: gonum's pure Go one by default, the
// host's OpenBLAS after hostblas.Use.
// The matrices' elements are a fixed function of their global indices, so
// every rank makes its own blocks and rank 0 can make whole matrices for
// the serial product that verifies the result.
package matmul

import (
	"cmp"
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/blas/gonum"

	"github.com/mpbench/mpbench/analysis"
	"github.com/mpbench/mpbench/app"
	"github.com/mpbench/mpbench/app/hostblas"
)

// MaxVerify is the largest order verified against a serial product on
// rank 0 (which holds three n x n matrices for it).
const MaxVerify = 2000

// Tolerance is the largest max relative error accepted:
// max |C - C_serial| / max |C_serial| over all elements.
const Tolerance = 1e-10

// Config is one run of the product.
type Config struct {
	N      int  // matrix order n (>= 1)
	Square bool // compute A x A (the study's), not A x B
	// Verify compares C with a serial product on rank 0; N must be at
	// most MaxVerify.
	Verify bool
	// Sync runs every Bcast step alone on the whole grid: two barriers
	// of all ranks before each row (column) Bcast and one after it, their
	// time counted as waiting (app.Comm.Sync and Align; bcastBlock says
	// why two).
	// The p rows' Bcasts then start together and no rank computes until
	// all have ended, so that the communication time is the simultaneous
	// Bcasts' transfers alone: expression 4.4's multi_p Bcast_q, as IMB
	// measures a (Multi-)Bcast with every group's ranks entering it
	// together.
	Sync bool
	// Cold skips the untimed warm-up pass (see Run): the timed Bcasts are
	// then the first to move each block through the kernel, and include
	// what that first pass costs on the host.
	Cold bool
	// BLAS names the implementation blas64.Gemm runs, for the report's
	// "Local products" line (hostblas.Use's description; "" is gonum's).
	BLAS string
}

// Part returns the bounds [lo, hi) of part k when n is cut into parts
// nearly equal parts (the first n mod parts ones one longer).
func Part(n, parts, k int) (lo, hi int) {
	base, extra := n/parts, n%parts
	lo = k*base + min(k, extra)
	hi = lo + base
	if k < extra {
		hi++
	}
	return lo, hi
}

// ElementA and ElementB are the matrices' elements at row i, column j (0
// based): a fixed pseudo-random function of (i, j) in [-1, 1) (SplitMix64,
// Steele, Lea & Flood 2014, of the element's index), so that any rank can
// make any block.
func ElementA(i, j int) float64 { return element(uint64(i)<<32 | uint64(j)) }

// ElementB is the element (i, j) of B; see ElementA.
func ElementB(i, j int) float64 { return element(uint64(i)<<32 | uint64(j) | 1<<63) }

func element(x uint64) float64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	x ^= x >> 31
	return float64(x>>11)/(1<<52) - 1
}

// block makes the rows [r0, r1) x columns [c0, c1) of a matrix whose
// elements are f, row-major.
func block(f func(i, j int) float64, r0, r1, c0, c1 int) blas64.General {
	g := blas64.General{Rows: r1 - r0, Cols: c1 - c0, Stride: max(c1-c0, 1), Data: make([]float64, (r1-r0)*(c1-c0))}
	for i := r0; i < r1; i++ {
		row := g.Data[(i-r0)*g.Stride:]
		for j := c0; j < c1; j++ {
			row[j-c0] = f(i, j)
		}
	}
	return g
}

// Bytes is the memory cfg's product allocates over all np ranks, in bytes:
// on every rank its blocks of A, B (not with Square) and C and the two
// receive buffers (A blocks of its grid row, n/p x (n/q + 1), and B blocks
// of its column, (n/p + 1) x n/q): (4 or 5) n^2 + n (p + q) float64 over
// the p x q grid; with Verify, rank 0's gathered C, its reordered copy and
// the serial product's A, B and C (4 or 5 n^2 more). The runtime's own
// buffers are not counted.
func Bytes(cfg Config, np int) int64 {
	n := int64(cfg.N)
	p, q := analysis.Grid(np)
	mats := int64(5)
	if cfg.Square {
		mats = 4
	}
	elems := mats*n*n + n*int64(p+q)
	if cfg.Verify {
		elems += mats * n * n
	}
	return 8 * elems
}

// Run computes the product on the ranks of c (every rank calls it) and
// returns the report, complete on rank 0. Timed: from a barrier to the
// rank's last local product; compute is the time in the local products,
// comm the time inside the row and column Bcasts. Unless cfg.Cold, every
// rank first makes one untimed pass of the same q row and p column Bcasts
// on the same buffers (no products), as a tuned code warms its blocks
// before its timed phase: the first transfer into or out of a block pays
// the host's first-use costs (page faults; on some virtual machines a
// shadow page-table fill at the kernel's first copy, which a user-space
// touch does not do; docs/applications.md), which IMB's repeated Bcast on
// one buffer never shows. Errors: a communication failure, or bad input
// (N < 1, Verify with N > MaxVerify).
func Run(c *app.Comm, cfg Config) (*app.Report, error) {
	n := cfg.N
	if n < 1 {
		return nil, fmt.Errorf("matrix order %d: must be >= 1", n)
	}
	if cfg.Verify && n > MaxVerify {
		return nil, fmt.Errorf("matrix order %d: verification needs n <= %d (rank 0 holds three whole matrices)", n, MaxVerify)
	}
	np := c.Size()
	p, q := analysis.Grid(np)
	if n < q {
		return nil, fmt.Errorf("matrix order %d on a %d x %d grid: every block needs a row and a column; use n >= %d or fewer ranks", n, p, q, q)
	}
	gi, gj := c.Rank()/q, c.Rank()%q
	rowComm, err := c.Split(gi, gj) // the q ranks of grid row gi
	if err != nil {
		return nil, err
	}
	colComm, err := c.Split(gj, gi) // the p ranks of grid column gj
	if err != nil {
		return nil, err
	}
	rowComm, colComm = rowComm.Named("row"), colComm.Named("col")
	var grid *app.Comm // the barrier of Sync
	if cfg.Sync {
		grid = c.Named("grid")
	}
	r0, r1 := Part(n, p, gi)
	c0, c1 := Part(n, q, gj)
	ownA := block(ElementA, r0, r1, c0, c1)
	ownB := ownA
	if !cfg.Square {
		ownB = block(ElementB, r0, r1, c0, c1)
	}
	cm := blas64.General{Rows: r1 - r0, Cols: c1 - c0, Stride: max(c1-c0, 1), Data: make([]float64, (r1-r0)*(c1-c0))}
	maxW, maxH := n/q+1, n/p+1
	abuf := make([]float64, (r1-r0)*maxW) // A(gi, k): rows of part gi, columns of part k of q
	bbuf := make([]float64, maxH*(c1-c0)) // B(k, gj): rows of part k of p, columns of part gj

	var warm int64
	if !cfg.Cold {
		before := c.CommCalls()
		if err := warmUp(rowComm, colComm, n, p, q, gi, gj, abuf, bbuf, ownA, ownB); err != nil {
			return nil, err
		}
		warm = c.CommCalls() - before
	}
	if err := c.Algorithms().Barrier(c.Raw()); err != nil {
		return nil, err
	}
	c.ResetClock()
	t0 := c.Wtime()
	var compute float64
	var aBlk, bBlk blas64.General
	aLo, bLo := 0, 0 // inner index where the current A and B blocks start
	aEnd, bEnd, done := 0, 0, 0
	ka, kb := 0, 0
	for done < n {
		var err error
		if aEnd <= bEnd && ka < q { // next A block along the row
			lo, hi := Part(n, q, ka)
			aBlk = blas64.General{Rows: r1 - r0, Cols: hi - lo, Stride: max(hi-lo, 1), Data: abuf[:(r1-r0)*(hi-lo)]}
			if aBlk, err = bcastBlock(rowComm, grid, aBlk, ownA, ka, gj); err != nil {
				return nil, fmt.Errorf("row Bcast %d of %d: %w", ka+1, q, err)
			}
			aLo, aEnd = lo, hi
			ka++
		} else { // next B block along the column
			lo, hi := Part(n, p, kb)
			bBlk = blas64.General{Rows: hi - lo, Cols: c1 - c0, Stride: max(c1-c0, 1), Data: bbuf[:(hi-lo)*(c1-c0)]}
			if bBlk, err = bcastBlock(colComm, grid, bBlk, ownB, kb, gi); err != nil {
				return nil, fmt.Errorf("column Bcast %d of %d: %w", kb+1, p, err)
			}
			bLo, bEnd = lo, hi
			kb++
		}
		hi := min(aEnd, bEnd)
		if hi <= done {
			continue
		}
		// C(gi, gj) += A(:, done:hi) B(done:hi, :), both inside the
		// current blocks (see the package doc).
		a := blas64.General{Rows: aBlk.Rows, Cols: hi - done, Stride: aBlk.Stride, Data: aBlk.Data[done-aLo:]}
		b := blas64.General{Rows: hi - done, Cols: bBlk.Cols, Stride: bBlk.Stride, Data: bBlk.Data[(done-bLo)*bBlk.Stride:]}
		compute += c.Kernel("gemm", func() { blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, a, b, 1, cm) })
		done = hi
		c.Progress(int64(done), int64(n))
	}
	mine := app.RankTimes{Total: c.Wtime() - t0, Compute: compute, Comm: c.CommSeconds(), Wait: c.WaitSeconds()}

	rep := &app.Report{App: "matmul", Size: fmt.Sprint(n), Elements: int64(n), NP: np,
		OpType: "floating point (2 n^3)"}
	rep.Notes = append(rep.Notes, fmt.Sprintf("Process grid    = %24s", fmt.Sprintf("%d x %d", p, q)),
		fmt.Sprintf("Bcasts per rank = %24s", fmt.Sprintf("%d in its row, %d in its column", q, p)),
		fmt.Sprintf("Local products  = %24s", cmp.Or(cfg.BLAS, hostblas.GonumName)))
	if cfg.Cold {
		rep.Notes = append(rep.Notes, "Warm-up         =               none (cold)")
	} else {
		rep.Notes = append(rep.Notes, fmt.Sprintf("Warm-up         = %24s", fmt.Sprintf("%d untimed Bcasts", warm)))
	}
	if cfg.Square {
		rep.Notes = append(rep.Notes, "Product         =                    A x A")
	} else {
		rep.Notes = append(rep.Notes, "Product         =                    A x B")
	}
	if err = rep.Gather(c, mine); err != nil {
		return nil, err
	}
	if c.Rank() == 0 {
		rep.Mops = 2 * math.Pow(float64(n), 3) / rep.Max().Total / 1e6
	}
	if !cfg.Verify {
		rep.Unchecked = true
		rep.Verification = fmt.Sprintf("none (verification runs for n <= %d)", MaxVerify)
		if n <= MaxVerify {
			rep.Verification = "none (skipped: --no-verify)"
		}
		return rep, nil
	}
	whole, err := gatherC(c, cm, n, p, q)
	if err != nil {
		return nil, err
	}
	if c.Rank() == 0 {
		e := MaxRelError(whole, Serial(n, cfg.Square))
		rep.Verified = e <= Tolerance
		rep.Verification = fmt.Sprintf("serial product on rank 0, max relative error %.3g (limit %g)", e, Tolerance)
	}
	return rep, nil
}

// warmUp makes the untimed pass of Run: the q row Bcasts of A blocks into
// abuf (ownA on their root) and the p column Bcasts of B blocks into bbuf
// (ownB on their root), the same calls on the same buffers as the timed
// loop, without the products.
func warmUp(rowComm, colComm *app.Comm, n, p, q, gi, gj int, abuf, bbuf []float64, ownA, ownB blas64.General) error {
	rows := ownA.Rows
	for k := 0; k < q; k++ {
		lo, hi := Part(n, q, k)
		blk := blas64.General{Data: abuf[:rows*(hi-lo)]}
		if _, err := bcastBlock(rowComm, nil, blk, ownA, k, gj); err != nil {
			return fmt.Errorf("warm-up row Bcast %d of %d: %w", k+1, q, err)
		}
	}
	cols := ownB.Cols
	for k := 0; k < p; k++ {
		lo, hi := Part(n, p, k)
		blk := blas64.General{Data: bbuf[:(hi-lo)*cols]}
		if _, err := bcastBlock(colComm, nil, blk, ownB, k, gi); err != nil {
			return fmt.Errorf("warm-up column Bcast %d of %d: %w", k+1, p, err)
		}
	}
	return nil
}

// bcastBlock broadcasts block root of a grid row or column over c (whose
// rank me holds own) into buf and returns the block received: own on the
// root, buf elsewhere. When grid is not nil and c has more than one rank,
// two barriers of grid come before the Bcast (Sync and Align) and one
// after it (Sync; their time counted as waiting; every rank of the grid
// makes the same sequence of Bcasts, so every rank enters the same
// barriers): the step's Bcasts start together and no rank starts its next
// product before the last of them has ended.
//
// The first barrier absorbs the ranks' different product times, and a
// rank that waited there long enough to sleep leaves it late; the second
// (app.Comm.Align) is entered by ranks that are all awake and releases
// them together, as IMB's barrier between two repetitions does. Without
// it the Bcast counted the first barrier's exit skew as communication
// (docs/applications.md, "Leaving the barrier").
func bcastBlock(c, grid *app.Comm, buf, own blas64.General, root, me int) (blas64.General, error) {
	if root == me {
		buf = own
	}
	sync := grid != nil && c.Size() > 1
	if sync {
		if err := grid.Sync(); err != nil {
			return buf, err
		}
		if err := grid.Align(); err != nil {
			return buf, err
		}
	}
	if err := c.Bcast(app.Float64Bytes(buf.Data), root); err != nil || !sync {
		return buf, err
	}
	return buf, grid.Sync()
}

// gatherC collects every rank's C block into the whole n x n matrix on
// rank 0 (untimed MPI_Gatherv); other ranks get nil.
func gatherC(c *app.Comm, cm blas64.General, n, p, q int) ([]float64, error) {
	np := p * q
	counts := make([]int, np)
	for r := range counts {
		a0, a1 := Part(n, p, r/q)
		b0, b1 := Part(n, q, r%q)
		counts[r] = (a1 - a0) * (b1 - b0) * 8
	}
	var flat []float64
	if c.Rank() == 0 {
		flat = make([]float64, n*n)
	}
	if err := c.Algorithms().Gatherv(c.Raw(), app.Float64Bytes(cm.Data), app.Float64Bytes(flat), counts, nil, 0); err != nil {
		return nil, fmt.Errorf("gathering C for verification: %w", err)
	}
	if c.Rank() != 0 {
		return nil, nil
	}
	whole := make([]float64, n*n)
	off := 0
	for r := 0; r < np; r++ {
		a0, a1 := Part(n, p, r/q)
		b0, b1 := Part(n, q, r%q)
		w := b1 - b0
		for i := a0; i < a1; i++ {
			copy(whole[i*n+b0:i*n+b1], flat[off:off+w])
			off += w
		}
	}
	return whole, nil
}

// Serial is the product computed on one rank with one call of gonum's
// Dgemm (row-major n x n), whatever BLAS runs the local products, so that
// the verification compares two implementations when OpenBLAS runs them.
func Serial(n int, square bool) []float64 {
	a := block(ElementA, 0, n, 0, n)
	b := a
	if !square {
		b = block(ElementB, 0, n, 0, n)
	}
	c := blas64.General{Rows: n, Cols: n, Stride: n, Data: make([]float64, n*n)}
	gonum.Implementation{}.Dgemm(blas.NoTrans, blas.NoTrans, n, n, n, 1, a.Data, a.Stride, b.Data, b.Stride, 0, c.Data, c.Stride)
	return c.Data
}

// MaxRelError is max |got - want| / max |want| over all elements (0 when
// want is all zero and got equals it); NaN in got gives +Inf.
func MaxRelError(got, want []float64) float64 {
	var diff, scale float64
	for i := range want {
		d := math.Abs(got[i] - want[i])
		if math.IsNaN(d) {
			return math.Inf(1)
		}
		diff, scale = max(diff, d), max(scale, math.Abs(want[i]))
	}
	if scale == 0 {
		return diff
	}
	return diff / scale
}
