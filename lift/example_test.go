package lift_test

import (
	"context"
	"fmt"

	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/lift"
)

// Compress a ring of four binary variables joined by identical pairwise
// factors: all variables look alike, and so do all factors, so colour
// passing finds one clusternode and one clusterfactor, with one lifted edge
// along which every variable sees two ground edges. Evidence on one
// variable splits the ring by distance from it: the observed variable, its
// two neighbours, and the variable opposite.
func Example() {
	b := fg.NewBuilder()
	b.AddVars(4, 2)
	for v := int32(0); v < 4; v++ {
		if _, err := b.AddFactor([]int32{v, (v + 1) % 4}, []float64{2, 1, 1, 2}); err != nil {
			panic(err)
		}
	}
	g := b.Build()

	ctx := context.Background()
	show := func(what string, c *lift.Compressed) {
		fmt.Printf("%-9s clusternodes %d (sizes %v), clusterfactors %d (sizes %v), edges %d (counts %v)\n",
			what, c.NumNodes(), c.NodeSize, c.NumFactors(), c.FactorSize, c.NumEdges(), c.EdgeCount)
	}
	gr, err := lift.Ground(g, nil)
	if err != nil {
		panic(err)
	}
	show("ground:", gr)
	c, _, err := lift.Compress(ctx, g, nil, lift.Options{})
	if err != nil {
		panic(err)
	}
	show("lifted:", c)
	// The table cannot tell its two positions apart, so they form one slot.
	fmt.Println("positions in the slot:", c.EdgeMult[0])

	ev := fg.NoEvidence(g.NumVars())
	ev[0] = 1
	c, _, err = lift.Compress(ctx, g, ev, lift.Options{})
	if err != nil {
		panic(err)
	}
	show("evidence:", c)
	fmt.Println("clusternode of each variable:", c.NodeOf, "observed:", c.NodeEvidence)
	// Output:
	// ground:   clusternodes 4 (sizes [1 1 1 1]), clusterfactors 4 (sizes [1 1 1 1]), edges 8 (counts [1 1 1 1 1 1 1 1])
	// lifted:   clusternodes 1 (sizes [4]), clusterfactors 1 (sizes [4]), edges 1 (counts [2])
	// positions in the slot: 2
	// evidence: clusternodes 3 (sizes [1 2 1]), clusterfactors 2 (sizes [2 2]), edges 4 (counts [2 1 1 2])
	// clusternode of each variable: [0 1 2 1] observed: [1 -1 -1]
}

// Keep the colouring of a ring of six variables up to date as evidence
// arrives: each Update recolours from the previous colouring and gives the
// counted graph colour passing from scratch would give. Observing a second
// variable at the value the first holds can merge classes again (the ring
// is symmetric about both), which the update's merging stage finds.
func ExampleRecolourer() {
	b := fg.NewBuilder()
	b.AddVars(6, 2)
	for v := int32(0); v < 6; v++ {
		if _, err := b.AddFactor([]int32{v, (v + 1) % 6}, []float64{2, 1, 1, 2}); err != nil {
			panic(err)
		}
	}
	g := b.Build()
	ctx := context.Background()
	ev := fg.NoEvidence(6)
	rc, err := lift.NewRecolourer(ctx, g, ev, lift.Options{})
	if err != nil {
		panic(err)
	}
	for _, obs := range []struct{ v, val int32 }{{0, 1}, {3, 1}, {3, 0}} {
		ev[obs.v] = obs.val
		st, err := rc.Update(ctx, ev, []int32{obs.v})
		if err != nil {
			panic(err)
		}
		c, err := rc.Compress()
		if err != nil {
			panic(err)
		}
		fmt.Printf("x%d = %d: clusternodes %d, sizes %v (merging stage: %v)\n", obs.v, obs.val, c.NumNodes(), c.NodeSize, st.Merged)
	}
	// Output:
	// x0 = 1: clusternodes 4, sizes [1 2 2 1] (merging stage: false)
	// x3 = 1: clusternodes 2, sizes [2 4] (merging stage: true)
	// x3 = 0: clusternodes 4, sizes [1 2 2 1] (merging stage: false)
}

// Follow a graph that loses nodes, as LBPCount's residual graph does after
// a clamp: a path of three variables and a path of two, with the same
// factor on every edge. Colour passing tells the ends of the long path
// from those of the short one. Deleting the third variable (and its
// factor) makes the paths alike; Shrink without merging keeps the old
// distinction (a stable colouring, but finer than colour passing's), with
// merging it finds colour passing's colouring of the new graph.
func ExampleRecolourer_Shrink() {
	path := func(lengths ...int) *fg.Graph {
		b := fg.NewBuilder()
		for _, n := range lengths {
			first := b.AddVars(n, 2)
			for v := first; v+1 < first+int32(n); v++ {
				if _, err := b.AddFactor([]int32{v, v + 1}, []float64{2, 1, 1, 2}); err != nil {
					panic(err)
				}
			}
		}
		return b.Build()
	}
	g, g2 := path(3, 2), path(2, 2)
	// Variables 0, 1, 3, 4 and factors (0,1), (3,4) of g are those of g2.
	varFrom, factorFrom := []int32{0, 1, 3, 4}, []int32{0, 2}
	ctx := context.Background()
	for _, merge := range []bool{false, true} {
		rc, err := lift.NewRecolourer(ctx, g, nil, lift.Options{})
		if err != nil {
			panic(err)
		}
		before, err := rc.Compress()
		if err != nil {
			panic(err)
		}
		if _, err := rc.Shrink(ctx, g2, nil, lift.Options{}, varFrom, factorFrom, merge); err != nil {
			panic(err)
		}
		after, err := rc.Compress()
		if err != nil {
			panic(err)
		}
		fmt.Printf("merge %v: clusternodes %v -> %v\n", merge, before.NodeSize, after.NodeSize)
	}
	// Output:
	// merge false: clusternodes [2 1 2] -> [1 1 2]
	// merge true: clusternodes [2 1 2] -> [4]
}
