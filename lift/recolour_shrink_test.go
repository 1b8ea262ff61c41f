package lift

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/internal/gen"
)

// shrinkGraph deletes random variables and factors of g (see deleteNodes);
// now and then a kept variable's evidence changes too.
func shrinkGraph(r *rand.Rand, g *fg.Graph, ev fg.Evidence) (g2 *fg.Graph, ev2 fg.Evidence, varFrom, factorFrom []int32) {
	pv, pf := 0.3*r.Float64(), 0.3*r.Float64()
	delVar, delFactor := make([]bool, g.NumVars()), make([]bool, g.NumFactors())
	for v := range delVar {
		delVar[v] = r.Float64() < pv
	}
	for f := range delFactor {
		delFactor[f] = r.Float64() < pf
	}
	g2, ev2, varFrom, factorFrom = deleteNodes(g, ev, delVar, delFactor)
	for v := range ev2 {
		if r.IntN(20) == 0 {
			ev2[v] = int32(r.IntN(int(g2.Card[v]+1))) - 1
		}
	}
	return g2, ev2, varFrom, factorFrom
}

// deleteNodes deletes the marked variables and factors of g, as a clamp
// deletes nodes from LBPCount's residual graph: a factor keeps the
// variables not deleted, in order, with its table conditioned on state 0
// of the deleted ones, and is dropped when none is left.
func deleteNodes(g *fg.Graph, ev fg.Evidence, delVar, delFactor []bool) (g2 *fg.Graph, ev2 fg.Evidence, varFrom, factorFrom []int32) {
	newID := make([]int32, g.NumVars())
	b := fg.NewBuilder()
	for v := range g.NumVars() {
		newID[v] = -1
		if !delVar[v] {
			newID[v] = b.AddVar(int(g.Card[v]))
			varFrom = append(varFrom, int32(v))
			ev2 = append(ev2, ev[v])
		}
	}
	for f := range g.NumFactors() {
		if delFactor[f] {
			continue
		}
		t := g.Table(f)
		strides := t.Strides()
		var scope, dims []int32
		var pos []int
		for k, v := range g.Scope(f) {
			if newID[v] >= 0 {
				scope, dims, pos = append(scope, newID[v]), append(dims, t.Dims[k]), append(pos, k)
			}
		}
		if len(scope) == 0 {
			continue
		}
		n := 1
		for _, d := range dims {
			n *= int(d)
		}
		vals := make([]float64, n)
		for i := range vals {
			old, rest := 0, i
			for k := len(dims) - 1; k >= 0; k-- {
				old += (rest % int(dims[k])) * strides[pos[k]]
				rest /= int(dims[k])
			}
			vals[i] = t.Values[old]
		}
		if _, err := b.AddFactor(scope, vals); err != nil {
			panic(err)
		}
		factorFrom = append(factorFrom, int32(f))
	}
	return b.Build(), ev2, varFrom, factorFrom
}

// checkStable reports a class of col whose members can be told apart by
// one more round of colour passing on g (or by their initial colours).
func checkStable(g *fg.Graph, ev fg.Evidence, opt Options, col *Colouring) error {
	keys, sorted, initF := edgeKeys(g, opt)
	vsig := map[int32]string{}
	for v := range g.NumVars() {
		var s []uint64
		for _, e := range g.VarEdges[g.VarStart[v]:g.VarStart[v+1]] {
			s = append(s, uint64(col.FactorColor[g.EdgeFactor(e)])<<32|uint64(keys[e]))
		}
		slices.Sort(s)
		sig := fmt.Sprint(g.Card[v], ev[v], s)
		if old, ok := vsig[col.VarColor[v]]; ok && old != sig {
			return fmt.Errorf("variable %d of class %d: signature %s, its class has %s", v, col.VarColor[v], sig, old)
		}
		vsig[col.VarColor[v]] = sig
	}
	fsig := map[int32]string{}
	for f := range g.NumFactors() {
		var s []uint64
		for e := g.FactorStart[f]; e < g.FactorStart[f+1]; e++ {
			s = append(s, uint64(keys[e])<<32|uint64(col.VarColor[g.EdgeVar[e]]))
		}
		if sorted[f] {
			slices.Sort(s)
		}
		sig := fmt.Sprint(initF[f], s)
		if old, ok := fsig[col.FactorColor[f]]; ok && old != sig {
			return fmt.Errorf("factor %d of class %d: signature %s, its class has %s", f, col.FactorColor[f], sig, old)
		}
		fsig[col.FactorColor[f]] = sig
	}
	return nil
}

