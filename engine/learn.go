package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/lifted-dev/lifted/format/mlnfile"
	"github.com/lifted-dev/lifted/learn"
	"github.com/lifted-dev/lifted/mln"
	"github.com/lifted-dev/lifted/online"
	"github.com/lifted-dev/lifted/pos"
)

// LearnMethods are the weight learners of "lifted learn", in the order
// its help lists them: the batch learners of package learn (lwl, pll, and
// the discriminative disc, dn, dscg, vp with BP or MC-SAT counts) and the
// online and BP-based learners of package online (smd, sgd, scg,
// lbfgs-bp).
var LearnMethods = []string{"lwl", "pll", "disc", "dn", "dscg", "vp", "smd", "sgd", "scg", "lbfgs-bp"}

// DefaultLearnMethod learns when a LearnRequest names none: the exact
// lifted likelihood.
const DefaultLearnMethod = "lwl"

// DefaultLearnTol is the gradient tolerance of lwl, pll, scg and lbfgs-bp
// when a LearnRequest sets none (Run.Tol 0).
const DefaultLearnTol = 1e-8

// LearnOptionGroup is a set of learn's options (named as the command's
// flags) and the learners they apply to: one table for the command's
// help and for refusing an option given to a learner that would ignore
// it (CheckLearnOptions).
type LearnOptionGroup struct {
	Methods, Options []string
}

// LearnOptionGroups say which learners take which options; an option in
// no group applies to every learner.
var LearnOptionGroups = []LearnOptionGroup{
	{[]string{"lwl", "pll", "disc", "dn", "dscg", "vp", "scg", "lbfgs-bp"}, []string{"max-iter", "prior-stddev"}},
	{[]string{"lwl", "pll", "scg", "lbfgs-bp"}, []string{"tol"}},
	{[]string{"lwl", "pll", "disc", "dn", "dscg", "vp"}, []string{"prior-mean"}},
	{[]string{"pll"}, []string{"pll-unweighted"}},
	{[]string{"vp"}, []string{"learning-rate"}},
	{[]string{"disc", "dn", "dscg", "vp"}, []string{"counts"}},
	{[]string{"disc", "dn", "dscg", "vp", "smd", "sgd", "scg", "lbfgs-bp"}, []string{"ne", "seed"}},
	{[]string{"smd", "sgd", "scg", "lbfgs-bp"}, []string{"holdout", "eval-every", "log", "plot", "plot-with", "ground-bp", "workers", "shards"}},
	{[]string{"smd", "sgd"}, []string{"pieces", "depth", "discount", "batch-size", "step", "passes"}},
	{[]string{"smd"}, []string{"smd-lambda", "smd-mu", "smd-gamma"}},
}

// CheckLearnOptions refuses, as a *RequestError, an unknown learner and
// an option given (by the command's flag name) to a learner that would
// ignore it (LearnOptionGroups).
func CheckLearnOptions(method string, given []string) error {
	if !slices.Contains(LearnMethods, method) {
		return &RequestError{(&learn.Run{Method: method}).Check()}
	}
	for _, name := range given {
		for _, g := range LearnOptionGroups {
			if slices.Contains(g.Options, name) && !slices.Contains(g.Methods, method) {
				return requestErrorf("--%s applies to --method %s, not %s", name, orList(g.Methods), method)
			}
		}
	}
	return nil
}

