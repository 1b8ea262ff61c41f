// Package mws is MAP inference by MaxWalkSAT (Kautz, Selman and Jiang
// 1997), the local search that Alchemy's and Tuffy's -m run, registered
// with package infer as "maxwalksat".
//
// A factor graph is read as weighted clauses: every entry k of a factor's
// table φ is a clause "not this configuration" whose weight, the cost of
// choosing the entry, is log max φ − log φ(k) (0 for the table's largest
// entries, so only worse entries are clauses at all), and a zero entry is a
// hard clause. For an MLN's grounding this is exactly Alchemy's reading:
// a ground formula of weight w > 0 costs w when false, one of weight w < 0
// costs |w| when true, and a hard formula is hard. A world's total cost is
// Σ_f log max φ_f − Σ_f log φ_f(x_f), so the world of least cost is the
// most probable one, and Result.Objective reports Σ_f log φ_f(x_f) (the log
// of its unnormalised probability).
//
// Hard clauses are handled as hard rather than as a large weight: costs
// are compared lexicographically (first the number of broken hard clauses,
// then the soft cost), which is what a hard weight above the sum of all
// soft weights amounts to, without the rounding that such a weight brings.
// As in Selman and Kautz's maxwalksat, a step repairs a broken hard clause
// when there is one, else a broken soft one, chosen uniformly at random:
// with probability Noise it changes one of the clause's unobserved
// variables at random (to a random other state), otherwise it makes the
// change among the clause's variables that lowers the cost most (ties
// broken at random), which may break other clauses. Each try starts from a
// uniformly random world (variables that no factor depends on, being in
// none or only in constant ones, take state 0, as max-product BP's ties
// do) and runs MaxFlips steps; the best world of all
// tries is returned. A run stops early at cost 0 (every factor at its
// largest entry: provably optimal). A world that breaks a hard clause is
// never returned: when every world visited breaks one, Solve fails with an
// *UnsatError.
//
// Runs are deterministic: try t draws from rand.NewPCG(seed, t).
package mws

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/lifted-dev/lifted/fg"
)

// Alchemy's defaults.
const (
	DefaultTries    = 1
	DefaultMaxFlips = 100000
	DefaultNoise    = 0.5
)

// Config configures a MaxWalkSAT run. Zero fields take the defaults
// (Noise: use a tiny positive value for a pure greedy search).
type Config struct {
	Tries     int           // restarts from a random world (default 1)
	MaxFlips  int           // steps per try (default 100000)
	Noise     float64       // probability of a random-walk step (default 0.5)
	TimeLimit time.Duration // stop after this long, keeping the best world (0: none)
	Seed      uint64
}

// Result is the best world found.
type Result struct {
	X         []int32 // a state per variable (evidence states for observed ones)
	Objective float64 // Σ_f log φ_f(x_f), natural logs
	Cost      float64 // Σ_f log max φ_f − Objective: 0 means provably optimal
	Flips     int64   // steps taken, all tries
	Tries     int     // tries started
	Optimal   bool    // cost 0 was reached
	// Interrupted says that ctx was cancelled before the search ended
	// (the best world so far is returned).
	Interrupted bool
}

// UnsatError says that no world visited satisfies every hard clause (zero
// entry). Factor is a factor whose entry is zero in the best world found;
// Tries and Flips (per try) are the search's size. (A factor that is zero
// whatever its unobserved variables are is reported before the search, as
// an error wrapping fg.ErrContradiction.)
type UnsatError struct {
	Factor int
	Tries  int
	Flips  int
}

func (e *UnsatError) Error() string {
	return fmt.Sprintf("maxwalksat: found no world satisfying the hard constraints (zero entries) in %d tries of %d flips (factor %d still zero): they are unsatisfiable given the evidence, or too hard for the search (raise tries or max-flips)", e.Tries, e.Flips, e.Factor)
}

// solver is the search state.
type solver struct {
	g      *fg.Graph
	ev     fg.Evidence
	stride [][]int
	cost   [][]float64 // per table: cost of each entry (log max − log φ)
	hard   [][]bool    // per table: zero entries
	edgeF  []int32     // per VarEdges index: the factor
	edgeP  []int32     // per VarEdges index: the position in the factor's scope
	free   [][]int32   // per factor: unobserved variables with more than one state
	inert  []bool      // per variable: in no factor whose table is not constant
	x      []int32
	idx    []int // per factor: its current table entry
	// broken hard and soft clauses: factor lists with positions (-1: not in).
	hardL, softL     []int32
	hardPos, softPos []int32
	soft             float64 // current soft cost of tracked factors
}

