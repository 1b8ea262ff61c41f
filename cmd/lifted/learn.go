package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/lifted-dev/lifted/learn"
	"github.com/lifted-dev/lifted/online"
)

type learnFlags struct {
	online        onlineFlags // --method smd|sgd|scg|lbfgs-bp (learn_online.go)
	method        string
	input         string
	train         []string
	output        string
	priorMean     float64
	priorStdDev   float64
	maxIter       int
	tol           float64
	pllUnweighted bool
	quiet         bool
	allowPartial  bool
	learningRate  float64
	counts        string
}

func newLearnCmd() *cobra.Command {
	var f learnFlags
	cmd := &cobra.Command{
		Use:     "learn --method lwl|pll -i STRUCT.mln -t A.db[,B.db…] [-o LEARNED.mln]",
		Aliases: []string{"learnwts"},
		Short:   "Learn formula weights from training databases (exact lifted likelihood, or pseudo-likelihood)",
		Long: `learn fits the weights of the formulas of STRUCT.mln to one or more training
databases (closed world: atoms a database does not list are false; each
database has its own domain, the constants it and the model name) and writes
the learned MLN: the declarations, then one line per formula with the
learned weight and the formula as written in the input (hard formulas
unchanged).

Methods:
  lwl  maximises the exact likelihood, computed by weighted first-order model
       counting (no grounding): gradient = counts in the data − expected
       counts. Needs a liftable model (see 'lifted wfomc').
  pll  maximises the pseudo-log-likelihood on the ground model, Alchemy's
       default generative learner (predicates weighted equally unless
       --pll-unweighted).
  dn   discriminative (Alchemy's learnwts -d): maximises the conditional
       likelihood of the --ne predicates given the others, starting from
       the conditional pseudo-likelihood's optimum, by diagonal Newton with
       expected counts from MC-SAT on the ground network, chains started at
       the data (Lowd and Domingos 2007; no limit on the size of a ground
       clause; scg falls back to it when a ground clause is too large for
       BP); prior N(0, 2²) unless --prior-stddev.
  dscg, vp
       the same discriminative learner (MC-SAT counts, chains started at
       the data, the pseudo-likelihood start) with another optimiser:
       dscg scaled conjugate gradient (Alchemy's -d and -dCG), vp the voted
       perceptron (Alchemy's -dVP; --learning-rate, the mean of the
       iterates). dn, dscg and vp say "converged" only when the test also
       passes on fresh chains started with every query atom false.
  smd, sgd, scg, lbfgs-bp
       online and BP-based discriminative learners over the non-evidence
       predicates given by --ne (their flags are listed below); without
       --ne every predicate is predicted (generative, as Alchemy's -g),
       which needs training data that observe every atom.

lwl and pll use L-BFGS with a Gaussian prior N(--prior-mean,
--prior-stddev²) on every weight.`,
		Example: `  lifted learn --method lwl -i smoking.mln -t smoking-train.db -o learned.mln
  lifted learn --method pll -i uwcse.mln -t fold1.db,fold2.db,fold3.db -o pll.mln
  lifted learn -i model.mln -t a.db -t b.db --prior-stddev 10`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			if !cmd.Flags().Changed("prior-stddev") && (f.method == "scg" || f.method == "lbfgs-bp") {
				f.priorStdDev = 2 // as below, for the BP-based discriminative learners
			}
			if online.IsMethod(f.method) {
				err := runOnlineLearn(cmd.Context(), &f, cmd.OutOrStdout())
				if f.method != "scg" || !errors.Is(err, online.ErrClauseTooLarge) {
					return err
				}
				// the BP learner's ground clauses are tables: MC-SAT's counts have no such limit
				if !f.quiet {
					fmt.Fprintf(os.Stderr, "lifted: scg: %v; learning with --method dn (diagonal Newton, MC-SAT counts) instead\n", err)
				}
				f.method = "dn"
			}
			if !cmd.Flags().Changed("prior-stddev") && (isDiscMethod(f.method) || f.method == "scg" || f.method == "lbfgs-bp") {
				// Alchemy's learnwts: 2 for discriminative learning, 100 for generative (DISC_DEFAULT_STD_DEV, GEN_DEFAULT_STD_DEV)
				f.priorStdDev = 2
			}
			for _, n := range []string{"plot", "plot-with", "log", "holdout", "eval-every"} {
				if !isDiscMethod(f.method) && cmd.Flags().Changed(n) {
					return usageError{fmt.Errorf("--%s draws or logs the test-CMLL learning curve of the online learners (--method smd, sgd, scg or lbfgs-bp, with --holdout); --method %s has no such curve", n, f.method)}
				}
			}
			return runLearn(cmd.Context(), cmd, &f, cmd.OutOrStdout())
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.method, "method", "lwl", "lwl (exact lifted likelihood), pll (pseudo-likelihood), dn (discriminative, diagonal Newton), or smd, sgd, scg, lbfgs-bp (see --ne); the flags below are grouped by the methods they apply to")
	fl.StringVarP(&f.input, "input", "i", "", "the MLN whose formula weights to learn (required)")
	fl.StringSliceVarP(&f.train, "train", "t", nil, "training databases, comma-separated or repeated (required)")
	fl.StringVarP(&f.output, "output", "o", "", "learned MLN file (default stdout)")
	fl.Float64Var(&f.priorMean, "prior-mean", 0, "mean of the Gaussian prior on weights")
	fl.Float64Var(&f.priorStdDev, "prior-stddev", 100, "standard deviation of the Gaussian prior (negative: no prior); default 100 for lwl and pll, 2 for the discriminative dn, scg and lbfgs-bp (Alchemy's learnwts: 100 with -g, 2 with -d)")
	fl.IntVar(&f.maxIter, "max-iter", 1000, "maximum iterations (lwl, pll, scg, lbfgs-bp: of L-BFGS or SCG; dn: of diagonal Newton after the pseudo-likelihood start, default 5; negative: none)")
	fl.Float64Var(&f.tol, "tol", 1e-8, "stop when the largest gradient component is below this")
	fl.BoolVar(&f.pllUnweighted, "pll-unweighted", false, "pll: weight all ground atoms alike instead of all predicates alike")
	fl.Float64Var(&f.learningRate, "learning-rate", 0.001, "vp: the voted perceptron's step per unit of gradient (Alchemy's -dLearningRate)")
	fl.StringVar(&f.counts, "counts", "mcsat", "dn, dscg, vp: where the expected counts come from: mcsat (MC-SAT chains started at the data, 5 iterations by default) or bp (belief propagation on each training database to a fixed point, no Monte Carlo noise, up to 100 iterations until the Newton steps are below 0.01)")
	fl.BoolVar(&f.quiet, "quiet", false, "no progress or summary on stderr")
	fl.BoolVar(&f.allowPartial, "allow-partial", false, "on Ctrl-C or SIGTERM write the weights reached so far (lwl, pll, dn, dscg, vp, scg, lbfgs-bp: of the last iteration; smd, sgd: after the last mini-batch), marked INTERRUPTED in the header, instead of failing with exit status 130")
	f.online.register(fl)
	groupFlags(cmd,
		flagGroup{"Flags of lwl, pll, dn, dscg, vp, scg and lbfgs-bp", []string{"max-iter", "prior-stddev"}},
		flagGroup{"Flags of lwl, pll, scg and lbfgs-bp", []string{"tol"}},
		flagGroup{"Flags of lwl, pll, dn, dscg and vp", []string{"prior-mean"}},
		flagGroup{"Flags of pll", []string{"pll-unweighted"}},
		flagGroup{"Flags of vp", []string{"learning-rate"}},
		flagGroup{"Flags of dn, dscg and vp", []string{"counts"}},
		flagGroup{"Flags of dn, dscg, vp, smd, sgd, scg and lbfgs-bp", []string{"ne", "seed"}},
		flagGroup{"Flags of the online and BP-based learners: smd, sgd, scg and lbfgs-bp", []string{"holdout", "eval-every", "log", "plot", "plot-with", "ground-bp", "workers", "shards"}},
		flagGroup{"Flags of smd and sgd", []string{"pieces", "depth", "discount", "batch-size", "step", "passes"}},
		flagGroup{"Flags of smd", []string{"smd-lambda", "smd-mu", "smd-gamma"}})
	return cmd
}

