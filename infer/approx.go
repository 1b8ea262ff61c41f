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
}

// SampleEstimator is implemented by methods that can estimate the error
// of their answer on an approximate compression statistically, from a
// random sample of atoms (lifted BP: bp.SampleError), with an interval
// of about halfWidth; Run uses it where ErrorEstimator gives no estimate.
type SampleEstimator interface {
	SampleError(ctx context.Context, ans *Answer, g *fg.Graph, ev fg.Evidence, halfWidth float64, seed uint64) (ErrorEstimate, error)
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

// runApprox answers with the coarsest approximation whose estimated mean
// error is within opt.Query.Tolerance, trying Approximations in order and
// ending with exactAlg on the exact compression (error 0 where it is
// lifted BP); where exact lifting compresses the factors ExactEnough
// times or more that answers at once. The Stats hold the sizes of the
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
		ans.Stats.ColorSeconds += colourSec
		ans.Stats.Tolerance, ans.Stats.Approximation, ans.Stats.ApproxTried = opt.Query.Tolerance, name, tried
		mean, worst := 0.0, 0.0
		if e != nil {
			mean, worst = e.Mean, e.Max
		}
		ans.Stats.ErrorEstimate, ans.Stats.ErrorEstimateMax = &mean, &worst
		if e != nil && e.Sampled {
			ans.Stats.ErrorInterval = []float64{e.Lo, e.Hi}
			ans.Stats.ErrorConfidence, ans.Stats.ErrorSample, ans.Stats.ErrorCensus = e.Confidence, e.Sample, e.Census
			ans.Stats.ErrorChecked = e.Checked
		}
		return ans
	}
	c, st, err := CompressWith(ctx, opt.Refiner, g, ev, true, opt.Colour)
	if err != nil {
		return nil, err
	}
	exact := st.Clusterfactors
	try := Approximations
	if st.Clusterfactors*ExactEnough <= st.Factors {
		tried = append(tried, fmt.Sprintf("none: exact lifting compresses the factors %.0fx", float64(st.Factors)/float64(max(1, st.Clusterfactors))))
		try = nil
	}
	colourSec += st.ColorSeconds
	// The second route, evidence-based clustering (Options.Clusters):
	// its settings and the coarsest of colour passing's are compressed
	// first and tried in order of compression, most first; the finer
	// settings of colour passing follow.
	type compressed struct {
		c  *lift.Compressed
		st Stats
	}
	done := map[int]compressed{}
	if len(try) > 0 && len(opt.Clusters) > 0 {
		var first []Approximation
		for i := range opt.Clusters {
			first = append(first, Approximation{Fields: ClusterFields, Cluster: &opt.Clusters[i]})
		}
		first = append(first, try[0])
		try = append(first, try[1:]...)
		for i := range first {
			c, st, err := try[i].Compress(ctx, opt.Refiner, g, ev, opt.Colour)
			if err != nil {
				return nil, err
			}
			done[i] = compressed{c, st}
		}
		order := make([]int, len(first))
		for i := range order {
			order[i] = i
		}
		slices.SortStableFunc(order, func(a, b int) int { return done[a].c.NumFactors() - done[b].c.NumFactors() })
		sorted := make([]Approximation, len(try))
		sortedDone := map[int]compressed{}
		for k, i := range order {
			sorted[k], sortedDone[k] = try[i], done[i]
		}
		copy(sorted[len(first):], try[len(first):])
		try, done = sorted, sortedDone
	}
	for i, a := range try {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		c, st := done[i].c, done[i].st
		if c == nil {
			var err error
			c, st, err = a.Compress(ctx, opt.Refiner, g, ev, opt.Colour)
			if err != nil {
				return nil, err
			}
		}
		name := a.String()
		if c.NumFactors() >= exact {
			tried = append(tried, fmt.Sprintf("%s: %d clusterfactors, no fewer than exact lifting's", name, c.NumFactors()))
			colourSec += st.ColorSeconds
			continue
		}
		ans, est, err := converge(ctx, alg, est, c, opt.Query)
		if err != nil {
			if ctx.Err() != nil {
				return nil, err
			}
			tried = append(tried, name+": "+err.Error())
			colourSec += st.ColorSeconds
			continue
		}
		if !ans.Converged {
			tried = append(tried, name+": BP did not converge")
		} else if e, err := est.EstimateError(ctx, ans, g, ev); err != nil {
			tried = append(tried, name+": "+err.Error())
		} else if !e.OK && c.NumFactors()*SampleGain <= exact && sampler(est) != nil {
			// Ground BP around this point contracts too slowly to
			// estimate from a few iterations: the sampler's check
			// (bp.CheckError: ground BP from the lifted messages to
			// convergence, and every atom's basin) states it.
			sampled = true
			s, err := sampler(est).SampleError(ctx, ans, g, ev, opt.Query.Tolerance/2, opt.Query.Seed)
			if err != nil {
				if ctx.Err() != nil {
					return nil, err
				}
				tried = append(tried, name+": "+err.Error())
			} else if s.Hi <= opt.Query.Tolerance {
				return finish(ans, st, name, &s), nil
			} else {
				tried = append(tried, fmt.Sprintf("%s: checked mean error %.3g, above the tolerance", name, s.Hi))
			}
		} else if !e.OK && !sampled {
			// Ground BP around this point contracts too slowly to
			// estimate from a few iterations; the finer settings sit
			// at nearly the same point: exact lifting answers.
			tried = append(tried, fmt.Sprintf("%s: no estimate (ground iterations contract at %.3g; finer settings not tried)", name, e.Ratio))
			iters += ans.Stats.BPIterations
			msgs += ans.Stats.Messages
			colourSec += st.ColorSeconds
			break
		} else if !e.OK {
			tried = append(tried, fmt.Sprintf("%s: no estimate (ground iterations contract at %.3g; %d clusterfactors, too many to check)", name, e.Ratio, c.NumFactors()))
		} else if e.Mean > opt.Query.Tolerance {
			tried = append(tried, fmt.Sprintf("%s: estimated mean error %.3g", name, e.Mean))
		} else {
			return finish(ans, st, name, &e), nil
		}
		iters += ans.Stats.BPIterations
		msgs += ans.Stats.Messages
		colourSec += st.ColorSeconds
	}
	colourSec -= st.ColorSeconds // counted once, by finish
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
