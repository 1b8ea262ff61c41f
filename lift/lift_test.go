package lift_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/infer/bp"
	"github.com/lifted-dev/lifted/internal/gen"
	"github.com/lifted-dev/lifted/lift"
)

// naiveCFG is a deliberately plain transcription of Algorithm 1: string
// signatures, maps, positions. For CNF mode a clause's positions are replaced
// by literal signs and its signature sorted; for symmetric tables positions
// are dropped and sorted.
func naiveCFG(g *fg.Graph, ev fg.Evidence, mode lift.Mode, sym []bool) (vc, fc []int, rounds int) {
	key := func(f, p int) string { return fmt.Sprint(p) }
	fcolor := make([]string, g.NumFactors())
	sortF := make([]bool, g.NumFactors())
	signs := make([][]bool, g.NumFactors())
	canonPos := make([][]int, g.NumFactors()) // position → canonical position
	for f := range fcolor {
		t := g.FactorTable[f]
		fcolor[f] = fmt.Sprint("t", t)
		if mode == lift.CNF {
			if neg, ok := fg.ClauseSigns(g.Table(f)); ok {
				n := 0
				for _, b := range neg {
					if b {
						n++
					}
				}
				fcolor[f] = fmt.Sprint("clause", len(neg), "/", n)
				sortF[f] = true
				signs[f] = neg
			}
		}
		if mode == lift.Symmetric && int(t) < len(sym) && sym[t] {
			// Positions do not count; the table (up to the order of its
			// positions) does.
			sortF[f] = true
			canon, _ := naiveCanonical(g.Table(f))
			fcolor[f] = "t" + canon
		}
		if !sortF[f] {
			// Positions go by their canonical position, and positions the
			// table cannot tell apart (swapping them changes no entry,
			// closed transitively) share the first of theirs.
			tab := g.Table(f)
			canon, order := naiveCanonical(tab)
			fcolor[f] = "t" + canon
			k := len(order)
			canonPos[f] = make([]int, k)
			for q, p := range order {
				canonPos[f][p] = q
			}
			comp := make([]int, k)
			for p := range comp {
				comp[p] = p
			}
			for p := 0; p < k; p++ {
				for q := p + 1; q < k; q++ {
					if naiveSwappable(tab, p, q) {
						old, nw := comp[q], comp[p]
						for i := range comp {
							if comp[i] == old {
								comp[i] = nw
							}
						}
					}
				}
			}
			first := make([]int, k)
			for p := range first {
				first[p] = k
			}
			for p := 0; p < k; p++ {
				first[comp[p]] = min(first[comp[p]], canonPos[f][p])
			}
			for p := 0; p < k; p++ {
				canonPos[f][p] = first[comp[p]]
			}
		}
	}
	key = func(f, p int) string {
		switch {
		case signs[f] != nil:
			return fmt.Sprint(signs[f][p])
		case sortF[f]:
			return "s"
		}
		return fmt.Sprint(canonPos[f][p])
	}
	vcolor := make([]string, g.NumVars())
	for v := range vcolor {
		e := -1
		if ev != nil {
			e = int(ev[v])
		}
		vcolor[v] = fmt.Sprint(g.Card[v], "/", e)
	}
	count := func(c []string) int {
		m := map[string]bool{}
		for _, s := range c {
			m[s] = true
		}
		return len(m)
	}
	for {
		rounds++
		nv, nf := count(vcolor), count(fcolor)
		newF := make([]string, len(fcolor))
		for f := range fcolor {
			var parts []string
			for p, v := range g.Scope(f) {
				parts = append(parts, key(f, p)+":"+vcolor[v])
			}
			if sortF[f] || canonPos[f] != nil {
				sort.Strings(parts) // keys are single digits here
			}
			newF[f] = "(" + fcolor[f] + "|" + strings.Join(parts, ",") + ")"
		}
		newV := make([]string, len(vcolor))
		for v := range vcolor {
			var parts []string
			for f := 0; f < g.NumFactors(); f++ {
				for p, w := range g.Scope(f) {
					if int(w) == v {
						parts = append(parts, newF[f]+"@"+key(f, p))
					}
				}
			}
			sort.Strings(parts)
			newV[v] = "(" + vcolor[v] + "|" + strings.Join(parts, ",") + ")"
		}
		// Rename signatures to short colour names, as the paper does.
		vcolor, fcolor = rename(newV), rename(newF)
		if count(vcolor) == nv && count(fcolor) == nf {
			break
		}
	}
	return denseStrings(vcolor), denseStrings(fcolor), rounds
}

