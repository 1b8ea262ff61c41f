package engine

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"strings"
	"time"

	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/infer"
	"github.com/lifted-dev/lifted/infer/bp"
	"github.com/lifted-dev/lifted/infer/mws"
	"github.com/lifted-dev/lifted/internal/memlimit"
	"github.com/lifted-dev/lifted/lift"

	"github.com/lifted-dev/lifted/infer/exact"

	// The methods the engine answers with, registered by name.
	_ "github.com/lifted-dev/lifted/infer/mapauto"
	_ "github.com/lifted-dev/lifted/infer/maplp"
	_ "github.com/lifted-dev/lifted/infer/mcmc"
)

// Run answers req on the model (req.Model, req.Format and req.Evidence
// are ignored: the model holds its own).
func (m *Model) Run(ctx context.Context, req Request) (*Result, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	start := time.Now()
	if req.Dynamic != nil {
		res, err := m.runDynamic(ctx, req)
		if res != nil {
			res.Stats.TotalSeconds = time.Since(start).Seconds()
		}
		return res, err
	}
	s, err := m.setup(req)
	if err != nil {
		return nil, err
	}
	var res *Result
	if m.IsMLN() {
		if m.DB == nil {
			return nil, requestErrorf("%s: the model was loaded for a dynamic run", m.Path)
		}
		res, err = m.runMLN(ctx, s)
	} else {
		g := m.Graph
		if err := memlimit.Check(fmt.Sprintf("%s: answering a factor graph of %d variables and %d factors", m.Path, g.NumVars(), g.NumFactors()),
			graphBytesPerVar*float64(g.NumVars())+graphBytesPerFactor*float64(g.NumFactors())+graphBytesPerEdge*float64(g.NumEdges())); err != nil {
			return nil, err
		}
		res, err = m.runGraph(ctx, s)
	}
	if res != nil {
		res.timeStages(time.Since(start).Seconds(), s.attempts)
	}
	return res, err
}

// timeStages sets the run's total wall time and its stages: the attempts
// that gave up (a wfomc try), grounding, colour passing, the method, and
// the rest as "other".
func (r *Result) timeStages(total float64, attempts []infer.StageTime) {
	st := &r.Stats
	st.TotalSeconds = total
	st.Stages = nil
	left := total
	// add appends a stage, within what is left of the total (a route
	// whose figures overlap, as the first-order construction's colour
	// passing within its grounding, is not counted twice).
	add := func(name string, secs float64) {
		secs = min(secs, left)
		if secs > 0 {
			st.Stages = append(st.Stages, infer.StageTime{Stage: name, Seconds: secs})
			left -= secs
		}
	}
	for _, a := range attempts {
		add(a.Stage, a.Seconds)
	}
	add("ground", st.GroundSeconds)
	add("colour passing", st.ColorSeconds)
	method := r.Method
	if method == "" {
		method = "inference"
	}
	add(method, st.Seconds-st.ColorSeconds)
	add("other", left)
}

// Memory a query on a factor graph takes per variable, factor and edge
// (colour passing, the method's messages or tables, the answer): measured
// with lifted infer on DIMACS headers with few clauses (1.6 GB for 10^6
// variables), the least a run takes; checked against memlimit before the
// run.
const (
	graphBytesPerVar    = 1500
	graphBytesPerFactor = 300
	graphBytesPerEdge   = 100
)

// setup is a request resolved: the method, its algorithm and the options
// of the run.
type setup struct {
	req    Request
	method infer.Method
	alg    infer.Algorithm
	opt    infer.Options
	world  string // an MLN's world assumption per predicate (mln.World)
	// attempts are the stages that gave up before the answer (a wfomc
	// try), for Stats.Stages.
	attempts []infer.StageTime
}

// MethodFor is the method that answers task when the request names none.
func MethodFor(task Task) string {
	if task == MAP {
		return DefaultMAPMethod
	}
	return DefaultMethod
}

