// Package infer is the one seam of inference in lifted: every method (belief
// propagation, and the samplers and MAP solvers that plug in later)
// implements Algorithm, runs on a counted graph (lift.Compressed; a ground
// graph is the compression whose counts are all 1), answers a Query, and
// returns one Answer type. Methods register by name with their named
// properties (Register, New), which is how the command line's --method
// finds them; a new method plugs in at that one place.
//
// Run is the one-call entry: compress (colour passing, or the trivial
// compression), run the Algorithm, and fill the statistics every run
// reports.
//
//	alg, m, err := infer.New("lbp", infer.Properties{"schedule": "seq"})
//	ans, err := infer.Run(ctx, alg, g, ev, infer.Options{Lifted: m.Lifted})
//	p := ans.Marginal(v)
//
// The belief propagation engine lives in infer/bp and registers "lbp"
// (lifted) and "bp" (ground); import it (or cmd/lifted does) to use them by
// name. infer/exact registers "wfomc" (exact, on the first-order model) and
// "auto" (wfomc, enumerate, jtree, lbp with fallbacks, mcsat); infer/jtree
// registers "jtree".
//
// Optional interfaces extend the seam: Fallbacks (retry variants of an
// iterative method, applied by Run under Options.Unconverged), FirstOrder
// (methods that answer on a Model, the MLN itself) and Chooser (methods
// that pick another per model); RunModel runs any method on a Model.
package infer

import (
	"context"
	"time"

	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/lift"
)

// Options configure the compression step and the query of a Run.
type Options struct {
	Lifted bool         // compress by colour passing first (else the trivial compression)
	Colour lift.Options // colour-passing mode and progress
	// Refiner computes the colouring when Lifted (nil: lift.ColourPassing;
	// lift.Parallel runs the same refinement on all cores).
	Refiner lift.Refiner
	Query   Query
	// Unconverged is what to do when an iterative method stops at its
	// iteration limit: Accept (the zero value) returns the answer marked
	// Converged false; Retry and Refuse try the method's Fallbacks first,
	// and Refuse returns a *NotConvergedError when none converged.
	Unconverged Unconverged
	// Clusters are partitions of the variables by evidence-based
	// clustering of the constants (ground.Grounding.EvidenceClusters),
	// the second route of approximate lifting: under Query.Tolerance,
	// Run tries each (lift.Partitioned) beside colour passing's
	// approximations, by compression. Ignored without a tolerance.
	Clusters []Clustering
}

// Compress returns the counted graph for g (the trivial one unless
// opt.Lifted) and fills the size and colour-passing fields of a Stats.
func Compress(ctx context.Context, g *fg.Graph, ev fg.Evidence, lifted bool, colour lift.Options) (*lift.Compressed, Stats, error) {
	return CompressWith(ctx, nil, g, ev, lifted, colour)
}

// CompressWith is Compress with a chosen refiner (nil: lift.ColourPassing).
func CompressWith(ctx context.Context, r lift.Refiner, g *fg.Graph, ev fg.Evidence, lifted bool, colour lift.Options) (*lift.Compressed, Stats, error) {
	if r == nil {
		r = lift.ColourPassing{}
	}
	st := Stats{Variables: g.NumVars(), Factors: g.NumFactors(), Edges: g.NumEdges()}
	var c *lift.Compressed
	var err error
	if lifted {
		var ls lift.Stats
		c, ls, err = lift.CompressWith(ctx, r, g, ev, colour)
		st.ColorIter, st.ColorSeconds, st.Lifting = ls.Iterations, ls.Seconds, "exact"
	} else {
		c, err = lift.GroundContext(ctx, g, ev)
	}
	if err != nil {
		return nil, st, err
	}
	st.Clusternodes, st.Clusterfactors, st.LiftedEdges = c.NumNodes(), c.NumFactors(), c.NumEdges()
	return c, st, nil
}

// Run compresses g (colour passing if opt.Lifted) and runs alg on the
// counted graph, applying opt.Unconverged when alg stops without
// converging. The Answer's Stats hold the sizes, the colour-passing
// figures, the algorithm's own figures and the total seconds. A
// *NotConvergedError carries the last answer, with the same Stats.
func Run(ctx context.Context, alg Algorithm, g *fg.Graph, ev fg.Evidence, opt Options) (*Answer, error) {
	start := time.Now()
	var choice *Choice
	if ch, ok := alg.(Chooser); ok {
		x, err := ch.Choose(ctx, &Model{Graph: g, Evidence: ev}, opt.Query)
		if err != nil {
			return nil, err
		}
		choice = &x
		alg, opt.Lifted = x.Algorithm, x.Lifted
	}
	approx := alg
	if a, ok := alg.(Approximator); ok {
		approx = a.ApproxAlgorithm()
	}
	if est, ok := approx.(ErrorEstimator); ok && opt.Lifted && opt.Query.Tolerance > 0 && opt.Query.Task != MAP {
		ans, err := runApprox(ctx, approx, est, alg, g, ev, opt)
		if ans != nil {
			ans.Stats.chosen(choice)
			ans.Stats.Seconds = time.Since(start).Seconds()
		}
		return ans, err
	}
	c, st, err := CompressWith(ctx, opt.Refiner, g, ev, opt.Lifted, opt.Colour)
	if err != nil {
		return nil, err
	}
	ans, err := runConverging(ctx, alg, c, opt.Query, opt.Unconverged)
	if ans != nil {
		ans.Stats.chosen(choice)
		ans.Stats.withCompression(st)
		ans.Stats.Seconds = time.Since(start).Seconds()
	}
	if err != nil {
		return nil, err
	}
	return ans, nil
}

// withCompression copies the compression step's fields of c into s (the
// algorithm's own fields stay).
func (s *Stats) withCompression(c Stats) {
	s.Variables, s.Factors, s.Edges = c.Variables, c.Factors, c.Edges
	s.Clusternodes, s.Clusterfactors, s.LiftedEdges = c.Clusternodes, c.Clusterfactors, c.LiftedEdges
	s.ColorIter, s.ColorSeconds, s.Lifting = c.ColorIter, c.ColorSeconds, c.Lifting
}