// naiveCanonical tries every order of t's positions, in lexicographic order,
// and keeps the first whose transposed table (dimensions, then entry bits,
// last position fastest) is smallest; order[q] is the position at q.
func naiveCanonical(t *fg.Table) (string, []int) {
	k := len(t.Dims)
	var best []uint64
	var bestOrder []int
	var try func(prefix []int, used []bool)
	try = func(prefix []int, used []bool) {
		if len(prefix) < k {
			for p := 0; p < k; p++ {
				if !used[p] {
					used[p] = true
					try(append(prefix, p), used)
					used[p] = false
				}
			}
			return
		}
		var key []uint64
		for _, p := range prefix {
			key = append(key, uint64(t.Dims[p]))
		}
		// Enumerate assignments in the new layout by decoding the index.
		for i := range t.Values {
			old, r := 0, i
			digits := make([]int, k)
			for q := k - 1; q >= 0; q-- {
				digits[q] = r % int(t.Dims[prefix[q]])
				r /= int(t.Dims[prefix[q]])
			}
			for p := 0; p < k; p++ {
				q := slices.Index(prefix, p)
				old = old*int(t.Dims[p]) + digits[q]
			}
			key = append(key, math.Float64bits(t.Values[old]))
		}
		if best == nil || slices.Compare(key, best) < 0 {
			best, bestOrder = key, slices.Clone(prefix)
		}
	}
	try(nil, make([]bool, k))
	return fmt.Sprint(best), bestOrder
}

// naiveSwappable reports whether exchanging the values of positions p and q
// leaves every entry of t unchanged.
func naiveSwappable(t *fg.Table, p, q int) bool {
	if t.Dims[p] != t.Dims[q] {
		return false
	}
	k := len(t.Dims)
	decode := func(i int) []int {
		d := make([]int, k)
		for j := k - 1; j >= 0; j-- {
			d[j] = i % int(t.Dims[j])
			i /= int(t.Dims[j])
		}
		return d
	}
	for i := range t.Values {
		d := decode(i)
		d[p], d[q] = d[q], d[p]
		j := 0
		for x := 0; x < k; x++ {
			j = j*int(t.Dims[x]) + d[x]
		}
		if math.Float64bits(t.Values[i]) != math.Float64bits(t.Values[j]) {
			return false
		}
	}
	return true
}

func rename(s []string) []string {
	out := make([]string, len(s))
	for i, id := range denseStrings(s) {
		out[i] = fmt.Sprint("c", id)
	}
	return out
}

func denseStrings(s []string) []int {
	m := map[string]int{}
	out := make([]int, len(s))
	for i, x := range s {
		id, ok := m[x]
		if !ok {
			id = len(m)
			m[x] = id
		}
		out[i] = id
	}
	return out
}

// samePartition reports whether two colourings induce the same partition.
func samePartition[A, B ~int | ~int32](a []A, b []B) bool {
	ab := map[A]B{}
	ba := map[B]A{}
	for i := range a {
		if x, ok := ab[a[i]]; ok && x != b[i] {
			return false
		}
		if y, ok := ba[b[i]]; ok && y != a[i] {
			return false
		}
		ab[a[i]], ba[b[i]] = b[i], a[i]
	}
	return true
}

type model struct {
	name string
	g    *fg.Graph
	ev   fg.Evidence
}