func (m *Model) setup(req Request) (*setup, error) {
	name := req.Method
	if name == "" {
		name = MethodFor(req.Task)
	}
	meth, ok := infer.Lookup(name)
	if !ok {
		return nil, &RequestError{&infer.UnknownMethodError{Name: name, Known: infer.Names()}}
	}
	if !meth.Supports(req.Task) {
		return nil, requestErrorf("method %s does not answer %s queries", name, req.Task)
	}
	props := infer.Properties{}
	for k, v := range req.Properties {
		props[k] = v
	}
	if _, set := props["time-limit"]; !set && req.TimeLimit > 0 && meth.HasProperty("time-limit") {
		props["time-limit"] = req.TimeLimit.String()
	}
	if _, set := props["symmetry"]; !set && name == "lp" {
		// The LP is lifted over the model's symmetries: constant
		// renamings of an MLN, automorphism orbits of a factor graph.
		props["symmetry"] = "orbits"
		if m.IsMLN() {
			props["symmetry"] = "renaming"
		}
	}
	alg, _, err := infer.New(name, props)
	if err != nil {
		return nil, &RequestError{err}
	}
	s := &setup{req: req, method: meth, alg: alg}
	s.opt.Lifted = meth.Lifted
	s.opt.Query = infer.Query{Task: req.Task, Seed: req.Seed}
	s.opt.Unconverged = infer.Refuse
	if req.AllowUnconverged || AlwaysAnswers(name, req) {
		s.opt.Unconverged = infer.Retry
	}
	s.opt.Query.Workers = req.Workers
	if !(req.Tolerance >= 0 && req.Tolerance < 1) {
		return nil, requestErrorf("--tolerance must be in [0, 1), got %v", req.Tolerance)
	}
	s.opt.Query.Tolerance = req.Tolerance
	if s.opt.Refiner, err = Refiner(req.Workers); err != nil {
		return nil, err
	}
	if s.opt.Colour.Mode, err = ColourMode(req.ColourMode, m.Format); err != nil {
		return nil, err
	}
	if req.Progress != nil {
		s.opt.Query.Progress = func(p infer.Progress) { req.Progress(iterationProgress(p)) }
		s.opt.Colour.Progress = func(round, vc, fc int) {
			req.Progress(Progress{Stage: "colour passing", Detail: fmt.Sprintf("round %d, %d variable and %d factor colours", round, vc, fc)})
		}
	}
	return s, nil
}

// AlwaysAnswers reports whether method (the request's, resolved) answers
// whatever its methods' convergence: auto, the default, prints every
// marginal with its own status (exact, mixed, unresolved with an interval,
// BP fixed point) unless req.RequireConverged; a method named explicitly
// keeps the rule that an answer that did not converge is refused (unless
// req.AllowUnconverged). MAP and dynamic runs keep the rule too.
func AlwaysAnswers(method string, req Request) bool {
	return method == "auto" && !req.RequireConverged && req.Task == Marginals && req.Dynamic == nil
}

// iterationProgress words an inference method's report.
func iterationProgress(it infer.Progress) Progress {
	switch {
	case it.ComponentsTotal > 0:
		return Progress{Stage: "components", Done: int64(it.Iteration), Total: int64(it.ComponentsTotal), Detail: "connected components answered"}
	case it.Samples > 0 && it.RHat > 0:
		return Progress{Stage: "sampling", Done: int64(it.Samples), Total: int64(it.SamplesTotal), Detail: fmt.Sprintf("%d samples, worst R-hat %s", it.Samples, RHatText(it.RHat))}
	case it.Samples > 0:
		return Progress{Stage: "sampling", Done: int64(it.Samples), Total: int64(it.SamplesTotal), Detail: fmt.Sprintf("%d samples", it.Samples)}
	case it.Sampling:
		return Progress{Stage: "burn-in", Done: int64(it.BurnIn), Total: int64(it.BurnInTotal), Detail: "steps, all chains"}
	case it.Objective != nil && it.Bound != nil: // map-auto
		return Progress{Stage: "MAP", Detail: fmt.Sprintf("objective %.10g, bound %.10g, gap %.3g (graph scale)", *it.Objective, *it.Bound, *it.Bound-*it.Objective)}
	case it.Bound != nil:
		return Progress{Stage: "LP", Detail: fmt.Sprintf("cutting-plane round %d: bound %.10g, %d cuts added, worst violation %.3g", it.Iteration, *it.Bound, it.Cuts, it.MaxChange)}
	}
	return Progress{Stage: "BP", Detail: fmt.Sprintf("iteration %d, max change %.3g", it.Iteration, it.MaxChange)}
}

// RHatText formats a Gelman–Rubin R-hat; the samplers report
// math.MaxFloat64 when a variable varies between chains but not within
// any (a chain that has not moved), which is infinite R-hat.
func RHatText(r float64) string {
	if r >= math.MaxFloat64 {
		return "inf (a chain has not moved)"
	}
	return fmt.Sprintf("%.4g", r)
}

// Refiner returns colour passing's refiner for n workers (0: one per
// core): nil, the incremental single-core lift.ColourPassing, for one;
// lift.Parallel otherwise. The colouring does not depend on it.
func Refiner(workers int) (lift.Refiner, error) {
	n := workers
	if n == 0 {
		n = runtime.GOMAXPROCS(0)
	}
	switch {
	case workers < 0:
		return nil, requestErrorf("workers must be at least 0, got %d", workers)
	case n <= 1:
		return nil, nil
	}
	return lift.Parallel{Workers: n}, nil
}

