package engine

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/lifted-dev/lifted/ground"
	"github.com/lifted-dev/lifted/infer"
	"github.com/lifted-dev/lifted/infer/bp"
	"github.com/lifted-dev/lifted/infer/exact"
	"github.com/lifted-dev/lifted/lift"
	"github.com/lifted-dev/lifted/lift/firstorder"
	"github.com/lifted-dev/lifted/mln"
	"github.com/lifted-dev/lifted/pos"
	"github.com/lifted-dev/lifted/wfomc"
)

// An MLN query goes, in order, to the first of these that answers it:
//
//  1. the first-order construction: a lifted method (lbp) on the counted
//     graph built from the MLN without grounding it, where that applies;
//  2. an ungrounded method (infer.Ungrounded: lifted blocked Gibbs) that
//     needs no grounding for this model;
//  3. auto before grounding: wfomc within auto's budget; if it does not
//     answer, a small model is grounded and auto chooses on the grounding,
//     a large one goes to lifted BP on the first-order network;
//  4. the grounding, and the method (auto chooses there through the
//     registry, infer/exact.Auto) on it; a grounding too large for auto
//     goes to lifted BP on the first-order network.

// autoSmallAtoms is the number of unknown ground atoms up to which auto
// grounds the MLN after wfomc did not answer, so that auto chooses on the
// grounding (exact enumeration up to exact.DefaultMaxStates joint states,
// 2^20). Above it the grounding has too many joint states to enumerate
// (unless grounding simplifies most atoms away) and lifted BP runs on the
// first-order network.
const autoSmallAtoms = 64

// mlnRun is an MLN query under way: the request resolved, the query atoms
// and the options to ground with.
type mlnRun struct {
	*setup
	m    *Model
	gopt ground.Options
}

// ParseQuery parses the request's query atoms (Query and QueryFiles) for
// the MLN m and evidence db.
func ParseQuery(m *mln.MLN, db *mln.DB, query, queryFiles []string) (*ground.Query, error) {
	if len(queryFiles) > 0 {
		qf, err := ParseQueryFiles(m, queryFiles)
		if err != nil {
			return nil, err
		}
		query = append(append([]string(nil), query...), qf...)
	}
	q, err := ground.ParseQuery(m, db, query)
	return q, queryError(err)
}

// queryError makes query errors RequestErrors.
func queryError(err error) error {
	var qe *ground.QueryError
	if errors.As(err, &qe) {
		return &RequestError{err}
	}
	return err
}

// groundOptions are the grounding options of a request.
func groundOptions(g GroundOptions) ground.Options {
	opt := ground.Options{ClosedWorld: g.ClosedWorld, OpenWorld: g.OpenWorld,
		MaxGround: g.MaxGround, AlchemyCNF: g.AlchemyCNF, MergeDuplicates: g.MergeDuplicates}
	if g.DefaultWeight != nil {
		opt.DefaultWeight, opt.UseDefaultWeight = *g.DefaultWeight, true
	}
	return opt
}

func (m *Model) runMLN(ctx context.Context, s *setup) (*Result, error) {
	res, err := m.runMLNQuery(ctx, s)
	if res != nil {
		d := m.MLN.Dialect
		res.Stats.Dialect, res.Stats.ClosedWorld = d.String(), d.Dialect.WorldRule()
		res.dialectNote = d.Dialect != mln.DialectAlchemy || d.Given
		res.worldText = d.Dialect.WorldRuleText()
		res.Stats.World = s.world
	}
	return res, err
}

