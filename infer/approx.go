package infer

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/lift"
)

// ErrorEstimate is an estimate of how far the marginals of an answer on
// an approximate compression lie from ground BP's (the largest state
// difference per variable): their mean and largest value over the
// unobserved variables. OK is false when there is none (the ground
// iterations that measure it did not contract); Ratio is their observed
// contraction rate and Iterations their number.
//
// A sampled estimate (Sampled, SampleEstimator) is statistical: Mean is
// the mean error over a random sample of Sample atoms, each against
// ground BP on its neighbourhood, and [Lo, Hi] an interval that covers
// the mean over all atoms with probability Confidence (Census: every
// atom was run, Lo = Hi = Mean); Max is the largest error seen.
type ErrorEstimate struct {
	Mean, Max  float64
	OK         bool
	Ratio      float64
	Iterations int

	Sampled            bool
	Checked            bool // a check (bp.CheckError): Lo is its warm part, Hi its upper end
	Lo, Hi, Confidence float64
	Sample             int
	Census             bool
	// SE is the standard error of a sampled mean (0 for a census) and
	// Population the atoms it is the mean over; Others the part of a
	// check's statement from the other fixed points of lifted BP it
	// found (bp.CheckError), Starts their number.
	SE         float64
	Population int
	Others     float64
	Starts     int
}

// SampleEstimator is implemented by methods that can estimate the error
// of their answer on an approximate compression statistically, from a
// random sample of atoms (lifted BP: bp.SampleError), with an interval
// of about halfWidth; Run uses it where ErrorEstimator gives no estimate.
// exact, when not nil, is the exact compression of g under ev (it may run
// its ground BP there).
type SampleEstimator interface {
	SampleError(ctx context.Context, ans *Answer, g *fg.Graph, ev fg.Evidence, exact *lift.Compressed, halfWidth float64, seed uint64) (ErrorEstimate, error)
}

// SampleGain is the least factor by which an approximation must compress
// more than exact lifting for Run to pay for a sampled estimate (a few
// thousand small ground BP runs: about a ground BP run's cost on UW-CSE).
const SampleGain = 2

// ErrorEstimator is implemented by methods that can estimate the error of
// their answer on an approximate compression of g (lifted BP: package
// infer/bp); Run then lifts approximately under Query.Tolerance.
type ErrorEstimator interface {
	EstimateError(ctx context.Context, ans *Answer, g *fg.Graph, ev fg.Evidence) (ErrorEstimate, error)
}

// Approximator is implemented by methods that run lifted BP among other
// things (auto's BP chain, package infer/exact): under Query.Tolerance Run
// tries the approximations with ApproxAlgorithm (an ErrorEstimator) and,
// when none meets the tolerance, runs the method itself on the exact
// compression.
type Approximator interface {
	ApproxAlgorithm() Algorithm
}

// Approximation is one setting of approximate lifting: unary log-potentials
// rounded to multiples of Fields (lift.QuantiseFields; 0: kept), counts
// pooled within a factor 1+Counts (lift.Options.CountTolerance) and
// colour passing stopped after Rounds rounds (0: until stable).
type Approximation struct {
	Fields, Counts float64
	Rounds         int
	// Cluster, when set, replaces colour passing by evidence-based
	// clustering (lift.Partitioned with its classes; Counts and Rounds
	// unused).
	Cluster *Clustering
}

// Clustering is a partition of a grounding's variables from evidence-based
// clustering of the constants (ground.Grounding.EvidenceClusters): Class
// per variable, Name saying how the constants were clustered.
type Clustering struct {
	Name  string
	Class []int32
}

// String names the setting as the statistics print it.
func (a Approximation) String() string {
	if a.Cluster != nil {
		return fmt.Sprintf("evidence clusters (%s), fields %g", a.Cluster.Name, a.Fields)
	}
	s := fmt.Sprintf("fields %g, counts %g", a.Fields, a.Counts)
	if a.Rounds > 0 {
		s += fmt.Sprintf(", %d rounds", a.Rounds)
	}
	return s
}

