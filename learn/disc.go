package learn

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/lifted-dev/lifted/fg"
	mlnfile "github.com/lifted-dev/lifted/format/mlnfile"
	"github.com/lifted-dev/lifted/gibbs"
	"github.com/lifted-dev/lifted/ground"
	"github.com/lifted-dev/lifted/infer/bp"
	"github.com/lifted-dev/lifted/lift"
	"github.com/lifted-dev/lifted/mln"
)

// DiscOptions configure Discriminative.
type DiscOptions struct {
	// NE names the non-evidence (query) predicates; all others are
	// evidence (closed world). Required.
	NE []string
	// PriorMean and PriorStdDev define a Gaussian prior N(mean, sd²) on
	// every learned weight; PriorStdDev 0 means 2 (Alchemy's
	// discriminative default), negative means no prior.
	PriorMean, PriorStdDev float64
	// MaxIter bounds the optimiser's iterations after the
	// pseudo-likelihood start (negative: none, the starting weights are
	// the answer). 0 is the default of the counts used: 100 where they are
	// deterministic (BP or exact; Alchemy's -dNumIter default, numIter =
	// 100 in learnwts.cpp), where the convergence test (ZTol) normally
	// stops learning well before; 5 with MC-SAT counts (on UW-CSE an
	// iteration costs about 3.5 CPU s and five moved the held-out CLL by
	// less than its noise).
	MaxIter int
	// NoPLLInit: start from Init or the MLN's weights instead of the
	// conditional pseudo-likelihood's optimum (see Discriminative).
	NoPLLInit bool
	// Samples is the number of MC-SAT steps kept per iteration and
	// database (default 50). Each database has one chain, kept across
	// iterations (a warm start): BurnIn steps are discarded before the
	// first iteration's samples (default 50), WarmBurnIn before every
	// later one's (default 2; negative: none).
	Samples, BurnIn, WarmBurnIn int
	// RandomStart starts each database's chain from a random world
	// (gibbs.Start) instead of from the training data. From the data, a
	// chain that mixes slowly errs towards the data's counts, so the
	// gradient it gives is too small (as in persistent contrastive
	// divergence) instead of pointing far off: from a random world of
	// UW-CSE's 16,000 advisedBy atoms, half of them true, 5 iterations
	// drove the unit clause's weight from −3.6 to −10.
	RandomStart bool
	// NoBlocks turns off the blocked moves that MC-SAT makes on the tied
	// units of gibbs.NewBlocking (the auxiliary variable of a large clause
	// with its first atom, mutual-exclusion blocks); without them a chain
	// cannot move the first true atom of a large clause.
	NoBlocks bool
	// ExactVars: when a database's ground network has at most this many
	// variables the expected counts are computed exactly by enumeration
	// instead of MC-SAT (default 16; negative: never).
	ExactVars int
	// StepTol is the convergence test with MC-SAT counts: learning stops
	// when, for every learned weight, the Newton step g_j/H_jj is below
	// StepTol (the
	// weight is predicted to be that close to its optimum) or the
	// gradient g_j is within two standard errors of 0 (the Monte Carlo
	// noise of the expected counts: their sample variance over the
	// number of samples, which autocorrelation makes an underestimate,
	// so the test errs towards going on). Default 0.01. With
	// deterministic counts (BP, exact) the test is ZTol's; a StepTol set
	// here must then hold as well.
	StepTol float64
	// ZTol is the convergence test with deterministic counts (BP or
	// exact): learning stops when, for every learned weight, the change
	// to the optimum that the diagonal Newton model predicts, g_j/H_jj,
	// is at most ZTol times the weight's standard error given the
	// training data, 1/√H_jj (the Laplace approximation of the
	// posterior): |g_j|/√H_jj ≤ ZTol. The remaining change of every
	// weight is then ZTol of the change that another training sample of
	// the same size would bring, so more iterations move the held-out
	// score by about ZTol of its noise from the training sample, and the
	// training objective by at most ½·k·ZTol² nats for k weights (the
	// quadratic model's predicted gain; Alchemy stops when it falls below
	// 1e-5, cgMinLLChange). Where BP is used it must also have converged
	// at those weights. Default 0.05.
	ZTol float64
	// GradTol: also converged when every component of the gradient,
	// divided by the number of the formula's ground formulas that the
	// evidence leaves open (at least 1), is below it (default 1e-6).
	GradTol float64
	// Lambda is the initial trust-region parameter (default 1).
	Lambda float64
	// MaxStep bounds the change of any weight in one iteration (default 2).
	MaxStep float64
	// MaxArity is ground.Options.MaxArity for the ground networks
	// (0: its default): ground formulas with more unknown atoms get an
	// auxiliary variable.
	MaxArity int
	// Init gives starting weights (one per formula); nil starts from the
	// optimum of the conditional pseudo-likelihood (or, with NoPLLInit,
	// from the weights written in the MLN, or 0).
	Init []float64
	Seed uint64
	// Method is the optimiser: "dn" (the default: Lowd and Domingos's
	// diagonal Newton), "scg" (their scaled conjugate gradient, Alchemy's
	// learnwts -d default: Polak–Ribière directions preconditioned by the
	// inverse diagonal Hessian, the same trust-region step) or "vp" (voted
	// perceptron, Singla and Domingos 2005, Alchemy's -dVP: steps of
	// LearningRate times the gradient, the answer the mean of all iterates).
	Method string
	// Counts is where the expected counts come from: "mcsat" (the
	// default: MC-SAT chains, see Samples), "bp" (belief propagation on
	// each database's ground network, the sampling network above, run to
	// a fixed point: E[n_j | x] is the sum over the ground formulas of j
	// of BP's belief that the formula is true, Var[n_j | x] the sum of
	// their Bernoulli variances). BP's counts have no Monte Carlo noise,
	// so the optimiser's steps and the convergence test are deterministic
	// (converged: every Newton step below StepTol), and they are the
	// counts of the approximation lifted infer answers with where BP
	// converges), or "auto" (what lifted learn does by default): BP where
	// it converges on every training database at the starting weights,
	// else MC-SAT. Small networks (ExactVars) are enumerated whichever is
	// asked for.
	Counts string
	// LearningRate is the voted perceptron's step per unit of gradient
	// (default 0.001, Alchemy's -dLearningRate).
	LearningRate float64
	// Progress, if set, is called after every iteration.
	Progress func(DiscProgress)
	// Stage, if set, reports the pseudo-likelihood start's setup (its
	// terms, atom by atom) as Options.Stage does.
	Stage func(stage string, done, total int64, detail string)

	frozen      bool         // tests: the chains make no moves (discProblem.frozen)
	bpSchedules []bp.Options // tests: BP's schedules instead of bpSchedules
}