func (m *Model) runMLNQuery(ctx context.Context, s *setup) (*Result, error) {
	if err := checkConstruction(s.req.Ground.Construction); err != nil {
		return nil, err
	}
	q, err := ParseQuery(m.MLN, m.DB, s.req.Query, s.req.QueryFiles)
	if err == nil {
		err = queryError(q.Need())
	}
	if err != nil {
		return nil, err
	}
	r := &mlnRun{setup: s, m: m, gopt: groundOptions(s.req.Ground)}
	r.gopt.QueryAtoms = q
	if w, err := mln.World(m.MLN, m.DB, q.Preds(), s.req.Ground.ClosedWorld, s.req.Ground.OpenWorld); err == nil {
		s.world = w
	}
	r.gopt.ExactMax = s.opt.Query.Task == infer.MAP
	if r.gopt.ExactMax {
		r.gopt.Memory = ground.MAPMemory
	}
	res, why, err := r.firstOrder(ctx)
	if res != nil || err != nil {
		return res, err
	}
	if res, err := r.ungrounded(ctx); res != nil || err != nil {
		return res, err
	}
	alg, res, autoWhy, err := r.auto(ctx)
	if res != nil || err != nil {
		return res, err
	}
	if autoWhy != "" {
		why = autoWhy
	}
	if r.opt.Query.Task == infer.MAP && r.req.Ground.Lazy {
		return r.lazyMAP(ctx, alg, "--lazy")
	}
	gr, gerr := r.ground(ctx, r.gopt)
	if gerr != nil {
		if res, err := r.tooLarge(ctx, alg, gerr); res != nil || err != nil {
			return res, err
		}
		if r.opt.Query.Task == infer.MAP && errors.Is(gerr, ground.ErrTooLarge) {
			// Not lazily by default: where the first partial graph's MAP
			// world is dense (Tuffy's UW-CSE and Cora), the cutting planes
			// take nearly the full grounding, after minutes of work.
			return nil, fmt.Errorf("%w (or try --lazy: only the ground formulas that the MAP worlds break)", gerr)
		}
		return nil, gerr
	}
	return r.onGrounding(ctx, alg, gr, why)
}

// lazyMAP answers a MAP query by cutting planes on lazy groundings
// (ground.Lazy): the first grounds only the ground formulas that the world
// with every unknown atom false breaks (not at their maximum), then the
// MAP method runs on it, and the grounding is made again with its world
// added, until that adds no ground formula: then every ground formula
// left out is at its maximum in the world found, which scores on the full
// grounding what it scores on the lazy one (objective and bound are the
// full grounding's; proved optimal there is proved optimal on the full
// one). An atom in no ground formula kept is false in the answer.
func (r *mlnRun) lazyMAP(ctx context.Context, alg infer.Algorithm, why string) (*Result, error) {
	var worlds [][]bool
	var prev *ground.Grounding
	var prevAns *infer.Answer
	rounds, seconds := 0, 0.0
	for {
		opt := r.gopt
		opt.Lazy = &ground.Lazy{Worlds: worlds}
		gr, err := r.ground(ctx, opt)
		if err != nil {
			return nil, err
		}
		seconds += gr.Seconds
		if p := r.req.Progress; p != nil {
			p(Progress{Stage: "lazy grounding", Done: int64(rounds + 1), Detail: fmt.Sprintf("round %d: %d ground formulas, %d factors, %d worlds, %.3g s grounding so far",
				rounds+1, gr.NumFormulas, gr.Graph.NumFactors(), len(worlds), seconds)})
		}
		if prev != nil && gr.NumFormulas == prev.NumFormulas && gr.Graph.NumFactors() == prev.Graph.NumFactors() {
			break
		}
		ans, err := infer.RunModel(ctx, alg, exact.NewModel(gr, r.gopt), r.opt)
		if err != nil {
			return nil, mlnError(r.m.Path, err)
		}
		if ans.Stats.Interrupted || ans.Assignment == nil {
			// the world is not checked against the ground formulas left out
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			return nil, fmt.Errorf("%s: lazy MAP: %s gave no complete world", r.m.Path, r.method.Name)
		}
		w := make([]bool, gr.NumAtoms)
		for v := range gr.NumAtoms {
			if gr.Graph.Degree(v) == 0 {
				ans.Assignment[v] = 0
			}
			w[v] = ans.Assignment[v] == 1
		}
		worlds = append(worlds, w)
		prev, prevAns = gr, ans
		rounds++
	}
	prev.Seconds = seconds
	reason := fmt.Sprintf("%s; lazy grounding: %d rounds of cutting planes, %d ground formulas kept (every other one at its maximum in the world found)", why, rounds, prev.NumFormulas)
	return r.groundedResult(prev, prevAns, reason), nil
}

// ground grounds the MLN with opt, reporting progress.
func (r *mlnRun) ground(ctx context.Context, opt ground.Options) (*ground.Grounding, error) {
	if p := r.req.Progress; p != nil {
		opt.Progress = func(g ground.Progress) {
			p(Progress{Stage: "grounding", Done: steps(g.Groundings), Total: steps(g.Total),
				Detail: fmt.Sprintf("formula %d of %d, %d ground atoms, %d ground formulas so far, %.3g of %.3g predicted groundings",
					g.Formula, g.Formulas, g.Atoms, g.Factors, g.Groundings, g.Total)})
		}
	}
	gr, err := ground.Ground(ctx, r.m.MLN, r.m.DB, opt)
	if err != nil {
		return nil, withPath(r.m.Path, err)
	}
	return gr, nil
}

