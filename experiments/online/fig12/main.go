// Command fig12 runs the enriched friends-and-smokers experiments of the
// journal paper's Fig. 12 with package online:
//
//   - learning curves: train on each of the data sets in turn and evaluate
//     the test CMLL (per atom, mean over the other data sets) as training
//     proceeds, for SMD with factor pieces, SMD with tree pieces and SCG,
//     averaged over the folds (piecewise-linear interpolation onto a grid of
//     passes);
//   - lifting ratio (lifted size / ground size of the mini-batch graph,
//     variables plus factors) against the mini-batch size, next to the
//     whole mega-example's graph.
//
// Usage: fig12 -i smokers.mln -ne P1,P2 data1.db data2.db … > results.md
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"time"

	mlnfile "github.com/lifted-dev/lifted/format/mlnfile"
	"github.com/lifted-dev/lifted/online"
)

type curve struct {
	passes, cmll []float64
	seconds      []float64
}

// at interpolates the curve at pass p (constant before its first point,
// which has the initial weights, and after its end).
func (c *curve) at(p float64) float64 {
	n := len(c.passes)
	if p <= c.passes[0] {
		return c.cmll[0]
	}
	if p >= c.passes[n-1] {
		return c.cmll[n-1]
	}
	for i := 1; i < n; i++ {
		if p <= c.passes[i] {
			t := (p - c.passes[i-1]) / (c.passes[i] - c.passes[i-1])
			return c.cmll[i-1] + t*(c.cmll[i]-c.cmll[i-1])
		}
	}
	return c.cmll[n-1]
}

func main() {
	in := flag.String("i", "", "MLN")
	ne := flag.String("ne", "", "non-evidence predicates")
	passes := flag.Float64("passes", 5, "passes for SMD")
	scgIter := flag.Int("scg-iter", 5, "SCG iterations (about two passes each)")
	batch := flag.Int("batch-size", 10, "pieces per mini-batch")
	step := flag.Float64("step", 0.2, "SMD initial gain")
	depth := flag.Int("depth", 2, "tree pattern depth")
	discount := flag.Float64("discount", 0.9, "tree discount t")
	seed := flag.Uint64("seed", 1, "seed")
	logDir := flag.String("logs", "", "write one JSON curve per method and fold here")
	lifting := flag.Bool("lifting", true, "also measure the lifting ratio")
	trainDBs := flag.String("train-dbs", "", "comma-separated training versions of the data sets (e.g. partially observed), one per argument; fold i trains on the i-th and tests on the other arguments")
	flag.Parse()
	if err := run(*in, strings.Split(*ne, ","), flag.Args(), *trainDBs, *passes, *scgIter, *batch, *step, *depth, *discount, *seed, *logDir, *lifting); err != nil {
		fmt.Fprintln(os.Stderr, "fig12:", err)
		os.Exit(1)
	}
}

