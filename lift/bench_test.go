package lift_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"syscall"
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

// colourBenchGraphs: friends-and-smokers with evidence on 3 people and square
// grids with one observed corner, at about 10^5, 10^6 and 10^7 ground
// factors (10^7 only when LIFTED_BENCH_LARGE is set: it needs several GB).
func colourBenchGraphs(b *testing.B) []struct {
	name string
	g    *fg.Graph
	ev   fg.Evidence
} {
	type gc = struct {
		name string
		g    *fg.Graph
		ev   fg.Evidence
	}
	var out []gc
	sizes := []struct{ smokers, grid int }{{316, 183}, {1000, 577}}
	if os.Getenv("LIFTED_BENCH_LARGE") != "" {
		sizes = append(sizes, struct{ smokers, grid int }{3162, 1826})
	}
	for _, s := range sizes {
		g := gen.Smokers(s.smokers, 1.5, 1.1)
		ev := fg.NoEvidence(g.NumVars())
		for i := 0; i < 3; i++ {
			ev[i] = int32(i % 2)
		}
		out = append(out, gc{fmt.Sprintf("smokers/f=%d", g.NumFactors()), g, ev})
		gg := gen.SquareGrid(rand.New(rand.NewPCG(1, 1)), s.grid)
		ev = fg.NoEvidence(gg.NumVars())
		ev[0] = 1
		out = append(out, gc{fmt.Sprintf("grid/f=%d", gg.NumFactors()), gg, ev})
	}
	return out
}

// BenchmarkColourPassingFactors reports ground factors per second of colour
// passing (the 10^5, 10^6, 10^7 sizes).
func BenchmarkColourPassingFactors(b *testing.B) {
	for _, c := range colourBenchGraphs(b) {
		b.Run(c.name, func(b *testing.B) {
			var st lift.Stats
			cpu0 := cpuSeconds()
			for b.Loop() {
				var err error
				_, st, err = lift.Compress(context.Background(), c.g, c.ev, lift.Options{})
				if err != nil {
					b.Fatal(err)
				}
			}
			cpu := cpuSeconds() - cpu0
			nodes := float64(c.g.NumVars()+c.g.NumFactors()) * float64(b.N)
			b.ReportMetric(float64(st.Iterations), "rounds")
			b.ReportMetric(nodes/b.Elapsed().Seconds(), "nodes/s")
			// CPU time of the process (all threads): on a shared machine
			// it depends far less on the load than wall time does.
			b.ReportMetric(nodes/cpu, "nodes/cpu-s")
		})
	}
}

// cpuSeconds returns the user and system CPU time of the process.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}
