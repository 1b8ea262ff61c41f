package bp_test

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/infer/bp"
	"github.com/lifted-dev/lifted/internal/gen"
	"github.com/lifted-dev/lifted/lift"
)

// beliefsFrom computes each ground variable's belief from factor-to-variable
// messages by hand: b_v(x) ∝ Π over v's edges of m(x)^count.
func beliefsFrom(c *lift.Compressed, f2v []float64, off []int) [][]float64 {
	nodeB := make([][]float64, c.NumNodes())
	for X := range nodeB {
		b := make([]float64, c.NodeCard[X])
		for x := range b {
			b[x] = 1
		}
		for s := range c.NumEdges() {
			if int(c.EdgeNode[s]) != X {
				continue
			}
			for x := range b {
				b[x] *= math.Pow(f2v[off[s]+x], float64(c.EdgeCount[s]))
			}
		}
		var z float64
		for _, v := range b {
			z += v
		}
		for x := range b {
			b[x] /= z
		}
		nodeB[X] = b
	}
	out := make([][]float64, len(c.NodeOf))
	for v, X := range c.NodeOf {
		out[v] = nodeB[X]
	}
	return out
}

// TestAverageLast: a run that ends unconverged takes its beliefs from the
// mean of its last AverageLast iterations' messages. The mean is formed
// here from separate runs stopped at each of those iterations (BP is
// deterministic, so they follow the one trajectory), and the beliefs from
// it by hand; on compressed graphs the lifted run must give the ground
// run's marginals. A converged run is unaffected.
func TestAverageLast(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 3))
	ctx := context.Background()
	differ := 0
	for trial := range 40 {
		var g *fg.Graph
		switch trial % 3 {
		case 0:
			g = gen.Ring(r, 4+r.IntN(12), true)
		case 1:
			g = gen.SquareGrid(r, 2+r.IntN(4))
		default:
			g, _ = gen.Copies(r, gen.Random(r, 2+r.IntN(4), 1+r.IntN(5), 3, 0), 2+r.IntN(3), 0)
		}
		ground, err := lift.Ground(g, nil)
		if err != nil {
			t.Fatal(err)
		}
		M, K := 5+r.IntN(20), 1+r.IntN(5)
		opt := bp.Options{Tol: 0, MaxIter: M, Damping: []float64{0, 0.5}[trial%2], AverageLast: K}
		res, err := bp.Run(ctx, ground, opt)
		if err != nil {
			t.Fatal(err)
		}
		if res.Converged {
			t.Fatalf("trial %d: converged with tolerance 0", trial)
		}
		mean := make([]float64, len(res.F2V))
		var last *bp.Result
		for m := M - K + 1; m <= M; m++ {
			o := opt
			o.MaxIter, o.AverageLast = m, 0
			if last, err = bp.Run(ctx, ground, o); err != nil {
				t.Fatal(err)
			}
			for i, v := range last.F2V {
				mean[i] += v / float64(K)
			}
		}
		want := beliefsFrom(ground, mean, res.EdgeOff)
		plain := beliefsFrom(ground, last.F2V, last.EdgeOff)
		for v := range want {
			for x := range want[v] {
				if d := math.Abs(res.Marginal(v)[x] - want[v][x]); d > 1e-12 {
					t.Fatalf("trial %d: variable %d state %d: %v, want %v (mean of the last %d of %d iterations)", trial, v, x, res.Marginal(v)[x], want[v][x], K, M)
				}
				if d := math.Abs(last.Marginal(v)[x] - plain[v][x]); d > 1e-12 {
					t.Fatalf("trial %d: AverageLast 0: variable %d: %v, want %v", trial, v, last.Marginal(v)[x], plain[v][x])
				}
				if K > 1 && math.Abs(want[v][x]-plain[v][x]) > 1e-6 {
					differ++
				}
			}
		}
		c, _, err := lift.Compress(ctx, g, nil, lift.Options{})
		if err != nil {
			t.Fatal(err)
		}
		lres, err := bp.Run(ctx, c, opt)
		if err != nil {
			t.Fatal(err)
		}
		for v := range want {
			for x := range want[v] {
				if d := math.Abs(lres.Marginal(v)[x] - res.Marginal(v)[x]); d > 1e-9 {
					t.Fatalf("trial %d: lifted variable %d: %v, ground %v", trial, v, lres.Marginal(v)[x], res.Marginal(v)[x])
				}
			}
		}
		// Converged: the same as without averaging, bit for bit.
		o := bp.Options{Tol: 1e-10, MaxIter: 5000, Damping: 0.5}
		a, err := bp.Run(ctx, ground, o)
		if err != nil {
			t.Fatal(err)
		}
		o.AverageLast = 4000
		b, err := bp.Run(ctx, ground, o)
		if err != nil {
			t.Fatal(err)
		}
		if a.Converged {
			for v := range want {
				for x := range want[v] {
					if a.Marginal(v)[x] != b.Marginal(v)[x] {
						t.Fatalf("trial %d: converged run changed by AverageLast", trial)
					}
				}
			}
		}
	}
	if differ == 0 {
		t.Fatal("averaging never changed a belief: the test checks nothing")
	}
}
