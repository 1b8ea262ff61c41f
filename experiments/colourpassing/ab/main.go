// Command ab measures what a second core gives colour passing on one n×n
// grid (gen.SquareGrid, no evidence): it runs lift.ColourPassing and
// lift.Parallel with 2 workers and the given MinChunk (whole steps on both
// workers from 2·MinChunk sources) alternately in one process, -reps
// times, the order reversed every other repetition, and prints the
// medians, the best of each, and the median, least and greatest of the
// per-repetition ratios. Built at two commits and run alternately, it
// compares two versions of the parallel code (experiments/colourpassing/
// PARALLEL.md, session 10).
package main

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"time"

	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/internal/gen"
	"github.com/lifted-dev/lifted/lift"
)

func main() {
	n := flag.Int("n", 1000, "grid side")
	mc := flag.Int("minchunk", 1024, "lift.Parallel's MinChunk (0: the default, whole steps only on graphs of ParallelStepNodes nodes)")
	reps := flag.Int("reps", 9, "repetitions")
	flag.Parse()
	g := gen.SquareGrid(rand.New(rand.NewPCG(1, 1)), *n)
	ev := fg.NoEvidence(g.NumVars())
	tm := func(rf lift.Refiner) float64 {
		runtime.GC()
		t := time.Now()
		if _, err := rf.Refine(context.Background(), g, ev, lift.Options{}); err != nil {
			panic(err)
		}
		return time.Since(t).Seconds()
	}
	var r, t1s, t2s []float64
	for i := 0; i < *reps; i++ {
		var t1, t2 float64
		if i%2 == 0 {
			t1 = tm(lift.ColourPassing{})
			t2 = tm(lift.Parallel{Workers: 2, MinChunk: *mc})
		} else {
			t2 = tm(lift.Parallel{Workers: 2, MinChunk: *mc})
			t1 = tm(lift.ColourPassing{})
		}
		r = append(r, t1/t2)
		t1s = append(t1s, t1)
		t2s = append(t2s, t2)
	}
	med := func(x []float64) float64 { y := slices.Clone(x); slices.Sort(y); return y[len(y)/2] }
	fmt.Printf("best-of: 1w %.3f 2w %.3f ratio %.3f; ", slices.Min(t1s), slices.Min(t2s), slices.Min(t1s)/slices.Min(t2s))
	fmt.Printf("n=%d 1w median %.3f s, 2w median %.3f s, per-rep ratios median %.3f (min %.3f max %.3f)\n", *n, med(t1s), med(t2s), med(r), slices.Min(r), slices.Max(r))
}
