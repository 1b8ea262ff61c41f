package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"time"

	"github.com/spf13/cobra"

	"github.com/lifted-dev/lifted/count"
	"github.com/lifted-dev/lifted/engine"
	"github.com/lifted-dev/lifted/internal/suggest"
)

type countFlags struct {
	o                                            count.BPCountOptions // the flags bind to its fields
	method, output, outFormat, bpGraph, recolour string
	timeout                                      time.Duration
	perStep, quiet                               bool
}

func newCountCmd() *cobra.Command {
	f := countFlags{o: count.DefaultBPCountOptions()}
	def := f.o
	cmd := &cobra.Command{
		Use:   "count [flags] FORMULA.cnf|MODEL.uai",
		Short: "Model counting: exact, or a probabilistic lower bound by (lifted) BPCount",
		Long: `count counts the models (satisfying assignments) of a propositional formula in
DIMACS CNF, or of a UAI model of binary variables whose tables hold only 0 and 1
(a constraint network: each zero entry is a clause excluding that assignment).

  --method exact     an exact count (DPLL with unit propagation, component
                     decomposition and a component cache, as sharpSAT); use
                     --timeout for formulas that may be too hard.
  --method bpcount   BPCount (Kroc, Sabharwal & Selman 2008): each trial fixes
                     the variable whose damped-BP marginal is most balanced, draws
                     its value with probability given by the marginal (clamped to
                     [--min-prob, 1 - --min-prob]; 1/2 when BP is frozen, every
                     marginal 0 or 1), multiplies its estimate by the inverse of
                     that probability, propagates units, and once at most
                     --residual-vars variables are left counts the rest exactly.
                     BP runs on the simplified (residual) formula, or with
                     --bp-graph evidence on the whole formula with the fixed
                     variables as evidence (the same marginals). Each estimate
                     is unbiased, so their geometric mean / 2^alpha (--bound
                     product; --bound min: min / 2^alpha) is a lower bound on
                     the count with confidence at least 1 - 2^(-alpha*t).
  --method lbpcount  the same with lifted BP (colour passing in CNF mode,
                     recoloured incrementally after each fixing), usually with
                     far fewer messages; it fixes, among the variables within
                     --choice-slack of the most balanced, the one of largest
                     reach / clusternode size^1.5 (--choice-slack 0: bpcount's
                     choices and bound with the same --seed). The default.

Text output: the bound, e.g. "lower bound 5.8e+28 (log10 28.76) with confidence
≥ 0.96875", and the work done. JSON (--output-format json): method,
lower_bound_log10, confidence, trials, steps, messages_ground, messages_lifted,
edges_ground, edges_lifted, seconds, and count (a decimal string) for exact;
--per-step adds every step's statistics (the quantities of Fig. 5 of the lifted
BP paper).`,
		Example: `  lifted count --method exact --timeout 1m formula.cnf
  lifted count formula.cnf                                  # LBPCount, 5 trials, alpha 1
  lifted count --method bpcount --trials 7 --seed 3 formula.cnf
  lifted count --output-format json --per-step formula.cnf > steps.json`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runCount(cmd.Context(), &f, args[0], cmd.OutOrStdout())
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.method, "method", "lbpcount", "exact, bpcount (ground BP) or lbpcount (lifted BP)")
	fl.Float64Var(&f.o.Damping, "damping", def.Damping, "BP damping in [0,1): weight of the previous message (raised to (1+d)/2 when BP does not converge)")
	fl.Float64Var(&f.o.Tol, "tol", def.Tol, "BP convergence tolerance on the largest message change")
	fl.IntVar(&f.o.MaxIter, "max-iter", def.MaxIter, "BP iteration limit per run")
	fl.IntVar(&f.o.Trials, "trials", def.Trials, "number of independent estimates t")
	fl.Float64Var(&f.o.Alpha, "alpha", def.Alpha, "slack alpha > 0: the bound is (geometric mean of the estimates)/2^alpha, confidence 1 - 2^(-alpha*trials)")
	fl.Var(&f.o.Bound, "bound", "statistic of the bound: product (Markov on the estimates' product: geometric mean/2^alpha) or min (min/2^alpha)")
	fl.Uint64Var(&f.o.Seed, "seed", 1, "random seed (runs are reproducible)")
	fl.IntVar(&f.o.ResidualVars, "residual-vars", def.ResidualVars, "count exactly once at most this many variables occur in open clauses")
	fl.Float64Var(&f.o.MinProb, "min-prob", def.MinProb, "clamp BP marginals to [p, 1-p] when drawing a value (0.5: a fair coin)")
	fl.Float64Var(&f.o.FrozenTol, "frozen-tol", def.FrozenTol, "when every open BP marginal is within this of 0 or 1 (frozen BP), draw the value with probability 1/2 (0: trust frozen marginals)")
	fl.IntVar(&f.o.SATBudget, "sat-budget", def.SATBudget, "decisions of the satisfiability check of each value before drawing it (0: unit propagation only)")
	fl.Int64Var(&f.o.SATConflicts, "sat-conflicts", def.SATConflicts, "conflicts of the complete (CDCL) satisfiability check of a value that --sat-budget decisions did not decide (0: none)")
	fl.StringVar(&f.bpGraph, "bp-graph", "residual", "graph BP runs on: residual (the simplified formula) or evidence (the whole formula, assigned variables as evidence); same marginals")
	fl.Float64Var(&f.o.ChoiceSlack, "choice-slack", def.ChoiceSlack, "lbpcount (ignored by bpcount): fix, among the variables whose marginal is within this of the most balanced, the one of largest reach (variables its two values fix by unit propagation) / clusternode size^1.5 (0: the most balanced, as bpcount; see experiments/lbpcount)")
	fl.StringVar(&f.recolour, "recolour", "incremental", "lbpcount: colour each step's graph incrementally from the previous step's colouring (the same colouring as from scratch), from scratch, or refine (incremental without merging classes: stable, possibly finer)")
	fl.IntVar(&f.o.Workers, "workers", runtime.NumCPU(), "trials run at once (the results do not depend on it)")
	fl.DurationVar(&f.timeout, "timeout", 0, "give up after this long (e.g. 30s, 10m; 0: no limit)")
	fl.StringVarP(&f.output, "output", "o", "", "output file (default stdout)")
	fl.StringVar(&f.outFormat, "output-format", "text", "text or json")
	fl.BoolVar(&f.perStep, "per-step", false, "also print every step's statistics (text: a table; json: \"per_step\")")
	fl.BoolVar(&f.quiet, "quiet", false, "no progress on stderr")
	groupFlags(cmd, flagGroup{"Flags of --method bpcount, lbpcount", []string{"damping", "tol", "max-iter", "trials", "alpha", "bound", "seed", "residual-vars",
		"min-prob", "frozen-tol", "sat-budget", "sat-conflicts", "bp-graph", "workers", "per-step"}},
		flagGroup{"Flags of --method lbpcount", []string{"choice-slack", "recolour"}})
	return cmd
}

