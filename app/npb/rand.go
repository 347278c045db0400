package npb

// NPB's pseudo-random number generator (randlc and vranlc of NPB's
// common/randdp.f): the linear congruential sequence
//
//	x_{k+1} = a x_k mod 2^46,  r_k = x_k 2^-46 in (0, 1)
//
// with a = 5^13 (NPB's A = 1220703125). randdp.f computes a x_k mod 2^46
// exactly in double-precision arithmetic, splitting the operands into
// 23-bit halves; the product's low 46 bits are the same as those of the
// wrapping 64-bit integer product (2^46 divides 2^64), which is what these
// functions compute, so the sequences are bit for bit NPB's.

// A is the multiplier of NPB's generator, 5^13.
const A = 1220703125

// mask46 keeps the low 46 bits: mod 2^46.
const mask46 = 1<<46 - 1

// r46 is 2^-46.
const r46 = 0x1p-46

// Randlc advances the seed x to a x mod 2^46 and returns it scaled to
// (0, 1) (randlc(x, a)); x and a are below 2^46.
func Randlc(x *uint64, a uint64) float64 {
	*x = (*x * a) & mask46
	return float64(*x) * r46
}

// Vranlc fills y with the next len(y) numbers of the sequence from seed x
// (vranlc(n, x, a, y)) and leaves x at the last one.
func Vranlc(x *uint64, a uint64, y []float64) {
	s := *x
	for i := range y {
		s = (s * a) & mask46
		y[i] = float64(s) * r46
	}
	*x = s
}

// Pow46 returns a^e mod 2^46 for e >= 0, by repeated squaring (NPB's
// ipow46 and EP's seed jumps).
func Pow46(a uint64, e int64) uint64 {
	r := uint64(1)
	for ; e > 0; e >>= 1 {
		if e&1 == 1 {
			r = (r * a) & mask46
		}
		a = (a * a) & mask46
	}
	return r
}
