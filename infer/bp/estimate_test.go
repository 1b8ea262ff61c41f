package bp_test

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/infer"
	"github.com/lifted-dev/lifted/infer/bp"
)

// evidenceModel is a random sparse pairwise model whose variables carry
// unary factors drawn from a few tables, as observed neighbours leave
// them in a grounding: what approximate lifting pools.
func evidenceModel(r *rand.Rand, n int) *fg.Graph {
	b := fg.NewBuilder()
	b.AddVars(n, 2)
	units := [][]float64{{1, math.Exp(0.3)}, {1, math.Exp(-0.2)}, {1, math.Exp(0.05)}, {1, math.Exp(-0.7)}, {1, math.Exp(0.02)}}
	for v := 0; v < n; v++ {
		for k := r.IntN(6); k > 0; k-- {
			u := units[r.IntN(len(units))]
			if _, err := b.AddFactor([]int32{int32(v)}, u); err != nil {
				panic(err)
			}
		}
	}
	for v := 1; v < n; v++ {
		for k := 1 + r.IntN(2); k > 0; k-- {
			w := r.IntN(v)
			a := []float64{0.4, 0.7}[r.IntN(2)]
			if _, err := b.AddFactor([]int32{int32(w), int32(v)}, []float64{math.Exp(a), 1, 1, math.Exp(a)}); err != nil {
				panic(err)
			}
		}
	}
	return b.Build()
}

