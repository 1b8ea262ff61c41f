// Command map times MAP by LP relaxation on the semi-transitive model of
// Bui, Huynh and Riedel (UAI 2013), Section 9:
//
//	w1  Pred(x,y) ^ Pred(x,z)     (w1 < 0)
//	w2  Pred(x,y)
//	evidence: Pred(A,B)
//
// grounded over a domain of n constants as a factor graph: one binary
// variable per atom Pred(x,y); for every x and y ≠ z the two groundings
// (y,z) and (z,y) of the first formula as one pairwise factor
// exp(2·w1·[Pred(x,y) ∧ Pred(x,z)]); for y = z the first formula's
// grounding Pred(x,y) ∧ Pred(x,y) = Pred(x,y) and the second formula as one
// unary factor exp((w1+w2)·Pred(x,y)). Log scores are Σ w·n(x).
//
//	go run ./experiments/map -n 5,10,15,20 -runs {ground,colour}x{local,cycle},ilp
//
// prints a markdown table of seconds (median of -reps runs), bounds,
// objectives and LP sizes, and the bound after every cutting-plane round
// at -rounds-n.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/infer/maplp"
)

// extraSolvers are the solvers behind build tags (clp with -tags coin).
var extraSolvers = map[string]maplp.Solver{}

func semiTransitive(n int, w1, w2 float64) (*fg.Graph, fg.Evidence) {
	b := fg.NewBuilder()
	b.AddVars(n*n, 2)
	atom := func(x, y int) int32 { return int32(x*n + y) }
	pair := []float64{1, 1, 1, math.Exp(2 * w1)}
	unary := []float64{1, math.Exp(w1 + w2)}
	for x := 0; x < n; x++ {
		for y := 0; y < n; y++ {
			b.AddFactor([]int32{atom(x, y)}, unary)
			for z := y + 1; z < n; z++ {
				b.AddFactor([]int32{atom(x, y), atom(x, z)}, pair)
			}
		}
	}
	ev := fg.NoEvidence(n * n)
	ev[atom(0, 1)] = 1 // Pred(A,B)
	return b.Build(), ev
}

func main() {
	ns := flag.String("n", "5,10,15,20", "domain sizes")
	runs := flag.String("runs", "ground/local,colour/local,ground/cycle,ilp", "symmetry/relaxation pairs, and ilp")
	w1 := flag.Float64("w1", -1, "weight of Pred(x,y) ^ Pred(x,z)")
	w2 := flag.Float64("w2", 1.5, "weight of Pred(x,y)")
	reps := flag.Int("reps", 3, "runs per cell (median seconds)")
	limit := flag.Duration("limit", 60*time.Second, "time limit per run")
	solver := flag.String("solver", "auto", "auto, simplex, pdlp or (with -tags coin) clp")
	roundsN := flag.Int("rounds-n", 10, "print the bound per cutting-plane round of ground/cycle at this n (0: none)")
	flag.Parse()
	fmt.Printf("semi-transitive model, w1 = %g, w2 = %g, evidence Pred(A,B); solver %s; median of %d runs, limit %v\n\n", *w1, *w2, *solver, *reps, *limit)
	fmt.Println("| n | atoms | run | seconds | bound | objective | LP variables | LP constraints | orbits | cuts | rounds |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|---|---|")
	for _, s := range strings.Split(*ns, ",") {
		n, err := strconv.Atoi(s)
		if err != nil {
			fail(err)
		}
		g, ev := semiTransitive(n, *w1, *w2)
		for _, run := range strings.Split(*runs, ",") {
			cfg, err := config(run, *solver)
			if err != nil {
				fail(err)
			}
			var secs []float64
			var res *maplp.Result
			note := ""
			for r := 0; r < *reps; r++ {
				ctx, cancel := context.WithTimeout(context.Background(), *limit)
				start := time.Now()
				res, err = maplp.Solve(ctx, g, ev, cfg)
				secs = append(secs, time.Since(start).Seconds())
				cancel()
				if err != nil || res.Interrupted {
					break
				}
			}
			switch {
			case err != nil && errors.Is(err, context.DeadlineExceeded):
				fmt.Printf("| %d | %d | %s | > %v | | | | | | | |\n", n, n*n, run, *limit)
				continue
			case err != nil:
				fmt.Printf("| %d | %d | %s | error: %v | | | | | | | |\n", n, n*n, run, err)
				continue
			case res.Interrupted:
				note = fmt.Sprintf(" (stopped at %v)", *limit)
			}
			sort.Float64s(secs)
			fmt.Printf("| %d | %d | %s | %.3g%s | %.6f | %.6f | %d | %d | %d | %d | %d |\n", n, n*n, run, secs[len(secs)/2], note,
				res.Bound, res.Objective, res.LPVariables, res.LPConstraints, res.VarClasses, res.Cuts, res.CutRounds)
		}
	}
	if *roundsN > 0 {
		g, ev := semiTransitive(*roundsN, *w1, *w2)
		cfg, _ := config("ground/cycle", *solver)
		res, err := maplp.Solve(context.Background(), g, ev, cfg)
		if err != nil {
			fail(err)
		}
		fmt.Printf("\nBound per cutting-plane round, ground CYCLE at n = %d (decoded world: %.6f):\n\n| round | bound | cuts added | worst violation |\n|---|---|---|---|\n", *roundsN, res.Objective)
		for _, r := range res.Rounds {
			fmt.Printf("| %d | %.6f | %d | %.3g |\n", r.Round, r.Bound, r.Cuts, r.MaxViolation)
		}
	}
}

func config(run, solver string) (maplp.Config, error) {
	var cfg maplp.Config
	switch solver {
	case "auto":
		cfg.Solver = maplp.Auto{}
	case "simplex":
		cfg.Solver = maplp.Simplex{}
	case "pdlp":
		cfg.Solver = maplp.PDLP{}
	default:
		s, ok := extraSolvers[solver]
		if !ok {
			return cfg, fmt.Errorf("unknown solver %q (clp needs -tags coin)", solver)
		}
		cfg.Solver = s
	}
	if run == "ilp" {
		cfg.ILP, cfg.Relaxation = true, maplp.Cycle
		return cfg, nil
	}
	sym, rel, ok := strings.Cut(run, "/")
	if !ok {
		return cfg, fmt.Errorf("run %q: want symmetry/relaxation or ilp", run)
	}
	if sym == "ground" {
		sym = "none"
	}
	s, err := maplp.LookupSymmetry(sym)
	if err != nil {
		return cfg, err
	}
	cfg.Symmetry, cfg.Relaxation = s, maplp.Relaxation(rel)
	return cfg, nil
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "map:", err)
	os.Exit(1)
}
