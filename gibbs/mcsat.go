package gibbs

import (
	"math"
	"math/rand/v2"
	"slices"

	"github.com/lifted-dev/lifted/fg"
)

// MaxBlock bounds MC-SAT's block moves: a factor whose unobserved
// variables have more joint states than this is not redrawn as a block.
const MaxBlock = 64

// MCSAT runs one step of MC-SAT (Poon and Domingos 2006) from the current
// world, which must be positive, generalised from weighted clauses to
// factors as a slice sampler. The factors over one unobserved variable
// (unit clauses, and factors whose other variables are observed) are not
// sliced: they are the variable's field, the sum of their log entries per
// state. For every other factor f ("coupling": two or more unobserved
// variables), with φ_f its value at the current world, a threshold u_f is
// drawn uniformly from (0, φ_f] (u_f = φ_f·(1 − rng.Float64()), in factor
// order), and the next world is drawn from the distribution proportional
// to the product of the fields on the worlds where every coupling factor
// is at least its threshold, SAT(M). This is the slice sampler of the
// joint density Π_unit φ(x)·Π_coupling 1[u_f < φ_f(x)], whose marginal in x
// is the model's. On a Markov logic factor with table {1, e^w} (w > 0) the
// thresholds are MC-SAT's rule exactly: a clause true now is kept true
// with probability 1 − e^{−w}, and a clause false now is unconstrained (a
// negative weight constrains the formula to stay false with probability
// 1 − e^{w}); a zero entry is never reached (hard formulas always hold).
// Unit clauses are weights, not constraints: an atom with many unit
// clauses pulling both ways (UW-CSE has atoms with 32 of weight 0.34 one
// way and three the other) would otherwise be pinned by whichever side it
// is on, flipping at the rate e^{−Σw} of that side rather than at Gibbs's
// rate of the net weight; such an atom froze the chains.
//
// The draw on SAT(M) is SampleSAT's simulated-annealing part at
// temperature 0 with the fields as weights, run from the current world
// (which satisfies M): satSweeps sweeps, each of which redraws every
// unobserved variable in increasing order among its states that keep
// every coupling factor of it at its threshold, with probability
// proportional to exp(field) (a binary variable whose other state is
// allowed: state 1 when rng.Float64() < σ(field₁ − field₀); else
// rng.Float64() scaled by the total weight), and then, in factor order,
// the unobserved variables of some coupling factors whose threshold
// excludes an entry and whose variables have at most MaxBlock joint
// states, jointly, among the joint states that keep every factor of them
// at its threshold, with probability proportional to the product of their
// fields (rng.Float64() scaled by the total; a block move: it crosses
// between states that single moves cannot). The factors so redrawn are
// those whose entries at the threshold or above are not connected by
// changing one variable (an "exactly one" constraint, an equivalence kept
// true), in factor order, and then each other one with probability
// blockProb (rng.Float64() < blockProb, in factor order; every one when
// blockProb is at least 1, none when it is 0) — but when there are more
// such factors than unobserved variables n, n tries instead, each with
// probability blockProb on a uniformly random one of them (rng.Float64(),
// then rng.IntN), so that a sweep costs O(n) block moves whatever the
// number of factors (UW-CSE: 4,681 atoms, 300,000 pairwise clauses, of
// which a third are active at a step): overlapping factors can
// separate states that no single factor separates, and block moves on
// every factor reach every world of positive probability that single
// moves and the factors' blocks connect, at a cost of up to MaxBlock
// checks of the block's factors each. Every move leaves the distribution
// on SAT(M) invariant, so the chain keeps the model's distribution
// exactly; SampleSAT's WalkSAT moves, which would bias the draw, are used
// only by Start.
func (ch *Chain) MCSAT(rng *rand.Rand, satSweeps int, blockProb float64) {
	ch.MCSATBlocks(rng, satSweeps, blockProb, nil)
}

