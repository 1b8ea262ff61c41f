package bp

import (
	"context"
	"fmt"
	"math"

	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/infer"
	"github.com/lifted-dev/lifted/lift"
)

// EstimateIterations is the number of ground BP iterations EstimateError
// runs from the lifted messages.
const EstimateIterations = 6

// EstimateError estimates how far the marginals of ans — lifted BP on an
// approximate compression of g (lift.Options.CountTolerance, possibly of
// lift.QuantiseFields(g)) — lie from ground BP's on g with evidence ev: it
// starts ground BP (flood, damping as given) from the lifted messages,
// unlifted to every ground edge (a unary factor merged away by
// QuantiseFields sends its own table), runs EstimateIterations
// iterations b¹…bᵀ from the lifted marginals b⁰, and estimates per
// variable |b* − b⁰| ≤ |bᵀ − b⁰| + |bᵀ − bᵀ⁻¹|·ρ/(1−ρ), ρ the larger of
// the last two ratios of successive mean changes (the geometric tail of
// an iteration contracting at rate ρ, as in Ihler, Fisher and Willsky's
// message-error analysis, JMLR 2005); Mean and Max are the mean and the
// largest over the unobserved variables of the largest state difference.
// When the ground iterations do not contract (ρ ≥ 0.9: six iterations cannot see the tail of a slower one) or the messages
// vanish, OK is false: there is no estimate. The statement is an estimate,
// not a bound: ground BP may have several fixed points, and the tail may
// contract more slowly than its first iterations; the calibration test
// (estimate_test.go) checks it against ground BP on random models.
func EstimateError(ctx context.Context, ans *infer.Answer, g *fg.Graph, ev fg.Evidence, damping float64) (infer.ErrorEstimate, error) {
	var est infer.ErrorEstimate
	init, err := groundMessages(ans, g)
	if err != nil {
		return est, err
	}
	gc, err := lift.Ground(g, ev)
	if err != nil {
		return est, err
	}
	nv := g.NumVars()
	observed := func(v int) bool { return ev != nil && ev[v] >= 0 }
	unobserved := 0
	for v := 0; v < nv; v++ {
		if !observed(v) {
			unobserved++
		}
	}
	if unobserved == 0 {
		est.OK = true
		return est, nil
	}
	// T−1 iterations, recording the largest message change of each, then
	// one more: bᵀ⁻¹ and bᵀ.
	var changes []float64
	opt := Options{Schedule: Flood, Damping: damping, MaxIter: EstimateIterations - 1, Tol: 0, Init: init,
		Progress: func(_ int, ch float64) { changes = append(changes, ch) }}
	ra, err := Run(ctx, gc, opt)
	if err != nil {
		return est, err
	}
	opt.MaxIter, opt.Init = 1, ra.F2V
	r, err := Run(ctx, gc, opt)
	if err != nil {
		return est, err
	}
	est.Iterations = EstimateIterations
	n := len(changes)
	rho := 0.0
	for _, k := range []int{n - 1, n - 2} {
		if k >= 1 && changes[k-1] > 0 {
			rho = max(rho, changes[k]/changes[k-1])
		}
	}
	est.Ratio = rho
	if changes[n-1] == 0 {
		rho = 0
	}
	if !(rho < 0.9) {
		return est, nil
	}
	tail := rho / (1 - rho)
	var sum, worst float64
	for v := 0; v < nv; v++ {
		if observed(v) {
			continue
		}
		d := maxDiff(r.Marginal(v), ans.Marginal(v)) + maxDiff(r.Marginal(v), ra.Marginal(v))*tail
		sum += d
		worst = max(worst, d)
	}
	est.Mean, est.Max, est.OK = sum/float64(unobserved), worst, true
	return est, nil
}

// maxDiff is the largest absolute difference of two distributions' entries.
func maxDiff(a, b []float64) float64 {
	d := 0.0
	for i := range a {
		d = max(d, math.Abs(a[i]-b[i]))
	}
	return d
}

// EstimateError implements infer.ErrorEstimator with the algorithm's
// damping.
func (a *Algorithm) EstimateError(ctx context.Context, ans *infer.Answer, g *fg.Graph, ev fg.Evidence) (infer.ErrorEstimate, error) {
	return EstimateError(ctx, ans, g, ev, a.Damping)
}

// groundMessages unlifts the factor-to-variable messages of ans (lifted
// BP on an approximate compression of g or of lift.QuantiseFields(g)) to
// every ground edge of g, laid out as Options.Init for lift.Ground(g, ·):
// edge e's message at the sum of the cardinalities of the edges before
// it. A unary factor merged away by QuantiseFields sends its own table,
// normalised.
func groundMessages(ans *infer.Answer, g *fg.Graph) ([]float64, error) {
	c := ans.Graph
	if ans.F2V == nil || c == nil {
		return nil, fmt.Errorf("bp: the error estimate needs a BP answer")
	}
	slots, err := c.GroundEdgeSlots(g)
	if err != nil {
		return nil, err
	}
	init := make([]float64, 0, len(ans.F2V)+g.NumEdges())
	for e, s := range slots {
		if s >= 0 {
			init = append(init, ans.F2V[ans.EdgeOff[s]:ans.EdgeOff[s+1]]...)
			continue
		}
		t := g.Table(g.EdgeFactor(int64(e)))
		sum := 0.0
		for _, x := range t.Values {
			sum += x
		}
		if !(sum > 0) {
			return nil, fmt.Errorf("bp: unary factor of edge %d is zero everywhere", e)
		}
		for _, x := range t.Values {
			init = append(init, x/sum)
		}
	}
	return init, nil
}
