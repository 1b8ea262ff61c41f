package maplp

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/infer/mws"
)

// Relaxation names the LP relaxation.
type Relaxation string

const (
	Local Relaxation = "local" // the local polytope
	Cycle Relaxation = "cycle" // local polytope plus cycle inequalities by cutting planes
)

// Config configures Solve.
type Config struct {
	Relaxation Relaxation
	Symmetry   Symmetry // nil: None (the ground LP)
	Solver     Solver   // nil: Auto
	// Tol is the violation below which a cycle inequality counts as
	// satisfied (default 1e-6).
	Tol float64
	// MaxRounds bounds the cutting-plane rounds (default 100); MaxCuts the
	// cuts added per round (default: the number of variables, at least 20).
	MaxRounds int
	MaxCuts   int
	// ILP asks for an exact MAP world: branch and bound on the (ground)
	// relaxation, whose LP bound prunes; its nodes are solved by Simplex.
	ILP bool
	// Cbc solves the ILP with COIN-OR Cbc instead of branch and bound
	// (builds with -tags coin only).
	Cbc bool
	// MaxNodes bounds the branch-and-bound nodes (default 100000).
	MaxNodes int
	// GroundSeparation makes lifted CYCLE separate on the ground graph
	// (expand the lifted solution, separate from one variable per orbit,
	// fold each cut onto the orbit cells) even when the Symmetry gives
	// stabilisers; by default a StabiliserSymmetry separates on the lifted
	// graph fixing each orbit's representative (Theorem 7.1).
	GroundSeparation bool
	// Progress, if set, is called after every cutting-plane round.
	Progress func(Round)
}

// Round is the state after a cutting-plane round.
type Round struct {
	Round        int     // 0 is the LOCAL LP
	Bound        float64 // the LP value so far
	Cuts         int     // cuts added this round
	MaxViolation float64 // of the most violated inequality found
}

// Result is a MAP answer from the LP relaxation.
type Result struct {
	X         []int32 // a world: a state per variable
	Objective float64 // its log score Σ_f ln φ_f(x_f)
	// Bound is the LP value (on the scale of Objective): no world scores
	// more. Gap = Bound − Objective (0 up to round-off: X is a MAP world).
	Bound, Gap float64
	// Optimal says that X is proved a MAP world (ILP finished, or the LP
	// solution was integral).
	Optimal bool
	// CutsDone says that no cycle inequality is violated by more than Tol
	// (CYCLE); Interrupted that the context ended the run early (the
	// bound and world are those so far: still a bound and a world).
	CutsDone, Interrupted bool

	VarClasses, FactorClasses  int // the partition's classes
	LPVariables, LPConstraints int // of the final LP (cuts included)
	Cuts, CutRounds            int
	Nodes                      int // branch-and-bound nodes (ILP)
	Rounds                     []Round
	Seconds                    float64
	Solver                     string
}

