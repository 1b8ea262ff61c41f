package engine

import (
	"context"
	"fmt"
	"math"

	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/ground"
	"github.com/lifted-dev/lifted/infer"
	"github.com/lifted-dev/lifted/lift"
)

// GroundGraph returns the factor graph the model's queries run on when
// grounded: the model itself, or an MLN's grounding (under req's query
// atoms and grounding options; no query is needed), with its evidence and
// the colour-passing options req asks for.
func (m *Model) GroundGraph(ctx context.Context, req Request) (*fg.Graph, fg.Evidence, lift.Options, error) {
	g, ev, opt, _, err := m.GroundGraphClusters(ctx, req)
	return g, ev, opt, err
}

// GroundGraphClusters is GroundGraph with, for an MLN, the evidence-based
// clusterings of its grounding (EvidenceClusterings; nil for a factor
// graph): what lifted infer --tolerance tries beside approximate colour
// passing.
func (m *Model) GroundGraphClusters(ctx context.Context, req Request) (*fg.Graph, fg.Evidence, lift.Options, []infer.Clustering, error) {
	var opt lift.Options
	mode, err := ColourMode(req.ColourMode, m.Format)
	if err != nil {
		return nil, nil, opt, nil, err
	}
	opt.Mode = mode
	g, ev := m.Graph, m.Evidence
	var cl []infer.Clustering
	if m.IsMLN() {
		r, err := m.mlnRunFor(req)
		if err != nil {
			return nil, nil, opt, nil, err
		}
		gr, err := r.ground(ctx, r.gopt)
		if err != nil {
			return nil, nil, opt, nil, err
		}
		g, cl = gr.Graph, EvidenceClusterings(gr)
	}
	if mode == lift.Symmetric {
		opt.Symmetric = SymmetricTables(g)
	}
	return g, ev, opt, cl, nil
}

// EvidenceClusterings returns the evidence-based clusterings of a
// grounding's constants that approximate lifting tries
// (infer.Options.Clusters): evidence counts within a factor 2 of each
// other (ground.Grounding.EvidenceClusters(1)), and the same kinds of
// evidence present (+Inf).
func EvidenceClusterings(gr *ground.Grounding) []infer.Clustering {
	return []infer.Clustering{
		{Name: "evidence counts within 2x", Class: gr.EvidenceClusters(1)},
		{Name: "evidence kinds", Class: gr.EvidenceClusters(math.Inf(1))},
	}
}

// mlnRunFor prepares a run on the MLN without a method: the query atoms
// (none needed) and the grounding options.
func (m *Model) mlnRunFor(req Request) (*mlnRun, error) {
	if m.DB == nil {
		return nil, requestErrorf("%s: the model was loaded for a dynamic run", m.Path)
	}
	q, err := ParseQuery(m.MLN, m.DB, req.Query, req.QueryFiles)
	if err != nil {
		return nil, err
	}
	mode, err := ColourMode(req.ColourMode, m.Format)
	if err != nil {
		return nil, err
	}
	r := &mlnRun{setup: &setup{req: req}, m: m, gopt: groundOptions(req.Ground)}
	r.gopt.QueryAtoms = q
	r.opt.Colour.Mode = mode
	return r, nil
}

// Compress runs colour passing only and returns a Result with the sizes
// of the counted graph in Stats (the inference fields zero): for an MLN
// the first-order network's where the construction applies, else the
// grounding's. Under req.Tolerance it compresses approximately, which
// takes lifted BP to choose the approximation (compressApprox).
func (m *Model) Compress(ctx context.Context, req Request) (*Result, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	if req.Tolerance > 0 {
		return m.compressApprox(ctx, req)
	}
	ref, err := Refiner(req.Workers)
	if err != nil {
		return nil, err
	}
	colourProgress := func(round, vc, fc int) {}
	if req.Progress != nil {
		colourProgress = func(round, vc, fc int) {
			req.Progress(Progress{Stage: "colour passing", Detail: fmt.Sprintf("round %d, %d variable and %d factor colours", round, vc, fc)})
		}
	}
	if !m.IsMLN() {
		g, ev, colour, err := m.GroundGraph(ctx, req)
		if err != nil {
			return nil, err
		}
		colour.Progress = colourProgress
		_, st, err := infer.CompressWith(ctx, ref, g, ev, true, colour)
		if err != nil {
			return nil, err
		}
		return &Result{Route: RouteGraph, Converged: true, Stats: infer.MLNStats{Stats: st}}, nil
	}
	r, err := m.mlnRunFor(req)
	if err != nil {
		return nil, err
	}
	if err := checkConstruction(req.Ground.Construction); err != nil {
		return nil, err
	}
	net, why, err := r.firstOrderNetwork(ctx, false)
	if err != nil {
		return nil, mlnError(m.Path, err)
	}
	if net != nil {
		st := infer.Stats{Variables: int(net.Atoms), Factors: int(net.Factors), Edges: int(GroundEdges(net.Compressed)),
			Clusternodes: net.NumNodes(), Clusterfactors: net.NumFactors(), LiftedEdges: net.NumEdges(),
			ColorIter: net.Iterations, ColorSeconds: net.Seconds, Lifting: "exact"}
		return &Result{Route: RouteFirstOrder, Converged: true, Stats: FirstOrderStats(st, net), net: net}, nil
	}
	gr, err := r.ground(ctx, r.gopt)
	if err != nil {
		return nil, err
	}
	colour := r.opt.Colour
	if colour.Mode == lift.Symmetric {
		colour.Symmetric = SymmetricTables(gr.Graph)
	}
	colour.Progress = colourProgress
	_, st, err := infer.CompressWith(ctx, ref, gr.Graph, nil, true, colour)
	if err != nil {
		return nil, mlnError(m.Path, err)
	}
	return &Result{Route: RouteGrounded, Converged: true, Stats: groundedStats(st, gr, why)}, nil
}

// groundedStats are the statistics of a run on a grounding.
func groundedStats(st infer.Stats, gr *ground.Grounding, why string) infer.MLNStats {
	return infer.MLNStats{Stats: st, GroundAtoms: int64(gr.NumAtoms), GroundFormulas: gr.NumFormulas, GroundSeconds: gr.Seconds,
		ConstructionReason: why}
}

func checkConstruction(c string) error {
	switch c {
	case "", ConstructFirstOrder, ConstructGround:
		return nil
	}
	return requestErrorf("unknown construction %q (want first-order or ground)", c)
}

// compressApprox is Compress under a tolerance: the approximation that
// lifted BP (req.Method "lbp" unless set, req.Properties) takes under it
// (infer.Query.Tolerance), found by running it; the Stats are that
// run's, the inference fields included (an unconverged run is reported,
// not refused).
func (m *Model) compressApprox(ctx context.Context, req Request) (*Result, error) {
	if req.Method == "" {
		req.Method = "lbp"
	}
	req.Task = Marginals
	req.AllowUnconverged = true
	return m.Run(ctx, req)
}
