package npb

import "fmt"

// ftLayout is FT's distribution of an nx x ny x nz grid over np ranks, in
// two layouts of nx ny nz / np points per rank (all sizes, offsets and
// indices int64: a class D grid has 2^31 points):
//
//   - layout 1 (physical space, the x and y FFTs): rank r holds the z
//     planes [r nzl, (r+1) nzl), stored [z][y][x], x contiguous;
//   - layout 2 (spectral space, the z FFTs): rank r holds the y lines
//     [r nyl, (r+1) nyl), stored [y][x][z], z contiguous.
//
// One Alltoall moves between them: the block rank s sends rank d holds
// the points of s's z planes and d's y lines, nzl x nyl x nx of them,
// ordered [z][y][x] (NPB's 1-D layout does the same with its own order).
type ftLayout struct {
	nx, ny, nz int64
	np, rank   int64
	nzl, nyl   int64
}

// newFTLayout splits the grid over np ranks; np must divide ny and nz.
func newFTLayout(nx, ny, nz, np, rank int64) (ftLayout, error) {
	if np < 1 || ny%np != 0 || nz%np != 0 {
		return ftLayout{}, fmt.Errorf("FT grid %dx%dx%d on %d ranks: the number of ranks must divide ny = %d and nz = %d (use a power of two up to %d)",
			nx, ny, nz, np, ny, nz, min(ny, nz))
	}
	return ftLayout{nx: nx, ny: ny, nz: nz, np: np, rank: rank, nzl: nz / np, nyl: ny / np}, nil
}

// points is the number of grid points a rank holds (in either layout).
func (l ftLayout) points() int64 { return l.nx * l.ny * l.nzl }

// block is the number of points in one Alltoall block.
func (l ftLayout) block() int64 { return l.nx * l.nyl * l.nzl }

// z0 is the first z plane of the rank in layout 1; y0 its first y line in
// layout 2.
func (l ftLayout) z0() int64 { return l.rank * l.nzl }
func (l ftLayout) y0() int64 { return l.rank * l.nyl }

// at1 is the index in layout 1 of the point (x, y, local plane zl).
func (l ftLayout) at1(x, y, zl int64) int64 { return (zl*l.ny+y)*l.nx + x }

// at2 is the index in layout 2 of the point (x, local line yl, z).
func (l ftLayout) at2(x, yl, z int64) int64 { return (yl*l.nx+x)*l.nz + z }

// atBlock is the index, in an Alltoall buffer, of the point (x, yl, zl) of
// block b (b the peer rank; yl and zl local to the block).
func (l ftLayout) atBlock(b, x, yl, zl int64) int64 {
	return b*l.block() + (zl*l.nyl+yl)*l.nx + x
}

// FTBytes is the memory FT needs per rank for a grid of nx ny nz points on
// np ranks, in bytes: four complex arrays (state, work, Alltoall send and
// receive buffers) and the real twiddle factors.
func FTBytes(nx, ny, nz, np int64) int64 {
	return nx * ny * nz / np * (4*16 + 8)
}