// steps converts a float count (groundings) to a progress position.
func steps(x float64) int64 {
	if !(x > 0) {
		return 0
	}
	return int64(math.Min(x, 1<<62))
}

// onGrounding runs the method on the grounding; why says why the
// first-order construction was not used.
func (r *mlnRun) onGrounding(ctx context.Context, alg infer.Algorithm, gr *ground.Grounding, why string) (*Result, error) {
	opt := r.opt
	if opt.Colour.Mode == lift.Symmetric {
		opt.Colour.Symmetric = SymmetricTables(gr.Graph)
	}
	if opt.Query.Tolerance > 0 {
		opt.Clusters = EvidenceClusterings(gr)
	}
	ans, err := infer.RunModel(ctx, alg, exact.NewModel(gr, r.gopt), opt)
	if err != nil {
		return nil, mlnError(r.m.Path, err)
	}
	return r.groundedResult(gr, ans, why), nil
}

// groundedResult is the Result of answer ans on the grounding gr.
func (r *mlnRun) groundedResult(gr *ground.Grounding, ans *infer.Answer, why string) *Result {
	res := newResult(r.setup, ans)
	res.Route = RouteGrounded
	res.Stats = groundedStats(ans.Stats, gr, why)
	if ans.LogZKind != infer.NoLogZ {
		res.LogZ += gr.LogZOffset
	}
	if ans.Task == infer.MAP {
		res.setObjective(gr.Graph, ans, gr.LogZOffset)
	}
	qs := gr.Queries
	res.numAtoms = len(qs)
	res.atoms = func(yield func(Atom) bool) {
		for _, q := range qs {
			a := Atom{Name: q.Name, StdErr: math.NaN()}
			if ans.Task == infer.MAP {
				a.Value = ans.Assignment[q.Var]
				a.P = float64(a.Value)
			} else {
				X := int(ans.Graph.NodeOf[q.Var])
				a.P = ans.NodeBelief(X)[1]
				if ans.StdErr != nil {
					a.StdErr = ans.StdErr[ans.NodeOff[X]+1]
				}
				a.AtomStatus = res.entryStatus(ans, ans.NodeOff[X]+1, a.P, a.StdErr)
			}
			if !yield(a) {
				return
			}
		}
	}
	return res
}

// withPath prefixes an error without a position with the model's path.
func withPath(path string, err error) error {
	if err == nil {
		return nil
	}
	var pe *pos.Error
	if errors.As(err, &pe) {
		return err
	}
	return fmt.Errorf("%s: %w", path, err)
}

// mlnError explains BP failures that come from the model's hard formulas.
func mlnError(path string, err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, ground.ErrContradiction):
		return fmt.Errorf("%s: %w (the hard formulas cannot all hold given the evidence)", path, err)
	case errors.Is(err, bp.ErrNotNormalizable):
		return fmt.Errorf("%s: %w; with hard formulas this means that they cannot all hold given the evidence, "+
			"or that BP's messages exclude every state (--damping or --schedule seq sometimes help)", path, err)
	}
	return withPath(path, err)
}

// firstOrderNetwork builds the counted graph from the MLN unless the
// request asks for the grounding; it returns nil and the reason when the
// model is to be grounded instead. force builds it even where it is not
// smaller than the grounding.
func (r *mlnRun) firstOrderNetwork(ctx context.Context, force bool) (*firstorder.Network, string, error) {
	c := r.req.Ground.Construction
	if c == ConstructGround {
		return nil, "--construction ground", nil
	}
	colour := r.opt.Colour
	colour.Progress = nil
	net, err := firstorder.Build(ctx, r.m.MLN, r.m.DB, firstorder.Options{Ground: r.gopt, Colour: colour, OnlyIfSmaller: c == "" && !force, LogZ: r.req.LogZ})
	if errors.Is(err, firstorder.ErrNotApplicable) {
		return nil, strings.TrimPrefix(err.Error(), firstorder.ErrNotApplicable.Error()+": "), nil
	}
	if err != nil {
		return nil, "", err
	}
	return net, "", nil
}

