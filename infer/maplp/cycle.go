package maplp

import (
	"container/heap"
	"context"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// cycleSep separates cycle inequalities (Sontag and Jaakkola 2007) over the
// binary variables of a model. The edges are the pairs of binary variables
// that share a factor; the "cut" of edge ij is the probability that i and j
// differ, taken from the pairwise marginals the factors over i and j induce
// (averaged over those factors, so that an automorphism maps the cut
// expression of ij to that of its image).
type cycleSep struct {
	m         *model
	n         int
	ei, ej    []int32 // edge endpoints (ground variables, ei < ej)
	termStart []int   // edge e's terms are terms[termStart[e]:termStart[e+1]]
	terms     []pairTerm
	adjStart  []int
	adj       []int32 // edge ids at each variable
	// source[v]: search from v. Over an orbit partition one variable per
	// orbit suffices: x is constant on orbits and the graph is invariant,
	// so the shortest closed walk through an orbit-mate of v is the image
	// of one through v, and both fold to the same lifted cut (the
	// representative per node orbit of Theorem 7.1).
	source []bool
	// stab, when set, is the stabiliser separation (Theorem 7.1) that
	// separate uses instead of the ground graph.
	stab *stabSep
}

// makeCut turns the folded coefficients of a closed walk with nF crossing
// edges into the cut Σ coef·x ≤ nF − 1.
func makeCut(coef map[int32]float64, nF int, viol float64) cut {
	k := cut{rhs: float64(nF - 1), viol: viol}
	for col, v := range coef {
		if math.Abs(v) > 1e-12 {
			k.cols = append(k.cols, col)
		}
	}
	sort.Slice(k.cols, func(a, b int) bool { return k.cols[a] < k.cols[b] })
	var kb strings.Builder
	for _, col := range k.cols {
		k.vals = append(k.vals, coef[col])
		kb.WriteString(strconv.Itoa(int(col)))
		kb.WriteByte(':')
		kb.WriteString(strconv.FormatFloat(coef[col], 'g', 10, 64))
		kb.WriteByte(' ')
	}
	fmt.Fprintf(&kb, "<=%d", nF-1)
	k.key = kb.String()
	return k
}

type pairTerm struct {
	f    int32
	p, q int32
}

func newCycleSep(m *model) *cycleSep {
	g := m.g
	s := &cycleSep{m: m, n: g.NumVars(), source: make([]bool, g.NumVars())}
	seenClass := make([]bool, m.part.NumVarClasses)
	for v, c := range m.part.VarClass {
		if !seenClass[c] {
			seenClass[c], s.source[v] = true, true
		}
	}
	type key struct{ i, j int32 }
	byPair := map[key][]pairTerm{}
	var order []key
	for f := 0; f < g.NumFactors(); f++ {
		sc := g.Scope(f)
		for p := range sc {
			for q := p + 1; q < len(sc); q++ {
				i, j := sc[p], sc[q]
				if g.Card[i] != 2 || g.Card[j] != 2 {
					continue
				}
				pp, qq := int32(p), int32(q)
				if i > j {
					i, j, pp, qq = j, i, qq, pp
				}
				k := key{i, j}
				if _, ok := byPair[k]; !ok {
					order = append(order, k)
				}
				byPair[k] = append(byPair[k], pairTerm{int32(f), pp, qq})
			}
		}
	}
	s.termStart = append(s.termStart, 0)
	deg := make([]int, s.n+1)
	for _, k := range order {
		s.ei = append(s.ei, k.i)
		s.ej = append(s.ej, k.j)
		s.terms = append(s.terms, byPair[k]...)
		s.termStart = append(s.termStart, len(s.terms))
		deg[k.i+1]++
		deg[k.j+1]++
	}
	for v := 0; v < s.n; v++ {
		deg[v+1] += deg[v]
	}
	s.adjStart = append([]int(nil), deg...)
	s.adj = make([]int32, 2*len(order))
	fill := append([]int(nil), deg[:s.n]...)
	for e := range order {
		for _, v := range []int32{s.ei[e], s.ej[e]} {
			s.adj[fill[v]] = int32(e)
			fill[v]++
		}
	}
	return s
}

// numEdges is the number of variable pairs that carry cycle inequalities.
func (s *cycleSep) numEdges() int { return len(s.ei) }

// cutExpr calls fn(col, coef) for the linear expression of edge e's cut in
// the LP's columns (through the position correspondence of an orbit
// partition, model.pos).
func (s *cycleSep) cutExpr(e int, scale float64, fn func(col int32, coef float64)) {
	g, m := s.m.g, s.m
	ts := s.terms[s.termStart[e]:s.termStart[e+1]]
	w := scale / float64(len(ts))
	for _, t := range ts {
		// In the columns of the factor's class representative, at the
		// representative's positions of t's two positions.
		F := m.part.FactorClass[t.f]
		tab := g.Table(int(m.rep[F]))
		st := tab.Strides()
		off := m.facOff[F]
		p, q := t.p, t.q
		if m.pos != nil {
			p, q = m.pos[t.f][p], m.pos[t.f][q]
		}
		for k := range tab.Values {
			if (k/st[p])%2 != (k/st[q])%2 {
				fn(off+int32(k), w)
			}
		}
	}
}

func (s *cycleSep) cuts(x []float64) []float64 {
	c := make([]float64, len(s.ei))
	for e := range c {
		v := 0.0
		s.cutExpr(e, 1, func(col int32, coef float64) { v += coef * x[col] })
		c[e] = math.Min(1, math.Max(0, v))
	}
	return c
}

// cut is one violated inequality in the LP's columns: Σ vals·x ≤ rhs.
type cut struct {
	cols []int32
	vals []float64
	rhs  float64
	viol float64
	key  string
}

// separate finds violated cycle inequalities at x: for every variable i a
// shortest path from i to its mirror i' in the doubled graph (edges i–j and
// i'–j' of length cut_ij, i–j' and i'–j of length 1 − cut_ij); a path shorter
// than 1 − tol is a closed walk with an odd set F of crossing edges whose
// inequality Σ_F cut − Σ_{C∖F} cut ≤ |F| − 1 is violated by 1 − length.
// It returns at most max cuts, most violated first, distinct in the LP's
// columns (so orbit images of one lifted cut count once).
func (s *cycleSep) separate(ctx context.Context, x []float64, tol float64, max int) ([]cut, error) {
	if s.stab != nil {
		return s.separateStab(ctx, x, tol, max)
	}
	return s.separateGround(ctx, x, tol, max)
}

// separateGround separates on the ground graph (from one source per
// variable orbit) and folds each cut onto the orbit cells.
func (s *cycleSep) separateGround(ctx context.Context, x []float64, tol float64, max int) ([]cut, error) {
	c := s.cuts(x)
	n := s.n
	ms := newMirrorSearch(n)
	g := mirrorGraph{n: n, adjStart: s.adjStart, adj: s.adj, ea: s.ei, eb: s.ej}
	var out []cut
	seen := map[string]bool{}
	for src := 0; src < n; src++ {
		if s.adjStart[src] == s.adjStart[src+1] || !s.source[src] {
			continue
		}
		if src%64 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		// Walk the path back and fold it into a cut.
		coef := map[int32]float64{}
		nF := 0
		length, ok := ms.path(g, int32(src), func(e int32) float64 { return c[e] }, tol, func(e int32, crossed bool) {
			sign := -1.0
			if crossed {
				sign = 1
				nF++
			}
			s.cutExpr(int(e), sign, func(col int32, v float64) { coef[col] += v })
		})
		if !ok {
			continue
		}
		k := makeCut(coef, nF, 1-length)
		if !seen[k.key] {
			seen[k.key] = true
			out = append(out, k)
		}
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].viol > out[b].viol })
	if len(out) > max {
		out = out[:max]
	}
	return out, nil
}

