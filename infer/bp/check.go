package bp

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/infer"
	"github.com/lifted-dev/lifted/lift"
)

// CheckOptions configure CheckError.
type CheckOptions struct {
	// Damping is that of the BP whose answer is checked (ground BP's
	// fixed points and the basin each start falls into depend on it).
	Damping float64
	// Tol and MaxIter bound the warm ground BP run (defaults 1e-4 and
	// 1000 iterations): it must converge within MaxIter.
	Tol     float64
	MaxIter int
	// Radius and MaxFactors shape the neighbourhood of each basin run
	// (defaults 3 factor hops through unobserved variables and 4096
	// factors, as SampleOptions); LocalTol and LocalMaxIter bound it
	// (defaults 1e-4 and 1000).
	Radius, MaxFactors int
	LocalTol           float64
	LocalMaxIter       int
	Confidence         float64 // of the interval where atoms are sampled (default 0.95)
	MaxSample          int     // atoms run at most (default 20000; more: a sample)
	Seed               uint64
	// Reject, when positive, stops the check as soon as its statement
	// is sure to exceed it (the global part, then the basin census's
	// running sum): Stopped is set and Mean and Hi are what was stated
	// so far, already above Reject.
	Reject float64
	// Exact, when set, is the exact compression of g under ev (colour
	// passing to stability): the warm run runs on it instead of on the
	// ground graph. Its fixed points are ground BP's (those symmetric
	// under its colouring), at a fraction of the cost (UW-CSE: 4.6 times
	// fewer factors). The warm start takes each lifted edge's message
	// from its representative ground edge.
	Exact *lift.Compressed
	// Starts is the number of other starts of lifted BP on the
	// approximate compression (ans.Graph) whose fixed points the
	// statement also covers (default 2: messages leaning to the first
	// and to the last state; negative: none). See CheckError.
	Starts int
}

// CheckEstimate is the outcome of CheckError.
type CheckEstimate struct {
	// Mean is the stated mean error, Warm + Basin; Hi its upper end
	// (= Mean for a census; else Warm + the basin term's one-sided
	// empirical Bernstein bound at Confidence); Max the largest per-atom
	// error stated.
	Mean, Hi, Max, Confidence float64
	// Warm is the mean |marginal − warm ground BP| over every unobserved
	// atom and WarmMax its largest; Others the mean excess over it of
	// the other starts' fixed points (Global = Warm + Others: the
	// global part), Basin the mean excess of the basin runs over the
	// global part (see CheckError). SE is the standard error of Basin
	// where atoms were sampled (0 for a census).
	Warm, WarmMax, Others, Global, Basin, SE float64
	// Starts are the other starts whose BP converged (of
	// CheckOptions.Starts), OthersFlagged the atoms one of them moved
	// more than 0.1 further from the answer than the warm run.
	Starts, OthersFlagged int
	// Sweeps are the warm run's iterations; Flagged the atoms whose basin
	// run ended more than 0.1 from the warm fixed point; Sample the atoms
	// run (Census: all of them), Population the unobserved atoms.
	Sweeps, Flagged, Sample, Population int
	Census, Stopped                     bool
	// WarmBP is the warm ground BP run: ground BP's marginals at the
	// fixed point nearest the lifted one.
	WarmBP *Result
}

// Estimate returns the check as an infer.ErrorEstimate.
func (s CheckEstimate) Estimate() infer.ErrorEstimate {
	return infer.ErrorEstimate{Mean: s.Mean, Max: s.Max, OK: true, Sampled: true, Checked: true, Lo: s.Warm, Hi: s.Hi,
		Confidence: s.Confidence, Sample: s.Sample, Census: s.Census, SE: s.SE, Population: s.Population,
		Others: s.Others, Starts: s.Starts}
}

// ErrWarmNotConverged reports a warm ground BP run that did not converge
// within CheckOptions.MaxIter: CheckError states nothing then.
var ErrWarmNotConverged = errors.New("bp: ground BP from the lifted messages did not converge")

