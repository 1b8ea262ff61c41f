package online

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"time"

	mlnfile "github.com/lifted-dev/lifted/format/mlnfile"
	"github.com/lifted-dev/lifted/learn"
)

// Config are the settings of one run of an online or BP-based learner
// (Learn; "lifted learn --method smd|sgd|scg|lbfgs-bp").
type Config struct {
	Method string // smd, sgd, scg or lbfgs-bp
	// Train and Holdout name the training and test databases (for the
	// curve; the data are Learn's d).
	Train, Holdout []string
	// smd and sgd: pieces ("factor", "tree" or "neighbourhood"), their
	// depth and discount, the mini-batch size, the step (smd: initial
	// gain), the passes over the pieces, SMD's λ, μ and γ (0: the
	// default), and how often to evaluate on the holdout (a fraction of a
	// pass).
	Pieces            string
	Depth             int
	Discount          float64
	BatchSize         int
	Step, Passes      float64
	Lambda, Mu, Gamma float64
	EvalEvery         float64
	Seed              uint64
	Ground            bool    // ground instead of lifted BP
	Workers, Shards   int     // colour passing's cores (0: all); shards of pieces
	MaxIter           int     // scg, lbfgs-bp: iterations
	Tol               float64 // scg, lbfgs-bp: gradient tolerance
	PriorStdDev       float64 // scg, lbfgs-bp: Gaussian prior (≤ 0: none)
	Progress          func(done, total int64, detail string)
}

// IsMethod tells whether Learn runs the method.
func IsMethod(method string) bool {
	switch method {
	case "smd", "sgd", "scg", "lbfgs-bp":
		return true
	}
	return false
}

// ConfigError is a setting out of its range.
type ConfigError struct{ Msg string }

// Error returns the message of the ConfigError.
func (e *ConfigError) Error() string { return e.Msg }

// Check validates the settings.
func (c *Config) Check() error {
	switch {
	case !IsMethod(c.Method):
		return &ConfigError{fmt.Sprintf("unknown --method %q", c.Method)}
	case c.Pieces != "factor" && c.Pieces != "tree" && c.Pieces != "neighbourhood":
		return &ConfigError{fmt.Sprintf("--pieces must be factor, tree or neighbourhood, got %q", c.Pieces)}
	case c.Depth < 0 || !(c.Discount >= 0 && c.Discount <= 1) || c.BatchSize < 1 || !(c.Step > 0) || !(c.Passes > 0) || !(c.EvalEvery > 0):
		return &ConfigError{"need --depth ≥ 0, --discount in [0, 1], --batch-size ≥ 1, --step > 0, --passes > 0 and --eval-every > 0"}
	case c.Workers < 0 || c.Shards < 0:
		return &ConfigError{fmt.Sprintf("--workers and --shards must not be negative, got %d and %d", c.Workers, c.Shards)}
	}
	return nil
}

// LearnResult is a learner's answer: the weights of the user's formulas,
// a summary line and the learning curve (with the exact test
// log-likelihood of each holdout database where WFOMC applies).
type LearnResult struct {
	Weights []float64
	Summary string
	Curve   *Curve
	// Interrupted: ctx ended the run; Weights are the last ones the
	// learner reached (smd, sgd: after the last mini-batch; scg,
	// lbfgs-bp: the last accepted iterate) and Summary says so.
	Interrupted bool
}

// Learn runs the learner of c on the data d.
func Learn(ctx context.Context, d *Data, c Config) (*LearnResult, error) {
	if err := c.Check(); err != nil {
		return nil, err
	}
	if c.Workers == 0 {
		c.Workers = runtime.GOMAXPROCS(0)
	}
	if c.Progress == nil {
		c.Progress = func(int64, int64, string) {}
	}
	l := &learner{c: c, md: d.Model, start: time.Now(),
		holdout: &Holdout{Tests: d.Tests, Seed: c.Seed, Grad: GradOptions{Ground: c.Ground, Workers: c.Workers, Shards: c.Shards}},
		curve:   NewCurve(c.Method, c.Pieces, d.MLN, c.Train, c.Holdout)}
	var res LearnResult
	var err error
	if c.Method == "smd" || c.Method == "sgd" {
		res.Weights, res.Summary, err = l.train(ctx)
	} else {
		res.Weights, res.Summary, err = l.batch(ctx)
	}
	l.curve.Seconds = time.Since(l.start).Seconds()
	if err != nil && ctx.Err() != nil && l.last != nil {
		res.Weights, res.Interrupted = l.last, true
		res.Summary = fmt.Sprintf("INTERRUPTED after %s: the weights %s", l.where, l.what)
		res.Curve = l.curve
		res.Weights = res.Weights[:len(d.User.Formulas)]
		return &res, nil
	}
	if err != nil {
		return nil, err
	}
	res.Weights = res.Weights[:len(d.User.Formulas)] // without the formulas of "!"
	res.Curve = l.curve
	// The exact log-likelihood of each holdout database, where the WFOMC
	// engine applies (its errors only mean that it does not).
	for _, path := range c.Holdout {
		var ll *float64
		if tdb, err := mlnfile.ReadDBFiles(d.User, path); err == nil {
			if v, err := learn.DBLogLikelihood(d.User, res.Weights, tdb, path); err == nil {
				ll = FinitePtr(v)
			}
		}
		l.curve.TestLogLik = append(l.curve.TestLogLik, ll)
	}
	return &res, nil
}

