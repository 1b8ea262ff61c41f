// Command seeds runs BPCount or LBPCount over several seeds with the
// defaults or the options given, and prints per seed the trials' estimates,
// the bound by each statistic (count.BoundProduct, count.BoundMin), the steps,
// the messages saved and the process CPU seconds; then the median and the
// minimum of the bounds over the seeds. It measures the levers of issue 26
// one at a time (experiments/lbpcount/RESULTS.md).
//
//	go run ./experiments/lbpcount/seeds -seeds 1,2,3,4,5 [-bpcount] [-residual-vars 80] ...
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"

	"github.com/lifted-dev/lifted/count"
	"github.com/lifted-dev/lifted/format/dimacs"
	"github.com/lifted-dev/lifted/infer/bp"
	"github.com/lifted-dev/lifted/internal/benchstat"
)

func main() {
	def := count.DefaultBPCountOptions()
	path := flag.String("cnf", "../shared/data/cnf/2bitmax_6.cnf", "DIMACS file")
	seeds := flag.String("seeds", "1,2,3,4,5", "comma-separated seeds")
	truth := flag.Float64("truth", 29.3156, "log10 of the true count (for the error columns)")
	ground := flag.Bool("bpcount", false, "BPCount (ground BP, BPCount's choice) instead of LBPCount")
	o := def
	flag.IntVar(&o.Trials, "trials", def.Trials, "trials t")
	flag.Float64Var(&o.Alpha, "alpha", def.Alpha, "α")
	flag.IntVar(&o.ResidualVars, "residual-vars", def.ResidualVars, "ResidualVars")
	flag.Float64Var(&o.Damping, "damping", def.Damping, "Damping")
	flag.IntVar(&o.MaxIter, "max-iter", def.MaxIter, "MaxIter")
	flag.Float64Var(&o.Tol, "tol", def.Tol, "Tol")
	flag.Float64Var(&o.MinProb, "min-prob", def.MinProb, "MinProb")
	flag.Float64Var(&o.ChoiceSlack, "slack", def.ChoiceSlack, "ChoiceSlack (LBPCount)")
	seq := flag.Bool("sequential", false, "BP's sequential schedule")
	prof := flag.String("cpuprofile", "", "write a CPU profile of the runs to this file")
	flag.Parse()
	if *prof != "" {
		pf, err := os.Create(*prof)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		defer pf.Close()
		if err := pprof.StartCPUProfile(pf); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		defer pprof.StopCPUProfile()
	}
	if *seq {
		o.Schedule = bp.Sequential
	}
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
	run, name := count.LBPCount, "lbpcount"
	if *ground {
		run, name = count.BPCount, "bpcount"
	}
	fmt.Printf("## %s, %s: %v\n\n", name, *path, strings.Join(os.Args[1:], " "))
	fmt.Println("| seed | log10 estimates − truth | bound product | bound min | steps | messages saved | CPU s |")
	fmt.Println("|---|---|---|---|---|---|---|")
	var prod, mins []float64
	for _, s := range strings.Split(*seeds, ",") {
		seed, err := strconv.ParseUint(strings.TrimSpace(s), 10, 64)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		o.Seed = seed
		cpu0 := benchstat.CPUSeconds()
		r, err := run(context.Background(), c, o)
		cpu := benchstat.CPUSeconds() - cpu0
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		est := make([]float64, len(r.Trials))
		var errs []string
		for i, t := range r.Trials {
			est[i] = t.EstimateLog10
			errs = append(errs, fmt.Sprintf("%+.2f", t.EstimateLog10-*truth))
		}
		p, m := count.LowerBound(est, o.Alpha, count.BoundProduct), count.LowerBound(est, o.Alpha, count.BoundMin)
		prod, mins = append(prod, p), append(mins, m)
		saved := 100 * (1 - float64(r.MessagesLifted)/float64(r.MessagesGround))
		fmt.Printf("| %d | %s | %.2f | %.2f | %d | %.1f%% | %.1f |\n", seed, strings.Join(errs, " "), p, m, r.Steps, saved, cpu)
	}
	fmt.Printf("\nbound product: median %.2f, min %.2f; bound min: median %.2f, min %.2f (truth %.2f)\n",
		median(prod), slices.Min(prod), median(mins), slices.Min(mins), *truth)
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}
