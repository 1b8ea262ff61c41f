package infer_test

import (
	"context"
	"fmt"

	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/infer"
	_ "github.com/lifted-dev/lifted/infer/bp" // registers "lbp" and "bp"
)

// A ring of six binary variables with one shared attractive table and a
// prior on each: colour passing puts all six in one clusternode, and lifted
// BP answers by running on the compressed graph. (The printed numbers are
// the homogeneous fixed point m ∝ Σ_x ψ(x,y)φ(x)m(x) and its Bethe log Z,
// computed by hand.)
func Example() {
	b := fg.NewBuilder()
	b.AddVars(6, 2)
	for v := int32(0); v < 6; v++ {
		b.AddFactor([]int32{v}, []float64{1, 2})
		b.AddFactor([]int32{v, (v + 1) % 6}, []float64{3, 1, 1, 3})
	}
	g := b.Build()

	alg, m, err := infer.New("lbp", infer.Properties{"schedule": "flood", "tol": "1e-10"})
	if err != nil {
		panic(err)
	}
	ans, err := infer.Run(context.Background(), alg, g, nil, infer.Options{Lifted: m.Lifted})
	if err != nil {
		panic(err)
	}
	fmt.Printf("clusternodes %d of %d variables, clusterfactors %d of %d factors\n",
		ans.Stats.Clusternodes, ans.Stats.Variables, ans.Stats.Clusterfactors, ans.Stats.Factors)
	fmt.Printf("P(x3 = 1) = %.4f, converged %v, log Z (%v) = %.4f\n", ans.Marginal(3)[1], ans.Converged, ans.LogZKind, ans.LogZ)

	// The same question as a MAP query.
	mp, err := infer.Run(context.Background(), alg, g, nil, infer.Options{Lifted: true, Query: infer.Query{Task: infer.MAP}})
	if err != nil {
		panic(err)
	}
	fmt.Println("MAP:", mp.Assignment)
	// Output:
	// clusternodes 1 of 6 variables, clusterfactors 2 of 12 factors
	// P(x3 = 1) = 0.8638, converged true, log Z (estimate) = 11.2874
	// MAP: [1 1 1 1 1 1]
}

// Methods are registered by name with their properties: this is how the
// command line's --method finds them.
func ExampleMethods() {
	for _, m := range infer.Methods() {
		fmt.Println(m.Name, m.Lifted, len(m.Props))
	}
	// Output:
	// lbp true 4
	// bp false 4
}
