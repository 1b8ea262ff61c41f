// Command train learns MLN weights by lifted online training (SMD or SGD
// over mini-batches of pieces, as "lifted learn --method smd|sgd") with every
// mini-batch's gradient computed by an Apache Beam job: one map over the
// mini-batch's pieces and one sum.
//
//	go run ./cmd/train --runner=prism -i S.mln -t A.db --ne P,Q -o OUT.mln
//
// The flags that "lifted learn" has for smd/sgd mean the same here, and the
// same --seed gives the same pieces and mini-batches, so the learned weights
// equal lifted learn's up to the order of the floating-point sum.
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/x/beamx"

	"github.com/lifted-dev/lifted/beam/train"
	"github.com/lifted-dev/lifted/learn"
	"github.com/lifted-dev/lifted/online"
)

type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }
func (l *listFlag) Set(s string) error {
	for _, x := range strings.Split(s, ",") {
		if x = strings.TrimSpace(x); x != "" {
			*l = append(*l, x)
		}
	}
	return nil
}

type config struct {
	input, output, method, pieces, workDir string
	trainDB, ne                            listFlag
	depth, batchSize                       int
	discount, step, passes                 float64
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
	flag.Var(&c.ne, "ne", "non-evidence (query) predicates, comma-separated (required)")
	flag.StringVar(&c.method, "method", "smd", "smd or sgd")
	flag.StringVar(&c.pieces, "pieces", "factor", "factor, tree or neighbourhood")
	flag.IntVar(&c.depth, "depth", 2, "with --pieces tree or neighbourhood: depth")
	flag.Float64Var(&c.discount, "discount", 0.9, "with --pieces tree: discount t")
	flag.IntVar(&c.batchSize, "batch-size", 10, "pieces per mini-batch")
	flag.Float64Var(&c.step, "step", 0.2, "smd: initial gain; sgd: step size")
	flag.Float64Var(&c.passes, "passes", 1, "passes over the pieces")
	flag.Uint64Var(&c.seed, "seed", 1, "random seed (pieces, mini-batches)")
	flag.Float64Var(&c.lambda, "smd-lambda", 0.99, "smd: decay λ of v")
	flag.Float64Var(&c.mu, "smd-mu", 0.1, "smd: meta-gain μ")
	flag.Float64Var(&c.gamma, "smd-gamma", 0.9, "smd: discount γ of the gradient covariance")
	flag.BoolVar(&c.groundBP, "ground-bp", false, "ground instead of lifted BP on the workers")
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
	dir := c.workDir
	if dir == "" {
		d, err := os.MkdirTemp("", "train")
		if err != nil {
			return err
		}
		defer os.RemoveAll(d)
		dir = d
	}
	d := train.Data{MLN: c.input, Train: c.trainDB, NE: c.ne, Pieces: strings.TrimSuffix(dir, "/") + "/pieces.gob"}
	user, md, err := d.Load()
	if err != nil {
		return err
	}
	// As lifted learn: one generator for the pieces and then the shuffles.
	rng := rand.New(rand.NewPCG(c.seed, 0x5eed))
	pieces, err := online.NewPieces(md, c.pieces, c.depth, c.discount, rng)
	if err != nil {
		return err
	}
	if err := train.WritePieces(d.Pieces, pieces); err != nil {
		return err
	}
	res, err := online.Train(ctx, md, pieces, online.TrainOptions{
		Method: c.method, BatchSize: c.batchSize, Passes: c.passes, Step: c.step,
		Lambda: nonZero(c.lambda), Mu: nonZero(c.mu), Gamma: nonZero(c.gamma), Rand: rng,
		Gradient: train.Gradient(d, train.Options{Ground: c.groundBP}, dir, runJob),
		Progress: func(p online.Progress) {
			if !c.quiet {
				fmt.Fprintf(os.Stderr, "train: pass %.2f, batch %d of %d, batch loss %.4g\n", p.Pass, p.Batch, p.Batches, p.Loss)
			}
		},
	})
	if err != nil {
		return err
	}
	weights := res.Weights[:len(user.Formulas)]
	header := fmt.Sprintf("Learned by beam/cmd/train --method %s from %s (%d mini-batches on Apache Beam)", c.method, strings.Join(c.trainDB, ", "), res.Batches)
	if c.output == "" || c.output == "-" {
		return learn.WriteMLN(os.Stdout, user, weights, header)
	}
	tmp, err := os.CreateTemp(filepath.Dir(c.output), ".train-*")
	if err != nil {
		return err
	}
	w := bufio.NewWriter(tmp)
	err = learn.WriteMLN(w, user, weights, header)
	if err == nil {
		err = w.Flush()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), c.output)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}
