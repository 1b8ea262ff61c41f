package main

import (
	"context"
	"fmt"
	"slices"

	"github.com/lifted-dev/lifted/cnf"
	"github.com/lifted-dev/lifted/count"
)

// compareRecolour runs LBPCount with each way of recolouring the residual
// graph (from scratch, incrementally with merging, incrementally without),
// runs times each, in turn, and prints the totals (colouring time: the
// median over the runs) and, per step of the first trial, the clusternodes
// and lifted edges of each. With slack 0 the choices do not depend on the
// colouring (lifted BP is exact on any stable colouring), so the three runs
// pass through the same residual formulas and the steps compare one to one.
func compareRecolour(c *cnf.CNF, opt count.BPCountOptions, runs int) error {
	modes := []count.Recolouring{count.RecolourScratch, count.RecolourIncremental, count.RecolourRefine}
	res := make([]*count.BPCountResult, len(modes))
	secs := make([][]float64, len(modes))
	for range runs {
		for i, m := range modes {
			o := opt
			o.Recolour = m
			r, err := count.LBPCount(context.Background(), c, o)
			if err != nil {
				return err
			}
			res[i] = r
			t := 0.0
			for _, tr := range r.Trials {
				for _, s := range tr.Steps {
					t += s.ColourSeconds
				}
			}
			secs[i] = append(secs[i], t)
		}
	}
	fmt.Printf("Recolouring the residual graph: slack %g, seed %d, %d trials, median colouring time of %d runs\n\n", opt.ChoiceSlack, opt.Seed, opt.Trials, runs)
	fmt.Println("| recolour | steps | bound log10 | clusternodes, sum over steps | lifted edges, sum | messages saved | colouring s (median) | colouring vs scratch |")
	fmt.Println("|---|---|---|---|---|---|---|---|")
	med := func(x []float64) float64 { y := slices.Clone(x); slices.Sort(y); return y[len(y)/2] }
	for i, m := range modes {
		nodes := 0
		for _, tr := range res[i].Trials {
			for _, s := range tr.Steps {
				nodes += s.Clusternodes
			}
		}
		fmt.Printf("| %v | %d | %.2f | %d | %d | %.1f%% | %.3f | %.2f× |\n", m, res[i].Steps, res[i].LowerBoundLog10, nodes, res[i].EdgesLifted,
			100*(1-float64(res[i].MessagesLifted)/float64(res[i].MessagesGround)), med(secs[i]), med(secs[i])/med(secs[0]))
	}
	fmt.Println()
	fmt.Println("Trial 1, per step (scratch / incremental / refine):")
	fmt.Println()
	fmt.Println("| step | var (scratch, refine) | clusternodes | lifted edges | colouring ms |")
	fmt.Println("|---|---|---|---|---|")
	a, b, r := res[0].Trials[0].Steps, res[1].Trials[0].Steps, res[2].Trials[0].Steps
	for j := range min(len(a), len(b), len(r)) {
		fmt.Printf("| %d | %d, %d | %d / %d / %d | %d / %d / %d | %.2f / %.2f / %.2f |\n", j+1, a[j].Var+1, r[j].Var+1,
			a[j].Clusternodes, b[j].Clusternodes, r[j].Clusternodes, a[j].EdgesLifted, b[j].EdgesLifted, r[j].EdgesLifted,
			1e3*a[j].ColourSeconds, 1e3*b[j].ColourSeconds, 1e3*r[j].ColourSeconds)
	}
	fmt.Println()
	return nil
}