// refines reports whether partition a (by class id per element) is a
// refinement of b, with element i of a being element from[i] of b (from
// nil: the identity).
func refines(a, b []int32, from []int32) bool {
	m := map[int32]int32{}
	for i, c := range a {
		j := int32(i)
		if from != nil {
			j = from[i]
		}
		if d, ok := m[c]; ok && d != b[j] {
			return false
		}
		m[c] = b[j]
	}
	return true
}

// TestShrinkStable: after deleting nodes and edges, Shrink's colouring with
// merging is exactly colour passing's from scratch on the new graph (class
// ids and counted graph); without merging it is a stable colouring that
// refines both the from-scratch colouring and the old one. Random graphs
// in every mode, through sequences of deletions.
func TestShrinkStable(t *testing.T) {
	r := rand.New(rand.NewPCG(14, 3))
	n := 210
	if testing.Short() {
		n = 42
	}
	ctx := context.Background()
	finer, equal := 0, 0
	for i := range n {
		g, ev, opt, rc := randomRecolourer(t, r, i)
		for step := range 4 {
			g2, ev2, varFrom, factorFrom := shrinkGraph(r, g, ev)
			if g2.NumVars() == 0 || g2.CheckEvidence(ev2) != nil {
				break // nothing left, or conditioning contradicts the evidence
			}
			opt2 := Options{Mode: opt.Mode, Symmetric: symmetricTables(g2)}
			merge := (i+step)%2 == 0
			before := rc.Colouring()
			st, err := rc.Shrink(ctx, g2, ev2, opt2, varFrom, factorFrom, merge)
			if err != nil {
				t.Fatal(err)
			}
			want, err := ColourPassing{}.Refine(ctx, g2, ev2, opt2)
			if err != nil {
				t.Fatal(err)
			}
			got := rc.Colouring()
			if merge {
				if !slices.Equal(got.VarColor, want.VarColor) || !slices.Equal(got.FactorColor, want.FactorColor) ||
					got.NumVarColor != want.NumVarColor || got.NumFacColor != want.NumFacColor || !slices.Equal(got.EdgeKey, want.EdgeKey) {
					t.Fatalf("graph %d (mode %v) step %d (%+v): %d/%d classes, from scratch %d/%d",
						i, opt.Mode, step, st, got.NumVarColor, got.NumFacColor, want.NumVarColor, want.NumFacColor)
				}
				gc, err := rc.Compress()
				if err != nil {
					t.Fatal(err)
				}
				wc, _, err := Compress(ctx, g2, ev2, opt2)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(gc, wc) {
					t.Fatalf("graph %d step %d: counted graphs differ", i, step)
				}
			} else {
				if err := checkStable(g2, ev2, opt2, got); err != nil {
					t.Fatalf("graph %d (mode %v) step %d: not stable: %v", i, opt.Mode, step, err)
				}
				if !refines(got.VarColor, want.VarColor, nil) || !refines(got.FactorColor, want.FactorColor, nil) {
					t.Fatalf("graph %d step %d: does not refine the from-scratch colouring", i, step)
				}
				if !refines(got.VarColor, before.VarColor, varFrom) || !refines(got.FactorColor, before.FactorColor, factorFrom) {
					t.Fatalf("graph %d step %d: does not refine the old colouring", i, step)
				}
				if got.NumVarColor > want.NumVarColor || got.NumFacColor > want.NumFacColor {
					finer++
				} else {
					equal++
				}
			}
			g, ev, opt = g2, ev2, opt2
		}
	}
	if finer == 0 || equal == 0 {
		t.Fatalf("without merging: %d finer than from scratch, %d equal: both must occur", finer, equal)
	}
	t.Logf("without merging: %d colourings finer than from scratch, %d equal", finer, equal)
}

