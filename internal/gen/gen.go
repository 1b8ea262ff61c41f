// Package gen builds factor graphs for tests and benchmarks: random trees,
// graphs with planted symmetry (disjoint copies, rings with chords, grids with
// identical potentials) and the ground friends-and-smokers network.
package gen

import (
	"math"
	"math/rand/v2"

	"github.com/lifted-dev/lifted/fg"
)

// RandomTable returns a table of the given size with entries in [0.1, 2.1);
// with probability zeroProb an entry is exactly 0 (at least one stays
// positive).
func RandomTable(r *rand.Rand, size int, zeroProb float64) []float64 {
	t := make([]float64, size)
	pos := false
	for i := range t {
		if r.Float64() < zeroProb {
			continue
		}
		t[i] = 0.1 + 2*r.Float64()
		pos = true
	}
	if !pos {
		t[r.IntN(size)] = 1
	}
	return t
}

func must[T any](x T, err error) T {
	if err != nil {
		panic(err)
	}
	return x
}

// Tree returns a random tree-structured factor graph over n variables with
// cardinalities in 2..maxCard, pairwise factors along the tree edges, unary
// factors on some variables, and occasionally a ternary factor over a
// variable and two new leaves (still a tree).
func Tree(r *rand.Rand, n, maxCard int, zeroProb float64) *fg.Graph {
	b := fg.NewBuilder()
	card := func() int { return 2 + r.IntN(maxCard-1) }
	b.AddVar(card())
	for b.NumVars() < n {
		parent := int32(r.IntN(b.NumVars()))
		if r.IntN(5) == 0 && b.NumVars()+2 <= n {
			c1 := b.AddVar(card())
			c2 := b.AddVar(card())
			scope := []int32{c1, parent, c2}
			must(b.AddFactor(scope, RandomTable(r, size(b, scope), zeroProb)))
			continue
		}
		child := b.AddVar(card())
		scope := []int32{parent, child}
		if r.IntN(2) == 0 {
			scope = []int32{child, parent}
		}
		must(b.AddFactor(scope, RandomTable(r, size(b, scope), zeroProb)))
	}
	for v := 0; v < b.NumVars(); v++ {
		if r.IntN(2) == 0 {
			s := []int32{int32(v)}
			must(b.AddFactor(s, RandomTable(r, size(b, s), zeroProb)))
		}
	}
	return b.Build()
}

func size(b *fg.Builder, scope []int32) int {
	n := 1
	for _, v := range scope {
		n *= int(b.Card(v))
	}
	return n
}

// Copies returns k disjoint copies of piece; evidence is set on a random
// subset of copies (each observed copy gets the same observed variables and
// values drawn once per copy, so some copies stay alike and some do not).
func Copies(r *rand.Rand, piece *fg.Graph, k int, observedCopies int) (*fg.Graph, fg.Evidence) {
	b := fg.NewBuilder()
	nv := piece.NumVars()
	ev := fg.NoEvidence(nv * k)
	for c := 0; c < k; c++ {
		for v := 0; v < nv; v++ {
			b.AddVar(int(piece.Card[v]))
		}
	}
	tables := make([]int32, len(piece.Tables))
	for t := range piece.Tables {
		tables[t] = must(b.Table(piece.Tables[t].Dims, piece.Tables[t].Values))
	}
	scope := make([]int32, 0, 8)
	for c := 0; c < k; c++ {
		for f := 0; f < piece.NumFactors(); f++ {
			scope = scope[:0]
			for _, v := range piece.Scope(f) {
				scope = append(scope, v+int32(c*nv))
			}
			must(b.AddFactorTable(scope, tables[piece.FactorTable[f]]))
		}
	}
	obsVar := r.IntN(nv)
	for c := 0; c < observedCopies && c < k; c++ {
		cc := r.IntN(k)
		ev[cc*nv+obsVar] = int32(r.IntN(int(piece.Card[obsVar])))
	}
	return b.Build(), ev
}

// Ring returns a ring of n binary variables with one shared pairwise table,
// a shared unary table on each variable, and chords from i to i+n/2 (n even)
// with a second shared table when chords is set.
func Ring(r *rand.Rand, n int, chords bool) *fg.Graph {
	b := fg.NewBuilder()
	b.AddVars(n, 2)
	pair := must(b.Table([]int32{2, 2}, RandomTable(r, 4, 0)))
	unary := must(b.Table([]int32{2}, RandomTable(r, 2, 0)))
	chord := must(b.Table([]int32{2, 2}, RandomTable(r, 4, 0.2)))
	for i := 0; i < n; i++ {
		must(b.AddFactorTable([]int32{int32(i)}, unary))
		must(b.AddFactorTable([]int32{int32(i), int32((i + 1) % n)}, pair))
		if chords && n%2 == 0 && i < n/2 {
			must(b.AddFactorTable([]int32{int32(i), int32(i + n/2)}, chord))
		}
	}
	return b.Build()
}

