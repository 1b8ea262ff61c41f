package bp

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/infer"
	"github.com/lifted-dev/lifted/lift"
)

// SampleOptions configure SampleError.
type SampleOptions struct {
	// Damping, Tol and MaxIter are those of the local ground BP runs
	// (the damping of the BP whose answer is checked; defaults 1e-6 and
	// 2000: the errors that matter are 1e-3 and up).
	Damping float64
	Tol     float64
	MaxIter int
	// Radius is the number of factor hops (through unobserved
	// variables) around a sampled atom whose factors the local run keeps
	// (default 3, at least 2).
	Radius int
	// MaxFactors caps the factors of one local graph: the radius shrinks
	// for an atom whose neighbourhood would be larger (default 4096).
	MaxFactors int
	// HalfWidth is the half-width the interval aims at: the sample size
	// is chosen from a pilot sample so that the final interval's
	// half-width is about this (it is reported as it comes out).
	HalfWidth float64
	// Confidence is the level of the interval (default 0.95).
	Confidence float64
	// Pilot is the size of the pilot sample (default 200) and MaxSample
	// the largest final sample (default 20000).
	Pilot, MaxSample int
	Seed             uint64
	// MaxWork, when positive, caps the work: where the planned local runs
	// times the pilot's mean local graph (in factors) exceed it,
	// SampleError stops after the pilot with ErrSampleCost.
	MaxWork float64
}

// ErrSampleCost reports a sampled estimate that would cost more than
// SampleOptions.MaxWork.
var ErrSampleCost = errors.New("bp: the sampled estimate would cost more than its budget")

// MaxRadiusRate is the largest rate ρ SampleError assumes for the growth
// of an atom's error with the radius of its neighbourhood.
const MaxRadiusRate = 0.9

// SampleEstimate is the outcome of SampleError.
type SampleEstimate struct {
	// Mean is the mean over the final sample of the per-atom error; Lo
	// and Hi the interval [Mean − HalfWidth, Mean + HalfWidth] clipped to
	// [0, 1] that covers the population mean (every unobserved atom's
	// error against local ground BP) with probability Confidence.
	Mean, Lo, Hi, HalfWidth, Confidence float64
	// Max is the largest error seen in either sample.
	Max float64
	// Sample is the size of the final sample (drawn with replacement),
	// Distinct the local runs made (pilot included), Unconverged the
	// local runs that did not converge (their error is taken from the
	// mean of their last iterations), Population the unobserved atoms.
	Sample, Distinct, Unconverged, Population int
	// Factors is the mean number of factors of a local graph.
	Factors float64
	// Local is the sample's mean error against local BP at the radius
	// itself, before the correction for the graph beyond it, and Rate
	// the rate ρ of that correction.
	Local, Rate float64
	// Census is set when the sample size reached the population: every
	// atom was run, Mean is the population mean and HalfWidth 0.
	Census bool
}

// Estimate returns the estimate as an infer.ErrorEstimate.
func (s SampleEstimate) Estimate() infer.ErrorEstimate {
	return infer.ErrorEstimate{Mean: s.Mean, Max: s.Max, OK: true, Sampled: true, Lo: s.Lo, Hi: s.Hi,
		Confidence: s.Confidence, Sample: s.Sample, Census: s.Census}
}

// SampleError implements infer.SampleEstimator with the algorithm's
// damping: it runs CheckError (the warm BP run on the exact compression
// exact, or on the ground graph where it is nil, the other starts and the
// basin runs of every atom, or of a sample where there are more than
// 20000), whose statement holds where SampleError's local runs alone do
// not (ground BP with several fixed points; bench/approx). halfWidth is
// the tolerance's half (infer's runApprox): the check stops as soon as it
// states more than 2·halfWidth (CheckOptions.Reject), and its warm run and
// other starts stop at a largest message change of a tenth of the
// tolerance (at least 1e-4; on UW-CSE the warm part at 1e-3 is within
// 1e-4 of that at 1e-4 in every setting, bench/approx).
func (a *Algorithm) SampleError(ctx context.Context, ans *infer.Answer, g *fg.Graph, ev fg.Evidence, exact *lift.Compressed, halfWidth float64, seed uint64) (infer.ErrorEstimate, error) {
	s, err := CheckError(ctx, ans, g, ev, CheckOptions{Damping: a.Damping, Seed: seed, Reject: 2 * halfWidth, Exact: exact, Tol: max(1e-4, 2*halfWidth/10)})
	if err != nil {
		return infer.ErrorEstimate{}, err
	}
	return s.Estimate(), nil
}

