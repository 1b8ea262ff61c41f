package mcmc

import (
	"math"
	"math/rand/v2"

	"github.com/lifted-dev/lifted/fg"
)

// treeBlocks are the blocks of tree-blocked Gibbs sampling (Hamze and de
// Freitas, UAI 2004): sets of unobserved variables such that every factor
// holds at most two variables of a set and the factors that hold two make
// a forest on it. Such a block is drawn exactly from its joint conditional
// given the rest by forward filtering and backward sampling on the
// forest, in time linear in its size; on a grid two blocks (combs) cover
// every variable, so a sweep redraws each variable as part of a tree of
// about half the grid, and a frustrated or strongly coupled grid's
// domains move in one step.
type treeBlocks struct {
	blocks []treeBlock
}

// treeBlock is one forest: its variables in an order in which every
// variable's parent comes first (parent −1: a root), and per variable the
// factors that join it to its parent (pfac[pstart[i]:pstart[i+1]]) and
// its other factors with no variable of the block besides it.
type treeBlock struct {
	vars           []int32
	parent         []int32 // index into vars, −1 for a root
	pstart, ustart []int32
	pfac, ufac     []int32
	card           int // largest cardinality
}

// newTreeBlocks covers the unobserved variables of g by forests, built
// greedily: each block takes, first, the variables no block has yet (in
// order), then the others, every one it can add while every factor holds
// at most two of the block's variables and the factors that hold two make
// no cycle (a factor on more variables joins the two it holds, the others
// fixed). Every block takes at least one uncovered variable, so the cover
// ends; on pairwise grids two blocks (combs) cover everything.
func newTreeBlocks(g *fg.Graph, ev fg.Evidence) *treeBlocks {
	nv := g.NumVars()
	free := func(v int32) bool { return (ev == nil || ev[v] < 0) && g.Card[v] > 1 }
	fOf := g.EdgeFactors()
	covered := make([]bool, nv)
	left := 0
	for v := range nv {
		if free(int32(v)) {
			left++
		} else {
			covered[v] = true
		}
	}
	tb := &treeBlocks{}
	in := make([]int32, nv) // stamp: in the current block
	parent := make([]int32, nv)
	comp := make([]int32, nv) // union-find over the block's variables
	find := func(v int32) int32 {
		for comp[v] != v {
			comp[v] = comp[comp[v]]
			v = comp[v]
		}
		return v
	}
	stamp := int32(0)
	var nbr []int32
	for left > 0 {
		stamp++
		var members []int32
		try := func(v int32) {
			if !free(v) || in[v] == stamp {
				return
			}
			// the block variables v's factors would join it to
			nbr = nbr[:0]
			for i := g.VarStart[v]; i < g.VarStart[v+1]; i++ {
				k := 0
				for _, u := range g.Scope(int(fOf[g.VarEdges[i]])) {
					if u != v && in[u] == stamp {
						if k++; k > 1 {
							return // the factor would hold three of the block's variables
						}
						dup := false
						for _, w := range nbr {
							dup = dup || w == u
						}
						if !dup {
							nbr = append(nbr, u)
						}
					}
				}
			}
			roots := make([]int32, 0, len(nbr))
			for _, u := range nbr {
				r := find(u)
				for _, q := range roots {
					if q == r {
						return // a cycle
					}
				}
				roots = append(roots, r)
			}
			in[v] = stamp
			comp[v] = v
			parent[v] = -1
			for _, r := range roots {
				comp[r] = v
			}
			members = append(members, v)
		}
		for v := range nv {
			if !covered[v] {
				try(int32(v))
			}
		}
		for v := range nv {
			if covered[v] {
				try(int32(v))
			}
		}
		for _, v := range members {
			if !covered[v] {
				covered[v] = true
				left--
			}
		}
		tb.blocks = append(tb.blocks, orderForest(g, fOf, members, in, stamp))
	}
	return tb
}

// orderForest orders a block's variables root first (breadth-first from
// each unvisited variable) and sorts their factors into parent and unit
// ones.
func orderForest(g *fg.Graph, fOf []int32, members []int32, in []int32, stamp int32) treeBlock {
	b := treeBlock{pstart: []int32{0}, ustart: []int32{0}}
	pos := map[int32]int32{}
	visited := map[int32]bool{}
	for _, r := range members {
		if visited[r] {
			continue
		}
		visited[r] = true
		queue := []int32{r}
		par := map[int32]int32{r: -1}
		for len(queue) > 0 {
			v := queue[0]
			queue = queue[1:]
			pos[v] = int32(len(b.vars))
			b.vars = append(b.vars, v)
			p := par[v]
			if p >= 0 {
				b.parent = append(b.parent, pos[p])
			} else {
				b.parent = append(b.parent, -1)
			}
			b.card = max(b.card, int(g.Card[v]))
			for i := g.VarStart[v]; i < g.VarStart[v+1]; i++ {
				f := fOf[g.VarEdges[i]]
				other := int32(-1)
				for _, u := range g.Scope(int(f)) {
					if u != v && in[u] == stamp {
						other = u
					}
				}
				switch {
				case other < 0:
					b.ufac = append(b.ufac, f)
				case other == p:
					b.pfac = append(b.pfac, f)
				case !visited[other]:
					visited[other] = true
					par[other] = v
					queue = append(queue, other)
				}
			}
			b.pstart = append(b.pstart, int32(len(b.pfac)))
			b.ustart = append(b.ustart, int32(len(b.ufac)))
		}
	}
	return b
}

