// Package gibbs samples from a factor graph by Gibbs sampling, starting
// from a world that a WalkSAT-style local search makes consistent with the
// graph's zero entries.
//
// A factor with a zero entry is a constraint as well as a weight: a world in
// which one of its entries is 0 has probability 0. Start draws a uniformly
// random state for every unobserved variable and then searches for a world
// in which every factor is positive; Sample then redraws every unobserved
// variable in turn from its conditional distribution given the others,
// which never takes a state of probability 0. Finding a positive world is
// NP-hard in general (Start gives up after a budget of moves), and single
// variable moves cannot cross between positive worlds that zeros separate,
// so with zeros the chain explores the part of the positive worlds its
// start is connected to.
package gibbs

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/lifted-dev/lifted/fg"
)

// MaxFlips bounds Start's search, in moves per factor with a zero entry.
const MaxFlips = 1000

// UnsatError reports that Start found no world in which every factor is
// positive: Factor is a factor still zero when the search gave up after
// Moves moves, or one that is zero whatever its unobserved variables are.
type UnsatError struct {
	Factor int
	Moves  int
}

// Error returns the message of the UnsatError.
func (e *UnsatError) Error() string {
	if e.Moves < 0 {
		return fmt.Sprintf("gibbs: factor %d is zero whatever the values of its unobserved variables", e.Factor)
	}
	return fmt.Sprintf("gibbs: found no world in which every factor is positive in %d moves (factor %d still zero)", e.Moves, e.Factor)
}

// Prepared is a graph prepared for chains: per edge, in each variable's
// order (fg.Graph.VarEdges), its factor, strides and the tables' log
// entries, built once (Prepare) and read only after: any number of chains
// on the same graph, in any goroutines, share one (a sampler's chains and
// a tempering ladder's copies at one temperature), so that their memory is
// one copy of it plus a world each. It is the graph's as it was when
// prepared: a graph changed after (its tables' values) needs a new one.
type Prepared struct {
	g      *fg.Graph
	edgeF  []int32 // per entry of VarEdges: the factor
	edgeSt []int32 // per entry of VarEdges: the variable's stride in the factor's table
	est    []int32 // per edge (EdgeVar's order, factor by factor): the variable's stride in the factor's table
	hard   []bool  // per factor: has a zero entry
	stride [][]int // per table
	logT   [][]float64
	// Per entry i of VarEdges (variable v's edge to factor f) whose
	// factor holds at most two variables: pairOf[i] is the other variable
	// of f (v itself for a unary factor) and pairSt[i] its stride in f's
	// table (0 for a unary factor), so the index of the current state with
	// v in state 0 is pairSt[i]·x[pairOf[i]] without a scan of the scope
	// (base); pairOf[i] = −1 for a larger factor. Nil when no factor is
	// that small. MLN groundings are mostly such factors (UW-CSE: all).
	pairOf []int32
	pairSt []int32
	// flat[i], for such an edge whose other variable has at most 8
	// states: bit s set when, with the other variable in state s, the
	// factor's log entries over v's states are all equal and finite (v's
	// log odds gain exactly 0 from it: binaryCond skips it), bit 8+s when
	// they are all exactly 0 (the factor is 1 whatever v is: pairDraw
	// skips it); bit for bit the sums without it.
	flat []uint16
	// The pairwise fast path of binaryCond: for a binary variable v all
	// of whose factors are positive and hold at most one other variable,
	// itself binary (Ising-like models, grids), fast[v] is set and each
	// of v's edges i adds pairT[2i+x[pairOf[i]]] to v's log odds: the
	// term l1 − l0 that binaryCond's general loop computes, for each
	// state of the other variable (a unary factor: both entries the
	// same), so the sums are bit for bit the same.
	fast  []bool
	pairT []float64
}

// Graph returns the graph p was prepared from.
func (p *Prepared) Graph() *fg.Graph { return p.g }

// chain is a chain's own state on a Prepared graph (shared, read only).
type chain struct {
	*Prepared
	ev   fg.Evidence
	x    []int32
	logw []float64 // scratch of weights
	ok   []bool    // scratch of weights
	skip []bool    // per variable, when set: left out of sweep (PairSweepAll)
}

