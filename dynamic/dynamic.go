package dynamic

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/ground"
	"github.com/lifted-dev/lifted/internal/memlimit"
	"github.com/lifted-dev/lifted/mln"
)

// Options configure the unrolling of a dynamic MLN.
type Options struct {
	// TimeType names the time type; "" takes mln.TimeType's choice (the type
	// of the successor terms, or a type named "time").
	TimeType string
	// Horizon is the last step T (steps 0..T); a negative value takes the
	// declared integer range of the time type.
	Horizon int
	// Query lists the query atoms as "lifted infer -q" takes them ("Cancer",
	// "Cancer(A,t)"); they must be fluents.
	Query []string
	// Ground passes further grounding options (default weights, size
	// limits, …). Query, QueryAtoms and OpenWorld are set by Unroll.
	Ground ground.Options
}

// Model is a dynamic MLN unrolled over its time steps and grounded: one
// factor graph over steps 0..Horizon in which every variable and factor knows
// its step, plus the evidence stream by step.
type Model struct {
	DMLN     *mln.MLN // as parsed
	Static   *mln.MLN // the unrolled, ordinary MLN (mln.Unroll)
	Origin   []int    // Static.Formulas[i] comes from DMLN.Formulas[Origin[i]]
	TimeType string
	Horizon  int
	// Fluent[p] tells whether predicate p (an index into Static.Preds, the
	// same as into DMLN.Preds) is a fluent: its last argument has the time
	// type. Fluents are open-world: an atom the evidence does not name is
	// unknown (at step t the future is not yet observed).
	Fluent    []bool
	Grounding *ground.Grounding
	// VarSlice is the step of every variable of Grounding.Graph: the last
	// argument of a fluent atom; for an auxiliary variable the first step
	// of its factor; -1 for atoms of predicates without time.
	VarSlice []int32
	// FactorLo and FactorHi are the first and last steps a factor links
	// (-1 for none); they are equal for intra-time factors and differ by one
	// for inter-time ones.
	FactorLo, FactorHi []int32
	// Evidence lists the observed fluent atoms of each step as (variable,
	// state) pairs; evidence on predicates without time is part of the
	// grounding.
	Evidence [][]Observation
	// Queries are the query atoms with their steps.
	Queries []QueryAtom
}

// Observation is one observed variable.
type Observation struct {
	Var   int32
	State int32
}

// QueryAtom is a ground query atom, a variable of the graph, and its step.
type QueryAtom struct {
	ground.QueryAtom
	Step int
}

// ErrNotDynamic reports an MLN without a time type.
var ErrNotDynamic = errors.New("not a dynamic MLN: no successor term succ(t), t+1 or t++ and no type named time")

// horizonSize refuses, before unrolling anything, a horizon whose ground
// atoms (steps × the fluents' atoms per step, from the domains the MLN
// declares) pass the grounding limit (maxGround, 0: ground.DefaultMaxGround,
// which the memory budget sizes; -1: the memory budget alone).
func horizonSize(m *mln.MLN, tt string, horizon int, maxGround int64) error {
	if horizon < 0 {
		return nil
	}
	perStep := 0.0
	for _, d := range m.Preds {
		n := len(d.ArgTypes)
		if n == 0 || d.ArgTypes[n-1] != tt {
			continue
		}
		atoms := 1.0
		for _, a := range d.ArgTypes[:n-1] {
			if td := m.Type(a); td != nil && len(td.Constants) > 0 {
				atoms *= float64(len(td.Constants))
			}
		}
		perStep += atoms
	}
	perStep = max(perStep, 1)
	atoms := perStep * (float64(horizon) + 1)
	limit := float64(maxGround)
	if maxGround == 0 {
		limit = float64(ground.DefaultMaxGround())
	}
	if maxGround >= 0 && atoms > limit {
		return fmt.Errorf("--horizon %d: unrolling would create at least %.3g ground atoms (%.3g per step over %d steps), more than the grounding limit %.0f; raise --max-ground or --max-memory, or lower --horizon",
			horizon, atoms, perStep, horizon+1, limit)
	}
	return memlimit.Check(fmt.Sprintf("--horizon %d: unrolling %.3g ground atoms (%.3g per step over %d steps)", horizon, atoms, perStep, horizon+1), atoms*bytesPerAtom)
}

// bytesPerAtom is what an unrolled ground atom takes at least (its
// name, its variable, its share of the ground formulas), for horizonSize.
const bytesPerAtom = 200

