package bp

import (
	"context"
	"fmt"

	"github.com/lifted-dev/lifted/infer"
	"github.com/lifted-dev/lifted/lift"
)

// Algorithm is BP behind the infer.Algorithm seam: sum-product for
// Marginals and PartitionFunction queries (log Z is the Bethe estimate),
// max-product for MAP queries (the assignment is the argmax of the
// max-marginals, lowest state on ties). Options.MaxProduct is ignored: the
// query's task decides.
type Algorithm struct {
	Options
}

// New returns BP with the given options.
func New(opt Options) *Algorithm { return &Algorithm{Options: opt} }

// Run runs BP on c for q.
func (a *Algorithm) Run(ctx context.Context, c *lift.Compressed, q infer.Query) (*infer.Answer, error) {
	opt := a.Options
	opt.MaxProduct = q.Task == infer.MAP
	if q.Progress != nil {
		own := opt.Progress
		opt.Progress = func(it int, ch float64) {
			if own != nil {
				own(it, ch)
			}
			q.Progress(infer.Progress{Iteration: it, MaxChange: ch})
		}
	}
	r, err := Run(ctx, c, opt)
	if err != nil {
		return nil, err
	}
	return r.Answer(q.Task), nil
}

// Answer returns the result as an infer.Answer for task t (sharing the
// belief arrays).
func (r *Result) Answer(t infer.Task) *infer.Answer {
	ans := &infer.Answer{
		Graph: r.Graph, Task: t,
		Belief: r.Belief, NodeOff: r.NodeOff,
		Converged: r.Converged, MaxChange: r.MaxChange,
		Stats: infer.Stats{BPIterations: r.Iterations, Messages: r.Messages, Converged: r.Converged, Seconds: r.Seconds, Mixing: r.Violated, Unstable: r.Unstable},
		F2V:   r.F2V, EdgeOff: r.EdgeOff,
	}
	if r.MaxProduct {
		ans.Assignment = r.Assignment()
	} else {
		ans.LogZ, ans.LogZKind = r.LogZ, infer.Estimate
	}
	return ans
}

// Properties of the registered methods "lbp" and "bp", named as the
// command line's flags.
var properties = []infer.Property{
	{Name: "schedule", Default: "flood", Help: "message schedule: flood, seq or fb (forwards-backwards, for graphs unrolled over time: lifted infer --dynamic)"},
	{Name: "damping", Default: "0", Help: "in [0,1): weight of the previous message"},
	{Name: "tol", Default: "1e-8", Help: "converged when no message entry changes by this or more"},
	{Name: "max-iter", Default: "1000", Help: "iteration limit"},
}

func init() {
	tasks := []infer.Task{infer.Marginals, infer.MAP, infer.PartitionFunction}
	infer.Register(infer.Method{Name: "lbp", Summary: "lifted belief propagation (colour passing, then BP on the compressed graph)",
		Lifted: true, Tasks: tasks, Props: properties, New: factory("lbp")})
	infer.Register(infer.Method{Name: "bp", Summary: "ground belief propagation (the same engine on the uncompressed graph)",
		Tasks: tasks, Props: properties, New: factory("bp")})
}

func factory(name string) func(infer.Properties) (infer.Algorithm, error) {
	return func(p infer.Properties) (infer.Algorithm, error) {
		m, _ := infer.Lookup(name)
		opt, err := ParseProperties(m, p)
		if err != nil {
			return nil, err
		}
		return New(opt), nil
	}
}

// ParseProperties reads BP options from named properties (missing ones
// take m's defaults), checking their ranges.
func ParseProperties(m infer.Method, p infer.Properties) (Options, error) {
	var opt Options
	switch s := p.String(m, "schedule"); s {
	case "flood":
		opt.Schedule = Flood
	case "seq", "sequential":
		opt.Schedule = Sequential
	case "fb":
		opt.Schedule = ForwardBackward
	default:
		return opt, &infer.PropertyError{Method: m.Name, Name: "schedule", Value: s, Want: "flood, seq or fb"}
	}
	var err error
	if opt.Damping, err = p.Float(m, "damping"); err != nil {
		return opt, err
	}
	if !(opt.Damping >= 0 && opt.Damping < 1) {
		return opt, &infer.PropertyError{Method: m.Name, Name: "damping", Msg: "must be in [0, 1), got " + p.String(m, "damping")}
	}
	if opt.Tol, err = p.Float(m, "tol"); err != nil {
		return opt, err
	}
	if !(opt.Tol >= 0) {
		return opt, &infer.PropertyError{Method: m.Name, Name: "tol", Msg: "must be non-negative, got " + p.String(m, "tol")}
	}
	if opt.MaxIter, err = p.Int(m, "max-iter"); err != nil {
		return opt, err
	}
	if opt.MaxIter < 1 {
		return opt, &infer.PropertyError{Method: m.Name, Name: "max-iter", Msg: "must be at least 1, got " + p.String(m, "max-iter")}
	}
	return opt, nil
}

// WithVarSlice returns BP with the time step of every ground variable, which
// the ForwardBackward schedule needs (package dynamic calls it).
func (a *Algorithm) WithVarSlice(slice []int32) infer.Algorithm {
	o := a.Options
	o.VarSlice = slice
	return New(o)
}

// WithMaxIter returns BP with its iteration limit set to n (auto's BP
// slice, package exact).
func (a *Algorithm) WithMaxIter(n int) infer.Algorithm {
	o := a.Options
	o.MaxIter = max(n, 1)
	return New(o)
}

// MaxIterations is BP's iteration limit.
func (a *Algorithm) MaxIterations() int { return a.MaxIter }

// Fallbacks offers the retry variants of a run that did not converge:
// damping 0.5, then 0.9 (where the run's own damping was lower), then the
// sequential schedule with damping 0.5 (unless the run was sequential
// already). Damping and the schedule do not change BP's fixed points, so a
// converged variant is a BP answer of the model asked about; each variant
// keeps the run's tolerance and iteration limit.
func (a *Algorithm) Fallbacks() []infer.Fallback {
	var out []infer.Fallback
	add := func(name string, o Options) {
		out = append(out, infer.Fallback{Name: name, Algorithm: New(o)})
	}
	for _, d := range []float64{0.5, 0.9} {
		if a.Damping < d {
			o := a.Options
			o.Damping = d
			add(fmt.Sprintf("damping=%g", d), o)
		}
	}
	if a.Schedule != Sequential {
		o := a.Options
		o.Schedule, o.Damping = Sequential, max(a.Damping, 0.5)
		add(fmt.Sprintf("schedule=seq damping=%g", o.Damping), o)
	}
	return out
}