// SampleError estimates the mean error of the marginals of ans — lifted
// BP on an approximate compression of g (see EstimateError) — against
// ground BP on g with evidence ev, statistically. For a random sample of
// the unobserved atoms it runs ground BP on the atom's neighbourhood (the
// factors within opt.Radius factor hops, through unobserved variables),
// with the rest of the graph held at the lifted messages (each variable
// of the neighbourhood gets, as a fixed unary factor, the product of the
// lifted messages of its factors outside it), from the lifted messages
// and with the same damping until it converges, and takes d_R = |local
// marginal − lifted marginal| (the largest state difference) as the
// atom's local error. Ground BP beyond the radius moves the atom further:
// the error grows with the radius, on the models we measured
// geometrically, so each atom's error is extrapolated as
// d_R + |d_R − d_{R−1}|·ρ/(1−ρ), with the rate ρ (at most MaxRadiusRate)
// measured on the pilot sample as Σ|d_R − d_{R−1}| / Σ|d_{R−1} − d_{R−2}|.
//
// The interval runs from the lower end of the local errors' interval to
// the upper end of the extrapolated errors' one, each the empirical
// Bernstein bound (Maurer and Pontil, 2009) on the mean of values in
// [0, 1] at level (1 − Confidence)/2 per side: for the sampling it holds
// whatever the errors' distribution (a few atoms that change by nearly 1
// and many that do not), where a normal interval would not. The sample
// size comes from the pilot sample, whose atoms are not reused for the
// interval (an interval from the same draws would no longer hold at its
// level); where it reaches the number of atoms, every atom is run
// instead (Census: no sampling error). Mean is the extrapolated mean.
//
// This is a statistical estimate, not a bound: the extrapolation assumes
// the geometric growth, and where ground BP has several fixed points,
// global ground BP may settle on another than the one near the lifted
// messages; the calibration test (sample_test.go) measures how often the
// interval holds against ground BP run to convergence.
func SampleError(ctx context.Context, ans *infer.Answer, g *fg.Graph, ev fg.Evidence, opt SampleOptions) (SampleEstimate, error) {
	var est SampleEstimate
	if opt.Radius <= 0 {
		opt.Radius = 3
	}
	if opt.Radius < 2 {
		return est, fmt.Errorf("bp: SampleError needs a radius of 2 or more, got %d", opt.Radius)
	}
	if opt.MaxFactors <= 0 {
		opt.MaxFactors = 4096
	}
	if opt.Confidence <= 0 || opt.Confidence >= 1 {
		opt.Confidence = 0.95
	}
	if opt.Pilot <= 1 {
		opt.Pilot = 200
	}
	if opt.MaxSample <= 0 {
		opt.MaxSample = 20000
	}
	if opt.MaxIter <= 0 {
		opt.MaxIter = 2000
	}
	if opt.Tol <= 0 {
		opt.Tol = 1e-6
	}
	if !(opt.HalfWidth > 0) {
		return est, fmt.Errorf("bp: SampleError needs a positive half-width, got %v", opt.HalfWidth)
	}
	init, err := groundMessages(ans, g)
	if err != nil {
		return est, err
	}
	if err := g.CheckEvidence(ev); err != nil {
		return est, err
	}
	var atoms []int32
	for v := 0; v < g.NumVars(); v++ {
		if ev == nil || ev[v] < 0 {
			atoms = append(atoms, int32(v))
		}
	}
	est.Population, est.Confidence = len(atoms), opt.Confidence
	if len(atoms) == 0 {
		return est, nil
	}
	l := newLocal(g, ev, init, opt)
	R := opt.Radius
	type pair struct{ d, inc float64 } // error at radius R, |change from R−1|
	cache := map[int32]pair{}
	rng := rand.New(rand.NewPCG(opt.Seed, 0x5a3b1e))
	factors := 0
	run := func(v int32, radii []int) ([]float64, error) {
		ms, nf, conv, err := l.marginals(ctx, v, radii)
		if err != nil {
			return nil, err
		}
		factors += nf
		if !conv {
			est.Unconverged++
		}
		ds := make([]float64, len(ms))
		for i, m := range ms {
			ds[i] = maxDiff(m, ans.Marginal(int(v)))
		}
		d := ds[len(ds)-1]
		cache[v] = pair{d, math.Abs(d - ds[len(ds)-2])}
		est.Max = max(est.Max, d)
		return ds, nil
	}
	// The pilot: radii R−2, R−1 and R, for the rate ρ at which the
	// error grows with the radius.
	var num, den float64
	pilotAtoms := make([]int32, opt.Pilot)
	for i := range pilotAtoms {
		v := atoms[rng.IntN(len(atoms))]
		pilotAtoms[i] = v
		if _, ok := cache[v]; ok {
			continue
		}
		ds, err := run(v, []int{R - 2, R - 1, R})
		if err != nil {
			return est, err
		}
		num += math.Abs(ds[2] - ds[1])
		den += math.Abs(ds[1] - ds[0])
	}
	rho := 0.0
	if num > 0 {
		rho = MaxRadiusRate
		if den > 0 {
			rho = min(MaxRadiusRate, num/den)
		}
	}
	est.Rate = rho
	tail := rho / (1 - rho)
	value := func(p pair) float64 { return min(1, p.d+p.inc*tail) }
	errOf := func(v int32) (float64, error) {
		p, ok := cache[v]
		if !ok {
			if _, err := run(v, []int{R - 1, R}); err != nil {
				return 0, err
			}
			p = cache[v]
		}
		return value(p), nil
	}
	draw := func(n int) ([]float64, error) {
		xs := make([]float64, n)
		for i := range xs {
			d, err := errOf(atoms[rng.IntN(len(atoms))])
			if err != nil {
				return nil, err
			}
			xs[i] = d
		}
		return xs, nil
	}
	pilot := make([]float64, len(pilotAtoms))
	for i, v := range pilotAtoms {
		pilot[i] = value(cache[v])
	}
	delta := 1 - opt.Confidence
	_, v0 := meanVar(pilot)
	// The pilot's variance, raised by a little against its own sampling
	// error (its largest value over the pilot size at least).
	v0 = max(v0*1.5, 1/float64(opt.Pilot))
	n := opt.Pilot
	for n < opt.MaxSample && bernstein(v0, n, delta) > opt.HalfWidth {
		n = min(opt.MaxSample, n*5/4+1)
	}
	// The interval: from the local errors' lower end to the corrected
	// errors' upper end (the truth lies between where the error grows
	// with the radius at a rate of at most ρ).
	var locals []float64
	errOf = func(v int32) (float64, error) {
		p, ok := cache[v]
		if !ok {
			if _, err := run(v, []int{R - 1, R}); err != nil {
				return 0, err
			}
			p = cache[v]
		}
		locals = append(locals, p.d)
		return value(p), nil
	}
	if opt.MaxWork > 0 {
		if work := float64(min(n, len(atoms))) * float64(factors) / float64(max(1, len(cache))); work > opt.MaxWork {
			return est, fmt.Errorf("%w (%d local runs of %.0f factors each, budget %.3g factors)", ErrSampleCost, min(n, len(atoms)), float64(factors)/float64(max(1, len(cache))), opt.MaxWork)
		}
	}
	var mean, lmean, hw, lhw float64
	if n >= len(atoms) {
		// A census costs no more than the sample: every atom, the
		// population mean itself (half-width 0).
		sum := 0.0
		for _, v := range atoms {
			d, err := errOf(v)
			if err != nil {
				return est, err
			}
			sum += d
		}
		n, mean, est.Census = len(atoms), sum/float64(len(atoms)), true
		lmean, _ = meanVar(locals)
	} else {
		xs, err := draw(n)
		if err != nil {
			return est, err
		}
		var vr, lvr float64
		mean, vr = meanVar(xs)
		lmean, lvr = meanVar(locals)
		hw, lhw = bernstein(vr, n, delta), bernstein(lvr, n, delta)
	}
	est.Mean, est.Local, est.HalfWidth, est.Sample = mean, lmean, hw, n
	est.Lo, est.Hi = max(0, lmean-lhw), min(1, mean+hw)
	est.Distinct = len(cache)
	est.Factors = float64(factors) / float64(max(1, len(cache)))
	return est, nil
}