// MCSATBlocks is MCSAT with, when bk is not nil (a Blocking of the
// Chain's graph and evidence, NewBlocking), one more move per sweep: after
// the factors' block moves, every block of bk with two or more variables
// in order is redrawn jointly among its joint states that keep every
// coupling factor touching it at its threshold, with probability
// proportional to the product of its variables' fields (blocked Gibbs on
// SAT(M): Chain.BlockSweep's enumeration with the slice indicators for
// the coupling factors). Blocks grown along shared factors cross between
// states of SAT(M) that single moves and one factor's block connect only
// through many sweeps, if at all: on the dishes model
// (experiments/sampling/mcsat) the integrated autocorrelation time of an
// atom drops from about 30 steps to about 2, that of exact draws from
// SAT(M) being 1.2.
func (ch *Chain) MCSATBlocks(rng *rand.Rand, satSweeps int, blockProb float64, bk *Blocking) {
	c := ch.c
	g := c.g
	if ch.thr == nil {
		ch.prepareMCSAT()
	}
	ch.syncEntries()
	ch.rng = rng
	ch.tstep++
	if ch.tstep == 0 { // wrapped: forget every threshold's step
		clear(ch.tstamp)
		ch.tstep = 1
	}
	ch.splitList, ch.optList = ch.splitList[:0], ch.optList[:0]
	small := len(ch.couplingList) <= ch.nFree && !lazyThresholds
	if small {
		// every threshold now, in factor order
		for _, f := range ch.couplingList {
			if ch.threshold(f) {
				if ch.blocky[f] {
					ch.splitList = append(ch.splitList, f)
				} else {
					ch.optList = append(ch.optList, f)
				}
			}
		}
	} else {
		// the factors that may need a block move now; the others when a
		// move first reads them
		for _, f := range ch.splittable {
			if ch.threshold(f) && ch.blocky[f] {
				ch.splitList = append(ch.splitList, f)
			}
		}
	}
	for range satSweeps {
		for v := range c.x {
			u := int32(v)
			if c.observed(u) || g.Card[v] < 2 {
				continue
			}
			if g.Card[v] == 2 {
				// The current state keeps every threshold (the world is
				// in SAT(M)); the other one when no coupling factor of v
				// decreases (dec), or every one that does stays at its
				// threshold.
				if ch.dec[v] == 0 || ch.keeps(u, 1-c.x[v]) {
					s := int32(0)
					if rng.Float64() < ch.p1[v] {
						s = 1
					}
					ch.move(u, s, true)
				}
				continue
			}
			ch.allow = ch.allow[:0]
			for s := range g.Card[v] {
				if s == c.x[v] || ch.keeps(u, s) {
					ch.allow = append(ch.allow, s)
				}
			}
			if len(ch.allow) > 1 {
				ch.move(u, ch.allow[ch.pick(rng, len(ch.allow), func(i int) float64 { return ch.field[ch.off[v]+int(ch.allow[i])] })], true)
			}
		}
		for _, f := range ch.splitList {
			ch.block(int(f), rng)
		}
		switch {
		case blockProb <= 0 || len(ch.couplingList) == 0:
		case small && blockProb >= 1:
			for _, f := range ch.optList {
				ch.block(int(f), rng)
			}
		case small:
			for _, f := range ch.optList {
				if rng.Float64() < blockProb {
					ch.block(int(f), rng)
				}
			}
		default:
			// more coupling factors than variables: as many tries as
			// variables, each on a uniformly random coupling factor,
			// redrawn when it is active and not split (those had theirs)
			for range ch.nFree {
				f := ch.couplingList[rng.IntN(len(ch.couplingList))]
				if (blockProb >= 1 || rng.Float64() < blockProb) && ch.threshold(f) && !ch.blocky[f] {
					ch.block(int(f), rng)
				}
			}
		}
		if bk != nil {
			for b := range bk.blocks {
				if len(bk.blocks[b].vars) > 1 {
					ch.drawBlockAs(rng, &bk.blocks[b], nil, true)
				}
			}
		}
	}
	ch.rng = nil
	if ch.steps++; ch.steps%resyncEvery == 0 {
		ch.recompute() // the running sums' rounding, reset
	}
}