// Grid returns a w×h grid of binary variables with one shared horizontal,
// one shared vertical and one shared unary table (variable id = row*w+col).
func Grid(r *rand.Rand, w, h int) *fg.Graph {
	b := fg.NewBuilder()
	b.AddVars(w*h, 2)
	hor := must(b.Table([]int32{2, 2}, RandomTable(r, 4, 0)))
	ver := must(b.Table([]int32{2, 2}, RandomTable(r, 4, 0)))
	un := must(b.Table([]int32{2}, RandomTable(r, 2, 0)))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			v := int32(y*w + x)
			must(b.AddFactorTable([]int32{v}, un))
			if x+1 < w {
				must(b.AddFactorTable([]int32{v, v + 1}, hor))
			}
			if y+1 < h {
				must(b.AddFactorTable([]int32{v, v + int32(w)}, ver))
			}
		}
	}
	return b.Build()
}

// Smokers returns the ground friends-and-smokers network for n people:
// variables Smokes(i) = i, Cancer(i) = n+i, Friends(i,j) = 2n+i*n+j; factors
// exp(w1·[Smokes(x) ⇒ Cancer(x)]) and exp(w2·[Friends(x,y) ∧ Smokes(x) ⇒
// Smokes(y)]) for all x, y (x = y included), as in the paper's Table 2.
func Smokers(n int, w1, w2 float64) *fg.Graph {
	b := fg.NewBuilder()
	b.AddVars(2*n+n*n, 2)
	e1, e2 := math.Exp(w1), math.Exp(w2)
	// Smokes ⇒ Cancer over (S, C): false only at S=1, C=0.
	imp := must(b.Table([]int32{2, 2}, []float64{e1, e1, 1, e1}))
	// (F, Sx, Sy): false only at F=1, Sx=1, Sy=0.
	fr := must(b.Table([]int32{2, 2, 2}, []float64{e2, e2, e2, e2, e2, e2, 1, e2}))
	// Friends(x,x) ∧ Smokes(x) ⇒ Smokes(x) is always true: table over (F, S).
	self := must(b.Table([]int32{2, 2}, []float64{e2, e2, e2, e2}))
	for x := 0; x < n; x++ {
		must(b.AddFactorTable([]int32{int32(x), int32(n + x)}, imp))
	}
	for x := 0; x < n; x++ {
		for y := 0; y < n; y++ {
			f := int32(2*n + x*n + y)
			if x == y {
				must(b.AddFactorTable([]int32{f, int32(x)}, self))
				continue
			}
			must(b.AddFactorTable([]int32{f, int32(x), int32(y)}, fr))
		}
	}
	return b.Build()
}

// Random returns a random (usually loopy) factor graph with n variables of
// cardinality 2..maxCard and m factors of arity 1..3 over distinct variables.
// Tables are drawn from a pool of poolSize tables per shape, so some factors
// share tables.
func Random(r *rand.Rand, n, m, maxCard int, zeroProb float64) *fg.Graph {
	b := fg.NewBuilder()
	for i := 0; i < n; i++ {
		b.AddVar(2 + r.IntN(maxCard-1))
	}
	for f := 0; f < m; f++ {
		a := 1 + r.IntN(min(3, n))
		perm := r.Perm(n)[:a]
		scope := make([]int32, a)
		for i, v := range perm {
			scope[i] = int32(v)
		}
		must(b.AddFactor(scope, RandomTable(r, size(b, scope), zeroProb)))
	}
	return b.Build()
}

// RandomCNF returns random clauses as 0/1 factors: n binary variables, m
// clauses of length 1..3 over distinct variables with random signs.
func RandomCNF(r *rand.Rand, n, m int) *fg.Graph {
	b := fg.NewBuilder()
	b.AddVars(n, 2)
	for f := 0; f < m; f++ {
		a := 1 + r.IntN(min(3, n))
		perm := r.Perm(n)[:a]
		scope := make([]int32, a)
		zero := 0
		for i, v := range perm {
			scope[i] = int32(v)
			zero <<= 1
			if r.IntN(2) == 0 { // negated literal: false at state 1
				zero |= 1
			}
		}
		t := make([]float64, 1<<a)
		for i := range t {
			t[i] = 1
		}
		t[zero] = 0
		must(b.AddFactor(scope, t))
	}
	return b.Build()
}

// SquareGrid returns an n×n grid of binary variables in which every pairwise
// factor, horizontal or vertical, has one shared table, and every variable one
// shared unary table.
func SquareGrid(r *rand.Rand, n int) *fg.Graph {
	return SquareGridTables(n, RandomTable(r, 4, 0), RandomTable(r, 2, 0))
}

