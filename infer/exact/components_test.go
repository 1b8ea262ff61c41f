package exact_test

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/infer"
	"github.com/lifted-dev/lifted/infer/exact"
	"github.com/lifted-dev/lifted/infer/jtree"
)

// componentsGraph builds a random graph of several components given its
// evidence: a tree of treeVars binary variables (pairwise factors to a
// random earlier variable, unary factors; more than TinyStates states, so
// it goes to jtree, or to lifted BP under a low jtree limit), small
// components of 1–3 variables (a lone one of card 2 or 3, else binary; pairwise and triple factors,
// some zero entries), an observed variable with factors to the tree and a
// small component (so the components are cut by evidence), and a factor
// with every variable observed (the constant part).
func componentsGraph(r *rand.Rand, treeVars, small int) (*fg.Graph, fg.Evidence) {
	b := fg.NewBuilder()
	pos := func(n int, zeros bool) []float64 {
		v := make([]float64, n)
		for i := range v {
			v[i] = 0.2 + 2*r.Float64()
			if zeros && r.IntN(6) == 0 {
				v[i] = 0
			}
		}
		if zeros {
			v[r.IntN(n)] = 1 // at least one non-zero entry
		}
		return v
	}
	add := func(scope []int32, zeros bool) {
		n := 1
		for _, v := range scope {
			n *= int(b.Card(v))
		}
		if _, err := b.AddFactor(scope, pos(n, zeros)); err != nil {
			panic(err)
		}
	}
	obs := b.AddVar(3) // observed: cuts what it touches apart
	obs2 := b.AddVar(2)
	add([]int32{obs, obs2}, false) // constant part
	tree := b.AddVars(treeVars, 2)
	for i := range int32(treeVars) {
		add([]int32{tree + i}, false)
		if i > 0 {
			add([]int32{tree + int32(r.IntN(int(i))), tree + i}, false)
		}
	}
	add([]int32{obs, tree + int32(r.IntN(treeVars))}, false)
	for range small {
		k := 1 + r.IntN(3)
		first := int32(b.NumVars())
		for range k {
			if k == 1 {
				b.AddVar(2 + r.IntN(2))
			} else {
				b.AddVar(2)
			}
		}
		add([]int32{first}, false)
		for j := int32(1); j < int32(k); j++ {
			add([]int32{first + r.Int32N(j), first + j}, true)
		}
		if k == 3 {
			add([]int32{first, first + 1, first + 2}, true)
		}
		add([]int32{obs, first + int32(k) - 1}, false)
	}
	g := b.Build()
	ev := fg.NoEvidence(g.NumVars())
	ev[obs], ev[obs2] = int32(r.IntN(3)), 1
	return g, ev
}

func newAuto(t *testing.T, jt jtree.JTree) *exact.Auto {
	t.Helper()
	lbp, _, err := infer.New("lbp", infer.Properties{"max-iter": "5000", "tol": "1e-13"})
	if err != nil {
		t.Fatal(err)
	}
	return &exact.Auto{LBP: lbp, JTree: jt, NoBPCheck: true} // BP's own answer, compared with enumeration
}

