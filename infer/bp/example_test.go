package bp_test

import (
	"context"
	"fmt"

	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/infer/bp"
	"github.com/lifted-dev/lifted/lift"
)

// BP on a star (a tree, so BP is exact), run on the trivial compression
// (ground BP) and on the colour-passing compression (lifted BP): the same
// engine, the same answer, which is the enumeration's: P(x2=1) = 0.5,
// Z = 5^3 + 3·5^3 = 500.
func Example() {
	b := fg.NewBuilder()
	b.AddVars(4, 2)
	b.AddFactor([]int32{0}, []float64{1, 3})
	for leaf := int32(1); leaf <= 3; leaf++ {
		b.AddFactor([]int32{0, leaf}, []float64{4, 1, 2, 3})
	}
	g := b.Build()

	ground, err := lift.Ground(g, nil)
	if err != nil {
		panic(err)
	}
	lifted, _, err := lift.Compress(context.Background(), g, nil, lift.Options{})
	if err != nil {
		panic(err)
	}
	for _, c := range []*lift.Compressed{ground, lifted} {
		r, err := bp.Run(context.Background(), c, bp.DefaultOptions())
		if err != nil {
			panic(err)
		}
		fmt.Printf("%d clusternodes: P(x2=1) = %.4f, log Z = %.4f, converged %v\n", c.NumNodes(), r.Marginal(2)[1], r.LogZ, r.Converged)
	}
	// Output:
	// 4 clusternodes: P(x2=1) = 0.5000, log Z = 6.2146, converged true
	// 2 clusternodes: P(x2=1) = 0.5000, log Z = 6.2146, converged true
}
