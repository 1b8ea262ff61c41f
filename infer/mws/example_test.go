package mws_test

import (
	"context"
	"fmt"

	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/infer"
	_ "github.com/lifted-dev/lifted/infer/mws"
)

// MAP of a small graph through the infer seam: three binary variables that
// prefer to agree, a hard constraint that x0 and x2 differ, and a unit
// factors that prefer x1 = 1 and x0 = 1: the MAP is x = (1, 1, 0).
func Example() {
	b := fg.NewBuilder()
	b.AddVars(3, 2)
	b.AddFactor([]int32{0, 1}, []float64{2, 1, 1, 2})
	b.AddFactor([]int32{1, 2}, []float64{2, 1, 1, 2})
	b.AddFactor([]int32{0, 2}, []float64{0, 1, 1, 0}) // hard: x0 != x2
	b.AddFactor([]int32{1}, []float64{1, 3})
	b.AddFactor([]int32{0}, []float64{1, 1.5})
	g := b.Build()

	alg, _, err := infer.New("maxwalksat", infer.Properties{"tries": "3"})
	if err != nil {
		panic(err)
	}
	ans, err := infer.Run(context.Background(), alg, g, nil, infer.Options{Query: infer.Query{Task: infer.MAP, Seed: 1}})
	if err != nil {
		panic(err)
	}
	fmt.Println("MAP:", ans.Assignment)
	fmt.Printf("objective %.4f = log 2 + log 3 + log 1.5\n", *ans.Stats.Objective)
	// Output:
	// MAP: [1 1 0]
	// objective 2.1972 = log 2 + log 3 + log 1.5
}
