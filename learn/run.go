package learn

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/lifted-dev/lifted/internal/suggest"
	"github.com/lifted-dev/lifted/mln"
)

// Run is one learning run on training files by method lwl, pll, disc,
// dn, dscg or vp:
// what "lifted learn" does with them (the online learners are package
// online's).
type Run struct {
	// Method is "lwl" (exact likelihood, LWL), "pll" (pseudo-likelihood,
	// PLL), or one of the discriminative learners (DiscFiles, with BP or
	// MC-SAT counts as Counts says): "disc" (Alchemy's learnwts -d: L-BFGS
	// where the counts are deterministic, BP's or exact, diagonal Newton
	// where they are MC-SAT's), "dn" (diagonal Newton), "dscg" (scaled
	// conjugate gradient) or "vp" (voted perceptron).
	Method string
	// LearningRate is the voted perceptron's (vp; 0: 0.001).
	LearningRate float64
	// Counts is DiscOptions.Counts for dn, dscg and vp: "auto" (or "":
	// BP's counts where BP converges on every training database at the
	// starting weights, else MC-SAT's), "mcsat" or "bp".
	Counts string
	// Train are the training databases, each its own example on its own
	// domain.
	Train []string
	// PriorMean and PriorStdDev are the Gaussian prior on every weight
	// (PriorStdDev < 0: none).
	PriorMean, PriorStdDev float64
	// MaxIter bounds the iterations: L-BFGS's for lwl and pll, the
	// optimiser's for dn, dscg and vp; 0 is the method's default (1000 for
	// L-BFGS; DiscOptions.MaxIter's: 100 with BP or exact counts, 5 with
	// MC-SAT's).
	MaxIter int
	// Tol is L-BFGS's gradient tolerance (lwl, pll).
	Tol float64
	// UnweightedPLL weighs all ground atoms alike in pll (Options).
	UnweightedPLL bool
	// NE are the query predicates of dn (none: every predicate, the
	// likelihood); Seed seeds its MC-SAT.
	NE   []string
	Seed uint64
	// Progress, if set, reports the work: the stage (the method, or the
	// preparation: "pll terms", "counting"), done of total steps (total ≤
	// 0: not known) and the figures in words.
	Progress func(stage string, done, total int64, detail string)
}

// Learned is a run's answer.
type Learned struct {
	// MLN is the model as learned (expanded for the data); Weights, in
	// Result, has one weight per formula of it.
	MLN *mln.MLN
	*Result
	// Summary is the run in one line ("lwl: 12 iterations, …"), Header
	// the comment of the learned MLN (WriteMLN's header).
	Summary, Header string
}

// maxIter is the iteration bound with the method's default.
func (r *Run) maxIter() int {
	switch {
	case r.MaxIter != 0:
		return r.MaxIter
	case isDisc(r.Method):
		return 0 // DiscOptions.MaxIter's default, by the counts it uses
	}
	return 1000 // L-BFGS (lwl, pll)
}

// options are the L-BFGS learners' options.
func (r *Run) options() *Options {
	return &Options{PriorMean: r.PriorMean, PriorStdDev: r.PriorStdDev, MaxIter: r.maxIter(), GradTol: r.Tol,
		UnweightedPLL: r.UnweightedPLL}
}

// Check validates the run; the errors name the options as the command
// line spells them.
func (r *Run) Check() error {
	switch r.Method {
	case "lwl", "pll":
		return r.options().Check()
	case "disc", "dn", "dscg", "vp":
		if r.Counts != "" && r.Counts != "auto" && r.Counts != "mcsat" && r.Counts != "bp" {
			return fmt.Errorf("unknown --counts %q (want auto, mcsat or bp)", r.Counts)
		}
		return nil
	}
	return fmt.Errorf("unknown --method %q (want lwl, pll, disc, dn, dscg, vp, smd, sgd, scg or lbfgs-bp)%s", r.Method, suggest.Hint(r.Method, []string{"lwl", "pll", "disc", "dn", "dscg", "vp", "smd", "sgd", "scg", "lbfgs-bp"}))
}

// isDisc reports whether method is one of the discriminative learners
// (DiscFiles).
func isDisc(method string) bool {
	return method == "disc" || method == "dn" || method == "dscg" || method == "vp"
}

// discNames are the discriminative learners' optimisers (DiscOptions.Method)
// and descriptions, by method.
var discNames = map[string][2]string{
	"disc": {"lbfgs", "L-BFGS on deterministic counts (diagonal Newton on MC-SAT's)"},
	"dn":   {"dn", "diagonal Newton"},
	"dscg": {"scg", "scaled conjugate gradient"},
	"vp":   {"vp", "voted perceptron"},
}

