package bp_test

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/infer/bp"
	"github.com/lifted-dev/lifted/internal/brute"
	"github.com/lifted-dev/lifted/internal/gen"
	"github.com/lifted-dev/lifted/lift"
)

func runGround(t *testing.T, g *fg.Graph, ev fg.Evidence, opt bp.Options) *bp.Result {
	t.Helper()
	c, err := lift.Ground(g, ev)
	if err != nil {
		t.Fatal(err)
	}
	r, err := bp.Run(context.Background(), c, opt)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// randomEvidence observes each variable with probability p at a state that
// keeps the model satisfiable (checked by brute force).
func randomEvidence(r *rand.Rand, g *fg.Graph, p float64) fg.Evidence {
	if math.IsInf(brute.Solve(g, nil).LogZ, -1) {
		return nil
	}
	for {
		ev := fg.NoEvidence(g.NumVars())
		for v := range ev {
			if r.Float64() < p {
				ev[v] = int32(r.IntN(int(g.Card[v])))
			}
		}
		if g.CheckEvidence(ev) == nil && !math.IsInf(brute.Solve(g, ev).LogZ, -1) {
			return ev
		}
	}
}

// On trees BP is exact: marginals and the Bethe log Z equal enumeration.
func TestTreeExact(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 150; trial++ {
		n := 2 + r.IntN(9)
		g := gen.Tree(r, n, 3, 0.15)
		var ev fg.Evidence
		if trial%3 == 0 {
			ev = randomEvidence(r, g, 0.3)
		}
		want := brute.Solve(g, ev)
		if math.IsInf(want.LogZ, -1) {
			continue // zeros made the model unsatisfiable
		}
		for _, sched := range []bp.Schedule{bp.Flood, bp.Sequential} {
			opt := bp.DefaultOptions()
			opt.Schedule = sched
			opt.Tol = 1e-13
			res := runGround(t, g, ev, opt)
			if !res.Converged {
				t.Fatalf("trial %d %v: BP on a tree did not converge in %d iterations", trial, sched, res.Iterations)
			}
			for v := 0; v < g.NumVars(); v++ {
				for x, p := range res.Marginal(v) {
					if d := math.Abs(p - want.Marginals[v][x]); d > 1e-9 {
						t.Fatalf("trial %d %v: P(x%d=%d) = %v, exact %v", trial, sched, v, x, p, want.Marginals[v][x])
					}
				}
			}
			if d := math.Abs(res.LogZ - want.LogZ); d > 1e-9*math.Max(1, math.Abs(want.LogZ)) {
				t.Fatalf("trial %d %v: Bethe log Z %v, exact %v", trial, sched, res.LogZ, want.LogZ)
			}
		}
	}
}

// Max-product on a tree finds a MAP assignment.
func TestTreeMaxProduct(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	checked := 0
	for trial := 0; trial < 150; trial++ {
		g := gen.Tree(r, 2+r.IntN(8), 3, 0.1)
		want := brute.Solve(g, nil)
		if !want.MAPUnique || math.IsInf(want.LogZ, -1) {
			continue
		}
		opt := bp.DefaultOptions()
		opt.MaxProduct = true
		opt.Tol = 1e-13
		res := runGround(t, g, nil, opt)
		got := res.Assignment()
		for v := range got {
			if got[v] != want.MAP[v] {
				t.Fatalf("trial %d: MAP %v, brute force %v", trial, got, want.MAP)
			}
		}
		checked++
	}
	if checked < 50 {
		t.Fatalf("only %d trees had a unique MAP", checked)
	}
}

func TestContradictoryEvidence(t *testing.T) {
	b := fg.NewBuilder()
	b.AddVars(2, 2)
	if _, err := b.AddFactor([]int32{0, 1}, []float64{1, 0, 0, 1}); err != nil {
		t.Fatal(err)
	}
	g := b.Build()
	_, err := lift.Ground(g, fg.Evidence{0, 1})
	if !errors.Is(err, fg.ErrContradiction) {
		t.Fatalf("want contradiction error, got %v", err)
	}
}

// Hard constraints and zeroing evidence give finite answers, never NaN.
func TestHardConstraintsNoNaN(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for trial := 0; trial < 100; trial++ {
		g := gen.Tree(r, 2+r.IntN(8), 3, 0.5)
		if math.IsInf(brute.Solve(g, nil).LogZ, -1) {
			continue
		}
		ev := randomEvidence(r, g, 0.3)
		for _, sched := range []bp.Schedule{bp.Flood, bp.Sequential} {
			opt := bp.DefaultOptions()
			opt.Schedule = sched
			res := runGround(t, g, ev, opt)
			for _, p := range res.Belief {
				if math.IsNaN(p) || math.IsInf(p, 0) {
					t.Fatalf("trial %d: belief %v", trial, p)
				}
			}
			if math.IsNaN(res.LogZ) || math.IsInf(res.LogZ, 0) {
				t.Fatalf("trial %d: log Z %v", trial, res.LogZ)
			}
		}
	}
}

// Damping changes the path, not the fixed point.
func TestDampingSameFixedPoint(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	g := gen.Tree(r, 9, 3, 0)
	want := brute.Solve(g, nil)
	opt := bp.DefaultOptions()
	opt.Damping = 0.5
	opt.Tol = 1e-13
	res := runGround(t, g, nil, opt)
	for v := 0; v < g.NumVars(); v++ {
		for x, p := range res.Marginal(v) {
			if math.Abs(p-want.Marginals[v][x]) > 1e-9 {
				t.Fatalf("damped BP: P(x%d=%d) = %v, exact %v", v, x, p, want.Marginals[v][x])
			}
		}
	}
}

func TestOptionsValidated(t *testing.T) {
	g := gen.Ring(rand.New(rand.NewPCG(1, 1)), 4, false)
	c, _ := lift.Ground(g, nil)
	for _, opt := range []bp.Options{{MaxIter: 0, Tol: 1e-8}, {MaxIter: 10, Damping: 1}, {MaxIter: 10, Tol: math.NaN()}} {
		if _, err := bp.Run(context.Background(), c, opt); err == nil {
			t.Errorf("options %+v accepted", opt)
		}
	}
}
