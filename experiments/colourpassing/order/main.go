// Command order measures what the numbering of a graph's nodes is worth to
// colour passing (issue 26): it runs lift.ColourPassing on an n×n grid
// (gen.SquareGrid, no evidence) numbered row by row, and on the same grid
// renumbered — in 8×8 tiles (which needs the grid's coordinates), and by
// orders computed from the graph alone (-orders): breadth-first blocks of
// 64 variables, breadth-first bands of 8 levels, rings by distance from the
// variables of uncommon degree (the boundary), and 8×8 tiles of the
// distances from two far-apart variables (landmarks) — each factor right
// after the first of its variables. All runs compute the same partition (checked); it
// prints the wall seconds of each, -reps times, alternating, and the time to
// compute each generic order.
package main

import (
	"context"
	"flag"
	"fmt"
	"iter"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/internal/gen"
	"github.com/lifted-dev/lifted/lift"
)

func edgeFactors(g *fg.Graph) []int32 {
	ef := make([]int32, g.NumEdges())
	for f := range int32(g.NumFactors()) {
		for e := g.FactorStart[f]; e < g.FactorStart[f+1]; e++ {
			ef[e] = f
		}
	}
	return ef
}

// factorsAfter places every factor right after the first of its variables.
func factorsAfter(g *fg.Graph, varOld []int32) []int32 {
	ef := edgeFactors(g)
	placed := make([]bool, g.NumFactors())
	var facOld []int32
	for _, v := range varOld {
		for _, e := range g.VarEdges[g.VarStart[v]:g.VarStart[v+1]] {
			if f := ef[e]; !placed[f] {
				placed[f] = true
				facOld = append(facOld, f)
			}
		}
	}
	for f := range int32(g.NumFactors()) {
		if !placed[f] {
			facOld = append(facOld, f)
		}
	}
	return facOld
}

func blockOrder(g *fg.Graph, block int) (varOld, facOld []int32) {
	nv, nf := g.NumVars(), g.NumFactors()
	varOld = make([]int32, 0, nv)
	seen := make([]uint64, (nv+63)/64)
	isSeen := func(v int32) bool { return seen[v>>6]&(1<<(v&63)) != 0 }
	see := func(v int32) { seen[v>>6] |= 1 << (v & 63) }
	queue := make([]int32, 0, 4*block)
	ef := edgeFactors(g)
	for s := int32(0); s < int32(nv); s++ {
		if isSeen(s) {
			continue
		}
		queue = append(queue[:0], s)
		see(s)
		head := 0
		for ; head < len(queue) && head < block; head++ {
			v := queue[head]
			varOld = append(varOld, v)
			for _, e := range g.VarEdges[g.VarStart[v]:g.VarStart[v+1]] {
				f := ef[e]
				lo, hi := g.FactorStart[f], g.FactorStart[f+1]
				if hi-lo > 16 {
					continue
				}
				for _, u := range g.EdgeVar[lo:hi] {
					if !isSeen(u) {
						see(u)
						queue = append(queue, u)
					}
				}
			}
		}
		// The frontier not placed in this block is free for later blocks.
		for _, u := range queue[head:] {
			seen[u>>6] &^= 1 << (u & 63)
		}
	}
	// Factors after the first of their variables; factors without
	// variables at the end.
	facOld = make([]int32, 0, nf)
	placed := make([]uint64, (nf+63)/64)
	for _, v := range varOld {
		for _, e := range g.VarEdges[g.VarStart[v]:g.VarStart[v+1]] {
			f := ef[e]
			if placed[f>>6]&(1<<(f&63)) == 0 {
				placed[f>>6] |= 1 << (f & 63)
				facOld = append(facOld, f)
			}
		}
	}
	for f := range int32(nf) {
		if placed[f>>6]&(1<<(f&63)) == 0 {
			facOld = append(facOld, f)
		}
	}
	return varOld, facOld
}

func tileOrder(n, t int) []int32 {
	var to []int32
	for ty := 0; ty < n; ty += t {
		for tx := 0; tx < n; tx += t {
			for y := ty; y < min(n, ty+t); y++ {
				for x := tx; x < min(n, tx+t); x++ {
					to = append(to, int32(y*n+x))
				}
			}
		}
	}
	return to
}