// firstOrder answers with lifted BP on the first-order counted graph when
// the method and the model allow it; otherwise it says why not.
func (r *mlnRun) firstOrder(ctx context.Context) (*Result, string, error) {
	_, chooses := r.alg.(infer.Chooser)
	_, onModel := r.alg.(infer.FirstOrder)
	name := r.method.Name
	switch {
	case r.req.Ground.Construction == ConstructGround:
		return nil, "--construction ground", nil
	case r.opt.Query.Task == infer.MAP:
		return nil, "MAP queries print a ground assignment", nil
	case chooses:
		return nil, fmt.Sprintf("--method %s chooses its method first (--method lbp lifts before grounding)", name), nil
	case onModel || !r.method.Lifted:
		return nil, fmt.Sprintf("--method %s does not run on the lifted network", name), nil
	}
	net, why, err := r.firstOrderNetwork(ctx, false)
	if net == nil || err != nil {
		return nil, why, err
	}
	res, err := r.onNetwork(ctx, r.alg, net, "", "")
	return res, "", err
}

// onNetwork runs alg on the first-order network; method and reason, if
// set, go to the statistics (a run that auto sent to lifted BP).
func (r *mlnRun) onNetwork(ctx context.Context, alg infer.Algorithm, net *firstorder.Network, method, reason string) (*Result, error) {
	ans, err := infer.RunCounted(ctx, alg, net.Compressed, r.opt)
	if err != nil {
		return nil, mlnError(r.m.Path, err)
	}
	if math.IsNaN(net.LogZOffset) {
		ans.LogZKind = infer.NoLogZ // the evidence offset was not computed
	}
	ans.Stats.Variables, ans.Stats.Factors, ans.Stats.Edges = int(net.Atoms), int(net.Factors), int(GroundEdges(net.Compressed))
	ans.Stats.ColorIter, ans.Stats.ColorSeconds = net.Iterations, net.Seconds
	ans.Stats.Method, ans.Stats.MethodReason = method, reason
	res := newResult(r.setup, ans)
	res.Route = RouteFirstOrder
	res.Stats = FirstOrderStats(ans.Stats, net)
	res.net = net
	if ans.LogZKind != infer.NoLogZ {
		res.LogZ += net.LogZOffset
	}
	m, db := r.m.MLN, r.m.DB
	q := r.gopt.QueryAtoms
	res.numAtoms = -1
	res.atoms = func(yield func(Atom) bool) {
		var buf []byte
		q.Each(db, func(pred int, args []int) bool {
			X, _ := net.Node(pred, args)
			if X < 0 {
				return true
			}
			buf = ground.AppendAtomName(buf[:0], m, db, pred, args)
			a := Atom{Name: string(buf), P: ans.NodeBelief(int(X))[1], StdErr: math.NaN(), node: X + 1}
			if ans.StdErr != nil {
				a.StdErr = ans.StdErr[ans.NodeOff[X]+1]
			}
			a.AtomStatus = res.entryStatus(ans, ans.NodeOff[X]+1, a.P, a.StdErr)
			return yield(a)
		})
	}
	return res, nil
}

// tooLarge answers with lifted BP on the first-order network when auto
// (which chooses on the grounding) meets a model too large to ground:
// auto would fall back to lifted BP, and the first-order network is what
// lifted BP needs.
func (r *mlnRun) tooLarge(ctx context.Context, alg infer.Algorithm, groundErr error) (*Result, error) {
	a, ok := alg.(*exact.Auto)
	if !ok || !errors.Is(groundErr, ground.ErrTooLarge) || r.req.Ground.Construction == ConstructGround || r.opt.Query.Task == infer.MAP {
		return nil, nil
	}
	net, _, err := r.firstOrderNetwork(ctx, true) // grounding is no alternative
	if net == nil || err != nil {
		return nil, nil
	}
	reason := "the grounding is too large (" + shortReason(groundErr) + "); lifted BP on the first-order network"
	if a.Tried != "" {
		reason = a.Tried + "; " + reason
	}
	return r.onNetwork(ctx, a.LBP, net, "lbp", reason)
}

// shortReason keeps the first clause of an error message.
func shortReason(err error) string {
	s := err.Error()
	if i := strings.Index(s, ";"); i > 0 {
		s = s[:i]
	}
	return s
}

