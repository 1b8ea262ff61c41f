package lift

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/internal/gen"
)

// pooledGraph is a random graph whose factors draw their tables (some
// symmetric, some clauses) from a small pool, so colour passing has classes
// to refine, over variables of cardinality 2 or 3.
func pooledGraph(r *rand.Rand, n, m int) *fg.Graph {
	b := fg.NewBuilder()
	for range n {
		b.AddVar(2 + r.IntN(4)/3)
	}
	pool := map[string][]int32{}
	for range m {
		k := 1 + r.IntN(3)
		scope := make([]int32, k)
		dims := make([]int32, k)
		for i, v := range r.Perm(n)[:k] {
			scope[i] = int32(v)
			dims[i] = b.Card(int32(v))
		}
		ds := fmt.Sprint(dims)
		if len(pool[ds]) < 3 {
			size := 1
			for _, d := range dims {
				size *= int(d)
			}
			vals := gen.RandomTable(r, size, 0.2)
			switch r.IntN(3) {
			case 0: // a clause when binary
				for i := range vals {
					vals[i] = 1
				}
				vals[r.IntN(size)] = 0
			case 1: // constant: symmetric
				for i := range vals {
					vals[i] = 2
				}
			}
			t, err := b.Table(dims, vals)
			if err != nil {
				panic(err)
			}
			pool[ds] = append(pool[ds], t)
		}
		ts := pool[ds]
		if _, err := b.AddFactorTable(scope, ts[r.IntN(len(ts))]); err != nil {
			panic(err)
		}
	}
	return b.Build()
}

// randomEvidence observes each variable with probability p.
func randomEvidence(r *rand.Rand, g *fg.Graph, p float64) fg.Evidence {
	ev := fg.NoEvidence(g.NumVars())
	for v := range ev {
		if r.Float64() < p {
			ev[v] = int32(r.IntN(int(g.Card[v])))
		}
	}
	return ev
}

// equivGraphs draws the graphs of the equivalence tests.
func equivGraphs(r *rand.Rand, i int) (*fg.Graph, fg.Evidence) {
	switch i % 7 {
	case 0:
		g := pooledGraph(r, 5+r.IntN(60), 5+r.IntN(120))
		return g, randomEvidence(r, g, 0.1*r.Float64())
	case 1:
		g := gen.RandomCNF(r, 5+r.IntN(40), 5+r.IntN(120))
		return g, randomEvidence(r, g, 0.05*r.Float64())
	case 2:
		piece := pooledGraph(r, 3+r.IntN(5), 2+r.IntN(8))
		return gen.Copies(r, piece, 2+r.IntN(8), r.IntN(4))
	case 3:
		piece := pooledGraph(r, 3+r.IntN(5), 2+r.IntN(8))
		g, ev := gen.Copies(r, piece, 2+r.IntN(8), r.IntN(4))
		return gen.PermuteScopes(r, g), ev
	case 4:
		g := gen.Smokers(2+r.IntN(8), 1.5, 1.1)
		return g, randomEvidence(r, g, 0.1*r.Float64())
	case 5:
		w := 2 + r.IntN(12)
		g := gen.SquareGrid(r, w)
		return g, randomEvidence(r, g, 0.05*r.Float64())
	default:
		g := gen.Ring(r, 4+2*r.IntN(20), r.IntN(2) == 0)
		return g, randomEvidence(r, g, 0.1*r.Float64())
	}
}

func symmetricTables(g *fg.Graph) []bool {
	s := make([]bool, len(g.Tables))
	for t := range g.Tables {
		s[t] = IsSymmetric(&g.Tables[t])
	}
	return s
}

// TestColourPassingEqualsReference: the colouring (class ids, slot keys,
// rounds) equals the reference implementation's exactly, on random graphs,
// in every mode, with and without a round limit.
func TestColourPassingEqualsReference(t *testing.T) {
	r := rand.New(rand.NewPCG(14, 1))
	n := 700
	if testing.Short() {
		n = 140
	}
	for i := range n {
		g, ev := equivGraphs(r, i)
		opt := Options{Mode: Mode(r.IntN(3)), Symmetric: symmetricTables(g)}
		if r.IntN(5) == 0 {
			opt.MaxIter = 1 + r.IntN(3)
		}
		want, err := refColourPassing{}.Refine(context.Background(), g, ev, opt)
		if err != nil {
			t.Fatal(err)
		}
		got, err := ColourPassing{}.Refine(context.Background(), g, ev, opt)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got.VarColor, want.VarColor) || !slices.Equal(got.FactorColor, want.FactorColor) ||
			got.NumVarColor != want.NumVarColor || got.NumFacColor != want.NumFacColor ||
			!slices.Equal(got.EdgeKey, want.EdgeKey) || got.Iterations != want.Iterations {
			t.Fatalf("graph %d (%d vars, %d factors, mode %v, max %d): colourings differ: %d/%d classes, %d rounds; reference %d/%d, %d rounds",
				i, g.NumVars(), g.NumFactors(), opt.Mode, opt.MaxIter, got.NumVarColor, got.NumFacColor, got.Iterations,
				want.NumVarColor, want.NumFacColor, want.Iterations)
		}
	}
}
