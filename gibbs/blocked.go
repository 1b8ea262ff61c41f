package gibbs

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/lifted-dev/lifted/fg"
)

// Blocking is a partition of a graph's unobserved variables into blocks
// that blocked Gibbs sampling (Chain.BlockSweep) redraws jointly, each from
// its exact conditional distribution given the rest; it is read-only and
// may be shared by several chains on the same graph and evidence.
type Blocking struct {
	// Blocks lists each block's variables, in increasing order; every
	// unobserved variable is in exactly one block, observed ones in none.
	Blocks [][]int32
	// States[b] is the number of joint states of block b.
	States []int

	blocks []block
}

// block is one block prepared for sampling.
type block struct {
	vars  []int32
	card  []int32
	fac   []bfactor // the factors with a variable in the block, once each
	state int       // joint states
}

// bfactor is a factor touching a block: its index, table, and for each
// variable of its scope the stride and, for block variables, the position
// in the block (-1 for the others).
type bfactor struct {
	f      int
	table  int
	stride []int
	pos    []int
}

// NewBlocking builds the blocks of g given ev greedily, deterministically:
// the lowest-numbered unobserved variable in no block yet seeds a new
// block, which then grows, one variable at a time, by the unobserved
// variable in no block that is most strongly coupled to it — coupling is
// the number of factors the variable shares with the block's variables,
// counted per pair (the lowest-numbered on ties) — among those that keep
// the block within maxSize variables and maxStates joint states, until no
// variable coupled to the block fits. A block of one variable may have more
// states than maxStates (its sampling is single-site Gibbs). maxSize 1 is
// single-site Gibbs with a systematic scan.
func NewBlocking(g *fg.Graph, ev fg.Evidence, maxSize, maxStates int) (*Blocking, error) {
	n := g.NumVars()
	if ev != nil && len(ev) != n {
		return nil, fmt.Errorf("gibbs: evidence has %d entries for %d variables", len(ev), n)
	}
	if maxSize < 1 || maxStates < 1 {
		return nil, fmt.Errorf("gibbs: block size and states must be positive, got %d and %d", maxSize, maxStates)
	}
	observed := func(v int32) bool { return ev != nil && ev[v] >= 0 }
	in := make([]int32, n) // block of each variable, -1 for none
	for v := range in {
		in[v] = -1
	}
	score := make([]int, n) // coupling to the growing block
	var cand []int32        // variables with a positive score
	bk := &Blocking{}
	for seed := range int32(n) {
		if in[seed] >= 0 || observed(seed) {
			continue
		}
		b := int32(len(bk.Blocks))
		vars := []int32{seed}
		states := int(g.Card[seed])
		in[seed] = b
		cand = cand[:0]
		add := func(v int32) {
			for e := g.VarStart[v]; e < g.VarStart[v+1]; e++ {
				for _, u := range g.Scope(g.EdgeFactor(g.VarEdges[e])) {
					if u == v || in[u] >= 0 || observed(u) {
						continue
					}
					if score[u] == 0 {
						cand = append(cand, u)
					}
					score[u]++
				}
			}
		}
		add(seed)
		for len(vars) < maxSize {
			best := int32(-1)
			for _, u := range cand {
				if in[u] >= 0 || states*int(g.Card[u]) > maxStates {
					continue
				}
				if best < 0 || score[u] > score[best] || score[u] == score[best] && u < best {
					best = u
				}
			}
			if best < 0 {
				break
			}
			in[best] = b
			vars = append(vars, best)
			states *= int(g.Card[best])
			add(best)
		}
		for _, u := range cand {
			score[u] = 0
		}
		insertionSort(vars)
		bk.Blocks = append(bk.Blocks, vars)
		bk.States = append(bk.States, states)
	}
	pos := make([]int, n)
	seen := make([]int, g.NumFactors()) // block+1 that last listed the factor
	for b, vars := range bk.Blocks {
		bl := block{vars: vars, state: bk.States[b]}
		for i, v := range vars {
			pos[v] = i
			bl.card = append(bl.card, g.Card[v])
		}
		for _, v := range vars {
			for e := g.VarStart[v]; e < g.VarStart[v+1]; e++ {
				f := g.EdgeFactor(g.VarEdges[e])
				if seen[f] == b+1 {
					continue
				}
				seen[f] = b + 1
				t := int(g.FactorTable[f])
				bf := bfactor{f: f, table: t, stride: g.Tables[t].Strides()}
				for _, u := range g.Scope(f) {
					p := -1
					if in[u] == int32(b) {
						p = pos[u]
					}
					bf.pos = append(bf.pos, p)
				}
				bl.fac = append(bl.fac, bf)
			}
		}
		bk.blocks = append(bk.blocks, bl)
	}
	return bk, nil
}

