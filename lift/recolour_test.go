package lift

import (
	"context"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/lifted-dev/lifted/fg"
)

// changeEvidence returns a copy of ev with a few variables changed (new
// observations, changed values, retractions, in proportions set by kind)
// and the changed variables, plus a few unchanged ones.
func changeEvidence(r *rand.Rand, g *fg.Graph, ev fg.Evidence, kind int) (fg.Evidence, []int32) {
	out := slices.Clone(ev)
	var changed []int32
	for range 1 + r.IntN(3) {
		v := int32(r.IntN(len(ev)))
		switch {
		case kind == 0 || out[v] < 0: // observe (clamp)
			out[v] = int32(r.IntN(int(g.Card[v])))
		case r.IntN(2) == 0: // retract
			out[v] = -1
		default: // another value
			out[v] = int32(r.IntN(int(g.Card[v])))
		}
		changed = append(changed, v)
	}
	changed = append(changed, int32(r.IntN(len(ev)))) // unchanged: harmless
	return out, changed
}

// TestRecolourEqualsScratch: after every update the Recolourer's colouring
// and counted graph equal colour passing from scratch on the new evidence,
// on random graphs in every mode, through sequences of clamps (LBPCount)
// and of arbitrary changes (dynamic evidence).
func TestRecolourEqualsScratch(t *testing.T) {
	r := rand.New(rand.NewPCG(14, 2))
	n := 300
	if testing.Short() {
		n = 60
	}
	ctx := context.Background()
	merged, refined := 0, 0
	for i := range n {
		g, ev, opt, rc := randomRecolourer(t, r, i)
		kind := r.IntN(2)
		for step := range 6 {
			var changed []int32
			ev, changed = changeEvidence(r, g, ev, kind)
			if step == 5 {
				changed = nil // compare every variable
			}
			st, err := rc.Update(ctx, ev, changed)
			if g.CheckEvidence(ev) != nil { // contradictory: refused, nothing changed
				if err == nil {
					t.Fatal("contradictory evidence accepted")
				}
				ev = rc.Evidence()
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			if st.Merged {
				merged++
			} else if st.Changed > 0 {
				refined++
			}
			want, err := ColourPassing{}.Refine(ctx, g, ev, opt)
			if err != nil {
				t.Fatal(err)
			}
			got := rc.Colouring()
			if !slices.Equal(got.VarColor, want.VarColor) || !slices.Equal(got.FactorColor, want.FactorColor) ||
				got.NumVarColor != want.NumVarColor || got.NumFacColor != want.NumFacColor || !slices.Equal(got.EdgeKey, want.EdgeKey) {
				t.Fatalf("graph %d (%d vars, %d factors, mode %v) step %d (%+v): %d/%d classes, from scratch %d/%d",
					i, g.NumVars(), g.NumFactors(), opt.Mode, step, st, got.NumVarColor, got.NumFacColor, want.NumVarColor, want.NumFacColor)
			}
			gc, err := rc.Compress()
			if err != nil {
				t.Fatal(err)
			}
			wc, _, err := Compress(ctx, g, ev, opt)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(gc, wc) {
				t.Fatalf("graph %d step %d: counted graphs differ", i, step)
			}
		}
	}
	if merged == 0 || refined == 0 {
		t.Fatalf("updates: %d merged, %d pure refinements: both stages must be exercised", merged, refined)
	}
	t.Logf("%d updates merged classes, %d were pure refinements", merged, refined)
}

// TestRecolourTouchesLittle: clamping a variable of one of many identical
// components re-signs only nodes of that component, and gives the
// from-scratch colouring, whether the clamp refines (a value no one holds)
// or merges (a value another component's variable holds).
func TestRecolourTouchesLittle(t *testing.T) {
	const k, n = 5000, 6 // components, chain length
	g := chains(t, k, n)
	ev := fg.NoEvidence(k * n)
	ctx := context.Background()
	rc, err := NewRecolourer(ctx, g, ev, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i, clamp := range []struct {
		v      int
		val    int32
		merged bool
	}{{1, 0, false}, {3*n + 1, 1, false}, {7*n + 1, 0, true}} {
		ev[clamp.v] = clamp.val
		st, err := rc.Update(ctx, ev, []int32{int32(clamp.v)})
		if err != nil {
			t.Fatal(err)
		}
		if st.Merged != clamp.merged || st.Resigned > 10*n {
			t.Errorf("clamp %d: %+v: want merged %v and at most %d nodes re-signed", i, st, clamp.merged, 10*n)
		}
		want, err := ColourPassing{}.Refine(ctx, g, ev, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if got := rc.Colouring(); !slices.Equal(got.VarColor, want.VarColor) || !slices.Equal(got.FactorColor, want.FactorColor) {
			t.Fatalf("clamp %d: colourings differ", i)
		}
		t.Logf("clamp %d: %+v", i, st)
	}
}

// chainPair is the pairwise table of the chains graph.
var chainPair = []float64{1, 2, 3, 2, 5, 6, 3, 6, 9}

// chains is k identical chains of n ternary variables sharing one
// pairwise table (chainPair).
func chains(t *testing.T, k, n int) *fg.Graph {
	t.Helper()
	b := fg.NewBuilder()
	b.AddVars(k*n, 3)
	pair, _ := b.Table([]int32{3, 3}, chainPair)
	for c := range k {
		for v := c * n; v+1 < (c+1)*n; v++ {
			if _, err := b.AddFactorTable([]int32{int32(v), int32(v + 1)}, pair); err != nil {
				t.Fatal(err)
			}
		}
	}
	return b.Build()
}

// randomRecolourer is a Recolourer on random graph i of equivGraphs (its
// evidence, or none when it has none or it does not fit) in a random mode.
func randomRecolourer(t *testing.T, r *rand.Rand, i int) (*fg.Graph, fg.Evidence, Options, *Recolourer) {
	t.Helper()
	g, ev := equivGraphs(r, i)
	if ev == nil || g.CheckEvidence(ev) != nil {
		ev = fg.NoEvidence(g.NumVars())
	}
	opt := Options{Mode: Mode(r.IntN(3)), Symmetric: symmetricTables(g)}
	rc, err := NewRecolourer(context.Background(), g, ev, opt)
	if err != nil {
		t.Fatal(err)
	}
	return g, ev, opt, rc
}