// SquareGridTables is SquareGrid with the given pairwise (2×2) and unary
// (2) tables.
func SquareGridTables(n int, pairTable, unaryTable []float64) *fg.Graph {
	g, _ := tiledGrid(n, n, pairTable, unaryTable)
	return g
}

// PermuteScopes returns a graph equivalent to g in which every factor lists
// its variables in a random order, its table transposed to match: the same
// distribution written the way converters that sort scopes (libDAI's .fg
// writer) write it.
func PermuteScopes(r *rand.Rand, g *fg.Graph) *fg.Graph {
	b := fg.NewBuilder()
	for v := 0; v < g.NumVars(); v++ {
		b.AddVar(int(g.Card[v]))
	}
	for f := 0; f < g.NumFactors(); f++ {
		scope := g.Scope(f)
		t := g.Table(f)
		k := len(scope)
		order := r.Perm(k) // new position q holds old position order[q]
		newScope := make([]int32, k)
		for q, p := range order {
			newScope[q] = scope[p]
		}
		stride := t.Strides()
		vals := make([]float64, len(t.Values))
		digit := make([]int, k)
		for i := range vals {
			old := 0
			for q, p := range order {
				old += digit[q] * stride[p]
			}
			vals[i] = t.Values[old]
			for q := k - 1; q >= 0; q-- {
				digit[q]++
				if digit[q] < int(t.Dims[order[q]]) {
					break
				}
				digit[q] = 0
			}
		}
		must(b.AddFactor(newScope, vals))
	}
	return b.Build()
}

// FrustratedGrid returns an n×n Ising grid of binary variables (state s
// stands for the spin 2s−1): every horizontal and vertical pair has the
// factor exp(J·σᵢσⱼ) with |J| uniform in [jlo, jhi] and a random sign
// (ferromagnetic or not: frustrated loops), and every variable the field
// exp(h·σ) with h uniform in [−hmax, hmax]. With |J| around 2 the model
// has several well-separated modes: single-site samplers stay in one.
func FrustratedGrid(r *rand.Rand, n int, jlo, jhi, hmax float64) *fg.Graph {
	b := fg.NewBuilder()
	b.AddVars(n*n, 2)
	pair := func(u, v int32) {
		j := jlo + (jhi-jlo)*r.Float64()
		if r.IntN(2) == 0 {
			j = -j
		}
		must(b.AddFactor([]int32{u, v}, []float64{math.Exp(j), math.Exp(-j), math.Exp(-j), math.Exp(j)}))
	}
	for y := 0; y < n; y++ {
		for x := 0; x < n; x++ {
			v := int32(y*n + x)
			h := hmax * (2*r.Float64() - 1)
			must(b.AddFactor([]int32{v}, []float64{math.Exp(-h), math.Exp(h)}))
			if x+1 < n {
				pair(v, v+1)
			}
			if y+1 < n {
				pair(v, v+int32(n))
			}
		}
	}
	return b.Build()
}

// TiledSquareGrid is SquareGrid(r, n) with its variables numbered in t×t
// tiles (row-major within a tile, tiles row-major) and each variable's
// factors (unary, right, down) in that order: the same graph relabelled,
// so that a column of the grid shares a cache line per few rows instead of
// none. It also returns the variable at each row-major position y·n+x.
// With t ≥ n it is SquareGrid(r, n) (id[p] = p).
func TiledSquareGrid(r *rand.Rand, n, t int) (g *fg.Graph, id []int32) {
	return tiledGrid(n, t, RandomTable(r, 4, 0), RandomTable(r, 2, 0))
}

func tiledGrid(n, t int, pairT, unT []float64) (g *fg.Graph, id []int32) {
	b := fg.NewBuilder()
	b.AddVars(n*n, 2)
	pair := must(b.Table([]int32{2, 2}, pairT))
	un := must(b.Table([]int32{2}, unT))
	t = max(1, min(t, n))
	id = make([]int32, n*n)
	k := int32(0)
	for ty := 0; ty < n; ty += t {
		for tx := 0; tx < n; tx += t {
			for y := ty; y < min(n, ty+t); y++ {
				for x := tx; x < min(n, tx+t); x++ {
					id[y*n+x] = k
					k++
				}
			}
		}
	}
	pos := make([]int, n*n) // variable → row-major position
	for p, v := range id {
		pos[v] = p
	}
	for v := range int32(n * n) {
		y, x := pos[v]/n, pos[v]%n
		must(b.AddFactorTable([]int32{v}, un))
		if x+1 < n {
			must(b.AddFactorTable([]int32{v, id[y*n+x+1]}, pair))
		}
		if y+1 < n {
			must(b.AddFactorTable([]int32{v, id[(y+1)*n+x]}, pair))
		}
	}
	return b.Build(), id
}