// CheckError states the mean error of the marginals of ans — lifted BP on
// an approximate compression of g (see EstimateError) — against ground BP
// on g with evidence ev (flooding from uniform messages with
// opt.Damping), in three parts, as measured on UW-CSE (bench/approx):
//
//   - Warm: ground BP started from the lifted messages (unlifted to every
//     ground edge) and run to convergence finds the ground fixed point w
//     nearest the lifted one; |a_v − w_v| per atom v (a the lifted
//     marginals) is the error where ground BP from uniform messages ends
//     at that fixed point too. Near a fixed point ground BP converges
//     several times faster than from uniform messages (UW-CSE: 45
//     iterations against 392). With opt.Exact it runs on the exact
//     compression, whose fixed points are ground BP's.
//   - Others: where BP has several stable fixed points, ground BP from
//     uniform messages may end at another one than w. Lifted BP on the
//     approximate compression itself, started opt.Starts more times from
//     messages leaning to one state (all the first, all the last: a
//     cluster of attractive variables that tips either way is seen in both
//     ways), finds its other fixed points r_k; each atom is charged
//     max_k |a_v − r_k,v| where that exceeds |a_v − w_v|. This is the
//     global part of the statement (Global = Warm + Others), and the
//     widening that makes it hold where whole clusters tip (multistable
//     models, check_test.go), beyond any neighbourhood.
//   - Basin: which basin an atom falls into may also be decided in its
//     neighbourhood, by fields no start above leans to: for each atom,
//     ground BP on the atom's neighbourhood (as SampleError's, with the
//     rest of the graph held at w's messages) started from uniform
//     messages inside ends at c_v, and the atom's stated error is
//     max(|a_v − w_v|, |a_v − r_k,v|, |a_v − c_v|).
//
// Mean is the mean of the stated per-atom errors over every unobserved
// atom (a census) where there are at most MaxSample; else the global part
// over all plus the mean excess of the basin runs over it on a random
// sample of MaxSample atoms (without replacement), with its standard
// error SE and the one-sided empirical Bernstein upper end Hi. It is a
// check, not a bound: a basin that neither the starts nor the
// neighbourhood decide is not seen; the calibration test (check_test.go)
// measures it against ground BP on random models with several fixed
// points.
func CheckError(ctx context.Context, ans *infer.Answer, g *fg.Graph, ev fg.Evidence, opt CheckOptions) (CheckEstimate, error) {
	var est CheckEstimate
	if opt.Tol <= 0 {
		opt.Tol = 1e-4
	}
	if opt.MaxIter <= 0 {
		opt.MaxIter = 1000
	}
	if opt.Radius <= 0 {
		opt.Radius = 3
	}
	if opt.MaxFactors <= 0 {
		opt.MaxFactors = 4096
	}
	if opt.LocalTol <= 0 {
		opt.LocalTol = 1e-4
	}
	if opt.LocalMaxIter <= 0 {
		opt.LocalMaxIter = 1000
	}
	if opt.Confidence <= 0 || opt.Confidence >= 1 {
		opt.Confidence = 0.95
	}
	if opt.MaxSample <= 0 {
		opt.MaxSample = 20000
	}
	if opt.Starts == 0 {
		opt.Starts = 2
	}
	est.Confidence = opt.Confidence
	init, err := groundMessages(ans, g)
	if err != nil {
		return est, err
	}
	if err := g.CheckEvidence(ev); err != nil {
		return est, err
	}
	var w *Result
	var wmsgs []float64 // w's messages per ground edge
	if opt.Exact != nil {
		if opt.Exact.Ground != g {
			return est, fmt.Errorf("bp: CheckOptions.Exact compresses another graph")
		}
		w, err = Run(ctx, opt.Exact, Options{Schedule: Flood, Damping: opt.Damping, Tol: opt.Tol, MaxIter: opt.MaxIter, Init: representativeMessages(opt.Exact, g, init)})
		if err == nil && w.Converged {
			wmsgs, err = unliftExact(opt.Exact, g, w)
		}
	} else {
		var gc *lift.Compressed
		if gc, err = lift.Ground(g, ev); err == nil {
			w, err = Run(ctx, gc, Options{Schedule: Flood, Damping: opt.Damping, Tol: opt.Tol, MaxIter: opt.MaxIter, Init: init})
			if err == nil {
				wmsgs = w.F2V
			}
		}
	}
	if err != nil {
		return est, err
	}
	est.Sweeps, est.WarmBP = w.Iterations, w
	if !w.Converged {
		return est, fmt.Errorf("%w within %d iterations (largest change %.3g)", ErrWarmNotConverged, opt.MaxIter, w.MaxChange)
	}
	var atoms []int32
	for v := 0; v < g.NumVars(); v++ {
		if ev == nil || ev[v] < 0 {
			atoms = append(atoms, int32(v))
		}
	}
	est.Population = len(atoms)
	if len(atoms) == 0 {
		return est, nil
	}
	// The other starts of lifted BP on the approximate compression.
	var others []*Result
	for k := 0; k < opt.Starts; k++ {
		r, err := Run(ctx, ans.Graph, Options{Schedule: Flood, Damping: opt.Damping, Tol: opt.Tol, MaxIter: opt.MaxIter, Init: leaningMessages(ans.Graph, k)})
		if err != nil {
			if ctx.Err() != nil {
				return est, err
			}
			continue
		}
		if r.Converged {
			others = append(others, r)
		}
	}
	est.Starts = len(others)
	dg := make([]float64, g.NumVars()) // the global part per atom
	for _, v := range atoms {
		a := ans.Marginal(int(v))
		d := maxDiff(w.Marginal(int(v)), a)
		est.Warm += d
		est.WarmMax = max(est.WarmMax, d)
		o := d
		for _, r := range others {
			o = max(o, maxDiff(r.Marginal(int(v)), a))
		}
		if o > d+0.1 {
			est.OthersFlagged++
		}
		dg[v] = o
		est.Global += o
		est.Max = max(est.Max, o)
	}
	n := float64(len(atoms))
	est.Warm /= n
	est.Global /= n
	est.Others = est.Global - est.Warm
	if opt.Reject > 0 && est.Global > opt.Reject {
		est.Mean, est.Hi, est.Stopped = est.Global, est.Global, true
		return est, nil
	}
	// The basin runs: local ground BP from uniform messages inside, w's
	// messages outside.
	l := newLocal(g, ev, wmsgs, SampleOptions{Damping: opt.Damping, Tol: opt.LocalTol, MaxIter: opt.LocalMaxIter, MaxFactors: opt.MaxFactors})
	l.cold = true
	excess := func(v int32) (float64, error) {
		ms, _, _, err := l.marginals(ctx, v, []int{opt.Radius})
		if err != nil {
			return 0, err
		}
		if maxDiff(ms[0], w.Marginal(int(v))) > 0.1 {
			est.Flagged++
		}
		dc := maxDiff(ms[0], ans.Marginal(int(v)))
		est.Max = max(est.Max, dc)
		return max(0, dc-dg[v]), nil
	}
	var xs []float64
	if len(atoms) <= opt.MaxSample {
		// In a random order (opt.Seed), so that under Reject the atoms
		// run so far are a sample: see SequentialZ.
		order := slices.Clone(atoms)
		rng := rand.New(rand.NewPCG(opt.Seed, 0xc4ec))
		rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		i := 0
		seq, err := sequential(len(order), est.Global, opt.Reject, func() (float64, error) {
			x, err := excess(order[i])
			i++
			xs = append(xs, x)
			return x, err
		})
		if err != nil {
			return est, err
		}
		switch {
		case seq.accepted:
			// Accepted on the sample: the estimate, its standard error
			// and the upper end that decided.
			est.Basin, est.SE, est.Sample = seq.mean, seq.se, seq.k
			est.Mean, est.Hi = est.Global+seq.mean, seq.hi
			est.Confidence = SequentialConfidence
			return est, nil
		case seq.refused:
			est.Basin, est.SE, est.Sample, est.Stopped = seq.mean, seq.se, seq.k, true
			est.Mean, est.Hi = est.Global+seq.mean, seq.hi
			return est, nil
		}
		est.Census = true
	} else {
		rng := rand.New(rand.NewPCG(opt.Seed, 0xc4ec))
		perm := rng.Perm(len(atoms))
		for _, i := range perm[:opt.MaxSample] {
			x, err := excess(atoms[i])
			if err != nil {
				return est, err
			}
			xs = append(xs, x)
		}
	}
	m, vr := meanVar(xs)
	est.Basin, est.Sample = m, len(xs)
	est.Mean, est.Hi = est.Global+m, est.Global+m
	if !est.Census {
		// Sampled without replacement: the standard error with the
		// finite-population correction; the one-sided Bernstein upper
		// end (the half-width at level 2(1 − Confidence) per side) does
		// without it, which only widens it.
		est.SE = math.Sqrt(vr / float64(len(xs)) * (1 - float64(len(xs))/n))
		est.Hi = min(1, est.Global+m+bernstein(vr, len(xs), 2*(1-opt.Confidence)))
	}
	return est, nil
}

