package colourpass_test

import (
	"context"
	"fmt"

	"github.com/lifted-dev/lifted/beam/colourpass"
	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/lift"
)

// Colour passing on Beam's local Prism runner: a ring of six variables, one
// observed, split into two parts. The counted graph is the one
// lift.Compress builds: four clusternodes (the observed variable, its two
// neighbours, the two at distance two, the one opposite).
func Example() {
	b := fg.NewBuilder()
	b.AddVars(6, 2)
	for v := int32(0); v < 6; v++ {
		if _, err := b.AddFactor([]int32{v, (v + 1) % 6}, []float64{2, 1, 1, 2}); err != nil {
			panic(err)
		}
	}
	g := b.Build()
	ev := fg.NoEvidence(6)
	ev[0] = 1

	var st colourpass.Stats
	r := colourpass.Refiner{Parts: 2, Run: run, Stats: &st}
	c, stats, err := lift.CompressWith(context.Background(), r, g, ev, lift.Options{})
	if err != nil {
		panic(err)
	}
	fmt.Println("clusternodes:", c.NumNodes(), "sizes:", c.NodeSize)
	fmt.Println("rounds:", stats.Iterations, "parts:", st.Parts, "cut edges:", st.CutEdges, "jobs:", st.Jobs)
	// Output:
	// clusternodes: 4 sizes: [1 2 2 1]
	// rounds: 3 parts: 2 cut edges: 2 jobs: 1
}
