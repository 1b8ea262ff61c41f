package online

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/lifted-dev/lifted/infer/bp"
)

type trainCase struct {
	name   string
	md     *Model
	pieces *Pieces
}

// trainCases are the online tests' models with every kind of piece.
func trainCases(t *testing.T) []trainCase {
	var cs []trainCase
	add := func(name string, md *Model) {
		rng := rand.New(rand.NewPCG(5, 6))
		cs = append(cs, trainCase{name + "/factor", md, FactorPieces(md)},
			trainCase{name + "/neighbourhood", md, NeighbourhoodPieces(md, 1)},
			trainCase{name + "/tree", md, TreePieces(md, 2, 0.9, rng)})
	}
	for _, c := range []struct{ name, src, db string }{
		{"smokers", smokersMLN, smokersDB},
		{"hard-smokers", hardSmokersMLN, smokersDB},
		{"tiny-hard", tinyHardMLN, tinyHardDB},
	} {
		m, db := parse(t, c.src, c.db)
		md, err := NewModel(m, db, []string{"Smokes", "Cancer"})
		if err != nil {
			t.Fatal(err)
		}
		add(c.name, md)
	}
	add("synth", synth(t, 12, 3))
	return cs
}

// Training with colour passing on several cores (GradOptions.Workers) gives
// the learned weights of one worker bit for bit, for SMD and SGD.
func TestWorkersBitIdentical(t *testing.T) {
	for _, c := range trainCases(t) {
		for _, method := range []string{"sgd", "smd"} {
			train := func(workers int) []float64 {
				r, err := Train(context.Background(), c.md, c.pieces, TrainOptions{Method: method, BatchSize: 3, Passes: 1,
					Grad: GradOptions{Workers: workers}, Rand: rand.New(rand.NewPCG(1, 2))})
				if err != nil {
					t.Fatal(err)
				}
				return r.Weights
			}
			one := train(1)
			for _, w := range []int{2, 3, 4} {
				got := train(w)
				for i := range one {
					if math.Float64bits(got[i]) != math.Float64bits(one[i]) {
						t.Fatalf("%s %s: %d workers learn w[%d] = %v, one worker %v", c.name, method, w, i, got[i], one[i])
					}
				}
			}
		}
	}
}

// The map step over single pieces, summed by the reduce step, gives the
// gradient BatchGradient computes on the whole mini-batch graph (with a
// tight BP tolerance: each piece's BP run stops on its own residual), and
// Train over that per-piece map/reduce learns the same weights.
func TestPieceGradientsSumToBatch(t *testing.T) {
	ctx := context.Background()
	opt := GradOptions{BP: bp.Options{Tol: 1e-13, MaxIter: 5000}}
	for _, c := range trainCases(t) {
		w := make([]float64, c.md.NumFormulas())
		for i := range w {
			w[i] = 0.3*float64(i) - 0.4
		}
		batch := allPieces(c.pieces)
		want, err := c.md.BatchGradient(ctx, w, c.pieces, batch, opt)
		if err != nil {
			t.Fatal(err)
		}
		perPiece := func(ctx context.Context, w []float64, batch []int32) (*BatchResult, error) {
			parts := make([]*BatchResult, len(batch))
			for i, p := range batch {
				var err error
				if parts[i], err = c.md.PieceGradient(ctx, w, c.pieces, []int32{p}, opt); err != nil {
					return nil, err
				}
			}
			sum := SumGradients(parts)
			FinishGradient(sum, false)
			return sum, nil
		}
		got, err := perPiece(ctx, w, batch)
		if err != nil {
			t.Fatal(err)
		}
		for f := range want.Grad {
			if math.Abs(got.Grad[f]-want.Grad[f]) > 1e-9 || got.Count[f] != want.Count[f] {
				t.Fatalf("%s: formula %d: per-piece sum %v (count %v), batch %v (count %v)", c.name, f, got.Grad[f], got.Count[f], want.Grad[f], want.Count[f])
			}
		}
		if math.Abs(got.Loss-want.Loss) > 1e-9*math.Max(1, math.Abs(want.Loss)) {
			t.Fatalf("%s: per-piece loss %v, batch %v", c.name, got.Loss, want.Loss)
		}
		for _, method := range []string{"sgd", "smd"} {
			to := TrainOptions{Method: method, BatchSize: 4, Passes: 2, Grad: opt}
			to.Rand = rand.New(rand.NewPCG(7, 8))
			ref, err := Train(ctx, c.md, c.pieces, to)
			if err != nil {
				t.Fatal(err)
			}
			to.Rand = rand.New(rand.NewPCG(7, 8))
			to.Gradient = perPiece
			mr, err := Train(ctx, c.md, c.pieces, to)
			if err != nil {
				t.Fatal(err)
			}
			for i := range ref.Weights {
				if math.Abs(mr.Weights[i]-ref.Weights[i]) > 1e-9 {
					t.Fatalf("%s %s: map/reduce training w[%d] = %v, Train %v", c.name, method, i, mr.Weights[i], ref.Weights[i])
				}
			}
		}
	}
}

func TestPieceGradientBadPiece(t *testing.T) {
	m, db := parse(t, smokersMLN, smokersDB)
	md, err := NewModel(m, db, []string{"Smokes", "Cancer"})
	if err != nil {
		t.Fatal(err)
	}
	p := FactorPieces(md)
	if _, err := md.PieceGradient(context.Background(), make([]float64, md.NumFormulas()), p, []int32{int32(p.Len())}, GradOptions{}); err == nil {
		t.Fatal("no error for a piece out of range")
	}
}