// plantedModels returns the random models with planted symmetry.
func plantedModels(seed uint64) []model {
	r := rand.New(rand.NewPCG(seed, 99))
	var ms []model
	for i := 0; i < 60; i++ {
		piece := gen.Random(r, 2+r.IntN(5), 1+r.IntN(6), 3, 0.1)
		g, ev := gen.Copies(r, piece, 2+r.IntN(5), r.IntN(3))
		if g.CheckEvidence(ev) != nil {
			ev = nil // the drawn observation contradicts a zero entry
		}
		ms = append(ms, model{fmt.Sprint("copies", i), g, ev})
	}
	for i := 0; i < 50; i++ {
		n := 4 + 2*r.IntN(8)
		g := gen.Ring(r, n, i%2 == 0)
		ev := fg.NoEvidence(n)
		if i%3 == 0 {
			ev[r.IntN(n)] = int32(r.IntN(2))
		}
		ms = append(ms, model{fmt.Sprint("ring", i), g, ev})
	}
	for i := 0; i < 50; i++ {
		w, h := 2+r.IntN(5), 2+r.IntN(5)
		g := gen.Grid(r, w, h)
		ev := fg.NoEvidence(w * h)
		for k := r.IntN(3); k > 0; k-- {
			ev[r.IntN(w*h)] = int32(r.IntN(2))
		}
		ms = append(ms, model{fmt.Sprint("grid", i), g, ev})
	}
	for i := 0; i < 40; i++ {
		n := 2 + r.IntN(4)
		g := gen.Smokers(n, 1.5, 1.1)
		ev := fg.NoEvidence(g.NumVars())
		for k := r.IntN(3); k > 0; k-- {
			ev[r.IntN(n)] = int32(r.IntN(2)) // Smokes atoms
		}
		if i%4 == 0 {
			ev[2*n+r.IntN(n*n)] = 1 // a Friends atom
		}
		ms = append(ms, model{fmt.Sprint("smokers", i), g, ev})
	}
	for i := range ms {
		if ms[i].g.CheckEvidence(ms[i].ev) != nil {
			ms[i].ev = nil // the drawn observation contradicts a zero entry
		}
	}
	return ms
}

func TestColourPassingMatchesNaive(t *testing.T) {
	for _, m := range plantedModels(1) {
		col, err := lift.ColourPassing{}.Refine(context.Background(), m.g, m.ev, lift.Options{})
		if err != nil {
			t.Fatal(err)
		}
		vc, fc, rounds := naiveCFG(m.g, m.ev, lift.Positional, nil)
		if !samePartition(col.VarColor, vc) || !samePartition(col.FactorColor, fc) {
			t.Fatalf("%s: colour passing partition differs from the naive reference (%d/%d vs %d/%d colours)",
				m.name, col.NumVarColor, col.NumFacColor, slices.Max(vc)+1, slices.Max(fc)+1)
		}
		if col.Iterations != rounds {
			t.Fatalf("%s: %d rounds, the naive reference takes %d", m.name, col.Iterations, rounds)
		}
	}
}

func maxDiff(t *testing.T, a, b *bp.Result, n int) float64 {
	t.Helper()
	var d float64
	for v := 0; v < n; v++ {
		ma, mb := a.Marginal(v), b.Marginal(v)
		for x := range ma {
			d = math.Max(d, math.Abs(ma[x]-mb[x]))
		}
	}
	return d
}

