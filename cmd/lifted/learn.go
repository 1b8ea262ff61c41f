package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

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
  dn   discriminative: maximises the conditional likelihood of the --ne
       predicates given the others by diagonal Newton with expected counts
       from MC-SAT on the ground network (Lowd and Domingos 2007; Alchemy's
       and Tuffy's setting; no limit on the size of a ground clause; scg
       falls back to it when a ground clause is too large for BP).
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
			if f.method == "dn" {
				return runDiscLearn(cmd.Context(), &f, cmd.OutOrStdout())
			}
			if online.IsMethod(f.method) {
				err := runOnlineLearn(cmd.Context(), &f.online, onlineRun{
					Method: f.method, Input: f.input, Train: f.train, Output: f.output, Quiet: f.quiet,
					MaxIter: f.maxIter, Tol: f.tol, PriorStdDev: f.priorStdDev,
				}, cmd.OutOrStdout())
				if f.method == "scg" && errors.Is(err, online.ErrClauseTooLarge) {
					// the BP learner's ground clauses are tables: MC-SAT's counts have no such limit
					if !f.quiet {
						fmt.Fprintf(os.Stderr, "lifted: scg: %v; learning with --method dn (diagonal Newton, MC-SAT counts) instead\n", err)
					}
					return runDiscLearn(cmd.Context(), &f, cmd.OutOrStdout())
				}
				return err
			}
			for _, n := range []string{"plot", "plot-with", "log", "holdout", "eval-every"} {
				if cmd.Flags().Changed(n) {
					return usageError{fmt.Errorf("--%s draws or logs the test-CMLL learning curve of the online learners (--method smd, sgd, scg or lbfgs-bp, with --holdout); --method %s has no such curve", n, f.method)}
				}
			}
			return runLearn(&f, cmd.OutOrStdout())
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.method, "method", "lwl", "lwl (exact lifted likelihood), pll (pseudo-likelihood), or smd, sgd, scg, lbfgs-bp (see --ne)")
	fl.StringVarP(&f.input, "input", "i", "", "the MLN whose formula weights to learn (required)")
	fl.StringSliceVarP(&f.train, "train", "t", nil, "training databases, comma-separated or repeated (required)")
	fl.StringVarP(&f.output, "output", "o", "", "learned MLN file (default stdout)")
	fl.Float64Var(&f.priorMean, "prior-mean", 0, "mean of the Gaussian prior on weights")
	fl.Float64Var(&f.priorStdDev, "prior-stddev", 100, "standard deviation of the Gaussian prior (negative: no prior)")
	fl.IntVar(&f.maxIter, "max-iter", 1000, "maximum L-BFGS iterations")
	fl.Float64Var(&f.tol, "tol", 1e-8, "stop when the largest gradient component is below this")
	fl.BoolVar(&f.pllUnweighted, "pll-unweighted", false, "pll: weight all ground atoms alike instead of all predicates alike")
	fl.BoolVar(&f.quiet, "quiet", false, "no progress or summary on stderr")
	f.online.register(fl)
	return cmd
}

func runLearn(f *learnFlags, stdout io.Writer) error {
	if f.input == "" {
		return usageError{fmt.Errorf("learn needs the model: -i STRUCT.mln")}
	}
	if len(f.train) == 0 {
		return usageError{fmt.Errorf("learn needs training data: -t A.db[,B.db…]")}
	}
	if f.method != "lwl" && f.method != "pll" {
		return usageError{fmt.Errorf("unknown --method %q (want lwl, pll, dn, smd, sgd, scg or lbfgs-bp)", f.method)}
	}
	out, err := openOutput(f.output)
	if err != nil {
		return err
	}
	prog := newProgress(f.quiet)
	opt := &learn.Options{
		PriorMean: f.priorMean, PriorStdDev: f.priorStdDev, MaxIter: f.maxIter, GradTol: f.tol,
		UnweightedPLL: f.pllUnweighted,
		Progress: func(it int, obj float64) {
			prog.update(f.method, int64(it), int64(f.maxIter), fmt.Sprintf("L-BFGS iteration %d, objective %.10g", it, obj))
		},
		Stage: func(stage string, done, total int64, detail string) { prog.update(stage, done, total, detail) },
	}
	if err := opt.Check(); err != nil {
		return usageError{err}
	}
	m, err := readMLNQuiet(f.input, f.quiet)
	if err != nil {
		return err
	}
	m, res, err := learn.Files(m, f.method, f.train, opt)
	prog.done()
	if err != nil {
		return err
	}
	if !f.quiet {
		what := "log-likelihood"
		if f.method == "pll" {
			what = "pseudo-log-likelihood"
		}
		fmt.Fprintf(os.Stderr, "lifted: %s: %d iterations, %d evaluations, training %s %.10g, %.3f s (%s)\n",
			f.method, res.Iterations, res.Evaluations, what, res.LogLik, res.Seconds, res.Status)
	}
	header := fmt.Sprintf("Learned by lifted learn --method %s from %s\n%s %.10g, prior N(%g, %g²)",
		f.method, trainNames(f.train), map[string]string{"lwl": "training log-likelihood", "pll": "training pseudo-log-likelihood"}[f.method],
		res.LogLik, f.priorMean, f.priorStdDev)
	return out.Write(stdout, func(w io.Writer) error {
		return learn.WriteMLN(w, m, res.Weights, header)
	})
}

// runDiscLearn runs "lifted learn --method dn" (learn.DiscFiles).
func runDiscLearn(ctx context.Context, f *learnFlags, stdout io.Writer) error {
	if f.input == "" || len(f.train) == 0 {
		return usageError{fmt.Errorf("learn needs -i STRUCT.mln and -t A.db[,B.db…]")}
	}
	if len(f.online.ne) == 0 {
		return usageError{fmt.Errorf("--method dn needs the query predicates: --ne P[,Q…]")}
	}
	m, err := readMLNQuiet(f.input, f.quiet)
	if err != nil {
		return err
	}
	prog := newProgress(f.quiet)
	maxIter := f.maxIter
	if maxIter == 1000 { // the L-BFGS default; diagonal Newton's is 100
		maxIter = 100
	}
	m, res, err := learn.DiscFiles(ctx, m, f.train, learn.DiscOptions{
		NE: f.online.ne, PriorMean: f.priorMean, PriorStdDev: f.priorStdDev, MaxIter: maxIter, Seed: f.online.c.Seed,
		Progress: func(it int, g float64) {
			prog.update("dn", int64(it), int64(maxIter), fmt.Sprintf("diagonal Newton iteration %d, largest gradient per open ground formula %.3g", it, g))
		},
	})
	prog.done()
	if err != nil {
		return err
	}
	if !f.quiet {
		fmt.Fprintf(os.Stderr, "lifted: dn: %d iterations, %d evaluations, %.3f s (%s)\n", res.Iterations, res.Evaluations, res.Seconds, res.Status)
	}
	header := fmt.Sprintf("Learned by lifted learn --method dn --ne %s from %s\nconditional likelihood, diagonal Newton with MC-SAT counts, prior N(%g, %g²)",
		strings.Join(f.online.ne, ","), trainNames(f.train), f.priorMean, f.priorStdDev)
	return writeOutput(f.output, stdout, func(w io.Writer) error {
		return learn.WriteMLN(w, m, res.Weights, header)
	})
}

func trainNames(paths []string) string {
	names := make([]string, len(paths))
	for i, p := range paths {
		names[i] = filepath.Base(p)
	}
	return strings.Join(names, ", ")
}
