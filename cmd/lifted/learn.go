package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/lifted-dev/lifted/engine"
	"github.com/lifted-dev/lifted/learn"
	"github.com/lifted-dev/lifted/pos"
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
  disc discriminative (Alchemy's learnwts -d): maximises the conditional
       likelihood of the --ne predicates given the others, starting from
       the conditional pseudo-likelihood's optimum. Expected counts
       (--counts auto): from BP on each training database's ground network
       where BP converges there at the starting weights — deterministic,
       optimised by L-BFGS on the Bethe objective until every weight is
       within 0.05 of its standard error of the optimum (at most 100
       iterations) — else from MC-SAT chains started at the data, by
       diagonal Newton (5 iterations); the summary says which. No limit
       on the size of a ground clause; prior N(0, 2²) unless
       --prior-stddev.
  dn, dscg, vp
       the same discriminative learner with another optimiser: dn diagonal
       Newton (Lowd and Domingos 2007; Alchemy's -dNewton; scg falls back
       to it when a ground clause is too large for BP), dscg scaled
       conjugate gradient (Alchemy's -dCG), vp the voted perceptron
       (Alchemy's -dVP; --learning-rate, the mean of the iterates). With
       MC-SAT counts they say "converged" only when the test also passes
       on fresh chains started with every query atom false.
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
			return runLearn(cmd.Context(), cmd, &f, cmd.OutOrStdout())
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.method, "method", engine.DefaultLearnMethod, "lwl (exact lifted likelihood), pll (pseudo-likelihood), disc, dn, dscg, vp (discriminative), or smd, sgd, scg, lbfgs-bp (see --ne); the flags below are grouped by the methods they apply to")
	fl.StringVarP(&f.input, "input", "i", "", "the MLN whose formula weights to learn (required)")
	fl.StringSliceVarP(&f.train, "train", "t", nil, "training databases, comma-separated or repeated (required)")
	fl.StringVarP(&f.output, "output", "o", "", "learned MLN file (default stdout)")
	fl.Float64Var(&f.priorMean, "prior-mean", 0, "mean of the Gaussian prior on weights")
	fl.Float64Var(&f.priorStdDev, "prior-stddev", 100, "standard deviation of the Gaussian prior (negative: no prior); default 100 for lwl and pll, 2 for the discriminative dn, scg and lbfgs-bp (Alchemy's learnwts: 100 with -g, 2 with -d)")
	fl.IntVar(&f.maxIter, "max-iter", 1000, "maximum iterations (lwl, pll, scg, lbfgs-bp: of L-BFGS or SCG; disc, dn, dscg, vp: after the pseudo-likelihood start, default 100 with BP counts, 5 with MC-SAT's; negative: none)")
	fl.Float64Var(&f.tol, "tol", engine.DefaultLearnTol, "stop when the largest gradient component is below this")
	fl.BoolVar(&f.pllUnweighted, "pll-unweighted", false, "pll: weight all ground atoms alike instead of all predicates alike")
	fl.Float64Var(&f.learningRate, "learning-rate", 0.001, "vp: the voted perceptron's step per unit of gradient (Alchemy's -dLearningRate)")
	fl.StringVar(&f.counts, "counts", "auto", "dn, dscg, vp: where the expected counts come from: auto (bp where BP converges on every training database at the starting weights, else mcsat; the summary says which), bp (belief propagation on each training database, no Monte Carlo noise, up to 100 iterations until every weight is within 0.05 standard errors of the optimum the diagonal Newton model predicts) or mcsat (MC-SAT chains started at the data, 5 iterations by default)")
	fl.BoolVar(&f.quiet, "quiet", false, "no progress or summary on stderr")
	fl.BoolVar(&f.allowPartial, "allow-partial", false, "on Ctrl-C or SIGTERM write the weights reached so far (lwl, pll, dn, dscg, vp, scg, lbfgs-bp: of the last iteration; smd, sgd: after the last mini-batch), marked INTERRUPTED in the header, instead of failing with exit status 130")
	f.online.register(fl)
	groups := make([]flagGroup, len(engine.LearnOptionGroups))
	for i, g := range engine.LearnOptionGroups {
		groups[i] = flagGroup{"Flags of " + andList(g.Methods), g.Options}
	}
	groupFlags(cmd, groups...)
	return cmd
}

// runLearn runs "lifted learn" (engine.Learn).
func runLearn(ctx context.Context, cmd *cobra.Command, f *learnFlags, stdout io.Writer) error {
	var given []string
	cmd.Flags().Visit(func(fl *pflag.Flag) { given = append(given, fl.Name) })
	return learnWith(ctx, f, given, stdout)
}

// learnWith runs "lifted learn" with the flags f, of which those named by
// given were set on the command line.
func learnWith(ctx context.Context, f *learnFlags, given []string, stdout io.Writer) error {
	if err := engine.CheckLearnOptions(f.method, given); err != nil {
		return cmdError(f.input, err)
	}
	r := engine.LearnRequest{Input: f.input, DefaultPrior: !slices.Contains(given, "prior-stddev"), Online: f.online.c,
		Run: learn.Run{Method: f.method, Train: f.train, PriorMean: f.priorMean, PriorStdDev: f.priorStdDev,
			Tol: f.tol, UnweightedPLL: f.pllUnweighted, NE: f.online.ne, Seed: f.online.c.Seed, LearningRate: f.learningRate,
			Counts: f.counts}}
	if slices.Contains(given, "tol") && !(f.tol > 0) {
		return usageError{fmt.Errorf("--tol must be positive, got %g", f.tol)} // 0 would be the default
	}
	if slices.Contains(given, "max-iter") {
		r.MaxIter = f.maxIter // else the method's default
	}
	if err := engine.CheckLearn(r); err != nil {
		return cmdError(f.input, err)
	}
	plotFmt := ""
	if f.online.plot != "" {
		var err error
		if plotFmt, err = plotFormat(f.online.plot); err != nil {
			return err
		}
	}
	out, err := openOutput(f.output)
	if err != nil {
		return err
	}
	prog := newProgress(f.quiet)
	r.Progress = prog.update
	r.Warn = func(ws []*pos.Error) { warn(f.quiet, ws) }
	r.Note = func(note string) {
		if !f.quiet {
			fmt.Fprintln(os.Stderr, "lifted: "+note)
		}
	}
	if f.allowPartial {
		partialGrace.Store(true)
	}
	l, err := engine.Learn(ctx, r)
	prog.done()
	if err != nil {
		return cmdError(f.input, err)
	}
	if l.Interrupted {
		if !f.allowPartial {
			return &interruptedError{fmt.Sprintf("%s: learning %s; nothing written (--allow-partial writes the weights so far, marked as such)", f.input, l.Status)}
		}
		fmt.Fprintf(os.Stderr, "lifted: warning: learning %s (--allow-partial): the weights written are not the optimum\n", l.Status)
	}
	for _, line := range l.Lines {
		if !f.quiet {
			fmt.Fprintln(os.Stderr, "lifted: "+line)
		}
	}
	if l.Curve != nil {
		if err := writeCurve(&f.online, l.Curve, plotFmt, stdout); err != nil {
			return err
		}
	}
	return out.Write(stdout, func(w io.Writer) error { return learn.WriteMLN(w, l.MLN, l.Weights, l.Header) })
}

// andList joins names as "a, b and c".
func andList(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}