// Under CheckOptions.Reject the basin runs go through the atoms in a
// random order and after SequentialMin atoms, and twice as many each time
// after, the check looks at the sample so far: with m its mean excess and
// se its standard error (sampling without replacement, the sample
// variance held at least 3/k after k atoms: where no atom of the sample
// changed basin, up to 3 in k may still, by up to 1 each), it accepts when
// Global + m + SequentialZ·se is within Reject (stating Mean = Global + m,
// SE and Hi = that upper end: a statistical statement, normal
// approximation, at SequentialConfidence one-sided per look) and refuses
// when Global + m − SequentialZ·se exceeds it; else it goes on, to the
// census. TestCheckSequential measures how often the accepted upper end
// covers the census.
const (
	SequentialMin        = 200
	SequentialZ          = 3.29
	SequentialConfidence = 0.9995
)

// seqOutcome is the outcome of sequential: the values run (k), their
// mean (over n for a census or a sure refusal, else over k), its
// standard error, the statement's upper end (global + mean, plus
// SequentialZ·se where accepted on a sample).
type seqOutcome struct {
	k                 int
	mean, se, hi      float64
	accepted, refused bool
}

// sequential draws the per-atom basin excesses of n atoms in a random
// order with next and decides under reject as CheckError says (see
// SequentialZ); reject 0 runs them all.
func sequential(n int, global, reject float64, next func() (float64, error)) (seqOutcome, error) {
	var o seqOutcome
	sum, sq := 0.0, 0.0
	look := SequentialMin
	for o.k < n {
		x, err := next()
		if err != nil {
			return o, err
		}
		o.k++
		sum += x
		sq += x * x
		if reject <= 0 {
			continue
		}
		if global+sum/float64(n) > reject {
			// Sure: the census's sum only grows.
			o.mean = sum / float64(n)
			o.hi, o.refused = global+o.mean, true
			return o, nil
		}
		if o.k == look && o.k < n {
			look *= 2
			m, se := sequentialSE(sum, sq, o.k, n)
			switch {
			case global+m+SequentialZ*se <= reject:
				return seqOutcome{k: o.k, mean: m, se: se, hi: global + m + SequentialZ*se, accepted: true}, nil
			case global+m-SequentialZ*se > reject:
				return seqOutcome{k: o.k, mean: m, se: se, hi: global + m, refused: true}, nil
			}
		}
	}
	o.mean = sum / float64(n)
	o.hi = global + o.mean
	return o, nil
}

