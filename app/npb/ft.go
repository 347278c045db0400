package npb

import (
	"fmt"
	"io"
	"math"
	"math/cmplx"
	"strings"

	"gonum.org/v1/gonum/dsp/fourier"

	"github.com/mpbench/mpbench/app"
	"github.com/mpbench/mpbench/coll"
)

// FTClass is a problem class of FT: an NX x NY x NZ grid, Iter time
// steps, and the reference checksum of every step (NPB3.4-MPI ft.f
// verify).
type FTClass struct {
	Name       string
	NX, NY, NZ int64
	Iter       int
	Sums       []complex128
}

// FTClasses are FT's classes S to C.
var FTClasses = []FTClass{
	{"S", 64, 64, 64, 6, []complex128{
		complex(5.546087004964e+02, 4.845363331978e+02), complex(5.546385409189e+02, 4.865304269511e+02),
		complex(5.546148406171e+02, 4.883910722336e+02), complex(5.545423607415e+02, 4.901273169046e+02),
		complex(5.544255039624e+02, 4.917475857993e+02), complex(5.542683411902e+02, 4.932597244941e+02)}},
	{"W", 128, 128, 32, 6, []complex128{
		complex(5.673612178944e+02, 5.293246849175e+02), complex(5.631436885271e+02, 5.282149986629e+02),
		complex(5.594024089970e+02, 5.270996558037e+02), complex(5.560698047020e+02, 5.260027904925e+02),
		complex(5.530898991250e+02, 5.249400845633e+02), complex(5.504159734538e+02, 5.239212247086e+02)}},
	{"A", 256, 256, 128, 6, []complex128{
		complex(5.046735008193e+02, 5.114047905510e+02), complex(5.059412319734e+02, 5.098809666433e+02),
		complex(5.069376896287e+02, 5.098144042213e+02), complex(5.077892868474e+02, 5.101336130759e+02),
		complex(5.085233095391e+02, 5.104914655194e+02), complex(5.091487099959e+02, 5.107917842803e+02)}},
	{"B", 512, 256, 256, 20, []complex128{
		complex(5.177643571579e+02, 5.077803458597e+02), complex(5.154521291263e+02, 5.088249431599e+02),
		complex(5.146409228649e+02, 5.096208912659e+02), complex(5.142378756213e+02, 5.101023387619e+02),
		complex(5.139626667737e+02, 5.103976610617e+02), complex(5.137423460082e+02, 5.105948019802e+02),
		complex(5.135547056878e+02, 5.107404165783e+02), complex(5.133910925466e+02, 5.108576573661e+02),
		complex(5.132470705390e+02, 5.109577278523e+02), complex(5.131197729984e+02, 5.110460304483e+02),
		complex(5.130070319283e+02, 5.111252433800e+02), complex(5.129070537032e+02, 5.111968077718e+02),
		complex(5.128182883502e+02, 5.112616233064e+02), complex(5.127393733383e+02, 5.113203605551e+02),
		complex(5.126691062020e+02, 5.113735928093e+02), complex(5.126064276004e+02, 5.114218460548e+02),
		complex(5.125504076570e+02, 5.114656139760e+02), complex(5.125002331720e+02, 5.115053595966e+02),
		complex(5.124551951846e+02, 5.115415130407e+02), complex(5.124146770029e+02, 5.115744692211e+02)}},
}

// LookupFT returns the FT class named name (S, W, A, B; any case).
func LookupFT(name string) (FTClass, error) {
	for _, c := range FTClasses {
		if strings.EqualFold(c.Name, name) {
			return c, nil
		}
	}
	return FTClass{}, fmt.Errorf("FT class %q: valid classes are S, W, A, B", name)
}

// FT constants of ft.f: seed, alpha, tolerance.
const (
	ftSeed    = 314159265
	ftAlpha   = 1e-6
	ftEpsilon = 1e-12
)

// ft is one rank's FT state.
type ft struct {
	c        *app.Comm
	l        ftLayout
	u0       []complex128 // spectral state, layout 2
	u1       []complex128 // physical work array, layout 1
	send     []complex128 // Alltoall buffers
	recv     []complex128
	tw       []float64 // exp(-4 alpha pi^2 |k|^2), layout 2
	fx       *fourier.CmplxFFT
	fy       *fourier.CmplxFFT
	fz       *fourier.CmplxFFT
	line     []complex128 // a y line
	compute  float64      // seconds in local kernels
	progress io.Writer
}

