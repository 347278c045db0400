package npb

import (
	"math"
	"testing"
)

// randlcDouble is randdp.f's randlc as NPB writes it, in double-precision
// arithmetic, the oracle for the integer version.
func randlcDouble(x *float64, a float64) float64 {
	const r23, t23 = 0x1p-23, 0x1p23
	const r46, t46 = r23 * r23, t23 * t23
	t1 := r23 * a
	a1 := math.Trunc(t1)
	a2 := a - t23*a1
	t1 = r23 * *x
	x1 := math.Trunc(t1)
	x2 := *x - t23*x1
	t1 = a1*x2 + a2*x1
	t2 := math.Trunc(r23 * t1)
	z := t1 - t23*t2
	t3 := t23*z + a2*x2
	t4 := math.Trunc(r46 * t3)
	*x = t3 - t46*t4
	return r46 * *x
}

func TestRandlcMatchesNPBDoubleArithmetic(t *testing.T) {
	xd := 271828183.0 // EP's seed
	xi := uint64(271828183)
	for i := 0; i < 100000; i++ {
		want := randlcDouble(&xd, A)
		if got := Randlc(&xi, A); got != want || float64(xi) != xd {
			t.Fatalf("step %d: Randlc %v (x %d), NPB's %v (x %v)", i, got, xi, want, xd)
		}
	}
}

func TestVranlcAndPow46(t *testing.T) {
	x := uint64(314159265)
	y := make([]float64, 1000)
	Vranlc(&x, A, y)
	z := uint64(314159265)
	for i, v := range y {
		if w := Randlc(&z, A); v != w {
			t.Fatalf("element %d: %v, want %v", i, v, w)
		}
	}
	// Jumping ahead 1000 steps lands where the sequence is.
	if j := (314159265 * Pow46(A, 1000)) & mask46; j != x {
		t.Errorf("seed x a^1000 = %d, sequence at 1000: %d", j, x)
	}
	if Pow46(A, 0) != 1 || Pow46(A, 1) != A || Pow46(3, 5) != 243 {
		t.Error("Pow46 of small exponents")
	}
	// a^(2^46) mod 2^46: the order of 5^13 divides 2^44, so a^(2^44) = 1.
	if Pow46(A, 1<<44) != 1 {
		t.Errorf("a^(2^44) mod 2^46 = %d, want 1", Pow46(A, 1<<44))
	}
}