// meanVar returns the mean and the unbiased sample variance of xs.
func meanVar(xs []float64) (float64, float64) {
	n := float64(len(xs))
	var s float64
	for _, x := range xs {
		s += x
	}
	m := s / n
	var q float64
	for _, x := range xs {
		q += (x - m) * (x - m)
	}
	if len(xs) < 2 {
		return m, 0.25
	}
	return m, q / (n - 1)
}

// bernstein is the half-width of the two-sided empirical Bernstein
// interval (Maurer and Pontil 2009, Theorem 4, each side at level
// delta/2) for the mean of n independent values in [0, 1] with sample
// variance v.
func bernstein(v float64, n int, delta float64) float64 {
	if n < 2 {
		return 1
	}
	l := math.Log(4 / delta)
	return math.Sqrt(2*v*l/float64(n)) + 7*l/(3*float64(n-1))
}

// local builds and runs the neighbourhood graphs of SampleError.
type local struct {
	g     *fg.Graph
	ev    fg.Evidence
	init  []float64 // lifted messages per ground edge (groundMessages)
	off   []int64   // edge → offset into init
	ef    []int32   // edge → factor
	opt   SampleOptions
	stamp []int32 // factor → the run that took it
	layer []int32 // factor → the hop that took it
	vstam []int32 // variable → the run that took it (+1)
	vloc  []int32 // variable → its index in the local graph
	run   int32
	cold  bool // start inside the neighbourhood from uniform messages (CheckError)
}