// TestShrinkTouchesLittle: deleting a variable of one of many identical
// chains re-signs only nodes of that chain, and (nothing becoming alike)
// gives the from-scratch colouring without merging.
func TestShrinkTouchesLittle(t *testing.T) {
	const k, n = 5000, 6 // components, chain length
	g := chains(t, k, n)
	ctx := context.Background()
	rc, err := NewRecolourer(ctx, g, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	// Delete variable 1 of chain 0: its two factors keep variables 0 and 2.
	b := fg.NewBuilder()
	b.AddVars(k*n-1, 3)
	pair, _ := b.Table([]int32{3, 3}, chainPair)
	var varFrom, factorFrom []int32
	for v := range int32(k * n) {
		if v != 1 {
			varFrom = append(varFrom, v)
		}
	}
	id := func(v int32) int32 { return v - min(v, 1) }
	for f := range g.NumFactors() {
		s := g.Scope(f)
		var err error
		switch {
		case s[0] == 1:
			_, err = b.AddFactor([]int32{id(s[1])}, []float64{1, 2, 3})
		case s[1] == 1:
			_, err = b.AddFactor([]int32{id(s[0])}, []float64{1, 2, 3})
		default:
			_, err = b.AddFactorTable([]int32{id(s[0]), id(s[1])}, pair)
		}
		if err != nil {
			t.Fatal(err)
		}
		factorFrom = append(factorFrom, int32(f))
	}
	g2 := b.Build()
	st, err := rc.Shrink(ctx, g2, nil, Options{}, varFrom, factorFrom, false)
	if err != nil {
		t.Fatal(err)
	}
	if st.Resigned > 10*n {
		t.Errorf("%+v: want at most %d nodes re-signed", st, 10*n)
	}
	want, err := ColourPassing{}.Refine(ctx, g2, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := rc.Colouring(); !slices.Equal(got.VarColor, want.VarColor) || !slices.Equal(got.FactorColor, want.FactorColor) {
		t.Fatalf("colourings differ: %d/%d classes, from scratch %d/%d", got.NumVarColor, got.NumFacColor, want.NumVarColor, want.NumFacColor)
	}
	t.Logf("%+v", st)
	// The maps must fit the graphs.
	if _, err := rc.Shrink(ctx, g2, nil, Options{}, varFrom[:5], factorFrom, false); err == nil {
		t.Error("a variable map of the wrong length was accepted")
	}
}

// BenchmarkShrink: 20 clamps on 300 copies of a random CNF (30 variables,
// 90 clauses; about 60,000 edges), each deleting one variable and every
// other one of its clauses (the rest lose the variable): the colouring of
// each residual graph from scratch (lift.Compress), incrementally with
// merging (Shrink, then Compress: the same counted graph) and without.
// The incremental runs include colouring the first graph from scratch
// (NewRecolourer), which the from-scratch run does not need.
//
//	go test ./lift -run '^$' -bench Shrink -benchtime 5x
func BenchmarkShrink(b *testing.B) {
	r := rand.New(rand.NewPCG(14, 4))
	g, _ := gen.Copies(r, gen.RandomCNF(r, 30, 90), 300, 0)
	ev := fg.NoEvidence(g.NumVars())
	type clamp struct {
		g                   *fg.Graph
		varFrom, factorFrom []int32
	}
	var seq []clamp
	h := g
	for range 20 {
		v := r.IntN(h.NumVars())
		delVar, delFactor := make([]bool, h.NumVars()), make([]bool, h.NumFactors())
		delVar[v] = true
		for k, e := range h.VarEdges[h.VarStart[v]:h.VarStart[v+1]] {
			delFactor[h.EdgeFactor(e)] = k%2 == 0
		}
		h2, _, vf, ff := deleteNodes(h, fg.NoEvidence(h.NumVars()), delVar, delFactor)
		seq = append(seq, clamp{h2, vf, ff})
		h = h2
	}
	ctx := context.Background()
	opt := Options{Mode: CNF}
	// One sequence of clamps per mode: 0 from scratch, 1 incremental with
	// merging, 2 without; run side by side in every iteration (in turn),
	// medians reported.
	colour := func(mode int) (nodes int) {
		rc, err := NewRecolourer(ctx, g, ev, opt)
		if err != nil {
			b.Fatal(err)
		}
		for _, c := range seq {
			var cg *Compressed
			if mode == 0 {
				cg, _, err = Compress(ctx, c.g, nil, opt)
			} else if _, err = rc.Shrink(ctx, c.g, nil, opt, c.varFrom, c.factorFrom, mode == 1); err == nil {
				cg, err = rc.Compress()
			}
			if err != nil {
				b.Fatal(err)
			}
			nodes += cg.NumNodes()
		}
		return nodes
	}
	names := []string{"scratch", "incremental", "refine"}
	secs := make([][]float64, 3)
	nodes := make([]int, 3)
	i := 0
	for b.Loop() {
		for k := range 3 {
			m := (i + k) % 3
			t0 := time.Now()
			nodes[m] = colour(m)
			secs[m] = append(secs[m], time.Since(t0).Seconds())
		}
		i++
	}
	for m, name := range names {
		slices.Sort(secs[m])
		b.ReportMetric(1e3*secs[m][len(secs[m])/2], name+"-ms")
		b.ReportMetric(float64(nodes[m])/float64(len(seq)), name+"-clusternodes/step")
	}
}
