package mapauto

import (
	"context"
	"fmt"
	"time"

	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/infer"
	"github.com/lifted-dev/lifted/lift"
)

// Algorithm is the infer.Algorithm "map-auto": MAP queries only, on the
// ground graph (the trivial compression). Its Answer has Assignment and
// Stats.Objective, Bound and Gap (graph scale; infer.RunModel adds the
// grounding's offset on an MLN), the components (number, proved optimal,
// size histogram), BPIterations (the dual sweeps), Converged (true) and
// TimeLimited (the time limit cut a phase short: the world and the bound
// are valid, but more time could improve them).
type Algorithm struct{ Config Config }

// Run solves c.Ground with c's evidence; q.Seed seeds the search,
// q.Workers sets the cores, q.Progress gets the objective and bound after
// every component.
func (a Algorithm) Run(ctx context.Context, c *lift.Compressed, q infer.Query) (*infer.Answer, error) {
	if q.Task != infer.MAP {
		return nil, fmt.Errorf("%s: answers MAP queries only, not %s (use --max-product)", Name, q.Task)
	}
	g := c.Ground
	if c.NumNodes() != g.NumVars() {
		return nil, fmt.Errorf("%s: needs the ground graph (the trivial compression), got %d clusternodes for %d variables", Name, c.NumNodes(), g.NumVars())
	}
	ev := make(fg.Evidence, g.NumVars())
	for v := range ev {
		ev[v] = c.NodeEvidence[c.NodeOf[v]]
	}
	cfg := a.Config
	cfg.Seed, cfg.Workers = q.Seed, q.Workers
	if q.Progress != nil {
		it := 0
		cfg.Progress = func(p Progress) {
			it++
			b, o := p.Bound, p.Objective
			q.Progress(infer.Progress{Iteration: it, MaxChange: b - o, Bound: &b, Objective: &o})
		}
	}
	res, err := Solve(ctx, g, ev, cfg)
	if err != nil {
		return nil, err
	}
	obj, bound, gap := res.Objective, res.Bound, res.Gap
	return &infer.Answer{
		Graph: c, Task: q.Task, Assignment: res.X, LogZKind: infer.NoLogZ, Converged: true,
		Stats: infer.Stats{
			Converged: true, BPIterations: res.Sweeps, Objective: &obj, Bound: &bound, Gap: &gap,
			TimeLimited: res.TimeLimited, Components: res.Components, ExactComponents: res.Exact, ComponentSizes: res.Sizes,
		},
	}, nil
}

func init() {
	infer.Register(infer.Method{
		Name:    Name,
		Summary: "anytime MAP with a bound: MaxWalkSAT per connected component, then exact branch and bound on small components and an LP dual bound on large ones, within its work budgets (and time-limit when set)",
		Tasks:   []infer.Task{infer.MAP},
		Props: []infer.Property{
			{Name: "time-limit", Default: "0", Help: "stop improving the world and the bound after this long, e.g. 1m, and mark the answer time-limited (the first worlds are always found; 0 or none: no limit, the work budgets bound the run and the answer does not depend on the load)"},
			{Name: "tries", Default: "1", Help: "MaxWalkSAT restarts per component"},
			{Name: "max-flips", Default: "100000", Help: "MaxWalkSAT steps per try, shared out among the components"},
			{Name: "noise", Default: "0.5", Help: "MaxWalkSAT's probability of a random-walk step"},
			{Name: "jtree-table", Default: fmt.Sprint(DefaultJTreeTable), Help: "solve components whose junction tree's largest table has at most this many entries exactly by max-product (0: never)"},
			{Name: "ilp-columns", Default: fmt.Sprint(DefaultILPColumns), Help: "solve components whose LP has at most this many columns exactly by branch and bound (0: never)"},
			{Name: "max-sweeps", Default: fmt.Sprint(DefaultMaxSweeps), Help: "most dual coordinate-descent sweeps per component"},
			{Name: "dual-work", Default: fmt.Sprintf("%g", DefaultDualWork), Help: fmt.Sprintf("fewer dual sweeps for a large component: at most this many factor visits (sweeps × its factors), at least %d sweeps (0: max-sweeps only)", MinSweeps)},
		},
		New: newAlgorithm,
	})
}

func newAlgorithm(p infer.Properties) (infer.Algorithm, error) {
	m, _ := infer.Lookup(Name)
	var cfg Config
	var err error
	switch tl := p.String(m, "time-limit"); tl {
	case "none", "0":
	default:
		if cfg.TimeLimit, err = time.ParseDuration(tl); err != nil || cfg.TimeLimit < 0 {
			return nil, &infer.PropertyError{Method: m.Name, Name: "time-limit", Value: tl, Msg: fmt.Sprintf("must be a duration such as 10s or 2m, or none, got %q", tl)}
		}
	}
	if cfg.DualWork, err = p.Float(m, "dual-work"); err != nil {
		return nil, err
	}
	if !(cfg.DualWork >= 0 && cfg.DualWork <= 1e15) {
		return nil, &infer.PropertyError{Method: m.Name, Name: "dual-work", Msg: "must be a non-negative number of factor visits, got " + p.String(m, "dual-work")}
	}
	if cfg.DualWork == 0 {
		cfg.DualWork = -1
	}
	ints := []struct {
		name string
		dst  *int
		min  int
	}{{"tries", &cfg.Search.Tries, 1}, {"max-flips", &cfg.Search.MaxFlips, 1}, {"ilp-columns", &cfg.ILPColumns, 0}, {"jtree-table", &cfg.JTreeTable, 0}, {"max-sweeps", &cfg.MaxSweeps, 1}}
	for _, x := range ints {
		if *x.dst, err = p.Int(m, x.name); err != nil {
			return nil, err
		}
		if *x.dst < x.min {
			return nil, &infer.PropertyError{Method: m.Name, Name: x.name, Msg: fmt.Sprintf("must be at least %d, got %s", x.min, p.String(m, x.name))}
		}
	}
	if cfg.ILPColumns == 0 {
		cfg.ILPColumns = -1
	}
	if cfg.JTreeTable == 0 {
		cfg.JTreeTable = -1
	}
	if cfg.Search.Noise, err = p.Float(m, "noise"); err != nil {
		return nil, err
	}
	if !(cfg.Search.Noise >= 0 && cfg.Search.Noise <= 1) {
		return nil, &infer.PropertyError{Method: m.Name, Name: "noise", Msg: "must be in [0, 1], got " + p.String(m, "noise")}
	}
	return Algorithm{Config: cfg}, nil
}
