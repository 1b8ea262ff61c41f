package infer

import (
	"context"
	"errors"
	"fmt"

	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/lift"
)

// ErrorEstimate is an estimate of how far the marginals of an answer on
// an approximate compression lie from ground BP's (the largest state
// difference per variable): their mean and largest value over the
// unobserved variables. OK is false when there is none (the ground
// iterations that measure it did not contract); Ratio is their observed
// contraction rate and Iterations their number.
type ErrorEstimate struct {
	Mean, Max  float64
	OK         bool
	Ratio      float64
	Iterations int
}

// ErrorEstimator is implemented by methods that can estimate the error of
// their answer on an approximate compression of g (lifted BP: package
// infer/bp); Run then lifts approximately under Options.Tolerance.
type ErrorEstimator interface {
	EstimateError(ctx context.Context, ans *Answer, g *fg.Graph, ev fg.Evidence) (ErrorEstimate, error)
}

// Approximation is one setting of approximate lifting: unary log-potentials
// rounded to multiples of Fields (lift.QuantiseFields; 0: kept), counts
// pooled within a factor 1+Counts (lift.Options.CountTolerance) and
// colour passing stopped after Rounds rounds (0: until stable).
type Approximation struct {
	Fields, Counts float64
	Rounds         int
}

// String names the setting as the statistics print it.
func (a Approximation) String() string {
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
	c, st, err := CompressWith(ctx, r, h, ev, true, colour)
	st.Variables, st.Factors, st.Edges = g.NumVars(), g.NumFactors(), g.NumEdges()
	return c, st, err
}

// runApprox answers with the coarsest approximation whose estimated mean
// error is within opt.Tolerance, trying Approximations in order and
// ending with exact lifting (error 0). The Stats hold the sizes of the
// compression that answered and its estimate; seconds and iterations
// count every attempt.
func runApprox(ctx context.Context, alg Algorithm, est ErrorEstimator, g *fg.Graph, ev fg.Evidence, opt Options) (*Answer, error) {
	var tried []string
	iters, msgs, colourSec := 0, int64(0), 0.0
	finish := func(ans *Answer, st Stats, name string, e *ErrorEstimate) *Answer {
		ans.Stats.withCompression(st)
		ans.Stats.BPIterations += iters
		ans.Stats.Messages += msgs
		ans.Stats.ColorSeconds += colourSec
		ans.Stats.Tolerance, ans.Stats.Approximation, ans.Stats.ApproxTried = opt.Tolerance, name, tried
		mean, worst := 0.0, 0.0
		if e != nil {
			mean, worst = e.Mean, e.Max
		}
		ans.Stats.ErrorEstimate, ans.Stats.ErrorEstimateMax = &mean, &worst
		return ans
	}
	for _, a := range Approximations {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		c, st, err := a.Compress(ctx, opt.Refiner, g, ev, opt.Colour)
		if err != nil {
			return nil, err
		}
		name := a.String()
		ans, err := alg.Run(ctx, c, opt.Query)
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
		} else if !e.OK {
			tried = append(tried, fmt.Sprintf("%s: no estimate (ground iterations contract at %.3g)", name, e.Ratio))
		} else if e.Mean > opt.Tolerance {
			tried = append(tried, fmt.Sprintf("%s: estimated mean error %.3g", name, e.Mean))
		} else {
			return finish(ans, st, name, &e), nil
		}
		iters += ans.Stats.BPIterations
		msgs += ans.Stats.Messages
		colourSec += st.ColorSeconds
	}
	c, st, err := CompressWith(ctx, opt.Refiner, g, ev, true, opt.Colour)
	if err != nil {
		return nil, err
	}
	ans, err := runConverging(ctx, alg, c, opt.Query, opt.Unconverged)
	if err != nil {
		var nc *NotConvergedError
		if errors.As(err, &nc) && nc.Answer != nil {
			finish(nc.Answer, st, "", nil)
		}
		return nil, err
	}
	return finish(ans, st, "", nil), nil
}
