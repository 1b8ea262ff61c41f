package maplp

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/infer"
	"github.com/lifted-dev/lifted/lift"
)

// Algorithm is the infer.Algorithm "lp" (Config.ILP false) and "ilp": MAP
// queries only, on the ground graph (the trivial compression; it lifts by
// its own Symmetry). Its Answer has Assignment, Stats.Objective (the log
// score of the world), Stats.Bound and Stats.Gap, the LP sizes and cut
// counts; Converged is false when the cutting planes stopped at
// max-rounds with inequalities still violated and the world is not proved
// optimal.
type Algorithm struct {
	Config    Config
	TimeLimit time.Duration
}

// Run solves the MAP LP of c.Ground with c's evidence.
func (a Algorithm) Run(ctx context.Context, c *lift.Compressed, q infer.Query) (*infer.Answer, error) {
	name := "lp"
	if a.Config.ILP {
		name = "ilp"
	}
	if q.Task != infer.MAP {
		return nil, fmt.Errorf("%s: answers MAP queries only, not %s (use --max-product)", name, q.Task)
	}
	g := c.Ground
	if c.NumNodes() != g.NumVars() {
		return nil, fmt.Errorf("%s: needs the ground graph (the trivial compression; it lifts by its symmetry property), got %d clusternodes for %d variables", name, c.NumNodes(), g.NumVars())
	}
	ev := make(fg.Evidence, g.NumVars())
	for v := range ev {
		ev[v] = c.NodeEvidence[c.NodeOf[v]]
	}
	parent := ctx
	if a.TimeLimit > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, a.TimeLimit)
		defer cancel()
	}
	cfg := a.Config
	if q.Progress != nil {
		cfg.Progress = func(r Round) {
			b := r.Bound
			q.Progress(infer.Progress{Iteration: r.Round, MaxChange: r.MaxViolation, Bound: &b, Cuts: r.Cuts})
		}
	}
	res, err := Solve(ctx, g, ev, cfg)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	// The time limit, not the caller, stopped it: the best so far, marked
	// time-limited (exit 0), not interrupted.
	timeLimited := res.Interrupted && parent.Err() == nil
	interrupted := res.Interrupted && !timeLimited
	obj, bound, gap := res.Objective, res.Bound, res.Gap
	// Converged: the relaxation asked for is solved (no violated cycle
	// inequality left), or the world is proved a MAP world (an integral
	// LP optimum: gap 0), whatever cuts remained.
	converged := cfg.Relaxation != Cycle || res.CutsDone || res.Optimal
	if cfg.ILP {
		converged = res.Optimal
	}
	// Cut by the time limit: a valid world and bound, the best so far, as
	// map-auto's (the answer is marked time-limited instead).
	converged = converged || timeLimited
	return &infer.Answer{
		Graph: c, Task: q.Task, Assignment: res.X, LogZKind: infer.NoLogZ, Converged: converged,
		Stats: infer.Stats{
			Converged: converged, BPIterations: res.CutRounds, Objective: &obj, Bound: &bound, Gap: &gap,
			Orbits: res.VarClasses, LPVariables: res.LPVariables, LPConstraints: res.LPConstraints,
			Cuts: res.Cuts, CutRounds: res.CutRounds, Interrupted: interrupted, TimeLimited: timeLimited,
		},
	}, nil
}

var props = []infer.Property{
	{Name: "relaxation", Default: "cycle", Help: "local (the local polytope) or cycle (plus cycle inequalities by cutting planes)"},
	{Name: "symmetry", Default: "none", Help: "the partition the LP is lifted over: none, colour (LOCAL only), orbits or renaming"},
	{Name: "solver", Default: "auto", Help: "LP solver: simplex (exact, small LPs), pdlp (first order, large LPs) or auto; for ilp in builds with -tags coin also cbc (COIN-OR Cbc instead of branch and bound)"},
	{Name: "separation", Default: "ground", Help: "lifted cycle separation: ground (expand, separate on the ground graph from one variable per orbit, fold; measured faster) or stabiliser (on the lifted graph fixing each orbit's representative, Theorem 7.1; orbits and renaming)"},
	{Name: "tol", Default: "1e-6", Help: "a cycle inequality violated by less counts as satisfied"},
	{Name: "max-rounds", Default: "100", Help: "most cutting-plane rounds"},
	{Name: "time-limit", Default: "0", Help: "stop after this long with the bound and world so far, e.g. 30s (0: none)"},
}

