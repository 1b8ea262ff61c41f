package online

import (
	"context"
	"errors"
	"math"
	"slices"
	"time"

	"github.com/lifted-dev/lifted/internal/optim"
)

// BatchOptions configure the batch baselines SCG and LBFGS, which minimise
// the negative conditional log-likelihood of the whole mega-example (one
// piece holding every ground clause) with its BP (Bethe) value and gradient.
type BatchOptions struct {
	// MaxIter bounds the iterations (default 100).
	MaxIter int
	// GradTol stops when the largest gradient component is below it
	// (default 1e-6).
	GradTol float64
	// FuncTol stops SCG when ten iterations in a row change the loss by
	// less than FuncTol relative to it (default 1e-10), as gonum's
	// FunctionConverge stops L-BFGS: on a loopy model the BP gradient is
	// not exactly the gradient of the Bethe loss, so the gradient can stay
	// above GradTol at a point where no step lowers the loss.
	FuncTol float64
	// PriorStdDev, if positive, adds a Gaussian prior N(0, σ²) on every
	// learned weight: Σ w²/(2σ²) to the loss.
	PriorStdDev float64
	// Init gives the starting weights (nil: zeros). The entries of hard
	// formulas are returned as given: they are no parameters.
	Init []float64
	// Grad configures the BP runs; NoNormalize is forced.
	Grad GradOptions
	// Eval, if set, is called at the start and after every gradient
	// evaluation at an accepted point, with the number of gradient
	// evaluations so far (passes over the mega-example).
	Eval func(passes float64, w []float64) error
	// Progress, if set, is called after every iteration.
	Progress func(iter, evals int, loss float64)
}

// BatchLearnResult is the outcome of a batch baseline.
type BatchLearnResult struct {
	Weights     []float64
	Loss        float64 // at Weights, with the prior
	Iterations  int
	Evaluations int // gradient evaluations (passes over the mega-example)
	Converged   bool
	// Status says why the run stopped.
	Status  string
	Seconds float64
}

// fullObjective is the loss as a function of the learnable weights only
// (those of the soft formulas, in formula order): the hard formulas' entries
// of the full weight vector stay as base has them, whatever the optimiser
// does.
type fullObjective struct {
	ctx    context.Context
	md     *Model
	pieces *Pieces
	batch  []int32
	opt    BatchOptions
	free   []int     // learnable formulas
	base   []float64 // full weight vector, fixed entries included
	evals  int
	err    error
	// cache of the last evaluation
	lastW    []float64
	lastLoss float64
	lastGrad []float64
}

func newFullObjective(ctx context.Context, md *Model, opt BatchOptions) *fullObjective {
	opt.Grad.NoNormalize = true
	base := make([]float64, md.NumFormulas())
	copy(base, opt.Init)
	return &fullObjective{ctx: ctx, md: md, pieces: WholePiece(md), batch: []int32{0}, opt: opt,
		free: md.learnable(), base: base}
}

// start returns the learnable part of the initial weights.
func (o *fullObjective) start() []float64 { return gather(o.base, o.free) }

// full returns the full weight vector with learnable weights w.
func (o *fullObjective) full(w []float64) []float64 {
	x := slices.Clone(o.base)
	scatter(x, o.free, w)
	return x
}

// eval returns the loss and gradient at learnable weights w (cached for
// the last w).
func (o *fullObjective) eval(w []float64) (float64, []float64) {
	if o.lastW != nil && slices.Equal(o.lastW, w) {
		return o.lastLoss, o.lastGrad
	}
	if o.err != nil {
		return math.NaN(), make([]float64, len(w))
	}
	r, err := o.md.BatchGradient(o.ctx, o.full(w), o.pieces, o.batch, o.opt.Grad)
	if err != nil {
		o.err = err
		return math.NaN(), make([]float64, len(w))
	}
	o.evals++
	loss, g := r.Loss, gather(r.Grad, o.free)
	if s := o.opt.PriorStdDev; s > 0 {
		for i, x := range w {
			loss += x * x / (2 * s * s)
			g[i] += x / (s * s)
		}
	}
	o.lastW = slices.Clone(w)
	o.lastLoss, o.lastGrad = loss, g
	return loss, g
}

func (o *BatchOptions) defaults() {
	if o.MaxIter <= 0 {
		o.MaxIter = 100
	}
	if o.GradTol <= 0 {
		o.GradTol = 1e-6
	}
	if o.FuncTol <= 0 {
		o.FuncTol = 1e-10
	}
}

func maxAbs(g []float64) float64 {
	m := 0.0
	for _, x := range g {
		m = math.Max(m, math.Abs(x))
	}
	return m
}

