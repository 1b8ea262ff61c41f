package train_test

import (
	"context"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"

	"github.com/lifted-dev/lifted/beam/train"
	"github.com/lifted-dev/lifted/infer/bp"
	"github.com/lifted-dev/lifted/internal/gen"
	"github.com/lifted-dev/lifted/online"
)

func TestMain(m *testing.M) { ptest.MainWithDefault(m, "prism") }

func run(_ context.Context, p *beam.Pipeline) error { return ptest.Run(p) }

const (
	smokersMLN = gen.LearnSmokersMLN
	smokersDB  = gen.LearnSmokersDB
)

// Training with every mini-batch on Beam (Prism) learns the weights of
// online.Train with the same seed, pieces and mini-batches, to 1e-9, for SGD
// and SMD.
func TestBeamTrainEqualsOnline(t *testing.T) {
	dir := t.TempDir()
	d := train.Data{MLN: filepath.Join(dir, "s.mln"), Train: []string{filepath.Join(dir, "s.db")},
		NE: []string{"Smokes", "Cancer"}, Pieces: filepath.Join(dir, "pieces.gob")}
	if err := os.WriteFile(d.MLN, []byte(smokersMLN), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(d.Train[0], []byte(smokersDB), 0o644); err != nil {
		t.Fatal(err)
	}
	ld, err := d.Load()
	if err != nil {
		t.Fatal(err)
	}
	md := ld.Model
	opt := train.Options{Tol: 1e-13, MaxIter: 5000}
	grad := online.GradOptions{BP: bp.DefaultOptions()}
	grad.BP.Tol, grad.BP.MaxIter = opt.Tol, opt.MaxIter
	for _, c := range []struct {
		method, pieces string
	}{{"sgd", "factor"}, {"smd", "tree"}} {
		d.Pieces = filepath.Join(dir, c.pieces+".gob") // workers cache the pieces by path
		trainWith := func(gradient func(context.Context, []float64, []int32) (*online.BatchResult, error)) []float64 {
			rng := rand.New(rand.NewPCG(3, 0x5eed))
			pieces, err := online.NewPieces(md, c.pieces, 2, 0.9, rng)
			if err != nil {
				t.Fatal(err)
			}
			if err := train.WritePieces(d.Pieces, pieces); err != nil {
				t.Fatal(err)
			}
			r, err := online.Train(context.Background(), md, pieces, online.TrainOptions{Method: c.method,
				BatchSize: max(1, pieces.Len()/3), Passes: 1, Grad: grad, Rand: rng, Gradient: gradient})
			if err != nil {
				t.Fatal(err)
			}
			return r.Weights
		}
		want := trainWith(nil)
		got := trainWith(train.Gradient(d, opt, t.TempDir(), run))
		for i := range want {
			if math.Abs(got[i]-want[i]) > 1e-9 {
				t.Fatalf("%s/%s: Beam learns w[%d] = %v, online.Train %v", c.method, c.pieces, i, got[i], want[i])
			}
		}
		t.Logf("%s/%s: weights %v", c.method, c.pieces, got)
	}
}