type distItem struct {
	node int32
	d    float64
}
type distHeap []distItem

func (h distHeap) Len() int           { return len(h) }
func (h distHeap) Less(i, j int) bool { return h[i].d < h[j].d }
func (h distHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *distHeap) Push(x any)        { *h = append(*h, x.(distItem)) }
func (h *distHeap) Pop() any          { o := *h; x := o[len(o)-1]; *h = o[:len(o)-1]; return x }

// mirrorGraph is a graph (CSR: the edges at node u are
// adj[adjStart[u]:adjStart[u+1]], edge e joins ea[e] and eb[e]; self-loops
// allowed) whose doubled, "mirror" graph the cycle separation searches:
// nodes u and u+n, an edge e of cut value c giving edges u–v, u'–v' of
// length c and u–v', u'–v of length 1 − c (crossing).
type mirrorGraph struct {
	n        int
	adjStart []int
	adj      []int32
	ea, eb   []int32
}

func (g mirrorGraph) other(e, u int32) int32 {
	if g.ea[e] == u {
		return g.eb[e]
	}
	return g.ea[e]
}

// mirrorSearch is the scratch space of shortest-path searches on mirror
// graphs of up to n nodes.
type mirrorSearch struct {
	dist []float64
	prev []int32 // edge id*2 + crossed, or -1
	done []bool
	h    distHeap
}

func newMirrorSearch(n int) *mirrorSearch {
	return &mirrorSearch{dist: make([]float64, 2*n), prev: make([]int32, 2*n), done: make([]bool, 2*n)}
}

// path searches a shortest path from src to its mirror src+n (Dijkstra,
// stopping at length 1 − tol) with edge e's cut value cut(e). If one is
// shorter than 1 − tol — a violated cycle inequality — it calls fn for each
// of its edges, from the mirror back to src, saying whether the edge is
// crossed (in F), and returns the path's length.
func (m *mirrorSearch) path(g mirrorGraph, src int32, cut func(e int32) float64, tol float64, fn func(e int32, crossed bool)) (float64, bool) {
	n := int32(g.n)
	if need := 2 * g.n; len(m.dist) < need {
		*m = *newMirrorSearch(g.n)
	}
	dist, prev, done := m.dist[:2*n], m.prev[:2*n], m.done[:2*n]
	for i := range dist {
		dist[i], prev[i], done[i] = math.Inf(1), -1, false
	}
	dist[src] = 0
	h := &m.h
	*h = (*h)[:0]
	heap.Push(h, distItem{src, 0})
	target := src + n
	for h.Len() > 0 {
		it := heap.Pop(h).(distItem)
		u := it.node
		if done[u] {
			continue
		}
		done[u] = true
		if u == target || it.d >= 1-tol {
			break
		}
		base, side := u, int32(0)
		if u >= n {
			base, side = u-n, 1
		}
		for _, e := range g.adj[g.adjStart[base]:g.adjStart[base+1]] {
			o := g.other(e, base)
			for cross := int32(0); cross < 2; cross++ {
				w := cut(e)
				if cross == 1 {
					w = 1 - w
				}
				to := o + n*((side+cross)%2)
				if nd := it.d + w; nd < dist[to] {
					dist[to], prev[to] = nd, e*2+cross
					heap.Push(h, distItem{to, nd})
				}
			}
		}
	}
	if !(dist[target] < 1-tol) {
		return 0, false
	}
	for u := target; u != src; {
		e, cross := prev[u]/2, prev[u]%2
		fn(e, cross == 1)
		base, side := u, int32(0)
		if u >= n {
			base, side = u-n, 1
		}
		u = g.other(e, base) + n*((side+cross)%2)
	}
	return dist[target], true
}
