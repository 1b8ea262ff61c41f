// Command prof profiles colour passing on an n×n grid without evidence.
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
	flag.Parse()
	g := gen.SquareGrid(rand.New(rand.NewPCG(1, 1)), *n)
	ev := fg.NoEvidence(g.NumVars())
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