// Solve runs MaxWalkSAT on g given ev (nil: none).
func Solve(ctx context.Context, g *fg.Graph, ev fg.Evidence, cfg Config) (*Result, error) {
	if cfg.Tries < 0 || cfg.MaxFlips < 0 || cfg.TimeLimit < 0 {
		return nil, errors.New("maxwalksat: tries, max-flips and time limit must not be negative")
	}
	if !(cfg.Noise >= 0 && cfg.Noise <= 1) {
		return nil, fmt.Errorf("maxwalksat: noise must be in [0, 1], got %v", cfg.Noise)
	}
	if cfg.Tries == 0 {
		cfg.Tries = DefaultTries
	}
	if cfg.MaxFlips == 0 {
		cfg.MaxFlips = DefaultMaxFlips
	}
	n := g.NumVars()
	if ev == nil {
		ev = fg.NoEvidence(n)
	}
	if len(ev) != n {
		return nil, fmt.Errorf("maxwalksat: evidence has %d entries for %d variables", len(ev), n)
	}
	s := newSolver(g, ev)
	// Factors without unobserved variables are constants (never tracked);
	// a factor zero whatever its unobserved variables contradicts the
	// evidence.
	s.x = make([]int32, n)
	for v := range s.x {
		if ev[v] >= 0 {
			s.x[v] = ev[v]
		}
	}
	if err := g.CheckEvidence(ev); err != nil {
		return nil, fmt.Errorf("maxwalksat: %w", err)
	}
	var deadline time.Time
	if cfg.TimeLimit > 0 {
		deadline = time.Now().Add(cfg.TimeLimit)
	}
	res := &Result{}
	var best []int32
	bestHard, bestSoft := math.MaxInt, math.Inf(1)
	interrupted := false
tries:
	for t := range cfg.Tries {
		rng := rand.New(rand.NewPCG(cfg.Seed, uint64(t)))
		res.Tries++
		for v := range s.x {
			if ev[v] < 0 && !s.inert[v] {
				s.x[v] = int32(rng.IntN(int(g.Card[v])))
			}
		}
		s.reset()
		for flip := 0; ; flip++ {
			if h, sc := len(s.hardL), s.soft; better(h, sc, bestHard, bestSoft) {
				bestHard, bestSoft = h, sc
				best = append(best[:0], s.x...)
			}
			if len(s.hardL) == 0 && len(s.softL) == 0 {
				res.Optimal = true
				break tries
			}
			if flip == cfg.MaxFlips {
				break
			}
			if flip&1023 == 1023 {
				if ctx.Err() != nil || (!deadline.IsZero() && time.Now().After(deadline)) {
					interrupted = true
					break tries
				}
			}
			s.step(rng, cfg.Noise)
			res.Flips++
		}
	}
	if interrupted && ctx.Err() != nil && best == nil {
		return nil, ctx.Err()
	}
	res.Interrupted = ctx.Err() != nil
	if bestHard > 0 {
		copy(s.x, best)
		for f := range g.NumFactors() {
			if s.hard[g.FactorTable[f]][s.entry(f)] {
				return nil, &UnsatError{Factor: f, Tries: res.Tries, Flips: cfg.MaxFlips}
			}
		}
	}
	res.X = best
	res.Objective, res.Cost = Score(g, best)
	return res, nil
}

// better reports whether (h1, s1) is a lower cost than (h2, s2): fewer
// broken hard clauses, then a soft cost lower beyond rounding.
func better(h1 int, s1 float64, h2 int, s2 float64) bool {
	if h1 != h2 {
		return h1 < h2
	}
	return s1 < s2-1e-9*(1+math.Abs(s2))
}

// Score returns the log score Σ_f log φ_f(x_f) of world x (−Inf when a
// factor is zero) and its cost Σ_f (log max φ_f − log φ_f(x_f)).
func Score(g *fg.Graph, x []int32) (objective, cost float64) {
	for f := range g.NumFactors() {
		t := g.Table(f)
		k := 0
		for p, v := range g.Scope(f) {
			k = k*int(t.Dims[p]) + int(x[v])
		}
		m := 0.0
		for _, p := range t.Values {
			m = max(m, p)
		}
		objective += math.Log(t.Values[k])
		cost += math.Log(m) - math.Log(t.Values[k])
	}
	return objective, cost
}

func newSolver(g *fg.Graph, ev fg.Evidence) *solver {
	s := &solver{g: g, ev: ev}
	s.stride = make([][]int, len(g.Tables))
	s.cost = make([][]float64, len(g.Tables))
	s.hard = make([][]bool, len(g.Tables))
	for t := range g.Tables {
		tb := &g.Tables[t]
		s.stride[t] = tb.Strides()
		m := 0.0
		for _, p := range tb.Values {
			m = max(m, p)
		}
		lm := math.Log(m)
		s.cost[t] = make([]float64, len(tb.Values))
		s.hard[t] = make([]bool, len(tb.Values))
		for k, p := range tb.Values {
			if p > 0 && m > 0 {
				s.cost[t][k] = lm - math.Log(p)
			} else {
				s.hard[t][k] = true
			}
		}
	}
	s.edgeF = make([]int32, len(g.VarEdges))
	s.edgeP = make([]int32, len(g.VarEdges))
	for i, e := range g.VarEdges {
		f := g.EdgeFactor(e)
		s.edgeF[i] = int32(f)
		s.edgeP[i] = int32(e - g.FactorStart[f])
	}
	s.free = make([][]int32, g.NumFactors())
	for f := range s.free {
		for _, v := range g.Scope(f) {
			if ev[v] < 0 && g.Card[v] > 1 {
				s.free[f] = append(s.free[f], v)
			}
		}
	}
	constant := make([]bool, len(g.Tables))
	for t, tb := range g.Tables {
		constant[t] = !slices.ContainsFunc(tb.Values, func(p float64) bool { return p != tb.Values[0] })
	}
	s.inert = make([]bool, g.NumVars())
	for v := range s.inert {
		s.inert[v] = true
		for i := g.VarStart[v]; i < g.VarStart[v+1]; i++ {
			if !constant[g.FactorTable[s.edgeF[i]]] {
				s.inert[v] = false
				break
			}
		}
	}
	s.idx = make([]int, g.NumFactors())
	s.hardPos = make([]int32, g.NumFactors())
	s.softPos = make([]int32, g.NumFactors())
	return s
}