// treeScratch is one chain's scratch for drawing tree blocks.
type treeScratch struct {
	unit []float64 // per block position and state: log unit potential plus children's messages
	pair []float64 // per block position: card(v)·card(parent) log pair potential
	msg  []float64
	w    []float64
}

// drawTree redraws block b of x from its exact joint conditional given
// the rest under p(x) ∝ Π_f φ_f(x)^β, by forward filtering (leaves to
// roots) and backward sampling (roots to leaves) with the log tables of m.
func (m *moves) drawTree(rng *rand.Rand, b *treeBlock, x []int32, s *treeScratch, beta float64) {
	g := m.g
	n := len(b.vars)
	C := b.card
	if len(s.unit) < n*C {
		s.unit = make([]float64, n*C)
		s.pair = make([]float64, n*C*C)
		s.msg = make([]float64, C)
		s.w = make([]float64, C)
	}
	// potentials at the current state of the rest
	for i, v := range b.vars {
		old := x[v]
		cv := int(g.Card[v])
		u := s.unit[i*C : i*C+cv]
		for st := range cv {
			x[v] = int32(st)
			l := 0.0
			for _, f := range b.ufac[b.ustart[i]:b.ustart[i+1]] {
				l += m.entry(f, x)
			}
			u[st] = beta * l
		}
		if p := b.parent[i]; p >= 0 {
			pv := b.vars[p]
			pold := x[pv]
			cp := int(g.Card[pv])
			pr := s.pair[i*C*C:]
			for sp := range cp {
				x[pv] = int32(sp)
				for st := range cv {
					x[v] = int32(st)
					l := 0.0
					for _, f := range b.pfac[b.pstart[i]:b.pstart[i+1]] {
						l += m.entry(f, x)
					}
					pr[sp*C+st] = beta * l
				}
			}
			x[pv] = pold
		}
		x[v] = old
	}
	// forward filtering: children (later positions) into parents
	for i := n - 1; i >= 0; i-- {
		p := b.parent[i]
		if p < 0 {
			continue
		}
		v, pv := b.vars[i], b.vars[p]
		cv, cp := int(g.Card[v]), int(g.Card[pv])
		u := s.unit[i*C : i*C+cv]
		pr := s.pair[i*C*C:]
		for sp := range cp {
			s.msg[sp] = logSumExp2(u, pr[sp*C:sp*C+cv])
		}
		pu := s.unit[int(p)*C : int(p)*C+cp]
		for sp := range cp {
			pu[sp] += s.msg[sp]
		}
	}
	// backward sampling: roots first
	for i, v := range b.vars {
		cv := int(g.Card[v])
		u := s.unit[i*C : i*C+cv]
		w := s.w[:cv]
		copy(w, u)
		if p := b.parent[i]; p >= 0 {
			sp := int(x[b.vars[p]])
			pr := s.pair[i*C*C+sp*C:]
			for st := range cv {
				w[st] += pr[st]
			}
		}
		x[v] = int32(drawLog(rng, w))
	}
}

// logSumExp2 is log Σ_s exp(a[s] + b[s]) (−Inf when every term is).
func logSumExp2(a, b []float64) float64 {
	mx := math.Inf(-1)
	for s := range a {
		mx = max(mx, a[s]+b[s])
	}
	if math.IsInf(mx, -1) {
		return mx
	}
	t := 0.0
	for s := range a {
		t += math.Exp(a[s] + b[s] - mx)
	}
	return mx + math.Log(t)
}

// drawLog draws s with probability ∝ exp(w[s]) (w is overwritten).
func drawLog(rng *rand.Rand, w []float64) int {
	mx := math.Inf(-1)
	for _, l := range w {
		mx = max(mx, l)
	}
	if math.IsInf(mx, -1) || math.IsNaN(mx) {
		return 0
	}
	t := 0.0
	for s, l := range w {
		w[s] = math.Exp(l - mx)
		t += w[s]
	}
	u := rng.Float64() * t
	for s, p := range w {
		if u -= p; u < 0 {
			return s
		}
	}
	return len(w) - 1
}