// Learn learns the weights of m's formulas from the training files.
func (r *Run) Learn(ctx context.Context, m *mln.MLN) (*Learned, error) {
	if err := r.Check(); err != nil {
		return nil, err
	}
	progress := func(string, int64, int64, string) {}
	if r.Progress != nil {
		progress = r.Progress
	}
	if isDisc(r.Method) {
		opt, what := discNames[r.Method][0], discNames[r.Method][1]
		ne := r.NE
		if len(ne) == 0 { // every predicate is a query: the likelihood (as the online learners without --ne)
			for _, p := range m.Preds {
				ne = append(ne, p.Name)
			}
		}
		counts := r.Counts
		if counts == "" {
			counts = "auto"
		}
		m, res, err := DiscFiles(ctx, m, r.Train, DiscOptions{
			NE: ne, PriorMean: r.PriorMean, PriorStdDev: r.PriorStdDev, MaxIter: r.MaxIter, Seed: r.Seed,
			Method: opt, LearningRate: r.LearningRate, Counts: counts,
			Progress: func(p DiscProgress) {
				progress(r.Method, int64(p.Iter), int64(p.MaxIter), discProgressLine(what, p))
			},
			Stage: progress,
		})
		if err != nil {
			return nil, err
		}
		status := res.Status
		if res.Interrupted {
			status = "INTERRUPTED: " + status
		}
		return &Learned{MLN: m, Result: res,
			Summary: fmt.Sprintf("%s: %d iterations, %d evaluations, %s counts, %.3f s (%s)", r.Method, res.Iterations, res.Evaluations, countsName(res.Counts), res.Seconds, res.Status),
			Header: fmt.Sprintf("Learned by lifted learn --method %s --ne %s from %s\nconditional likelihood, %s with %s counts from the conditional pseudo-likelihood's optimum, prior N(%g, %g²)\n%s",
				r.Method, strings.Join(ne, ","), TrainNames(r.Train), what, countsName(res.Counts), r.PriorMean, r.PriorStdDev, status)}, nil
	}
	maxIter := r.maxIter()
	opt := r.options()
	opt.Progress = func(it int, obj float64) {
		progress(r.Method, int64(it), int64(maxIter), fmt.Sprintf("L-BFGS iteration %d, objective %.10g", it, obj))
	}
	opt.Stage = progress
	opt.Context = ctx
	m, res, err := Files(m, r.Method, r.Train, opt)
	if err != nil {
		return nil, err
	}
	what := "log-likelihood"
	if r.Method == "pll" {
		what = "pseudo-log-likelihood"
	}
	stopped := ""
	if res.Interrupted {
		stopped = "\nINTERRUPTED: " + res.Status
	}
	return &Learned{MLN: m, Result: res,
		Summary: fmt.Sprintf("%s: %d iterations, %d evaluations, training %s %.10g, %.3f s (%s)",
			r.Method, res.Iterations, res.Evaluations, what, res.LogLik, res.Seconds, res.Status),
		Header: fmt.Sprintf("Learned by lifted learn --method %s from %s\ntraining %s %.10g, prior N(%g, %g²)%s",
			r.Method, TrainNames(r.Train), what, res.LogLik, r.PriorMean, r.PriorStdDev, stopped)}, nil
}

// discProgressLine is the progress line of a discriminative iteration.
func discProgressLine(what string, p DiscProgress) string {
	if what == discNames["disc"][1] { // disc: the optimiser its counts took
		what = "diagonal Newton"
		if p.Method == "lbfgs" {
			what = "L-BFGS"
		}
	}
	switch {
	case p.Counts == "mcsat":
		return fmt.Sprintf("%s iteration %d (MC-SAT counts), largest Newton step not yet converged %.3g (converged below %g)", what, p.Iter, p.Worst, p.Tol)
	case p.Worst == 0:
		return fmt.Sprintf("%s iteration %d (%s counts), objective %.8g, converged", what, p.Iter, countsName(p.Counts), p.Objective)
	}
	return fmt.Sprintf("%s iteration %d (%s counts), objective %.8g, largest remaining change of a weight %.3g of its standard error (converged at %g)", what, p.Iter, countsName(p.Counts), p.Objective, p.Worst, p.Tol)
}

// TrainNames lists the training files by their base names, for a learned
// model's header.
func TrainNames(paths []string) string {
	names := make([]string, len(paths))
	for i, p := range paths {
		names[i] = filepath.Base(p)
	}
	return strings.Join(names, ", ")
}