func init() {
	infer.Register(infer.Method{
		Name:    "lp",
		Summary: "MAP by LP relaxation (local polytope, cycle inequalities by cutting planes), lifted over symmetry orbits; gives a bound",
		Tasks:   []infer.Task{infer.MAP},
		Props:   props,
		New:     func(p infer.Properties) (infer.Algorithm, error) { return newAlgorithm("lp", p) },
	})
	infer.Register(infer.Method{
		Name:    "ilp",
		Summary: "exact MAP by branch and bound on the LP relaxation (small models)",
		Tasks:   []infer.Task{infer.MAP},
		Props:   props,
		New:     func(p infer.Properties) (infer.Algorithm, error) { return newAlgorithm("ilp", p) },
	})
}

func newAlgorithm(name string, p infer.Properties) (infer.Algorithm, error) {
	m, _ := infer.Lookup(name)
	a := Algorithm{Config: Config{ILP: name == "ilp"}}
	switch r := p.String(m, "relaxation"); r {
	case "local", "cycle":
		a.Config.Relaxation = Relaxation(r)
	default:
		return nil, &infer.PropertyError{Method: m.Name, Name: "relaxation", Value: r, Want: "local or cycle"}
	}
	symName := p.String(m, "symmetry")
	sym, err := LookupSymmetry(symName)
	if err != nil {
		return nil, &infer.PropertyError{Method: m.Name, Name: "symmetry", Value: symName, Want: "none, colour, orbits or renaming"}
	}
	if symName == "colour" || symName == "color" {
		if a.Config.Relaxation == Cycle && !a.Config.ILP {
			return nil, &infer.PropertyError{Method: m.Name, Name: "symmetry", Value: symName, Msg: "colour " + strings.TrimPrefix(ErrColourCycle.Error(), "maplp: the colour partition (colour passing) ")}
		}
	}
	a.Config.Symmetry = sym
	switch s := p.String(m, "solver"); s {
	case "auto":
		a.Config.Solver = Auto{}
	case "simplex":
		a.Config.Solver = Simplex{}
	case "pdlp":
		a.Config.Solver = PDLP{}
	case "cbc":
		if name != "ilp" || cbcSolve == nil {
			return nil, &infer.PropertyError{Method: m.Name, Name: "solver", Value: s, Msg: "cbc solves ilp only, in builds with -tags coin (Debian coinor-libcbc-dev)"}
		}
		a.Config.Solver, a.Config.Cbc = Auto{}, true
	default:
		return nil, &infer.PropertyError{Method: m.Name, Name: "solver", Value: s, Want: "auto, simplex, pdlp or (ilp, -tags coin) cbc"}
	}
	switch sp := p.String(m, "separation"); sp {
	case "stabiliser", "stabilizer":
	case "ground":
		a.Config.GroundSeparation = true
	default:
		return nil, &infer.PropertyError{Method: m.Name, Name: "separation", Value: sp, Want: "stabiliser or ground"}
	}
	if a.Config.Tol, err = p.Float(m, "tol"); err != nil {
		return nil, err
	}
	if !(a.Config.Tol > 0 && a.Config.Tol < 1) {
		return nil, &infer.PropertyError{Method: m.Name, Name: "tol", Msg: "must be in (0, 1), got " + p.String(m, "tol")}
	}
	if a.Config.MaxRounds, err = p.Int(m, "max-rounds"); err != nil {
		return nil, err
	}
	if a.Config.MaxRounds < 1 {
		return nil, &infer.PropertyError{Method: m.Name, Name: "max-rounds", Msg: "must be at least 1, got " + p.String(m, "max-rounds")}
	}
	if tl := p.String(m, "time-limit"); tl != "0" {
		if a.TimeLimit, err = time.ParseDuration(tl); err != nil || a.TimeLimit < 0 {
			return nil, &infer.PropertyError{Method: m.Name, Name: "time-limit", Value: tl, Msg: fmt.Sprintf("must be a duration such as 30s or 5m, got %q", tl)}
		}
	}
	return a, nil
}
