package orbit

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/internal/gen"
)

// bruteFG enumerates the variable permutations that preserve cardinality
// and evidence and fix the variables of fixed, keeps those that map the
// multiset of factors onto itself — a factor read as its set of variables
// with its table indexed by them, so that the image of f under π is
// π(scope f) with f's entries — and returns the variable and factor orbits
// (f joined with every factor equal to its image) and the number of
// variable permutations kept.
func bruteFG(g *fg.Graph, ev fg.Evidence, fixed []int32) (vo, fo []int32, count int) {
	nv, nf := g.NumVars(), g.NumFactors()
	isFixed := make([]bool, nv)
	for _, v := range fixed {
		isFixed[v] = true
	}
	ident := make([]int32, nv)
	for i := range ident {
		ident[i] = int32(i)
	}
	keys := map[string][]int{} // key → factors
	keyCount := map[string]int{}
	for f := range nf {
		k := factorKey(g, f, ident)
		keys[k] = append(keys[k], f)
		keyCount[k]++
	}
	// Variables are placed in the order factors meet them, so that factors
	// are complete early; done[i]: factors completed by the i-th placed.
	var order []int32
	at := make([]int, nv)
	for i := range at {
		at[i] = -1
	}
	place := func(v int32) {
		if at[v] < 0 {
			at[v] = len(order)
			order = append(order, v)
		}
	}
	byArity := rangeN(nf) // widest factors first: they prune the most
	slices.SortStableFunc(byArity, func(a, b int) int { return len(g.Scope(b)) - len(g.Scope(a)) })
	for _, f := range byArity {
		for _, v := range g.Scope(f) {
			place(v)
		}
	}
	for v := range int32(nv) {
		place(v)
	}
	done := make([][]int, nv)
	for f := range nf {
		last := 0
		for _, v := range g.Scope(f) {
			last = max(last, at[v])
		}
		done[last] = append(done[last], f)
	}
	ufv := make([]int32, nv)
	uff := make([]int32, nf)
	for i := range ufv {
		ufv[i] = int32(i)
	}
	for i := range uff {
		uff[i] = int32(i)
	}
	find := func(uf []int32, x int32) int32 {
		for uf[x] != x {
			x = uf[x]
		}
		return x
	}
	union := func(uf []int32, a, b int32) {
		ra, rb := find(uf, a), find(uf, b)
		if ra != rb {
			uf[max(ra, rb)] = min(ra, rb)
		}
	}
	// A local invariant to prune with: the sorted list of the sorted entry
	// multisets of a variable's factors.
	sig := make([]string, nv)
	for v := range nv {
		var parts []string
		for f := range nf {
			if slices.Contains(g.Scope(f), int32(v)) {
				vals := slices.Clone(g.Table(f).Values)
				slices.Sort(vals)
				parts = append(parts, fmt.Sprint(len(g.Scope(f)), vals))
			}
		}
		slices.Sort(parts)
		sig[v] = strings.Join(parts, "|")
	}
	p := make([]int32, nv)
	used := make([]bool, nv)
	img := make([]string, nf)
	var rec func(i int)
	rec = func(i int) {
		if i == nv {
			cnt := map[string]int{}
			for f := range nf {
				img[f] = factorKey(g, f, p)
				cnt[img[f]]++
			}
			for k, c := range cnt {
				if keyCount[k] != c {
					return
				}
			}
			count++
			for a, b := range p {
				union(ufv, int32(a), b)
			}
			for f := range nf {
				for _, h := range keys[img[f]] {
					union(uff, int32(f), int32(h))
				}
			}
			return
		}
		v := order[i]
		for w := range int32(nv) {
			if used[w] || g.Card[w] != g.Card[v] || sig[w] != sig[v] || (ev != nil && ev[w] != ev[v]) || (isFixed[v] && w != v) {
				continue
			}
			p[v] = w
			ok := true
			for _, f := range done[i] {
				if keyCount[factorKey(g, f, p)] == 0 {
					ok = false
					break
				}
			}
			if !ok {
				continue
			}
			used[w] = true
			rec(i + 1)
			used[w] = false
		}
	}
	rec(0)
	vo, _ = numberClasses(nv, func(x int32) int32 { return find(ufv, x) })
	fo, _ = numberClasses(nf, func(x int32) int32 { return find(uff, x) })
	return vo, fo, count
}

// factorKey writes factor f with its variables renamed by p as the sorted
// renamed variables and the table re-indexed in that order (enumerating
// every assignment explicitly).
func factorKey(g *fg.Graph, f int, p []int32) string {
	sc := g.Scope(f)
	k := len(sc)
	order := rangeN(k) // positions sorted by renamed variable
	slices.SortFunc(order, func(a, b int) int { return int(p[sc[a]]) - int(p[sc[b]]) })
	t := g.Table(f)
	var sb strings.Builder
	for _, i := range order {
		fmt.Fprintf(&sb, "%d:%d,", p[sc[i]], t.Dims[i])
	}
	// Enumerate assignments in the sorted order, last fastest.
	x := make([]int, k)
	for {
		idx := 0
		for i := range k {
			idx = idx*int(t.Dims[i]) + x[i]
		}
		fmt.Fprintf(&sb, "%x;", math.Float64bits(t.Values[idx]))
		q := k - 1
		for ; q >= 0; q-- {
			pos := order[q]
			x[pos]++
			if x[pos] < int(t.Dims[pos]) {
				break
			}
			x[pos] = 0
		}
		if q < 0 {
			return sb.String()
		}
	}
}

func rangeN(n int) []int {
	r := make([]int, n)
	for i := range r {
		r[i] = i
	}
	return r
}

