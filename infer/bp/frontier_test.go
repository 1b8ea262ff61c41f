package bp_test

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/infer/bp"
	"github.com/lifted-dev/lifted/internal/brute"
	"github.com/lifted-dev/lifted/internal/gen"
	"github.com/lifted-dev/lifted/lift"
)

// randomHMM builds a chain X_0 … X_{T-1} (cardinality k) with a random unary
// factor and a leaf observation variable Y_t (random pairwise table) per
// step, and random transition tables, added in a shuffled order so that the
// protocol, not the factor order, has to get the schedule right.
func randomHMM(r *rand.Rand, T, k int) (*fg.Graph, []int32) {
	b := fg.NewBuilder()
	x := b.AddVars(T, k)
	y := b.AddVars(T, 2)
	slice := make([]int32, 2*T)
	for t := 0; t < T; t++ {
		slice[int(x)+t], slice[int(y)+t] = int32(t), int32(t)
	}
	type fac struct {
		scope []int32
		vals  []float64
	}
	var fs []fac
	for t := 0; t < T; t++ {
		fs = append(fs, fac{[]int32{x + int32(t)}, gen.RandomTable(r, k, 0)})
		fs = append(fs, fac{[]int32{y + int32(t), x + int32(t)}, gen.RandomTable(r, 2*k, 0)})
		if t+1 < T {
			fs = append(fs, fac{[]int32{x + int32(t) + 1, x + int32(t)}, gen.RandomTable(r, k*k, 0.2)})
		}
	}
	r.Shuffle(len(fs), func(i, j int) { fs[i], fs[j] = fs[j], fs[i] })
	for _, f := range fs {
		if _, err := b.AddFactor(f.scope, f.vals); err != nil {
			panic(err)
		}
	}
	return b.Build(), slice
}

// One forwards-backwards iteration on a chain with leaf observations is
// exact (enumeration), whatever the order of the factors; flooding is not.
func TestForwardBackwardExactOnChains(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 1))
	for trial := 0; trial < 20; trial++ {
		T, k := 2+r.IntN(6), 2+r.IntN(2)
		g, slice := randomHMM(r, T, k)
		ev := fg.NoEvidence(g.NumVars())
		for v := T; v < 2*T; v++ {
			if r.IntN(2) == 0 {
				ev[v] = int32(r.IntN(2))
			}
		}
		exact := brute.Solve(g, ev)
		if math.IsInf(exact.LogZ, -1) {
			continue
		}
		c, err := lift.Ground(g, ev)
		if err != nil {
			t.Fatal(err)
		}
		opt := bp.DefaultOptions()
		opt.Schedule, opt.MaxIter, opt.VarSlice = bp.ForwardBackward, 1, slice
		res, err := bp.Run(context.Background(), c, opt)
		if err != nil {
			t.Fatal(err)
		}
		for v := range exact.Marginals {
			for s, p := range exact.Marginals[v] {
				if d := math.Abs(res.Marginal(v)[s] - p); d > 1e-10 {
					t.Fatalf("trial %d (T=%d, k=%d): variable %d state %d: %v after one sweep, exact %v", trial, T, k, v, s, res.Marginal(v)[s], p)
				}
			}
		}
	}
}

func TestForwardBackwardRefusals(t *testing.T) {
	b := fg.NewBuilder()
	v := b.AddVars(3, 2)
	if _, err := b.AddFactor([]int32{v, v + 2}, []float64{1, 2, 3, 4}); err != nil {
		t.Fatal(err)
	}
	g := b.Build()
	c, err := lift.Ground(g, nil)
	if err != nil {
		t.Fatal(err)
	}
	opt := bp.DefaultOptions()
	opt.Schedule = bp.ForwardBackward
	if _, err := bp.Run(context.Background(), c, opt); err == nil {
		t.Error("no VarSlice: no error")
	}
	opt.VarSlice = []int32{0, 1, 2}
	if _, err := bp.Run(context.Background(), c, opt); err == nil {
		t.Error("a factor linking steps 0 and 2: no error")
	}
}
