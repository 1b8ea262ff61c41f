package jtree

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/lifted-dev/lifted/fg"
)

// TestLinearAgreesWithLog: the linear-domain solver (maximal cliques,
// scaled tables) against the log-space one on random graphs of treewidth
// up to about 8 with zeros, evidence and mixed cardinalities: log Z and
// every marginal to 1e-12, max-marginals too, and the MAP worlds' scores
// equal; a table e^±700 wide goes to the log-space solver.
func TestLinearAgreesWithLog(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	merged := 0
	for trial := range 300 {
		b := fg.NewBuilder()
		n := 6 + r.IntN(14)
		for range n {
			b.AddVar(2 + r.IntN(2))
		}
		for range n + r.IntN(2*n) {
			k := 1 + r.IntN(4)
			scope := make([]int32, 0, k)
			for len(scope) < k {
				v := int32(r.IntN(n))
				dup := false
				for _, u := range scope {
					dup = dup || u == v
				}
				if !dup {
					scope = append(scope, v)
				}
			}
			sz := 1
			for _, v := range scope {
				sz *= int(b.Card(v))
			}
			vals := make([]float64, 0, sz)
			for range sz {
				x := math.Exp(3 * r.NormFloat64())
				if r.IntN(10) == 0 {
					x = 0
				}
				vals = append(vals, x)
			}
			if _, err := b.AddFactor(scope, vals); err != nil {
				t.Fatal(err)
			}
		}
		g := b.Build()
		ev := fg.NoEvidence(g.NumVars())
		if trial%2 == 1 {
			for v := range ev {
				if r.IntN(5) == 0 {
					ev[v] = int32(r.IntN(int(g.Card[v])))
				}
			}
		}
		p, err := NewPlan(context.Background(), g, ev, 0)
		if err != nil {
			t.Fatal(err)
		}
		top, _ := p.nodes()
		merged += len(p.Order) - len(top)
		for _, maxP := range []bool{false, true} {
			lin, err1 := solveLinear(context.Background(), g, ev, p, maxP)
			lg, err2 := solve(context.Background(), g, ev, p, maxP)
			if err1 != nil || err2 != nil {
				if errors.Is(err1, ErrNoWorld) && errors.Is(err2, ErrNoWorld) {
					continue
				}
				t.Fatalf("trial %d max %v: linear %v, log %v", trial, maxP, err1, err2)
			}
			if d := math.Abs(lin.logZ - lg.logZ); d > 1e-12*max(1, math.Abs(lg.logZ)) {
				t.Fatalf("trial %d max %v: log Z %v, log space %v", trial, maxP, lin.logZ, lg.logZ)
			}
			for i := range lin.marg {
				if d := math.Abs(lin.marg[i] - lg.marg[i]); d > 1e-12 {
					t.Fatalf("trial %d max %v: marginal entry %d %v, log space %v", trial, maxP, i, lin.marg[i], lg.marg[i])
				}
			}
			if maxP {
				if a, b := score(g, lin.assign), score(g, lg.assign); math.Abs(a-b) > 1e-9*max(1, math.Abs(b)) || math.Abs(a-lin.logZ) > 1e-9*max(1, math.Abs(a)) {
					t.Fatalf("trial %d: MAP world scores %v, log space's %v (objective %v)", trial, a, b, lin.logZ)
				}
				for v, s := range lin.assign {
					if ev[v] >= 0 && s != ev[v] {
						t.Fatalf("trial %d: MAP x%d = %d against the evidence", trial, v, s)
					}
				}
			}
		}
	}
	if merged == 0 {
		t.Error("no elimination clique was merged into a maximal one")
	}
	// A table e^±700 wide: the linear solver declines.
	b := fg.NewBuilder()
	b.AddVars(2, 2)
	_, _ = b.AddFactor([]int32{0, 1}, []float64{math.Exp(700), math.Exp(-700), math.Exp(-700), math.Exp(700)})
	g := b.Build()
	p, _ := NewPlan(context.Background(), g, nil, 0)
	if _, err := solveLinear(context.Background(), g, fg.NoEvidence(2), p, false); !errors.Is(err, errLinearRange) {
		t.Errorf("a range of 1400: %v", err)
	}
}

func score(g *fg.Graph, x []int32) float64 {
	s := 0.0
	for f := range g.NumFactors() {
		t := g.Table(f)
		idx := 0
		for k, v := range g.Scope(f) {
			idx += int(x[v]) * t.Strides()[k]
		}
		s += math.Log(t.Values[idx])
	}
	return s
}