// Solve computes a MAP world of g given ev by the LP relaxation over the
// configured symmetry: build the LOCAL LP over the partition's classes,
// solve it, and for the CYCLE relaxation add the most violated cycle
// inequalities and solve again until none is violated by more than Tol;
// then decode a world by rounding (each variable takes the state of largest
// marginal) followed by greedy one-variable local search (and, if that
// leaves a zero factor, MaxWalkSAT, which seeks the hard constraints first). With ILP, branch
// and bound on the ground relaxation proves the optimum.
func Solve(ctx context.Context, g *fg.Graph, ev fg.Evidence, cfg Config) (*Result, error) {
	start := time.Now()
	if ev == nil {
		ev = fg.NoEvidence(g.NumVars())
	}
	if err := g.CheckEvidence(ev); err != nil {
		return nil, err
	}
	if cfg.Relaxation == "" {
		cfg.Relaxation = Cycle
	}
	if cfg.Relaxation != Local && cfg.Relaxation != Cycle {
		return nil, fmt.Errorf("maplp: unknown relaxation %q (want local or cycle)", cfg.Relaxation)
	}
	if cfg.Symmetry == nil || cfg.ILP {
		cfg.Symmetry = None{}
	}
	if cfg.Tol <= 0 {
		cfg.Tol = 1e-6
	}
	if cfg.MaxRounds <= 0 {
		cfg.MaxRounds = 100
	}
	if cfg.MaxCuts <= 0 {
		cfg.MaxCuts = max(20, g.NumVars())
	}
	solver := cfg.Solver
	if solver == nil {
		solver = Auto{}
	}
	res := &Result{Solver: solver.Name()}
	// Stopped (a time limit, Ctrl-C) before the first LP, while grouping,
	// building the LP or solving it: a world by greedy search from every
	// variable's first allowed state, and the trivial bound (the time
	// limit's answer so far, not an error).
	part, err := cfg.Symmetry.Group(ctx, g, ev)
	if err != nil && ctx.Err() != nil {
		return stoppedEarly(g, ev, res, start), nil
	}
	if err != nil {
		return nil, err
	}
	if cfg.Relaxation == Cycle && !part.Orbits {
		return nil, ErrColourCycle
	}
	res.VarClasses, res.FactorClasses = part.NumVarClasses, part.NumFactorClasses
	m, err := buildLocal(ctx, g, ev, part)
	if err != nil && ctx.Err() != nil {
		return stoppedEarly(g, ev, res, start), nil
	}
	if err != nil {
		return nil, err
	}
	sol, err := solveLP(ctx, solver, m.lp)
	if err != nil && ctx.Err() != nil {
		return stoppedEarly(g, ev, res, start), nil
	}
	if err != nil {
		return nil, err
	}
	res.Rounds = append(res.Rounds, Round{Bound: sol.Value + m.offset})
	if cfg.Progress != nil {
		cfg.Progress(res.Rounds[0])
	}
	if cfg.Relaxation == Cycle {
		sep := newCycleSep(m)
		if ss, ok := cfg.Symmetry.(StabiliserSymmetry); ok && !cfg.GroundSeparation && sep.numEdges() > 0 {
			st, err := sep.buildStab(ctx, ss)
			switch {
			case err == nil:
				sep.stab = st
			case ctx.Err() != nil:
				// Stopped while building the stabilisers: the first LP's
				// bound and world, no cuts.
				res.Interrupted = true
			case !errors.Is(err, errNotFixed):
				return nil, err
			} // a stabiliser that does not fix its variable: ground separation
		}
		// A graph without cycles (no edge between two variables of
		// factors that could close one) has no cycle inequality to violate.
		res.CutsDone = sep.numEdges() == 0
		for r := 1; r <= cfg.MaxRounds && sep.numEdges() > 0 && !res.Interrupted; r++ {
			cuts, err := sep.separate(ctx, sol.X, cfg.Tol, cfg.MaxCuts)
			if err != nil && ctx.Err() != nil {
				res.Interrupted = true
				break
			}
			if err != nil {
				return nil, err
			}
			if len(cuts) == 0 {
				res.CutsDone = true
				break
			}
			rows := m.lp.NumRows()
			for _, k := range cuts {
				m.lp.AddRow(k.cols, k.vals, Le, k.rhs)
			}
			next, err := solveLP(ctx, solver, m.lp)
			if err != nil && ctx.Err() != nil { // keep the last LP and its cuts
				m.lp.truncate(rows)
				res.Interrupted = true
				break
			}
			if err != nil {
				return nil, err
			}
			sol = next
			res.Cuts += len(cuts)
			res.CutRounds = r
			rd := Round{Round: r, Bound: sol.Value + m.offset, Cuts: len(cuts), MaxViolation: cuts[0].viol}
			res.Rounds = append(res.Rounds, rd)
			if cfg.Progress != nil {
				cfg.Progress(rd)
			}
		}
	}
	res.LPVariables, res.LPConstraints = m.lp.NumCols(), m.lp.NumRows()
	res.Bound = sol.Value + m.offset
	res.X = m.round(sol.X)
	improve(g, ev, res.X)
	res.Objective = Score(g, res.X)
	if math.IsInf(res.Objective, -1) {
		// Rounding and greedy search left a zero factor: MaxWalkSAT,
		// which walks to a world of the hard constraints first.
		mr, err := mws.Solve(ctx, g, ev, mws.Config{Tries: 10, MaxFlips: 100000, Seed: 1})
		if err == nil && mr.Objective > res.Objective {
			res.X, res.Objective = mr.X, mr.Objective
		}
	}
	res.Optimal = integral(m, sol.X)
	if cfg.ILP && cfg.Cbc && !res.Optimal {
		if cbcSolve == nil {
			return nil, errors.New("maplp: the cbc ILP solver needs a build with -tags coin (Debian coinor-libcbc-dev)")
		}
		x, err := cbcSolve(ctx, m)
		if err != nil {
			return nil, err
		}
		res.X, res.Objective, res.Optimal = x, Score(g, x), true
		res.Bound = math.Min(res.Bound, res.Objective)
	}
	if cfg.ILP && !res.Optimal {
		// Branch and bound needs exact LP values and infeasibility
		// detection at every node: the simplex, whatever solved the root.
		if err := branchAndBound(ctx, m, Simplex{}, sol, res, cfg); err != nil {
			return nil, err
		}
	}
	if math.IsInf(res.Objective, -1) {
		return nil, fmt.Errorf("maplp: decoding found no world satisfying the hard constraints (zero entries); the LP bound is %g (try --method ilp)", res.Bound)
	}
	res.Gap = math.Max(0, res.Bound-res.Objective)
	res.Seconds = time.Since(start).Seconds()
	return res, nil
}