// Approximations are the settings Run tries under a tolerance, coarsest
// first; the first whose estimated mean error is within the tolerance
// answers, else exact lifting does.
var Approximations = []Approximation{
	{Fields: 1, Counts: 1, Rounds: 2},
	{Fields: 0.3, Counts: 1, Rounds: 2},
	{Fields: 0.3, Counts: 1, Rounds: 3},
	{Fields: 0.1, Counts: 0.3, Rounds: 0},
	{Fields: 0.01, Counts: 0.1, Rounds: 0},
}

// Compress compresses g approximately under a (see Approximation).
func (a Approximation) Compress(ctx context.Context, r lift.Refiner, g *fg.Graph, ev fg.Evidence, colour lift.Options) (*lift.Compressed, Stats, error) {
	h, err := lift.QuantiseFields(g, a.Fields)
	if err != nil {
		return nil, Stats{}, err
	}
	colour.CountTolerance, colour.MaxIter = a.Counts, a.Rounds
	if a.Cluster != nil {
		if len(a.Cluster.Class) != g.NumVars() {
			return nil, Stats{}, fmt.Errorf("infer: clustering %q has %d classes for %d variables", a.Cluster.Name, len(a.Cluster.Class), g.NumVars())
		}
		r, colour.CountTolerance, colour.MaxIter = lift.Partitioned{Class: a.Cluster.Class}, 0, 0
	}
	c, st, err := CompressWith(ctx, r, h, ev, true, colour)
	st.Variables, st.Factors, st.Edges = g.NumVars(), g.NumFactors(), g.NumEdges()
	return c, st, err
}

// ClusterFields is the field quantisation of the evidence-clustering
// settings runApprox tries (Options.Clusters).
const ClusterFields = 0.3

// ExactEnough is the factor compression of exact lifting from which
// runApprox tries no approximation: there lifted BP is already cheap, and
// the error estimate (a few ground BP iterations) would cost more than
// it saves.
const ExactEnough = 10

