package mws

import (
	"context"

	"fmt"
	"time"

	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/infer"
	"github.com/lifted-dev/lifted/lift"
)

// Algorithm is the infer.Algorithm "maxwalksat": MAP queries only, on the
// ground graph (the trivial compression). Its Answer has Assignment (a
// state per ground variable), no beliefs, no log Z, and Stats.Objective
// (the log score of the world), BPIterations (the flips), Converged
// (true: a local search has no convergence to miss) and the components
// (number, exactly solved, size histogram). q.Workers components are
// searched at once.
type Algorithm struct{ Config Config }

// Run searches c.Ground with c's evidence, seeded by q.Seed.
func (a Algorithm) Run(ctx context.Context, c *lift.Compressed, q infer.Query) (*infer.Answer, error) {
	if q.Task != infer.MAP {
		return nil, fmt.Errorf("maxwalksat: answers MAP queries only, not %s (use --max-product)", q.Task)
	}
	g := c.Ground
	if c.NumNodes() != g.NumVars() {
		return nil, fmt.Errorf("maxwalksat: needs the ground graph (the trivial compression), got %d clusternodes for %d variables", c.NumNodes(), g.NumVars())
	}
	ev := make(fg.Evidence, g.NumVars())
	for v := range ev {
		ev[v] = c.NodeEvidence[c.NodeOf[v]]
	}
	cfg := a.Config
	cfg.Seed = q.Seed
	cfg.Workers = q.Workers
	res, err := Solve(ctx, g, ev, cfg)
	if err != nil {
		return nil, err
	}
	obj := res.Objective
	return &infer.Answer{
		Graph: c, Task: q.Task, Assignment: res.X, LogZKind: infer.NoLogZ, Converged: true,
		Stats: infer.Stats{Converged: true, BPIterations: int(res.Flips), Objective: &obj, Interrupted: res.Interrupted, TimeLimited: res.TimeLimited,
			Components: res.Components, ExactComponents: res.Exact, ComponentSizes: res.Sizes},
	}, nil
}

func init() {
	infer.Register(infer.Method{
		Name:    "maxwalksat",
		Summary: "MAP by MaxWalkSAT local search (Alchemy's -m; needs --max-product)",
		Tasks:   []infer.Task{infer.MAP},
		Props: []infer.Property{
			{Name: "tries", Default: "1", Help: "restarts from a random world"},
			{Name: "max-flips", Default: "100000", Help: "steps per try"},
			{Name: "noise", Default: "0.5", Help: "probability of a random-walk step"},
			{Name: "time-limit", Default: "0", Help: "stop after this long, keeping the best world, e.g. 30s (0: none)"},
			{Name: "components", Default: "true", Help: "search each connected component of the ground network on its own (false: the whole graph at once)"},
			{Name: "exact-limit", Default: "4096", Help: "enumerate components with at most this many worlds (0: never)"},
		},
		New: newAlgorithm,
	})
}

func newAlgorithm(p infer.Properties) (infer.Algorithm, error) {
	m, _ := infer.Lookup("maxwalksat")
	var cfg Config
	var err error
	if cfg.Tries, err = p.Int(m, "tries"); err != nil {
		return nil, err
	}
	if cfg.Tries < 1 {
		return nil, &infer.PropertyError{Method: m.Name, Name: "tries", Msg: "must be at least 1, got " + p.String(m, "tries")}
	}
	if cfg.MaxFlips, err = p.Int(m, "max-flips"); err != nil {
		return nil, err
	}
	if cfg.MaxFlips < 1 {
		return nil, &infer.PropertyError{Method: m.Name, Name: "max-flips", Msg: "must be at least 1, got " + p.String(m, "max-flips")}
	}
	if cfg.Noise, err = p.Float(m, "noise"); err != nil {
		return nil, err
	}
	if !(cfg.Noise >= 0 && cfg.Noise <= 1) {
		return nil, &infer.PropertyError{Method: m.Name, Name: "noise", Msg: "must be in [0, 1], got " + p.String(m, "noise")}
	}
	if tl := p.String(m, "time-limit"); tl != "0" {
		if cfg.TimeLimit, err = time.ParseDuration(tl); err != nil || cfg.TimeLimit < 0 {
			return nil, &infer.PropertyError{Method: m.Name, Name: "time-limit", Value: tl, Msg: fmt.Sprintf("must be a duration such as 30s or 5m, got %q", tl)}
		}
	}
	switch c := p.String(m, "components"); c {
	case "true":
	case "false":
		cfg.Whole = true
	default:
		return nil, &infer.PropertyError{Method: m.Name, Name: "components", Value: c, Want: "true or false"}
	}
	if cfg.ExactLimit, err = p.Int(m, "exact-limit"); err != nil {
		return nil, err
	}
	if cfg.ExactLimit < 0 {
		return nil, &infer.PropertyError{Method: m.Name, Name: "exact-limit", Msg: "must not be negative, got " + p.String(m, "exact-limit")}
	}
	if cfg.ExactLimit == 0 {
		cfg.ExactLimit = -1
	}
	return Algorithm{Config: cfg}, nil
}
