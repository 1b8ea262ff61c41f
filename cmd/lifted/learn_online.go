package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/pflag"

	mlnfile "github.com/lifted-dev/lifted/format/mln"
	"github.com/lifted-dev/lifted/learn"
	"github.com/lifted-dev/lifted/mln"
	"github.com/lifted-dev/lifted/online"
)

// onlineFlags are the options of the online and BP-based learners of
// "lifted learn" (--method smd|sgd|scg|lbfgs-bp).
type onlineFlags struct {
	pieces    string
	depth     int
	discount  float64
	batchSize int
	step      float64
	passes    float64
	ne        []string
	holdout   []string
	plot      string
	plotWith  []string
	log       string
	seed      uint64
	lambda    float64
	mu        float64
	gamma     float64
	ground    bool
	evalEvery float64
	workers   int
}

// register adds the online learners' flags to the learn command's flags.
func (o *onlineFlags) register(fl *pflag.FlagSet) {
	fl.StringVar(&o.pieces, "pieces", "factor", "smd/sgd: factor (one ground clause per piece), tree (RelTreeFinding) or neighbourhood (all clauses within --depth)")
	fl.IntVar(&o.depth, "depth", 2, "smd/sgd with --pieces tree or neighbourhood: depth")
	fl.Float64Var(&o.discount, "discount", 0.9, "smd/sgd with --pieces tree: discount t (keep a neighbour when a uniform draw is ≤ t^|tree|)")
	fl.IntVar(&o.batchSize, "batch-size", 10, "smd/sgd: pieces per mini-batch")
	fl.Float64Var(&o.step, "step", 0.2, "smd: initial gain; sgd: step size")
	fl.Float64Var(&o.passes, "passes", 1, "smd/sgd: passes over the pieces")
	fl.StringSliceVar(&o.ne, "ne", nil, "smd/sgd/scg/lbfgs-bp: non-evidence (query) predicates, comma-separated (required)")
	fl.StringSliceVar(&o.holdout, "holdout", nil, "test databases, each its own mega-example: report their mean CMLL after every tenth of a pass")
	fl.StringVar(&o.plot, "plot", "", "write the learning curve (test CMLL vs passes) with gonum/plot: .png, .svg or .pdf")
	fl.StringSliceVar(&o.plotWith, "plot-with", nil, "curve logs (--log files) of earlier runs to draw in the same --plot")
	fl.StringVar(&o.log, "log", "", "write the learning curve as JSON")
	fl.Uint64Var(&o.seed, "seed", 1, "random seed (pieces, mini-batches, CMLL groups)")
	fl.Float64Var(&o.lambda, "smd-lambda", 0.99, "smd: decay λ of v")
	fl.Float64Var(&o.mu, "smd-mu", 0.1, "smd: meta-gain μ")
	fl.Float64Var(&o.gamma, "smd-gamma", 0.9, "smd: discount γ of the gradient covariance")
	fl.BoolVar(&o.ground, "ground-bp", false, "run ground instead of lifted BP (same results, for comparison)")
	fl.Float64Var(&o.evalEvery, "eval-every", 0.1, "with --holdout: evaluate after every this fraction of a pass")
	fl.IntVar(&o.workers, "workers", 1, "compute each mini-batch (or the whole model) in this many shards of pieces on as many cores (lifting then works within a shard)")
}

// isOnlineMethod tells whether runOnlineLearn handles the learn method.
func isOnlineMethod(method string) bool {
	switch method {
	case "smd", "sgd", "scg", "lbfgs-bp":
		return true
	}
	return false
}

// onlineRun is what runOnlineLearn needs from the learn command's own flags.
type onlineRun struct {
	Method      string   // smd, sgd, scg or lbfgs-bp
	Input       string   // STRUCT.mln
	Train       []string // training database files (one mega-example)
	Output      string   // learned MLN ("" or "-": stdout)
	Quiet       bool
	MaxIter     int     // scg/lbfgs-bp iterations
	Tol         float64 // scg/lbfgs-bp gradient tolerance
	PriorStdDev float64 // scg/lbfgs-bp Gaussian prior (≤ 0: none)
}