func newLocal(g *fg.Graph, ev fg.Evidence, init []float64, opt SampleOptions) *local {
	off := make([]int64, g.NumEdges()+1)
	for e, v := range g.EdgeVar {
		off[e+1] = off[e] + int64(g.Card[v])
	}
	return &local{g: g, ev: ev, init: init, off: off, ef: g.EdgeFactors(), opt: opt,
		stamp: make([]int32, g.NumFactors()), layer: make([]int32, g.NumFactors()), vstam: make([]int32, g.NumVars()), vloc: make([]int32, g.NumVars())}
}

// marginals runs local ground BP around v for each radius of radii
// (increasing) and returns v's marginals, the largest local graph's
// factors and whether every run converged. The breadth-first search goes
// through unobserved variables only (an observed one sends the same
// message whatever its neighbours do); a layer that would take the local
// graph past MaxFactors ends it, and the larger radii then use the
// largest that fits.
func (l *local) marginals(ctx context.Context, v int32, radii []int) ([][]float64, int, bool, error) {
	g := l.g
	l.run++
	run := l.run
	R := radii[len(radii)-1]
	var facs []int32
	vars := []int32{v}
	l.vstam[v], l.vloc[v] = run, 0
	facEnd, varEnd := []int{0}, []int{1} // per radius k: facs[:facEnd[k]], vars[:varEnd[k]]
	frontier := []int32{v}
	for hop := 0; hop < R && len(frontier) > 0; hop++ {
		var add []int32
		for _, u := range frontier {
			for _, e := range g.VarEdges[g.VarStart[u]:g.VarStart[u+1]] {
				if f := l.ef[e]; l.stamp[f] != run {
					l.stamp[f], l.layer[f] = run, int32(hop)
					add = append(add, f)
				}
			}
		}
		if hop > 0 && len(facs)+len(add) > l.opt.MaxFactors {
			for _, f := range add {
				l.stamp[f] = 0
			}
			break
		}
		facs = append(facs, add...)
		frontier = frontier[:0:0]
		for _, f := range add {
			for _, u := range g.Scope(int(f)) {
				if l.vstam[u] != run {
					l.vstam[u], l.vloc[u] = run, int32(len(vars))
					vars = append(vars, u)
					if l.ev == nil || l.ev[u] < 0 {
						frontier = append(frontier, u)
					}
				}
			}
		}
		facEnd, varEnd = append(facEnd, len(facs)), append(varEnd, len(vars))
	}
	out := make([][]float64, len(radii))
	conv := true
	for i, k := range radii {
		k = min(k, len(facEnd)-1)
		m, c, err := l.run1(ctx, facs[:facEnd[k]], vars[:varEnd[k]], int32(k), run)
		if err != nil {
			return nil, 0, false, err
		}
		out[i], conv = m, conv && c
	}
	return out, len(facs), conv, nil
}

