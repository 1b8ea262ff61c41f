package learn

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"
	"time"

	"github.com/lifted-dev/lifted/internal/optim"
	"github.com/lifted-dev/lifted/mln"
	"github.com/lifted-dev/lifted/wfomc"
)

// Options configure the learners.
type Options struct {
	// PriorMean and PriorStdDev define the Gaussian prior N(mean, sd²) on
	// every learned weight (defaults 0 and 100, as Forclift and Alchemy's
	// generative learning use). PriorStdDev < 0 means no prior.
	PriorMean   float64
	PriorStdDev float64
	// MaxIter bounds the L-BFGS iterations (default 1000).
	MaxIter int
	// GradTol stops L-BFGS when the largest component of the objective's
	// gradient is below it (default 1e-8).
	GradTol float64
	// FuncTol stops L-BFGS when ten iterations in a row improve the
	// objective by less than FuncTol relative to it (default 1e-10):
	// nearly deterministic formulas have weights that drift for hundreds of
	// iterations while the objective no longer moves.
	FuncTol float64
	// Init gives starting weights (one per formula); nil starts from the
	// weights written in the MLN, or 0.
	Init []float64
	// Progress, if set, is called after every L-BFGS iteration.
	Progress func(iter int, objective float64)
	// Context, when set, stops L-BFGS when it ends (Ctrl-C): the result
	// then has the weights of the last iteration, Interrupted set.
	Context context.Context
	// Stage, if set, reports the work before the first iteration: stage
	// names it ("pll terms", "counting"), done of total steps (total ≤ 0:
	// not known), detail its figures. It is called often; throttle in the
	// callee.
	Stage func(stage string, done, total int64, detail string)
	// UnweightedPLL makes PLL sum the conditional log-likelihoods of all
	// ground atoms alike; by default, as in Alchemy, each predicate's atoms
	// are weighted by one over their number, so that every predicate counts
	// the same.
	UnweightedPLL bool
	// Predicates, if not empty, restricts PLL to the atoms of these
	// predicates: the sum of log P(X = its value | all other atoms) over
	// their ground atoms only, every other atom given — the conditional
	// (discriminative) pseudo-likelihood of a query predicate given the
	// evidence, which Discriminative starts from.
	Predicates []string
}

func (o *Options) defaults() Options {
	var c Options
	if o != nil {
		c = *o
	}
	if c.PriorStdDev == 0 {
		c.PriorStdDev = 100
	}
	if c.MaxIter == 0 {
		c.MaxIter = 1000
	}
	if c.GradTol == 0 {
		c.GradTol = 1e-8
	}
	if c.FuncTol == 0 {
		c.FuncTol = 1e-10
	}
	return c
}

// Result is a learned weight vector.
type Result struct {
	// Weights has one weight per formula of the MLN: learned for the soft
	// formulas, as written for hard and fixed-weight ones.
	Weights []float64
	// Objective is the training objective at Weights: the log-likelihood
	// (LWL) or pseudo-log-likelihood (PLL) summed over the databases, plus
	// the log prior (up to its constant).
	Objective float64
	// LogLik is the training log-likelihood (LWL) or pseudo-log-likelihood
	// (PLL) without the prior.
	LogLik      float64
	Iterations  int
	Evaluations int
	Status      string
	// Converged: the learner's convergence test passed (Discriminative).
	Converged bool
	// Counts is where Discriminative's expected counts came from: "bp",
	// "mcsat" or "exact" (every database small enough to enumerate).
	Counts string
	// Interrupted: Options.Context ended the run; Weights are those of
	// the last iteration (the initial ones before the first).
	Interrupted bool
	Seconds     float64
}

// learnable lists the formulas whose weights are learned.
func learnable(m *mln.MLN) []int {
	var out []int
	for j, f := range m.Formulas {
		if !f.Hard && !f.FixedWeight {
			out = append(out, j)
		}
	}
	return out
}

func initialWeights(m *mln.MLN, init []float64) ([]float64, error) {
	w := make([]float64, len(m.Formulas))
	if init != nil {
		if len(init) != len(m.Formulas) {
			return nil, fmt.Errorf("got %d initial weights for %d formulas", len(init), len(m.Formulas))
		}
		copy(w, init)
		return w, nil
	}
	for j, f := range m.Formulas {
		if f.HasWeight || f.Hard {
			w[j] = f.Weight
		}
	}
	return w, nil
}

// objective is a differentiable function of the learnable weights, to be
// maximised: value and gradient at the full weight vector.
type objective func(w []float64, grad []float64) (float64, error)