// Unroll unrolls the DMLN m over its steps (mln.Unroll), reads the evidence
// through read (called with the unrolled MLN, so that evidence files name
// steps as constants of the time type; nil for none), and grounds the result
// with every fluent open-world and no fluent evidence in the grounding:
// the fluent evidence becomes Model.Evidence, to be clamped step by step.
func Unroll(ctx context.Context, m *mln.MLN, read func(static *mln.MLN) (*mln.DB, error), opt Options) (*Model, error) {
	tt := opt.TimeType
	if tt == "" {
		tt = mln.TimeType(m)
	}
	if tt == "" {
		return nil, ErrNotDynamic
	}
	if err := horizonSize(m, tt, opt.Horizon, opt.Ground.MaxGround); err != nil {
		return nil, err
	}
	static, origin, err := mln.Unroll(ctx, m, tt, opt.Horizon)
	if err != nil {
		return nil, err
	}
	md := &Model{DMLN: m, Static: static, Origin: origin, TimeType: tt}
	md.Horizon = len(static.Type(tt).Constants) - 1
	md.Fluent = make([]bool, len(static.Preds))
	var fluents []string
	for p, d := range static.Preds {
		if n := len(d.ArgTypes); n > 0 && d.ArgTypes[n-1] == tt {
			md.Fluent[p] = true
			fluents = append(fluents, d.Name)
		}
	}
	full := mln.NewDB(static)
	if read != nil {
		if full, err = read(static); err != nil {
			return nil, err
		}
	}
	if dom := full.Domain(tt); len(dom) != md.Horizon+1 {
		return nil, fmt.Errorf("the evidence names time step %s, beyond the horizon %d", dom[md.Horizon+1], md.Horizon)
	}
	if len(full.Funcs) > 0 {
		return nil, fmt.Errorf("%s: function values are not supported with dynamic MLNs", full.Funcs[0].Pos)
	}
	// The grounding's evidence: atoms of predicates without time as they
	// are; fluent atoms as unknown, so that their constants join the domains.
	gdb := mln.NewDB(static)
	names := func(a mln.GroundAtom) []string {
		d := static.Preds[a.Pred]
		out := make([]string, len(a.Args))
		for i, c := range a.Args {
			out[i] = full.Domain(d.ArgTypes[i])[c]
		}
		return out
	}
	for _, a := range full.Atoms {
		t := a.Truth
		if md.Fluent[a.Pred] {
			t = mln.Unknown
		}
		if err := gdb.AddAtom(static.Preds[a.Pred].Name, names(a), t); err != nil {
			return nil, fmt.Errorf("%s: %w", a.Pos, err)
		}
	}
	q, err := ground.ParseQuery(static, gdb, opt.Query)
	if err != nil {
		return nil, err
	}
	for _, p := range q.Preds() {
		if i := static.PredIndex(p); i >= 0 && !md.Fluent[i] {
			return nil, fmt.Errorf("query predicate %s is not a fluent (its last argument is not of the time type %s)", p, tt)
		}
	}
	gopt := opt.Ground
	gopt.Query, gopt.QueryAtoms = nil, q
	gopt.OpenWorld = append(append([]string(nil), gopt.OpenWorld...), fluents...)
	gr, err := ground.Ground(ctx, static, gdb, gopt)
	if err != nil {
		return nil, err
	}
	md.Grounding = gr
	md.slices()
	// Fluent evidence by step.
	md.Evidence = make([][]Observation, md.Horizon+1)
	index := map[string]int{}
	for ti, t := range static.Types {
		for i, c := range gr.Domain(ti) {
			index[t.Name+"\x00"+c] = i
		}
	}
	for _, a := range full.Atoms {
		if !md.Fluent[a.Pred] || a.Truth == mln.Unknown {
			continue
		}
		d := static.Preds[a.Pred]
		args := make([]int, len(a.Args))
		for i, c := range names(a) {
			args[i] = index[d.ArgTypes[i]+"\x00"+c]
		}
		v, _ := gr.Var(a.Pred, args)
		if v < 0 {
			continue // an atom no formula mentions
		}
		st := int32(0)
		if a.Truth == mln.True {
			st = 1
		}
		step := md.VarSlice[v]
		md.Evidence[step] = append(md.Evidence[step], Observation{Var: v, State: st})
	}
	for _, qa := range gr.Queries {
		md.Queries = append(md.Queries, QueryAtom{QueryAtom: qa, Step: int(md.VarSlice[qa.Var])})
	}
	return md, nil
}

// slices fills VarSlice, FactorLo and FactorHi.
func (md *Model) slices() {
	gr := md.Grounding
	g := gr.Graph
	md.VarSlice = make([]int32, g.NumVars())
	for v := range md.VarSlice {
		md.VarSlice[v] = -1
		if v >= gr.NumAtoms {
			continue
		}
		p, args, ok := gr.Atom(int32(v))
		if !ok || !md.Fluent[p] {
			continue
		}
		d := md.Static.Preds[p]
		last := len(args) - 1
		name := gr.Domain(md.Static.TypeIndex(d.ArgTypes[last]))[args[last]]
		k, err := strconv.Atoi(name)
		if err == nil {
			md.VarSlice[v] = int32(k)
		}
	}
	md.FactorLo = make([]int32, g.NumFactors())
	md.FactorHi = make([]int32, g.NumFactors())
	for f := range md.FactorLo {
		lo, hi := int32(-1), int32(-1)
		for _, v := range g.Scope(f) {
			if t := md.VarSlice[v]; t >= 0 {
				if lo < 0 || t < lo {
					lo = t
				}
				hi = max(hi, t)
			}
		}
		md.FactorLo[f], md.FactorHi[f] = lo, hi
	}
	// Auxiliary variables take the first step of their factors.
	for f := range md.FactorLo {
		for _, v := range g.Scope(f) {
			if int(v) >= gr.NumAtoms && md.FactorLo[f] >= 0 && (md.VarSlice[v] < 0 || md.FactorLo[f] < md.VarSlice[v]) {
				md.VarSlice[v] = md.FactorLo[f]
			}
		}
	}
}

// EvidenceUpTo returns the graph's evidence with the fluent atoms of steps
// 0..t observed (all steps for t ≥ Horizon).
func (md *Model) EvidenceUpTo(t int) fg.Evidence {
	ev := fg.NoEvidence(md.Grounding.Graph.NumVars())
	for k := 0; k <= t && k < len(md.Evidence); k++ {
		for _, o := range md.Evidence[k] {
			ev[o.Var] = o.State
		}
	}
	return ev
}