// stoppedSearch bounds the greedy search of a stopped run (stoppedEarly):
// the command's signal handler ends a command 0.45 s after Ctrl-C.
const stoppedSearch = 100 * time.Millisecond

// stoppedEarly is the answer of a run stopped before its first LP: the
// world of greedy one-variable search (for at most stoppedSearch) from
// each unobserved variable's first state, and the trivial bound Σ_f max ln φ_f over the entries that
// agree with the evidence; Interrupted.
func stoppedEarly(g *fg.Graph, ev fg.Evidence, res *Result, start time.Time) *Result {
	res.X = make([]int32, g.NumVars())
	for v, e := range ev {
		res.X[v] = max(e, 0)
	}
	improveUntil(g, ev, res.X, time.Now().Add(stoppedSearch))
	res.Objective = Score(g, res.X)
	res.Bound = 0
	for f := range g.NumFactors() {
		t := g.Table(f)
		scope := g.Scope(f)
		st := t.Strides()
		best := 0.0
		for k, val := range t.Values {
			ok := true
			for q, v := range scope {
				if e := ev[v]; e >= 0 && int32(k/st[q]%int(t.Dims[q])) != e {
					ok = false
					break
				}
			}
			if ok {
				best = math.Max(best, val)
			}
		}
		res.Bound += math.Log(best)
	}
	res.Gap = math.Max(0, res.Bound-res.Objective)
	if math.IsNaN(res.Gap) {
		res.Gap = math.Inf(1)
	}
	res.Interrupted = true
	res.Seconds = time.Since(start).Seconds()
	return res
}

// cbcSolve is set by the coin build: a MAP world of the ground model m by
// Cbc on its LP (cuts included) with integral variable marginals.
var cbcSolve func(ctx context.Context, m *model) ([]int32, error)

// ErrColourCycle refuses the colour partition for the CYCLE relaxation.
var ErrColourCycle = errors.New("maplp: the colour partition (colour passing) is valid for the LOCAL relaxation only: " +
	"it is an equitable partition, not the orbits of a symmetry group, and variables of one colour can lie on cycles " +
	"of different lengths (the regular Frucht graph), so the CYCLE LP over colour classes can cut off the MAP world " +
	"and is no bound; use relaxation local, or symmetry none or orbits")

