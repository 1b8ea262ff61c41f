package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"runtime"
	"time"

	"github.com/spf13/cobra"

	"github.com/lifted-dev/lifted/cnf"
	"github.com/lifted-dev/lifted/count"
	"github.com/lifted-dev/lifted/format"
)

type countFlags struct {
	method       string
	damping      float64
	tol          float64
	maxIter      int
	trials       int
	alpha        float64
	seed         uint64
	residualVars int
	minProb      float64
	frozenTol    float64
	satBudget    int
	satConflicts int64
	timeout      time.Duration
	output       string
	outFormat    string
	workers      int
	bpGraph      string
	choiceSlack  float64
	recolour     string
	perStep      bool
	quiet        bool
}

func newCountCmd() *cobra.Command {
	var f countFlags
	def := count.DefaultBPCountOptions()
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
                     is unbiased, so min over --trials t estimates / 2^alpha is
                     a lower bound on the count with confidence at least
                     1 - 2^(-alpha*t).
  --method lbpcount  the same with lifted BP (colour passing in CNF mode,
                     recoloured incrementally after each fixing), usually with
                     far fewer messages; it fixes, among the variables within
                     --choice-slack of the most balanced, one in the smallest
                     clusternode (with --choice-slack 0: the same choices and
                     bound as bpcount with the same --seed). The default.

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
	fl.Float64Var(&f.damping, "damping", def.Damping, "BP damping in [0,1): weight of the previous message (raised to (1+d)/2 when BP does not converge)")
	fl.Float64Var(&f.tol, "tol", def.Tol, "BP convergence tolerance on the largest message change")
	fl.IntVar(&f.maxIter, "max-iter", def.MaxIter, "BP iteration limit per run")
	fl.IntVar(&f.trials, "trials", def.Trials, "number of independent estimates t")
	fl.Float64Var(&f.alpha, "alpha", def.Alpha, "slack alpha > 0: the bound is min(estimates)/2^alpha")
	fl.Uint64Var(&f.seed, "seed", 1, "random seed (runs are reproducible)")
	fl.IntVar(&f.residualVars, "residual-vars", def.ResidualVars, "count exactly once at most this many variables occur in open clauses")
	fl.Float64Var(&f.minProb, "min-prob", def.MinProb, "clamp BP marginals to [p, 1-p] when drawing a value (0.5: a fair coin)")
	fl.Float64Var(&f.frozenTol, "frozen-tol", def.FrozenTol, "when every open BP marginal is within this of 0 or 1 (frozen BP), draw the value with probability 1/2 (0: trust frozen marginals)")
	fl.IntVar(&f.satBudget, "sat-budget", def.SATBudget, "decisions of the satisfiability check of each value before drawing it (0: unit propagation only)")
	fl.Int64Var(&f.satConflicts, "sat-conflicts", def.SATConflicts, "conflicts of the complete (CDCL) satisfiability check of a value that --sat-budget decisions did not decide (0: none)")
	fl.StringVar(&f.bpGraph, "bp-graph", "residual", "graph BP runs on: residual (the simplified formula) or evidence (the whole formula, assigned variables as evidence); same marginals")
	fl.Float64Var(&f.choiceSlack, "choice-slack", def.ChoiceSlack, "lbpcount (ignored by bpcount): fix, among the variables whose marginal is within this of the most balanced, one in the smallest clusternode (0: the most balanced, as bpcount; see experiments/lbpcount)")
	fl.StringVar(&f.recolour, "recolour", "incremental", "lbpcount: colour each step's graph incrementally from the previous step's colouring (the same colouring as from scratch), from scratch, or refine (incremental without merging classes: stable, possibly finer)")
	fl.IntVar(&f.workers, "workers", runtime.NumCPU(), "trials run at once (the results do not depend on it)")
	fl.DurationVar(&f.timeout, "timeout", 0, "give up after this long (e.g. 30s, 10m; 0: no limit)")
	fl.StringVarP(&f.output, "output", "o", "", "output file (default stdout)")
	fl.StringVar(&f.outFormat, "output-format", "text", "text or json")
	fl.BoolVar(&f.perStep, "per-step", false, "also print every step's statistics (text: a table; json: \"per_step\")")
	fl.BoolVar(&f.quiet, "quiet", false, "no progress on stderr")
	return cmd
}

