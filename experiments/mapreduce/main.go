// Command mapreduce measures the all-cores colour passing (lift.Parallel)
// against the single-worker one (lift.ColourPassing) on n×n grids, side by
// side in one process: every repetition runs the single worker and then
// Parallel with every --chunks value (MinChunk, the fewest dirty nodes a
// goroutine signs), in reverse order every other time, and the medians are printed as a Markdown table with
// the ratios single/all-cores. It checks that every colouring equals the
// single worker's. (The paper's Fig. 8 with the Beam pipeline is
// beam/experiments/fig8.)
package main

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/lifted-dev/lifted/internal/gen"
	"github.com/lifted-dev/lifted/lift"
)

func ints(s string) []int {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(f)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		out = append(out, n)
	}
	return out
}

func median(x []float64) float64 {
	s := slices.Clone(x)
	slices.Sort(s)
	return s[len(s)/2]
}

func main() {
	sizes := flag.String("sizes", "10,100,200,500,1000", "grid sides")
	chunks := flag.String("chunks", fmt.Sprint(lift.DefaultMinChunk), "MinChunk values of the all-cores runs")
	workers := flag.Int("workers", runtime.GOMAXPROCS(0), "all-cores workers")
	reps := flag.Int("reps", 3, "repetitions (median)")
	flag.Parse()
	cs := ints(*chunks)
	fmt.Printf("| grid | rounds | single s |")
	for _, c := range cs {
		fmt.Printf(" all-cores (chunk %d) s | single/all |", c)
	}
	fmt.Println()
	fmt.Println("|---|---|---|" + strings.Repeat("---|---|", len(cs)))
	ctx := context.Background()
	for _, n := range ints(*sizes) {
		g := gen.SquareGrid(rand.New(rand.NewPCG(1, 1)), n)
		times := make([][]float64, 1+len(cs))
		var ref *lift.Colouring
		for rep := range *reps {
			for j := range times {
				// Odd repetitions run the refiners in reverse order.
				k := j
				if rep%2 == 1 {
					k = len(times) - 1 - j
				}
				var rf lift.Refiner = lift.ColourPassing{}
				if k > 0 {
					rf = lift.Parallel{Workers: *workers, MinChunk: cs[k-1]}
				}
				runtime.GC()
				t0 := time.Now()
				col, err := rf.Refine(ctx, g, nil, lift.Options{})
				if err != nil {
					fmt.Fprintln(os.Stderr, err)
					os.Exit(1)
				}
				times[k] = append(times[k], time.Since(t0).Seconds())
				if ref == nil {
					ref = col
				} else if !reflect.DeepEqual(col, ref) {
					fmt.Fprintf(os.Stderr, "%d×%d: colouring of %#v differs from the single worker's\n", n, n, rf)
					os.Exit(1)
				}
			}
		}
		single := median(times[0])
		fmt.Printf("| %d×%d | %d | %.4g |", n, n, ref.Iterations, single)
		for _, t := range times[1:] {
			fmt.Printf(" %.4g | %.3f |", median(t), single/median(t))
		}
		fmt.Println()
	}
}