// lazyThresholds makes every step draw its thresholds when first read
// and try nFree random optional block moves, as on graphs with more
// coupling factors than variables (tests of small graphs set it).
var lazyThresholds = false

// resyncEvery is how many MC-SAT steps the running log-odds and score
// (Conditionals, LogScore) go between exact recomputations.
const resyncEvery = 256

// threshold draws factor f's threshold for this step if no move has read
// it yet, u_f = φ_f·(1 − rng.Float64()) with φ_f its entry at the step's
// start (every move of a variable of f draws f's threshold before it
// changes f's entry, so an undrawn factor is still at its start entry),
// and reports whether it is active (excludes an entry of f). Drawing a
// threshold when it is first needed rather than all at the start gives
// the same joint distribution (each u_f is independent of the others and
// of the moves' draws given the start world) at a cost of the factors
// the moves read, not of every factor: a pairwise clause both of whose
// atoms are false is read by no single move.
func (ch *Chain) threshold(f int32) bool {
	if ch.tstamp[f] != ch.tstep {
		ch.tstamp[f] = ch.tstep
		g := ch.c.g
		t := g.FactorTable[f]
		u := g.Tables[t].Values[ch.cur[f]] * (1 - ch.rng.Float64())
		ch.thr[f] = u
		ch.active[f] = u > ch.tmin[t]
		if ch.active[f] {
			i, _ := slices.BinarySearch(ch.levels[t], u) // the smallest level ≥ u
			ch.blocky[f] = ch.split[t][i]
		}
	}
	return ch.active[f]
}

// prepareMCSAT sets up MC-SAT's scratch and the fields of the unit factors.
func (ch *Chain) prepareMCSAT() {
	c := ch.c
	g := c.g
	nf := g.NumFactors()
	ch.thr = make([]float64, nf)
	ch.active = make([]bool, nf)
	ch.blocky = make([]bool, nf)
	ch.seen = make([]uint32, nf)
	ch.coupling = make([]bool, nf)
	ch.tmin = make([]float64, len(g.Tables))
	ch.levels = make([][]float64, len(g.Tables))
	ch.split = make([][]bool, len(g.Tables))
	for t := range g.Tables {
		ch.tmin[t] = slices.Min(g.Tables[t].Values)
		ch.levels[t], ch.split[t] = splitLevels(&g.Tables[t])
	}
	ch.field = make([]float64, ch.off[g.NumVars()])
	for f := range nf {
		one := int32(-1)
		n := 0
		for _, u := range g.Scope(f) {
			if !c.observed(u) && g.Card[u] > 1 {
				one = u
				n++
			}
		}
		ch.coupling[f] = n > 1
		if n != 1 {
			continue // constant given the evidence, or coupling
		}
		lt := c.logT[g.FactorTable[f]]
		for s := range g.Card[one] {
			ch.field[ch.off[one]+int(s)] += lt[c.entry(f, one, s)]
		}
	}
	ch.p1 = make([]float64, g.NumVars())
	for v := range g.NumVars() {
		if !c.observed(int32(v)) && g.Card[v] > 1 {
			ch.nFree++
		}
		if g.Card[v] == 2 {
			f0, f1 := ch.field[ch.off[v]], ch.field[ch.off[v]+1]
			switch {
			case math.IsInf(f1, -1):
				ch.p1[v] = 0
			case math.IsInf(f0, -1):
				ch.p1[v] = 1
			default:
				ch.p1[v] = 1 / (1 + math.Exp(f0-f1))
			}
		}
	}
	ch.freeFlip = freeFlips(c, ch.coupling)
	ch.tstamp = make([]uint32, nf)
	for f := range nf {
		if ch.coupling[f] {
			ch.couplingList = append(ch.couplingList, int32(f))
			if slices.Contains(ch.split[g.FactorTable[f]], true) {
				ch.splittable = append(ch.splittable, int32(f))
			}
		}
	}
	ch.recompute()
}

