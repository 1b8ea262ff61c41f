package lbg

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/gibbs"
)

// Chain is one Markov chain of lifted blocked Gibbs sampling: the current
// world (every ground atom's value, evidence included) and, for ground
// clusters, a gibbs.Chain on the grounding per cluster. Not safe for
// concurrent use.
type Chain struct {
	md *Model
	x  []int8
	gx []int32 // the world on the grounding's variables (nil: no grounding)
	gc []*groundCluster

	lo, bad0, bad1 []float64
	pmf            []float64
	classes        map[classKey]int
	members        [][]int
	probs          []float64
	ms             *multiState
}

// groundCluster is a ground cluster's sampler: blocked Gibbs on the
// grounding with every variable outside the cluster clamped (ev, refreshed
// from the world before each draw).
type groundCluster struct {
	ev    fg.Evidence
	ch    *gibbs.Chain
	bk    *gibbs.Blocking
	atoms []int // state atoms of the cluster
	cond  []float64
	off   []int
}

type classKey struct {
	lo         float64
	bad0, bad1 bool
}

// ErrUnsat is returned when no world satisfies the hard formulas given the
// evidence (or the search for one gave up).
var ErrUnsat = errors.New("lbg: found no world satisfying the hard formulas given the evidence")

// NewChain starts a chain: unknown atoms uniformly at random, then, when
// the model has a grounding, a world in which every ground formula is
// possible (gibbs.Start's WalkSAT search on the grounding).
func (md *Model) NewChain(rng *rand.Rand) (*Chain, error) {
	ch := &Chain{md: md, x: make([]int8, md.nstate), classes: map[classKey]int{}}
	for i, v := range md.ev {
		ch.x[i] = v
		if v < 0 {
			ch.x[i] = int8(rng.IntN(2))
		}
	}
	maxSize := 0
	for _, p := range md.preds {
		maxSize = max(maxSize, p.size)
	}
	ch.lo, ch.bad0, ch.bad1 = make([]float64, maxSize), make([]float64, maxSize), make([]float64, maxSize)
	ch.pmf = make([]float64, maxSize+1)
	if md.gr == nil {
		return ch, nil
	}
	g := md.gr.Graph
	ch.gx = make([]int32, g.NumVars())
	if err := gibbs.Start(g, nil, ch.gx, rng); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrUnsat, err)
	}
	for i, v := range md.varOf {
		if v >= 0 {
			ch.x[i] = int8(ch.gx[v])
		}
	}
	ch.gc = make([]*groundCluster, len(md.Clusters))
	for ci, c := range md.Clusters {
		if c.Lifted {
			continue
		}
		gc := &groundCluster{ev: append(fg.Evidence(nil), c.ev...), bk: c.bk, atoms: c.atoms}
		var err error
		if gc.ch, err = gibbs.NewChain(g, gc.ev, ch.gx); err != nil {
			return nil, err
		}
		gc.off = gc.ch.Offsets()
		gc.cond = make([]float64, gc.off[g.NumVars()])
		ch.gc[ci] = gc
	}
	return ch, nil
}

// World returns the current world: the value of every ground atom (state
// index, see Model.Index). It is the chain's own slice: read only.
func (ch *Chain) World() []int8 { return ch.x }

// SetAtom sets unknown atom i to v (for tests that fix a Markov blanket).
func (ch *Chain) SetAtom(i int, v int8) {
	ch.x[i] = v
	if ch.gx != nil {
		if g := ch.md.varOf[i]; g >= 0 {
			ch.gx[g] = int32(v)
		}
	}
}

// Sweep draws every cluster in order from its conditional distribution
// given the rest. With cond set (length Model.NumAtoms), it writes there
// each atom's probability of being true under its cluster's conditional
// at the moment the cluster is drawn (evidence atoms: their value), the
// Rao-Blackwellised terms.
func (ch *Chain) Sweep(rng *rand.Rand, cond []float64) error {
	if cond != nil {
		for i, v := range ch.md.ev {
			if v >= 0 {
				cond[i] = float64(v)
			}
		}
	}
	for ci := range ch.md.Clusters {
		if err := ch.Draw(rng, ci, cond); err != nil {
			return err
		}
	}
	return nil
}

// Draw redraws cluster ci from its conditional distribution given the
// rest of the world (see Sweep for cond).
func (ch *Chain) Draw(rng *rand.Rand, ci int, cond []float64) error {
	c := ch.md.Clusters[ci]
	if !c.Lifted {
		ch.drawGround(rng, ch.gc[ci], cond)
		return nil
	}
	if c.multi != nil {
		return ch.drawMulti(rng, c, cond)
	}
	if err := ch.classify(c); err != nil {
		return err
	}
	for k, m := range ch.members {
		p := ch.probs[k]
		// which n: the first n of a uniformly random arrangement
		ch.choose(rng, m, binomial(rng, len(m), p, ch.pmf), p, cond)
	}
	return nil
}