// maximise runs L-BFGS on f (plus the prior) over the learnable weights.
func maximise(m *mln.MLN, f objective, opt Options, start time.Time) (*Result, error) {
	idx := learnable(m)
	w, err := initialWeights(m, opt.Init)
	if err != nil {
		return nil, err
	}
	res := &Result{Weights: w}
	full := func(x []float64) []float64 {
		v := append([]float64(nil), w...)
		for i, j := range idx {
			v[j] = x[i]
		}
		return v
	}
	prior := func(x []float64, g []float64) float64 {
		if opt.PriorStdDev < 0 {
			return 0
		}
		s2 := opt.PriorStdDev * opt.PriorStdDev
		lp := 0.0
		for i, v := range x {
			d := v - opt.PriorMean
			lp -= d * d / (2 * s2)
			if g != nil {
				g[i] -= d / s2
			}
		}
		return lp
	}
	// The objective over the learnable weights, negated: optim minimises.
	neg := func(x, grad []float64) (float64, error) {
		g := make([]float64, len(m.Formulas))
		val, err := f(full(x), g)
		if err != nil {
			return 0, err
		}
		for i, j := range idx {
			grad[i] = g[j]
		}
		val += prior(x, grad)
		for i := range grad {
			grad[i] = -grad[i]
		}
		return -val, nil
	}
	if len(idx) == 0 {
		g := make([]float64, len(m.Formulas))
		val, err := f(w, g)
		if err != nil {
			return nil, err
		}
		res.Objective, res.LogLik, res.Status = val, val, "nothing to learn"
		res.Seconds = time.Since(start).Seconds()
		return res, nil
	}
	x0 := make([]float64, len(idx))
	for i, j := range idx {
		x0[i] = w[j]
	}
	settings := optim.Settings{GradTol: opt.GradTol, MaxIter: opt.MaxIter,
		FuncAbsTol: opt.FuncTol, FuncRelTol: opt.FuncTol, FuncIters: 10}
	lastX, lastV, iters := x0, math.NaN(), 0
	settings.Progress = func(iter int, x []float64, v float64) error {
		lastX, lastV, iters = append([]float64(nil), x...), v, iter
		if opt.Progress != nil {
			opt.Progress(iter, -v)
		}
		return nil
	}
	ctx := opt.Context
	if ctx == nil {
		ctx = context.Background()
	}
	out, err := optim.Minimize(ctx, neg, x0, settings)
	if err != nil && ctx.Err() != nil {
		// Interrupted: the weights of the last iteration, and its
		// objective (not evaluated again: the caller is stopping).
		for i, j := range idx {
			w[j] = lastX[i]
		}
		res.Iterations, res.Interrupted = iters, true
		res.Objective = -lastV
		res.LogLik = res.Objective - prior(lastX, nil)
		res.Status = fmt.Sprintf("interrupted after %d iterations: the weights of the last one", iters)
		res.Seconds = time.Since(start).Seconds()
		return res, nil
	}
	if err != nil {
		return nil, err
	}
	for i, j := range idx {
		w[j] = out.X[i]
	}
	res.Iterations = out.Iterations
	res.Evaluations = out.Evaluations
	// A line search that cannot improve any more ends most runs that have
	// converged to machine precision; Reason reports it after the status.
	res.Status = out.Reason()
	g := make([]float64, len(m.Formulas))
	ll, err := f(w, g)
	if err != nil {
		return nil, err
	}
	res.LogLik = ll
	res.Objective = ll + prior(out.X, nil)
	res.Seconds = time.Since(start).Seconds()
	return res, nil
}

// LWL learns the weights of m's soft formulas that maximise the exact
// likelihood of the training databases (each with its own domain sizes)
// times the Gaussian prior, by L-BFGS. The gradient of the log-likelihood
// is counts in the data minus expected counts, which one weighted
// first-order model count per database gives. The model is compiled once;
// every iteration only re-evaluates it.
func LWL(m *mln.MLN, data []*Data, opt *Options) (*Result, error) {
	start := time.Now()
	o := opt.defaults()
	if len(data) == 0 {
		return nil, errors.New("no training data")
	}
	mod, err := wfomc.Compile(m, nil)
	if err != nil {
		return nil, err
	}
	for _, d := range data {
		if len(d.Counts) != len(m.Formulas) {
			return nil, fmt.Errorf("%s: %d counts for %d formulas", d.Name, len(d.Counts), len(m.Formulas))
		}
		for j, f := range m.Formulas {
			if f.Hard && d.Counts[j] != groundingsAt(m, f, d.Sizes) {
				return nil, fmt.Errorf("%s violates hard formula %d (%s): its likelihood is 0", d.Name, j+1, f.Text)
			}
		}
	}
	obj := func(w []float64, grad []float64) (float64, error) {
		return logLikelihood(mod, m, w, data, grad)
	}
	return maximise(m, obj, o, start)
}

func groundingsAt(m *mln.MLN, f *mln.Formula, sizes map[string]int64) float64 {
	g := 1.0
	for _, v := range f.Vars {
		g *= float64(sizes[v.Type])
	}
	return g
}

// logLikelihood returns Σ_db Σ_j w_j n_j(db) − log Z_db and adds its
// gradient to grad (soft formulas only).
func logLikelihood(mod *wfomc.Model, m *mln.MLN, w []float64, data []*Data, grad []float64) (float64, error) {
	type out struct {
		r   *wfomc.Result
		err error
	}
	outs := make([]out, len(data))
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	for i, d := range data {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			r, err := mod.Evaluate(w, d.Sizes)
			outs[i] = out{r, err}
		}()
	}
	wg.Wait()
	ll := 0.0
	for i, d := range data {
		if outs[i].err != nil {
			return 0, fmt.Errorf("%s: %w", d.Name, outs[i].err)
		}
		r := outs[i].r
		ll -= r.LogZ
		for j, f := range m.Formulas {
			if f.Hard {
				continue
			}
			ll += w[j] * d.Counts[j]
			if grad != nil {
				grad[j] += d.Counts[j] - r.ExpectedCounts[j]
			}
		}
	}
	return ll, nil
}

// LogLikelihood returns the exact log-likelihood Σ_j w_j n_j(db) − log Z of
// one database under m with the given weights (one per formula), or −Inf
// when the database violates a hard formula.
func LogLikelihood(m *mln.MLN, weights []float64, d *Data) (float64, error) {
	for j, f := range m.Formulas {
		if f.Hard && d.Counts[j] != groundingsAt(m, f, d.Sizes) {
			return math.Inf(-1), nil
		}
	}
	mod, err := wfomc.Compile(m, nil)
	if err != nil {
		return 0, err
	}
	return logLikelihood(mod, m, weights, []*Data{d}, nil)
}