// local runs f and adds its time to the compute time.
func (s *ft) local(f func()) {
	t := s.c.Wtime()
	f()
	s.compute += s.c.Wtime() - t
}

// FT runs NPB's FT kernel of class cl on the ranks of c (every rank calls
// it) and returns the report, complete on rank 0. Rank 0 writes NPB's
// per-iteration checksum lines to progress (nil: none) as they come.
// As ft.f, one untimed pass (set-up and the first forward FFT) precedes
// the timed run: set-up, forward 3-D FFT, then Iter times: multiply by the
// twiddle factors, inverse 3-D FFT, checksum of 1024 points (a Reduce).
// A 3-D FFT is the 1-D FFTs along x and y in layout 1 and along z in
// layout 2 (gonum's FFTPACK port, unnormalised as NPB's), one Alltoall
// between them. Errors: a rank count that does not divide ny and nz,
// communication failures.
func FT(c *app.Comm, cl FTClass, progress io.Writer) (*app.Report, error) {
	l, err := newFTLayout(cl.NX, cl.NY, cl.NZ, int64(c.Size()), int64(c.Rank()))
	if err != nil {
		return nil, err
	}
	n := l.points()
	s := &ft{c: c, l: l, u0: make([]complex128, n), u1: make([]complex128, n),
		send: make([]complex128, n), recv: make([]complex128, n), tw: make([]float64, n),
		line: make([]complex128, l.ny)}
	if c.Rank() == 0 {
		s.progress = progress
	}
	// Untimed pass: every page touched, as ft.f does.
	s.setup()
	if err := s.forward(); err != nil {
		return nil, err
	}
	if err := c.Algorithms().Barrier(c.Raw()); err != nil {
		return nil, err
	}
	c.ResetClock()
	s.compute = 0
	t0 := c.Wtime()
	s.setup()
	if err := s.forward(); err != nil {
		return nil, err
	}
	sums := make([]complex128, cl.Iter)
	for it := range cl.Iter {
		s.local(s.evolve)
		if err := s.inverse(); err != nil {
			return nil, err
		}
		if sums[it], err = s.checksum(it + 1); err != nil {
			return nil, err
		}
	}
	mine := app.RankTimes{Total: c.Wtime() - t0, Compute: s.compute, Comm: c.CommSeconds()}

	total := float64(cl.NX * cl.NY * cl.NZ)
	rep := &app.Report{App: "FT", Class: cl.Name, Size: fmt.Sprintf("%dx%dx%d", cl.NX, cl.NY, cl.NZ),
		Elements: cl.NX * cl.NY * cl.NZ, NP: c.Size(), Iterations: cl.Iter, OpType: "floating point"}
	if err = rep.Gather(c, mine); err != nil {
		return nil, err
	}
	if c.Rank() != 0 {
		return rep, nil
	}
	tm := rep.Max().Total
	rep.Mops = 1e-6 * total * (14.8157 + 7.19641*math.Log(total) + (5.23518+7.21113*math.Log(total))*float64(cl.Iter)) / tm
	var worst float64
	rep.Verified, worst = FTVerify(sums, cl.Sums)
	rep.Verification = fmt.Sprintf("NPB 3.4 checksums of %d iterations, max relative error %.3g (limit %g)", cl.Iter, worst, ftEpsilon)
	return rep, nil
}

// FTVerify compares the checksums of every iteration with the references
// as ft.f's verify does: verified when every relative error
// |sum - ref| / |ref| is at most 1e-12; worst is the largest (+Inf for a
// NaN or a missing iteration).
func FTVerify(sums, refs []complex128) (verified bool, worst float64) {
	if len(sums) < len(refs) {
		return false, math.Inf(1)
	}
	for i, ref := range refs {
		e := cmplx.Abs((sums[i] - ref) / ref)
		if math.IsNaN(e) {
			e = math.Inf(1)
		}
		worst = max(worst, e)
	}
	return worst <= ftEpsilon, worst
}

