package lift_test

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/lift"
)

// symmetricModel is a random pairwise model over a few variable kinds,
// with repeated tables: what colour passing compresses.
func symmetricModel(r *rand.Rand, n int) *fg.Graph {
	b := fg.NewBuilder()
	b.AddVars(n, 2)
	for v := 0; v < n; v++ {
		if v%3 == 0 {
			if _, err := b.AddFactor([]int32{int32(v)}, []float64{1, 2}); err != nil {
				panic(err)
			}
		}
	}
	for v := 1; v < n; v++ {
		w := r.IntN(v)
		if _, err := b.AddFactor([]int32{int32(w), int32(v)}, []float64{3, 1, 1, 3}); err != nil {
			panic(err)
		}
	}
	return b.Build()
}

// Partitioned with the classes of the stable colouring is exact lifting:
// the same clusternodes and clusterfactors as colour passing; with every
// variable in its own class it is the ground graph; and one class is
// split by evidence and unary factors only.
func TestPartitioned(t *testing.T) {
	ctx := context.Background()
	for seed := range 10 {
		r := rand.New(rand.NewPCG(uint64(seed), 1))
		g := symmetricModel(r, 40+r.IntN(60))
		ev := fg.NoEvidence(g.NumVars())
		ev[r.IntN(g.NumVars())] = 1
		col, err := lift.ColourPassing{}.Refine(ctx, g, ev, lift.Options{})
		if err != nil {
			t.Fatal(err)
		}
		exact, _, err := lift.Compress(ctx, g, ev, lift.Options{})
		if err != nil {
			t.Fatal(err)
		}
		p, _, err := lift.CompressWith(ctx, lift.Partitioned{Class: col.VarColor}, g, ev, lift.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if p.NumNodes() != exact.NumNodes() || p.NumFactors() != exact.NumFactors() {
			t.Errorf("seed %d: partitioned by the stable colouring: %d nodes, %d factors; colour passing %d, %d", seed, p.NumNodes(), p.NumFactors(), exact.NumNodes(), exact.NumFactors())
		}
		own := make([]int32, g.NumVars())
		for v := range own {
			own[v] = int32(v)
		}
		q, _, err := lift.CompressWith(ctx, lift.Partitioned{Class: own}, g, ev, lift.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if q.NumNodes() != g.NumVars() {
			t.Errorf("seed %d: every variable its own class: %d nodes of %d", seed, q.NumNodes(), g.NumVars())
		}
		one := make([]int32, g.NumVars())
		c, _, err := lift.CompressWith(ctx, lift.Partitioned{Class: one}, g, ev, lift.Options{})
		if err != nil {
			t.Fatal(err)
		}
		kinds := map[[2]int]bool{} // (evidence, has a unary factor)
		for v := range g.NumVars() {
			kinds[[2]int{int(ev[v]), min(1, v%3+1) - min(1, v%3)}] = true
		}
		if c.NumNodes() != len(kinds) || !c.Approximate {
			t.Errorf("seed %d: one class: %d nodes (want %d: by evidence and unary factor), approximate %v", seed, c.NumNodes(), len(kinds), c.Approximate)
		}
	}
}
