package dynamic

import (
	"context"
	"time"

	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/infer"
	"github.com/lifted-dev/lifted/infer/bp"
	"github.com/lifted-dev/lifted/lift"
)

// RunOptions configure FF and LFF runs.
type RunOptions struct {
	// Lifted selects LFF (colour passing, then BP on the compressed graph);
	// otherwise FF runs BP on the ground graph.
	Lifted bool
	// BP are the engine's options. Schedule bp.ForwardBackward is the
	// factored frontier protocol, bp.Flood flooding; VarSlice is set from
	// the model.
	BP bp.Options
	// Lift configures colour passing (LFF).
	Lift lift.Options
	// Algorithm, if set, runs instead of BP with the options BP: any
	// infer.Algorithm, on the compressed graph when Lifted. A method with
	// a method WithVarSlice([]int32) infer.Algorithm (BP has one) is given
	// the step of every variable first, which the forwards–backwards
	// protocol needs.
	Algorithm infer.Algorithm
	// Seed seeds randomised methods.
	Seed uint64
	// RecolourFromScratch makes Filter relift every step by colour
	// passing from scratch instead of incrementally (see Relifter); the
	// counted graphs, hence the answers, are the same.
	RecolourFromScratch bool
}

// Sliced is implemented by methods that can use the step of each variable
// (bp.Algorithm: the forwards–backwards protocol).
type Sliced interface {
	WithVarSlice(slice []int32) infer.Algorithm
}

// DefaultRunOptions returns LFF with the forwards–backwards protocol and the
// paper's convergence settings (1e-8, at most 1000 iterations).
func DefaultRunOptions() RunOptions {
	o := bp.DefaultOptions()
	o.Schedule = bp.ForwardBackward
	return RunOptions{Lifted: true, BP: o}
}

// Stats describe one run: the sizes of the graph BP ran on (lifted edges,
// clusternodes, clusterfactors; ground sizes for FF) and its work.
type Stats struct {
	Edges          int     `json:"edges"`
	ClusterNodes   int     `json:"clusternodes"`
	ClusterFactors int     `json:"clusterfactors"`
	Messages       int64   `json:"messages"`
	Iterations     int     `json:"iterations"`
	Converged      bool    `json:"converged"`
	LiftSeconds    float64 `json:"lift_seconds"`
	BPSeconds      float64 `json:"bp_seconds"`
}

// Relifter lifts the unrolled graph for LFF at every step of filtering,
// as the evidence of each new step arrives. It recolours from scratch
// through lift.Compress. The incremental recolouring API (lift.Recolourer,
// on another branch) plugs in here and only here: NewRecolourer at the first
// call, then Update(ctx, ev, changed) and Compress() at the next ones, which
// re-sign only the variables the new step's evidence clamps (changed) and
// the neighbourhoods of nodes whose class changes.
type Relifter struct {
	// Incremental recolours only what each step's evidence touches
	// (lift.Recolourer: seeded refinement from the previous stable
	// colouring, then colour passing on the quotient where classes may
	// merge); false recolours from scratch. Both give the same counted
	// graph. NewRelifter sets it.
	Incremental bool

	g   *fg.Graph
	opt lift.Options
	rc  *lift.Recolourer
}

// NewRelifter returns an incremental Relifter for g.
func NewRelifter(g *fg.Graph, opt lift.Options) *Relifter {
	return &Relifter{Incremental: true, g: g, opt: opt}
}

// Lift returns the counted graph of g under evidence ev; changed lists the
// variables whose evidence differs from the previous call's (all observed
// ones at the first call).
func (r *Relifter) Lift(ctx context.Context, ev fg.Evidence, changed []int32) (*lift.Compressed, error) {
	if !r.Incremental {
		c, _, err := lift.Compress(ctx, r.g, ev, r.opt)
		return c, err
	}
	if r.rc == nil {
		rc, err := lift.NewRecolourer(ctx, r.g, ev, r.opt)
		if err != nil {
			return nil, err
		}
		r.rc = rc
	} else if _, err := r.rc.Update(ctx, ev, changed); err != nil {
		return nil, err
	}
	return r.rc.Compress()
}

