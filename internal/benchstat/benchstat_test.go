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