func (f *countFlags) options() (count.BPCountOptions, error) {
	o := count.DefaultBPCountOptions()
	switch f.method {
	case "bpcount":
	case "lbpcount":
		o.Lifted = true
	default:
		return o, usageError{fmt.Errorf("unknown --method %q (want exact, bpcount or lbpcount)", f.method)}
	}
	switch {
	case !(f.damping >= 0 && f.damping < 1):
		return o, usageError{fmt.Errorf("--damping must be in [0, 1), got %v", f.damping)}
	case !(f.tol >= 0):
		return o, usageError{fmt.Errorf("--tol must be non-negative, got %v", f.tol)}
	case f.maxIter < 1:
		return o, usageError{fmt.Errorf("--max-iter must be at least 1, got %d", f.maxIter)}
	case f.trials < 1:
		return o, usageError{fmt.Errorf("--trials must be at least 1, got %d", f.trials)}
	case !(f.alpha > 0) || math.IsInf(f.alpha, 1):
		return o, usageError{fmt.Errorf("--alpha must be positive, got %v", f.alpha)}
	case f.residualVars < 0:
		return o, usageError{fmt.Errorf("--residual-vars must be non-negative, got %d", f.residualVars)}
	case !(f.minProb > 0 && f.minProb <= 0.5):
		return o, usageError{fmt.Errorf("--min-prob must be in (0, 0.5], got %v", f.minProb)}
	case !(f.frozenTol >= 0 && f.frozenTol < 0.5):
		return o, usageError{fmt.Errorf("--frozen-tol must be in [0, 0.5), got %v", f.frozenTol)}
	case f.satBudget < 0:
		return o, usageError{fmt.Errorf("--sat-budget must be non-negative, got %d", f.satBudget)}
	case f.satConflicts < 0:
		return o, usageError{fmt.Errorf("--sat-conflicts must be non-negative, got %d", f.satConflicts)}
	case f.workers < 1:
		return o, usageError{fmt.Errorf("--workers must be at least 1, got %d", f.workers)}
	}
	switch f.bpGraph {
	case "residual":
		o.Graph = count.ResidualGraph
	case "evidence":
		o.Graph = count.EvidenceGraph
	default:
		return o, usageError{fmt.Errorf("unknown --bp-graph %q (want residual or evidence)", f.bpGraph)}
	}
	if !(f.choiceSlack >= 0 && f.choiceSlack <= 0.5) {
		return o, usageError{fmt.Errorf("--choice-slack must be in [0, 0.5], got %v", f.choiceSlack)}
	}
	if o.Lifted {
		o.ChoiceSlack = f.choiceSlack
	}
	switch f.recolour {
	case "incremental":
		o.Recolour = count.RecolourIncremental
	case "scratch":
		o.Recolour = count.RecolourScratch
	case "refine":
		o.Recolour = count.RecolourRefine
	default:
		return o, usageError{fmt.Errorf("unknown --recolour %q (want incremental, scratch or refine)", f.recolour)}
	}
	o.Workers, o.SATConflicts = f.workers, f.satConflicts
	o.Damping, o.Tol, o.MaxIter = f.damping, f.tol, f.maxIter
	o.Trials, o.Alpha, o.Seed = f.trials, f.alpha, f.seed
	o.ResidualVars, o.MinProb, o.SATBudget, o.FrozenTol = f.residualVars, f.minProb, f.satBudget, f.frozenTol
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
	c, err := readCountInput(path)
	if err != nil {
		return err
	}
	if f.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, f.timeout)
		defer cancel()
	}
	prog := newProgress(f.quiet)
	if f.method == "exact" {
		start := time.Now()
		// LimitHeap: the command runs one count, so the runtime's memory
		// limit can keep resident memory near the cache bound.
		n, _, err := count.ExactWithOptions(ctx, c, count.Options{LimitHeap: true, Progress: func(s count.Stats) {
			prog.printf("exact count", "%d decisions, %d conflicts, %d cached components (%d MB)", s.Decisions, s.Conflicts, s.CacheEntries, s.CacheBytes>>20)
		}})
		prog.done()
		if err != nil {
			return timeoutError(err, f.timeout)
		}
		secs := time.Since(start).Seconds()
		return writeOutput(f.output, stdout, func(w io.Writer) error { return writeExact(w, f.outFormat, n, secs) })
	}
	opt.Progress = func(p count.BPCountProgress) {
		prog.update(f.method, int64(p.Trial), int64(opt.Trials), fmt.Sprintf("trial %d of %d, step %d, %d variables in open clauses", p.Trial+1, opt.Trials, p.Step, p.Open))
	}
	res, err := count.BPCount(ctx, c, opt)
	prog.done()
	if err != nil {
		return timeoutError(err, f.timeout)
	}
	return writeOutput(f.output, stdout, func(w io.Writer) error {
		if f.outFormat == "json" {
			return writeBoundJSON(w, res, f.perStep)
		}
		return writeBoundText(w, res, f.perStep)
	})
}