// orList joins names as "a, b or c".
func orList(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// DefaultPriorStdDev is the standard deviation of the Gaussian prior on
// every weight that method learns with when the request sets none:
// Alchemy's learnwts defaults, 2 for discriminative learning (disc, dn,
// dscg, vp and the BP-based scg and lbfgs-bp) and 100 for generative learning
// (lwl, pll; smd and sgd have no prior).
func DefaultPriorStdDev(method string) float64 {
	switch method {
	case "disc", "dn", "dscg", "vp", "scg", "lbfgs-bp":
		return 2 // DISC_DEFAULT_STD_DEV
	}
	return 100 // GEN_DEFAULT_STD_DEV
}

// LearnRequest is one run of "lifted learn": the MLN whose formula
// weights to learn, the training databases and the learner's options.
type LearnRequest struct {
	// Input is the path of the MLN.
	Input string
	// Run holds the learner (Method; "" is DefaultLearnMethod), the
	// training databases and the options every learner shares (prior,
	// iterations, tolerance, --ne, seed, progress) and those of the batch
	// learners (lwl, pll, dn, dscg, vp).
	learn.Run
	// DefaultPrior: Run.PriorStdDev was not given, so the learner's
	// default (DefaultPriorStdDev) applies; also after a fallback.
	DefaultPrior bool
	// Online holds the other options of smd, sgd, scg and lbfgs-bp
	// (pieces, steps, holdout, …); its Method, Train, MaxIter, Tol,
	// PriorStdDev, Seed and Progress are Run's.
	Online online.Config
	// Warn, if set, receives the parser's warnings; Note, if set, what the
	// run decided (a fallback, every predicate predicted).
	Warn func([]*pos.Error)
	Note func(string)
}

// Learned is the answer of Learn.
type Learned struct {
	// Method is the learner that answered: the one asked for, or dn where
	// scg fell back to it.
	Method string
	// MLN is the model the weights are for, Weights one per formula, and
	// Header the comment of the learned MLN (learn.WriteMLN).
	MLN     *mln.MLN
	Weights []float64
	Header  string
	// Lines are the run's figures for the user, in words (the summary;
	// the online learners' test log-likelihoods before it).
	Lines []string
	// Interrupted: ctx ended the run; Weights are the last ones reached,
	// and Status says where.
	Interrupted bool
	Status      string
	// Curve is the online learners' learning curve (nil for the batch
	// learners).
	Curve *online.Curve
}

// Learn learns the weights of the request's MLN from its training
// databases by its method. scg, whose BP counts hold each ground clause as
// a table, falls back to dn (MC-SAT counts, no limit on a clause's size)
// when a clause is too large, and says so by Note. Errors of the request
// are *RequestError; a missing --ne on partly observed data is an
// *online.NEError.
func Learn(ctx context.Context, r LearnRequest) (*Learned, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	r.defaults()
	if err := CheckLearnOptions(r.Method, nil); err != nil {
		return nil, err
	}
	switch {
	case r.Input == "":
		return nil, requestErrorf("learn needs the model: -i STRUCT.mln")
	case len(r.Train) == 0:
		return nil, requestErrorf("learn needs training data: -t A.db[,B.db…]")
	}
	if r.DefaultPrior {
		r.PriorStdDev = DefaultPriorStdDev(r.Method)
	}
	if online.IsMethod(r.Method) {
		l, err := learnOnline(ctx, r)
		if r.Method != "scg" || !errors.Is(err, online.ErrClauseTooLarge) {
			return l, err
		}
		if r.Note != nil {
			r.Note(fmt.Sprintf("scg: %v; learning with --method dn (diagonal Newton; BP counts where BP converges, else MC-SAT's) instead", err))
		}
		r.Method = "dn"
		if r.DefaultPrior {
			r.PriorStdDev = DefaultPriorStdDev(r.Method)
		}
	}
	return learnBatch(ctx, r)
}

// CheckLearn checks a request before any work (the command then opens
// its output): the learner, its options and the online learners'
// settings, as *RequestError.
func CheckLearn(r LearnRequest) error {
	r.defaults()
	if err := CheckLearnOptions(r.Method, nil); err != nil {
		return err
	}
	if online.IsMethod(r.Method) {
		c := onlineConfig(r)
		var ce *online.ConfigError
		if err := c.Check(); errors.As(err, &ce) {
			return &RequestError{err}
		}
		return nil
	}
	if err := r.Run.Check(); err != nil {
		return &RequestError{err}
	}
	return nil
}

// defaults fills in the learner and the tolerance where r leaves them
// zero.
func (r *LearnRequest) defaults() {
	if r.Method == "" {
		r.Method = DefaultLearnMethod
	}
	if r.Tol == 0 {
		r.Tol = DefaultLearnTol
	}
}

// onlineConfig is the online learners' configuration of r.
func onlineConfig(r LearnRequest) online.Config {
	c := r.Online
	c.Method, c.Train, c.MaxIter, c.Tol, c.PriorStdDev, c.Seed = r.Method, r.Train, r.MaxIter, r.Tol, r.PriorStdDev, r.Seed
	if c.MaxIter == 0 {
		c.MaxIter = 1000
	}
	if r.Progress != nil {
		c.Progress = func(done, total int64, detail string) { r.Progress(r.Method, done, total, detail) }
	}
	return c
}

func learnOnline(ctx context.Context, r LearnRequest) (*Learned, error) {
	c := onlineConfig(r)
	if err := c.Check(); err != nil {
		return nil, &RequestError{err}
	}
	res, err := online.LearnFiles(ctx, r.Input, r.NE, c, r.Warn, r.Note)
	var nee *online.NEError
	if errors.As(err, &nee) {
		return nil, &RequestError{fmt.Errorf("--method %s %w", r.Method, err)}
	}
	if err != nil {
		return nil, err
	}
	return &Learned{Method: r.Method, MLN: res.Data.User, Weights: res.Weights, Header: res.Header, Lines: res.Lines,
		Interrupted: res.Interrupted, Status: res.Summary, Curve: res.Curve}, nil
}

func learnBatch(ctx context.Context, r LearnRequest) (*Learned, error) {
	if err := r.Run.Check(); err != nil {
		return nil, &RequestError{err}
	}
	m, err := mlnfile.ParseFile(r.Input)
	if err == nil {
		err = mlnfile.Empty(m, r.Input)
	}
	if err != nil {
		return nil, err
	}
	if r.Warn != nil {
		r.Warn(m.Warnings)
	}
	l, err := r.Run.Learn(ctx, m)
	if err != nil {
		return nil, err
	}
	return &Learned{Method: r.Method, MLN: l.MLN, Weights: l.Weights, Header: l.Header, Lines: []string{l.Summary},
		Interrupted: l.Interrupted, Status: l.Status}, nil
}
