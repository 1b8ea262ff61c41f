package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/spf13/pflag"

	mlnfile "github.com/lifted-dev/lifted/format/mlnfile"
	"github.com/lifted-dev/lifted/learn"
	"github.com/lifted-dev/lifted/mln"
	"github.com/lifted-dev/lifted/online"
	"github.com/lifted-dev/lifted/online/curveplot"
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
	shards    int
}

// register adds the online learners' flags to the learn command's flags.
func (o *onlineFlags) register(fl *pflag.FlagSet) {
	fl.StringVar(&o.pieces, "pieces", "factor", "smd/sgd: factor (one ground clause per piece), tree (RelTreeFinding) or neighbourhood (all clauses within --depth)")
	fl.IntVar(&o.depth, "depth", 2, "smd/sgd with --pieces tree or neighbourhood: depth")
	fl.Float64Var(&o.discount, "discount", 0.9, "smd/sgd with --pieces tree: discount t (keep a neighbour when a uniform draw is ≤ t^|tree|)")
	fl.IntVar(&o.batchSize, "batch-size", 10, "smd/sgd: pieces per mini-batch")
	fl.Float64Var(&o.step, "step", 0.2, "smd: initial gain; sgd: step size")
	fl.Float64Var(&o.passes, "passes", 1, "smd/sgd: passes over the pieces")
	fl.StringSliceVar(&o.ne, "ne", nil, "smd/sgd/scg/lbfgs-bp: non-evidence (query) predicates, comma-separated (default: every predicate, when the data observe every atom, as Alchemy's -g)")
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
	fl.IntVar(&o.workers, "workers", 0, "colour passing of every BP run on this many cores; the default 0 = one per core (the learned weights do not depend on it; see lifted infer --help)")
	fl.IntVar(&o.shards, "shards", 1, "compute each mini-batch (or the whole model) in this many shards of pieces on as many cores (lifting then works within a shard, so results differ within BP's tolerance)")
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

// runOnlineLearn runs "lifted learn --method smd|sgd|scg|lbfgs-bp".
func runOnlineLearn(ctx context.Context, o *onlineFlags, r onlineRun, stdout io.Writer) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if err := checkOnline(o, r); err != nil {
		return err
	}
	plotFmt := ""
	if o.plot != "" {
		var err error
		if plotFmt, err = plotFormat(o.plot); err != nil {
			return err
		}
	}
	d, err := loadOnline(o, r)
	if err != nil {
		return err
	}
	if o.workers < 0 || o.shards < 0 {
		return usageError{fmt.Errorf("--workers and --shards must not be negative, got %d and %d", o.workers, o.shards)}
	}
	if o.workers == 0 {
		o.workers = runtime.GOMAXPROCS(0)
	}
	grad := online.GradOptions{Ground: o.ground, Workers: o.workers, Shards: o.shards}
	l := &onlineLearner{o: o, r: r, md: d.md, start: time.Now(),
		holdout: &online.Holdout{Tests: d.tests, Seed: o.seed, Grad: grad},
		curve:   online.NewCurve(r.Method, o.pieces, d.m, r.Train, o.holdout),
		prog:    newProgress(r.Quiet)}
	weights, summary, err := l.run(ctx)
	if err != nil {
		return err
	}
	user := d.user
	weights = weights[:len(user.Formulas)] // without the formulas of "!"
	testLogLik(l.curve, user, weights, o.holdout, r.Quiet)
	if !r.Quiet {
		last := ""
		if c := l.curve.LastCMLL(); c != nil {
			last = fmt.Sprintf(", test CMLL %.6g", *c)
		}
		fmt.Fprintf(os.Stderr, "lifted: %s: %s%s, %.3f s\n", r.Method, summary, last, l.curve.Seconds)
	}
	if err := writeCurve(o, l.curve, plotFmt, stdout); err != nil {
		return err
	}
	header := fmt.Sprintf("Learned by lifted learn --method %s from %s\n%s", r.Method, trainNames(r.Train), summary)
	return writeOutput(r.Output, stdout, func(w io.Writer) error {
		return learn.WriteMLN(w, user, weights, header)
	})
}