// curvePoint is one evaluation of the learning curve.
type curvePoint struct {
	Passes      float64   `json:"passes"`
	Seconds     float64   `json:"seconds"`
	CMLL        *float64  `json:"cmll,omitempty"`
	CMLLPerAtom *float64  `json:"cmll_per_atom,omitempty"`
	Weights     []float64 `json:"weights"`
}

// curveLog is the JSON log of one run.
type curveLog struct {
	Method   string       `json:"method"`
	Label    string       `json:"label"`
	Pieces   string       `json:"pieces,omitempty"`
	Train    []string     `json:"train"`
	Holdout  []string     `json:"holdout,omitempty"`
	Formulas []string     `json:"formulas"`
	Points   []curvePoint `json:"points"`
	Seconds  float64      `json:"seconds"`
	// TestLogLik is the exact log-likelihood of each holdout database under
	// the learned weights (closed world, by WFOMC), where that applies.
	TestLogLik []*float64 `json:"test_loglik,omitempty"`
}

// runOnlineLearn runs "lifted learn --method smd|sgd|scg|lbfgs-bp".
func runOnlineLearn(ctx context.Context, o *onlineFlags, r onlineRun, stdout io.Writer) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if !isOnlineMethod(r.Method) {
		return usageError{fmt.Errorf("unknown --method %q", r.Method)}
	}
	if r.Input == "" {
		return usageError{fmt.Errorf("learn needs the model: -i STRUCT.mln")}
	}
	if len(r.Train) == 0 {
		return usageError{fmt.Errorf("learn needs the training mega-example: -t TRAIN.db")}
	}
	if len(o.ne) == 0 {
		return usageError{fmt.Errorf("--method %s needs the non-evidence predicates: --ne P1,P2", r.Method)}
	}
	if o.pieces != "factor" && o.pieces != "tree" && o.pieces != "neighbourhood" {
		return usageError{fmt.Errorf("--pieces must be factor, tree or neighbourhood, got %q", o.pieces)}
	}
	if o.depth < 0 || !(o.discount >= 0 && o.discount <= 1) || o.batchSize < 1 || !(o.step > 0) || !(o.passes > 0) || !(o.evalEvery > 0) {
		return usageError{fmt.Errorf("need --depth ≥ 0, --discount in [0, 1], --batch-size ≥ 1, --step > 0, --passes > 0 and --eval-every > 0")}
	}
	plotFmt := ""
	if o.plot != "" {
		var err error
		if plotFmt, err = plotFormat(o.plot); err != nil {
			return err
		}
	}
	user, err := readMLNQuiet(r.Input, r.Quiet)
	if err != nil {
		return err
	}
	// Starred atoms stand for their sign combinations and "+x" for one
	// formula per constant, each learned (as in lwl and pll).
	if needsExpansion(user) {
		if user, err = expandForOnline(user, r.Train, o.holdout); err != nil {
			return err
		}
	}
	// The online learners take mutual exclusion ("!") as the hard formula
	// it stands for, appended after the user's formulas.
	m, _, err := mln.MutexAsFormulas(user)
	if err != nil {
		return err
	}
	db, err := mlnfile.ReadDBFiles(m, r.Train...)
	if err != nil {
		return err
	}
	md, err := online.NewModel(m, db, o.ne)
	if err != nil {
		return err
	}
	// Each holdout database is its own test mega-example; the curve
	// reports the mean of their CMLLs.
	var tests []*online.Model
	for _, path := range o.holdout {
		tdb, err := mlnfile.ReadDBFiles(m, path)
		if err != nil {
			return err
		}
		t, err := online.NewModel(m, tdb, o.ne)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		tests = append(tests, t)
	}
	grad := online.GradOptions{Ground: o.ground, Workers: o.workers}
	start := time.Now()
	log := &curveLog{Method: r.Method, Label: r.Method, Train: r.Train, Holdout: o.holdout}
	if r.Method == "smd" || r.Method == "sgd" {
		log.Pieces = o.pieces
		log.Label = r.Method + " (" + o.pieces + " pieces)"
	}
	for _, f := range m.Formulas {
		log.Formulas = append(log.Formulas, f.Text)
	}
	prog := newProgress(r.Quiet)
	status := ""
	eval := func(passes float64, w []float64) error {
		pt := curvePoint{Passes: passes, Seconds: time.Since(start).Seconds(), Weights: append([]float64(nil), w...)}
		if len(tests) > 0 {
			var c, per float64
			for i, test := range tests {
				// The same four groups at every evaluation.
				ci, n, err := online.CMLL(ctx, test, w, rand.New(rand.NewPCG(o.seed, 0xc3+uint64(i))), grad)
				if err != nil {
					return err
				}
				c += ci / float64(len(tests))
				per += ci / math.Max(n, 1) / float64(len(tests))
			}
			// A non-finite CMLL (a test atom given probability 0) is
			// logged as null: JSON has no -Inf.
			pt.CMLL, pt.CMLLPerAtom = finitePtr(c), finitePtr(per)
			status = fmt.Sprintf(", test CMLL %.6g", c)
		}
		log.Points = append(log.Points, pt)
		return nil
	}
	rng := rand.New(rand.NewPCG(o.seed, 0x5eed))
	var weights []float64
	var summary string
	switch r.Method {
	case "smd", "sgd":
		var pieces *online.Pieces
		switch o.pieces {
		case "factor":
			pieces = online.FactorPieces(md)
		case "tree":
			pieces = online.TreePieces(md, o.depth, o.discount, rng)
		default:
			pieces = online.NeighbourhoodPieces(md, o.depth)
		}
		res, err := online.Train(ctx, md, pieces, online.TrainOptions{
			Method: r.Method, BatchSize: o.batchSize, Passes: o.passes, Step: o.step,
			Lambda: nonZero(o.lambda), Mu: nonZero(o.mu), Gamma: nonZero(o.gamma),
			Grad: grad, EvalEvery: o.evalEvery, Rand: rng,
			Eval: func(p float64, w []float64) error {
				if len(tests) == 0 && p != 0 && p < o.passes {
					return nil
				}
				return eval(p, w)
			},
			Progress: func(p online.Progress) {
				prog.printf("%s: pass %.2f/%g %s batch %d/%d, batch loss %.4g, lift ratio %.3f%s",
					r.Method, p.Pass, o.passes, bar(p.Pass/o.passes, 20), p.Batch, p.Batches, p.Loss, p.LiftRatio, status)
			},
		})
		prog.done()
		if err != nil {
			return err
		}
		weights = res.Weights
		summary = fmt.Sprintf("%d pieces, %d mini-batches, mean lift ratio %.3f", pieces.Len(), res.Batches, res.LiftRatio)
	default:
		bo := online.BatchOptions{MaxIter: r.MaxIter, GradTol: r.Tol, PriorStdDev: r.PriorStdDev, Grad: grad, Eval: eval,
			Progress: func(it, evals int, loss float64) {
				prog.printf("%s: iteration %d, %d passes, loss %.10g%s", r.Method, it, evals, loss, status)
			}}
		var res *online.BatchLearnResult
		if r.Method == "scg" {
			res, err = online.SCG(ctx, md, bo)
		} else {
			res, err = online.LBFGS(ctx, md, bo)
		}
		prog.done()
		if err != nil {
			return err
		}
		weights = res.Weights
		summary = fmt.Sprintf("%d iterations, %d passes, BP loss %.10g, converged %v (%s)", res.Iterations, res.Evaluations, res.Loss, res.Converged, res.Status)
	}
	log.Seconds = time.Since(start).Seconds()
	// The exact test log-likelihood, where the WFOMC engine applies (its
	// errors only mean it does not).
	weights = weights[:len(user.Formulas)] // without the formulas of "!"
	for _, path := range o.holdout {
		var ll *float64
		if tdb, err := mlnfile.ReadDBFiles(user, path); err == nil {
			if d, err := learn.CountDB(user, tdb, path); err == nil {
				if v, err := learn.LogLikelihood(user, weights, d); err == nil {
					ll = finitePtr(v)
				}
			}
		}
		log.TestLogLik = append(log.TestLogLik, ll)
		if ll != nil && !r.Quiet {
			fmt.Fprintf(os.Stderr, "lifted: %s: exact test log-likelihood %.10g\n", filepath.Base(path), *ll)
		}
	}
	if !r.Quiet {
		last := ""
		if n := len(log.Points); n > 0 && log.Points[n-1].CMLL != nil {
			last = fmt.Sprintf(", test CMLL %.6g", *log.Points[n-1].CMLL)
		}
		fmt.Fprintf(os.Stderr, "lifted: %s: %s%s, %.3f s\n", r.Method, summary, last, log.Seconds)
	}
	if o.log != "" {
		if err := writeOutput(o.log, stdout, func(w io.Writer) error {
			enc := json.NewEncoder(w)
			enc.SetIndent("", " ")
			return enc.Encode(log)
		}); err != nil {
			return err
		}
	}
	if o.plot != "" {
		logs := []*curveLog{}
		for _, p := range o.plotWith {
			l, err := readCurveLog(p)
			if err != nil {
				return err
			}
			logs = append(logs, l)
		}
		logs = append(logs, log)
		if err := writeOutput(o.plot, stdout, func(w io.Writer) error { return writeCurvePlot(w, plotFmt, logs) }); err != nil {
			return err
		}
	}
	header := fmt.Sprintf("Learned by lifted learn --method %s from %s\n%s", r.Method, trainNames(r.Train), summary)
	return writeOutput(r.Output, stdout, func(w io.Writer) error {
		return learn.WriteMLN(w, user, weights, header)
	})
}

