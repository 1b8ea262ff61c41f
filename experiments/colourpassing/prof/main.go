// Command prof profiles colour passing on an n×n grid without evidence or,
// with -smokers, on friends-and-smokers of n people with evidence on 3.
package main

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"runtime/pprof"
	"time"

	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/internal/gen"
	"github.com/lifted-dev/lifted/lift"
)

func main() {
	n := flag.Int("n", 1000, "grid side")
	w := flag.Int("workers", 1, "workers")
	reps := flag.Int("reps", 1, "repetitions")
	out := flag.String("cpuprofile", "", "profile file")
	smokers := flag.Bool("smokers", false, "friends-and-smokers of -n people, evidence on 3, instead of a grid")
	flag.Parse()
	var g *fg.Graph
	if *smokers {
		g = gen.Smokers(*n, 1.5, 1.1)
	} else {
		g = gen.SquareGrid(rand.New(rand.NewPCG(1, 1)), *n)
	}
	ev := fg.NoEvidence(g.NumVars())
	if *smokers {
		for i := range 3 {
			ev[i] = int32(i % 2)
		}
	}
	if *out != "" {
		f, _ := os.Create(*out)
		pprof.StartCPUProfile(f)
		defer pprof.StopCPUProfile()
	}
	for range *reps {
		runtime.GC()
		t := time.Now()
		var rf lift.Refiner = lift.ColourPassing{}
		if *w > 1 {
			rf = lift.Parallel{Workers: *w}
		}
		var t1 float64
		c, err := rf.Refine(context.Background(), g, ev, lift.Options{Progress: func(r, v, f int) {
			if r == 1 {
				t1 = time.Since(t).Seconds()
			}
		}})
		if err != nil {
			panic(err)
		}
		fmt.Println(*n, *w, c.Iterations, c.NumVarColor, c.NumFacColor, "round1", t1, "total", time.Since(t).Seconds())
	}
}