func run(t *testing.T, c *lift.Compressed, opt bp.Options) *bp.Result {
	t.Helper()
	r, err := bp.Run(context.Background(), c, opt)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// Lifted BP equals ground BP, iteration for iteration under flooding (so even
// where BP does not converge), for sum- and max-product.
func TestLiftedEqualsGroundFlood(t *testing.T) {
	models := plantedModels(2)
	compressed := 0
	for _, m := range models {
		gc, err := lift.Ground(m.g, m.ev)
		if err != nil {
			t.Fatal(err)
		}
		lc, _, err := lift.Compress(context.Background(), m.g, m.ev, lift.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if lc.NumNodes() < gc.NumNodes() {
			compressed++
		}
		for _, maxp := range []bool{false, true} {
			opt := bp.Options{MaxIter: 40, Tol: 0, MaxProduct: maxp}
			gr, lr := run(t, gc, opt), run(t, lc, opt)
			if d := maxDiff(t, gr, lr, m.g.NumVars()); d > 1e-9 {
				t.Fatalf("%s (max-product %v): lifted and ground marginals differ by %g", m.name, maxp, d)
			}
			if gr.Messages < lr.Messages {
				t.Fatalf("%s: lifted sent more messages (%d) than ground (%d)", m.name, lr.Messages, gr.Messages)
			}
			if !maxp {
				if d := math.Abs(gr.LogZ - lr.LogZ); d > 1e-9*math.Max(1, math.Abs(gr.LogZ)) {
					t.Fatalf("%s: Bethe log Z ground %v lifted %v", m.name, gr.LogZ, lr.LogZ)
				}
			}
		}
	}
	if len(models) < 200 {
		t.Fatalf("only %d models", len(models))
	}
	// Positional factors break reflections, so rings and grids with evidence
	// do not compress; copies, symmetric rings and smokers do.
	if compressed < len(models)/3 {
		t.Fatalf("only %d of %d planted models compressed", compressed, len(models))
	}
}

// Under the sequential schedule lifted BP updates a whole slot at once, a
// different order from ground; where both converge tightly they reach the same
// fixed point.
func TestLiftedEqualsGroundSequential(t *testing.T) {
	compared := 0
	for _, m := range plantedModels(3) {
		gc, _ := lift.Ground(m.g, m.ev)
		lc, _, err := lift.Compress(context.Background(), m.g, m.ev, lift.Options{})
		if err != nil {
			t.Fatal(err)
		}
		opt := bp.Options{MaxIter: 5000, Tol: 1e-14, Schedule: bp.Sequential}
		gr, lr := run(t, gc, opt), run(t, lc, opt)
		if !gr.Converged || !lr.Converged {
			continue
		}
		compared++
		if d := maxDiff(t, gr, lr, m.g.NumVars()); d > 1e-9 {
			t.Fatalf("%s: sequential lifted and ground marginals differ by %g", m.name, d)
		}
	}
	if compared < 150 {
		t.Fatalf("only %d models converged under both schedules", compared)
	}
}

// permutedCopies makes k copies of a CNF piece, each clause's literals in a
// random order per copy: only CNF mode can see that the copies are alike.
func permutedCopies(r *rand.Rand, piece *fg.Graph, k int) *fg.Graph {
	b := fg.NewBuilder()
	n := piece.NumVars()
	b.AddVars(n*k, 2)
	for c := 0; c < k; c++ {
		for f := 0; f < piece.NumFactors(); f++ {
			sc := piece.Scope(f)
			neg, _ := fg.ClauseSigns(piece.Table(f))
			perm := r.Perm(len(sc))
			scope := make([]int32, len(sc))
			zero := 0
			for i, p := range perm {
				scope[i] = sc[p] + int32(c*n)
				zero <<= 1
				if neg[p] {
					zero |= 1
				}
			}
			t := make([]float64, 1<<len(sc))
			for i := range t {
				t[i] = 1
			}
			t[zero] = 0
			if _, err := b.AddFactor(scope, t); err != nil {
				panic(err)
			}
		}
	}
	return b.Build()
}

func TestCNFModeLiftedEqualsGround(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 4))
	compressed := 0
	for i := 0; i < 100; i++ {
		piece := gen.RandomCNF(r, 3+r.IntN(4), 2+r.IntN(5))
		g := permutedCopies(r, piece, 2+r.IntN(4))
		ev := fg.NoEvidence(g.NumVars())
		if i%2 == 0 {
			ev[r.IntN(g.NumVars())] = int32(r.IntN(2))
		}
		if g.CheckEvidence(ev) != nil {
			continue
		}
		col, err := lift.ColourPassing{}.Refine(context.Background(), g, ev, lift.Options{Mode: lift.CNF})
		if err != nil {
			t.Fatal(err)
		}
		vc, fc, _ := naiveCFG(g, ev, lift.CNF, nil)
		if !samePartition(col.VarColor, vc) || !samePartition(col.FactorColor, fc) {
			t.Fatalf("cnf %d: partition differs from the naive reference", i)
		}
		gc, _ := lift.Ground(g, ev)
		pc, _, _ := lift.Compress(context.Background(), g, ev, lift.Options{})
		cc, _, _ := lift.Compress(context.Background(), g, ev, lift.Options{Mode: lift.CNF})
		// A clause table's canonical order and swap blocks carry exactly
		// what CNF mode keys on (length, signs), so positional mode
		// finds the same partition.
		if !samePartition(cc.NodeOf, pc.NodeOf) || !samePartition(cc.FactorOf, pc.FactorOf) {
			t.Fatalf("cnf %d: CNF mode %d/%d colours, positional %d/%d", i, cc.NumNodes(), cc.NumFactors(), pc.NumNodes(), pc.NumFactors())
		}
		if cc.NumNodes() < gc.NumNodes() {
			compressed++
		}
		opt := bp.Options{MaxIter: 30, Tol: 0, Damping: 0.5}
		gr := runOrSkip(t, gc, opt)
		if gr == nil {
			continue
		}
		cr := run(t, cc, opt)
		if d := maxDiff(t, gr, cr, g.NumVars()); d > 1e-9 {
			t.Fatalf("cnf %d: CNF-mode lifted and ground marginals differ by %g", i, d)
		}
	}
	if compressed < 30 {
		t.Fatalf("only %d of 100 permuted copies compressed", compressed)
	}
}

