// Command lbpcount prints LBPCount's per-step statistics (the quantities of
// Fig. 5 of the lifted BP paper) for one instance: per step the open
// variables, the clamped variable and the size of its clusternode, the
// clusternodes, ground and lifted edges, BP iterations and the per-step and
// cumulative lifted/ground message ratios, for the residual and the
// evidence graph. See RESULTS.md.
//
//	go run ./experiments/lbpcount -cnf ../shared/data/cnf/2bitmax_6.cnf -trials 1
package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/lifted-dev/lifted/count"
	"github.com/lifted-dev/lifted/format/dimacs"
)

func main() {
	path := flag.String("cnf", "../shared/data/cnf/2bitmax_6.cnf", "DIMACS file")
	trials := flag.Int("trials", 1, "trials")
	seed := flag.Uint64("seed", 1, "seed")
	graph := flag.String("graph", "residual", "residual, evidence or both")
	residual := flag.Int("residual-vars", count.DefaultResidualVars, "stop at this many open variables")
	slack := flag.Float64("slack", count.DefaultChoiceSlack, "BPCountOptions.ChoiceSlack")
	recolour := flag.String("recolour", "incremental", "incremental, scratch or refine (BPCountOptions.Recolour); compare: all three on the residual graph, side by side")
	runs := flag.Int("runs", 3, "-recolour compare: runs of each mode (median colouring time)")
	conflicts := flag.Int64("sat-conflicts", count.DefaultSATConflicts, "BPCountOptions.SATConflicts (0: DPLL check only)")
	probe := flag.Bool("probe", count.DefaultBPCountOptions().Probe, "BPCountOptions.Probe (failed-literal probing before every BP run)")
	reuse := flag.Bool("reuse-forced", count.DefaultBPCountOptions().ReuseForced, "BPCountOptions.ReuseForced (no BP run after a forced step)")
	diag := flag.Bool("diagnose", false, "split each trial's error into its steps with exact counts (diagnose.go)")
	ground := flag.Bool("bpcount", false, "-diagnose: run BPCount (ground BP, slack 0) instead of LBPCount")
	flag.Parse()
	f, err := os.Open(*path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	c, err := dimacs.Read(f, *path)
	f.Close()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	graphs := map[string][]count.BPGraph{"residual": {count.ResidualGraph}, "evidence": {count.EvidenceGraph},
		"both": {count.ResidualGraph, count.EvidenceGraph}}[*graph]
	for _, gr := range graphs {
		opt := count.DefaultBPCountOptions()
		opt.Trials, opt.Seed, opt.Graph, opt.ResidualVars, opt.ChoiceSlack = *trials, *seed, gr, *residual, *slack
		opt.SATConflicts = *conflicts
		opt.Probe = *probe
		opt.ReuseForced = *reuse
		if *recolour == "compare" {
			if err := compareRecolour(c, opt, *runs); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
			return
		}
		modes := map[string]count.Recolouring{"incremental": count.RecolourIncremental, "scratch": count.RecolourScratch, "refine": count.RecolourRefine}
		m, ok := modes[*recolour]
		if !ok {
			fmt.Fprintln(os.Stderr, "unknown -recolour", *recolour)
			os.Exit(2)
		}
		opt.Recolour = m
		run := count.LBPCount
		if *ground {
			run = count.BPCount
		}
		res, err := run(context.Background(), c, opt)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		if *diag {
			fmt.Printf("## %s, %s graph, slack %g, seed %d: bound log10 %.2f, %d steps, messages saved %.1f%%\n\n", res.Method, gr, *slack, *seed,
				res.LowerBoundLog10, res.Steps, 100*(1-float64(res.MessagesLifted)/float64(res.MessagesGround)))
			if err := diagnose(c, res); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
			continue
		}
		var colour float64
		for _, tr := range res.Trials {
			for _, s := range tr.Steps {
				colour += s.ColourSeconds
			}
		}
		fmt.Printf("## %s graph, slack %g, seed %d, recolour %v: %d trials, %d steps, bound log10 %.2f, messages saved %.1f%%, edges saved %.1f%%, colouring %.3f s of %.1f s\n\n",
			gr, *slack, *seed, m, len(res.Trials), res.Steps, res.LowerBoundLog10,
			100*(1-float64(res.MessagesLifted)/float64(res.MessagesGround)),
			100*(1-float64(res.EdgesLifted)/float64(res.EdgesGround)), colour, res.Seconds)
		fmt.Println("| trial | log10 estimate | steps | values checked by CDCL | undecided |")
		fmt.Println("|---|---|---|---|---|")
		for i, tr := range res.Trials {
			fmt.Printf("| %d | %.2f | %d | %d | %d |\n", i+1, tr.EstimateLog10, len(tr.Steps), tr.SATComplete, tr.SATUndecided)
		}
		fmt.Println()
		fmt.Println("| trial | step | open | var | value | node size | clusternodes | edges ground | edges lifted | iterations | converged | messages lifted/ground | cumulative |")
		fmt.Println("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
		for i, tr := range res.Trials {
			var mg, ml int64
			for j, s := range tr.Steps {
				mg += s.MessagesGround
				ml += s.MessagesLifted
				fmt.Printf("| %d | %d | %d | %d | %v | %d | %d | %d | %d | %d | %v | %.3f | %.3f |\n", i+1, j+1, s.Open, s.Var+1, s.Value,
					s.VarNodeSize, s.Clusternodes, s.EdgesGround, s.EdgesLifted, s.Iterations, s.Converged,
					float64(s.MessagesLifted)/float64(s.MessagesGround), float64(ml)/float64(mg))
			}
		}
		fmt.Println()
	}
}
