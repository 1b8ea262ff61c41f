// Command agg runs BPCount and LBPCount with one seed and prints, per
// method, where the work goes: steps (BP runs, reused, forced, probed), BP
// iterations and attempts, converged runs, messages, and the trials' errors.
// It measures the levers of issue 26's second pass (experiments/lbpcount/RESULTS.md).
//
//	go run ./experiments/lbpcount/agg -seed 1 [-slack 0.1]
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"
	"syscall"

	"github.com/lifted-dev/lifted/count"
	"github.com/lifted-dev/lifted/format/dimacs"
)

func main() {
	def := count.DefaultBPCountOptions()
	path := flag.String("cnf", "../shared/data/cnf/2bitmax_6.cnf", "DIMACS file")
	truth := flag.Float64("truth", 29.3156, "log10 of the true count")
	methods := flag.String("methods", "bpcount,lbpcount", "methods to run")
	o := def
	flag.Uint64Var(&o.Seed, "seed", 1, "seed")
	flag.Float64Var(&o.ChoiceSlack, "slack", def.ChoiceSlack, "ChoiceSlack (LBPCount)")
	flag.Float64Var(&o.Tol, "tol", def.Tol, "Tol")
	flag.Float64Var(&o.Damping, "damping", def.Damping, "Damping")
	flag.IntVar(&o.SATBudget, "sat-budget", def.SATBudget, "SATBudget")
	flag.BoolVar(&o.ChoiceReach, "reach", def.ChoiceReach, "ChoiceReach (LBPCount)")
	flag.IntVar(&o.AverageLast, "avg", def.AverageLast, "AverageLast")
	flag.BoolVar(&o.ChoiceReachPerSize, "reach-per-size", def.ChoiceReachPerSize, "ChoiceReachPerSize (LBPCount)")
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
	for _, m := range strings.Split(*methods, ",") {
		opt := o
		opt.Lifted = m == "lbpcount"
		if !opt.Lifted {
			opt.ChoiceSlack = 0
		}
		cpu0 := cpu()
		r, err := count.BPCount(context.Background(), c, opt)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		secs := cpu() - cpu0
		var runs, reused, forced, probed, iters, attempts, conv, satc int
		var exact, bpSecs float64
		var errs []string
		for _, t := range r.Trials {
			probed += t.Probed
			exact += t.ExactSeconds
			satc += t.SATComplete
			errs = append(errs, fmt.Sprintf("%+.2f", t.EstimateLog10-*truth))
			for _, s := range t.Steps {
				if s.Reused {
					reused++
				} else {
					runs++
					if s.Converged {
						conv++
					}
				}
				if s.Forced {
					forced++
				}
				iters += s.Iterations
				attempts += s.Attempts
				bpSecs += s.Seconds
			}
		}
		fmt.Printf("%s seed %d slack %g tol %g: bound %.2f; errors %s; steps %d (BP runs %d, converged %d, reused %d, forced %d), probed %d, attempts %d, iterations %d (%.0f/run), msgs ground %d lifted %d (saved %.1f%%), CPU %.2f s (BP+colour %.2f s wall, exact %.2f s wall), cdcl %d\n",
			m, opt.Seed, opt.ChoiceSlack, opt.Tol, r.LowerBoundLog10, strings.Join(errs, " "), r.Steps, runs, conv, reused, forced, probed, attempts, iters, float64(iters)/float64(runs),
			r.MessagesGround, r.MessagesLifted, 100*(1-float64(r.MessagesLifted)/float64(r.MessagesGround)), secs, bpSecs, exact, satc)
	}
}

func cpu() float64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}
