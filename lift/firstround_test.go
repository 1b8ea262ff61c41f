package lift

import (
	"math/rand/v2"
	"testing"

	"github.com/lifted-dev/lifted/fg"
)

// The slot keys of edgeKeys are uniform within every initial factor class
// (uniformKeys), on the equivalence tests' graphs (permuted scopes,
// pooled tables, clauses) in every mode: so the first round signs only the
// factors next to a variable outside the commonest colour. uniformKeys
// itself tells apart a class whose two tables key their positions in
// different orders, unsorted.
func TestFirstRoundKeysUniform(t *testing.T) {
	r := rand.New(rand.NewPCG(61, 62))
	for i := range 700 {
		g, _ := equivGraphs(r, i)
		opt := Options{Mode: Mode(i % 3), Symmetric: symmetricTables(g)}
		keys, sorted, initF := edgeKeys(g, opt)
		fc := make([]int32, g.NumFactors())
		n := dense(initF, fc)
		if !uniformKeys(g, keys, sorted, fc, n) {
			t.Fatalf("graph %d, %v mode: an initial factor class has factors keyed differently", i, opt.Mode)
		}
	}
	// Two factors of one class (colour 0), tables 0 and 1, keys (0, 1)
	// and (1, 0) in position order.
	b := fg.NewBuilder()
	b.AddVars(4, 2)
	t0, _ := b.Table([]int32{2, 2}, []float64{1, 2, 3, 4})
	t1, _ := b.Table([]int32{2, 2}, []float64{1, 3, 2, 4})
	b.AddFactorTable([]int32{0, 1}, t0)
	b.AddFactorTable([]int32{2, 3}, t1)
	g := b.Build()
	keys, fc := []int32{0, 1, 1, 0}, []int32{0, 0}
	if uniformKeys(g, keys, []bool{false, false}, fc, 1) {
		t.Fatal("keys (0,1) and (1,0) compared in position order: uniform")
	}
	if !uniformKeys(g, keys, []bool{true, true}, fc, 1) {
		t.Fatal("keys (0,1) and (1,0) compared sorted: not uniform")
	}
	if !uniformKeys(g, keys, []bool{false, true}, fc, 1) {
		t.Fatal("keys (0,1) in position order and (1,0) sorted: not uniform")
	}
	if uniformKeys(g, keys, []bool{true, false}, fc, 1) {
		t.Fatal("keys (0,1) sorted and (1,0) in position order: uniform")
	}
	if !uniformKeys(g, keys, []bool{false, false}, []int32{0, 1}, 2) {
		t.Fatal("factors of different classes: not uniform")
	}
}
