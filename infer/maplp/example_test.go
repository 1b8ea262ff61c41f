package maplp_test

import (
	"context"
	"fmt"

	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/infer/maplp"
)

// A frustrated triangle: every edge prefers its two variables to differ,
// which at most two edges can have. LOCAL gives all three (a bound of 3),
// the cycle inequality of the triangle brings the bound down to the MAP
// score 2.
func Example() {
	b := fg.NewBuilder()
	b.AddVars(3, 2)
	differ := []float64{1, 2.718281828459045, 2.718281828459045, 1} // e when the ends differ
	for _, e := range [][]int32{{0, 1}, {1, 2}, {0, 2}} {
		b.AddFactor(e, differ)
	}
	g := b.Build()
	for _, r := range []maplp.Relaxation{maplp.Local, maplp.Cycle} {
		res, err := maplp.Solve(context.Background(), g, nil, maplp.Config{Relaxation: r})
		if err != nil {
			panic(err)
		}
		fmt.Printf("%s: bound %.4f, world %v scores %.4f, %d cuts\n", r, res.Bound, res.X, res.Objective, res.Cuts)
	}
	// Output:
	// local: bound 3.0000, world [1 0 0] scores 2.0000, 0 cuts
	// cycle: bound 2.0000, world [1 1 0] scores 2.0000, 1 cuts
}