// Conditional returns, for lifted cluster ci, the classes of its unknown
// atoms that the lifted rules find exchangeable given the rest of the
// world, and each class's probability of an atom being true: the
// cluster's conditional distribution is that of independent atoms with
// these probabilities, and the number of true atoms of a class of m is
// Binomial(m, p) with every subset of that size equally likely. The
// slices are the chain's own, valid until the next call.
func (ch *Chain) Conditional(ci int) (classes [][]int, probs []float64, err error) {
	c := ch.md.Clusters[ci]
	if !c.Lifted || c.multi != nil {
		return nil, nil, fmt.Errorf("lbg: cluster %s is not a lifted cluster of one first-order atom", c)
	}
	if err := ch.classify(c); err != nil {
		return nil, nil, err
	}
	return ch.members, ch.probs, nil
}

// unary adds, for each atom j of predicate p (offset in p), the log-odds
// lo[j] of its soft formulas among plans and the counts b0[j], b1[j] of
// hard ground formulas violated with the atom false or true, in the world
// x.
func (md *Model) unary(plans []plan, p *predicate, x []int8, lo, b0, b1 []float64) {
	for pi := range plans {
		pl := &plans[pi]
		f := &md.forms[pl.form]
		for v := range 2 {
			md.scatter(pl, p, f.occs[pl.occ], md.evalPlan(pl, v, x), func(j int, val float64) {
				switch {
				case f.hard && v == 0:
					b0[j] += val
				case f.hard:
					b1[j] += val
				default:
					s := f.w * val
					if v == 0 {
						s = -s
					}
					if !pl.target {
						s = -s
					}
					lo[j] += s
				}
			})
		}
	}
}

// classify computes a lifted cluster's count messages, each atom's
// log-odds and hard-formula violations, and groups the unknown atoms with
// equal ones into classes.
func (ch *Chain) classify(c *Cluster) error {
	md := ch.md
	p := &md.preds[c.Preds[0]]
	lo, b0, b1 := ch.lo[:p.size], ch.bad0[:p.size], ch.bad1[:p.size]
	clear(lo)
	clear(b0)
	clear(b1)
	md.unary(c.plans, p, ch.x, lo, b0, b1)
	clear(ch.classes)
	for k := range ch.members {
		ch.members[k] = ch.members[k][:0]
	}
	ch.members, ch.probs = ch.members[:0], ch.probs[:0]
	for j := range p.size {
		a := p.off + j
		if md.ev[a] >= 0 {
			continue
		}
		key := classKey{lo: lo[j], bad0: b0[j] > 0, bad1: b1[j] > 0}
		k, ok := ch.classes[key]
		if !ok {
			k = len(ch.probs)
			ch.classes[key] = k
			var pr float64
			switch {
			case key.bad0 && key.bad1:
				return fmt.Errorf("lbg: %s is false and true in no world satisfying the hard formulas given the rest", md.Name(a))
			case key.bad0:
				pr = 1
			case key.bad1:
				pr = 0
			default:
				pr = 1 / (1 + math.Exp(-key.lo))
			}
			ch.probs = append(ch.probs, pr)
			if k < cap(ch.members) {
				ch.members = ch.members[:k+1]
			} else {
				ch.members = append(ch.members, nil)
			}
		}
		ch.members[k] = append(ch.members[k], a)
	}
	return nil
}

// binomial draws from Binomial(m, p) by inversion over its probabilities,
// computed relative to the mode by the ratio recursion (no underflow at
// the mode; terms below 1e-300 of it are 0); buf has at least m+1 entries.
func binomial(rng *rand.Rand, m int, p float64, buf []float64) int {
	if m == 0 || p <= 0 {
		return 0
	}
	if p >= 1 {
		return m
	}
	odds := p / (1 - p)
	mode := min(int(float64(m+1)*p), m)
	w := buf[:m+1]
	clear(w)
	w[mode] = 1
	total := 1.0
	for k := mode; k < m; k++ {
		w[k+1] = w[k] * float64(m-k) / float64(k+1) * odds
		total += w[k+1]
		if w[k+1] < 1e-300 {
			break
		}
	}
	for k := mode; k > 0; k-- {
		w[k-1] = w[k] * float64(k) / float64(m-k+1) / odds
		total += w[k-1]
		if w[k-1] < 1e-300 {
			break
		}
	}
	u := rng.Float64() * total
	for k, x := range w {
		u -= x
		if u < 0 {
			return k
		}
	}
	return mode
}

// drawGround redraws a ground cluster by one blocked Gibbs sweep over its
// blocks, every other variable clamped at its current value.
func (ch *Chain) drawGround(rng *rand.Rand, gc *groundCluster, cond []float64) {
	md := ch.md
	for v, e := range gc.ev {
		if e >= 0 {
			gc.ev[v] = ch.gx[v]
		}
	}
	var cd []float64
	if cond != nil {
		cd = gc.cond
	}
	gc.ch.BlockSweep(rng, gc.bk, cd)
	for _, a := range gc.atoms {
		v := md.varOf[a]
		if v < 0 {
			// an unknown atom no ground formula mentions: a fair coin
			ch.x[a] = int8(rng.IntN(2))
			if cond != nil {
				cond[a] = 0.5
			}
			continue
		}
		ch.x[a] = int8(ch.gx[v])
		if cond != nil {
			cond[a] = gc.cond[gc.off[v]+1]
		}
	}
}