// DiscProgress is Discriminative's state after an iteration.
type DiscProgress struct {
	// Iter of at most MaxIter iterations done; Counts "bp", "mcsat" or
	// "exact".
	Iter, MaxIter int
	Counts        string
	// Method is the optimiser of the iteration: "dn", "scg", "vp" or
	// "lbfgs".
	Method string
	// Worst is the convergence test's figure for the weight furthest from
	// passing it (0 when every weight passes): with deterministic counts
	// the predicted remaining change in standard errors, |g_j|/√H_jj
	// (passes at ZTol), with MC-SAT the Newton step |g_j|/H_jj (StepTol).
	Worst, Tol float64
	// Objective is the training objective (conditional log-likelihood
	// plus log prior; with BP counts Bethe's approximation), NaN with
	// MC-SAT counts.
	Objective float64
}

func (o DiscOptions) defaults() DiscOptions {
	if o.PriorStdDev == 0 {
		o.PriorStdDev = 2
	}
	if o.Counts == "" {
		o.Counts = "mcsat"
	}
	if o.ZTol <= 0 {
		o.ZTol = 0.05
	}
	if o.Samples <= 0 {
		o.Samples = 50
	}
	if o.BurnIn <= 0 {
		o.BurnIn = 50
	}
	if o.WarmBurnIn == 0 {
		o.WarmBurnIn = 2
	}
	o.WarmBurnIn = max(o.WarmBurnIn, 0)
	if o.ExactVars == 0 {
		o.ExactVars = 16
	}
	if o.StepTol <= 0 {
		o.StepTol = 0.01
	}
	if o.GradTol <= 0 {
		o.GradTol = 1e-6
	}
	if o.Lambda <= 0 {
		o.Lambda = 1
	}
	if o.MaxStep <= 0 {
		o.MaxStep = 2
	}
	if o.Method == "" {
		o.Method = "dn"
	}
	if o.LearningRate <= 0 {
		o.LearningRate = 0.001
	}
	return o
}

