package exact_test

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/infer"
)

// Under a tolerance, auto's components that go to lifted BP lift
// approximately: the answer carries the tolerance and the estimate over
// all variables, within the tolerance, and its marginals are within it
// of ground BP's on average.
func TestAutoTolerance(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 38))
	b := fg.NewBuilder()
	n := 300
	b.AddVars(n, 2)
	units := [][]float64{{1, math.Exp(0.3)}, {1, math.Exp(-0.2)}, {1, math.Exp(0.05)}, {1, math.Exp(-0.7)}}
	for v := 0; v < n; v++ {
		for k := r.IntN(5); k > 0; k-- {
			if _, err := b.AddFactor([]int32{int32(v)}, units[r.IntN(len(units))]); err != nil {
				t.Fatal(err)
			}
		}
		if v > 0 {
			w, a := r.IntN(v), []float64{0.4, 0.7}[r.IntN(2)]
			if _, err := b.AddFactor([]int32{int32(w), int32(v)}, []float64{math.Exp(a), 1, 1, math.Exp(a)}); err != nil {
				t.Fatal(err)
			}
		}
	}
	g := b.Build()
	ctx := context.Background()
	// No junction tree: the one component goes to lifted BP.
	auto, _, err := infer.New("auto", infer.Properties{"max-table": "2", "max-total": "2", "damping": "0.5"})
	if err != nil {
		t.Fatal(err)
	}
	const tol = 0.02
	ans, err := infer.Run(ctx, auto, g, nil, infer.Options{Query: infer.Query{Tolerance: tol}})
	if err != nil {
		t.Fatal(err)
	}
	st := ans.Stats
	if st.Tolerance != tol || st.ErrorEstimate == nil || *st.ErrorEstimate > tol || st.Approximation == "" {
		t.Fatalf("tolerance %v, estimate %v, approximation %q", st.Tolerance, st.ErrorEstimate, st.Approximation)
	}
	bp, _, err := infer.New("bp", infer.Properties{"damping": "0.5", "tol": "1e-10"})
	if err != nil {
		t.Fatal(err)
	}
	ref, err := infer.Run(ctx, bp, g, nil, infer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	mean := 0.0
	for v := 0; v < n; v++ {
		mean += math.Abs(ans.Marginal(v)[1] - ref.Marginal(v)[1])
	}
	mean /= float64(n)
	if mean > tol {
		t.Fatalf("mean |marginal - ground BP| %v beyond the tolerance %v (estimate %v)", mean, tol, *st.ErrorEstimate)
	}
	t.Logf("%s: estimate %.3g, actual %.3g", st.Approximation, *st.ErrorEstimate, mean)
}
