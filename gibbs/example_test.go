package gibbs_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/gibbs"
)

// Two binary variables with a hard constraint "not both 0" and a pairwise
// weight: Start finds a world the constraint allows, and Sample's chain
// never leaves the allowed worlds. The exact P(x0 = 1) is (3+1)/(3+1+1) = 0.8
// (the worlds 01, 10, 11 have weights 1, 1, 3).
func Example() {
	b := fg.NewBuilder()
	b.AddVars(2, 2)
	b.AddFactor([]int32{0, 1}, []float64{0, 1, 1, 3})
	g := b.Build()

	rng := rand.New(rand.NewPCG(1, 2))
	x := make([]int32, 2)
	if err := gibbs.Start(g, nil, x, rng); err != nil {
		panic(err)
	}
	ones, n := 0, 200000
	for range n {
		if err := gibbs.Sample(g, nil, x, 1, rng); err != nil {
			panic(err)
		}
		if x[0] == 0 && x[1] == 0 {
			panic("left the allowed worlds")
		}
		ones += int(x[0])
	}
	p := float64(ones) / float64(n)
	fmt.Printf("P(x0 = 1) ≈ %.2f\n", p) // the standard error at 200,000 sweeps is far below 0.005
	// Output:
	// P(x0 = 1) ≈ 0.80
}
