package gibbs

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/lifted-dev/lifted/fg"
)

// Pairs are the strongly coupled pairs of unobserved variables of a graph,
// each redrawn jointly by PairSweep: the moves that cross what single-site
// Gibbs crosses only through an improbable intermediate state. Two kinds
// matter on Markov logic networks (UW-CSE's advisedBy, issue 35):
//
//   - a hard pair factor: the auxiliary variable a of a long clause
//     (ground's star, φ(x) = Σₐ g(a) Πᵢ hᵢ(a, xᵢ)) is forced to 0 as soon as
//     one of its atoms is true, and a = 1 forces every atom false, so
//     single-site Gibbs turns an atom of an all-false clause on only in the
//     sweeps where a happens to be 0; a joint draw of (a, xᵢ) does so at
//     the rate of the clause summed over a;
//   - two atoms whose joint factors make one of them true but not both
//     (advisedBy(a,b) and advisedBy(b,a) of co-authors): single flips pass
//     through (0,0) or (1,1), which the coupling makes improbable; a joint
//     draw goes from (1,0) to (0,1) directly.
//
// A pair is two unobserved variables of at most maxPairStates joint states
// that the factors over exactly those two unobserved variables (the others
// observed) couple strongly: their summed log table has a zero entry, or an
// interaction log φ(s,t) + log φ(s',t') − log φ(s,t') − log φ(s',t) of at
// least PairCoupling in absolute value. Pairs are found once; the list is
// deterministic (increasing by the first variable, then the second).
type Pairs struct {
	U, V []int32
	// covered[v] says that v is in some pair.
	covered []bool
}

// PairCoupling is the interaction (in log odds) from which NewPairs pairs two
// variables: e² ≈ 7.4, where a single-site flip through the intermediate
// state is already several times less likely than the joint move.
const PairCoupling = 2.0

// maxPairStates bounds a pair's joint states.
const maxPairStates = 16

// NewPairs finds g's strongly coupled pairs given ev (nil: none); see Pairs.
func NewPairs(g *fg.Graph, ev fg.Evidence) *Pairs {
	p, _ := NewPairsContext(context.Background(), g, ev)
	return p
}

// NewPairsContext is NewPairs stopped with ctx's error once ctx is done
// (polled every 4096 factors: UW-CSE's 361,162 take about 0.17 CPU s, and
// Ctrl-C there waited for them).
func NewPairsContext(ctx context.Context, g *fg.Graph, ev fg.Evidence) (*Pairs, error) {
	type key struct{ u, v int32 }
	acc := map[key][]float64{}
	var keys []key
	observed := func(v int32) bool { return ev != nil && ev[v] >= 0 }
	for f := range g.NumFactors() {
		if f%4096 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		sc := g.Scope(f)
		pu, pv := -1, -1
		n := 0
		for p, v := range sc {
			if !observed(v) {
				n++
				if pu < 0 {
					pu = p
				} else {
					pv = p
				}
			}
		}
		if n != 2 {
			continue
		}
		u, v := sc[pu], sc[pv]
		cu, cv := int(g.Card[u]), int(g.Card[v])
		if cu*cv > maxPairStates || cu < 2 || cv < 2 {
			continue
		}
		if u > v {
			u, v, pu, pv, cu, cv = v, u, pv, pu, cv, cu
		}
		tb := g.Table(f)
		st := tb.Strides()
		base := 0
		for p, w := range sc {
			if p != pu && p != pv {
				base += st[p] * int(ev[w])
			}
		}
		k := key{u, v}
		l, ok := acc[k]
		if !ok {
			l = make([]float64, cu*cv)
			acc[k] = l
			keys = append(keys, k)
		}
		for s := range cu {
			for t := range cv {
				l[s*cv+t] += math.Log(tb.Values[base+s*st[pu]+t*st[pv]])
			}
		}
	}
	slices.SortFunc(keys, func(a, b key) int {
		if a.u != b.u {
			return int(a.u - b.u)
		}
		return int(a.v - b.v)
	})
	p := &Pairs{covered: make([]bool, g.NumVars())}
	for _, k := range keys {
		l := acc[k]
		cv := int(g.Card[k.v])
		if strongPair(l, len(l)/cv, cv) {
			p.U = append(p.U, k.u)
			p.V = append(p.V, k.v)
			p.covered[k.u], p.covered[k.v] = true, true
		}
	}
	return p, nil
}