// bfsLevels returns the variables in breadth-first order from variable 0
// (then from the first unreached one), with level and rank in level.
func bfsLevels(g *fg.Graph) (order, level, rank []int32) {
	nv := g.NumVars()
	ef := edgeFactors(g)
	level = make([]int32, nv)
	rank = make([]int32, nv)
	for i := range level {
		level[i] = -1
	}
	order = make([]int32, 0, nv)
	for s := int32(0); s < int32(nv); s++ {
		if level[s] >= 0 {
			continue
		}
		base := int32(0)
		if len(order) > 0 {
			base = level[order[len(order)-1]] + 9
		}
		level[s] = base
		head := len(order)
		order = append(order, s)
		cur, r := base, int32(0)
		for ; head < len(order); head++ {
			v := order[head]
			if level[v] != cur {
				cur, r = level[v], 0
			}
			rank[v] = r
			r++
			for u := range neighbours(g, ef, v) {
				if level[u] < 0 {
					level[u] = level[v] + 1
					order = append(order, u)
				}
			}
		}
	}
	return order, level, rank
}

// bandOrder sorts the variables by (level/8, rank/8, level, rank).
func bandOrder(g *fg.Graph) []int32 {
	order, level, rank := bfsLevels(g)
	key := func(v int32) [4]int32 { return [4]int32{level[v] / 8, rank[v] / 8, level[v], rank[v]} }
	vo := slices.Clone(order)
	slices.SortFunc(vo, func(a, b int32) int {
		ka, kb := key(a), key(b)
		for i := range ka {
			if ka[i] != kb[i] {
				return int(ka[i] - kb[i])
			}
		}
		return 0
	})
	return vo
}

// ringOrder sorts the variables by breadth-first distance from those of
// uncommon degree (stable in id).
func ringOrder(g *fg.Graph) []int32 {
	nv := g.NumVars()
	ef := edgeFactors(g)
	cnt := map[int64]int{}
	for v := 0; v < nv; v++ {
		cnt[g.VarStart[v+1]-g.VarStart[v]]++
	}
	mode, best := int64(0), -1
	for d, c := range cnt {
		if c > best || c == best && d < mode {
			mode, best = d, c
		}
	}
	var q []int32
	for v := int32(0); v < int32(nv); v++ {
		if g.VarStart[v+1]-g.VarStart[v] != mode {
			q = append(q, v)
		}
	}
	if len(q) == 0 && nv > 0 {
		q = append(q, 0)
	}
	dist, _ := bfsFrom(g, ef, q...)
	vo := make([]int32, nv)
	for i := range vo {
		vo[i] = int32(i)
	}
	slices.SortStableFunc(vo, func(a, b int32) int { return int(dist[a] - dist[b]) })
	return vo
}

func permGraph(g *fg.Graph, varOld, facOld []int32) *fg.Graph {
	varNew := make([]int32, len(varOld))
	for i, v := range varOld {
		varNew[v] = int32(i)
	}
	b := fg.NewBuilder()
	for _, v := range varOld {
		b.AddVars(1, int(g.Card[v]))
	}
	for _, t := range g.Tables {
		if _, err := b.Table(t.Dims, t.Values); err != nil {
			panic(err)
		}
	}
	for _, f := range facOld {
		var sc []int32
		for _, v := range g.Scope(int(f)) {
			sc = append(sc, varNew[v])
		}
		if _, err := b.AddFactorTable(sc, g.FactorTable[f]); err != nil {
			panic(err)
		}
	}
	return b.Build()
}