// timeoutError names the --timeout when it is what stopped the run.
func timeoutError(err error, timeout time.Duration) error {
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("timed out after %v (--timeout)", timeout)
	}
	return err
}

func writeExact(w io.Writer, format string, n *big.Int, secs float64) error {
	l := count.Log10(n)
	if format == "json" {
		return json.NewEncoder(w).Encode(map[string]any{
			"method": "exact", "count": n.String(), "count_log10": finite(l),
			"lower_bound_log10": finite(l), "confidence": 1.0, "trials": 0, "steps": 0,
			"messages_ground": 0, "messages_lifted": 0, "edges_ground": 0, "edges_lifted": 0,
			"seconds": secs,
		})
	}
	if n.Sign() == 0 {
		_, err := fmt.Fprintf(w, "count 0 (unsatisfiable)\ntime %.3g s\n", secs)
		return err
	}
	_, err := fmt.Fprintf(w, "count %s (log10 %.2f)\ntime %.3g s\n", n, l, secs)
	return err
}

// formatLog10 writes 10^l as mantissa and exponent, e.g. 5.8e+28, for any
// finite l (the number itself may not fit a float64).
func formatLog10(l float64) string {
	if math.IsInf(l, -1) {
		return "0"
	}
	e := math.Floor(l)
	m := math.Pow(10, l-e)
	if m >= 9.95 { // rounds to 10.0
		m, e = 1, e+1
	}
	return fmt.Sprintf("%.1fe%+03d", m, int(e))
}

// savings is the percentage of messages lifted BP did not send.
func savings(lifted, ground int64) float64 {
	if ground == 0 {
		return 0
	}
	return 100 * (1 - float64(lifted)/float64(ground))
}

func writeBoundText(w io.Writer, r *count.BPCountResult, perStep bool) error {
	lb := r.LowerBoundLog10
	if math.IsInf(lb, -1) {
		fmt.Fprintf(w, "lower bound 0 (a trial's estimate was 0) with confidence ≥ %.10g\n", r.Confidence)
	} else {
		fmt.Fprintf(w, "lower bound %s (log10 %.2f) with confidence ≥ %.10g\n", formatLog10(lb), lb, r.Confidence)
	}
	fmt.Fprintf(w, "method %s, %d trials, %d steps, time %.3g s\n", r.Method, len(r.Trials), r.Steps, r.Seconds)
	fmt.Fprint(w, "estimates (log10):")
	for _, t := range r.Trials {
		fmt.Fprintf(w, " %.2f", t.EstimateLog10)
	}
	fmt.Fprintln(w)
	if r.Method == "lbpcount" && r.MessagesGround > 0 {
		first := firstStep(r)
		fmt.Fprintf(w, "messages %d lifted vs %d ground: %.1f%% fewer (first step %.1f%%); edges %.1f%% fewer\n",
			r.MessagesLifted, r.MessagesGround, savings(r.MessagesLifted, r.MessagesGround),
			savings(first.MessagesLifted, first.MessagesGround), savings(r.EdgesLifted, r.EdgesGround))
	}
	if perStep {
		fmt.Fprintln(w, "trial step var value marginal prob open damping iterations converged edges_ground edges_lifted messages_ground messages_lifted cum_edge_ratio cum_message_ratio")
		for i, t := range r.Trials {
			var eg, el, mg, ml int64
			for j, s := range t.Steps {
				eg += int64(s.EdgesGround)
				el += int64(s.EdgesLifted)
				mg += s.MessagesGround
				ml += s.MessagesLifted
				fmt.Fprintf(w, "%d %d %d %v %.4f %.4f %d %g %d %v %d %d %d %d %.4f %.4f\n", i+1, j+1, s.Var+1, s.Value,
					s.Marginal, s.Prob, s.Open, s.Damping, s.Iterations, s.Converged, s.EdgesGround, s.EdgesLifted,
					s.MessagesGround, s.MessagesLifted, ratio(el, eg), ratio(ml, mg))
			}
		}
	}
	return nil
}

