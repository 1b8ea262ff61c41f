package gen

import (
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
)

// TestTiledSquareGrid: with tiles as wide as the grid it is SquareGrid; with
// smaller tiles it is the same graph relabelled (every factor of the
// row-major grid, mapped through id, is a factor of the tiled one with the
// same table, and the counts agree).
func TestTiledSquareGrid(t *testing.T) {
	for _, n := range []int{1, 2, 5, 7, 16} {
		want := SquareGrid(rand.New(rand.NewPCG(3, 4)), n)
		got, id := TiledSquareGrid(rand.New(rand.NewPCG(3, 4)), n, n)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("n=%d: TiledSquareGrid(n, n) differs from SquareGrid", n)
		}
		for p, v := range id {
			if int(v) != p {
				t.Fatalf("n=%d: id[%d] = %d", n, p, v)
			}
		}
		for _, tile := range []int{1, 2, 3, 4} {
			g, id := TiledSquareGrid(rand.New(rand.NewPCG(3, 4)), n, tile)
			if g.NumFactors() != want.NumFactors() || g.NumVars() != want.NumVars() {
				t.Fatalf("n=%d t=%d: sizes differ", n, tile)
			}
			type fac struct {
				a, b int32
				tab  string
			}
			key := func(sc []int32, vals []float64) fac {
				f := fac{a: sc[0], b: -1}
				if len(sc) > 1 {
					f.b = sc[1]
				}
				for _, x := range vals {
					f.tab += string(rune(int(x * 1e6)))
				}
				return f
			}
			have := map[fac]int{}
			for f := range g.NumFactors() {
				have[key(g.Scope(f), g.Tables[g.FactorTable[f]].Values)]++
			}
			for f := range want.NumFactors() {
				sc := slices.Clone(want.Scope(f))
				for i := range sc {
					sc[i] = id[sc[i]]
				}
				k := key(sc, want.Tables[want.FactorTable[f]].Values)
				if have[k] == 0 {
					t.Fatalf("n=%d t=%d: factor %v of the row-major grid missing", n, tile, want.Scope(f))
				}
				have[k]--
			}
		}
	}
}
