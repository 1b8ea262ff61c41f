package bp

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/lift"
)

// TestFactorBeliefExactOnTree: on a tree, the factor beliefs are the exact
// joint marginals of the factors' variables (by enumerating every world),
// for a ternary factor with a 3-state variable, a pairwise and a unary one.
func TestFactorBeliefExactOnTree(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	b := fg.NewBuilder()
	b.AddVars(3, 2)
	b.AddVar(3)
	rnd := func(n int) []float64 {
		v := make([]float64, n)
		for i := range v {
			v[i] = 0.1 + rng.Float64()*3
		}
		return v
	}
	scopes := [][]int32{{0, 1, 2}, {2, 3}, {0}}
	for _, sc := range scopes {
		n := 1
		for _, v := range sc {
			n *= int(b.Card(v))
		}
		if _, err := b.AddFactor(sc, rnd(n)); err != nil {
			t.Fatal(err)
		}
	}
	g := b.Build()
	c, err := lift.Ground(g, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), c, Options{Tol: 1e-12, MaxIter: 100})
	if err != nil || !res.Converged {
		t.Fatalf("BP: %v, converged %v", err, res != nil && res.Converged)
	}
	// exact joint by enumeration
	card := []int{2, 2, 2, 3}
	exact := make([][]float64, len(scopes))
	for f, sc := range scopes {
		n := 1
		for _, v := range sc {
			n *= card[v]
		}
		exact[f] = make([]float64, n)
	}
	z := 0.0
	for x0 := range 2 {
		for x1 := range 2 {
			for x2 := range 2 {
				for x3 := range 3 {
					x := []int{x0, x1, x2, x3}
					w := 1.0
					idx := make([]int, len(scopes))
					for f, sc := range scopes {
						k := 0
						for _, v := range sc {
							k = k*card[v] + x[v]
						}
						idx[f] = k
						w *= g.Table(f).Values[k]
					}
					z += w
					for f := range scopes {
						exact[f][idx[f]] += w
					}
				}
			}
		}
	}
	for f := range scopes {
		got, err := res.FactorBelief(int(c.FactorOf[f]), nil)
		if err != nil {
			t.Fatal(err)
		}
		for k := range got {
			if want := exact[f][k] / z; math.Abs(got[k]-want) > 1e-9 {
				t.Errorf("factor %d entry %d: belief %v, exact %v", f, k, got[k], want)
			}
		}
	}
	if _, err := (&Result{MaxProduct: true}).FactorBelief(0, nil); err == nil {
		t.Error("a max-product result gave factor beliefs")
	}
}