// Run runs FF or LFF (or RunOptions.Algorithm) on the model with evidence ev
// (see EvidenceUpTo).
func (md *Model) Run(ctx context.Context, ev fg.Evidence, opt RunOptions) (*infer.Answer, Stats, error) {
	return md.run(ctx, ev, nil, nil, opt)
}

// run is Run with the Relifter of a filtering run (nil: a new one) and the
// variables whose evidence changed since its last call.
func (md *Model) run(ctx context.Context, ev fg.Evidence, rl *Relifter, changed []int32, opt RunOptions) (*infer.Answer, Stats, error) {
	g := md.Grounding.Graph
	var st Stats
	start := time.Now()
	var c *lift.Compressed
	var err error
	if opt.Lifted {
		if rl == nil {
			rl = NewRelifter(g, opt.Lift)
		}
		c, err = rl.Lift(ctx, ev, changed)
	} else {
		c, err = lift.GroundContext(ctx, g, ev)
	}
	if err != nil {
		return nil, st, err
	}
	st.LiftSeconds = time.Since(start).Seconds()
	alg := opt.Algorithm
	if alg == nil {
		alg = bp.New(opt.BP)
	}
	if s, ok := alg.(Sliced); ok {
		alg = s.WithVarSlice(md.VarSlice)
	}
	ans, err := alg.Run(ctx, c, infer.Query{Task: infer.Marginals, Seed: opt.Seed})
	if err != nil {
		return nil, st, err
	}
	st.Edges, st.ClusterNodes, st.ClusterFactors = c.NumEdges(), c.NumNodes(), c.NumFactors()
	st.Messages, st.Iterations, st.Converged, st.BPSeconds = ans.Stats.Messages, ans.Stats.BPIterations, ans.Converged, ans.Stats.Seconds
	return ans, st, nil
}

// Step is the answer at one time step.
type Step struct {
	Step int
	// Marginals maps an index into Model.Queries to P(atom true).
	Marginals map[int]float64
	Stats     Stats
}

// Filter runs, for t = 0..Horizon, FF or LFF with the evidence of steps
// 0..t and calls fn with the marginals of the query atoms of step t: the
// filtered estimates P(X_t | e_0..t) as evidence streams in. Each step
// relifts through one Relifter, told which variables the step's evidence
// clamps.
func (md *Model) Filter(ctx context.Context, opt RunOptions, fn func(Step) error) error {
	rl := NewRelifter(md.Grounding.Graph, opt.Lift)
	rl.Incremental = !opt.RecolourFromScratch
	for t := 0; t <= md.Horizon; t++ {
		var changed []int32
		for _, o := range md.Evidence[t] {
			changed = append(changed, o.Var)
		}
		res, st, err := md.run(ctx, md.EvidenceUpTo(t), rl, changed, opt)
		if err != nil {
			return err
		}
		s := Step{Step: t, Marginals: map[int]float64{}, Stats: st}
		for i, q := range md.Queries {
			if q.Step == t {
				s.Marginals[i] = res.Marginal(int(q.Var))[1]
			}
		}
		if err := fn(s); err != nil {
			return err
		}
	}
	return nil
}

// Smooth runs FF or LFF with all the evidence and returns the marginals of
// all query atoms (smoothed estimates P(X_t | e_0..T)).
func (md *Model) Smooth(ctx context.Context, opt RunOptions) (Step, error) {
	res, st, err := md.Run(ctx, md.EvidenceUpTo(md.Horizon), opt)
	if err != nil {
		return Step{}, err
	}
	s := Step{Step: md.Horizon, Marginals: map[int]float64{}, Stats: st}
	for i, q := range md.Queries {
		s.Marginals[i] = res.Marginal(int(q.Var))[1]
	}
	return s, nil
}