// Discriminative learns the weights of m's soft formulas by maximising the
// conditional log-likelihood of the non-evidence predicates' atoms given
// the evidence predicates' atoms, log P(y | x) summed over the databases
// (closed world: atoms a database does not list are false), plus the log
// prior. This is the setting of Alchemy's and Tuffy's discriminative
// learners (Singla and Domingos 2005; Lowd and Domingos 2007), and, like
// theirs, it needs no bound on the size of a ground clause: the ground
// network is built by package ground (large clauses get an auxiliary
// variable) and the expected counts come from MC-SAT on it (package gibbs),
// or from enumeration when it is small.
//
// The gradient of the conditional log-likelihood with respect to w_j is
// n_j(x, y) − E_w[n_j | x], the true groundings of formula j in the data
// minus their expectation given the evidence; only the ground formulas
// that the evidence leaves open contribute, so those are the ones counted.
// The optimiser is Lowd and Domingos's diagonal Newton method with a trust
// region: direction d_j = g_j / H_jj with H_jj = Var_w[n_j | x] + 1/σ²
// (the diagonal of the Hessian of the negative objective, estimated from
// the same samples), step α = d·g / (dᵀHd + λ d·d) with dᵀHd = Var_w[d·n]
// + |d|²/σ², λ halved when the improvement estimated from the new gradient
// (the trapezoid rule, s·(g + g′)/2 for the step s) exceeds 3/4 of the
// one the quadratic model predicts and quadrupled when it falls below 1/4;
// a step that makes it negative is undone. Each weight moves by at most
// MaxStep per iteration (the step is clipped per component).
//
// When ctx ends learning (Ctrl-C), Discriminative returns the weights so
// far (the last accepted iterate, or the pseudo-likelihood's last
// iterate), Result.Interrupted set and Status saying so, and a nil error.
//
// The databases are each ground twice per iteration at most: once with
// every learned weight 1 (the counting network, made once), and once with
// the current weights (the sampling network). Functions are not supported
// (an error).
func Discriminative(ctx context.Context, m *mln.MLN, dbs []*mln.DB, names []string, opt DiscOptions) (*Result, error) {
	start := time.Now()
	if ctx == nil {
		ctx = context.Background()
	}
	o := opt.defaults()
	if len(o.NE) == 0 {
		return nil, errors.New("discriminative learning needs the non-evidence predicates")
	}
	if o.Method != "dn" && o.Method != "scg" && o.Method != "vp" && o.Method != "lbfgs" {
		return nil, fmt.Errorf("unknown discriminative optimiser %q (want dn, scg, vp or lbfgs)", o.Method)
	}
	if o.Counts != "mcsat" && o.Counts != "bp" && o.Counts != "auto" {
		return nil, fmt.Errorf("unknown source of expected counts %q (want auto, mcsat or bp)", o.Counts)
	}
	for _, n := range o.NE {
		if m.PredIndex(n) < 0 {
			return nil, fmt.Errorf("unknown non-evidence predicate %q", n)
		}
	}
	if len(m.Funcs) > 0 {
		return nil, errors.New("discriminative learning does not support functions")
	}
	if len(dbs) == 0 {
		return nil, errors.New("no training databases")
	}
	w, err := initialWeights(m, o.Init)
	if err != nil {
		return nil, err
	}
	plls := ""
	if o.Init == nil && !o.NoPLLInit {
		// the conditional pseudo-likelihood: exact, convex and cheap; its
		// optimum is the conditional likelihood's where the query atoms
		// are independent given the evidence
		sd := o.PriorStdDev
		if sd < 0 {
			sd = -1
		}
		pr, err := PLL(m, dbs, names, &Options{PriorMean: o.PriorMean, PriorStdDev: sd, UnweightedPLL: true, Predicates: o.NE, Init: w, Context: ctx, Stage: o.Stage})
		if err != nil {
			return nil, fmt.Errorf("conditional pseudo-likelihood (the starting weights): %w", err)
		}
		w = pr.Weights
		if pr.Interrupted {
			pr.Status = "interrupted in the conditional pseudo-likelihood start: " + pr.Status
			return pr, nil
		}
		plls = fmt.Sprintf("started from the conditional pseudo-likelihood's optimum (%d L-BFGS iterations, %s)", pr.Iterations, pr.Status)
	}
	if o.MaxIter < 0 {
		res := &Result{Weights: w, Status: "no iterations asked for", Objective: math.NaN(), LogLik: math.NaN()}
		if plls != "" {
			res.Status += "; " + plls
		}
		res.Seconds = time.Since(start).Seconds()
		return res, nil
	}
	// A formula that mentions no query predicate is constant given the
	// evidence: its gradient is the prior's alone, so it keeps its
	// starting weight (the prior mean after the pseudo-likelihood) and is
	// neither learned nor ground (UW-CSE: 67 of 94 formulas).
	learn := queryFormulas(m, learnable(m), o.NE)
	var probs []*discProblem
	for i, db := range dbs {
		name := dbName(names, i)
		p, err := newDiscProblem(ctx, m, db, o.NE, learn, o.MaxArity)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		p.frozen, p.schedules = o.frozen, o.bpSchedules
		probs = append(probs, p)
	}
	nf := len(m.Formulas)
	open := make([]float64, nf)
	data := make([]float64, nf)
	for _, p := range probs {
		for j := range nf {
			open[j] += p.open[j]
			data[j] += p.data[j]
		}
	}
	rng := rand.New(rand.NewPCG(o.Seed, 0x64697363))
	inv := 0.0
	if o.PriorStdDev > 0 {
		inv = 1 / (o.PriorStdDev * o.PriorStdDev)
	}
	// gradient at w: data − E[n] − prior; samples of n for the Hessian.
	// check: from fresh chains started at the query atoms all false (the
	// convergence check), not the kept ones.
	eval := func(w []float64, check bool) ([]float64, momentSet, error) {
		var mo momentSet
		for _, p := range probs {
			mp := &moments{logZ: math.NaN()}
			if err := p.expect(ctx, w, o, rng, mp, check); err != nil {
				return nil, nil, err
			}
			mo = append(mo, mp)
		}
		g := make([]float64, nf)
		for _, j := range learn {
			g[j] = data[j] - mo.mean(j) - inv*(w[j]-o.PriorMean)
		}
		return g, mo, nil
	}
	res := &Result{}
	// partial returns the weights so far when ctx ends learning (Ctrl-C),
	// marked Interrupted
	partial := func(err error) (*Result, error) {
		if ctx.Err() == nil {
			return nil, err
		}
		res.Weights, res.Interrupted = w, true
		res.Status = fmt.Sprintf("interrupted after %d iterations: the weights so far", res.Iterations)
		if plls != "" {
			res.Status += "; " + plls
		}
		res.Objective, res.LogLik = math.NaN(), math.NaN()
		res.Seconds = time.Since(start).Seconds()
		return res, nil
	}
	// auto: BP's counts where BP converges on every training database at
	// the starting weights (deterministic, and the approximation lifted
	// infer answers with), else MC-SAT's
	auto := o.Counts == "auto"
	why := ""
	if auto {
		o.Counts = "bp"
	}
	g, mo, err := eval(w, false)
	if err != nil {
		return partial(err)
	}
	res.Evaluations = 1
	if auto {
		var bad []string
		for i, m := range mo {
			if m.bp && !m.bpConverged {
				bad = append(bad, dbName(names, i))
			}
		}
		if len(bad) == 0 {
			why = "BP converged on every training database at the starting weights"
		} else {
			why = fmt.Sprintf("BP did not converge at the starting weights on %s", strings.Join(bad, ", "))
			o.Counts = "mcsat"
			for _, p := range probs {
				p.bpGraph, p.bpInit, p.bpRuns, p.bpUnconverged = nil, nil, 0, 0
			}
			if g, mo, err = eval(w, false); err != nil {
				return partial(err)
			}
			res.Evaluations++
		}
	}
	sampled := false
	for _, m := range mo {
		sampled = sampled || !m.exact
	}
	res.Counts = o.Counts
	switch {
	case !sampled && o.Counts == "mcsat", !sampled && mo.bpUnconverged() == 0 && !anyBP(mo):
		res.Counts = "exact"
	}
	if o.MaxIter == 0 {
		o.MaxIter = 5
		if !sampled {
			o.MaxIter = 100
		}
	}
	lambda := o.Lambda
	stepTolSet := opt.StepTol > 0
	// converged applies the convergence test at gradient g with moments
	// mo; worst is the test's figure for the weight furthest from passing
	// it: with deterministic counts the remaining change in standard
	// errors |g_j|/√H_jj (ZTol; BP must be at a fixed point too), with
	// sampled ones the Newton step (StepTol, or the gradient within two
	// standard errors of 0).
	converged := func(g []float64, mo momentSet) (bool, float64) {
		worst, ok := 0.0, true
		for _, j := range learn {
			if math.Abs(g[j])/max(open[j], 1) < o.GradTol {
				continue
			}
			h := max(mo.variance(j)+inv, 1e-6)
			step := math.Abs(g[j]) / h
			if !sampled {
				z := math.Abs(g[j]) / math.Sqrt(h)
				if z > o.ZTol || (stepTolSet && step >= o.StepTol) {
					ok = false
				}
				worst = max(worst, z)
				continue
			}
			if step < o.StepTol || math.Abs(g[j]) <= 2*math.Sqrt(mo.meanVariance(j)) {
				continue
			}
			ok = false
			worst = max(worst, step)
		}
		return ok && mo.bpUnconverged() == 0, worst
	}
	// objective is the training objective at w with moments mo: Σ_j
	// w_j·(n_j(data) − open_j) − Σ log Z(w | x) + log prior (up to a
	// constant): the conditional log-likelihood of the data (log Z exact
	// or Bethe's); NaN with sampled counts
	objective := func(w []float64, mo momentSet) float64 {
		f := -mo.logZ()
		for _, j := range learn {
			f += w[j]*(data[j]-open[j]) - 0.5*inv*(w[j]-o.PriorMean)*(w[j]-o.PriorMean)
		}
		return f
	}
	fcur := objective(w, mo)
	// confirm calibrates the convergence test where the counts are
	// sampled: the kept chains started at the data, and a chain that does
	// not move gives the data's own counts, a gradient of about zero that
	// the test would take for convergence. So the test must pass again on
	// the gradient from fresh chains started elsewhere (every query atom
	// false), BurnIn steps discarded; converged only if it does.
	checks, failed := 0, 0
	confirm := func() (bool, error) {
		if ok, _ := converged(g, mo); !ok {
			return false, nil
		}
		if !sampled {
			return true, nil
		}
		checks++
		cg, cmo, err := eval(w, true)
		if err != nil {
			return false, err
		}
		res.Evaluations++
		ok, _ := converged(cg, cmo)
		if !ok {
			failed++
		}
		return ok, nil
	}
	res.Status = "iteration limit"
	lbfgsNote := ""
	if o.Method == "lbfgs" {
		if sampled {
			// L-BFGS's line search needs the objective: diagonal Newton
			// on sampled counts
			o.Method = "dn"
			lbfgsNote = "; diagonal Newton (L-BFGS needs deterministic counts)"
		} else {
			var err error
			w, g, mo, fcur, lbfgsNote, err = discLBFGS(ctx, o, learn, w, mo, eval, objective, converged, res)
			if err != nil {
				return partial(err)
			}
			if !res.Converged && res.Iterations < o.MaxIter {
				lbfgsNote += fmt.Sprintf("; then diagonal Newton from there")
				o.Method = "dn"
			}
		}
	}
	var tail [][]float64 // the weights after each iteration of the last half
	var all []float64    // vp: the sum of the iterates
	var prevG, prevD []float64
	conj := 0 // scg: the iterations that took a conjugate direction
	for it := res.Iterations + 1; it <= o.MaxIter && !res.Converged; it++ {
		ok, err := confirm()
		if err != nil {
			return partial(err)
		}
		if ok {
			res.Status, res.Converged = "converged", true
			break
		}
		if err := ctx.Err(); err != nil {
			return partial(err)
		}
		res.Iterations = it
		step := make([]float64, nf)
		ss, pred := 0.0, 0.0
		d := make([]float64, nf)
		if o.Method == "vp" {
			// voted perceptron: a fixed step along the gradient
			for _, j := range learn {
				step[j] = max(-o.MaxStep, min(o.MaxStep, o.LearningRate*g[j]))
			}
		} else {
			dg, dd := 0.0, 0.0
			for _, j := range learn {
				d[j] = g[j] / max(mo.variance(j)+inv, 1e-6)
			}
			if o.Method == "scg" && prevG != nil {
				// Polak–Ribière, preconditioned by the inverse diagonal
				// Hessian (Lowd and Domingos 2007; Alchemy's
				// discriminativelearner.h); β < 0 or a direction that
				// does not ascend restarts from the preconditioned gradient
				num, den := 0.0, 0.0
				for _, j := range learn {
					pj := 1 / max(mo.variance(j)+inv, 1e-6)
					num += g[j] * pj * (g[j] - prevG[j])
					den += prevG[j] * pj * prevG[j]
				}
				if beta := num / den; den > 0 && beta > 0 {
					cd := slices.Clone(d)
					for _, j := range learn {
						cd[j] += beta * prevD[j]
					}
					if dotv(cd, g) > 0 {
						d = cd
						conj++
					}
				}
			}
			for _, j := range learn {
				dg += d[j] * g[j]
				dd += d[j] * d[j]
			}
			dHd := mo.varianceAlong(d) + inv*dd
			alpha := 0.0
			if dd > 0 {
				alpha = dg / (dHd + lambda*dd)
			}
			for _, j := range learn {
				step[j] = max(-o.MaxStep, min(o.MaxStep, alpha*d[j]))
			}
		}
		for _, j := range learn {
			ss += step[j] * step[j]
		}
		// the improvement the quadratic model predicts for the step
		pred = dotv(step, g) - 0.5*(mo.varianceAlong(step)+inv*ss)
		nw := slices.Clone(w)
		for _, j := range learn {
			nw[j] += step[j]
		}
		ng, nmo, err := eval(nw, false)
		if err != nil {
			return partial(err)
		}
		res.Evaluations++
		// the improvement, estimated from the gradients by the trapezoid
		// rule (also where the objective is known: near the optimum the
		// change of Bethe's log Z is below BP's own tolerance)
		fnew := objective(nw, nmo)
		act := 0.0
		for _, j := range learn {
			act += step[j] * (g[j] + ng[j]) / 2
		}
		switch {
		case o.Method == "vp":
			w, g, mo, fcur = nw, ng, nmo, fnew // the perceptron takes every step
		case act < 0:
			lambda *= 4 // overshoot: undo the step
			prevG, prevD = nil, nil
		default:
			switch r := act / pred; {
			case r > 0.75:
				lambda /= 2
			case r < 0.25:
				lambda *= 4
			}
			prevG, prevD = g, d
			w, g, mo, fcur = nw, ng, nmo, fnew
		}
		lambda = min(max(lambda, 1e-8), 1e8)
		if it > o.MaxIter/2 {
			tail = append(tail, slices.Clone(w))
		}
		if all == nil {
			all = make([]float64, nf)
		}
		for j := range nf {
			all[j] += w[j]
		}
		if o.Progress != nil {
			ok, worst := converged(g, mo)
			tol := o.StepTol
			if !sampled {
				tol = o.ZTol
			}
			if ok {
				worst = 0
			}
			o.Progress(DiscProgress{Iter: it, MaxIter: o.MaxIter, Counts: res.Counts, Method: o.Method, Worst: worst, Tol: tol, Objective: fcur})
		}
	}
	if !res.Converged && res.Iterations == o.MaxIter && o.MaxIter > 0 {
		// the test at the last iterate
		ok, err := confirm()
		if err != nil {
			return partial(err)
		}
		if ok {
			res.Status, res.Converged = "converged", true
		}
	}
	res.Weights = w
	switch {
	case res.Converged:
	case o.Method == "vp" && res.Iterations > 0:
		// the voted perceptron's answer: the mean of its iterates
		avg := slices.Clone(w)
		for _, j := range learn {
			avg[j] = all[j] / float64(res.Iterations)
		}
		res.Weights = avg
		res.Status += fmt.Sprintf(", weights averaged over the %d iterations (voted perceptron)", res.Iterations)
	case sampled && len(tail) > 1:
		// Polyak–Ruppert: the mean of the iterates of the last half
		// averages out the Monte Carlo noise of the steps
		avg := make([]float64, nf)
		copy(avg, w)
		for _, j := range learn {
			avg[j] = 0
			for _, tw := range tail {
				avg[j] += tw[j]
			}
			avg[j] /= float64(len(tail))
		}
		res.Weights = avg
		res.Status += fmt.Sprintf(", weights averaged over the last %d iterations", len(tail))
	}
	res.Status += lbfgsNote
	if o.Method == "scg" {
		res.Status += fmt.Sprintf("; %d of %d directions conjugate (the others the preconditioned gradient: first, after an undone step, or Polak–Ribière's β ≤ 0)", conj, res.Iterations)
	}
	if sampled {
		switch {
		case res.Converged:
			res.Status += fmt.Sprintf(" (the test passed on the kept chains and on fresh chains started with every query atom false; %d of %d such checks failed before)", failed, checks)
		case checks > 0:
			res.Status += fmt.Sprintf("; the test passed on the kept chains %d times, but not on fresh chains started with every query atom false", failed)
		}
	}
	if res.Counts == "exact" {
		res.Status += fmt.Sprintf("; exact counts (every database's network enumerated: at most %d variables)", o.ExactVars)
	} else if o.Counts == "bp" {
		runs, unc := 0, 0
		for _, p := range probs {
			runs, unc = runs+p.bpRuns, unc+p.bpUnconverged
		}
		res.Status += fmt.Sprintf("; BP counts: %d BP runs, %d of them not converged (damping 0.9, messages averaged over the last 100 iterations)", runs, unc)
	}
	res.Objective, res.LogLik = math.NaN(), math.NaN()
	if !sampled {
		_, worst := converged(g, mo)
		res.Status += fmt.Sprintf("; test: largest predicted remaining change of a weight %.3g of its standard error (converged at ≤ %g)", worst, o.ZTol)
		if res.Converged || o.Method != "vp" { // vp's answer is the mean of its iterates
			res.Objective = fcur
			prior := 0.0
			for _, j := range learn {
				prior += 0.5 * inv * (w[j] - o.PriorMean) * (w[j] - o.PriorMean)
			}
			res.LogLik = fcur + prior
		}
		if res.Counts == "bp" {
			res.Status += fmt.Sprintf("; training conditional log-likelihood (Bethe) %.6g", res.LogLik)
		} else {
			res.Status += fmt.Sprintf("; training conditional log-likelihood %.6g", res.LogLik)
		}
	}
	if auto && res.Counts != "exact" {
		res.Status += fmt.Sprintf("; counts %s (auto: %s)", countsName(res.Counts), why)
	}
	if plls != "" {
		res.Status += "; " + plls
	}
	res.Seconds = time.Since(start).Seconds()
	return res, nil
}