func main() {
	n := flag.Int("n", 1000, "grid side")
	reps := flag.Int("reps", 2, "repetitions")
	orders := flag.String("orders", "blocks,bands,rings,landmark,rotated", "orders computed from the graph to run besides row-major and 8×8 tiles")
	flag.Parse()
	g := gen.SquareGrid(rand.New(rand.NewPCG(1, 1)), *n)
	type cse struct {
		name string
		g    *fg.Graph
	}
	cases := []cse{{"row-major", g}, {"8x8 tiles", permGraph(g, tileOrder(*n, 8), factorsAfter(g, tileOrder(*n, 8)))}}
	want := map[string]bool{}
	for _, k := range strings.Split(*orders, ",") {
		want[k] = true
	}
	for _, o := range []struct {
		key, name string
		f         func() []int32
	}{{"blocks", "BFS blocks of 64", func() []int32 { v, _ := blockOrder(g, 64); return v }},
		{"bands", "BFS bands of 8 levels", func() []int32 { return bandOrder(g) }},
		{"rings", "rings from the boundary", func() []int32 { return ringOrder(g) }},
		{"landmark", "landmark tiles of 8", func() []int32 { return landmarkOrder(g, 8, false) }},
		{"rotated", "rotated landmark tiles", func() []int32 { return landmarkOrder(g, 16, true) }}} {
		if !want[o.key] {
			continue
		}
		t0 := time.Now()
		vo := o.f()
		fo := factorsAfter(g, vo)
		fmt.Printf("order %q computed in %.3f s\n", o.name, time.Since(t0).Seconds())
		cases = append(cases, cse{o.name, permGraph(g, vo, fo)})
	}
	for r := range *reps {
		var classes []int
		for _, c := range cases {
			t0 := time.Now()
			col, err := lift.ColourPassing{}.Refine(context.Background(), c.g, nil, lift.Options{})
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
			fmt.Printf("rep %d %-24s %d var classes, %d rounds: %.3f s\n", r+1, c.name, col.NumVarColor, col.Iterations, time.Since(t0).Seconds())
			classes = append(classes, col.NumVarColor)
		}
		for _, k := range classes {
			if k != classes[0] {
				fmt.Fprintln(os.Stderr, "different partitions")
				os.Exit(1)
			}
		}
	}
}

// neighbours yields the variables of v's factors (v among them), ef being
// the factor of each edge.
func neighbours(g *fg.Graph, ef []int32, v int32) iter.Seq[int32] {
	return func(yield func(int32) bool) {
		for _, e := range g.VarEdges[g.VarStart[v]:g.VarStart[v+1]] {
			f := ef[e]
			for _, u := range g.EdgeVar[g.FactorStart[f]:g.FactorStart[f+1]] {
				if !yield(u) {
					return
				}
			}
		}
	}
}

// bfsFrom returns the breadth-first distances of the variables from the
// variables src (-1 unreached) and the variables in the order they were
// reached.
func bfsFrom(g *fg.Graph, ef []int32, src ...int32) (dist, queue []int32) {
	nv := g.NumVars()
	dist = make([]int32, nv)
	for i := range dist {
		dist[i] = -1
	}
	queue = make([]int32, 0, nv)
	for _, v := range src {
		if dist[v] < 0 {
			dist[v] = 0
			queue = append(queue, v)
		}
	}
	for head := 0; head < len(queue); head++ {
		v := queue[head]
		for u := range neighbours(g, ef, v) {
			if dist[u] < 0 {
				dist[u] = dist[v] + 1
				queue = append(queue, u)
			}
		}
	}
	return dist, queue
}

// landmarkOrder numbers the variables in t×t tiles of the pseudo-coordinates
// (distance from A, distance from B): A is the last variable reached from
// variable 0, B the first reached from A at half A's eccentricity. On a
// grid A is a corner and B the next corner, so the tiles are diamonds of
// the grid: tiles computed from the graph alone (up to 2^12 tiles a side
// and 2^28 variables). With rotated set the tiles are taken in (dA+dB,
// dA−dB), which on a grid is twice (y, x) up to a reflection: with t = 16,
// the grid's own 8×8 tiles.
func landmarkOrder(g *fg.Graph, t int32, rotated bool) []int32 {
	ef := edgeFactors(g)
	_, q0 := bfsFrom(g, ef, 0)
	a := q0[len(q0)-1]
	dA, qA := bfsFrom(g, ef, a)
	ecc := dA[qA[len(qA)-1]]
	b := a
	for _, v := range qA {
		if dA[v] == ecc/2 {
			b = v
			break
		}
	}
	dB, _ := bfsFrom(g, ef, b)
	nv := g.NumVars()
	keys := make([]uint64, nv)
	for v := range nv {
		u, w := uint64(dA[v]), uint64(dB[v])
		if rotated {
			// (dA+dB, dA-dB): on a grid, twice (y, x) up to reflection.
			u, w = u+w, u-w+uint64(ecc)
		}
		keys[v] = (u/uint64(t))<<52 | (w/uint64(t))<<40 | (u%uint64(t))<<34 | (w%uint64(t))<<28 | uint64(v)
	}
	slices.Sort(keys)
	vo := make([]int32, nv)
	for i, k := range keys {
		vo[i] = int32(k & (1<<28 - 1))
	}
	return vo
}
