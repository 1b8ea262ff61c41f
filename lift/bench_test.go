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

// colourBenchCase is friends-and-smokers with evidence on 3 people, or a
// square grid with one observed corner.
type colourBenchCase struct {
	name  string
	build func() (*fg.Graph, fg.Evidence)
}

// colourBenchCases: about 10^5, 10^6 and 10^7 ground factors (10^7 only when
// LIFTED_BENCH_LARGE is set: it needs several GB). Graphs are built only
// for the benchmarks that run.
func colourBenchCases() []colourBenchCase {
	sizes := []struct {
		f             string
		smokers, grid int
	}{{"1e5", 316, 183}, {"1e6", 1000, 577}}
	if os.Getenv("LIFTED_BENCH_LARGE") != "" {
		sizes = append(sizes, struct {
			f             string
			smokers, grid int
		}{"1e7", 3162, 1826})
	}
	var out []colourBenchCase
	for _, s := range sizes {
		out = append(out, colourBenchCase{"smokers/f=" + s.f, func() (*fg.Graph, fg.Evidence) {
			g := gen.Smokers(s.smokers, 1.5, 1.1)
			ev := fg.NoEvidence(g.NumVars())
			for i := 0; i < 3; i++ {
				ev[i] = int32(i % 2)
			}
			return g, ev
		}}, colourBenchCase{"grid/f=" + s.f, func() (*fg.Graph, fg.Evidence) {
			g := gen.SquareGrid(rand.New(rand.NewPCG(1, 1)), s.grid)
			ev := fg.NoEvidence(g.NumVars())
			ev[0] = 1
			return g, ev
		}})
	}
	return out
}

// BenchmarkColourPassingFactors reports ground nodes (variables and
// factors) per second of colour passing, wall and CPU time, on graphs of
// about 10^5, 10^6 (and 10^7) ground factors.
func BenchmarkColourPassingFactors(b *testing.B) {
	for _, c := range colourBenchCases() {
		b.Run(c.name, func(b *testing.B) {
			g, ev := c.build()
			var st lift.Stats
			cpu0 := cpuSeconds()
			for b.Loop() {
				var err error
				_, st, err = lift.Compress(context.Background(), g, ev, lift.Options{})
				if err != nil {
					b.Fatal(err)
				}
			}
			cpu := cpuSeconds() - cpu0
			nodes := float64(g.NumVars()+g.NumFactors()) * float64(b.N)
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