// setup computes the twiddle factors, the initial conditions (into u1)
// and the FFT plans: ft.f's compute_indexmap, compute_initial_conditions
// and fft_init.
func (s *ft) setup() {
	s.local(func() {
		l := s.l
		ap := -4 * ftAlpha * math.Pi * math.Pi
		wave := func(i, n int64) float64 { k := (i+n/2)%n - n/2; return float64(k * k) }
		for yl := int64(0); yl < l.nyl; yl++ {
			ky := wave(l.y0()+yl, l.ny)
			for x := int64(0); x < l.nx; x++ {
				kxy := ky + wave(x, l.nx)
				row := s.tw[l.at2(x, yl, 0):]
				for z := int64(0); z < l.nz; z++ {
					row[z] = math.Exp(ap * (kxy + wave(z, l.nz)))
				}
			}
		}
		// Point (x, y, z) takes the numbers 2e and 2e+1 of the sequence
		// from the seed, e = x + nx (y + ny z): plane z starts a^(2 nx ny z)
		// steps in.
		plane := l.nx * l.ny
		for zl := int64(0); zl < l.nzl; zl++ {
			seed := (ftSeed * Pow46(A, 2*plane*(l.z0()+zl))) & mask46
			Vranlc(&seed, A, complexAsFloats(s.u1[zl*plane:(zl+1)*plane]))
		}
		s.fx, s.fy, s.fz = fourier.NewCmplxFFT(int(l.nx)), fourier.NewCmplxFFT(int(l.ny)), fourier.NewCmplxFFT(int(l.nz))
	})
}

// forward transforms u1 (layout 1) into u0 (layout 2): x and y FFTs,
// Alltoall, z FFTs.
func (s *ft) forward() error {
	s.local(func() { s.fftXY(false); s.packForward() })
	if err := s.c.Alltoall(app.Complex128Bytes(s.send), app.Complex128Bytes(s.recv)); err != nil {
		return fmt.Errorf("FT transpose: %w", err)
	}
	s.local(func() { s.unpackForward(s.u0); s.fftZ(s.u0, false) })
	return nil
}

// inverse transforms a copy of u0 (layout 2) into u1 (layout 1): z FFTs,
// Alltoall, y and x FFTs (unnormalised inverse transforms).
func (s *ft) inverse() error {
	s.local(func() {
		copy(s.recv, s.u0)
		s.fftZ(s.recv, true)
		s.packInverse(s.recv)
	})
	if err := s.c.Alltoall(app.Complex128Bytes(s.send), app.Complex128Bytes(s.recv)); err != nil {
		return fmt.Errorf("FT transpose: %w", err)
	}
	s.local(func() { s.unpackInverse(); s.fftXY(true) })
	return nil
}

// evolve multiplies the spectral state by the twiddle factors (ft.f's
// evolve: u0 = u0 twiddle, one time step).
func (s *ft) evolve() {
	for i, t := range s.tw {
		s.u0[i] *= complex(t, 0)
	}
}

// fftXY runs the 1-D FFTs along x and along y over u1 (layout 1).
func (s *ft) fftXY(inverse bool) {
	l := s.l
	tr := func(f *fourier.CmplxFFT, v []complex128) {
		if inverse {
			f.Sequence(v, v)
		} else {
			f.Coefficients(v, v)
		}
	}
	if inverse { // y then x: the reverse of the forward order
		s.fftY(tr)
	}
	for i := int64(0); i < l.nzl*l.ny; i++ {
		tr(s.fx, s.u1[i*l.nx:(i+1)*l.nx])
	}
	if !inverse {
		s.fftY(tr)
	}
}

// fftY transforms every y line of u1 through a contiguous copy.
func (s *ft) fftY(tr func(*fourier.CmplxFFT, []complex128)) {
	l := s.l
	for zl := int64(0); zl < l.nzl; zl++ {
		for x := int64(0); x < l.nx; x++ {
			for y := range l.ny {
				s.line[y] = s.u1[l.at1(x, y, zl)]
			}
			tr(s.fy, s.line)
			for y := range l.ny {
				s.u1[l.at1(x, y, zl)] = s.line[y]
			}
		}
	}
}