// The estimated mean error of lifted BP on an approximate compression
// holds against ground BP: over many random models and every
// approximation of infer.Approximations, the estimate is at least the
// actual mean |marginal − ground BP| (up to 1e-9) in at least 90% of the
// cases with an estimate, and at least 0.8 times it in all (on these
// models it is within 2% where it falls short).
func TestEstimateCalibration(t *testing.T) {
	ctx := context.Background()
	opt := bp.DefaultOptions()
	opt.Damping = 0.5
	opt.Tol = 1e-11
	opt.MaxIter = 20000
	cases, held, approx := 0, 0, 0
	seeds := 30
	if testing.Short() {
		seeds = 10
	}
	for seed := 0; seed < seeds; seed++ {
		r := rand.New(rand.NewPCG(uint64(seed), 38))
		g := evidenceModel(r, 60+r.IntN(120))
		ref := runGround(t, g, nil, opt)
		if !ref.Converged {
			continue
		}
		alg := bp.New(opt)
		for _, a := range infer.Approximations {
			c, _, err := a.Compress(ctx, nil, g, nil, infer.Options{}.Colour)
			if err != nil {
				t.Fatal(err)
			}
			ans, err := alg.Run(ctx, c, infer.Query{})
			if err != nil || !ans.Converged {
				continue
			}
			est, err := alg.EstimateError(ctx, ans, g, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !est.OK {
				continue
			}
			actual := 0.0
			for v := 0; v < g.NumVars(); v++ {
				actual += math.Abs(ans.Marginal(v)[1] - ref.Marginal(v)[1])
			}
			actual /= float64(g.NumVars())
			cases++
			if actual > 1e-6 {
				approx++
			}
			if est.Mean >= actual-1e-9 {
				held++
			}
			if est.Mean < 0.8*actual-1e-9 {
				t.Errorf("seed %d, %v: estimate %.3g is below 0.8 times the actual mean error %.3g", seed, a, est.Mean, actual)
			}
			t.Logf("seed %d %v: factors %d/%d estimate %.3g actual %.3g (ratio %.2f)", seed, a, g.NumFactors(), c.NumFactors(), est.Mean, actual, est.Ratio)
		}
	}
	if approx < cases/2 {
		t.Fatalf("only %d of %d cases were approximate: the test tests little", approx, cases)
	}
	if float64(held) < 0.9*float64(cases) {
		t.Fatalf("the estimate held in %d of %d cases (want 90%%)", held, cases)
	}
	t.Logf("estimate held in %d of %d cases (%d approximate)", held, cases, approx)
}

// infer.Run under a tolerance answers with an approximation whose
// estimate is within it, or with exact lifting (the same marginals as
// without a tolerance) when none is.
func TestRunTolerance(t *testing.T) {
	ctx := context.Background()
	opt := bp.DefaultOptions()
	opt.Damping = 0.5
	r := rand.New(rand.NewPCG(5, 38))
	g := evidenceModel(r, 150)
	alg := bp.New(opt)
	exact, err := infer.Run(ctx, alg, g, nil, infer.Options{Lifted: true})
	if err != nil {
		t.Fatal(err)
	}
	tiny, err := infer.Run(ctx, alg, g, nil, infer.Options{Lifted: true, Query: infer.Query{Tolerance: 1e-15}})
	if err != nil {
		t.Fatal(err)
	}
	if tiny.Stats.Approximation != "" || *tiny.Stats.ErrorEstimate != 0 || len(tiny.Stats.ApproxTried) != len(infer.Approximations) {
		t.Fatalf("tolerance 1e-15: %q, estimate %v, tried %q", tiny.Stats.Approximation, *tiny.Stats.ErrorEstimate, tiny.Stats.ApproxTried)
	}
	for v := 0; v < g.NumVars(); v++ {
		if tiny.Marginal(v)[1] != exact.Marginal(v)[1] {
			t.Fatalf("exact fallback differs from exact lifting at %d", v)
		}
	}
	loose, err := infer.Run(ctx, alg, g, nil, infer.Options{Lifted: true, Query: infer.Query{Tolerance: 0.05}})
	if err != nil {
		t.Fatal(err)
	}
	st := loose.Stats
	if st.Approximation == "" || *st.ErrorEstimate > 0.05 || st.Clusterfactors >= exact.Stats.Clusterfactors || st.Factors != g.NumFactors() {
		t.Fatalf("tolerance 0.05: %q, estimate %v, %d clusterfactors (exact %d), %d factors", st.Approximation, *st.ErrorEstimate, st.Clusterfactors, exact.Stats.Clusterfactors, st.Factors)
	}
	actual := 0.0
	for v := 0; v < g.NumVars(); v++ {
		actual += math.Abs(loose.Marginal(v)[1] - exact.Marginal(v)[1])
	}
	actual /= float64(g.NumVars())
	if actual > 0.05 {
		t.Fatalf("actual mean error %v beyond the tolerance", actual)
	}
	t.Logf("%s: %d → %d clusterfactors, estimate %.3g, actual %.3g", st.Approximation, exact.Stats.Clusterfactors, st.Clusterfactors, *st.ErrorEstimate, actual)
}

// The second route, evidence-based clustering (infer.Options.Clusters):
// without a tolerance it is ignored (bit for bit exact lifting); under
// one it is compressed and tried beside colour passing's settings, by
// compression, and whatever answers has an estimate within the
// tolerance that holds against ground BP here.
func TestRunToleranceClusters(t *testing.T) {
	ctx := context.Background()
	opt := bp.DefaultOptions()
	opt.Damping = 0.5
	r := rand.New(rand.NewPCG(9, 38))
	g := evidenceModel(r, 300)
	alg := bp.New(opt)
	// Classes as a clustering of constants would give: by the variable's
	// number of unary factors (its "evidence"), coarsely.
	class := make([]int32, g.NumVars())
	for v := range class {
		for _, e := range g.VarEdges[g.VarStart[v]:g.VarStart[v+1]] {
			if len(g.Scope(g.EdgeFactor(e))) == 1 {
				class[v]++
			}
		}
		class[v] = min(class[v], 2)
	}
	cl := []infer.Clustering{{Name: "test", Class: class}}
	exact, err := infer.Run(ctx, alg, g, nil, infer.Options{Lifted: true})
	if err != nil {
		t.Fatal(err)
	}
	zero, err := infer.Run(ctx, alg, g, nil, infer.Options{Lifted: true, Clusters: cl})
	if err != nil {
		t.Fatal(err)
	}
	for v := 0; v < g.NumVars(); v++ {
		if zero.Marginal(v)[1] != exact.Marginal(v)[1] {
			t.Fatalf("tolerance 0 with clusters differs from exact lifting at %d", v)
		}
	}
	ans, err := infer.Run(ctx, alg, g, nil, infer.Options{Lifted: true, Clusters: cl, Query: infer.Query{Tolerance: 0.05}})
	if err != nil {
		t.Fatal(err)
	}
	st := ans.Stats
	seen := strings.HasPrefix(st.Approximation, "evidence clusters")
	for _, s := range st.ApproxTried {
		seen = seen || strings.HasPrefix(s, "evidence clusters")
	}
	if !seen {
		t.Fatalf("the clustering was not tried: answered by %q, tried %q", st.Approximation, st.ApproxTried)
	}
	ref := runGround(t, g, nil, opt)
	actual := 0.0
	for v := 0; v < g.NumVars(); v++ {
		actual += math.Abs(ans.Marginal(v)[1] - ref.Marginal(v)[1])
	}
	actual /= float64(g.NumVars())
	if *st.ErrorEstimate > 0.05 || actual > 0.05 {
		t.Fatalf("%q: estimate %v, actual %v, beyond the tolerance 0.05", st.Approximation, *st.ErrorEstimate, actual)
	}
	t.Logf("answered by %q (estimate %.3g, actual %.3g); tried %q", st.Approximation, *st.ErrorEstimate, actual, st.ApproxTried)
}