// strongPair reports whether the summed log table l (cu × cv) has a zero
// entry (−Inf) or an interaction of at least PairCoupling.
func strongPair(l []float64, cu, cv int) bool {
	for _, x := range l {
		if math.IsInf(x, -1) {
			return true
		}
	}
	for s := range cu {
		for s2 := s + 1; s2 < cu; s2++ {
			for t := range cv {
				for t2 := t + 1; t2 < cv; t2++ {
					if math.Abs(l[s*cv+t]+l[s2*cv+t2]-l[s*cv+t2]-l[s2*cv+t]) >= PairCoupling {
						return true
					}
				}
			}
		}
	}
	return false
}

// Len returns the number of pairs.
func (p *Pairs) Len() int { return len(p.U) }

// Work returns the edge visits of one PairSweepAll beyond those of a
// Sweep: the pairs' draws visit both variables' factors, the single-site
// part leaves out the variables in pairs.
func (p *Pairs) Work(g *fg.Graph) int64 {
	var n int64
	for i := range p.U {
		n += int64(g.Degree(int(p.U[i])) + g.Degree(int(p.V[i])))
	}
	for v, c := range p.covered {
		if c {
			n -= int64(g.Degree(v))
		}
	}
	return n
}

// PairSweepAll is one step of Gibbs sampling with pair moves: a sweep
// redraws every variable in no pair of p from its conditional, then
// PairSweep redraws the pairs (every variable is redrawn at least once).
// cond is filled as by Sweep.
func (ch *Chain) PairSweepAll(rng *rand.Rand, p *Pairs, cond []float64) {
	ch.c.skip = p.covered
	ch.c.sweep(rng, cond, ch.off)
	ch.c.skip = nil
	ch.PairSweep(rng, p, cond)
}

// PairSweep redraws every pair of p in turn jointly from its exact
// conditional given the rest of the world (all factors of either variable),
// a blocked Gibbs move on two variables that keeps the distribution. With
// cond set (as for Sweep) it writes there each pair's two marginals under
// that conditional (the Rao-Blackwellised terms, E[P(u | x₋ᵤᵥ)] = P(u));
// a variable in several pairs gets the mean of its pairs' terms in this
// sweep (each has expectation P(u) under the stationary distribution, and
// their mean varies less from step to step than the last one alone).
func (ch *Chain) PairSweep(rng *rand.Rand, p *Pairs, cond []float64) {
	c := ch.c
	if cond != nil {
		if len(ch.pmark) != len(c.x) {
			ch.pmark = make([]uint32, len(c.x))
			ch.pcount = make([]int32, len(c.x))
			ch.pstamp = 0
		}
		ch.pstamp++
		if ch.pstamp == 0 { // wrapped: no mark may look current
			clear(ch.pmark)
			ch.pstamp = 1
		}
	}
	for i := range p.U {
		u, v := p.U[i], p.V[i]
		if c.observed(u) || c.observed(v) {
			continue
		}
		if cond == nil {
			ch.pairDraw(rng, u, v, nil)
			continue
		}
		ch.pold = ch.saveTerm(u, cond, ch.pold[:0])
		ov := len(ch.pold)
		ch.pold = ch.saveTerm(v, cond, ch.pold)
		ch.pairDraw(rng, u, v, cond)
		ch.meanTerm(u, cond, ch.pold[:ov])
		ch.meanTerm(v, cond, ch.pold[ov:])
	}
}

// saveTerm appends to buf variable w's Rao-Blackwellised term in cond
// when an earlier pair of this sweep wrote it (else nothing).
func (ch *Chain) saveTerm(w int32, cond, buf []float64) []float64 {
	if ch.pmark[w] != ch.pstamp {
		return buf
	}
	return append(buf, cond[ch.off[w]:ch.off[w+1]]...)
}

