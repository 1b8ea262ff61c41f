// Package infer is the one-call library entry to (lifted) belief propagation:
// compress a factor graph by colour passing (or take it as it is), run BP on
// the counted graph, and report the statistics every run reports.
//
//	res, err := infer.Run(ctx, g, ev, infer.DefaultOptions())
//	p := res.BP.Marginal(v)
package infer

import (
	"context"
	"time"

	"github.com/lifted-dev/lifted/bp"
	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/lift"
)

// Options select ground or lifted BP and configure both steps.
type Options struct {
	Lifted bool         // compress by colour passing first
	Colour lift.Options // colour-passing mode
	BP     bp.Options
}

// DefaultOptions returns lifted BP with the paper's defaults.
func DefaultOptions() Options { return Options{Lifted: true, BP: bp.DefaultOptions()} }

// Stats are the figures of a run, under the JSON keys the command prints.
type Stats struct {
	Variables      int     `json:"variables"`
	Factors        int     `json:"factors"`
	Edges          int     `json:"edges"`
	Clusternodes   int     `json:"clusternodes"`
	Clusterfactors int     `json:"clusterfactors"`
	LiftedEdges    int     `json:"lifted_edges"`
	ColorIter      int     `json:"color_iterations"`
	ColorSeconds   float64 `json:"color_seconds"`
	BPIterations   int     `json:"bp_iterations"`
	Messages       int64   `json:"messages"`
	Converged      bool    `json:"converged"`
	Seconds        float64 `json:"seconds"`
}

// Result is BP's answer and the run's statistics.
type Result struct {
	BP    *bp.Result
	Stats Stats
}

// Compress returns the counted graph for g (the trivial one unless
// opt.Lifted) and fills the size and colour-passing fields of a Stats.
func Compress(ctx context.Context, g *fg.Graph, ev fg.Evidence, opt Options) (*lift.Compressed, Stats, error) {
	st := Stats{Variables: g.NumVars(), Factors: g.NumFactors(), Edges: g.NumEdges()}
	var c *lift.Compressed
	var err error
	if opt.Lifted {
		var ls lift.Stats
		c, ls, err = lift.Compress(ctx, g, ev, opt.Colour)
		st.ColorIter, st.ColorSeconds = ls.Iterations, ls.Seconds
	} else {
		c, err = lift.Ground(g, ev)
	}
	if err != nil {
		return nil, st, err
	}
	st.Clusternodes, st.Clusterfactors, st.LiftedEdges = c.NumNodes(), c.NumFactors(), c.NumEdges()
	return c, st, nil
}

// Run compresses g (if opt.Lifted) and runs BP.
func Run(ctx context.Context, g *fg.Graph, ev fg.Evidence, opt Options) (*Result, error) {
	start := time.Now()
	c, st, err := Compress(ctx, g, ev, opt)
	if err != nil {
		return nil, err
	}
	r, err := bp.Run(ctx, c, opt.BP)
	if err != nil {
		return nil, err
	}
	st.BPIterations, st.Messages, st.Converged = r.Iterations, r.Messages, r.Converged
	st.Seconds = time.Since(start).Seconds()
	return &Result{BP: r, Stats: st}, nil
}
