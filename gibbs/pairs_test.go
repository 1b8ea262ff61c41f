package gibbs

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/internal/gen"
)

// TestPairs: NewPairs finds the hard pair factors of a star (an auxiliary
// variable a that excludes its atoms, as ground's EXIST clauses) and a
// strongly coupled pair, not a weak one; and every pair move's marginals
// (the Rao-Blackwellised terms it writes) are the exact joint conditional
// of the pair given the rest, by brute force over the whole graph.
func TestPairs(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 35))
	b := fg.NewBuilder()
	b.AddVars(5, 2) // x0..x3, a = 4
	mustAdd := func(scope []int32, vals []float64) {
		if _, err := b.AddFactor(scope, vals); err != nil {
			t.Fatal(err)
		}
	}
	for i := range int32(4) {
		mustAdd([]int32{i, 4}, []float64{1, 1, 1, 0})                // a = 1 excludes x_i = 1
		mustAdd([]int32{i}, []float64{1, math.Exp(r.NormFloat64())}) // a field
	}
	mustAdd([]int32{4}, []float64{1, 3})
	mustAdd([]int32{0, 1}, []float64{math.Exp(-2), 1, 1, math.Exp(-2)}) // one of x0, x1 (interaction 4)
	mustAdd([]int32{2, 3}, []float64{1, 1, 1, math.Exp(0.5)})           // weak (0.5)
	v3 := make([]float64, 8)
	for i := range v3 {
		v3[i] = 0.5 + r.Float64()
	}
	mustAdd([]int32{1, 2, 3}, v3)
	g := b.Build()
	p := NewPairs(g, nil)
	want := [][2]int32{{0, 1}, {0, 4}, {1, 4}, {2, 4}, {3, 4}}
	if p.Len() != len(want) {
		t.Fatalf("pairs %v %v, want %v", p.U, p.V, want)
	}
	for i, w := range want {
		if p.U[i] != w[0] || p.V[i] != w[1] {
			t.Fatalf("pair %d: (%d, %d), want %v", i, p.U[i], p.V[i], w)
		}
	}
	weight := func(x []int32) float64 {
		w := 1.0
		for f := range g.NumFactors() {
			w *= g.Table(f).Values[tableIndex(g, f, x)]
		}
		return w
	}
	x := []int32{0, 1, 0, 0, 0}
	ch, err := NewChain(g, nil, x)
	if err != nil {
		t.Fatal(err)
	}
	cond := make([]float64, ch.Offsets()[g.NumVars()])
	checked := 0
	for step := range 200 {
		i := step % p.Len()
		u, v := p.U[i], p.V[i]
		y := append([]int32(nil), ch.State()...)
		var pu, pv [2]float64
		z := 0.0
		for s := range int32(2) {
			for s2 := range int32(2) {
				y[u], y[v] = s, s2
				w := weight(y)
				pu[s] += w
				pv[s2] += w
				z += w
			}
		}
		ch.pairDraw(r, u, v, cond)
		if weight(ch.State()) == 0 {
			t.Fatalf("step %d: the pair move drew an excluded world %v", step, ch.State())
		}
		for s := range 2 {
			if math.Abs(cond[ch.off[u]+s]-pu[s]/z) > 1e-12 || math.Abs(cond[ch.off[v]+s]-pv[s]/z) > 1e-12 {
				t.Fatalf("step %d pair (%d,%d): marginals %v %v, want %v %v", step, u, v, cond[ch.off[u]:ch.off[u]+2], cond[ch.off[v]:ch.off[v]+2], pu[s]/z, pv[s]/z)
			}
		}
		checked++
		if step%7 == 0 {
			ch.Sweep(r, nil)
		}
	}
	if checked == 0 {
		t.Fatal("nothing checked")
	}
}