// sequentialSE returns the mean of k values with sum and sum of squares
// sq drawn without replacement from n, and its standard error with the
// sample variance held at least 3/k.
func sequentialSE(sum, sq float64, k, n int) (float64, float64) {
	m := sum / float64(k)
	v := max(0, (sq-float64(k)*m*m)/float64(k-1))
	v = max(v, 3/float64(k))
	return m, math.Sqrt(v / float64(k) * (1 - float64(k)/float64(n)))
}

// representativeMessages lays out, per lifted edge of the exact
// compression c of g, the message of its representative ground edge in
// ground (per ground edge of g, as groundMessages).
func representativeMessages(c *lift.Compressed, g *fg.Graph, ground []float64) []float64 {
	off := edgeOffsets(g)
	out := make([]float64, 0, len(ground))
	for s := range c.EdgeNode {
		e := g.FactorStart[c.FactorRep[c.EdgeFactor[s]]] + int64(c.EdgePos[s])
		out = append(out, ground[off[e]:off[e+1]]...)
	}
	return out
}

// edgeOffsets returns, per ground edge e of g, the offset of its message
// in a per-ground-edge layout (off[e]..off[e+1]).
func edgeOffsets(g *fg.Graph) []int64 {
	off := make([]int64, g.NumEdges()+1)
	for e, v := range g.EdgeVar {
		off[e+1] = off[e] + int64(g.Card[v])
	}
	return off
}

// unliftExact lays out the messages of r, a run on the exact compression
// c of g, per ground edge of g: each ground edge takes the message of the
// lifted edge of its factor's clusterfactor at its variable's
// clusternode (where the clusterfactor has several at that clusternode,
// the one at the edge's position).
func unliftExact(c *lift.Compressed, g *fg.Graph, r *Result) ([]float64, error) {
	off := edgeOffsets(g)
	out := make([]float64, off[len(off)-1])
	for f := 0; f < g.NumFactors(); f++ {
		F := c.FactorOf[f]
		pos := c.Positions(int(F))
		for p, u := range g.Scope(f) {
			e := g.FactorStart[f] + int64(p)
			X := c.NodeOf[u]
			s := int32(-1)
			for _, t := range pos {
				if c.EdgeNode[t] == X {
					if s >= 0 && s != t {
						s = -2
						break
					}
					s = t
				}
			}
			if s == -2 {
				if p >= len(pos) || c.EdgeNode[pos[p]] != X {
					return nil, fmt.Errorf("bp: cannot place ground edge %d of factor %d on the exact compression", e, f)
				}
				s = pos[p]
			}
			if s < 0 {
				return nil, fmt.Errorf("bp: ground edge %d of factor %d has no lifted edge", e, f)
			}
			copy(out[off[e]:off[e+1]], r.F2V[r.EdgeOff[s]:r.EdgeOff[s+1]])
		}
	}
	return out, nil
}

// leaningMessages are messages on every lifted edge of c leaning to one
// state, 0.9 of the weight (start k even: the first state; odd: the
// last), the rest spread over the others.
func leaningMessages(c *lift.Compressed, k int) []float64 {
	var out []float64
	for s := range c.EdgeNode {
		n := int(c.NodeCard[c.EdgeNode[s]])
		lean := 0
		if k%2 == 1 {
			lean = n - 1
		}
		for x := 0; x < n; x++ {
			switch {
			case n == 1:
				out = append(out, 1)
			case x == lean:
				out = append(out, 0.9)
			default:
				out = append(out, 0.1/float64(n-1))
			}
		}
	}
	return out
}
