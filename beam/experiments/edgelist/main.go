// Command edgelist measures the Beam colour-passing pipeline on a sharded
// edge list (Refiner.RefineEdgeList: setup job, rounds, finish job; the
// driver never reads the graph) against the same pipeline on a graph held
// by the driver (Refiner.Refine), and lift.ColourPassing for reference, on
// n×n grids with one observed corner, side by side in one run, medians of
// --reps runs taken in turn. It checks that all three give the same
// numbers of classes and rounds and prints a Markdown table.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/runners/prism"

	"github.com/lifted-dev/lifted/beam/colourpass"
	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/internal/gen"
	"github.com/lifted-dev/lifted/lift"
)

// grid is an n×n grid: one pairwise table on the edges, one unary table on
// every variable, variable 0 observed.
func grid(n int) (*fg.Graph, fg.Evidence) {
	ev := fg.NoEvidence(n * n)
	ev[0] = 1
	return gen.SquareGridTables(n, []float64{2, 1, 1, 2}, []float64{1, 1.5}), ev
}

func median(x []float64) float64 {
	s := slices.Clone(x)
	slices.Sort(s)
	return s[len(s)/2]
}

func main() {
	sizes := flag.String("sizes", "10,20,40", "grid sides")
	reps := flag.Int("reps", 3, "runs per method and size (median)")
	parts := flag.Int("parts", 2, "Beam parts")
	perJob := flag.Int("rounds-per-job", 8, "rounds per Beam job")
	shards := flag.Int("shards", 4, "edge-list shards")
	flag.Parse()
	beam.Init()
	ctx := context.Background()
	run := func(ctx context.Context, p *beam.Pipeline) error { _, err := beam.Run(ctx, "prism", p); return err }
	fmt.Println("| grid | variables | edges | rounds | ColourPassing s | Beam, graph in driver s | Beam, edge list s | edge list / graph | jobs graph / edge list | cut graph / edge list |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|---|")
	for _, f := range strings.Split(*sizes, ",") {
		n, err := strconv.Atoi(f)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		g, ev := grid(n)
		dir, err := os.MkdirTemp("", "edgelist")
		if err != nil {
			panic(err)
		}
		ws := make([]io.Writer, *shards)
		for i := range ws {
			fh, err := os.Create(filepath.Join(dir, fmt.Sprintf("edges-%05d.txt", i)))
			if err != nil {
				panic(err)
			}
			defer fh.Close()
			ws[i] = fh
		}
		if err := lift.WriteEdgeList(g, ev, lift.Options{}, ws); err != nil {
			panic(err)
		}
		var tc, tg, te []float64
		var sg, se colourpass.Stats
		var rounds int
		for range *reps {
			start := time.Now()
			ref, err := lift.ColourPassing{}.Refine(ctx, g, ev, lift.Options{})
			tc = append(tc, time.Since(start).Seconds())
			check(err)
			rounds = ref.Iterations
			start = time.Now()
			col, err := colourpass.Refiner{Parts: *parts, RoundsPerJob: *perJob, Run: run, Stats: &sg}.Refine(ctx, g, ev, lift.Options{})
			tg = append(tg, time.Since(start).Seconds())
			check(err)
			start = time.Now()
			res, err := colourpass.Refiner{Parts: *parts, RoundsPerJob: *perJob, Run: run, Stats: &se}.RefineEdgeList(ctx, filepath.Join(dir, "edges-*.txt"), filepath.Join(dir, "classes.txt"), lift.Options{})
			te = append(te, time.Since(start).Seconds())
			check(err)
			if col.NumVarColor != ref.NumVarColor || col.Iterations != ref.Iterations || int(res.Clusternodes) != ref.NumVarColor ||
				int(res.Clusterfactors) != ref.NumFacColor || res.Rounds != ref.Iterations {
				fmt.Fprintf(os.Stderr, "grid %d: colourings differ\n", n)
				os.Exit(1)
			}
		}
		os.RemoveAll(dir)
		mg, me := median(tg), median(te)
		fmt.Printf("| %d×%d | %d | %d | %d | %.4f | %.2f | %.2f | %.2f | %d / %d | %d / %d |\n", n, n, g.NumVars(), g.NumEdges(), rounds,
			median(tc), mg, me, me/mg, sg.Jobs, se.Jobs, sg.CutEdges, se.CutEdges)
	}
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
