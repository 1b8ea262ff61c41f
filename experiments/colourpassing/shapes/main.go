// Command shapes measures lift.Parallel against lift.ColourPassing (one
// worker) on graphs of other shapes than scaling's grids: random 3-SAT
// (every node changes class in the first rounds, neighbours anywhere in
// memory), disjoint copies of a random piece with evidence on some, a ring,
// and friends-and-smokers without evidence. Runs alternate (in reverse
// order every other repetition); it prints the medians of -reps wall
// times and of the per-repetition ratios, and checks every colouring
// against the one-worker run.
package main

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"reflect"
	"runtime"
	"runtime/pprof"
	"slices"
	"strings"
	"time"

	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/internal/benchstat"
	"github.com/lifted-dev/lifted/internal/gen"
	"github.com/lifted-dev/lifted/lift"
)

// sat3 is a random 3-SAT formula of n variables and m clauses as 0/1
// factors.
func sat3(r *rand.Rand, n, m int) *fg.Graph {
	b := fg.NewBuilder()
	b.AddVars(n, 2)
	var tables [8]int32
	for z := range tables {
		t := make([]float64, 8)
		for i := range t {
			t[i] = 1
		}
		t[z] = 0
		tables[z], _ = b.Table([]int32{2, 2, 2}, t)
	}
	for range m {
		a, c, d := int32(r.IntN(n)), int32(r.IntN(n)), int32(r.IntN(n))
		for c == a {
			c = int32(r.IntN(n))
		}
		for d == a || d == c {
			d = int32(r.IntN(n))
		}
		if _, err := b.AddFactorTable([]int32{a, c, d}, tables[r.IntN(8)]); err != nil {
			panic(err)
		}
	}
	return b.Build()
}

// ring is a ring of n binary variables, one shared pairwise table, a
// shared unary table on each, and one observed variable.
func ring(n int) (*fg.Graph, fg.Evidence) {
	b := fg.NewBuilder()
	b.AddVars(n, 2)
	pair, _ := b.Table([]int32{2, 2}, []float64{1, 0.5, 0.7, 1.2})
	un, _ := b.Table([]int32{2}, []float64{1, 0.8})
	for v := range n {
		b.AddFactorTable([]int32{int32(v)}, un)
		b.AddFactorTable([]int32{int32(v), int32((v + 1) % n)}, pair)
	}
	ev := fg.NoEvidence(n)
	ev[0] = 1
	return b.Build(), ev
}

func main() {
	which := flag.String("graphs", "sat3,copies,ring,smokers0", "graphs to run, comma-separated")
	scale := flag.Int("scale", 1000000, "variables (3-SAT: and 4.2× as many clauses; copies: about this many variables; ring: this many; smokers0: people² ≈ this)")
	workers := flag.Int("workers", 2, "workers of the parallel runs")
	reps := flag.Int("reps", 5, "repetitions")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the runs here")
	flag.Parse()
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		pprof.StartCPUProfile(f)
		defer pprof.StopCPUProfile()
	}
	r := rand.New(rand.NewPCG(7, 8))
	fmt.Printf("GOMAXPROCS %d, workers %d, %d repetitions\n\n", runtime.GOMAXPROCS(0), *workers, *reps)
	fmt.Println("| graph | N (vars+factors) | rounds | 1 worker wall s | " + fmt.Sprint(*workers) + " workers wall s | ratio of medians | median of per-rep ratios |")
	fmt.Println("|---|---|---|---|---|---|---|")
	for _, name := range strings.Split(*which, ",") {
		var g *fg.Graph
		var ev fg.Evidence
		switch name {
		case "sat3":
			g = sat3(r, *scale, *scale*42/10)
		case "copies":
			piece := gen.Random(r, 40, 60, 3, 0)
			g, ev = gen.Copies(r, piece, *scale/40, *scale/400)
		case "ring":
			g, ev = ring(*scale)
		case "smokers0":
			n := 1
			for n*n < *scale {
				n++
			}
			g = gen.Smokers(n, 1.5, 1.1)
		default:
			fmt.Fprintln(os.Stderr, "unknown graph", name)
			os.Exit(2)
		}
		var w1, w2, ratio []float64
		var ref *lift.Colouring
		for rep := range *reps {
			order := []int{1, *workers}
			if rep%2 == 1 {
				slices.Reverse(order)
			}
			var t [2]float64
			for _, w := range order {
				var rf lift.Refiner = lift.ColourPassing{}
				if w > 1 {
					rf = lift.Parallel{Workers: w}
				}
				runtime.GC()
				t0 := time.Now()
				col, err := rf.Refine(context.Background(), g, ev, lift.Options{})
				el := time.Since(t0).Seconds()
				if err != nil {
					fmt.Fprintln(os.Stderr, err)
					os.Exit(1)
				}
				if w == 1 && t[0] == 0 {
					t[0] = el
					if ref == nil {
						ref = col
					}
				} else {
					t[1] = el
				}
				if ref != nil && !reflect.DeepEqual(col, ref) {
					fmt.Fprintln(os.Stderr, name, ": colouring differs")
					os.Exit(1)
				}
			}
			w1, w2, ratio = append(w1, t[0]), append(w2, t[1]), append(ratio, t[0]/t[1])
		}
		if *workers < 2 { // profiling one worker: no ratios
			fmt.Printf("| %s | %d | %d | %.3f | | | |\n", name, g.NumVars()+g.NumFactors(), ref.Iterations, benchstat.Median(w1))
			continue
		}
		fmt.Printf("| %s | %d | %d | %.3f | %.3f | %.2f | %.2f |\n", name, g.NumVars()+g.NumFactors(), ref.Iterations,
			benchstat.Median(w1), benchstat.Median(w2), benchstat.Median(w1)/benchstat.Median(w2), benchstat.Median(ratio))
	}
}