// countsName is the counts' name in words.
func countsName(c string) string {
	switch c {
	case "bp":
		return "BP"
	case "mcsat":
		return "MC-SAT"
	}
	return c
}

// dbName is the name of database i for messages.
func dbName(names []string, i int) string {
	if i < len(names) {
		return names[i]
	}
	return fmt.Sprintf("database %d", i+1)
}

// anyBP reports whether a database's counts came from BP.
func anyBP(mo momentSet) bool {
	for _, m := range mo {
		if m.bp {
			return true
		}
	}
	return false
}

// queryFormulas returns the formulas of js that mention a predicate of ne.
func queryFormulas(m *mln.MLN, js []int, ne []string) []int {
	var out []int
	for _, j := range js {
		found := false
		mln.Inspect(m.Formulas[j].Expr, func(e mln.Expr) bool {
			if a, ok := e.(*mln.Atom); ok && slices.Contains(ne, a.Pred) {
				found = true
			}
			return !found
		})
		if found {
			out = append(out, j)
		}
	}
	return out
}

// momentSet holds the moments of the count vectors of several databases,
// which are independent: the moments of their sum are the sums.
type momentSet []*moments

func (ms momentSet) mean(j int) float64 {
	s := 0.0
	for _, m := range ms {
		s += m.mean(j)
	}
	return s
}