// nonZero maps 0 to the online package's "0" (a negative value), since 0
// there means the default.
func nonZero(x float64) float64 {
	if x == 0 {
		return -1
	}
	return x
}

// bar draws a progress bar of the given width for a fraction in [0, 1].
func bar(frac float64, width int) string {
	n := int(math.Round(math.Max(0, math.Min(1, frac)) * float64(width)))
	return "[" + strings.Repeat("=", n) + strings.Repeat(" ", width-n) + "]"
}

func readCurveLog(path string) (*curveLog, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var l curveLog
	if err := json.Unmarshal(b, &l); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &l, nil
}

// finitePtr returns &x, or nil when x is NaN or infinite.
func finitePtr(x float64) *float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	return &x
}

// expandForOnline expands per-constant variables over the training
// database's constants and starred atoms into their sign combinations.
// The copies of a "+x" formula name those constants, which then belong to
// every database's domain, so each holdout database must have the same
// constants for the types of "+" variables.
func expandForOnline(m *mln.MLN, train, holdout []string) (*mln.MLN, error) {
	if !hasPerConstantVar(m) {
		out, _, err := mln.Expand(m, nil)
		return out, err
	}
	tdb, err := mlnfile.ReadDBFiles(m, train...)
	if err != nil {
		return nil, err
	}
	for _, path := range holdout {
		hdb, err := mlnfile.ReadDBFiles(m, path)
		if err != nil {
			return nil, err
		}
		for _, f := range m.Formulas {
			for _, v := range f.Vars {
				a, b := slices.Sorted(slices.Values(tdb.Domain(v.Type))), slices.Sorted(slices.Values(hdb.Domain(v.Type)))
				if v.PerConstant && !slices.Equal(a, b) {
					return nil, fmt.Errorf("%s: formula %q: per-constant variable +%s: %s has %d constants of type %s, the training data %d, not the same; per-constant weights need the same constants in every database (drop the +, or leave out --holdout)",
						f.Pos, f.Text, v.Name, path, len(b), v.Type, len(a))
				}
			}
		}
	}
	out, _, err := mln.Expand(m, tdb.Domain)
	return out, err
}