// learner is one run of a learner: its settings, its training
// mega-example, its holdout and the curve it records.
type learner struct {
	c       Config
	md      *Model
	holdout *Holdout
	curve   *Curve
	start   time.Time
	status  string // the last test CMLL, for the progress line
	// last are the latest weights reached (nil before the first), where
	// says when, and what says what they are: the answer of an
	// interrupted run.
	last        []float64
	where, what string
}

// reached records w as the latest weights, reached at where.
func (l *learner) reached(w []float64, where string) {
	l.last = append(l.last[:0], w...)
	l.where = where
}

// eval records the weights w after passes in the curve, with their test
// CMLL where there are holdout databases.
func (l *learner) eval(ctx context.Context, passes float64, w []float64) error {
	c, err := l.holdout.Record(ctx, l.curve, passes, time.Since(l.start).Seconds(), w)
	if c != nil {
		l.status = fmt.Sprintf(", test CMLL %.6g", *c)
	}
	return err
}

// train runs smd or sgd on mini-batches of pieces.
func (l *learner) train(ctx context.Context) ([]float64, string, error) {
	c := l.c
	l.what = "after the last mini-batch"
	rng := rand.New(rand.NewPCG(c.Seed, 0x5eed))
	pieces, err := NewPieces(l.md, c.Pieces, c.Depth, c.Discount, rng)
	if err != nil {
		return nil, "", err
	}
	res, err := Train(ctx, l.md, pieces, TrainOptions{
		Method: c.Method, BatchSize: c.BatchSize, Passes: c.Passes, Step: c.Step,
		Lambda: nonZero(c.Lambda), Mu: nonZero(c.Mu), Gamma: nonZero(c.Gamma),
		Grad: l.holdout.Grad, EvalEvery: c.EvalEvery, Rand: rng,
		Eval: func(p float64, w []float64) error {
			if l.holdout.Len() == 0 && p != 0 && p < c.Passes {
				return nil
			}
			return l.eval(ctx, p, w)
		},
		Progress: func(p Progress) {
			l.reached(p.Weights, fmt.Sprintf("%d mini-batches (pass %.3g of %g)", int(math.Round(p.Pass*float64(p.Batches))), p.Pass, c.Passes))
			c.Progress(int64(1000*p.Pass), int64(1000*c.Passes), fmt.Sprintf("pass %.2f of %g, batch %d of %d, batch loss %.4g, lift ratio %.3f%s",
				p.Pass, c.Passes, p.Batch, p.Batches, p.Loss, p.LiftRatio, l.status))
		},
	})
	if err != nil {
		return nil, "", err
	}
	return res.Weights, fmt.Sprintf("%d pieces, %d mini-batches, mean lift ratio %.3f", pieces.Len(), res.Batches, res.LiftRatio), nil
}

// batch runs scg or lbfgs-bp on the whole model's BP likelihood.
func (l *learner) batch(ctx context.Context) ([]float64, string, error) {
	c := l.c
	l.what = "of the last accepted iterate"
	bo := BatchOptions{MaxIter: c.MaxIter, GradTol: c.Tol, PriorStdDev: c.PriorStdDev, Grad: l.holdout.Grad,
		Eval: func(p float64, w []float64) error {
			l.reached(w, fmt.Sprintf("%g evaluations of the BP likelihood", p))
			return l.eval(ctx, p, w)
		},
		Progress: func(it, evals int, loss float64) {
			c.Progress(int64(it), int64(c.MaxIter), fmt.Sprintf("iteration %d, %d passes, loss %.10g%s", it, evals, loss, l.status))
		}}
	var res *BatchLearnResult
	var err error
	if c.Method == "scg" {
		res, err = SCG(ctx, l.md, bo)
	} else {
		res, err = LBFGS(ctx, l.md, bo)
	}
	if err != nil {
		return nil, "", err
	}
	return res.Weights, fmt.Sprintf("%d iterations, %d passes, BP loss %.10g, converged %v (%s)", res.Iterations, res.Evaluations, res.Loss, res.Converged, res.Status), nil
}

// nonZero maps 0 to the options' "0" (a negative value), since 0 there
// means the default.
func nonZero(x float64) float64 {
	if x == 0 {
		return -1
	}
	return x
}

// ReadCurve reads a learning curve written as JSON.
func ReadCurve(path string) (*Curve, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var l Curve
	if err := json.Unmarshal(b, &l); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &l, nil
}
