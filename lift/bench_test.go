package lift_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/internal/gen"
	"github.com/lifted-dev/lifted/lift"
)

// BenchmarkColourPassingGrid: square grids with identical potentials and one
// evidence node in a corner (the sizes of the paper's Fig. 8).
func BenchmarkColourPassingGrid(b *testing.B) {
	for _, n := range []int{5, 10, 25, 50, 100, 250, 500} {
		g := gen.SquareGrid(rand.New(rand.NewPCG(1, 1)), n)
		ev := fg.NoEvidence(n * n)
		ev[0] = 1
		b.Run(fmt.Sprintf("%dx%d", n, n), func(b *testing.B) {
			var st lift.Stats
			for b.Loop() {
				var err error
				_, st, err = lift.Compress(context.Background(), g, ev, lift.Options{})
				if err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(st.Iterations), "rounds")
		})
	}
}