// pick returns an index in [0, n) drawn with probability proportional to
// exp(logw(i)) (one rng.Float64(), scaled by the total); an index of
// weight 0 (logw −Inf) is never drawn, and at least one must be positive.
func (ch *Chain) pick(rng *rand.Rand, n int, logw func(i int) float64) int {
	if cap(ch.bw) < n {
		ch.bw = make([]float64, n)
	}
	w := ch.bw[:n]
	top := math.Inf(-1)
	for i := range w {
		w[i] = logw(i)
		top = max(top, w[i])
	}
	total := 0.0
	for i, l := range w {
		w[i] = math.Exp(l - top) // 0 for −Inf
		total += w[i]
	}
	r := rng.Float64() * total
	last := 0
	for i, p := range w {
		if p > 0 {
			last = i
			if r < p {
				return i
			}
			r -= p
		}
	}
	return last
}

// splitLevels returns the distinct positive entries of table t in
// increasing order and, for each, whether the entries at least that large
// fall apart into parts that no change of one position joins.
func splitLevels(t *fg.Table) ([]float64, []bool) {
	var levels []float64
	for _, v := range t.Values {
		if v > 0 {
			levels = append(levels, v)
		}
	}
	slices.Sort(levels)
	levels = slices.Compact(levels)
	split := make([]bool, len(levels))
	st := t.Strides()
	seen := make([]bool, len(t.Values))
	var queue []int
	for i, lv := range levels {
		clear(seen)
		start, n := -1, 0
		for j, v := range t.Values {
			if v >= lv {
				n++
				if start < 0 {
					start = j
				}
			}
		}
		seen[start] = true
		queue = append(queue[:0], start)
		reached := 1
		for len(queue) > 0 {
			j := queue[0]
			queue = queue[1:]
			for p, d := range t.Dims {
				s := (j / st[p]) % int(d)
				for s2 := range int(d) {
					k := j + (s2-s)*st[p]
					if s2 != s && !seen[k] && t.Values[k] >= lv {
						seen[k] = true
						reached++
						queue = append(queue, k)
					}
				}
			}
		}
		split[i] = reached < n
	}
	return levels, split
}

