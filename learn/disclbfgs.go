package learn

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/lifted-dev/lifted/internal/optim"
)

// errDiscStop ends discLBFGS's L-BFGS run from its progress hook: the
// convergence test passed or the iteration limit was reached.
var errDiscStop = errors.New("stop")

// discLBFGS maximises the discriminative objective with deterministic
// counts (BP's with Bethe's log Z, or exact) by L-BFGS (internal/optim),
// in the coordinates u_j = w_j·√H_jj of the starting point's diagonal
// Hessian (each weight in units of its standard error, where the
// convergence test works; the diagonal Newton step's preconditioning). It
// stops when the test passes (converged, with the weights, gradient and
// moments at that point), at o.MaxIter iterations, or when the line search
// can make no more progress (a point where BP did not converge counts as
// −Inf); it returns the best point reached and a note for the status, and
// updates res's Iterations, Evaluations and Converged. The starting point
// is w with gradient and moments mo (already evaluated).
func discLBFGS(ctx context.Context, o DiscOptions, learn []int, w []float64, mo momentSet,
	eval func([]float64, bool) ([]float64, momentSet, error),
	objective func([]float64, momentSet) float64,
	converged func([]float64, momentSet) (bool, float64), res *Result) ([]float64, []float64, momentSet, float64, string, error) {
	inv := 0.0
	if o.PriorStdDev > 0 {
		inv = 1 / (o.PriorStdDev * o.PriorStdDev)
	}
	scale := make([]float64, len(learn))
	x0 := make([]float64, len(learn))
	for i, j := range learn {
		scale[i] = math.Sqrt(max(mo.variance(j)+inv, 1e-6))
		x0[i] = w[j] * scale[i]
	}
	type point struct {
		x, w, g []float64
		mo      momentSet
		f       float64
	}
	var seen []point // the evaluated points, most recent last (a few)
	find := func(x []float64) *point {
		for i := len(seen) - 1; i >= 0; i-- {
			if slices.Equal(seen[i].x, x) {
				return &seen[i]
			}
		}
		return nil
	}
	weights := func(x []float64) []float64 {
		nw := slices.Clone(w)
		for i, j := range learn {
			nw[j] = x[i] / scale[i]
		}
		return nw
	}
	unconverged := 0
	f := func(x, grad []float64) (float64, error) {
		nw := weights(x)
		g, m, err := eval(nw, false)
		if err != nil {
			return 0, err
		}
		res.Evaluations++
		fv := objective(nw, m)
		if m.bpUnconverged() > 0 || math.IsNaN(fv) {
			unconverged++
			fv = math.Inf(-1) // no Bethe objective without a fixed point: the line search backs off
		}
		for i, j := range learn {
			grad[i] = -g[j] / scale[i]
		}
		seen = append(seen, point{slices.Clone(x), nw, g, m, fv})
		if len(seen) > 8 {
			seen = slices.Delete(seen, 0, 1)
		}
		return -fv, nil
	}
	best := point{x0, w, nil, mo, objective(w, mo)}
	iters := 0
	progress := func(iter int, x []float64, _ float64) error {
		p := find(x)
		if p == nil || math.IsInf(p.f, -1) {
			return nil
		}
		best = *p
		iters = iter - 1 // the starting point is iteration 1
		res.Iterations = iters
		ok, worst := converged(p.g, p.mo)
		if o.Progress != nil {
			if ok {
				worst = 0
			}
			o.Progress(DiscProgress{Iter: iters, MaxIter: o.MaxIter, Counts: res.Counts, Method: "lbfgs", Worst: worst, Tol: o.ZTol, Objective: p.f})
		}
		if ok {
			res.Converged, res.Status = true, "converged"
			return errDiscStop
		}
		if iters >= o.MaxIter {
			return errDiscStop
		}
		return nil
	}
	r, err := optim.Minimize(ctx, f, x0, optim.Settings{Progress: progress})
	switch {
	case errors.Is(err, errDiscStop):
	case err != nil:
		return nil, nil, nil, 0, "", err
	default:
		if p := find(r.X); p != nil && !math.IsInf(p.f, -1) && p.f >= best.f {
			best = *p
		}
	}
	if best.g == nil { // no iteration accepted: the start
		g, m, err := eval(w, false)
		if err != nil {
			return nil, nil, nil, 0, "", err
		}
		best.g, best.mo = g, m
		if ok, _ := converged(g, m); ok {
			res.Converged, res.Status = true, "converged"
		}
	}
	note := fmt.Sprintf("; L-BFGS in standard-error units (%d iterations, %d evaluations", iters, res.Evaluations)
	if unconverged > 0 {
		note += fmt.Sprintf(", BP not converged at %d of the points tried", unconverged)
	}
	if err == nil && !res.Converged {
		note += ", stopped: " + r.Reason()
	}
	return best.w, best.g, best.mo, best.f, note + ")", nil
}
