// Command fig8 measures the paper's Fig. 8 on this machine: colour passing
// on n×n grids by the single-worker refinement (lift.ColourPassing), by the
// all-cores refinement (lift.Parallel; the two interleaved, run by run) and
// by the Beam pipeline on Prism (beam/colourpass), side by side in one run,
// medians of --reps runs. It
// checks that all three give the same colouring and prints a Markdown
// table; with --plot it draws the times with gonum/plot.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/runners/prism"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/lifted-dev/lifted/beam/colourpass"
	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/internal/gen"
	"github.com/lifted-dev/lifted/lift"
)

// grid returns an n×n grid of binary variables, one shared pairwise table
// on the edges and one shared unary table on every variable, no evidence.
func grid(n int) *fg.Graph {
	return gen.SquareGridTables(n, []float64{2, 1, 1, 2}, []float64{1, 1.5})
}

func median(x []float64) float64 {
	s := slices.Clone(x)
	slices.Sort(s)
	return s[len(s)/2]
}

type row struct {
	n, rounds          int
	single, par, beam  float64 // seconds (0: not run)
	vars, edges, cut   int64
	classesV, classesF int
}

func main() {
	sizes := flag.String("sizes", "5,10,20,50,100,200,500,1000", "grid sides")
	reps := flag.Int("reps", 3, "runs per method and size (median)")
	workers := flag.Int("workers", runtime.GOMAXPROCS(0), "all-cores workers and Beam parts")
	maxPar := flag.Float64("max-seconds", 60, "skip a method at larger sizes once one run took longer than this")
	beamMax := flag.Int("beam-max", 50, "largest grid side run on Beam")
	plotFile := flag.String("plot", "", "PNG of the times")
	flag.Parse()
	beam.Init()
	ctx := context.Background()
	run := func(ctx context.Context, p *beam.Pipeline) error { _, err := beam.Run(ctx, "prism", p); return err }
	var rows []row
	skipPar, skipSingle := false, false
	for _, s := range strings.Split(*sizes, ",") {
		n, err := strconv.Atoi(s)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		g := grid(n)
		r := row{n: n, vars: int64(g.NumVars()), edges: int64(g.NumEdges()), cut: lift.NewPartition(g, *workers).CutEdges}
		var ref *lift.Colouring
		// timeAll runs every refiner reps times, interleaved (in reverse
		// order every other repetition), and returns the median seconds
		// and the last colouring of each.
		timeAll := func(rfs ...lift.Refiner) ([]float64, []*lift.Colouring) {
			ts := make([][]float64, len(rfs))
			cols := make([]*lift.Colouring, len(rfs))
			for rep := range *reps {
				for j := range rfs {
					k := j
					if rep%2 == 1 {
						k = len(rfs) - 1 - j
					}
					runtime.GC()
					t0 := time.Now()
					c, err := rfs[k].Refine(ctx, g, nil, lift.Options{})
					if err != nil {
						fmt.Fprintln(os.Stderr, err)
						os.Exit(1)
					}
					ts[k] = append(ts[k], time.Since(t0).Seconds())
					cols[k] = c
				}
			}
			med := make([]float64, len(rfs))
			for k := range ts {
				med[k] = median(ts[k])
			}
			return med, cols
		}
		time3 := func(rf lift.Refiner) (float64, *lift.Colouring) {
			t, c := timeAll(rf)
			return t[0], c[0]
		}
		// The single worker and all cores, side by side.
		var rfs []lift.Refiner
		if !skipSingle {
			rfs = append(rfs, lift.ColourPassing{})
		}
		if !skipPar {
			rfs = append(rfs, lift.Parallel{Workers: *workers})
		}
		if len(rfs) > 0 {
			ts, cols := timeAll(rfs...)
			if !skipSingle {
				r.single, ref = ts[0], cols[0]
				skipSingle = r.single > *maxPar
				r.rounds, r.classesV, r.classesF = ref.Iterations, ref.NumVarColor, ref.NumFacColor
				ts, cols = ts[1:], cols[1:]
			}
			if !skipPar {
				r.par = ts[0]
				skipPar = r.par > *maxPar
				if ref != nil && !reflect.DeepEqual(cols[0], ref) {
					fmt.Fprintf(os.Stderr, "%d×%d: all-cores colouring differs from single-worker\n", n, n)
					os.Exit(1)
				}
			}
		}
		if n <= *beamMax {
			var col *lift.Colouring
			r.beam, col = time3(colourpass.Refiner{Parts: *workers, RoundsPerJob: 16, Run: run})
			if ref != nil && !reflect.DeepEqual(col, ref) {
				fmt.Fprintf(os.Stderr, "%d×%d: Beam colouring differs from single-worker\n", n, n)
				os.Exit(1)
			}
		}
		fmt.Fprintf(os.Stderr, "%d×%d: single %.4g s, all-cores %.4g s, beam %.4g s (%d rounds)\n", n, n, r.single, r.par, r.beam, r.rounds)
		rows = append(rows, r)
	}
	fmt.Printf("| grid | variables | edges | cut (%d parts) | rounds | classes v/f | single s | all-cores s | Beam/Prism s | single/all-cores | single/Beam |\n", *workers)
	fmt.Println("|---|---|---|---|---|---|---|---|---|---|---|")
	f := func(x float64) string {
		if x == 0 {
			return "–"
		}
		return fmt.Sprintf("%.4g", x)
	}
	ratio := func(a, b float64) string {
		if a == 0 || b == 0 {
			return "–"
		}
		return fmt.Sprintf("%.3g", a/b)
	}
	for _, r := range rows {
		fmt.Printf("| %d×%d | %d | %d | %d | %d | %d/%d | %s | %s | %s | %s | %s |\n", r.n, r.n, r.vars, r.edges, r.cut, r.rounds,
			r.classesV, r.classesF, f(r.single), f(r.par), f(r.beam), ratio(r.single, r.par), ratio(r.single, r.beam))
	}
	if *plotFile != "" {
		p := plot.New()
		p.Title.Text = fmt.Sprintf("Colour passing on n×n grids (%d workers)", *workers)
		p.X.Label.Text = "variables"
		p.Y.Label.Text = "seconds (median)"
		p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
		p.X.Tick.Marker, p.Y.Tick.Marker = plot.LogTicks{}, plot.LogTicks{}
		var args []any
		for _, m := range []struct {
			name string
			get  func(row) float64
		}{{"single worker", func(r row) float64 { return r.single }}, {"all cores", func(r row) float64 { return r.par }}, {"Beam (Prism)", func(r row) float64 { return r.beam }}} {
			var pts plotter.XYs
			for _, r := range rows {
				if y := m.get(r); y > 0 {
					pts = append(pts, plotter.XY{X: float64(r.vars), Y: y})
				}
			}
			args = append(args, m.name, pts)
		}
		if err := plotutil.AddLinePoints(p, args...); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		if err := p.Save(6*vg.Inch, 4*vg.Inch, *plotFile); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
}