func (f *countFlags) options() (count.BPCountOptions, error) {
	o := f.o
	switch f.method {
	case "bpcount":
	case "lbpcount":
		o.Lifted = true
	default:
		return o, usageError{fmt.Errorf("unknown --method %q (want exact, bpcount or lbpcount)%s", f.method, suggest.Hint(f.method, []string{"exact", "bpcount", "lbpcount"}))}
	}
	var oe *count.OptionError
	if err := o.Check(); errors.As(err, &oe) {
		return o, usageError{fmt.Errorf("--%v", oe)}
	}
	var ok bool
	if o.Graph, ok = count.BPGraphs[f.bpGraph]; !ok {
		return o, usageError{fmt.Errorf("unknown --bp-graph %q (want residual or evidence)", f.bpGraph)}
	}
	if o.Recolour, ok = count.Recolourings[f.recolour]; !ok {
		return o, usageError{fmt.Errorf("unknown --recolour %q (want incremental, scratch or refine)", f.recolour)}
	}
	return o, nil
}

func runCount(ctx context.Context, f *countFlags, path string, stdout io.Writer) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if f.outFormat != "text" && f.outFormat != "json" {
		return usageError{fmt.Errorf("unknown --output-format %q (want text or json)", f.outFormat)}
	}
	if f.timeout < 0 {
		return usageError{fmt.Errorf("--timeout must be non-negative, got %v", f.timeout)}
	}
	var opt count.BPCountOptions
	if f.method != "exact" {
		var err error
		if opt, err = f.options(); err != nil {
			return err
		}
	}
	c, err := count.ReadInput(path)
	if err != nil {
		return cmdError(path, err)
	}
	if f.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, f.timeout)
		defer cancel()
	}
	prog := newProgress(f.quiet)
	// LimitHeap: the command runs one count, so the runtime's memory limit
	// can keep resident memory near the cache bound.
	res, text, err := engine.Count(ctx, c, engine.CountOptions{Method: f.method, BP: opt, PerStep: f.perStep, LimitHeap: true, Progress: prog.report})
	prog.done()
	if err != nil {
		return timeoutError(err, f.timeout)
	}
	return writeOutput(f.output, stdout, func(w io.Writer) error {
		if f.outFormat == "json" {
			return engine.WriteJSON(w, res)
		}
		return text(w)
	})
}

// timeoutError names the --timeout when it is what stopped the run.
func timeoutError(err error, timeout time.Duration) error {
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("timed out after %v (--timeout)", timeout)
	}
	return err
}
