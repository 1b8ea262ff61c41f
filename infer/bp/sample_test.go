package bp_test

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/lifted-dev/lifted/infer"
	"github.com/lifted-dev/lifted/infer/bp"
)

// The sampled estimate's interval covers the actual mean |marginal −
// ground BP| of lifted BP on an approximate compression at its stated
// rate: over many random models, seeds and every approximation of
// infer.Approximations, the interval (95%) holds the mean error against
// ground BP run to convergence in at least 90% of the cases.
func TestSampleCalibration(t *testing.T) {
	ctx := context.Background()
	opt := bp.DefaultOptions()
	opt.Damping = 0.5
	opt.Tol = 1e-11
	opt.MaxIter = 20000
	cases, held, approx, sampled := 0, 0, 0, 0
	seeds := 6
	if testing.Short() {
		seeds = 3
	}
	for seed := 0; seed < seeds; seed++ {
		r := rand.New(rand.NewPCG(uint64(seed), 77))
		g := evidenceModel(r, 1500+r.IntN(500))
		ref := runGround(t, g, nil, opt)
		if !ref.Converged {
			continue
		}
		alg := bp.New(opt)
		for _, a := range infer.Approximations[:4] {
			c, _, err := a.Compress(ctx, nil, g, nil, infer.Options{}.Colour)
			if err != nil {
				t.Fatal(err)
			}
			ans, err := alg.Run(ctx, c, infer.Query{})
			if err != nil || !ans.Converged {
				continue
			}
			s, err := bp.SampleError(ctx, ans, g, nil, bp.SampleOptions{Damping: opt.Damping, HalfWidth: 0.03, Pilot: 100, Seed: uint64(seed)})
			if err != nil {
				t.Fatal(err)
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
			if !s.Census {
				sampled++
			}
			ok := actual >= s.Lo-1e-9 && actual <= s.Hi+1e-9
			if ok {
				held++
			}
			t.Logf("seed %d %v: vars %d factors %d/%d sample %d (census %v) mean %.3g [%.3g, %.3g] actual %.3g held %v", seed, a, g.NumVars(), g.NumFactors(), c.NumFactors(), s.Sample, s.Census, s.Mean, s.Lo, s.Hi, actual, ok)
		}
	}
	if approx < cases/2 || sampled < cases/2 {
		t.Fatalf("only %d of %d cases were approximate, %d sampled: the test tests little", approx, cases, sampled)
	}
	if float64(held) < 0.9*float64(cases) {
		t.Fatalf("the interval held in %d of %d cases (want 90%%)", held, cases)
	}
	t.Logf("interval held in %d of %d cases (%d approximate, %d sampled)", held, cases, approx, sampled)
}