func ratio(a, b int64) float64 {
	if b == 0 {
		return 1
	}
	return float64(a) / float64(b)
}

// firstStep returns the first step of the first trial that has one.
func firstStep(r *count.BPCountResult) count.Step {
	for _, t := range r.Trials {
		if len(t.Steps) > 0 {
			return t.Steps[0]
		}
	}
	return count.Step{}
}

type stepJSON struct {
	Trial          int     `json:"trial"`
	Step           int     `json:"step"`
	Var            int     `json:"var"` // DIMACS variable
	Value          bool    `json:"value"`
	Marginal       float64 `json:"marginal"`
	Prob           float64 `json:"prob"`
	Forced         bool    `json:"forced"`
	Frozen         bool    `json:"frozen"`
	Open           int     `json:"open"`
	Damping        float64 `json:"damping"`
	Uniform        bool    `json:"uniform"`
	Iterations     int     `json:"iterations"`
	Converged      bool    `json:"converged"`
	EdgesGround    int     `json:"edges_ground"`
	EdgesLifted    int     `json:"edges_lifted"`
	Clusternodes   int     `json:"clusternodes"`
	MessagesGround int64   `json:"messages_ground"`
	MessagesLifted int64   `json:"messages_lifted"`
	Seconds        float64 `json:"seconds"`
}

func writeBoundJSON(w io.Writer, r *count.BPCountResult, perStep bool) error {
	est := make([]any, len(r.Trials))
	for i, t := range r.Trials {
		est[i] = finite(t.EstimateLog10)
	}
	first := firstStep(r)
	out := map[string]any{
		"method":            r.Method,
		"lower_bound_log10": finite(r.LowerBoundLog10),
		"lower_bound":       formatLog10(r.LowerBoundLog10),
		"confidence":        r.Confidence,
		"alpha":             r.Alpha,
		"trials":            len(r.Trials),
		"steps":             r.Steps,
		"messages_ground":   r.MessagesGround,
		"messages_lifted":   r.MessagesLifted,
		"edges_ground":      r.EdgesGround,
		"edges_lifted":      r.EdgesLifted,
		"seconds":           r.Seconds,
		"estimates_log10":   est,
		"first_step": map[string]any{
			"messages_ground": first.MessagesGround, "messages_lifted": first.MessagesLifted,
			"edges_ground": first.EdgesGround, "edges_lifted": first.EdgesLifted,
		},
	}
	if perStep {
		steps := []stepJSON{}
		for i, t := range r.Trials {
			for j, s := range t.Steps {
				steps = append(steps, stepJSON{
					Trial: i + 1, Step: j + 1, Var: s.Var + 1, Value: s.Value, Marginal: s.Marginal, Prob: s.Prob,
					Forced: s.Forced, Frozen: s.Frozen, Open: s.Open, Damping: s.Damping, Uniform: s.Uniform, Iterations: s.Iterations,
					Converged: s.Converged, EdgesGround: s.EdgesGround, EdgesLifted: s.EdgesLifted,
					Clusternodes: s.Clusternodes, MessagesGround: s.MessagesGround, MessagesLifted: s.MessagesLifted,
					Seconds: s.Seconds,
				})
			}
		}
		out["per_step"] = steps
	}
	return json.NewEncoder(w).Encode(out)
}

// readCountInput reads a DIMACS CNF, or a UAI model of binary variables
// with 0/1 tables (a constraint network), whose zero entries become
// clauses.
func readCountInput(path string) (*cnf.CNF, error) {
	if f, err := format.Detect(path, ""); err != nil || (f.Name != "cnf" && f.Name != "uai") {
		return nil, usageError{fmt.Errorf("%s: count reads DIMACS CNF (.cnf, .dimacs) or a UAI model with 0/1 tables (.uai)", path)}
	}
	m, err := format.Load(path, format.Options{NoGraph: true})
	if err != nil {
		return nil, cmdError(path, err)
	}
	if m.CNF != nil {
		return m.CNF, nil
	}
	c, err := cnf.FromGraph(m.Graph)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}