func run(in string, ne, dbs []string, trainDBs string, passes float64, scgIter, batch int, step float64, depth int, discount float64, seed uint64, logDir string, lifting bool) error {
	ctx := context.Background()
	m, err := mlnfile.ParseFile(in)
	if err != nil {
		return err
	}
	models := make([]*online.Model, len(dbs))
	for i, p := range dbs {
		db, err := mlnfile.ReadDBFiles(m, p)
		if err != nil {
			return err
		}
		if models[i], err = online.NewModel(m, db, ne); err != nil {
			return err
		}
	}
	trains := models
	if trainDBs != "" {
		paths := strings.Split(trainDBs, ",")
		if len(paths) != len(dbs) {
			return fmt.Errorf("%d training data sets for %d data sets", len(paths), len(dbs))
		}
		trains = make([]*online.Model, len(paths))
		for i, p := range paths {
			db, err := mlnfile.ReadDBFiles(m, p)
			if err != nil {
				return err
			}
			if trains[i], err = online.NewModel(m, db, ne); err != nil {
				return err
			}
		}
	}
	cmll := func(w []float64, test []*online.Model) (float64, error) {
		s := 0.0
		for i, t := range test {
			c, n, err := online.CMLL(ctx, t, w, rand.New(rand.NewPCG(seed, uint64(i))), online.GradOptions{})
			if err != nil {
				return 0, err
			}
			s += c / n / float64(len(test))
		}
		return s, nil
	}
	methods := []string{"smd-factor", "smd-tree", "scg"}
	curves := map[string][]*curve{}
	secs := map[string]float64{}
	for fold, md := range trains {
		var test []*online.Model
		for j, t := range models {
			if j != fold {
				test = append(test, t)
			}
		}
		for _, meth := range methods {
			c := &curve{}
			start := time.Now()
			eval := func(p float64, w []float64) error {
				v, err := cmll(w, test)
				c.passes = append(c.passes, p)
				c.cmll = append(c.cmll, v)
				c.seconds = append(c.seconds, time.Since(start).Seconds())
				return err
			}
			rng := rand.New(rand.NewPCG(seed, uint64(fold)))
			switch meth {
			case "scg":
				_, err = online.SCG(ctx, md, online.BatchOptions{MaxIter: scgIter, Eval: eval})
			default:
				var pieces *online.Pieces
				if meth == "smd-factor" {
					pieces = online.FactorPieces(md)
				} else {
					pieces = online.TreePieces(md, depth, discount, rng)
				}
				_, err = online.Train(ctx, md, pieces, online.TrainOptions{Method: "smd", BatchSize: batch, Passes: passes,
					Step: step, EvalEvery: 0.1, Eval: eval, Rand: rng})
			}
			if err != nil {
				return fmt.Errorf("%s fold %d: %w", meth, fold+1, err)
			}
			secs[meth] += time.Since(start).Seconds()
			fmt.Fprintf(os.Stderr, "fig12: fold %d %s: final CMLL/atom %.4f, %.2f s\n", fold+1, meth, c.cmll[len(c.cmll)-1], time.Since(start).Seconds())
			curves[meth] = append(curves[meth], c)
			if logDir != "" {
				b, _ := json.MarshalIndent(map[string]any{"method": meth, "fold": fold + 1, "passes": c.passes, "cmll_per_atom": c.cmll, "seconds": c.seconds}, "", " ")
				if err := os.WriteFile(fmt.Sprintf("%s/%s-fold%d.json", logDir, meth, fold+1), b, 0o644); err != nil {
					return err
				}
			}
		}
	}
	fmt.Printf("## Test CMLL per atom vs passes over the mega-example (mean over %d folds)\n\n", len(models))
	fmt.Printf("SMD: batch size %d, step %g, λ = 0.99, μ = 0.1, γ = 0.9; tree pieces depth %d, t = %g. SCG: %d iterations; one pass = one full BP gradient.\n\n", batch, step, depth, discount, scgIter)
	fmt.Println("| passes | " + strings.Join(methods, " | ") + " |")
	fmt.Println("|---|" + strings.Repeat("---|", len(methods)))
	maxP := passes
	for _, c := range curves["scg"] {
		maxP = math.Max(maxP, c.passes[len(c.passes)-1])
	}
	grid := []float64{0, 0.1, 0.2, 0.3, 0.5, 0.7, 1, 1.5, 2, 3, 4, 5, 6, 8, 10, 12, 15, 20}
	for _, p := range grid {
		if p > maxP+1e-9 {
			break
		}
		row := fmt.Sprintf("| %g |", p)
		for _, meth := range methods {
			s := 0.0
			for _, c := range curves[meth] {
				s += c.at(p)
			}
			row += fmt.Sprintf(" %.4f |", s/float64(len(curves[meth])))
		}
		fmt.Println(row)
	}
	fmt.Println()
	for _, meth := range methods {
		fmt.Printf("- %s: %.2f s per fold (including the CMLL evaluations)\n", meth, secs[meth]/float64(len(trains)))
	}
	if !lifting {
		return nil
	}
	md := trains[0]
	fmt.Printf("\n## Lifting ratio vs mini-batch size (data set 1)\n\n")
	fmt.Println("Lifted size / ground size (variables + factors) of the graph BP runs on, mean over the mini-batches of one shuffled pass (at most 200).")
	fmt.Println()
	fmt.Println("| batch size | factor pieces | tree pieces |")
	fmt.Println("|---|---|---|")
	fp := online.FactorPieces(md)
	tp := online.TreePieces(md, depth, discount, rand.New(rand.NewPCG(seed, 99)))
	for _, b := range []int{1, 2, 5, 10, 20, 50, 100, 200, 500} {
		row := fmt.Sprintf("| %d |", b)
		for _, p := range []*online.Pieces{fp, tp} {
			r, err := ratio(ctx, md, p, b, rand.New(rand.NewPCG(seed, 7)))
			if err != nil {
				return err
			}
			row += fmt.Sprintf(" %.3f |", r)
		}
		fmt.Println(row)
	}
	whole := online.WholePiece(md)
	r, err := md.BatchGradient(ctx, make([]float64, md.NumFormulas()), whole, []int32{0}, online.GradOptions{})
	if err != nil {
		return err
	}
	fmt.Printf("| whole mega-example (%d ground clauses) | %.3f | |\n", md.NumClauses(), float64(r.LiftedNodes+r.LiftedFactors)/float64(r.GroundVars+r.GroundFactors))
	return nil
}

// ratio is the mean lifting ratio over the mini-batches of one shuffled pass
// (at most 200 of them).
func ratio(ctx context.Context, md *online.Model, p *online.Pieces, b int, rng *rand.Rand) (float64, error) {
	perm := rng.Perm(p.Len())
	s, n := 0.0, 0
	for lo := 0; lo < len(perm) && n < 200; lo += b {
		var batch []int32
		for _, i := range perm[lo:min(lo+b, len(perm))] {
			batch = append(batch, int32(i))
		}
		r, err := md.BatchGradient(ctx, make([]float64, md.NumFormulas()), p, batch, online.GradOptions{})
		if err != nil {
			return 0, err
		}
		s += float64(r.LiftedNodes+r.LiftedFactors) / float64(r.GroundVars+r.GroundFactors)
		n++
	}
	return s / float64(n), nil
}
