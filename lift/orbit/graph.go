package orbit

import (
	"errors"
	"fmt"
	"slices"
)

// Graph is an undirected vertex-coloured graph in CSR form, the level at
// which automorphisms are searched. Vertices are 0..N-1; Adj[Start[v]:Start[v+1]]
// are the neighbours of v. An automorphism is a permutation of the vertices
// that preserves colours and maps edges to edges.
type Graph struct {
	Colour []int32 // colour of each vertex (any int32 values; only equality matters)
	Start  []int64 // len N+1
	Adj    []int32
}

// N returns the number of vertices.
func (g *Graph) N() int { return len(g.Colour) }

// NewGraph builds a Graph with the given vertex colours from an edge list.
// Self-loops are refused; repeated edges are kept once.
func NewGraph(colour []int32, edges [][2]int32) (*Graph, error) {
	n := len(colour)
	deg := make([]int64, n+1)
	for _, e := range edges {
		if e[0] < 0 || int(e[0]) >= n || e[1] < 0 || int(e[1]) >= n {
			return nil, fmt.Errorf("orbit: edge %d–%d out of range (%d vertices)", e[0], e[1], n)
		}
		if e[0] == e[1] {
			return nil, fmt.Errorf("orbit: self-loop at vertex %d", e[0])
		}
		deg[e[0]+1]++
		deg[e[1]+1]++
	}
	for i := 1; i <= n; i++ {
		deg[i] += deg[i-1]
	}
	adj := make([]int32, deg[n])
	fill := slices.Clone(deg[:n])
	for _, e := range edges {
		adj[fill[e[0]]] = e[1]
		fill[e[0]]++
		adj[fill[e[1]]] = e[0]
		fill[e[1]]++
	}
	// Sort and deduplicate each list.
	out := adj[:0]
	start := make([]int64, n+1)
	for v := range n {
		l := adj[deg[v]:deg[v+1]]
		slices.Sort(l)
		l = slices.Compact(l)
		start[v] = int64(len(out))
		out = append(out, l...) // out never overtakes the reads: len(out) <= deg[v]
	}
	start[n] = int64(len(out))
	return &Graph{Colour: slices.Clone(colour), Start: start, Adj: slices.Clip(out)}, nil
}

// Neighbours returns the neighbours of v (aliases the graph's storage).
func (g *Graph) Neighbours(v int32) []int32 { return g.Adj[g.Start[v]:g.Start[v+1]] }

// Validate checks ranges, symmetry of adjacency, and that there are no
// self-loops or repeated neighbours.
func (g *Graph) Validate() error {
	n := g.N()
	if len(g.Start) != n+1 || g.Start[0] != 0 || g.Start[n] != int64(len(g.Adj)) {
		return errors.New("orbit: Start does not index Adj")
	}
	for v := range n {
		if g.Start[v] > g.Start[v+1] {
			return fmt.Errorf("orbit: Start decreases at vertex %d", v)
		}
		nb := g.Neighbours(int32(v))
		for i, w := range nb {
			if w < 0 || int(w) >= n || int(w) == v {
				return fmt.Errorf("orbit: bad neighbour %d of vertex %d", w, v)
			}
			if i > 0 && nb[i-1] >= w {
				return fmt.Errorf("orbit: neighbours of vertex %d not sorted and distinct", v)
			}
			if _, ok := slices.BinarySearch(g.Neighbours(w), int32(v)); !ok {
				return fmt.Errorf("orbit: edge %d–%d not symmetric", v, w)
			}
		}
	}
	return nil
}

// IsAutomorphism reports whether p (p[v] = image of v) is a colour- and
// edge-preserving permutation of g.
func (g *Graph) IsAutomorphism(p []int32) bool {
	n := g.N()
	if len(p) != n {
		return false
	}
	seen := make([]bool, n)
	for v, w := range p {
		if w < 0 || int(w) >= n || seen[w] || g.Colour[v] != g.Colour[w] {
			return false
		}
		seen[w] = true
	}
	mark := make([]int32, n)
	for i := range mark {
		mark[i] = -1
	}
	return g.checkAuto(p, mark)
}

// checkSupport is checkAuto restricted to the vertices p moves (support):
// edges between fixed vertices map to themselves, and every other edge has
// a moved end, from which it is checked.
func (g *Graph) checkSupport(p []int32, support []int32, mark []int32) bool {
	for _, u := range support {
		if !g.checkVertex(p, u, mark) {
			return false
		}
	}
	return true
}

func (g *Graph) checkVertex(p []int32, u int32, mark []int32) bool {
	pu := p[u]
	if g.Start[u+1]-g.Start[u] != g.Start[pu+1]-g.Start[pu] {
		return false
	}
	for _, w := range g.Neighbours(pu) {
		mark[w] = u
	}
	ok := true
	for _, w := range g.Neighbours(u) {
		if mark[p[w]] != u {
			ok = false
			break
		}
	}
	for _, w := range g.Neighbours(pu) {
		mark[w] = -1
	}
	return ok
}

// checkAuto checks degrees and edges only; mark is scratch of length N
// holding -1 everywhere on entry and on return.
func (g *Graph) checkAuto(p []int32, mark []int32) bool {
	for u := range int32(g.N()) {
		pu := p[u]
		if g.Start[u+1]-g.Start[u] != g.Start[pu+1]-g.Start[pu] {
			return false
		}
		for _, w := range g.Neighbours(pu) {
			mark[w] = u
		}
		ok := true
		for _, w := range g.Neighbours(u) {
			if mark[p[w]] != u {
				ok = false
				break
			}
		}
		for _, w := range g.Neighbours(pu) {
			mark[w] = -1
		}
		if !ok {
			return false
		}
	}
	return true
}