// twinPairChains draws a random graph with pair moves (factors of one to
// three variables of two or three states, zero entries, evidence) and
// returns it with two chains from the same random positive world, their
// worlds and two generators with the same stream; ok is false when the
// graph has no pairs or no positive world was found.
func twinPairChains(t *testing.T, r *rand.Rand) (g *fg.Graph, p *Pairs, a, b *Chain, x, y []int32, ra, rb *rand.Rand, ok bool) {
	g, ev := gen.SmallGraph(r, gen.SmallShape{Vars: 8, Factors: 20, ZeroOneIn: 5, Scale: 1.5, Evidence: true})
	p = NewPairs(g, ev)
	if p.Len() == 0 {
		return
	}
	x = make([]int32, g.NumVars())
	if err := Start(g, ev, x, r); err != nil {
		return
	}
	y = slices.Clone(x)
	var err error
	if a, err = NewChain(g, ev, x); err != nil {
		t.Fatal(err)
	}
	if b, err = NewChain(g, ev, y); err != nil {
		t.Fatal(err)
	}
	seed := r.Uint64()
	return g, p, a, b, x, y, rand.New(rand.NewPCG(seed, 1)), rand.New(rand.NewPCG(seed, 1)), true
}

// TestPairDrawPartners: pair moves read a small factor's table index from
// the partner arrays (pairOf, pairSt) instead of scanning its scope; on
// random graphs (factors of one to three variables of two or three
// states, zero entries, evidence) the draws and the Rao-Blackwellised
// terms are bit for bit those of the scan.
func TestPairDrawPartners(t *testing.T) {
	r := rand.New(rand.NewPCG(35, 36))
	moves := 0
	for k := range 300 {
		g, p, fast, slow, x, y, rf, rs, ok := twinPairChains(t, r)
		if !ok {
			continue
		}
		if fast.c.pairOf == nil {
			continue // only factors of three variables
		}
		slow.c.pairOf, slow.c.fast = nil, nil // scans, no fast path (it reads pairOf)
		cf := make([]float64, fast.Offsets()[g.NumVars()])
		cs := make([]float64, len(cf))
		for step := range 20 {
			fast.PairSweepAll(rf, p, cf)
			slow.PairSweepAll(rs, p, cs)
			moves += p.Len()
			if !slices.Equal(x, y) || !slices.Equal(cf, cs) {
				t.Fatalf("graph %d step %d: with partner arrays %v %v, scanning %v %v", k, step, x, cf, y, cs)
			}
		}
	}
	if moves == 0 {
		t.Fatal("no pair moves")
	}
	t.Logf("%d pair moves", moves)
}

// TestPairSweepMeanTerms: in a pair sweep, a variable in several pairs
// gets the mean of the terms its pair moves wrote (each checked against
// brute force by TestPairs), one in a single pair that pair's term; the
// draws are those of the pair moves made one by one.
func TestPairSweepMeanTerms(t *testing.T) {
	r := rand.New(rand.NewPCG(37, 38))
	several := 0
	for k := range 200 {
		g, p, sweep, one, x, y, rs, ro, ok := twinPairChains(t, r)
		if !ok {
			continue
		}
		cs := make([]float64, sweep.Offsets()[g.NumVars()])
		co := make([]float64, len(cs))
		for step := range 5 {
			sweep.PairSweep(rs, p, cs)
			sum := make([]float64, len(cs))
			n := make([]int, g.NumVars())
			for i := range p.U {
				u, v := p.U[i], p.V[i]
				if one.c.observed(u) || one.c.observed(v) {
					continue
				}
				one.pairDraw(ro, u, v, co)
				for _, w := range []int32{u, v} {
					n[w]++
					for j := one.off[w]; j < one.off[w+1]; j++ {
						sum[j] += co[j]
					}
				}
			}
			if !slices.Equal(x, y) {
				t.Fatalf("graph %d step %d: sweep drew %v, the moves one by one %v", k, step, x, y)
			}
			for w := range g.NumVars() {
				if n[w] == 0 {
					continue
				}
				if n[w] > 1 {
					several++
				}
				for j := one.off[w]; j < one.off[w+1]; j++ {
					if want := sum[j] / float64(n[w]); math.Abs(cs[j]-want) > 1e-12 {
						t.Fatalf("graph %d step %d variable %d (%d pairs): term %v, want the mean %v", k, step, w, n[w], cs[one.off[w]:one.off[w+1]], want)
					}
				}
			}
		}
	}
	if several == 0 {
		t.Fatal("no variable in several pairs")
	}
	t.Logf("%d terms of variables in several pairs", several)
}