// entry returns factor f's table entry at the current world.
func (s *solver) entry(f int) int {
	st := s.stride[s.g.FactorTable[f]]
	k := 0
	for p, v := range s.g.Scope(f) {
		k += st[p] * int(s.x[v])
	}
	return k
}

// reset recomputes the entries and broken-clause lists from s.x.
func (s *solver) reset() {
	s.hardL, s.softL = s.hardL[:0], s.softL[:0]
	s.soft = 0
	for f := range s.idx {
		s.hardPos[f], s.softPos[f] = -1, -1
		s.idx[f] = s.entry(f)
		if len(s.free[f]) > 0 {
			s.track(f)
		}
	}
}

// track puts factor f into the list its current entry belongs to.
func (s *solver) track(f int) {
	t := s.g.FactorTable[f]
	k := s.idx[f]
	switch {
	case s.hard[t][k]:
		s.hardPos[f] = int32(len(s.hardL))
		s.hardL = append(s.hardL, int32(f))
	case s.cost[t][k] > 0:
		s.softPos[f] = int32(len(s.softL))
		s.softL = append(s.softL, int32(f))
		s.soft += s.cost[t][k]
	}
}

// untrack takes factor f out of its list.
func (s *solver) untrack(f int) {
	if i := s.hardPos[f]; i >= 0 {
		last := s.hardL[len(s.hardL)-1]
		s.hardL[i], s.hardPos[last] = last, i
		s.hardL = s.hardL[:len(s.hardL)-1]
		s.hardPos[f] = -1
	}
	if i := s.softPos[f]; i >= 0 {
		last := s.softL[len(s.softL)-1]
		s.softL[i], s.softPos[last] = last, i
		s.softL = s.softL[:len(s.softL)-1]
		s.softPos[f] = -1
		s.soft -= s.cost[s.g.FactorTable[f]][s.idx[f]]
	}
}

// delta returns the change in broken hard clauses and in soft cost if
// variable v took state st.
func (s *solver) delta(v, st int32) (int, float64) {
	dh, ds := 0, 0.0
	d := int(st - s.x[v])
	for i := s.g.VarStart[v]; i < s.g.VarStart[v+1]; i++ {
		f := s.edgeF[i]
		t := s.g.FactorTable[f]
		old := s.idx[f]
		nw := old + d*s.stride[t][s.edgeP[i]]
		if s.hard[t][nw] {
			dh++
		}
		if s.hard[t][old] {
			dh--
		}
		ds += s.cost[t][nw] - s.cost[t][old]
	}
	return dh, ds
}

// set moves variable v to state st, updating entries and lists.
func (s *solver) set(v, st int32) {
	d := int(st - s.x[v])
	s.x[v] = st
	for i := s.g.VarStart[v]; i < s.g.VarStart[v+1]; i++ {
		f := int(s.edgeF[i])
		s.untrack(f)
		s.idx[f] += d * s.stride[s.g.FactorTable[f]][s.edgeP[i]]
		s.track(f)
	}
}

// step repairs one broken clause (a hard one if any).
func (s *solver) step(rng *rand.Rand, noise float64) {
	var f int32
	if len(s.hardL) > 0 {
		f = s.hardL[rng.IntN(len(s.hardL))]
	} else {
		f = s.softL[rng.IntN(len(s.softL))]
	}
	free := s.free[f]
	if rng.Float64() < noise {
		v := free[rng.IntN(len(free))]
		k := s.g.Card[v]
		st := 1 - s.x[v]
		if k > 2 {
			st = (s.x[v] + 1 + int32(rng.IntN(int(k-1)))) % k
		}
		s.set(v, st)
		return
	}
	bv, bs := int32(-1), int32(-1)
	bh, bsoft := 0, 0.0
	ties := 0
	for _, v := range free {
		for st := range s.g.Card[v] {
			if st == s.x[v] {
				continue
			}
			dh, ds := s.delta(v, st)
			switch {
			case bv < 0 || better(dh, ds, bh, bsoft):
				bv, bs, bh, bsoft, ties = v, st, dh, ds, 1
			case !better(bh, bsoft, dh, ds): // a tie: keep one at random
				ties++
				if rng.IntN(ties) == 0 {
					bv, bs = v, st
				}
			}
		}
	}
	s.set(bv, bs)
}
