package ground

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/infer/mws"
)

// logScore is Σ_f log φ_f(x_f) of world x on g (−Inf where a factor is 0).
func logScore(g *fg.Graph, x []int32) float64 {
	s, _ := mws.Score(g, x)
	return s
}

// TestLazyRandom checks lazy grounding against the full grounding on
// random small MLNs, by enumerating every world y of the ground atoms:
// the lazy graph's log score plus its offset is at least the full one's
// (Σ w_i n_i(y) given the evidence, the hard formulas −Inf where broken)
// for every y, and equal to it for the worlds the lazy grounding was made
// with; the lazy grounding keeps no more ground formulas, and with the
// world in which every atom is false it keeps fewer on some instances.
func TestLazyRandom(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(37, 1))
	checked, fewer := 0, 0
	for _, in := range randomInstances(t, 200, 10) {
		opt := in.opt
		opt.MaxGround = -1
		full, err := Ground(ctx, in.m, in.db, opt)
		if err != nil || full.Graph.NumVars() != full.NumAtoms {
			continue // a contradiction, or auxiliary variables: atoms alone do not make a world
		}
		n := full.NumAtoms
		for trial := range 4 {
			var worlds [][]bool
			switch trial {
			case 0: // none: every atom false
			case 1:
				worlds = [][]bool{nil}
			default:
				for range trial - 1 {
					w := make([]bool, n)
					for i := range w {
						w[i] = r.IntN(3) == 0
					}
					worlds = append(worlds, w)
				}
			}
			lopt := opt
			lopt.Lazy = &Lazy{Worlds: worlds}
			lazy, err := Ground(ctx, in.m, in.db, lopt)
			if err != nil {
				t.Fatalf("%v\nlazy: %v", in, err)
			}
			if lazy.NumAtoms != n || lazy.Graph.NumVars() != n {
				t.Fatalf("%v\nlazy grounding: %d atoms, %d variables; full: %d", in, lazy.NumAtoms, lazy.Graph.NumVars(), n)
			}
			if lazy.NumFormulas > full.NumFormulas {
				t.Fatalf("%v\nlazy keeps %d ground formulas, full %d", in, lazy.NumFormulas, full.NumFormulas)
			}
			if trial <= 1 && lazy.NumFormulas < full.NumFormulas {
				fewer++
			}
			in := in
			given := func(y []int32) bool {
				if len(worlds) == 0 {
					worlds = [][]bool{nil}
				}
			next:
				for _, w := range worlds {
					for i, v := range y {
						if (v == 1) != (i < len(w) && w[i]) {
							continue next
						}
					}
					return true
				}
				return false
			}
			y := make([]int32, n)
			for code := range 1 << n {
				for i := range y {
					y[i] = int32(code >> i & 1)
				}
				sf := logScore(full.Graph, y) + full.LogZOffset
				sl := logScore(lazy.Graph, y) + lazy.LogZOffset
				tol := 1e-9 * (1 + math.Abs(sf))
				if sf > sl+tol && !math.IsInf(sf, -1) {
					t.Fatalf("%v\nworlds %v: world %v scores %v in full, %v in the lazy grounding (not a bound)", in, worlds, y, sf, sl)
				}
				if given(y) && !(sf == sl || math.Abs(sf-sl) <= tol) {
					t.Fatalf("%v\nworlds %v: world %v (one of them) scores %v in full, %v in the lazy grounding", in, worlds, y, sf, sl)
				}
			}
			checked++
		}
	}
	if checked < 200 || fewer < 20 {
		t.Fatalf("%d lazy groundings checked, %d of them smaller than the full one", checked, fewer)
	}
	t.Logf("%d lazy groundings checked, %d of those at the all-false world smaller than the full one", checked, fewer)
}
