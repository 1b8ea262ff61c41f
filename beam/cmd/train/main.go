// Command train learns MLN weights by lifted online training (SMD or SGD
// over mini-batches of pieces, as "lifted learn --method smd|sgd") with every
// mini-batch's gradient computed by an Apache Beam job: one map over the
// mini-batch's pieces and one sum.
//
//	go run ./cmd/train --runner=prism -i S.mln -t A.db --ne P,Q -o OUT.mln
//
// The flags that "lifted learn" has for smd/sgd mean the same here (but
// --shards: every piece is its own map element here), and the same --seed
// gives the same pieces and mini-batches, so the learned weights equal
// lifted learn's up to the order of the floating-point sum. The holdout
// CMLL (--holdout) is computed by the driver between the jobs.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/x/beamx"

	"github.com/lifted-dev/lifted/beam/internal/listflag"
	"github.com/lifted-dev/lifted/beam/internal/wholefile"
	"github.com/lifted-dev/lifted/beam/train"
	"github.com/lifted-dev/lifted/learn"
	"github.com/lifted-dev/lifted/online"
	"github.com/lifted-dev/lifted/online/curveplot"
)

type config struct {
	input, output, method, pieces, workDir string
	trainDB, ne, holdout, plotWith         listflag.Comma
	log, plot                              string
	depth, batchSize, workers              int
	discount, step, passes, evalEvery      float64
	lambda, mu, gamma                      float64
	seed                                   uint64
	groundBP, quiet                        bool
}

func main() {
	var c config
	for _, n := range []string{"i", "input"} {
		flag.StringVar(&c.input, n, "", "the MLN whose formula weights to learn (required)")
	}
	for _, n := range []string{"t", "train"} {
		flag.Var(&c.trainDB, n, "training databases, comma-separated or repeated (required)")
	}
	for _, n := range []string{"o", "output"} {
		flag.StringVar(&c.output, n, "", "learned MLN file (default stdout)")
	}
	flag.Var(&c.ne, "ne", "non-evidence (query) predicates, comma-separated (default: every predicate, when the data observe every atom, as Alchemy's -g)")
	flag.StringVar(&c.method, "method", "smd", "smd or sgd")
	flag.StringVar(&c.pieces, "pieces", "factor", "factor, tree or neighbourhood")
	flag.IntVar(&c.depth, "depth", 2, "with --pieces tree or neighbourhood: depth")
	flag.Float64Var(&c.discount, "discount", 0.9, "with --pieces tree: discount t")
	flag.IntVar(&c.batchSize, "batch-size", 10, "pieces per mini-batch")
	flag.Float64Var(&c.step, "step", 0.2, "smd: initial gain; sgd: step size")
	flag.Float64Var(&c.passes, "passes", 1, "passes over the pieces")
	flag.Uint64Var(&c.seed, "seed", 1, "random seed (pieces, mini-batches, CMLL groups)")
	flag.Float64Var(&c.lambda, "smd-lambda", 0.99, "smd: decay λ of v")
	flag.Float64Var(&c.mu, "smd-mu", 0.1, "smd: meta-gain μ")
	flag.Float64Var(&c.gamma, "smd-gamma", 0.9, "smd: discount γ of the gradient covariance")
	flag.BoolVar(&c.groundBP, "ground-bp", false, "ground instead of lifted BP on the workers")
	flag.Var(&c.holdout, "holdout", "test databases, each its own mega-example: their mean CMLL after every --eval-every of a pass (computed by the driver)")
	flag.Float64Var(&c.evalEvery, "eval-every", 0.1, "with --holdout: evaluate after every this fraction of a pass")
	flag.StringVar(&c.log, "log", "", "write the learning curve as JSON (as lifted learn --log)")
	flag.StringVar(&c.plot, "plot", "", "write the learning curve (test CMLL vs passes): .png, .svg or .pdf")
	flag.Var(&c.plotWith, "plot-with", "curve logs (--log files) of earlier runs to draw in the same --plot")
	flag.IntVar(&c.workers, "workers", 1, "colour passing of every BP run on this many cores of a worker (0: one per core); the weights do not depend on it")
	flag.StringVar(&c.workDir, "workdir", "", "directory for the pieces and the per-batch sums, on a filesystem the workers read (default: a temporary directory, local runners only)")
	flag.BoolVar(&c.quiet, "quiet", false, "no progress on stderr")
	flag.Parse()
	beam.Init()
	if err := run(context.Background(), &c, beamx.Run); err != nil {
		fmt.Fprintln(os.Stderr, "train:", err)
		os.Exit(1)
	}
}

func nonZero(x float64) float64 {
	if x == 0 {
		return -1
	}
	return x
}

