// Command map times MAP by LP relaxation on the semi-transitive model of
// Bui, Huynh and Riedel (UAI 2013), Section 9:
//
//	w1  Pred(x,y) ^ Pred(x,z)     (w1 < 0)
//	w2  Pred(x,y)
//	evidence: Pred(A,B)
//
// grounded over a domain of n constants (A, B, C3, …) from the MLN text by
// format/mlnfile and package ground, as the lp method grounds an MLN (the atom
// Pred(A,B) is evidence and leaves the graph). Bounds and objectives are
// Solve's factor-graph log scores, which differ from the MLN's Σ w·n(x) by
// a constant. Symmetries: ground (none), colour (colour passing, LOCAL
// only), renaming (maplp.Renaming: the constant renamings read off the MLN,
// lift/orbit.Renaming) and orbits (maplp.Orbits: automorphism search on the
// ground factor graph); any name maplp.LookupSymmetry knows. Lifted CYCLE
// separates on the stabilisers' lifted graphs (Theorem 7.1); a run
// "renaming/cycle/groundsep" separates on the ground graph instead.
//
//	go run ./experiments/map -n 5,10,15,20 -runs {ground,renaming,orbits}x{local,cycle},ilp
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
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	mlnfile "github.com/lifted-dev/lifted/format/mlnfile"
	"github.com/lifted-dev/lifted/ground"
	"github.com/lifted-dev/lifted/infer/maplp"
)

// extraSolvers are the solvers behind build tags (clp with -tags coin).
var extraSolvers = map[string]maplp.Solver{}

// semiTransitive grounds the MLN over the domain A, B, C3, …, Cn with
// evidence Pred(A,B) (format/mlnfile and package ground, as the lp method
// does): the grounding carries the MLN that symmetry renaming reads.
func semiTransitive(n int, w1, w2 float64) (*ground.Grounding, error) {
	src := "d = {A,B"
	for i := 3; i <= n; i++ {
		src += ",C" + strconv.Itoa(i)
	}
	src += fmt.Sprintf("}\nPred(d,d)\n%g Pred(x,y) ^ Pred(x,z)\n%g Pred(x,y)\n", w1, w2)
	m, err := mlnfile.Parse("semi.mln", []byte(src))
	if err != nil {
		return nil, err
	}
	db, err := mlnfile.ReadDB(strings.NewReader("Pred(A,B)\n"), "semi.db", m)
	if err != nil {
		return nil, err
	}
	return ground.Ground(context.Background(), m, db, ground.Options{Query: []string{"Pred"}})
}

func main() {
	ns := flag.String("n", "5,10,15,20", "domain sizes")
	runs := flag.String("runs", "ground/local,colour/local,ground/cycle,ilp", "symmetry/relaxation pairs (symmetry ground, colour, renaming or a registered name), ilp (branch and bound) and ilp/cbc (-tags coin)")
	w1 := flag.Float64("w1", -1, "weight of Pred(x,y) ^ Pred(x,z)")
	w2 := flag.Float64("w2", 1.5, "weight of Pred(x,y)")
	reps := flag.Int("reps", 3, "runs per cell (median seconds)")
	limit := flag.Duration("limit", 60*time.Second, "time limit per run")
	solver := flag.String("solver", "auto", "auto, simplex, pdlp or (with -tags coin) clp")
	roundsN := flag.Int("rounds-n", 10, "print the bound per cutting-plane round of every */cycle run at this n (0: none)")
	flag.Parse()
	fmt.Printf("semi-transitive model, w1 = %g, w2 = %g, evidence Pred(A,B); solver %s; median of %d runs, limit %v\n\n", *w1, *w2, *solver, *reps, *limit)
	fmt.Println("| n | atoms | run | seconds | bound | objective | LP variables | LP constraints | orbits | cuts | rounds |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|---|---|")
	for _, s := range strings.Split(*ns, ",") {
		n, err := strconv.Atoi(s)
		if err != nil {
			fail(err)
		}
		gr, err := semiTransitive(n, *w1, *w2)
		if err != nil {
			fail(err)
		}
		g := gr.Graph
		for _, run := range strings.Split(*runs, ",") {
			cfg, err := config(run, *solver, gr)
			if err != nil {
				fail(err)
			}
			var secs []float64
			var res *maplp.Result
			note := ""
			for r := 0; r < *reps; r++ {
				ctx, cancel := context.WithTimeout(context.Background(), *limit)
				start := time.Now()
				res, err = maplp.Solve(ctx, g, nil, cfg)
				secs = append(secs, time.Since(start).Seconds())
				cancel()
				if err != nil || res.Interrupted {
					break
				}
			}
			switch {
			case err != nil && errors.Is(err, context.DeadlineExceeded):
				fmt.Printf("| %d | %d | %s | > %v | | | | | | | |\n", n, g.NumVars(), run, *limit)
				continue
			case err != nil:
				fmt.Printf("| %d | %d | %s | error: %v | | | | | | | |\n", n, g.NumVars(), run, err)
				continue
			case res.Interrupted:
				note = fmt.Sprintf(" (stopped at %v)", *limit)
			}
			sort.Float64s(secs)
			fmt.Printf("| %d | %d | %s | %.3g%s | %.6f | %.6f | %d | %d | %d | %d | %d |\n", n, g.NumVars(), run, secs[len(secs)/2], note,
				res.Bound, res.Objective, res.LPVariables, res.LPConstraints, res.VarClasses, res.Cuts, res.CutRounds)
		}
	}
	if *roundsN > 0 {
		gr, err := semiTransitive(*roundsN, *w1, *w2)
		if err != nil {
			fail(err)
		}
		for _, run := range strings.Split(*runs, ",") {
			if !strings.HasSuffix(run, "/cycle") {
				continue
			}
			cfg, err := config(run, *solver, gr)
			if err != nil {
				fail(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), *limit)
			res, err := maplp.Solve(ctx, gr.Graph, nil, cfg)
			cancel()
			if err != nil {
				fmt.Printf("\n%s at n = %d: %v\n", run, *roundsN, err)
				continue
			}
			fmt.Printf("\nBound per cutting-plane round, %s at n = %d (decoded world: %.6f):\n\n| round | bound | cuts added | worst violation |\n|---|---|---|---|\n", run, *roundsN, res.Objective)
			for _, r := range res.Rounds {
				fmt.Printf("| %d | %.6f | %d | %.3g |\n", r.Round, r.Bound, r.Cuts, r.MaxViolation)
			}
		}
	}
}

func config(run, solver string, gr *ground.Grounding) (maplp.Config, error) {
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
	if run == "ilp" || run == "ilp/cbc" { // branch and bound, or Cbc (-tags coin)
		cfg.ILP, cfg.Relaxation, cfg.Cbc = true, maplp.Cycle, run == "ilp/cbc"
		return cfg, nil
	}
	sym, rel, ok := strings.Cut(run, "/")
	if !ok {
		return cfg, fmt.Errorf("run %q: want symmetry/relaxation or ilp", run)
	}
	if sym == "ground" {
		sym = "none"
	}
	// "/groundsep": lifted CYCLE separating on the ground graph (expand
	// and fold) instead of the stabilisers' lifted graphs.
	rel, gs := strings.CutSuffix(rel, "/groundsep")
	cfg.GroundSeparation = gs
	if sym == "renaming" {
		cfg.Symmetry, cfg.Relaxation = maplp.Renaming{Grounding: gr}, maplp.Relaxation(rel)
		return cfg, nil
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