// run1 runs local ground BP on factors facs (those of layers below k of
// run) over variables vars (vars[0] the atom) and returns the atom's
// marginal and whether the run converged.
func (l *local) run1(ctx context.Context, facs, vars []int32, k, run int32) ([]float64, bool, error) {
	g := l.g
	inside := func(f int32) bool { return l.stamp[f] == run && l.layer[f] < k }
	b := fg.NewBuilder()
	sev := fg.NoEvidence(len(vars))
	for i, u := range vars {
		b.AddVar(int(g.Card[u]))
		if l.ev != nil {
			sev[i] = l.ev[u]
		}
	}
	var msgs []float64
	scope := []int32{}
	for _, f := range facs {
		scope = scope[:0]
		for e := g.FactorStart[f]; e < g.FactorStart[f+1]; e++ {
			scope = append(scope, l.vloc[g.EdgeVar[e]])
			if n := l.off[e+1] - l.off[e]; l.cold {
				for range n {
					msgs = append(msgs, 1/float64(n))
				}
				continue
			}
			msgs = append(msgs, l.init[l.off[e]:l.off[e+1]]...)
		}
		t := g.Table(int(f))
		id, err := b.Table(t.Dims, t.Values)
		if err != nil {
			return nil, false, err
		}
		if _, err := b.AddFactorTable(scope, id); err != nil {
			return nil, false, err
		}
	}
	// The boundary: every variable's messages from factors outside.
	for i, u := range vars {
		if l.ev != nil && l.ev[u] >= 0 {
			continue
		}
		n := int(g.Card[u])
		p := make([]float64, n)
		for x := range p {
			p[x] = 1
		}
		outside := false
		for _, e := range g.VarEdges[g.VarStart[u]:g.VarStart[u+1]] {
			if inside(l.ef[e]) {
				continue
			}
			outside = true
			m := l.init[l.off[e]:l.off[e+1]]
			top := 0.0
			for x := range p {
				p[x] *= m[x]
				top = max(top, p[x])
			}
			if !(top > 0) {
				return nil, false, fmt.Errorf("bp: the lifted messages into variable %d are zero everywhere", u)
			}
			for x := range p {
				p[x] /= top
			}
		}
		if !outside {
			continue
		}
		sum := 0.0
		for _, x := range p {
			sum += x
		}
		for x := range p {
			p[x] /= sum
		}
		if _, err := b.AddFactor([]int32{int32(i)}, p); err != nil {
			return nil, false, err
		}
		msgs = append(msgs, p...)
	}
	c, err := lift.Ground(b.Build(), sev)
	if err != nil {
		return nil, false, err
	}
	r, err := Run(ctx, c, Options{Schedule: Flood, Damping: l.opt.Damping, Tol: l.opt.Tol, MaxIter: l.opt.MaxIter, Init: msgs, AverageLast: 50})
	if err != nil {
		return nil, false, err
	}
	return r.Marginal(0), r.Converged, nil
}