func insertionSort(a []int32) {
	for i := 1; i < len(a); i++ {
		for j := i; j > 0 && a[j] < a[j-1]; j-- {
			a[j], a[j-1] = a[j-1], a[j]
		}
	}
}

// BlockSweep runs one sweep of blocked Gibbs sampling with the blocks of
// bk (made for the Chain's graph and evidence): every block in order is
// redrawn jointly from its exact conditional distribution given the other
// variables, P(x_B | x₋B) ∝ Π_f φ_f(x_B, x₋B) over the factors touching
// B, by enumerating the block's joint states (those some factor makes zero
// get probability 0) and taking the state at which one rng.Float64(),
// scaled by the total, falls among the cumulative weights (joint states in
// mixed-radix order, the block's first variable slowest). Observed variables
// keep their evidence state. With cond set, it writes there each
// variable's marginal under its block's conditional distribution at the
// moment the block is drawn (for an observed variable, its evidence state
// with probability 1): the Rao-Blackwellised terms, as Sweep writes the
// single-site ones.
func (ch *Chain) BlockSweep(rng *rand.Rand, bk *Blocking, cond []float64) {
	c := ch.c
	if cond != nil {
		for v := range c.x {
			if c.observed(int32(v)) {
				p := cond[ch.off[v]:ch.off[v+1]]
				clear(p)
				p[c.ev[v]] = 1
			}
		}
	}
	for v := range c.x {
		if c.observed(int32(v)) {
			c.x[v] = c.ev[v]
		}
	}
	for b := range bk.blocks {
		ch.drawBlock(rng, &bk.blocks[b], cond)
	}
}

// drawBlock redraws one block (see BlockSweep).
func (ch *Chain) drawBlock(rng *rand.Rand, bl *block, cond []float64) {
	c := ch.c
	ns := bl.state
	if cap(ch.bw) < ns {
		ch.bw = make([]float64, ns)
	}
	w := ch.bw[:ns]
	clear(w)
	if cap(ch.bs) < len(bl.vars) {
		ch.bs = make([]int32, len(bl.vars))
	}
	s := ch.bs[:len(bl.vars)]
	for i := range bl.fac {
		bf := &bl.fac[i]
		lt := c.logT[bf.table]
		base := 0
		for p, u := range c.g.Scope(bf.f) {
			if bf.pos[p] < 0 {
				base += bf.stride[p] * int(c.x[u])
			}
		}
		clear(s)
		for j := range ns {
			idx := base
			for p, q := range bf.pos {
				if q >= 0 {
					idx += bf.stride[p] * int(s[q])
				}
			}
			w[j] += lt[idx] // −Inf stays −Inf
			next(s, bl.card)
		}
	}
	top := math.Inf(-1)
	for _, l := range w {
		top = max(top, l)
	}
	total := 0.0
	for j, l := range w {
		if math.IsInf(l, -1) {
			w[j] = 0
		} else {
			w[j] = math.Exp(l - top)
			total += w[j]
		}
	}
	r := rng.Float64() * total
	pick := -1
	for j, p := range w {
		if p > 0 {
			pick = j
			if r < p {
				break
			}
			r -= p
		}
	}
	if cond != nil {
		for _, v := range bl.vars {
			p := cond[ch.off[v]:ch.off[v+1]]
			clear(p)
			if pick < 0 {
				p[c.x[v]] = 1
			}
		}
		if pick >= 0 {
			clear(s)
			for _, p := range w {
				if p > 0 {
					for i, v := range bl.vars {
						cond[ch.off[v]+int(s[i])] += p / total
					}
				}
				next(s, bl.card)
			}
		}
	}
	if pick < 0 { // no positive state: the world was not positive; keep it
		return
	}
	for i := len(bl.vars) - 1; i >= 0; i-- { // decode pick, last variable fastest
		k := int(bl.card[i])
		c.x[bl.vars[i]] = int32(pick % k)
		pick /= k
	}
}

// next advances s to the next joint state in mixed-radix order, the last
// position fastest (wrapping to all zeros after the last).
func next(s []int32, card []int32) {
	for i := len(s) - 1; i >= 0; i-- {
		s[i]++
		if s[i] < card[i] {
			return
		}
		s[i] = 0
	}
}