// runOrSkip runs BP and returns nil where BP itself reports a zero message
// (possible on unsatisfiable random clause sets).
func runOrSkip(t *testing.T, c *lift.Compressed, opt bp.Options) *bp.Result {
	r, err := bp.Run(context.Background(), c, opt)
	if err != nil {
		return nil
	}
	return r
}

func TestSymmetricMode(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	for i := 0; i < 50; i++ {
		// A ring whose pairwise table is symmetric, declared so.
		n := 4 + r.IntN(6)
		b := fg.NewBuilder()
		b.AddVars(n, 2)
		a, d := 0.5+r.Float64(), 0.5+r.Float64()
		pair, _ := b.Table([]int32{2, 2}, []float64{a, d, d, a + 0.3})
		un, _ := b.Table([]int32{2}, []float64{1, 2})
		// In every third ring, one edge has a second symmetric table:
		// symmetric factors of different tables must not share a colour.
		other, _ := b.Table([]int32{2, 2}, []float64{a + 1, d, d, a})
		for v := 0; v < n; v++ {
			b.AddFactorTable([]int32{int32(v)}, un)
			p := pair
			if i%3 == 2 && v == n/2 {
				p = other
			}
			// Alternate the orientation so only symmetric mode sees the ring as uniform.
			if v%2 == 0 {
				b.AddFactorTable([]int32{int32(v), int32((v + 1) % n)}, p)
			} else {
				b.AddFactorTable([]int32{int32((v + 1) % n), int32(v)}, p)
			}
		}
		g := b.Build()
		sym := []bool{true, false, true}
		ev := fg.NoEvidence(n)
		if i%2 == 1 {
			ev[0] = 1
		}
		col, _ := lift.ColourPassing{}.Refine(context.Background(), g, ev, lift.Options{Mode: lift.Symmetric, Symmetric: sym})
		vc, fc, _ := naiveCFG(g, ev, lift.Symmetric, sym)
		if !samePartition(col.VarColor, vc) || !samePartition(col.FactorColor, fc) {
			t.Fatalf("symmetric %d: partition differs from the naive reference", i)
		}
		gc, _ := lift.Ground(g, ev)
		sc, _, _ := lift.Compress(context.Background(), g, ev, lift.Options{Mode: lift.Symmetric, Symmetric: sym})
		if i%2 == 0 && i%3 != 2 && n%2 == 0 && sc.NumNodes() != 1 {
			t.Fatalf("symmetric ring of %d without evidence: %d clusternodes, want 1", n, sc.NumNodes())
		}
		opt := bp.Options{MaxIter: 30, Tol: 0}
		if d := maxDiff(t, run(t, gc, opt), run(t, sc, opt), n); d > 1e-9 {
			t.Fatalf("symmetric %d: differ by %g", i, d)
		}
	}
}