// fftZ transforms every z line of v (layout 2, contiguous lines).
func (s *ft) fftZ(v []complex128, inverse bool) {
	nz := s.l.nz
	for i := int64(0); i < int64(len(v)); i += nz {
		if inverse {
			s.fz.Sequence(v[i:i+nz], v[i:i+nz])
		} else {
			s.fz.Coefficients(v[i:i+nz], v[i:i+nz])
		}
	}
}

// packForward copies u1 (layout 1) into the send buffer: block d holds the
// rank's planes restricted to rank d's y lines.
func (s *ft) packForward() {
	l := s.l
	for d := int64(0); d < l.np; d++ {
		for zl := int64(0); zl < l.nzl; zl++ {
			for yl := int64(0); yl < l.nyl; yl++ {
				src := l.at1(0, d*l.nyl+yl, zl)
				copy(s.send[l.atBlock(d, 0, yl, zl):][:l.nx], s.u1[src:src+l.nx])
			}
		}
	}
}

// unpackForward places the received blocks into v (layout 2): block s
// holds rank s's z planes of this rank's y lines.
func (s *ft) unpackForward(v []complex128) {
	l := s.l
	for src := int64(0); src < l.np; src++ {
		for zl := int64(0); zl < l.nzl; zl++ {
			z := src*l.nzl + zl
			for yl := int64(0); yl < l.nyl; yl++ {
				b := s.recv[l.atBlock(src, 0, yl, zl):][:l.nx]
				for x, val := range b {
					v[l.at2(int64(x), yl, z)] = val
				}
			}
		}
	}
}

// packInverse copies v (layout 2) into the send buffer: block d holds the
// rank's y lines restricted to rank d's z planes.
func (s *ft) packInverse(v []complex128) {
	l := s.l
	for d := int64(0); d < l.np; d++ {
		for zl := int64(0); zl < l.nzl; zl++ {
			z := d*l.nzl + zl
			for yl := int64(0); yl < l.nyl; yl++ {
				b := s.send[l.atBlock(d, 0, yl, zl):][:l.nx]
				for x := range b {
					b[x] = v[l.at2(int64(x), yl, z)]
				}
			}
		}
	}
}

// unpackInverse places the received blocks into u1 (layout 1): block s
// holds rank s's y lines of this rank's z planes.
func (s *ft) unpackInverse() {
	l := s.l
	for src := int64(0); src < l.np; src++ {
		for zl := int64(0); zl < l.nzl; zl++ {
			for yl := int64(0); yl < l.nyl; yl++ {
				dst := l.at1(0, src*l.nyl+yl, zl)
				copy(s.u1[dst:dst+l.nx], s.recv[l.atBlock(src, 0, yl, zl):][:l.nx])
			}
		}
	}
}

// checksum is ft.f's checksum of iteration it: the sum of u1 at the 1024
// points (j mod nx, 3j mod ny, 5j mod nz), j = 1..1024, over the grid's
// point count, reduced to rank 0 (which prints NPB's line and gets the
// sum; other ranks get 0).
func (s *ft) checksum(it int) (complex128, error) {
	l := s.l
	var chk complex128
	s.local(func() {
		for j := int64(1); j <= 1024; j++ {
			x, y, z := j%l.nx, (3*j)%l.ny, (5*j)%l.nz
			if z >= l.z0() && z < l.z0()+l.nzl {
				chk += s.u1[l.at1(x, y, z-l.z0())]
			}
		}
		chk /= complex(float64(l.nx*l.ny*l.nz), 0)
	})
	in, out := []complex128{chk}, []complex128{0}
	if err := s.c.Reduce(app.Complex128Bytes(in), app.Complex128Bytes(out), coll.Float64, coll.Sum, 0); err != nil {
		return 0, fmt.Errorf("FT checksum: %w", err)
	}
	if s.progress != nil {
		fmt.Fprintf(s.progress, " T =%5d     Checksum =%s%s\n", it, fortranD(real(out[0])), fortranD(imag(out[0])))
	}
	return out[0], nil
}

// fortranD formats v as Fortran's 1PD22.12 does: "    5.546087004964D+02".
func fortranD(v float64) string {
	return strings.Replace(fmt.Sprintf("%22.12E", v), "E", "D", 1)
}