func dot(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

// SCG minimises the whole mega-example's BP negative conditional
// log-likelihood by scaled conjugate gradient (Møller 1993): conjugate
// directions (Hestenes–Stiefel form with restarts every k iterations), the
// curvature along the direction from a finite difference of gradients, and
// a Levenberg–Marquardt scale λ adjusted by the comparison ratio Δ instead of
// a line search.
func SCG(ctx context.Context, md *Model, opt BatchOptions) (*BatchLearnResult, error) {
	opt.defaults()
	start := time.Now()
	o := newFullObjective(ctx, md, opt)
	if len(o.free) == 0 {
		return nil, errors.New("online: no soft formula to learn")
	}
	w := o.start()
	k := len(w)
	const sigma0 = 1e-4
	lambda, lambdaBar := 1e-6, 0.0
	f, g := o.eval(w)
	if o.err != nil {
		return nil, o.err
	}
	if opt.Eval != nil {
		if err := opt.Eval(float64(o.evals), o.full(w)); err != nil {
			return nil, err
		}
	}
	r := make([]float64, k)
	for i := range r {
		r[i] = -g[i]
	}
	p := slices.Clone(r)
	s := make([]float64, k)
	wt := make([]float64, k)
	success := true
	delta := 0.0
	res := &BatchLearnResult{Status: "iteration limit"}
	stalled := 0 // iterations in a row that left the loss unchanged
	for it := 1; it <= opt.MaxIter; it++ {
		res.Iterations = it
		p2 := dot(p, p)
		if p2 == 0 {
			res.Converged, res.Status = true, "zero search direction"
			break
		}
		fold := f
		if success {
			sigma := sigma0 / math.Sqrt(p2)
			for i := range wt {
				wt[i] = w[i] + sigma*p[i]
			}
			_, gs := o.eval(wt)
			if o.err != nil {
				return nil, o.err
			}
			for i := range s {
				s[i] = (gs[i] - g[i]) / sigma
			}
			delta = dot(p, s)
		}
		delta += (lambda - lambdaBar) * p2
		if delta <= 0 {
			lambdaBar = 2 * (lambda - delta/p2)
			delta = -delta + lambda*p2
			lambda = lambdaBar
		}
		mu := dot(p, r)
		alpha := mu / delta
		for i := range wt {
			wt[i] = w[i] + alpha*p[i]
		}
		fnew, gnew := o.eval(wt)
		if o.err != nil {
			return nil, o.err
		}
		Delta := 2 * delta * (f - fnew) / (mu * mu)
		if Delta >= 0 && !math.IsNaN(fnew) {
			copy(w, wt)
			f = fnew
			rnew := make([]float64, k)
			for i := range rnew {
				rnew[i] = -gnew[i]
			}
			g = slices.Clone(gnew)
			lambdaBar = 0
			success = true
			if it%k == 0 {
				copy(p, rnew)
			} else {
				beta := (dot(rnew, rnew) - dot(rnew, r)) / mu
				for i := range p {
					p[i] = rnew[i] + beta*p[i]
				}
			}
			r = rnew
			if Delta >= 0.75 {
				lambda = math.Max(lambda/4, 1e-15)
			}
			if opt.Eval != nil {
				if err := opt.Eval(float64(o.evals), o.full(w)); err != nil {
					return nil, err
				}
			}
		} else {
			lambdaBar = lambda
			success = false
		}
		if Delta < 0.25 {
			lambda = math.Min(lambda+delta*(1-Delta)/p2, 1e100)
		}
		if opt.Progress != nil {
			opt.Progress(it, o.evals, f)
		}
		if maxAbs(r) < opt.GradTol {
			res.Converged, res.Status = true, "gradient below tolerance"
			break
		}
		if math.Abs(fold-f) <= opt.FuncTol*math.Max(1, math.Abs(f)) {
			stalled++
		} else {
			stalled = 0
		}
		if stalled >= 10 {
			res.Converged, res.Status = true, "loss unchanged for 10 iterations"
			break
		}
	}
	res.Weights, res.Loss, res.Evaluations = o.full(w), f, o.evals
	res.Seconds = time.Since(start).Seconds()
	return res, nil
}

// LBFGS minimises the same objective as SCG with gonum's L-BFGS (More–Thuente
// line search).
func LBFGS(ctx context.Context, md *Model, opt BatchOptions) (*BatchLearnResult, error) {
	opt.defaults()
	start := time.Now()
	o := newFullObjective(ctx, md, opt)
	if len(o.free) == 0 {
		return nil, errors.New("online: no soft formula to learn")
	}
	w0 := o.start()
	lastEval := -1
	if opt.Eval != nil {
		o.eval(w0)
		lastEval = o.evals
		if o.err != nil {
			return nil, o.err
		}
		if err := opt.Eval(float64(o.evals), o.full(w0)); err != nil {
			return nil, err
		}
	}
	// Eval is called at iterations that evaluated a new point; an error
	// from it ends the run.
	progress := func(iter int, x []float64, loss float64) error {
		var err error
		if opt.Eval != nil && o.evals > lastEval {
			lastEval = o.evals
			err = opt.Eval(float64(o.evals), o.full(x))
		}
		if opt.Progress != nil {
			opt.Progress(iter, o.evals, loss)
		}
		return err
	}
	f := func(x, grad []float64) (float64, error) {
		v, g := o.eval(x)
		copy(grad, g)
		return v, o.err
	}
	// The test on the loss is gonum's default (no decrease by more than
	// 1e-10 in 100 iterations), which LBFGS has always used; FuncTol is SCG's.
	out, err := optim.Minimize(ctx, f, w0, optim.Settings{GradTol: opt.GradTol, MaxIter: opt.MaxIter,
		FuncAbsTol: 1e-10, FuncIters: 100, Progress: progress})
	if err != nil {
		return nil, err
	}
	// A line search that can no longer improve ends most runs that have
	// converged to machine precision: Reason reports it after the status.
	return &BatchLearnResult{Weights: o.full(out.X), Loss: out.F, Iterations: out.Iterations,
		Evaluations: o.evals, Converged: out.Converged, Status: out.Reason(),
		Seconds: time.Since(start).Seconds()}, nil
}

// gather returns w's entries at the given indices.
func gather(w []float64, idx []int) []float64 {
	out := make([]float64, len(idx))
	for i, j := range idx {
		out[i] = w[j]
	}
	return out
}

// scatter sets dst's entries at the given indices from src.
func scatter(dst []float64, idx []int, src []float64) {
	for i, j := range idx {
		dst[j] = src[i]
	}
}
