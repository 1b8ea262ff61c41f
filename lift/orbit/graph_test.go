package orbit

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"
)

// bruteGraph enumerates every automorphism of g fixing each vertex of fixed
// by backtracking over colour-preserving bijections, checking edges among
// the vertices placed so far, and returns the orbit partition (as union-find
// classes numbered by first occurrence) and the group order.
func bruteGraph(g *Graph, fixed []int32) ([]int32, int) {
	n := g.N()
	adj := make([][]bool, n)
	for v := range n {
		adj[v] = make([]bool, n)
		for _, w := range g.Neighbours(int32(v)) {
			adj[v][w] = true
		}
	}
	isFixed := make([]bool, n)
	for _, v := range fixed {
		isFixed[v] = true
	}
	p := make([]int32, n)
	used := make([]bool, n)
	uf := make([]int32, n)
	for i := range uf {
		uf[i] = int32(i)
	}
	var find func(int32) int32
	find = func(x int32) int32 {
		for uf[x] != x {
			x = uf[x]
		}
		return x
	}
	order := 0
	var rec func(v int)
	rec = func(v int) {
		if v == n {
			order++
			for a, b := range p {
				ra, rb := find(int32(a)), find(b)
				if ra != rb {
					uf[max(ra, rb)] = min(ra, rb)
				}
			}
			return
		}
		for w := range n {
			if used[w] || g.Colour[w] != g.Colour[v] || (isFixed[v] && w != v) {
				continue
			}
			ok := true
			for u := range v {
				if adj[u][v] != adj[p[u]][w] {
					ok = false
					break
				}
			}
			if !ok {
				continue
			}
			used[w] = true
			p[v] = int32(w)
			rec(v + 1)
			used[w] = false
		}
	}
	rec(0)
	orb, _ := numberClasses(n, find)
	return orb, order
}

func randomColoured(r *rand.Rand, n, ncol int, pEdge float64) *Graph {
	col := make([]int32, n)
	for i := range col {
		col[i] = int32(r.IntN(ncol))
	}
	var edges [][2]int32
	for a := range n {
		for b := a + 1; b < n; b++ {
			if r.Float64() < pEdge {
				edges = append(edges, [2]int32{int32(a), int32(b)})
			}
		}
	}
	g, err := NewGraph(col, edges)
	if err != nil {
		panic(err)
	}
	return g
}

// symmetricRandom builds a random graph with planted symmetry: k copies of a
// random piece, joined by a random pattern between corresponding vertices.
func symmetricRandom(r *rand.Rand, piece, k int) *Graph {
	base := randomColoured(r, piece, 2, 0.4)
	n := piece * k
	col := make([]int32, n)
	var edges [][2]int32
	cross := r.IntN(piece)
	for c := range k {
		for v := range piece {
			col[c*piece+v] = base.Colour[v]
			for _, w := range base.Neighbours(int32(v)) {
				if int(w) > v {
					edges = append(edges, [2]int32{int32(c*piece + v), int32(c*piece) + w})
				}
			}
		}
		edges = append(edges, [2]int32{int32(c*piece + cross), int32((c+1)%k*piece + cross)})
	}
	g, err := NewGraph(col, edges)
	if err != nil {
		panic(err)
	}
	return g
}

func checkResult(t *testing.T, g *Graph, fixed []int32, res *GraphResult) {
	t.Helper()
	for i, p := range res.Generators {
		if !g.IsAutomorphism(p) {
			t.Fatalf("generator %d is not an automorphism: %v", i, p)
		}
		for _, v := range fixed {
			if p[v] != v {
				t.Fatalf("generator %d moves fixed vertex %d", i, v)
			}
		}
	}
}

func TestAutomorphismsBrute(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	ctx := context.Background()
	for trial := range 600 {
		var g *Graph
		switch trial % 3 {
		case 0:
			g = randomColoured(r, 1+r.IntN(9), 1+r.IntN(3), r.Float64())
		case 1:
			g = randomColoured(r, 1+r.IntN(9), 1, 0.5)
		default:
			g = symmetricRandom(r, 1+r.IntN(3), 2+r.IntN(2))
		}
		var fixed []int32
		if trial%2 == 1 && g.N() > 1 {
			fixed = []int32{int32(r.IntN(g.N()))}
			if r.IntN(2) == 0 {
				if w := int32(r.IntN(g.N())); w != fixed[0] {
					fixed = append(fixed, w)
				}
			}
		}
		want, order := bruteGraph(g, fixed)
		res, err := Automorphisms(ctx, g, fixed, Options{})
		if err != nil {
			t.Fatal(err)
		}
		checkResult(t, g, fixed, res)
		if !slices.Equal(res.Orbit, want) {
			t.Fatalf("trial %d: orbits %v, brute force %v (colours %v, fixed %v, adj %v %v)", trial, res.Orbit, want, g.Colour, fixed, g.Start, g.Adj)
		}
		if res.Stats.GroupSize != float64(order) {
			t.Fatalf("trial %d: group size %v, brute force %d", trial, res.Stats.GroupSize, order)
		}
	}
}
