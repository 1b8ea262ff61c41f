package gibbs

import (
	"math/rand/v2"
	"slices"
)

// MaxBlock bounds MC-SAT's block moves: a factor whose unobserved
// variables have more joint states than this is not redrawn as a block.
const MaxBlock = 64

// MCSAT runs one step of MC-SAT (Poon and Domingos 2006) from the current
// world, which must be positive, generalised from weighted clauses to
// factors as a slice sampler: for every factor f, with φ_f its value at
// the current world, a threshold u_f is drawn uniformly from (0, φ_f]
// (u_f = φ_f·(1 − rng.Float64()), in factor order), and the next world is
// drawn from the uniform distribution on the worlds where every factor is
// at least its threshold, SAT(M). On a Markov logic factor with table
// {1, e^w} (w > 0) this is MC-SAT's rule exactly: a formula true now is
// kept true with probability 1 − e^{−w}, and a formula false now is
// unconstrained (a negative weight constrains the formula to stay false
// with probability 1 − e^{w}); a zero entry is never reached (hard
// formulas always hold).
//
// The uniform draw on SAT(M) is SampleSAT's simulated-annealing part at
// temperature 0, run from the current world (which satisfies M): satSweeps
// sweeps, each of which redraws every unobserved variable in increasing
// order uniformly among its states that keep every factor of it at its
// threshold (rng.IntN over those states, when there are two or more), and
// then, in factor order, the unobserved variables of every factor whose
// threshold excludes an entry and whose variables have at most MaxBlock
// joint states jointly, uniformly among the joint states that keep every
// factor of them at its threshold (a block move: it crosses between the
// states of an "exactly one" constraint that single moves cannot). Every
// move leaves the uniform distribution on SAT(M) invariant, so the chain
// keeps the model's distribution exactly; SampleSAT's WalkSAT moves, which
// would bias the draw, are used only by Start.
func (ch *Chain) MCSAT(rng *rand.Rand, satSweeps int) {
	c := ch.c
	g := c.g
	nf := g.NumFactors()
	if ch.thr == nil {
		ch.thr = make([]float64, nf)
		ch.active = make([]bool, nf)
		ch.seen = make([]uint32, nf)
		ch.tmin = make([]float64, len(g.Tables))
		for t := range g.Tables {
			ch.tmin[t] = slices.Min(g.Tables[t].Values)
		}
	}
	for f := range nf {
		cur := g.Table(f).Values[c.entry(f, -1, 0)]
		u := cur * (1 - rng.Float64())
		ch.thr[f] = u
		ch.active[f] = u > ch.tmin[g.FactorTable[f]]
	}
	for range satSweeps {
		for v := range c.x {
			u := int32(v)
			if c.observed(u) || g.Card[v] < 2 {
				continue
			}
			ch.allow = ch.allow[:0]
			for s := range g.Card[v] {
				if ch.keeps(u, s) {
					ch.allow = append(ch.allow, s)
				}
			}
			if len(ch.allow) > 1 {
				c.x[v] = ch.allow[rng.IntN(len(ch.allow))]
			}
		}
		for f := range nf {
			if ch.active[f] {
				ch.block(f, rng)
			}
		}
	}
}

// keeps reports whether variable v in state s keeps every active factor
// of v at its threshold (the others as they are).
func (ch *Chain) keeps(v, s int32) bool {
	c := ch.c
	lo, hi := c.factors(v)
	for i := lo; i < hi; i++ {
		f := int(c.edgeF[i])
		if ch.active[f] && c.g.Table(f).Values[c.entry(f, v, s)] < ch.thr[f] {
			return false
		}
	}
	return true
}

// block redraws the unobserved variables of factor f jointly, uniformly
// among their joint states that keep every active factor of them at its
// threshold.
func (ch *Chain) block(f int, rng *rand.Rand) {
	c := ch.c
	g := c.g
	ch.free = ch.free[:0]
	size := 1
	for _, u := range g.Scope(f) {
		if !c.observed(u) && g.Card[u] > 1 {
			ch.free = append(ch.free, u)
			size *= int(g.Card[u])
			if size > MaxBlock {
				return
			}
		}
	}
	if len(ch.free) < 2 {
		return
	}
	ch.allow = ch.allow[:0]
	for j := range size {
		ch.setBlock(j)
		if ch.blockOK() {
			ch.allow = append(ch.allow, int32(j))
		}
	}
	// The current joint state is always allowed, so allow is not empty.
	ch.setBlock(int(ch.allow[rng.IntN(len(ch.allow))]))
}

// setBlock sets the block's variables to their j-th joint state (the last
// variable fastest).
func (ch *Chain) setBlock(j int) {
	c := ch.c
	for i := len(ch.free) - 1; i >= 0; i-- {
		u := ch.free[i]
		k := int(c.g.Card[u])
		c.x[u] = int32(j % k)
		j /= k
	}
}

// blockOK reports whether every active factor of the block's variables is
// at its threshold.
func (ch *Chain) blockOK() bool {
	c := ch.c
	ch.stamp++
	if ch.stamp == 0 { // wrapped: forget every mark
		clear(ch.seen)
		ch.stamp = 1
	}
	for _, u := range ch.free {
		lo, hi := c.factors(u)
		for i := lo; i < hi; i++ {
			f := c.edgeF[i]
			if !ch.active[f] || ch.seen[f] == ch.stamp {
				continue
			}
			ch.seen[f] = ch.stamp
			if c.g.Table(int(f)).Values[c.entry(int(f), -1, 0)] < ch.thr[f] {
				return false
			}
		}
	}
	return true
}