// meanTerm makes w's term in cond, just written by a pair move, the mean
// of it and the old ones (old: their running mean, empty when none).
func (ch *Chain) meanTerm(w int32, cond, old []float64) {
	if ch.pmark[w] != ch.pstamp {
		ch.pmark[w], ch.pcount[w] = ch.pstamp, 1
		return
	}
	k := float64(ch.pcount[w])
	p := cond[ch.off[w]:ch.off[w+1]]
	for s := range p {
		p[s] = (old[s]*k + p[s]) / (k + 1)
	}
	ch.pcount[w]++
}

// pairDraw redraws (u, v) jointly from their conditional given the rest.
func (ch *Chain) pairDraw(rng *rand.Rand, u, v int32, cond []float64) {
	c, g := ch.c, ch.c.g
	cu, cv := int(g.Card[u]), int(g.Card[v])
	n := cu * cv
	if cap(ch.bw) < n {
		ch.bw = make([]float64, n)
	}
	w := ch.bw[:n]
	clear(w)
	// scan returns the index into factor f's table of the current state
	// (through VarEdges entry e of variable a, whose stride is edgeSt[e])
	// with a in state 0, and the stride of variable b in f (-1 when f's
	// scope does not hold b; then the index is b's current state's).
	scan := func(f int, e int64, a, b int32) (int, int) {
		if c.pairOf != nil {
			if o := c.pairOf[e]; o >= 0 { // f holds at most a and one other variable
				st := int(c.pairSt[e])
				if o == b {
					return st * int(c.x[b]), st
				}
				return st * int(c.x[o]), -1
			}
		}
		st := c.stride[g.FactorTable[f]]
		j, sb := 0, -1
		for q, y := range g.Scope(f) {
			j += st[q] * int(c.x[y])
			if y == b {
				sb = st[q]
			}
		}
		return j - int(c.edgeSt[e])*int(c.x[a]), sb
	}
	// skip says that the factor of VarEdges entry e (of a small factor
	// not holding the pair's other variable) is 1 whatever its variable's
	// state: it adds exactly 0 to every joint state.
	skip := func(e int64) bool {
		if c.pairOf == nil { // flat with it
			return false
		}
		o := c.pairOf[e]
		return o >= 0 && o != u && o != v && c.flat[e]>>(8+c.x[o])&1 != 0
	}
	lo, hi := c.factors(u)
	for e := lo; e < hi; e++ {
		if skip(e) {
			continue
		}
		f := int(c.edgeF[e])
		lt := c.logT[g.FactorTable[f]]
		j, sv := scan(f, e, u, v)
		su := int(c.edgeSt[e])
		if sv >= 0 {
			j -= sv * int(c.x[v])
			for s := range cu {
				for t := range cv {
					w[s*cv+t] += lt[j+s*su+t*sv]
				}
			}
			continue
		}
		for s := range cu {
			l := lt[j+s*su]
			for t := range cv {
				w[s*cv+t] += l
			}
		}
	}
	lo, hi = c.factors(v)
	for e := lo; e < hi; e++ {
		if skip(e) {
			continue
		}
		f := int(c.edgeF[e])
		j, su := scan(f, e, v, u)
		if su >= 0 {
			continue // counted with u's factors
		}
		lt := c.logT[g.FactorTable[f]]
		sv := int(c.edgeSt[e])
		for t := range cv {
			l := lt[j+t*sv]
			for s := range cu {
				w[s*cv+t] += l
			}
		}
	}
	top := math.Inf(-1)
	for _, l := range w {
		top = max(top, l)
	}
	if math.IsInf(top, -1) {
		return // no joint state allowed given the rest: keep the current one
	}
	total := 0.0
	for i, l := range w {
		w[i] = math.Exp(l - top) // exp(−Inf) = 0 for the excluded states
		total += w[i]
	}
	r := rng.Float64() * total
	pick := -1
	for i, x := range w {
		if x > 0 {
			pick = i
			if r < x {
				break
			}
			r -= x
		}
	}
	c.x[u], c.x[v] = int32(pick/cv), int32(pick%cv)
	if cond != nil {
		pu := cond[ch.off[u]:ch.off[u+1]]
		pv := cond[ch.off[v]:ch.off[v+1]]
		clear(pu)
		clear(pv)
		for s := range cu {
			for t := range cv {
				q := w[s*cv+t] / total
				pu[s] += q
				pv[t] += q
			}
		}
	}
}
