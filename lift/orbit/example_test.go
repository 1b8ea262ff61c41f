package orbit_test

import (
	"context"
	"fmt"

	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/lift/orbit"
)

// A ring of four binary variables with one shared pairwise table and a unit
// factor observed away on variable 0: the symmetries are the reflection of
// the ring through variable 0 (1 ↔ 3).
func Example() {
	b := fg.NewBuilder()
	b.AddVars(4, 2)
	pair, _ := b.Table([]int32{2, 2}, []float64{2, 1, 1, 2})
	for i := range int32(4) {
		b.AddFactorTable([]int32{i, (i + 1) % 4}, pair)
	}
	g := b.Build()
	ev := fg.Evidence{1, -1, -1, -1}

	res, err := orbit.FactorGraph(context.Background(), g, ev, orbit.Options{})
	if err != nil {
		panic(err)
	}
	fmt.Println("variable orbits:", res.VarOrbit, "group order:", res.Stats.GroupSize)
	fmt.Println("factor orbits:", res.FactorOrbit)

	// Fixing variable 1 leaves only the identity.
	st, _ := orbit.Stabiliser(context.Background(), g, ev, []int32{1}, orbit.Options{})
	fmt.Println("fixing variable 1:", st.VarOrbit)
	// Output:
	// variable orbits: [0 1 2 1] group order: 2
	// factor orbits: [0 1 1 0]
	// fixing variable 1: [0 1 2 3]
}