// GroundEdges is the number of ground edges a counted graph represents.
func GroundEdges(c *lift.Compressed) int64 {
	var n int64
	for s := range c.NumEdges() {
		n += c.NodeSize[c.EdgeNode[s]] * c.EdgeCount[s]
	}
	return n
}

// FirstOrderStats are the statistics of a run on a first-order network.
func FirstOrderStats(st infer.Stats, net *firstorder.Network) infer.MLNStats {
	return infer.MLNStats{Stats: st, GroundAtoms: net.Atoms, GroundFormulas: net.Factors, GroundSeconds: net.Seconds,
		LiftedConstruction: true, GroundAtomsBuilt: int64(net.Reduced.NumAtoms), GroundFormulasBuilt: net.Reduced.NumFormulas}
}

// ungrounded answers a marginal query with a method that needs no
// grounding for this model (infer.Ungrounded: lifted blocked Gibbs when
// every cluster is lifted and no formula is hard). A method that needs
// the grounding says so before any work of note, and the caller grounds.
func (r *mlnRun) ungrounded(ctx context.Context) (*Result, error) {
	u, ok := r.alg.(infer.Ungrounded)
	if !ok || r.req.Ground.Construction == ConstructGround || r.opt.Query.Task != infer.Marginals || r.gopt.AlchemyCNF {
		return nil, nil
	}
	model, err := r.ungroundedModel()
	if err != nil {
		return nil, withPath(r.m.Path, err)
	}
	ans, err := u.RunUngrounded(ctx, model, r.opt.Query)
	if errors.Is(err, infer.ErrNeedsGrounding) {
		return nil, nil
	}
	if err != nil {
		return nil, mlnError(r.m.Path, err)
	}
	st := infer.MLNStats{Stats: ans.Stats, GroundAtoms: int64(ans.Stats.Variables), GroundFormulas: int64(ans.Stats.Factors), LiftedConstruction: true}
	if !ans.Converged && !ans.Stats.Interrupted && r.opt.Unconverged == infer.Refuse {
		// lbg's chains that have not mixed are refused as any sampler's.
		return nil, &infer.NotConvergedError{Tried: []string{"as asked"}, Answer: &infer.Answer{Task: r.opt.Query.Task, Stats: ans.Stats}}
	}
	return r.atomResult(ans, st), nil
}

// atomResult is the Result of an ungrounded answer.
func (r *mlnRun) atomResult(ans *infer.AtomAnswer, st infer.MLNStats) *Result {
	res := &Result{Task: r.opt.Query.Task, Method: r.method.Name, Converged: ans.Converged, Route: RouteUngrounded, Stats: st,
		answers: AlwaysAnswers(r.method.Name, r.req)}
	if ans.Stats.Method != "" {
		res.Method = ans.Stats.Method
	}
	res.MethodReason = ans.Stats.MethodReason
	if ans.LogZ != nil {
		res.LogZ, res.LogZKind = *ans.LogZ, infer.Exact
	}
	m, db := r.m.MLN, r.m.DB
	q := r.gopt.QueryAtoms
	res.numAtoms = -1
	res.atoms = func(yield func(Atom) bool) {
		var buf []byte
		q.Each(db, func(pred int, args []int) bool {
			p, unknown := ans.Marginal(pred, args)
			if !unknown {
				return true
			}
			buf = ground.AppendAtomName(buf[:0], m, db, pred, args)
			a := Atom{Name: string(buf), P: p, StdErr: math.NaN()}
			if ans.Detail != nil && !res.isExact() {
				d := ans.Detail(pred, args)
				a.StdErr = d.StdErr
				a.AtomStatus = chainStatus(d.Mixed && !ans.Stats.Interrupted, p, d.StdErr, d.Lo, d.Hi, d.RHat, ans.Stats.Interrupted)
			} else {
				a.AtomStatus = res.entryStatus(nil, 0, p, math.NaN())
			}
			return yield(a)
		})
	}
	return res
}