func (ms momentSet) variance(j int) float64 {
	s := 0.0
	for _, m := range ms {
		s += m.variance(j)
	}
	return s
}

// meanVariance estimates the variance of the mean of counts j, summed
// over the databases: by batch means (the samples in consecutive batches,
// the variance of the batch means over their number), which takes in the
// chain's autocorrelation up to the batch length; 0 for exact moments.
func (ms momentSet) meanVariance(j int) float64 {
	s := 0.0
	for _, m := range ms {
		if m.exact {
			continue
		}
		n := len(m.n)
		nb := 5
		if n < 2*nb {
			s += m.variance(j) / float64(max(n, 1))
			continue
		}
		bl := n / nb
		mu := m.mean(j)
		v := 0.0
		for b := range nb {
			bm := 0.0
			for i := b * bl; i < (b+1)*bl; i++ {
				bm += m.n[i][j]
			}
			bm /= float64(bl)
			v += (bm - mu) * (bm - mu)
		}
		s += v / float64(nb-1) / float64(nb)
	}
	return s
}

// logZ is the sum of the databases' log Z (NaN where one is not known).
func (ms momentSet) logZ() float64 {
	s := 0.0
	for _, m := range ms {
		s += m.logZ
	}
	return s
}

// bpUnconverged counts the databases whose BP counts are not at a fixed
// point.
func (ms momentSet) bpUnconverged() int {
	n := 0
	for _, m := range ms {
		if m.bp && !m.bpConverged {
			n++
		}
	}
	return n
}

func (ms momentSet) varianceAlong(d []float64) float64 {
	s := 0.0
	for _, m := range ms {
		s += m.varianceAlong(d)
	}
	return s
}

// moments accumulates count vectors (weighted samples) for their means,
// variances and the variance along a direction.
type moments struct {
	exact bool // the worlds with their probabilities, not samples
	// diag: the moments are mu and v (BP's counts), the formulas' counts
	// taken as uncorrelated; no samples
	diag  bool
	mu, v []float64
	wsum  float64
	ws    []float64   // weight per sample
	n     [][]float64 // count vector per sample
	// logZ is log Z of the reweighted network: exact (enumeration), BP's
	// Bethe estimate at a fixed point, or NaN (samples; BP that did not
	// converge). bp: the moments are BP's; bpConverged: at a fixed point.
	logZ            float64
	bp, bpConverged bool
}

// add adds a sample with weight wt.
func (mo *moments) add(wt float64, n []float64) {
	mo.wsum += wt
	mo.ws = append(mo.ws, wt)
	mo.n = append(mo.n, n)
}

func (mo *moments) mean(j int) float64 {
	if mo.diag {
		return mo.mu[j]
	}
	s := 0.0
	for i, n := range mo.n {
		s += mo.ws[i] * n[j]
	}
	return s / mo.wsum
}