func solveLP(ctx context.Context, s Solver, p *LP) (*Solution, error) {
	sol, err := s.Solve(ctx, p)
	if err != nil {
		return nil, err
	}
	switch sol.Status {
	case Infeasible:
		return nil, ErrInfeasible
	case Stopped:
		return nil, fmt.Errorf("maplp: %s stopped after %d iterations short of its tolerance (no bound); if the hard constraints admit no world, pdlp cannot tell (try solver simplex or --method ilp)", s.Name(), sol.Iterations)
	}
	return sol, nil
}

// integral says whether every variable marginal of x is 0 or 1.
func integral(m *model, x []float64) bool {
	for X, off := range m.nodeOff {
		end := int32(m.lp.NumCols())
		if X+1 < len(m.nodeOff) {
			end = m.nodeOff[X+1]
		} else if len(m.facOff) > 0 {
			end = m.facOff[0]
		}
		for c := off; c < end; c++ {
			if x[c] > 1e-6 && x[c] < 1-1e-6 {
				return false
			}
		}
	}
	return true
}

// branchAndBound proves the MAP world on the ground relaxation m (its cuts
// included): depth first, branching on the most fractional variable
// marginal μ_v(a) into x_v = a (the other states' marginals fixed at 0)
// and x_v ≠ a, pruning nodes whose LP bound does not beat the incumbent.
func branchAndBound(ctx context.Context, m *model, s Solver, root *Solution, res *Result, cfg Config) error {
	maxNodes := cfg.MaxNodes
	if maxNodes <= 0 {
		maxNodes = 100000
	}
	g := m.g
	best := res.Objective
	bestX := append([]int32(nil), res.X...)
	type node struct{ upper []float64 }
	stack := []node{{m.lp.Upper}}
	rootBound := root.Value + m.offset
	for len(stack) > 0 {
		if res.Nodes >= maxNodes {
			return fmt.Errorf("maplp: branch and bound stopped after %d nodes without proving the optimum (best %g, bound %g)", res.Nodes, best, rootBound)
		}
		if ctx.Err() != nil {
			res.X, res.Objective, res.Interrupted = bestX, best, true
			return nil
		}
		nd := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		res.Nodes++
		p := *m.lp
		p.Upper = nd.upper
		sol, err := s.Solve(ctx, &p)
		if err != nil && ctx.Err() != nil {
			res.X, res.Objective, res.Interrupted = bestX, best, true
			return nil
		}
		if err != nil {
			return err
		}
		if sol.Status == Infeasible {
			continue
		}
		bound := sol.Value + m.offset
		if bound <= best+1e-9*(1+math.Abs(best)) {
			continue
		}
		w := m.round(sol.X)
		improve(g, m.ev, w)
		if sc := Score(g, w); sc > best {
			best, bestX = sc, w
		}
		// Most fractional variable marginal.
		bv, ba, bd := -1, 0, 2.0
		for v := 0; v < g.NumVars(); v++ {
			off := int(m.nodeOff[v])
			for a := 0; a < int(g.Card[v]); a++ {
				if x := sol.X[off+a]; x > 1e-6 && x < 1-1e-6 && math.Abs(x-0.5) < bd {
					bv, ba, bd = v, a, math.Abs(x-0.5)
				}
			}
		}
		if bv < 0 { // integral: the rounded world is the LP optimum
			if sc := Score(g, m.round(sol.X)); sc > best {
				best, bestX = sc, m.round(sol.X)
			}
			continue
		}
		off := int(m.nodeOff[bv])
		eq := append([]float64(nil), nd.upper...)
		for a := 0; a < int(g.Card[bv]); a++ {
			if a != ba {
				eq[off+a] = 0
			}
		}
		ne := append([]float64(nil), nd.upper...)
		ne[off+ba] = 0
		if sol.X[off+ba] >= 0.5 {
			stack = append(stack, node{ne}, node{eq})
		} else {
			stack = append(stack, node{eq}, node{ne})
		}
	}
	res.X, res.Objective, res.Optimal = bestX, best, true
	res.Bound = math.Min(res.Bound, best) // proved: no world beats best
	if math.IsInf(best, -1) {
		return ErrInfeasible
	}
	return nil
}