// runApprox answers with an approximation whose estimated mean error is
// within opt.Query.Tolerance, ending with exactAlg on the exact
// compression (error 0 where it is lifted BP); where exact lifting
// compresses the factors ExactEnough times or more that answers at once.
// The candidates are tried in the order most likely to answer cheaply
// (approxOrder): first the finest setting that compresses the factors
// ExactEnough times, then the finer ones, then the coarser ones; the first
// that meets the tolerance answers. The Stats hold the sizes of the
// compression that answered and its estimate; seconds and iterations
// count every attempt.
func runApprox(ctx context.Context, alg Algorithm, est ErrorEstimator, exactAlg Algorithm, g *fg.Graph, ev fg.Evidence, opt Options) (*Answer, error) {
	var tried []string
	sampled := false
	iters, msgs, colourSec := 0, int64(0), 0.0
	finish := func(ans *Answer, st Stats, name string, e *ErrorEstimate) *Answer {
		ans.Stats.withCompression(st)
		ans.Stats.BPIterations += iters
		ans.Stats.Messages += msgs
		ans.Stats.ColorSeconds = colourSec
		ans.Stats.Tolerance, ans.Stats.Approximation, ans.Stats.ApproxTried = opt.Query.Tolerance, name, tried
		if name != "" {
			ans.Stats.Lifting = "approximate"
		}
		mean, worst := 0.0, 0.0
		if e != nil {
			mean, worst = e.Mean, e.Max
		}
		ans.Stats.ErrorEstimate, ans.Stats.ErrorEstimateMax = &mean, &worst
		if e != nil && e.Sampled {
			ans.Stats.ErrorInterval = []float64{e.Lo, e.Hi}
			ans.Stats.ErrorConfidence, ans.Stats.ErrorSample, ans.Stats.ErrorCensus = e.Confidence, e.Sample, e.Census
			ans.Stats.ErrorChecked = e.Checked
			if !e.Census {
				se := e.SE
				ans.Stats.ErrorSE = &se
			}
			ans.Stats.ErrorPopulation, ans.Stats.ErrorOthers, ans.Stats.ErrorStarts = e.Population, e.Others, e.Starts
		}
		return ans
	}
	c, st, err := CompressWith(ctx, opt.Refiner, g, ev, true, opt.Colour)
	if err != nil {
		return nil, err
	}
	colourSec += st.ColorSeconds
	exact := st.Clusterfactors
	var try []candidate
	if st.Clusterfactors*ExactEnough <= st.Factors {
		tried = append(tried, fmt.Sprintf("none: exact lifting compresses the factors %.0fx", float64(st.Factors)/float64(max(1, st.Clusterfactors))))
	} else {
		var secs float64
		try, secs, err = approxOrder(ctx, g, ev, opt)
		colourSec += secs
		if err != nil {
			return nil, err
		}
	}
	for _, k := range try {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		a, ca, sta := k.a, k.c, k.st
		name := a.String()
		if ca == nil {
			if sampled {
				// The iterations estimate failed on a coarser setting
				// (ground BP contracts too slowly near these fixed
				// points) and the check cannot pay here.
				tried = append(tried, name+": not tried (no iterations estimate, too fine to check)")
				continue
			}
			var err error
			ca, sta, err = a.Compress(ctx, opt.Refiner, g, ev, opt.Colour)
			if err != nil {
				return nil, err
			}
			colourSec += sta.ColorSeconds
		}
		if ca.NumFactors() >= exact {
			tried = append(tried, fmt.Sprintf("%s: %d clusterfactors, no fewer than exact lifting's", name, ca.NumFactors()))
			continue
		}
		if sampled && ca.NumFactors()*SampleGain > exact {
			tried = append(tried, fmt.Sprintf("%s: not tried (no iterations estimate, %d clusterfactors, too many to check)", name, ca.NumFactors()))
			continue
		}
		ans, est, err := converge(ctx, alg, est, ca, opt.Query)
		if err != nil {
			if ctx.Err() != nil {
				return nil, err
			}
			tried = append(tried, name+": "+err.Error())
			continue
		}
		iters += ans.Stats.BPIterations
		msgs += ans.Stats.Messages
		if !ans.Converged {
			tried = append(tried, name+": BP did not converge")
		} else if e, err := est.EstimateError(ctx, ans, g, ev); err != nil {
			tried = append(tried, name+": "+err.Error())
		} else if !e.OK && ca.NumFactors()*SampleGain <= exact && sampler(est) != nil {
			// Ground BP around this point contracts too slowly to
			// estimate from a few iterations: the sampler's check
			// (bp.CheckError: BP on the exact compression from the
			// lifted messages, the other fixed points and every atom's
			// basin) states it.
			sampled = true
			s, err := sampler(est).SampleError(ctx, ans, g, ev, c, opt.Query.Tolerance/2, opt.Query.Seed)
			if err != nil {
				if ctx.Err() != nil {
					return nil, err
				}
				tried = append(tried, name+": "+err.Error())
			} else if s.Hi <= opt.Query.Tolerance {
				ans.Stats.BPIterations, ans.Stats.Messages = 0, 0 // in iters, msgs
				return finish(ans, sta, name, &s), nil
			} else {
				tried = append(tried, fmt.Sprintf("%s: checked mean error %.3g, above the tolerance", name, s.Hi))
			}
		} else if !e.OK && !sampled {
			// Ground BP around this point contracts too slowly to
			// estimate from a few iterations; the finer settings sit
			// at nearly the same point: exact lifting answers.
			tried = append(tried, fmt.Sprintf("%s: no estimate (ground iterations contract at %.3g; finer settings not tried)", name, e.Ratio))
			break
		} else if !e.OK {
			tried = append(tried, fmt.Sprintf("%s: no estimate (ground iterations contract at %.3g; %d clusterfactors, too many to check)", name, e.Ratio, ca.NumFactors()))
		} else if e.Mean > opt.Query.Tolerance {
			tried = append(tried, fmt.Sprintf("%s: estimated mean error %.3g", name, e.Mean))
		} else {
			ans.Stats.BPIterations, ans.Stats.Messages = 0, 0 // in iters, msgs
			return finish(ans, sta, name, &e), nil
		}
	}
	ans, err := runConverging(ctx, exactAlg, c, opt.Query, opt.Unconverged)
	if err != nil {
		var nc *NotConvergedError
		if errors.As(err, &nc) && nc.Answer != nil {
			finish(nc.Answer, st, "", nil)
		}
		return nil, err
	}
	return finish(ans, st, "", nil), nil
}