// runLearn runs "lifted learn --method lwl|pll|dn" (learn.Run).
func runLearn(ctx context.Context, cmd *cobra.Command, f *learnFlags, stdout io.Writer) error {
	switch {
	case isDiscMethod(f.method) && (f.input == "" || len(f.train) == 0):
		return usageError{fmt.Errorf("learn needs -i STRUCT.mln and -t A.db[,B.db…]")}
	case f.input == "":
		return usageError{fmt.Errorf("learn needs the model: -i STRUCT.mln")}
	case len(f.train) == 0:
		return usageError{fmt.Errorf("learn needs training data: -t A.db[,B.db…]")}
	}
	r := learn.Run{Method: f.method, Train: f.train, PriorMean: f.priorMean, PriorStdDev: f.priorStdDev,
		Tol: f.tol, UnweightedPLL: f.pllUnweighted, NE: f.online.ne, Seed: f.online.c.Seed, LearningRate: f.learningRate,
		Counts: f.counts}
	if cmd.Flags().Changed("max-iter") {
		r.MaxIter = f.maxIter // else the method's default
	}
	if err := r.Check(); err != nil {
		return usageError{err}
	}
	if cmd.Flags().Changed("counts") && !isDiscMethod(f.method) {
		return usageError{fmt.Errorf("--counts applies to --method dn, dscg and vp, not %s", f.method)}
	}
	if cmd.Flags().Changed("learning-rate") && f.method != "vp" {
		return usageError{fmt.Errorf("--learning-rate is the voted perceptron's (--method vp), not %s's", f.method)}
	}
	out, err := openOutput(f.output)
	if err != nil {
		return err
	}
	m, err := readMLNQuiet(f.input, f.quiet)
	if err != nil {
		return err
	}
	prog := newProgress(f.quiet)
	r.Progress = prog.update
	if f.allowPartial {
		partialGrace.Store(true)
	}
	l, err := r.Learn(ctx, m)
	prog.done()
	if err != nil {
		return err
	}
	if l.Interrupted {
		if !f.allowPartial {
			return &interruptedError{fmt.Sprintf("%s: learning %s; nothing written (--allow-partial writes the weights so far, marked as such)", f.input, l.Status)}
		}
		fmt.Fprintf(os.Stderr, "lifted: warning: learning %s (--allow-partial): the weights written are not the optimum\n", l.Status)
	}
	if !f.quiet {
		fmt.Fprintln(os.Stderr, "lifted: "+l.Summary)
	}
	return out.Write(stdout, func(w io.Writer) error { return learn.WriteMLN(w, l.MLN, l.Weights, l.Header) })
}

// isDiscMethod reports whether method is one of learn's discriminative
// learners with MC-SAT counts (dn, dscg, vp).
func isDiscMethod(method string) bool {
	return method == "dn" || method == "dscg" || method == "vp"
}
