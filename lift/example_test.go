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