// ColourMode resolves a colour-passing mode by name; "auto" (or "") is
// CNF mode for CNF input (clauses are told apart only by literal signs)
// and positional otherwise.
func ColourMode(name, format string) (lift.Mode, error) {
	switch name {
	case "auto", "":
		if format == "cnf" {
			return lift.CNF, nil
		}
		return lift.Positional, nil
	case "positional":
		return lift.Positional, nil
	case "cnf":
		return lift.CNF, nil
	case "symmetric":
		return lift.Symmetric, nil
	}
	return 0, requestErrorf("unknown colour mode %q (want auto, positional, symmetric or cnf)", name)
}

// SymmetricTables marks the tables invariant under every permutation of
// their positions (for the symmetric colour mode).
func SymmetricTables(g *fg.Graph) []bool {
	sym := make([]bool, len(g.Tables))
	for t := range g.Tables {
		sym[t] = lift.IsSymmetric(&g.Tables[t])
	}
	return sym
}

// runGraph answers a factor-graph query.
func (m *Model) runGraph(ctx context.Context, s *setup) (*Result, error) {
	if s.opt.Colour.Mode == lift.Symmetric {
		s.opt.Colour.Symmetric = SymmetricTables(m.Graph)
	}
	ans, err := infer.Run(ctx, s.alg, m.Graph, m.Evidence, s.opt)
	if err != nil {
		return nil, bpHint(err, m.Graph, m.Evidence)
	}
	r := newResult(s, ans)
	r.Route = RouteGraph
	r.Stats = infer.MLNStats{Stats: ans.Stats}
	if ans.Task == infer.MAP {
		r.Assignment = ans.Assignment
		r.setObjective(m.Graph, ans, 0)
	} else {
		r.Marginals = ans.Marginals()
		if ans.StdErr != nil {
			r.StdErrors = make([][]float64, len(r.Marginals))
			for v := range r.StdErrors {
				X := int(ans.Graph.NodeOf[v])
				r.StdErrors[v] = append([]float64(nil), ans.StdErr[ans.NodeOff[X]:ans.NodeOff[X+1]]...)
			}
		}
	}
	return r, nil
}

// bpHint adds what to try to a BP failure caused by hard constraints: a
// factor zero on every state the evidence allows leaves the model no world
// of positive weight, which no BP setting can help; otherwise BP's
// messages met the zeros, and damping or the sequential schedule may.
func bpHint(err error, g *fg.Graph, ev fg.Evidence) error {
	if !errors.Is(err, bp.ErrNotNormalizable) {
		return err
	}
	if ev == nil {
		ev = fg.NoEvidence(g.NumVars())
	}
	if cerr := g.CheckEvidence(ev); errors.Is(cerr, fg.ErrContradiction) {
		return &noWorldError{fmt.Sprintf("the model has no world of positive weight (every state has probability zero: the hard constraints contradict each other or the evidence): %s",
			strings.TrimPrefix(cerr.Error(), fg.ErrContradiction.Error()+": ")), cerr}
	}
	return fmt.Errorf("%w; BP's messages contradict the model's zeros (as libDAI's \"not normalizable\"): try --damping 0.5 or --schedule seq", err)
}

// noWorldError is a model without a world of positive weight.
type noWorldError struct {
	msg string
	err error
}

func (e *noWorldError) Error() string { return e.msg }
func (e *noWorldError) Unwrap() error { return e.err }

// newResult fills the fields every route shares from an Answer.
func newResult(s *setup, ans *infer.Answer) *Result {
	r := &Result{Task: s.opt.Query.Task, Method: s.method.Name, Converged: ans.Converged, MaxChange: ans.MaxChange, LogZKind: ans.LogZKind, Answer: ans,
		answers: AlwaysAnswers(s.method.Name, s.req)}
	if ans.Stats.Method != "" {
		r.Method, r.MethodReason = ans.Stats.Method, ans.Stats.MethodReason
	} else if _, ok := s.alg.(*exact.Auto); ok {
		r.Method = "lbp" // auto on a factor graph runs lbp without reporting a choice
	}
	if ans.LogZKind != infer.NoLogZ {
		r.LogZ = ans.LogZ
	}
	return r
}

// setObjective puts a MAP answer's objective, bound and gap on the one
// scale: the log score of the world, Σ ln φ over the graph's factors plus
// offset (for an MLN, the grounding's: then Σ w·n(x) over all ground
// formulas). Methods that report no objective get the score of their
// world.
func (r *Result) setObjective(g *fg.Graph, ans *infer.Answer, offset float64) {
	st := ans.Stats
	if st.Objective != nil {
		r.Objective = ptr(*st.Objective)
	} else if ans.Assignment != nil {
		obj, _ := mws.Score(g, ans.Assignment)
		r.Objective = ptr(obj + offset)
	}
	if st.Bound != nil {
		r.Bound = ptr(*st.Bound)
	}
	if st.Gap != nil {
		r.Gap = ptr(*st.Gap)
	}
}

func ptr(x float64) *float64 { return &x }
