package benchstat

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// Median agrees with counting: at most half the values lie below it and at
// most half above, on random samples of odd and even sizes; it leaves its
// input as it was, and is NaN on none.
func TestMedian(t *testing.T) {
	if !math.IsNaN(Median(nil)) {
		t.Fatal("median of nothing is not NaN")
	}
	if m := Median([]float64{4, 1, 3, 2}); m != 2.5 {
		t.Fatalf("median of 4 1 3 2 = %g, want 2.5", m)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 500 {
		x := make([]float64, 1+r.IntN(20))
		for j := range x {
			x[j] = float64(r.IntN(10))
		}
		orig := slices.Clone(x)
		m := Median(x)
		below, above := 0, 0
		for _, v := range x {
			if v < m {
				below++
			} else if v > m {
				above++
			}
		}
		if 2*below > len(x) || 2*above > len(x) || !slices.Equal(x, orig) {
			t.Fatalf("case %d: median %g of %v (%d below, %d above)", i, m, orig, below, above)
		}
	}
}

// Slope recovers the exponent of an exact power law, the slope of a line
// under symmetric noise to within its size, and is NaN without spread in x.
func TestSlope(t *testing.T) {
	var x, y []float64
	for _, n := range []float64{1e4, 1e5, 1e6, 1e7} {
		x = append(x, math.Log(n))
		y = append(y, math.Log(3e-7*math.Pow(n, 1.23)))
	}
	if s := Slope(x, y); math.Abs(s-1.23) > 1e-12 {
		t.Fatalf("slope of n^1.23 = %v", s)
	}
	r := rand.New(rand.NewPCG(1, 2))
	x, y = x[:0], y[:0]
	for i := range 1000 {
		x = append(x, float64(i))
		y = append(y, 2-0.5*float64(i)+r.NormFloat64())
	}
	if s := Slope(x, y); math.Abs(s+0.5) > 0.01 {
		t.Fatalf("slope of a noisy line of slope -0.5 = %v", s)
	}
	if s := Slope([]float64{3, 3}, []float64{1, 2}); !math.IsNaN(s) {
		t.Fatalf("slope without spread in x = %v, want NaN", s)
	}
}

// CPUSeconds grows with work done and is not negative.
func TestCPUSeconds(t *testing.T) {
	t0 := CPUSeconds()
	if math.IsNaN(t0) {
		t.Skip("CPU time not readable here")
	}
	x := 1.0
	for i := range 50_000_000 {
		x += float64(i&7) * 1e-9
	}
	if t1 := CPUSeconds(); t1 <= t0 || t0 < 0 || x == 0 {
		t.Fatalf("CPU seconds %v then %v", t0, t1)
	}
}