// newChain prepares a chain on g, ev from the world x, stopped with ctx's
// error once ctx is done (polled every 1024 variables of the preparation:
// on UW-CSE it takes about 40 ms of CPU per chain, and eight chains are
// prepared at once).
func newChain(ctx context.Context, g *fg.Graph, ev fg.Evidence, x []int32) (*chain, error) {
	p, err := Prepare(ctx, g)
	if err != nil {
		return nil, err
	}
	return p.newChain(ev, x)
}

// newChain returns a chain on p, ev from the world x.
func (p *Prepared) newChain(ev fg.Evidence, x []int32) (*chain, error) {
	n := p.g.NumVars()
	if len(x) != n {
		return nil, fmt.Errorf("gibbs: state has %d entries for %d variables", len(x), n)
	}
	if ev != nil && len(ev) != n {
		return nil, fmt.Errorf("gibbs: evidence has %d entries for %d variables", len(ev), n)
	}
	return &chain{Prepared: p, ev: ev, x: x}, nil
}

// Prepare prepares g for chains (see Prepared), stopped with ctx's error
// once ctx is done (polled every 1024 variables: on UW-CSE it takes about
// 40 ms of CPU).
func Prepare(ctx context.Context, g *fg.Graph) (*Prepared, error) {
	c := &Prepared{g: g, edgeF: make([]int32, len(g.VarEdges)), edgeSt: make([]int32, len(g.VarEdges)),
		hard: make([]bool, g.NumFactors())}
	zero := make([]bool, len(g.Tables))
	c.stride = make([][]int, len(g.Tables))
	c.logT = make([][]float64, len(g.Tables))
	for t := range g.Tables {
		c.stride[t] = g.Tables[t].Strides()
	}
	c.est = make([]int32, len(g.EdgeVar))
	for f := range g.NumFactors() {
		st := c.stride[g.FactorTable[f]]
		for p := range g.FactorStart[f+1] - g.FactorStart[f] {
			c.est[g.FactorStart[f]+p] = int32(st[p])
		}
	}
	fOf := g.EdgeFactors()
	for i, e := range g.VarEdges {
		f := fOf[e]
		c.edgeF[i] = f
		c.edgeSt[i] = int32(c.stride[g.FactorTable[f]][e-g.FactorStart[f]])
	}
	for t := range g.Tables {
		tb := &g.Tables[t]
		c.logT[t] = make([]float64, len(tb.Values))
		for i, v := range tb.Values {
			c.logT[t][i] = math.Log(v)
			if v == 0 {
				zero[t] = true
			}
		}
	}
	for f := range c.hard {
		c.hard[f] = zero[g.FactorTable[f]]
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := c.preparePartners(ctx); err != nil {
		return nil, err
	}
	if err := c.preparePairwise(ctx); err != nil {
		return nil, err
	}
	return c, nil
}

// preparePartners fills pairOf and pairSt (see chain).
func (c *Prepared) preparePartners(ctx context.Context) error {
	g := c.g
	for v := range g.NumVars() {
		if v%1024 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		for i := g.VarStart[v]; i < g.VarStart[v+1]; i++ {
			f := int(c.edgeF[i])
			sc := g.Scope(f)
			if len(sc) > 2 {
				if c.pairOf != nil {
					c.pairOf[i] = -1
				}
				continue
			}
			if c.pairOf == nil {
				c.pairOf = make([]int32, len(g.VarEdges))
				c.pairSt = make([]int32, len(g.VarEdges))
				c.flat = make([]uint16, len(g.VarEdges))
				for k := range i {
					c.pairOf[k] = -1
				}
			}
			other, ost := int32(v), 0
			for p, u := range sc {
				if u != int32(v) {
					other, ost = u, c.stride[g.FactorTable[f]][p]
				}
			}
			c.pairOf[i], c.pairSt[i] = other, int32(ost)
			if g.Card[other] > 8 {
				continue
			}
			lt := c.logT[g.FactorTable[f]]
			for so := range int(g.Card[other]) {
				j := so * ost // v in state 0 (a unary factor: ost = 0, every so the same row)
				same, zero := true, true
				for s := range int(g.Card[v]) {
					l := lt[j+s*int(c.edgeSt[i])]
					same = same && l == lt[j] && !math.IsInf(l, 0) && !math.IsNaN(l)
					zero = zero && l == 0
				}
				if same {
					c.flat[i] |= 1 << so
				}
				if zero {
					c.flat[i] |= 1 << (8 + so)
				}
			}
		}
	}
	return nil
}

// preparePairwise fills the pairwise fast path of binaryCond (fast,
// pairT; it reads pairOf, which preparePartners filled) for the binary
// variables it applies to; none when no variable qualifies. A variable
// without factors is left to the general loop (pairOf may be nil then).
func (c *Prepared) preparePairwise(ctx context.Context) error {
	g := c.g
	n := g.NumVars()
	var fast []bool
	for v := range n {
		if v%1024 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		if g.Card[v] != 2 || g.Degree(v) == 0 {
			continue
		}
		ok := true
		for i := g.VarStart[v]; ok && i < g.VarStart[v+1]; i++ {
			f := int(c.edgeF[i])
			sc := g.Scope(f)
			ok = !c.hard[f] && len(sc) <= 2
			for _, u := range sc {
				ok = ok && (u == int32(v) || g.Card[u] == 2)
			}
		}
		if !ok {
			continue
		}
		if fast == nil {
			fast = make([]bool, n)
			c.pairT = make([]float64, 2*len(g.VarEdges))
		}
		fast[v] = true
		for i := g.VarStart[v]; i < g.VarStart[v+1]; i++ {
			f := int(c.edgeF[i])
			lt := c.logT[g.FactorTable[f]]
			ost := int(c.pairSt[i]) // every factor of v holds at most two variables: pairOf is set
			for s := range 2 {
				j := s * ost // v in state 0, the other in state s
				c.pairT[2*int(i)+s] = lt[j+int(c.edgeSt[i])] - lt[j]
			}
		}
	}
	c.fast = fast
	return nil
}

// observed reports whether variable v is clamped by the evidence.
func (c *chain) observed(v int32) bool { return c.ev != nil && c.ev[v] >= 0 }

// entry returns the index into factor f's table of the current state with
// variable v in state s.
func (c *chain) entry(f int, v, s int32) int {
	lo, hi := c.g.FactorStart[f], c.g.FactorStart[f+1]
	st := c.est[lo:hi]
	j := 0
	for p, u := range c.g.EdgeVar[lo:hi] {
		xu := c.x[u]
		if u == v {
			xu = s
		}
		j += int(st[p]) * int(xu)
	}
	return j
}

// base returns the index into factor f's table of the current state with
// variable v in state 0, where VarEdges entry i is v's edge to f (v's
// stride there is edgeSt[i]): a scope names a variable once, so the index
// with v in state s is base + s·edgeSt[i], the integer entry computes.
func (c *chain) base(f int, i int64, v int32) int {
	if c.pairOf != nil {
		if o := c.pairOf[i]; o >= 0 {
			return int(c.pairSt[i]) * int(c.x[o]) // a unary factor: 0
		}
	}
	lo, hi := c.g.FactorStart[f], c.g.FactorStart[f+1]
	st := c.est[lo:hi]
	j := 0
	for p, u := range c.g.EdgeVar[lo:hi] {
		j += int(st[p]) * int(c.x[u])
	}
	return j - int(c.edgeSt[i])*int(c.x[v])
}

// positive reports whether factor f's current entry is positive.
func (c *chain) positive(f int) bool {
	return c.g.Table(f).Values[c.entry(f, -1, 0)] > 0
}

// factors returns the range of VarEdges (and edgeF) of variable v.
func (c *chain) factors(v int32) (int64, int64) { return c.g.VarStart[v], c.g.VarStart[v+1] }

// Start sets x to a random world consistent with ev and the zeros of g:
// observed variables take their evidence state, every other variable in
// increasing order a uniformly random state (rng.IntN of its
// cardinality; a variable that a hard unit factor zeroes in that state
// then takes its first state no hard unit factor zeroes, and no move
// takes it back), and then, while some factor's current entry is zero, a
// WalkSAT move: pick such a factor at random and one of its unobserved
// variables at random, and with probability ½ (rng.IntN(2) == 0) replace
// it by the variable of that factor whose best move leaves the fewest
// factors zero (the first one on ties); the variable then moves to its
// next state (a binary one flips; others take the best state, or a random
// other one). The search gives up after MaxFlips moves per factor with a
// zero entry, returning an *UnsatError.
func Start(g *fg.Graph, ev fg.Evidence, x []int32, rng *rand.Rand) error {
	return StartContext(context.Background(), g, ev, x, rng)
}

// StartContext is Start under a context: the search polls ctx every
// ctxEvery moves and returns its error once it has ended (Ctrl-C during a
// chain's start-up).
func StartContext(ctx context.Context, g *fg.Graph, ev fg.Evidence, x []int32, rng *rand.Rand) error {
	p, err := Prepare(ctx, g)
	if err != nil {
		return err
	}
	return p.Start(ctx, ev, x, rng)
}

// Start is StartContext on the prepared graph.
func (p *Prepared) Start(ctx context.Context, ev fg.Evidence, x []int32, rng *rand.Rand) error {
	c, err := p.newChain(ev, x)
	if err != nil {
		return err
	}
	g := p.g
	for v := range x {
		if c.observed(int32(v)) {
			x[v] = ev[v]
		} else {
			x[v] = int32(rng.IntN(int(g.Card[v])))
		}
	}
	return c.satisfy(ctx, rng, 0)
}

// StartAt is Start from the caller's world x instead of a uniformly
// random one: observed variables take their evidence state, and the
// WalkSAT moves (with rng) make x positive. Samplers use it for starts
// that are more spread out than independent uniform draws (the
// complement of another chain's start).
func StartAt(g *fg.Graph, ev fg.Evidence, x []int32, rng *rand.Rand) error {
	return StartAtContext(context.Background(), g, ev, x, rng)
}

// StartAtContext is StartAt under a context, as StartContext.
func StartAtContext(ctx context.Context, g *fg.Graph, ev fg.Evidence, x []int32, rng *rand.Rand) error {
	return StartAtBudget(ctx, g, ev, x, rng, 0)
}

// StartAtBudget is StartAtContext with a budget of moves instead of
// MaxFlips per zero factor (moves ≤ 0: that default): a caller that only
// asks whether a world near x exists gives up sooner.
func StartAtBudget(ctx context.Context, g *fg.Graph, ev fg.Evidence, x []int32, rng *rand.Rand, moves int) error {
	p, err := Prepare(ctx, g)
	if err != nil {
		return err
	}
	return p.StartAt(ctx, ev, x, rng, moves)
}

// StartAt is StartAtBudget on the prepared graph.
func (p *Prepared) StartAt(ctx context.Context, ev fg.Evidence, x []int32, rng *rand.Rand, moves int) error {
	c, err := p.newChain(ev, x)
	if err != nil {
		return err
	}
	g := p.g
	for v := range x {
		if c.observed(int32(v)) {
			x[v] = ev[v]
		} else if x[v] < 0 || x[v] >= g.Card[v] {
			return fmt.Errorf("gibbs: state %d of variable %d is out of range", x[v], v)
		}
	}
	return c.satisfy(ctx, rng, moves)
}

// ctxEvery is how many WalkSAT moves go between two polls of the context
// (a move costs about a microsecond).
const ctxEvery = 1 << 10

func (c *chain) satisfy(ctx context.Context, rng *rand.Rand, budget int) error {
	g := c.g
	// A hard factor on one variable (a hard unit clause) rules states out
	// for good: the search never moves a variable into a state one of
	// them zeroes, and starts it in an allowed one (on the event
	// calculus's chains of implications, internal/calib.EventCalculus,
	// WalkSAT moves that broke such units again and again used up its
	// moves in one start of five).
	allowed := func(v, s int32) bool {
		lo, hi := c.factors(v)
		for i := lo; i < hi; i++ {
			f := int(c.edgeF[i])
			if c.hard[f] && g.FactorStart[f+1]-g.FactorStart[f] == 1 && g.Table(f).Values[s] == 0 {
				return false
			}
		}
		return true
	}
	for v := range c.x {
		if vv := int32(v); !c.observed(vv) && !allowed(vv, c.x[v]) {
			for s := range g.Card[v] {
				if allowed(vv, s) {
					c.x[v] = s
					break
				}
			}
		}
	}
	nHard := 0
	pos := map[int32]int{} // zero factor → index in unsat
	var unsat []int32
	for f := range c.hard {
		if !c.hard[f] {
			continue
		}
		nHard++
		if !c.positive(f) {
			pos[int32(f)] = len(unsat)
			unsat = append(unsat, int32(f))
		}
	}
	update := func(f int32) {
		i, isZero := pos[f]
		switch p := c.positive(int(f)); {
		case !p && !isZero:
			pos[f] = len(unsat)
			unsat = append(unsat, f)
		case p && isZero:
			last := unsat[len(unsat)-1]
			unsat[i] = last
			pos[last] = i
			unsat = unsat[:len(unsat)-1]
			delete(pos, f)
		}
	}
	// delta is how many more factors are zero with v in state s.
	delta := func(v, s int32) int {
		d := 0
		lo, hi := c.factors(v)
		for i := lo; i < hi; i++ {
			f := int(c.edgeF[i])
			if !c.hard[f] {
				continue
			}
			t := g.Table(f).Values
			if t[c.entry(f, v, c.x[v])] > 0 {
				d--
			}
			if t[c.entry(f, v, s)] > 0 {
				d++
			}
		}
		return -d
	}
	// best returns v's state other than its current one with the least
	// delta (the first on ties), and that delta.
	best := func(v int32) (int32, int) {
		bs, bd := int32(-1), math.MaxInt
		for s := range g.Card[v] {
			if s == c.x[v] || !allowed(v, s) {
				continue
			}
			if d := delta(v, s); d < bd {
				bs, bd = s, d
			}
		}
		return bs, bd
	}
	var free []int32
	if budget <= 0 {
		budget = MaxFlips * max(nHard, 1)
	}
	for moves := 0; len(unsat) > 0; moves++ {
		if moves == budget {
			return &UnsatError{Factor: int(unsat[0]), Moves: budget}
		}
		if moves%ctxEvery == ctxEvery-1 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		f := unsat[rng.IntN(len(unsat))]
		free = free[:0]
		for _, u := range g.Scope(int(f)) {
			if !c.observed(u) && g.Card[u] > 1 {
				free = append(free, u)
			}
		}
		if len(free) == 0 {
			return &UnsatError{Factor: int(f), Moves: -1}
		}
		v := free[rng.IntN(len(free))]
		s := int32(-1)
		if rng.IntN(2) == 0 {
			bd := math.MaxInt
			for _, u := range free {
				if us, d := best(u); d < bd {
					bd, v, s = d, u, us
				}
			}
		}
		if s < 0 {
			switch k := g.Card[v]; {
			case k == 2:
				s = 1 - c.x[v]
			default:
				s = (c.x[v] + 1 + int32(rng.IntN(int(k-1)))) % k
			}
			if !allowed(v, s) {
				continue // a hard unit factor rules it out
			}
		}
		c.x[v] = s
		lo, hi := c.factors(v)
		for i := lo; i < hi; i++ {
			if f := c.edgeF[i]; c.hard[f] {
				update(f)
			}
		}
	}
	return nil
}

// Sample runs sweeps Gibbs sweeps from the world x (which Start or the
// caller has made positive): in each, every unobserved variable in
// increasing order is redrawn from its conditional distribution given the
// others, P(v = s | rest) ∝ Π_f φ_f(s, rest) over its factors. A state
// that some factor makes zero is never taken; when all but one are, that
// one is taken without a draw. Otherwise a binary variable takes state 1
// when rng.Float64() < σ(Σ_f log φ_f(1) − log φ_f(0)), and a variable with
// more states takes the state at which one rng.Float64(), scaled by the
// total, falls among the cumulative weights. Observed variables keep their
// evidence state.
func Sample(g *fg.Graph, ev fg.Evidence, x []int32, sweeps int, rng *rand.Rand) error {
	c, err := newChain(context.Background(), g, ev, x)
	if err != nil {
		return err
	}
	for range sweeps {
		c.sweep(rng, nil, nil)
	}
	return nil
}

// sweep is one Gibbs sweep (see Sample). With cond set, it also writes
// into cond[off[v]:off[v+1]] the conditional distribution from which
// variable v was drawn (for an observed variable: its evidence state with
// probability 1); the draws are the same with or without it.
func (c *chain) sweep(rng *rand.Rand, cond []float64, off []int) {
	g, x, ev := c.g, c.x, c.ev
	for v := range x {
		u := int32(v)
		if c.skip != nil && c.skip[v] && !c.observed(u) {
			continue
		}
		if c.observed(u) {
			x[v] = ev[v]
			if cond != nil {
				p := cond[off[v]:off[v+1]]
				clear(p)
				p[ev[v]] = 1
			}
			continue
		}
		k := g.Card[v]
		if k == 2 {
			p1 := c.binary(u, rng)
			if cond != nil {
				cond[off[v]], cond[off[v]+1] = 1-p1, p1
			}
			continue
		}
		logw, ok, total := c.weights(u)
		nOK, last := 0, int32(-1)
		for s := range k {
			if ok[s] {
				nOK++
				last = s
			}
		}
		if cond != nil {
			p := cond[off[v]:off[v+1]]
			for s := range k {
				p[s] = logw[s] / total
			}
		}
		if nOK <= 1 {
			if last >= 0 {
				x[v] = last
			}
			continue
		}
		r := rng.Float64() * total
		x[v] = last
		for s := range k {
			if ok[s] {
				if r < logw[s] {
					x[v] = s
					break
				}
				r -= logw[s]
			}
		}
	}
}

// weights returns the conditional weights of the states of variable v
// given the others, relative to the largest (0 for the states some factor
// makes zero), whether each state is allowed (no factor zero), and their
// total, in buffers reused by the next call.
func (c *chain) weights(v int32) ([]float64, []bool, float64) {
	g := c.g
	k := g.Card[v]
	c.logw = c.logw[:0]
	c.ok = c.ok[:0]
	for range k {
		c.logw = append(c.logw, 0)
		c.ok = append(c.ok, true)
	}
	logw, ok := c.logw, c.ok
	lo, hi := c.factors(v)
	for i := lo; i < hi; i++ {
		f := int(c.edgeF[i])
		lt := c.logT[g.FactorTable[f]]
		j, st := c.base(f, i, v), int(c.edgeSt[i])
		for s := range k {
			l := lt[j+int(s)*st]
			if math.IsInf(l, -1) {
				ok[s] = false
			} else {
				logw[s] += l
			}
		}
	}
	top := math.Inf(-1)
	for s := range k {
		if ok[s] {
			top = max(top, logw[s])
		}
	}
	total := 0.0
	for s := range k {
		if ok[s] {
			logw[s] = math.Exp(logw[s] - top)
			total += logw[s]
		} else {
			logw[s] = 0
		}
	}
	return logw, ok, total
}

// binary redraws binary variable v and returns the conditional
// probability of state 1 it was drawn with.
func (c *chain) binary(v int32, rng *rand.Rand) float64 {
	p1, forced := c.binaryCond(v)
	switch {
	case forced:
		c.x[v] = int32(p1)
	case rng.Float64() < p1:
		c.x[v] = 1
	default:
		c.x[v] = 0
	}
	return p1
}

// binaryCond returns P(v = 1 | rest) for binary variable v, and whether a
// zero entry forces v's state (then the probability is 0 or 1 exactly).
func (c *chain) binaryCond(v int32) (float64, bool) {
	if c.fast != nil && c.fast[v] {
		d := 0.0
		lo, hi := c.factors(v)
		pt, x := c.pairT[2*lo:2*hi], c.x
		for i, u := range c.pairOf[lo:hi] {
			d += pt[2*i+int(x[u])]
		}
		return 1 / (1 + math.Exp(-d)), false
	}
	g := c.g
	d := 0.0
	allow0, allow1 := true, true
	lo, hi := c.factors(v)
	for i := lo; i < hi; i++ {
		if c.pairOf != nil { // flat with it
			if o := c.pairOf[i]; o >= 0 && c.flat[i]>>c.x[o]&1 != 0 {
				continue // l1 − l0 = 0 exactly
			}
		}
		f := int(c.edgeF[i])
		lt := c.logT[g.FactorTable[f]]
		j := c.base(f, i, v)
		l0, l1 := lt[j], lt[j+int(c.edgeSt[i])]
		z0, z1 := math.IsInf(l0, -1), math.IsInf(l1, -1)
		if z0 || z1 {
			allow0 = allow0 && !z0
			allow1 = allow1 && !z1
			continue
		}
		d += l1 - l0
	}
	switch {
	case !allow1:
		return 0, true
	case !allow0:
		return 1, true
	}
	return 1 / (1 + math.Exp(-d)), false
}