// candidate is one approximation runApprox tries, with its compression
// where approxOrder made it (nil: compressed when tried).
type candidate struct {
	a  Approximation
	c  *lift.Compressed
	st Stats
}

// approxOrder returns the approximations runApprox tries, in order, and
// the colour-passing seconds spent on them. It compresses the
// evidence-based clusterings (opt.Clusters) and Approximations in order
// (coarsest first) until one compresses the factors less than ExactEnough
// times, and sorts them by compression, most first: the candidates that
// reach ExactEnough are the cheap answers, and the finest of them is the
// one most likely to meet the tolerance (the error grows with the
// coarsening: bench/approx), so it comes first, then the finer settings
// (those compressed, then the remaining Approximations, compressed when
// tried), then the coarser ones, finest first. Where none reaches
// ExactEnough the order is by compression, most first.
func approxOrder(ctx context.Context, g *fg.Graph, ev fg.Evidence, opt Options) ([]candidate, float64, error) {
	var made []candidate
	secs := 0.0
	add := func(a Approximation) (Stats, error) {
		c, st, err := a.Compress(ctx, opt.Refiner, g, ev, opt.Colour)
		if err != nil {
			return st, err
		}
		secs += st.ColorSeconds
		made = append(made, candidate{a, c, st})
		return st, nil
	}
	for i := range opt.Clusters {
		if _, err := add(Approximation{Fields: ClusterFields, Cluster: &opt.Clusters[i]}); err != nil {
			return nil, secs, err
		}
	}
	rest := []Approximation(nil)
	for i, a := range Approximations {
		st, err := add(a)
		if err != nil {
			return nil, secs, err
		}
		if st.Clusterfactors*ExactEnough > st.Factors {
			rest = Approximations[i+1:]
			break
		}
	}
	slices.SortStableFunc(made, func(a, b candidate) int { return a.c.NumFactors() - b.c.NumFactors() })
	k := -1
	for i, m := range made {
		if m.c.NumFactors()*ExactEnough <= m.st.Factors {
			k = i
		}
	}
	var out []candidate
	if k < 0 {
		out = made
	} else {
		out = append(out, made[k:]...)
	}
	for _, a := range rest {
		out = append(out, candidate{a: a})
	}
	for i := k - 1; i >= 0; i-- {
		out = append(out, made[i])
	}
	return out, secs, nil
}

// sampler returns est as a SampleEstimator, or nil.
func sampler(est ErrorEstimator) SampleEstimator {
	s, _ := est.(SampleEstimator)
	return s
}

// converge runs alg on c and, when it does not converge, its Fallbacks
// in order, as runConverging does; it returns the first converged answer
// (else the last) with the estimator of the variant that gave it (the
// error estimate runs ground BP with that variant's damping). Iterations
// and messages count every attempt.
func converge(ctx context.Context, alg Algorithm, est ErrorEstimator, c *lift.Compressed, q Query) (*Answer, ErrorEstimator, error) {
	ans, err := alg.Run(ctx, c, q)
	if err != nil || ans.Converged {
		return ans, est, err
	}
	fb, ok := alg.(Fallbacks)
	if !ok {
		return ans, est, nil
	}
	iters, msgs := ans.Stats.BPIterations, ans.Stats.Messages
	for _, f := range fb.Fallbacks() {
		e, ok := f.Algorithm.(ErrorEstimator)
		if !ok {
			continue
		}
		next, err := f.Algorithm.Run(ctx, c, q)
		if err != nil {
			if ctx.Err() != nil {
				return nil, nil, ctx.Err()
			}
			continue
		}
		iters += next.Stats.BPIterations
		msgs += next.Stats.Messages
		ans, est = next, e
		if ans.Converged {
			ans.Stats.Fallback = f.Name
			break
		}
	}
	ans.Stats.BPIterations, ans.Stats.Messages = iters, msgs
	return ans, est, nil
}