func (mo *moments) variance(j int) float64 {
	if mo.diag {
		return mo.v[j]
	}
	mu := mo.mean(j)
	s := 0.0
	for i, n := range mo.n {
		s += mo.ws[i] * (n[j] - mu) * (n[j] - mu)
	}
	return s / mo.wsum
}

// varianceAlong returns the variance of d·n.
func (mo *moments) varianceAlong(d []float64) float64 {
	if mo.diag {
		s := 0.0
		for j, dj := range d {
			s += dj * dj * mo.v[j]
		}
		return s
	}
	mu, s := 0.0, 0.0
	for i, n := range mo.n {
		mu += mo.ws[i] * dotv(d, n)
	}
	mu /= mo.wsum
	for i, n := range mo.n {
		x := dotv(d, n) - mu
		s += mo.ws[i] * x * x
	}
	return s / mo.wsum
}

func dotv(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

// discProblem is one training database ready for discriminative learning:
// the counting network (every learned weight 1), its ground formulas by
// formula, and the counts of the data.
type discProblem struct {
	db    *mln.DB // the training data (closed world)
	ev    *mln.DB // the evidence: the data without the non-evidence atoms
	ne    []string
	count *ground.Grounding
	// table factors of learned formulas in the counting network: a ground
	// formula is true where its table (weight 1) has its largest entry 1
	tabFactor []int32
	tabForm   []int32
	// ground formulas with an auxiliary variable: evaluated by formula
	starForm []int32
	starBind [][]int32
	forms    map[int]*ground.Eval
	open     []float64 // per formula: ground formulas the evidence leaves open
	data     []float64 // per formula: of those, the ones true in the data
	// the training data's value of every atom variable of count
	truth []int32

	// The sampling network is the counting network with the tables of
	// learned formulas reweighted (see reweight): tag[t] is the learned
	// formula whose weight table t carries (its entries are 0, 1 and
	// e^{-cw[j]}), or -1; logBase[t] is log of table t's entries divided
	// by cw[j] (−Inf for 0).
	cw      []float64
	tag     []int32
	logBase [][]float64
	sg      fg.Graph
	bk      *gibbs.Blocking
	state   []int32 // the chain's world, kept across iterations (warm start)
	// Counts "bp": the ground network (trivially compressed) and the last
	// converged BP run's messages (a warm start); BP runs and those that
	// did not converge
	bpGraph               *lift.Compressed
	bpInit                []float64
	bpRuns, bpUnconverged int
	frozen                bool         // tests: the chains make no moves (a chain that never mixes)
	schedules             []bp.Options // tests: BP's schedules (nil: bpSchedules)

	// incremental counts: tabOf[f] is factor f's index in tabFactor or -1;
	// tabTrue the truth of each; tabCount the counts of those over
	// tabFactor at the world prev (atom variables only).
	tabOf    []int32
	tabTrue  []bool
	tabCount []float64
	prev     []int32
	stamp    []uint32
	tstep    uint32
	edgeFac  []int32 // the factor of every edge of the counting network
	touched  []int32
}

// WithoutPredicates returns a copy of db in which the atoms of the named
// predicates are unknown ("?P(A)"; the domains keep every constant, in the
// same order): the evidence of a discriminative task whose data db is.
func WithoutPredicates(m *mln.MLN, db *mln.DB, preds []string) (*mln.DB, error) {
	isNE := make([]bool, len(m.Preds))
	for _, n := range preds {
		p := m.PredIndex(n)
		if p < 0 {
			return nil, fmt.Errorf("unknown predicate %q", n)
		}
		isNE[p] = true
	}
	ev := mln.NewDB(m)
	args := []string{}
	for _, a := range db.Atoms {
		d := m.Preds[a.Pred]
		args = args[:0]
		for p, c := range a.Args {
			args = append(args, db.Domain(m.Types[d.TypeIdx[p]].Name)[c])
		}
		t := a.Truth
		if isNE[a.Pred] {
			t = mln.Unknown // keeps the constant in the domain, in order
		}
		if err := ev.AddAtom(d.Name, args, t); err != nil {
			return nil, err
		}
	}
	return ev, nil
}

// newDiscProblem builds the evidence database and the counting network.
func newDiscProblem(ctx context.Context, m *mln.MLN, db *mln.DB, ne []string, learn []int, maxArity int) (*discProblem, error) {
	ev, err := WithoutPredicates(m, db, ne)
	if err != nil {
		return nil, err
	}
	p := &discProblem{db: db, ev: ev, ne: ne, forms: map[int]*ground.Eval{}}
	saved := saveWeights(m)
	defer restoreWeights(m, saved)
	p.cw = make([]float64, len(m.Formulas))
	for _, j := range learnable(m) {
		// a soft formula not learned mentions no query predicate: constant
		// given the evidence, weight 0 leaves it out of the network
		m.Formulas[j].Weight, m.Formulas[j].HasWeight = 0, true
	}
	for r, j := range learn {
		// distinct weights, so that a table tells its formula (reweight)
		p.cw[j] = 1 + float64(r+1)*1e-4*math.Pi/3
		m.Formulas[j].Weight, m.Formulas[j].HasWeight = p.cw[j], true
	}
	type rec struct {
		fi     int
		bind   []int32
		factor int32
	}
	var recs []rec
	r := &ground.Restriction{OnFactor: func(fi int, _ []int, b []int32, factor int32) {
		recs = append(recs, rec{fi, slices.Clone(b), factor})
	}}
	// ExactMax: an auxiliary variable is a function of the atoms, its
	// tables 0/1 but for one that carries the weight, so that raising the
	// weight-carrying entries to a power reweights the formula exactly.
	gr, err := ground.Ground(ctx, m, ev, ground.Options{Query: ne, MaxGround: -1, Restrict: r, ExactMax: true, MaxArity: maxArity})
	if err != nil {
		return nil, err
	}
	p.count = gr
	isLearned := make([]bool, len(m.Formulas))
	for _, j := range learn {
		isLearned[j] = true
	}
	p.open = make([]float64, len(m.Formulas))
	dom := ground.Domains(m, ev)
	for _, rc := range recs {
		j := gr.CompiledFormula(rc.fi)
		if j < 0 || !isLearned[j] {
			continue
		}
		p.open[j]++
		if rc.factor >= 0 {
			p.tabFactor = append(p.tabFactor, rc.factor)
			p.tabForm = append(p.tabForm, int32(j))
			continue
		}
		if p.forms[j] == nil {
			f, err := ground.Compile(m, dom, j, ground.CompileOptions{})
			if err != nil {
				return nil, err
			}
			p.forms[j] = f.NewEval()
		}
		p.starForm = append(p.starForm, int32(j))
		p.starBind = append(p.starBind, rc.bind)
	}
	p.truth = make([]int32, gr.Graph.NumVars())
	iargs := []int{}
	for v := range gr.NumAtoms {
		pred, a, _ := gr.Atom(int32(v))
		iargs = append(iargs[:0], a...)
		if t, ok := db.Lookup(pred, iargs); ok && t == mln.True {
			p.truth[v] = 1
		}
	}
	p.data = p.counts(p.truth, make([]float64, len(m.Formulas)))
	if err := p.prepareSampling(m, learn); err != nil {
		return nil, err
	}
	return p, nil
}

// prepareSampling tags the counting network's tables by the learned
// formula whose weight they carry and sets up the sampling network and the
// incremental counts.
func (p *discProblem) prepareSampling(m *mln.MLN, learn []int) error {
	g := p.count.Graph
	p.tag = make([]int32, len(g.Tables))
	p.logBase = make([][]float64, len(g.Tables))
	for t := range g.Tables {
		p.tag[t] = -1
		vals := g.Tables[t].Values
		c := math.NaN()
		for _, v := range vals {
			if v == 0 || v == 1 {
				continue
			}
			l := -math.Log(v)
			if !math.IsNaN(c) && math.Abs(l-c) > 1e-9 {
				c = math.Inf(1) // several levels: not a learned formula's table
				break
			}
			c = l
		}
		if math.IsNaN(c) || math.IsInf(c, 1) {
			continue
		}
		for _, j := range learn {
			if math.Abs(p.cw[j]-c) < 1e-9 {
				p.tag[t] = int32(j)
				lb := make([]float64, len(vals))
				for i, v := range vals {
					lb[i] = math.Log(v) / p.cw[j]
				}
				p.logBase[t] = lb
				break
			}
		}
	}
	// every table factor of a learned formula must be tagged by it, and
	// no table factor of another formula
	p.tabOf = make([]int32, g.NumFactors())
	for f := range p.tabOf {
		p.tabOf[f] = -1
	}
	for i, f := range p.tabFactor {
		p.tabOf[f] = int32(i)
		if t := g.FactorTable[f]; p.tag[t] != p.tabForm[i] {
			return fmt.Errorf("discriminative learning: cannot reweight the ground factor %d of formula %d (table of formula %d)", f, p.tabForm[i]+1, p.tag[t]+1)
		}
	}
	learned := make([]bool, len(m.Formulas))
	for _, j := range learn {
		learned[j] = true
	}
	p.sg = *g
	p.sg.Tables = slices.Clone(g.Tables)
	for f := range g.NumFactors() {
		if p.tabOf[f] < 0 {
			if t := g.FactorTable[f]; p.tag[t] >= 0 && len(g.Scope(f)) > 0 && !p.auxFactor(f) {
				// a plain factor of a formula not learned whose table
				// happens to look like a learned formula's
				return fmt.Errorf("discriminative learning: ground factor %d has a learned formula's table but is not one of its ground formulas", f)
			}
		}
	}
	for t, lb := range p.logBase {
		if lb != nil {
			p.sg.Tables[t] = fg.Table{Dims: g.Tables[t].Dims, Values: make([]float64, len(lb))}
		}
	}
	p.tabTrue = make([]bool, len(p.tabFactor))
	p.tabCount = make([]float64, len(m.Formulas))
	p.stamp = make([]uint32, g.NumFactors())
	p.edgeFac = g.EdgeFactors()
	return nil
}

// auxFactor reports whether factor f holds an auxiliary variable (one of a
// large ground formula's).
func (p *discProblem) auxFactor(f int) bool {
	for _, v := range p.count.Graph.Scope(f) {
		if int(v) >= p.count.NumAtoms {
			return true
		}
	}
	return false
}

// reweight sets the sampling network's learned tables for the weights w:
// an entry e^{-c_j·k} of the counting network (c_j the counting weight of
// formula j) becomes e^{-w_j·k}, a 0 stays 0. A ground formula of weight
// c_j has entries 1 where true and e^{-c_j} where false (auxiliary
// variables' tables are 0/1 but for the one carrying the weight), so the
// result is the ground formula at weight w_j, whatever its sign.
func (p *discProblem) reweight(w []float64) {
	for t, lb := range p.logBase {
		if lb == nil {
			continue
		}
		wj := w[p.tag[t]]
		vals := p.sg.Tables[t].Values
		for i, l := range lb {
			if math.IsInf(l, -1) {
				vals[i] = 0
			} else {
				vals[i] = math.Exp(l * wj)
			}
		}
	}
}

// tabTruth reports whether table factor i of tabFactor is true in x.
func (p *discProblem) tabTruth(i int, x []int32) bool {
	g := p.count.Graph
	f := int(p.tabFactor[i])
	t := g.Table(f)
	idx, stride := 0, 1
	sc := g.Scope(f)
	for q := len(sc) - 1; q >= 0; q-- {
		idx += int(x[sc[q]]) * stride
		stride *= int(t.Dims[q])
	}
	return t.Values[idx] == 1
}

// countsInc writes into out the counts of x like counts, updating the
// table part from the previous call's world through the factors of the
// atoms that changed (the first call counts every factor).
func (p *discProblem) countsInc(x []int32, out []float64) []float64 {
	g := p.count.Graph
	na := p.count.NumAtoms
	if p.prev == nil {
		p.prev = slices.Clone(x[:na])
		clear(p.tabCount)
		for i := range p.tabFactor {
			p.tabTrue[i] = p.tabTruth(i, x)
			if p.tabTrue[i] {
				p.tabCount[p.tabForm[i]]++
			}
		}
	} else {
		p.tstep++
		if p.tstep == 0 {
			clear(p.stamp)
			p.tstep = 1
		}
		p.touched = p.touched[:0]
		for v := range na {
			if x[v] == p.prev[v] {
				continue
			}
			p.prev[v] = x[v]
			for e := g.VarStart[v]; e < g.VarStart[v+1]; e++ {
				f := p.edgeFac[g.VarEdges[e]]
				if i := p.tabOf[f]; i >= 0 && p.stamp[f] != p.tstep {
					p.stamp[f] = p.tstep
					p.touched = append(p.touched, i)
				}
			}
		}
		for _, i := range p.touched {
			if t := p.tabTruth(int(i), x); t != p.tabTrue[i] {
				p.tabTrue[i] = t
				if t {
					p.tabCount[p.tabForm[i]]++
				} else {
					p.tabCount[p.tabForm[i]]--
				}
			}
		}
	}
	copy(out, p.tabCount)
	p.starCounts(x, out)
	return out
}

func saveWeights(m *mln.MLN) [][2]float64 {
	s := make([][2]float64, len(m.Formulas))
	for j, f := range m.Formulas {
		h := 0.0
		if f.HasWeight {
			h = 1
		}
		s[j] = [2]float64{f.Weight, h}
	}
	return s
}

func restoreWeights(m *mln.MLN, s [][2]float64) {
	for j, f := range m.Formulas {
		f.Weight, f.HasWeight = s[j][0], s[j][1] == 1
	}
}

// counts writes into out (zeroed first) the number of true ground formulas
// of every learned formula among those the evidence leaves open, in the
// world x of the counting network's atom variables.
func (p *discProblem) counts(x []int32, out []float64) []float64 {
	clear(out)
	g := p.count.Graph
	for i, f := range p.tabFactor {
		t := g.Table(int(f))
		idx, stride := 0, 1
		sc := g.Scope(int(f))
		for q := len(sc) - 1; q >= 0; q-- {
			idx += int(x[sc[q]]) * stride
			stride *= int(t.Dims[q])
		}
		if t.Values[idx] == 1 {
			out[p.tabForm[i]]++
		}
	}
	p.starCounts(x, out)
	return out
}

// starCounts adds to out the true ground formulas with an auxiliary
// variable in the world x (evaluated from the atoms).
func (p *discProblem) starCounts(x []int32, out []float64) {
	if len(p.starForm) == 0 {
		return
	}
	iargs := []int{}
	truth := func(pred int, args []int32) bool {
		iargs = iargs[:0]
		for _, a := range args {
			iargs = append(iargs, int(a))
		}
		v, t := p.count.Var(pred, iargs)
		if v >= 0 {
			return x[v] == 1
		}
		return t == mln.True
	}
	for i, j := range p.starForm {
		if p.forms[int(j)].Truth(p.starBind[i], truth) {
			out[j]++
		}
	}
}

// expect adds to mo the count vectors of samples of the non-evidence atoms
// given the evidence under weights w (MC-SAT on the reweighted counting
// network), or every world with its probability when the network is small.
// The chain's world is kept: the next call starts from it (a warm start,
// as Alchemy's learner does), with o.WarmBurnIn steps discarded instead of
// o.BurnIn.
//
// With check, the samples come from a fresh chain started with every
// query atom false (auxiliary variables made consistent by StartAt), after
// o.BurnIn steps, and the kept chain is left as it was: the convergence
// check of Discriminative.
func (p *discProblem) expect(ctx context.Context, w []float64, o DiscOptions, rng *rand.Rand, mo *moments, check bool) error {
	p.reweight(w)
	g := &p.sg
	nv := g.NumVars()
	nf := len(p.cw)
	if o.ExactVars > 0 && nv <= o.ExactVars {
		return p.enumerate(g, nf, mo)
	}
	if o.Counts == "bp" {
		return p.expectBP(ctx, g, nf, mo)
	}
	burn := o.WarmBurnIn
	state := p.state
	if check {
		state = make([]int32, nv) // every query atom false
		if err := gibbs.StartAt(g, nil, state, rng); err != nil {
			return err
		}
		burn = o.BurnIn
	} else if p.state == nil {
		p.state = make([]int32, nv)
		start := gibbs.StartAtContext
		if o.RandomStart {
			start = gibbs.StartContext
		} else {
			copy(p.state, p.truth) // the training world (auxiliary variables made consistent by StartAt)
		}
		if err := start(ctx, g, nil, p.state, rng); err != nil {
			return err
		}
		if !o.NoBlocks {
			bk, err := gibbs.NewBlocking(g, nil, 1, 1)
			if err == nil {
				p.bk = bk
			}
		}
		burn = o.BurnIn
		state = p.state
	}
	ch, err := gibbs.NewChain(g, nil, state)
	if err != nil {
		return err
	}
	p.prev = nil // recount in full at the first sample
	for i := range burn + o.Samples {
		if i&15 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if !p.frozen {
			ch.MCSATBlocks(rng, 1, 0.1, p.bk)
		}
		if i >= burn {
			mo.add(1, p.countsInc(ch.State(), make([]float64, nf)))
		}
	}
	return nil
}

// enumerate adds every world of g with its probability.
func (p *discProblem) enumerate(g *fg.Graph, nf int, mo *moments) error {
	nv := g.NumVars()
	s := make([]int32, nv)
	var ws []float64
	var ns [][]float64
	mx := math.Inf(-1)
	for {
		lw := 0.0
		for f := range g.NumFactors() {
			t := g.Table(f)
			idx, stride := 0, 1
			sc := g.Scope(f)
			for q := len(sc) - 1; q >= 0; q-- {
				idx += int(s[sc[q]]) * stride
				stride *= int(t.Dims[q])
			}
			lw += math.Log(t.Values[idx])
		}
		if !math.IsInf(lw, -1) {
			ws = append(ws, lw)
			mx = max(mx, lw)
			ns = append(ns, p.counts(s, make([]float64, nf)))
		}
		v := nv - 1
		for ; v >= 0; v-- {
			s[v]++
			if s[v] < g.Card[v] {
				break
			}
			s[v] = 0
		}
		if v < 0 {
			break
		}
	}
	if len(ws) == 0 {
		return fg.ErrContradiction
	}
	for i := range ws {
		mo.add(math.Exp(ws[i]-mx), ns[i])
	}
	mo.exact = true
	mo.logZ = mx + math.Log(mo.wsum)
	return nil
}

// DiscFiles reads one training database per path (each its own mega-
// example), expands m's types over them, and runs Discriminative: what
// "lifted learn --method dn" does. It returns the expanded MLN, whose
// formulas the weights are for.
func DiscFiles(ctx context.Context, m *mln.MLN, train []string, opt DiscOptions) (*mln.MLN, *Result, error) {
	sets := make([][]string, len(train))
	for i, path := range train {
		sets[i] = []string{path}
	}
	m, dbs, err := mln.ExpandForData(m, mlnfile.ReadDBSets(sets))
	if err != nil {
		return nil, nil, err
	}
	res, err := Discriminative(ctx, m, dbs, train, opt)
	return m, res, err
}