// ungroundedModel is the first-order model without its grounding: the
// MLN, the evidence, the world assumption and the weights; an error where
// grounding would refuse a formula's weight.
func (r *mlnRun) ungroundedModel() (*infer.Model, error) {
	m := r.m.MLN
	for i := range m.Formulas {
		if _, err := ground.Weight(m, i, r.gopt); err != nil {
			return nil, err
		}
	}
	closed, err := mln.ClosedWorld(m, r.m.DB, r.gopt.QueryAtoms.Preds(), r.gopt.ClosedWorld, r.gopt.OpenWorld)
	if err != nil {
		return nil, err
	}
	return &infer.Model{MLN: m, DB: r.m.DB, Closed: closed, Weights: exact.Weights(m, r.gopt)}, nil
}

// auto answers a marginal query of method auto before grounding: (a)
// wfomc within auto's budget, without the grounding; if it does not
// answer, (b) a model with at most autoSmallAtoms unknown ground atoms is
// grounded and auto chooses on the grounding without running wfomc again;
// (c) otherwise lifted BP runs on the first-order network where it
// applies; (d) else the model is grounded as in (b). When it does not
// answer, it returns the algorithm to run on the grounding (auto told
// that wfomc was tried) and why the first-order network was not used.
func (r *mlnRun) auto(ctx context.Context) (infer.Algorithm, *Result, string, error) {
	a, ok := r.alg.(*exact.Auto)
	switch {
	case !ok || a.Tried != "" || r.req.Ground.Construction == ConstructGround || r.opt.Query.Task != infer.Marginals:
		return r.alg, nil, "", nil
	case r.gopt.AlchemyCNF:
		return r.alg, nil, "--method auto with --alchemy-cnf chooses on the grounding", nil
	}
	model, err := r.ungroundedModel()
	if err != nil {
		return nil, nil, "", withPath(r.m.Path, err)
	}
	unknown := unknownAtoms(r.m.MLN, model)
	atoms := func(yield func(int, []int) bool) { r.gopt.QueryAtoms.Each(model.DB, yield) }
	wctx := ctx
	if p := r.req.Progress; p != nil {
		// wfomc's own work units (pair weights, terms), not its budget.
		wctx = wfomc.WithProgress(ctx, 500*time.Millisecond, func(w wfomc.Progress) {
			p(Progress{Stage: "wfomc " + w.Phase, Done: w.Done, Total: w.Total, Detail: w.Detail()})
		})
	}
	t0 := time.Now()
	ans, why, err := a.TryUngrounded(wctx, model, r.opt.Query, atoms, unknown)
	if ans == nil && err == nil {
		r.attempts = append(r.attempts, infer.StageTime{Stage: "wfomc (gave up)", Seconds: time.Since(t0).Seconds()})
	}
	if err != nil {
		return nil, nil, "", mlnError(r.m.Path, err)
	}
	if ans != nil {
		ans.Stats.Variables = int(unknown)
		st := infer.MLNStats{Stats: ans.Stats, GroundAtoms: int64(unknown), LiftedConstruction: true,
			ConstructionReason: "wfomc answers on the MLN without grounding it"}
		return nil, r.atomResult(ans, st), "", nil
	}
	tried := *a
	tried.Tried = why
	if unknown <= autoSmallAtoms {
		return &tried, nil, fmt.Sprintf("--method auto: %.0f unknown ground atoms, few enough to choose on the grounding", unknown), nil
	}
	net, nwhy, err := r.firstOrderNetwork(ctx, false)
	if err != nil {
		return nil, nil, "", mlnError(r.m.Path, err)
	}
	if net == nil {
		return &tried, nil, nwhy, nil
	}
	res, err := r.onNetwork(ctx, a.LBP, net, "lbp", why+"; lifted BP on the first-order network")
	return nil, res, "", err
}

// unknownAtoms is the number of ground atoms that the evidence and the
// closed world leave unknown, counted without grounding: every ground atom
// of an open-world predicate less those the evidence fixes, and the atoms
// of closed-world predicates that the evidence lists as unknown.
func unknownAtoms(m *mln.MLN, model *infer.Model) float64 {
	known := make([]float64, len(m.Preds))
	listedUnknown := make([]float64, len(m.Preds))
	for _, at := range model.DB.Atoms {
		if at.Truth == mln.Unknown {
			listedUnknown[at.Pred]++
		} else {
			known[at.Pred]++
		}
	}
	n := 0.0
	for p, d := range m.Preds {
		if model.Closed[d.Name] {
			n += listedUnknown[p]
			continue
		}
		size := 1.0
		for _, t := range d.ArgTypes {
			size *= float64(len(model.DB.Domain(t)))
		}
		n += size - known[p]
	}
	return n
}