// poolGraph draws factors from a small pool of tables (random ones, tables
// symmetric in all positions, tables symmetric in their first two) over
// random scopes, so that many factors share a table and the graph often has
// symmetries; scopes are then written in random orders (tables transposed).
func poolGraph(r *rand.Rand) (*fg.Graph, fg.Evidence) {
	b := fg.NewBuilder()
	n := 2 + r.IntN(6)
	for range n {
		card := 2
		if r.IntN(5) == 0 {
			card = 3
		}
		b.AddVar(card)
	}
	type entry struct {
		k    int
		vals []float64
	}
	var pool []entry
	for range 1 + r.IntN(3) {
		k := 1 + r.IntN(3)
		vals := make([]float64, 1<<k)
		kind := r.IntN(3)
		for i := range vals {
			switch {
			case kind == 0 && k > 1: // symmetric: depends on the number of ones
				vals[i] = float64(1 + popcount(i)*popcount(i))
			case kind == 1 && k == 3: // symmetric in the first two positions
				vals[i] = float64(1 + popcount(i>>1) + 5*(i&1))
			default:
				vals[i] = float64(1 + r.IntN(4))
			}
		}
		pool = append(pool, entry{k, vals})
	}
	for range 1 + r.IntN(7) {
		e := pool[r.IntN(len(pool))]
		var binVars []int32
		for v := range int32(n) {
			if b.Card(v) == 2 {
				binVars = append(binVars, v)
			}
		}
		if len(binVars) < e.k {
			continue
		}
		r.Shuffle(len(binVars), func(i, j int) { binVars[i], binVars[j] = binVars[j], binVars[i] })
		if _, err := b.AddFactor(binVars[:e.k], e.vals); err != nil {
			panic(err)
		}
	}
	if b.NumFactors() == 0 {
		if _, err := b.AddFactor([]int32{0}, make([]float64, b.Card(0))); err != nil {
			panic(err)
		}
	}
	g := gen.PermuteScopes(r, b.Build())
	var ev fg.Evidence
	if r.IntN(3) == 0 {
		ev = fg.NoEvidence(n)
		v := r.IntN(n)
		ev[v] = int32(r.IntN(int(g.Card[v])))
	}
	return g, ev
}

func popcount(i int) int {
	c := 0
	for ; i > 0; i &= i - 1 {
		c++
	}
	return c
}

func checkFG(t *testing.T, name string, g *fg.Graph, ev fg.Evidence, fixed []int32) *Result {
	t.Helper()
	return checkFGUpTo(t, name, g, ev, fixed, 0)
}

// checkFGUpTo is checkFG skipping the brute force (returning nil) when the
// group found has more than maxGroup elements (0: no limit), since the
// enumeration visits every element.
func checkFGUpTo(t *testing.T, name string, g *fg.Graph, ev fg.Evidence, fixed []int32, maxGroup float64) *Result {
	t.Helper()
	res, err := Stabiliser(context.Background(), g, ev, fixed, Options{})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if maxGroup > 0 && res.Stats.GroupSize > maxGroup {
		return nil
	}
	for i, p := range res.Generators {
		if !IsSymmetry(g, ev, p) {
			t.Fatalf("%s: generator %d is not a symmetry: %+v", name, i, p)
		}
		for _, v := range fixed {
			if p.Var[v] != v {
				t.Fatalf("%s: generator %d moves fixed variable %d", name, i, v)
			}
		}
	}
	vo, fo, _ := bruteFG(g, ev, fixed)
	if !slices.Equal(res.VarOrbit, vo) || !slices.Equal(res.FactorOrbit, fo) {
		t.Fatalf("%s (fixed %v): variable orbits %v factor orbits %v; brute force %v %v", name, fixed, res.VarOrbit, res.FactorOrbit, vo, fo)
	}
	if res.NumVarOrbits != int(slices.Max(append(vo, -1))+1) || res.NumFactorOrbits != int(slices.Max(append(fo, -1))+1) {
		t.Fatalf("%s: orbit counts %d %d disagree with the orbits", name, res.NumVarOrbits, res.NumFactorOrbits)
	}
	return res
}

func TestFactorGraphBrute(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	nontrivial := 0
	for trial := range 400 {
		var g *fg.Graph
		var ev fg.Evidence
		switch trial % 4 {
		case 0, 1:
			g, ev = poolGraph(r)
		case 2:
			piece, _ := gen.SmallGraph(r, gen.SmallShape{Vars: 1, Factors: 2, ZeroOneIn: 4, Scale: 1})
			if piece.NumVars() > 4 {
				continue
			}
			g, ev = gen.Copies(r, gen.PermuteScopes(r, piece), 2, r.IntN(2))
		default:
			g = gen.Ring(r, 3+r.IntN(6), r.IntN(2) == 0)
		}
		if g.NumVars() > 9 {
			continue
		}
		res := checkFG(t, "graph", g, ev, nil)
		if res.NumVarOrbits < g.NumVars() {
			nontrivial++
		}
		if g.NumVars() > 1 {
			fixed := []int32{int32(r.IntN(g.NumVars()))}
			checkFG(t, "stabiliser", g, ev, fixed)
		}
	}
	if nontrivial < 100 {
		t.Errorf("only %d graphs with a non-trivial group: the test is too weak", nontrivial)
	}
}

func TestFactorGraphMLN(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	tested := 0
	for trial := 0; trial < 300 && tested < 60; trial++ {
		src, db := gen.SmallMLN(r, gen.MLNShape{Formulas: 3, HardOneIn: 4})
		g, err := gen.GroundSmallMLN(src, db, 0, 15)
		if err != nil {
			t.Fatal(err)
		}
		if g == nil {
			continue
		}
		if checkFGUpTo(t, "mln", g, nil, nil, 2000) != nil {
			tested++
		}
	}
	if tested < 30 {
		t.Fatalf("only %d MLNs grounded", tested)
	}
}
