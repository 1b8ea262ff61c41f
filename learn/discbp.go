package learn

import (
	"context"
	"fmt"
	"math"

	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/infer/bp"
	"github.com/lifted-dev/lifted/lift"
)

// bpSchedules are the BP runs expectBP tries in turn until one converges:
// flooding damped 0.5 from the last fixed point (a warm start; undamped
// flooding oscillates on UW-CSE's networks), then damped 0.9 from uniform
// messages, which, if it does not converge either, is used with its
// messages averaged over its last iterations.
var bpSchedules = []bp.Options{
	{Tol: 1e-6, MaxIter: 300, Damping: 0.5},
	{Tol: 1e-6, MaxIter: 1000, Damping: 0.9, AverageLast: 100},
}

// expectBP sets mo to BP's moments of the counts on the reweighted network
// g (see DiscOptions.Counts): for every ground factor that carries a
// learned formula's weight, the expected number of its ground formulas
// that are false is Σ_x b(x)·k(x), b BP's factor belief and k(x) the
// number of false ground formulas the entry x stands for (−logBase), and
// E[n_j] is the formula's open ground formulas less those; Var[n_j] sums
// the Bernoulli variances q(1−q) of its factors (their correlations
// ignored: the diagonal Newton step needs the diagonal only).
func (p *discProblem) expectBP(ctx context.Context, g *fg.Graph, nf int, mo *moments) error {
	if p.bpGraph == nil {
		c, err := lift.GroundContext(ctx, g, nil)
		if err != nil {
			return err
		}
		p.bpGraph = c
	}
	c := p.bpGraph
	var res *bp.Result
	schedules := bpSchedules
	if p.schedules != nil {
		schedules = p.schedules
	}
	for i, o := range schedules {
		if i == 0 {
			o.Init = p.bpInit
		}
		r, err := bp.Run(ctx, c, o)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			continue // a message without mass: try the next schedule
		}
		res = r
		if r.Converged {
			break
		}
	}
	if res == nil {
		return fmt.Errorf("discriminative learning: BP found no beliefs on the ground network (%d variables, %d factors)", g.NumVars(), g.NumFactors())
	}
	p.bpRuns++
	if !res.Converged {
		p.bpUnconverged++
	}
	if res.Converged {
		p.bpInit = append(p.bpInit[:0], res.F2V...)
	} else {
		p.bpInit = nil
	}
	mo.diag, mo.exact = true, true
	mo.bp, mo.bpConverged, mo.logZ = true, res.Converged, res.LogZ
	if !res.Converged {
		mo.logZ = math.NaN() // the Bethe estimate needs a fixed point
	}
	mo.mu, mo.v = make([]float64, nf), make([]float64, nf)
	var b []float64
	for f := range g.NumFactors() {
		t := g.FactorTable[f]
		j := p.tag[t]
		if j < 0 || len(g.Scope(f)) == 0 {
			continue
		}
		var err error
		b, err = res.FactorBelief(int(c.FactorOf[f]), b)
		if err != nil {
			return fmt.Errorf("discriminative learning: %w", err)
		}
		q := 0.0
		for k, l := range p.logBase[t] {
			if l < 0 && !math.IsInf(l, -1) {
				q += b[k] * -l
			}
		}
		mo.mu[j] += q
		mo.v[j] += max(q*(1-q), 0)
	}
	for j := range nf {
		mo.mu[j] = p.open[j] - mo.mu[j]
	}
	return nil
}