// Auto's per-component answer against enumeration of the whole graph:
// marginals to 1e-9 and log Z to 1e-8, with the tree component answered
// by jtree (default limits; log Z exact) or by lifted BP (a jtree limit of
// 3 entries; BP is exact on a tree, log Z is a Bethe estimate); the same
// answer, bit for bit, on 1 to 4 workers.
func TestAutoComponentsEqualEnumeration(t *testing.T) {
	for seed := uint64(1); seed <= 4; seed++ {
		r := rand.New(rand.NewPCG(seed, 27))
		g, ev := componentsGraph(r, 17, 2)
		ref, err := infer.Run(context.Background(), exact.Enumerate{MaxStates: 1 << 24}, g, ev, infer.Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			name   string
			jt     jtree.JTree
			method string
			kind   infer.LogZKind
		}{
			{"jtree", jtree.JTree{}, "exact by jtree", infer.Exact},
			{"lbp", jtree.JTree{MaxTable: 3}, "1 by lifted BP (converged)", infer.Estimate},
		} {
			var first *infer.Answer
			for w := 1; w <= 4; w++ {
				ans, err := infer.Run(context.Background(), newAuto(t, tc.jt), g, ev, infer.Options{Query: infer.Query{Task: infer.Marginals, Workers: w}})
				if err != nil {
					t.Fatalf("seed %d %s: %v", seed, tc.name, err)
				}
				st := ans.Stats
				if !strings.Contains(st.MethodReason, tc.method) || !strings.Contains(st.MethodReason, "exact by enumeration") {
					t.Errorf("seed %d %s: reason %q", seed, tc.name, st.MethodReason)
				}
				nc := 0
				for _, h := range st.ComponentSizes {
					nc += h.Count
				}
				if st.Components < 3 || nc != st.Components || !ans.Converged || ans.LogZKind != tc.kind {
					t.Errorf("seed %d %s: components %d (histogram %v), converged %v, log Z kind %v", seed, tc.name, st.Components, st.ComponentSizes, ans.Converged, ans.LogZKind)
				}
				for v := range g.NumVars() {
					got, want := ans.Marginal(v), ref.Marginal(v)
					for s := range want {
						if math.Abs(got[s]-want[s]) > 1e-9 {
							t.Fatalf("seed %d %s workers %d: variable %d: %v, enumeration %v", seed, tc.name, w, v, got, want)
						}
					}
				}
				if math.Abs(ans.LogZ-ref.LogZ) > 1e-8 {
					t.Errorf("seed %d %s: log Z %.12g, enumeration %.12g", seed, tc.name, ans.LogZ, ref.LogZ)
				}
				if first == nil {
					first = ans
					continue
				}
				if ans.LogZ != first.LogZ || st.MethodReason != first.Stats.MethodReason {
					t.Errorf("seed %d %s: workers %d differ from 1: log Z %v vs %v", seed, tc.name, w, ans.LogZ, first.LogZ)
				}
				for i := range ans.Belief {
					if ans.Belief[i] != first.Belief[i] {
						t.Fatalf("seed %d %s: workers %d: belief %d differs from workers 1", seed, tc.name, w, i)
					}
				}
			}
		}
	}
}

// Log Z is additive over components: the whole graph's log Z (exact) is
// the sum of each component's alone (enumerated) plus the constant part.
func TestAutoComponentsLogZAdditive(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 27))
	g, ev := componentsGraph(r, 17, 4)
	ans, err := infer.Run(context.Background(), newAuto(t, jtree.JTree{}), g, ev, infer.Options{Query: infer.Query{Task: infer.PartitionFunction}})
	if err != nil {
		t.Fatal(err)
	}
	comps, err := g.Components(ev)
	if err != nil {
		t.Fatal(err)
	}
	sum := g.ConstantLogScore(comps, ev)
	for i := range comps.Len() {
		a, err := infer.Run(context.Background(), exact.Enumerate{MaxStates: 1 << 20}, g.Subgraph(comps, i, ev), nil, infer.Options{})
		if err != nil {
			t.Fatal(err)
		}
		sum += a.LogZ
	}
	if ans.LogZKind != infer.Exact || math.Abs(ans.LogZ-sum) > 1e-9 {
		t.Errorf("log Z %.12g (%v), sum over components %.12g", ans.LogZ, ans.LogZKind, sum)
	}
	if ans.Stats.Components != comps.Len() || ans.Stats.ExactComponents != comps.Len() {
		t.Errorf("components %d, exact %d, want %d", ans.Stats.Components, ans.Stats.ExactComponents, comps.Len())
	}
}

// One component: the whole-graph path as before (no component split).
func TestAutoOneComponentWholePath(t *testing.T) {
	r := rand.New(rand.NewPCG(6, 27))
	g, ev := componentsGraph(r, 17, 0)
	ch, err := newAuto(t, jtree.JTree{}).Choose(context.Background(), &infer.Model{Graph: g, Evidence: ev}, infer.Query{Task: infer.Marginals})
	if err != nil {
		t.Fatal(err)
	}
	if ch.Name != "jtree" {
		t.Errorf("one component: chose %q (%s), want jtree on the whole graph", ch.Name, ch.Reason)
	}
}

// Issue 39's probe: component-by-component inference reports the
// components answered of their total (a CNF of 3·10^6 unconstrained
// variables ran 55 s showing "BP: iteration 2897115, max change 0").
func TestAutoComponentsProgress(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 27))
	g, ev := componentsGraph(r, 17, 2)
	var last infer.Progress
	n := 0
	q := infer.Query{Task: infer.Marginals, Workers: 2, Progress: func(p infer.Progress) {
		if p.ComponentsTotal == 0 || p.Iteration != last.Iteration+1 {
			t.Errorf("report %d: %+v after %+v", n, p, last)
		}
		last = p
		n++
	}}
	ans, err := infer.Run(context.Background(), newAuto(t, jtree.JTree{}), g, ev, infer.Options{Query: q})
	if err != nil {
		t.Fatal(err)
	}
	if nc := ans.Stats.Components; nc < 3 || n != nc || last.Iteration != nc || last.ComponentsTotal != nc {
		t.Errorf("%d components: %d reports, the last %+v", nc, n, last)
	}
}
