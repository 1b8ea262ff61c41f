package count

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/lifted-dev/lifted/cnf"
	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/internal/brute"
)

// cnf.FromGraph turns a 0/1 factor graph into a formula whose model count
// is the number of assignments of non-zero weight: checked by enumerating
// random constraint networks, and by a round trip through ToGraph.
func TestFromGraphCounts(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	ctx := context.Background()
	for i := range 300 {
		b := fg.NewBuilder()
		nv := 1 + r.IntN(10)
		b.AddVars(nv, 2)
		for range r.IntN(8) {
			k := r.IntN(4)
			perm := r.Perm(nv)
			if k > nv {
				k = nv
			}
			scope := make([]int32, k)
			for p := range scope {
				scope[p] = int32(perm[p])
			}
			values := make([]float64, 1<<k)
			for e := range values {
				if r.IntN(4) != 0 {
					values[e] = 1
				}
			}
			if _, err := b.AddFactor(scope, values); err != nil {
				t.Fatal(err)
			}
		}
		g := b.Build()
		c, err := cnf.FromGraph(g)
		if err != nil {
			t.Fatal(err)
		}
		got, err := Exact(ctx, c)
		if err != nil {
			t.Fatal(err)
		}
		want := 0.0
		if z := brute.Solve(g, nil).LogZ; !math.IsInf(z, -1) {
			want = math.Round(math.Exp(z))
		}
		if g, _ := got.Float64(); g != want {
			t.Fatalf("graph %d: %v models, enumeration %v", i, g, want)
		}
		if n := bruteForce(c); float64(n) != want {
			t.Fatalf("graph %d: formula brute force %d, graph %v", i, n, want)
		}
		back, err := cnf.ToGraph(c)
		if err != nil && want > 0 {
			t.Fatal(err)
		}
		if err == nil {
			if z := brute.Solve(back, nil).LogZ; math.Round(math.Exp(z)) != want {
				t.Fatalf("graph %d: round trip has %v models, want %v", i, math.Exp(z), want)
			}
		}
	}
	b := fg.NewBuilder()
	b.AddVars(2, 2)
	b.AddFactor([]int32{0, 1}, []float64{1, 0.5, 1, 0})
	g := b.Build()
	if _, err := cnf.FromGraph(g); err == nil || !strings.Contains(err.Error(), "tables of 0 and 1") {
		t.Errorf("weighted table: %v", err)
	}
	b = fg.NewBuilder()
	b.AddVars(1, 3)
	g = b.Build()
	if _, err := cnf.FromGraph(g); err == nil || !strings.Contains(err.Error(), "binary variables") {
		t.Errorf("ternary variable: %v", err)
	}
}
