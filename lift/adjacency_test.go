package lift

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/lifted-dev/lifted/internal/gen"
)

// The packed signing of colour passing (adjacency.signFactor, signVar)
// writes the words of the map step every engine shares (Part.signFactor,
// signVar, through appendFactorSig and appendVarSig), for every node of
// random graphs in every mode under random colours.
func TestPackedSignaturesArePartSignatures(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 7))
	for i := range 200 {
		g, _ := equivGraphs(r, i)
		opt := Options{Mode: Mode(r.IntN(3)), Symmetric: symmetricTables(g)}
		keys, sorted, _ := edgeKeys(g, opt)
		a := newAdjacency(g.FactorStart, g.VarStart, g.EdgeVar, g.VarEdges, keys, sorted, 1)
		pt := NewPartition(g, 1).Parts(g, keys, sorted)[0]
		vc := make([]int32, g.NumVars())
		fc := make([]int32, g.NumFactors())
		for v := range vc {
			vc[v] = int32(r.IntN(4))
		}
		for f := range fc {
			fc[f] = int32(r.IntN(4))
		}
		for f := range int32(g.NumFactors()) {
			if pt.Factors[f] != f {
				t.Fatalf("graph %d: the one part numbers factor %d as %d", i, pt.Factors[f], f)
			}
			if got, want := a.signFactor(f, fc, vc, nil), pt.signFactor(f, fc, vc, nil); !slices.Equal(got, want) {
				t.Fatalf("graph %d, mode %v, factor %d: packed signature %v, part's %v", i, opt.Mode, f, got, want)
			}
		}
		for v := range int32(g.NumVars()) {
			if pt.Vars[v] != v {
				t.Fatalf("graph %d: the one part numbers variable %d as %d", i, pt.Vars[v], v)
			}
			if got, want := a.signVar(v, vc, fc, nil), pt.signVar(v, vc, fc, nil); !slices.Equal(got, want) {
				t.Fatalf("graph %d, mode %v, variable %d: packed signature %v, part's %v", i, opt.Mode, v, got, want)
			}
		}
	}
}

// Packing the edges on several goroutines (large graphs) gives the arrays
// of one: a grid of 4.5·10^5 edges with random keys and sorted flags, on
// 1, 2, 3 and 7 goroutines, whose pieces start at multiples of 64 factors
// (the words of the sorted bitset) and of 1 variable edge.
func TestNewAdjacencyInPieces(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 9))
	g := gen.SquareGrid(r, 300)
	keys := make([]int32, g.NumEdges())
	for e := range keys {
		keys[e] = int32(r.IntN(3))
	}
	sorted := make([]bool, g.NumFactors())
	for f := range sorted {
		sorted[f] = r.IntN(2) == 0
	}
	one := newAdjacency(g.FactorStart, g.VarStart, g.EdgeVar, g.VarEdges, keys, sorted, 1)
	for _, w := range []int{2, 3, 7} {
		a := newAdjacency(g.FactorStart, g.VarStart, g.EdgeVar, g.VarEdges, keys, sorted, w)
		if !slices.Equal(a.fAdj, one.fAdj) || !slices.Equal(a.vAdj, one.vAdj) || !slices.Equal(a.fSorted, one.fSorted) {
			t.Fatalf("%d goroutines: packed edges differ from one goroutine's", w)
		}
	}
}