func run(ctx context.Context, c *config, runJob func(context.Context, *beam.Pipeline) error) error {
	if c.input == "" || len(c.trainDB) == 0 {
		return fmt.Errorf("need -i STRUCT.mln and -t TRAIN.db")
	}
	if c.method != "smd" && c.method != "sgd" {
		return fmt.Errorf("--method must be smd or sgd, got %q", c.method)
	}
	if c.pieces != "factor" && c.pieces != "tree" && c.pieces != "neighbourhood" {
		return fmt.Errorf("--pieces must be factor, tree or neighbourhood, got %q", c.pieces)
	}
	if c.depth < 0 || !(c.discount >= 0 && c.discount <= 1) || c.batchSize < 1 || !(c.step > 0) || !(c.passes > 0) || !(c.evalEvery > 0) || c.workers < 0 {
		return fmt.Errorf("need --depth ≥ 0, --discount in [0, 1], --batch-size ≥ 1, --step > 0, --passes > 0, --eval-every > 0 and --workers ≥ 0")
	}
	plotFmt := ""
	if c.plot != "" {
		var err error
		if plotFmt, err = curveplot.Format(c.plot); err != nil {
			return err
		}
	}
	if c.workers == 0 {
		c.workers = runtime.GOMAXPROCS(0)
	}
	dir := c.workDir
	if dir != "" {
		// A run of its own: workers cache the model and pieces by path.
		dir = strings.TrimSuffix(dir, "/") + fmt.Sprintf("/run-%d-%d", time.Now().UnixNano(), os.Getpid())
	} else {
		d, err := os.MkdirTemp("", "train")
		if err != nil {
			return err
		}
		defer os.RemoveAll(d)
		dir = d
	}
	d := train.Data{MLN: c.input, Train: c.trainDB, Holdout: c.holdout, NE: c.ne, Pieces: strings.TrimSuffix(dir, "/") + "/pieces.gob"}
	ld, err := d.Load()
	if ld != nil && !c.quiet {
		for _, w := range ld.Warnings {
			fmt.Fprintln(os.Stderr, "train: warning:", w)
		}
	}
	if err != nil {
		return err
	}
	if ld.Generative && !c.quiet {
		fmt.Fprintf(os.Stderr, "train: no --ne: the data observe every predicate, so all are predicted (generative, as Alchemy's -g): %s\n", strings.Join(ld.NE, ","))
	}
	d.NE = ld.NE // the workers need not decide again
	start := time.Now()
	opt := train.Options{Ground: c.groundBP, Workers: c.workers}
	holdout := &online.Holdout{Tests: ld.Tests, Seed: c.seed, Grad: online.GradOptions{Ground: c.groundBP, Workers: c.workers}}
	curve := online.NewCurve(c.method, c.pieces, ld.MLN, c.trainDB, c.holdout)
	// As lifted learn: one generator for the pieces and then the shuffles.
	rng := rand.New(rand.NewPCG(c.seed, 0x5eed))
	pieces, err := online.NewPieces(ld.Model, c.pieces, c.depth, c.discount, rng)
	if err != nil {
		return err
	}
	if err := train.WritePieces(d.Pieces, pieces); err != nil {
		return err
	}
	res, err := online.Train(ctx, ld.Model, pieces, online.TrainOptions{
		Method: c.method, BatchSize: c.batchSize, Passes: c.passes, Step: c.step,
		Lambda: nonZero(c.lambda), Mu: nonZero(c.mu), Gamma: nonZero(c.gamma), Rand: rng,
		Grad: holdout.Grad, EvalEvery: c.evalEvery,
		Eval: func(p float64, w []float64) error {
			if holdout.Len() == 0 && p != 0 && p < c.passes {
				return nil
			}
			cmll, err := holdout.Record(ctx, curve, p, time.Since(start).Seconds(), w)
			if cmll != nil && !c.quiet {
				fmt.Fprintf(os.Stderr, "train: pass %.2f: test CMLL %.6g\n", p, *cmll)
			}
			return err
		},
		Gradient: train.Gradient(d, opt, dir, runJob),
		Progress: func(p online.Progress) {
			if !c.quiet {
				fmt.Fprintf(os.Stderr, "train: pass %.2f, batch %d of %d, batch loss %.4g\n", p.Pass, p.Batch, p.Batches, p.Loss)
			}
		},
	})
	if err != nil {
		return err
	}
	curve.Seconds = time.Since(start).Seconds()
	if err := writeCurve(c, curve, plotFmt); err != nil {
		return err
	}
	user := ld.User
	weights := res.Weights[:len(user.Formulas)] // without the formulas of "!"
	header := fmt.Sprintf("Learned by beam/cmd/train --method %s from %s (%d mini-batches on Apache Beam)", c.method, strings.Join(c.trainDB, ", "), res.Batches)
	if c.output == "" || c.output == "-" {
		return learn.WriteMLN(os.Stdout, user, weights, header)
	}
	return wholefile.Write(c.output, func(w io.Writer) error { return learn.WriteMLN(w, user, weights, header) })
}

// writeCurve writes the curve as JSON (--log) and plots it with those of
// earlier runs (--plot, --plot-with), as lifted learn does.
func writeCurve(c *config, curve *online.Curve, plotFmt string) error {
	if c.log != "" {
		if err := wholefile.Write(c.log, func(w io.Writer) error {
			enc := json.NewEncoder(w)
			enc.SetIndent("", " ")
			return enc.Encode(curve)
		}); err != nil {
			return err
		}
	}
	if c.plot == "" {
		return nil
	}
	var curves []*online.Curve
	for _, p := range c.plotWith {
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		var l online.Curve
		if err := json.Unmarshal(b, &l); err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		curves = append(curves, &l)
	}
	return wholefile.Write(c.plot, func(w io.Writer) error { return curveplot.Write(w, plotFmt, append(curves, curve)) })
}
