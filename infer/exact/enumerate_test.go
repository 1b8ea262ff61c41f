package exact_test

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/infer"
	"github.com/lifted-dev/lifted/infer/exact"
	"github.com/lifted-dev/lifted/internal/brute"
	"github.com/lifted-dev/lifted/internal/gen"
)

// Enumerate against internal/brute (an independent enumerator) on random
// graphs with zero entries, non-binary variables and evidence: marginals
// and log Z to 1e-9.
func TestEnumerateEqualsBrute(t *testing.T) {
	checked := 0
	for seed := uint64(1); seed <= 200; seed++ {
		r := rand.New(rand.NewPCG(seed, 11))
		g := gen.Random(r, 2+r.IntN(8), 1+r.IntN(10), 3, 0.15)
		ev := fg.NoEvidence(g.NumVars())
		if r.IntN(2) == 0 {
			v := r.IntN(g.NumVars())
			ev[v] = int32(r.IntN(int(g.Card[v])))
		}
		alg := exact.Enumerate{}
		ans, err := infer.Run(context.Background(), alg, g, ev, infer.Options{})
		var ex brute.Answer
		func() {
			defer func() {
				if recover() != nil {
					ex.LogZ = math.Inf(-1)
				}
			}()
			ex = brute.Solve(g, ev)
		}()
		if err != nil {
			if errors.Is(err, exact.ErrNoState) || strings.Contains(err.Error(), "contradictory evidence") {
				if !math.IsInf(ex.LogZ, -1) && ex.LogZ == ex.LogZ {
					t.Fatalf("seed %d: %v, but enumeration gives log Z %v", seed, err, ex.LogZ)
				}
				continue
			}
			t.Fatalf("seed %d: %v", seed, err)
		}
		checked++
		if math.Abs(ans.LogZ-ex.LogZ) > 1e-9*math.Max(1, math.Abs(ex.LogZ)) || ans.LogZKind != infer.Exact {
			t.Fatalf("seed %d: log Z %v (%v), brute %v", seed, ans.LogZ, ans.LogZKind, ex.LogZ)
		}
		for v := range g.NumVars() {
			for x, p := range ex.Marginals[v] {
				if math.Abs(ans.Marginal(v)[x]-p) > 1e-9 {
					t.Fatalf("seed %d variable %d: %v, brute %v", seed, v, ans.Marginal(v), ex.Marginals[v])
				}
			}
		}
	}
	if checked < 150 {
		t.Fatalf("only %d of 200 random graphs checked", checked)
	}
}

// Large weights do not overflow: log space with a running shift.
func TestEnumerateLargeWeights(t *testing.T) {
	b := fg.NewBuilder()
	b.AddVars(3, 2)
	b.AddFactor([]int32{0, 1}, []float64{1e300, 1, 1, 1e300})
	b.AddFactor([]int32{1, 2}, []float64{1e300, 1e-300, 1, 1e300})
	g := b.Build()
	ans, err := infer.Run(context.Background(), exact.Enumerate{}, g, nil, infer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// Z = 1e600 (x = 000 and 111) + 3e300 + 2 + 1e-300: log Z = log 2 + 600 log 10 to 1e-300.
	want := math.Log(2) + 600*math.Log(10)
	if math.Abs(ans.LogZ-want) > 1e-9*want || math.IsNaN(ans.Marginal(0)[0]) {
		t.Fatalf("log Z %v, want %v; marginal %v", ans.LogZ, want, ans.Marginal(0))
	}
}

func TestEnumerateRefusals(t *testing.T) {
	b := fg.NewBuilder()
	b.AddVars(30, 2)
	g := b.Build()
	_, err := infer.Run(context.Background(), exact.Enumerate{}, g, nil, infer.Options{})
	if err == nil || !strings.Contains(err.Error(), "1.07e+09 joint states") || !strings.Contains(err.Error(), "max-states") {
		t.Fatalf("30 binary variables: %v", err)
	}
	// Contradictory hard constraints.
	b = fg.NewBuilder()
	b.AddVars(2, 2)
	b.AddFactor([]int32{0, 1}, []float64{0, 1, 1, 0})
	b.AddFactor([]int32{0, 1}, []float64{1, 0, 0, 1})
	if _, err := infer.Run(context.Background(), exact.Enumerate{}, b.Build(), nil, infer.Options{}); !errors.Is(err, exact.ErrNoState) {
		t.Fatalf("contradiction: %v", err)
	}
	// A lifted compression and MAP queries are refused.
	g = gen.Ring(rand.New(rand.NewPCG(1, 1)), 6, false)
	if _, err := infer.Run(context.Background(), exact.Enumerate{}, g, nil, infer.Options{Lifted: true}); err == nil {
		t.Fatal("ran on a lifted graph")
	}
	if _, err := infer.Run(context.Background(), exact.Enumerate{}, g, nil, infer.Options{Query: infer.Query{Task: infer.MAP}}); err == nil {
		t.Fatal("answered a MAP query")
	}
	if _, _, err := infer.New("enumerate", infer.Properties{"max-states": "0"}); err == nil {
		t.Fatal("max-states 0 accepted")
	}
}