// block redraws the unobserved variables of factor f jointly, uniformly
// among their joint states that keep every active factor of them at its
// threshold. An active factor holding one variable u of the block limits
// u's states alone: it is read once per state of u (not per joint state),
// and never at u's current state, which the world, satisfying every
// threshold, keeps. The factors holding two or more (f among them) are
// read per joint state. A variable's scan stops once its own factors
// allow it no other state, and a binary variable whose flip is free
// (freeFlips) is not scanned: a factor holding several block variables
// that no scan reached then holds only pinned ones, which stay in their
// state, and free ones, which can only flip the free way; as its table
// does not decrease along any of these flips, it stays at or above its
// current entry, hence its threshold, in every joint state the rest
// allows.
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
	if ch.vmark == nil {
		ch.vmark = make([]uint32, g.NumVars())
	}
	ch.stamp++
	if ch.stamp == 0 { // wrapped: forget every mark
		clear(ch.seen)
		clear(ch.vmark)
		ch.stamp = 1
	}
	for _, u := range ch.free {
		ch.vmark[u] = ch.stamp
	}
	ch.shared = append(ch.shared[:0], int32(f))
	ch.seen[f] = ch.stamp
	ch.okState = ch.okState[:0]
	ch.okOff = ch.okOff[:0]
	for _, u := range ch.free {
		base := len(ch.okState)
		ch.okOff = append(ch.okOff, base)
		for range g.Card[u] {
			ch.okState = append(ch.okState, true)
		}
		if g.Card[u] == 2 && ch.freeFlip[u]>>c.x[u]&1 == 1 {
			continue // both states allowed; see freeFlips for the factors it shares
		}
		open := int(g.Card[u]) - 1 // other states still allowed
		lo, hi := c.factors(u)
		for i := lo; i < hi && open > 0; i++ {
			h := c.edgeF[i]
			if !ch.coupling[h] || ch.seen[h] == ch.stamp || !ch.threshold(h) {
				continue
			}
			// one pass over the scope: the block variables in it, and
			// the entry with u in state 0 (as c.base)
			n, b := 0, 0
			st := c.stride[g.FactorTable[h]]
			for p, w := range g.Scope(int(h)) {
				if ch.vmark[w] == ch.stamp {
					n++
				}
				b += st[p] * int(c.x[w])
			}
			if n > 1 {
				ch.seen[h] = ch.stamp
				ch.shared = append(ch.shared, h)
				continue
			}
			vals := g.Table(int(h)).Values
			b -= int(c.edgeSt[i]) * int(c.x[u])
			for s := range g.Card[u] {
				if s != c.x[u] && ch.okState[base+int(s)] && vals[b+int(s)*int(c.edgeSt[i])] < ch.thr[h] {
					ch.okState[base+int(s)] = false
					open--
				}
			}
		}
	}
	ch.allow = ch.allow[:0]
	for j := range size {
		ch.setBlock(j)
		if ch.blockOK() {
			ch.allow = append(ch.allow, int32(j))
		}
	}
	// The current joint state is always allowed, so allow is not empty;
	// each allowed joint state has the weight of its variables' fields.
	j := ch.pick(rng, len(ch.allow), func(i int) float64 {
		l := 0.0
		k := int(ch.allow[i])
		for b := len(ch.free) - 1; b >= 0; b-- {
			u := ch.free[b]
			card := int(g.Card[u])
			l += ch.field[ch.off[u]+k%card]
			k /= card
		}
		return l
	})
	ch.setBlock(int(ch.allow[j]))
	ch.syncBlock()
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

// blockOK reports whether, at the block's current joint state, every
// active factor of its variables is at its threshold: each variable's
// state is allowed by its own factors (okState) and every factor shared by
// several of them is at its threshold.
func (ch *Chain) blockOK() bool {
	c := ch.c
	for i, u := range ch.free {
		if !ch.okState[ch.okOff[i]+int(c.x[u])] {
			return false
		}
	}
	for _, h := range ch.shared {
		if c.g.Table(int(h)).Values[c.entry(int(h), -1, 0)] < ch.thr[h] {
			return false
		}
	}
	return true
}

// freeFlips returns, per variable v, bit s set when v is binary and
// moving it from state s to 1−s lowers no entry of any of its coupling
// factors (MCSAT: the others are weights, never thresholds),
// whatever the other variables' states (a positive literal of every
// clause it is in goes from 0 to 1): such a flip keeps every threshold of
// an MC-SAT step, so neither the sweep nor a block move reads its factors.
func freeFlips(c *chain, coupling []bool) []uint8 {
	g := c.g
	// per table and stride: bit s set when s → 1−s never lowers an entry
	type key struct{ t, stride int32 }
	mono := map[key]uint8{}
	out := make([]uint8, g.NumVars())
	for v := range g.NumVars() {
		if g.Card[v] != 2 {
			continue
		}
		bits := uint8(3)
		lo, hi := c.factors(int32(v))
		for i := lo; i < hi && bits != 0; i++ {
			if !coupling[c.edgeF[i]] {
				continue // a unit factor: a weight, never a threshold
			}
			k := key{g.FactorTable[c.edgeF[i]], c.edgeSt[i]}
			m, ok := mono[k]
			if !ok {
				m = 3
				vals, st := g.Tables[k.t].Values, int(k.stride)
				for j := range vals {
					if j/st%2 == 0 {
						if vals[j+st] < vals[j] {
							m &^= 1
						}
						if vals[j] < vals[j+st] {
							m &^= 2
						}
					}
				}
				mono[k] = m
			}
			bits &= m
		}
		out[v] = bits
	}
	return out
}