// checkOnline checks the flags of the online learners.
func checkOnline(o *onlineFlags, r onlineRun) error {
	if !isOnlineMethod(r.Method) {
		return usageError{fmt.Errorf("unknown --method %q", r.Method)}
	}
	if r.Input == "" {
		return usageError{fmt.Errorf("learn needs the model: -i STRUCT.mln")}
	}
	if len(r.Train) == 0 {
		return usageError{fmt.Errorf("learn needs the training mega-example: -t TRAIN.db")}
	}
	if o.pieces != "factor" && o.pieces != "tree" && o.pieces != "neighbourhood" {
		return usageError{fmt.Errorf("--pieces must be factor, tree or neighbourhood, got %q", o.pieces)}
	}
	if o.depth < 0 || !(o.discount >= 0 && o.discount <= 1) || o.batchSize < 1 || !(o.step > 0) || !(o.passes > 0) || !(o.evalEvery > 0) {
		return usageError{fmt.Errorf("need --depth ≥ 0, --discount in [0, 1], --batch-size ≥ 1, --step > 0, --passes > 0 and --eval-every > 0")}
	}
	return nil
}

// onlineData are the model and data of an online learner.
type onlineData struct {
	user  *mln.MLN // the user's MLN, expanded
	m     *mln.MLN // user's formulas, then the hard formulas of "!"
	md    *online.Model
	tests []*online.Model // one per holdout database
}

// loadOnline reads the model and the training and holdout databases
// (online.LoadData).
func loadOnline(o *onlineFlags, r onlineRun) (*onlineData, error) {
	d, err := online.LoadData(r.Input, r.Train, o.holdout, o.ne)
	if d != nil {
		warn(r.Quiet, d.Warnings)
	}
	var nee *online.NEError
	if errors.As(err, &nee) {
		return nil, usageError{fmt.Errorf("--method %s %w", r.Method, err)}
	}
	if err != nil {
		return nil, err
	}
	if d.Generative && !r.Quiet {
		fmt.Fprintf(os.Stderr, "lifted: %s: no --ne: the data observe every predicate, so all are predicted (generative, as Alchemy's -g): %s\n",
			r.Method, strings.Join(d.NE, ","))
	}
	o.ne = d.NE
	return &onlineData{user: d.User, m: d.MLN, md: d.Model, tests: d.Tests}, nil
}

// onlineLearner is one run of an online learner: its flags, its training
// mega-example, its holdout and the curve it records.
type onlineLearner struct {
	o       *onlineFlags
	r       onlineRun
	md      *online.Model
	holdout *online.Holdout
	curve   *online.Curve
	prog    *progress
	start   time.Time
	status  string // the last test CMLL, for the progress line
}

// run learns the weights (those of the hard formulas of "!" last) and
// returns them with a summary line; the curve gets its time.
func (l *onlineLearner) run(ctx context.Context) (weights []float64, summary string, err error) {
	if l.r.Method == "smd" || l.r.Method == "sgd" {
		weights, summary, err = l.train(ctx)
	} else {
		weights, summary, err = l.batch(ctx)
	}
	l.curve.Seconds = time.Since(l.start).Seconds()
	return weights, summary, err
}

// eval records the weights w after passes in the curve, with their test
// CMLL where there are holdout databases.
func (l *onlineLearner) eval(ctx context.Context, passes float64, w []float64) error {
	c, err := l.holdout.Record(ctx, l.curve, passes, time.Since(l.start).Seconds(), w)
	if c != nil {
		l.status = fmt.Sprintf(", test CMLL %.6g", *c)
	}
	return err
}