// Disjoint identical copies without evidence compress to one copy.
func TestCopiesCompressToOne(t *testing.T) {
	r := rand.New(rand.NewPCG(6, 6))
	piece := gen.Tree(r, 6, 3, 0)
	g, _ := gen.Copies(r, piece, 7, 0)
	c, _, err := lift.Compress(context.Background(), g, nil, lift.Options{})
	if err != nil {
		t.Fatal(err)
	}
	col, _ := lift.ColourPassing{}.Refine(context.Background(), piece, nil, lift.Options{})
	if c.NumNodes() != col.NumVarColor || c.NumFactors() != col.NumFacColor {
		t.Fatalf("7 copies compress to %d/%d, one copy to %d/%d", c.NumNodes(), c.NumFactors(), col.NumVarColor, col.NumFacColor)
	}
	for X := 0; X < c.NumNodes(); X++ {
		if c.NodeSize[X]%7 != 0 {
			t.Fatalf("clusternode %d has %d variables", X, c.NodeSize[X])
		}
	}
}

// Smokers without evidence: Smokes, Cancer, Friends(x,y) x≠y and Friends(x,x)
// make 4 clusternodes; the paper's Table 2 network.
func TestSmokersCompression(t *testing.T) {
	g := gen.Smokers(10, 1.5, 1.1)
	c, _, err := lift.Compress(context.Background(), g, nil, lift.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if c.NumNodes() != 4 || c.NumFactors() != 3 {
		t.Fatalf("smokers(10): %d clusternodes, %d clusterfactors; want 4 and 3", c.NumNodes(), c.NumFactors())
	}
	// Each Smokes(x) is in 1 implication, 9 friend factors as x, 9 as y, 1 self.
	X := c.NodeOf[0]
	if d := c.Degree(int(X)); d != 20 {
		t.Fatalf("degree of Smokes cluster %d, want 20", d)
	}
}

// Larger graphs, where the incremental refinement re-signs only part of the
// graph each round: partitions and round counts equal the naive reference.
func TestColourPassingLargerMatchesNaive(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	var ms []model
	for i := 0; i < 6; i++ {
		n := 8 + r.IntN(8)
		g := gen.SquareGrid(r, n)
		ev := fg.NoEvidence(n * n)
		for k := 1 + r.IntN(3); k > 0; k-- {
			ev[r.IntN(n*n)] = int32(r.IntN(2))
		}
		ms = append(ms, model{fmt.Sprint("grid", n), g, ev})
	}
	for i := 0; i < 6; i++ {
		piece := gen.Random(r, 6+r.IntN(6), 8+r.IntN(8), 3, 0)
		g, ev := gen.Copies(r, piece, 5+r.IntN(10), 3+r.IntN(5))
		ms = append(ms, model{fmt.Sprint("copies", i), g, ev})
	}
	for _, m := range ms {
		col, err := lift.ColourPassing{}.Refine(context.Background(), m.g, m.ev, lift.Options{})
		if err != nil {
			t.Fatal(err)
		}
		vc, fc, rounds := naiveCFG(m.g, m.ev, lift.Positional, nil)
		if !samePartition(col.VarColor, vc) || !samePartition(col.FactorColor, fc) || col.Iterations != rounds {
			t.Fatalf("%s: %d/%d colours in %d rounds, naive %d/%d in %d", m.name, col.NumVarColor, col.NumFacColor,
				col.Iterations, slices.Max(vc)+1, slices.Max(fc)+1, rounds)
		}
	}
}

// Writing factors with their variables in another order (and their tables
// transposed to match) describes the same model: colour passing compares
// positions in each table's canonical order, so the permuted graph
// compresses exactly as the original does, matches the naive reference, and
// lifted BP on it still equals ground BP.
func TestPermutedScopesCompressAlike(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	models := plantedModels(4)
	for _, m := range models {
		p := gen.PermuteScopes(r, m.g)
		oc, _, err := lift.Compress(context.Background(), m.g, m.ev, lift.Options{})
		if err != nil {
			t.Fatal(err)
		}
		pc, _, err := lift.Compress(context.Background(), p, m.ev, lift.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if !samePartition(oc.NodeOf, pc.NodeOf) || !samePartition(oc.FactorOf, pc.FactorOf) {
			t.Fatalf("%s: permuted scopes compress to %d/%d, the original to %d/%d", m.name,
				pc.NumNodes(), pc.NumFactors(), oc.NumNodes(), oc.NumFactors())
		}
		col, err := lift.ColourPassing{}.Refine(context.Background(), p, m.ev, lift.Options{})
		if err != nil {
			t.Fatal(err)
		}
		vc, fc, rounds := naiveCFG(p, m.ev, lift.Positional, nil)
		if !samePartition(col.VarColor, vc) || !samePartition(col.FactorColor, fc) || col.Iterations != rounds {
			t.Fatalf("%s permuted: partition differs from the naive reference", m.name)
		}
		gc, _ := lift.Ground(p, m.ev)
		opt := bp.Options{MaxIter: 40, Tol: 0}
		gr, lr := run(t, gc, opt), run(t, pc, opt)
		if d := maxDiff(t, gr, lr, p.NumVars()); d > 1e-9 {
			t.Fatalf("%s permuted: lifted and ground marginals differ by %g", m.name, d)
		}
		if d := math.Abs(gr.LogZ - lr.LogZ); d > 1e-9*math.Max(1, math.Abs(gr.LogZ)) {
			t.Fatalf("%s permuted: Bethe log Z ground %v lifted %v", m.name, gr.LogZ, lr.LogZ)
		}
	}
}

// IsSymmetric agrees with checking every swap of two positions by brute
// force, on symmetrised and random tables.
func TestIsSymmetric(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	for i := 0; i < 300; i++ {
		k := 1 + r.IntN(4)
		d := int32(2 + r.IntN(2))
		dims := make([]int32, k)
		size := 1
		for p := range dims {
			dims[p] = d
			size *= int(d)
		}
		if i%5 == 0 && k > 1 {
			dims[r.IntN(k)] = d + 1 // a shape no permutation maps to itself
			size = size / int(d) * int(d+1)
		}
		vals := gen.RandomTable(r, size, 0)
		if i%2 == 0 {
			// A function of the number of positions in each state is
			// symmetric; then perhaps break it in one entry.
			for j := range vals {
				c, x := 0, j
				for p := k - 1; p >= 0; p-- {
					c += x % int(dims[p])
					x /= int(dims[p])
				}
				vals[j] = float64(c + 1)
			}
			if i%4 == 0 {
				vals[r.IntN(size)] = 0.5
			}
		}
		tab := &fg.Table{Dims: dims, Values: vals}
		want := true
		for p := 0; p < k; p++ {
			for q := p + 1; q < k; q++ {
				want = want && naiveSwappable(tab, p, q)
			}
		}
		if got := lift.IsSymmetric(tab); got != want {
			t.Fatalf("table %v %v: IsSymmetric %v, brute force %v", dims, vals, got, want)
		}
	}
}
