package lift_test

import (
	"context"
	"fmt"
	"reflect"

	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/lift"
)

// Colour passing on three workers equals the single-worker colouring,
// class id for class id, on a ring of six variables with one observed; the
// partition into three parts by variable ranges (the cut is the edges
// between them) is how the distributed runner (module beam/) splits it.
func ExampleParallel() {
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

	p := lift.NewPartition(g, 3)
	fmt.Println("parts of the variables:", p.VarPart, "cut edges:", p.CutEdges)

	ctx := context.Background()
	one, _ := lift.ColourPassing{}.Refine(ctx, g, ev, lift.Options{})
	par, _ := lift.Parallel{Workers: 3}.Refine(ctx, g, ev, lift.Options{})
	fmt.Println("variable classes:", par.VarColor, "rounds:", par.Iterations)
	fmt.Println("same as one worker:", reflect.DeepEqual(one, par))
	// Output:
	// parts of the variables: [0 0 1 1 2 2] cut edges: 3
	// variable classes: [0 1 2 3 2 1] rounds: 3
	// same as one worker: true
}