// train runs smd or sgd on mini-batches of pieces.
func (l *onlineLearner) train(ctx context.Context) ([]float64, string, error) {
	o, method := l.o, l.r.Method
	rng := rand.New(rand.NewPCG(o.seed, 0x5eed))
	pieces, err := online.NewPieces(l.md, o.pieces, o.depth, o.discount, rng)
	if err != nil {
		return nil, "", err
	}
	res, err := online.Train(ctx, l.md, pieces, online.TrainOptions{
		Method: method, BatchSize: o.batchSize, Passes: o.passes, Step: o.step,
		Lambda: nonZero(o.lambda), Mu: nonZero(o.mu), Gamma: nonZero(o.gamma),
		Grad: l.holdout.Grad, EvalEvery: o.evalEvery, Rand: rng,
		Eval: func(p float64, w []float64) error {
			if l.holdout.Len() == 0 && p != 0 && p < o.passes {
				return nil
			}
			return l.eval(ctx, p, w)
		},
		Progress: func(p online.Progress) {
			l.prog.update(method, steps(1000*p.Pass), steps(1000*o.passes), fmt.Sprintf("pass %.2f of %g, batch %d of %d, batch loss %.4g, lift ratio %.3f%s",
				p.Pass, o.passes, p.Batch, p.Batches, p.Loss, p.LiftRatio, l.status))
		},
	})
	l.prog.done()
	if err != nil {
		return nil, "", err
	}
	return res.Weights, fmt.Sprintf("%d pieces, %d mini-batches, mean lift ratio %.3f", pieces.Len(), res.Batches, res.LiftRatio), nil
}

// batch runs scg or lbfgs-bp on the whole model's BP likelihood.
func (l *onlineLearner) batch(ctx context.Context) ([]float64, string, error) {
	r := l.r
	bo := online.BatchOptions{MaxIter: r.MaxIter, GradTol: r.Tol, PriorStdDev: r.PriorStdDev, Grad: l.holdout.Grad,
		Eval: func(p float64, w []float64) error { return l.eval(ctx, p, w) },
		Progress: func(it, evals int, loss float64) {
			l.prog.update(r.Method, int64(it), int64(r.MaxIter), fmt.Sprintf("iteration %d, %d passes, loss %.10g%s", it, evals, loss, l.status))
		}}
	var res *online.BatchLearnResult
	var err error
	if r.Method == "scg" {
		res, err = online.SCG(ctx, l.md, bo)
	} else {
		res, err = online.LBFGS(ctx, l.md, bo)
	}
	l.prog.done()
	if err != nil {
		return nil, "", err
	}
	return res.Weights, fmt.Sprintf("%d iterations, %d passes, BP loss %.10g, converged %v (%s)", res.Iterations, res.Evaluations, res.Loss, res.Converged, res.Status), nil
}

// testLogLik records (and prints) the exact log-likelihood of each holdout
// database under the learned weights, where the WFOMC engine applies (its
// errors only mean that it does not).
func testLogLik(c *online.Curve, user *mln.MLN, weights []float64, holdout []string, quiet bool) {
	for _, path := range holdout {
		var ll *float64
		if tdb, err := mlnfile.ReadDBFiles(user, path); err == nil {
			if v, err := learn.DBLogLikelihood(user, weights, tdb, path); err == nil {
				ll = online.FinitePtr(v)
			}
		}
		c.TestLogLik = append(c.TestLogLik, ll)
		if ll != nil && !quiet {
			fmt.Fprintf(os.Stderr, "lifted: %s: exact test log-likelihood %.10g\n", filepath.Base(path), *ll)
		}
	}
}

// writeCurve writes the curve as JSON (--log) and plots it with those of
// earlier runs (--plot, --plot-with).
func writeCurve(o *onlineFlags, c *online.Curve, plotFmt string, stdout io.Writer) error {
	if o.log != "" {
		if err := writeOutput(o.log, stdout, func(w io.Writer) error {
			enc := json.NewEncoder(w)
			enc.SetIndent("", " ")
			return enc.Encode(c)
		}); err != nil {
			return err
		}
	}
	if o.plot == "" {
		return nil
	}
	curves := []*online.Curve{}
	for _, p := range o.plotWith {
		l, err := readCurve(p)
		if err != nil {
			return err
		}
		curves = append(curves, l)
	}
	curves = append(curves, c)
	return writeOutput(o.plot, stdout, func(w io.Writer) error { return curveplot.Write(w, plotFmt, curves) })
}

// nonZero maps 0 to the online package's "0" (a negative value), since 0
// there means the default.
func nonZero(x float64) float64 {
	if x == 0 {
		return -1
	}
	return x
}

func readCurve(path string) (*online.Curve, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var l online.Curve
	if err := json.Unmarshal(b, &l); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &l, nil
}
