package ground

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/lifted-dev/lifted/fg"
	mlnfile "github.com/lifted-dev/lifted/format/mlnfile"
	"github.com/lifted-dev/lifted/infer"
	"github.com/lifted-dev/lifted/infer/bp"
	"github.com/lifted-dev/lifted/internal/brute"
	"github.com/lifted-dev/lifted/mln"
)

// instance is a random MLN with evidence, small enough to enumerate.
type instance struct {
	seed uint64
	src  string
	m    *mln.MLN
	db   *mln.DB
	opt  Options
	sem  *semModel
}

// randomInstances returns up to n random instances with at most maxFree
// open atoms.
func randomInstances(t *testing.T, n, maxFree int) []instance {
	return randomInstancesOf(t, n, maxFree, false)
}

// randomInstancesOf is randomInstances, with Alchemy functions if funcs.
func randomInstancesOf(t *testing.T, n, maxFree int, funcs bool) []instance {
	var out []instance
	for seed := uint64(1); len(out) < n && seed < uint64(50*n); seed++ {
		g := newRandomMLN(seed)
		g.funcs = funcs
		src := g.text()
		m, err := mlnfile.Parse("random.mln", []byte(src))
		if err != nil {
			continue // the generator can write ill-typed formulas
		}
		db := mln.NewDB(m)
		opt := g.evidence(m, db)
		if _, err := mln.ClosedWorld(m, db, opt.Query, opt.ClosedWorld, opt.OpenWorld); err != nil {
			continue
		}
		sem := newSemModel(t, m, db, opt)
		if len(sem.free) > maxFree {
			continue
		}
		out = append(out, instance{seed: seed, src: src, m: m, db: db, opt: opt, sem: sem})
	}
	if len(out) < n/2 {
		t.Fatalf("only %d random instances", len(out))
	}
	return out
}

// exactOf enumerates the ground graph: log Z of the MLN (graph plus
// offset) and P(atom true) for every atom with a variable.
func exactOf(gr *Grounding) (float64, [][]float64, bool) {
	states := 1.0
	for _, c := range gr.Graph.Card {
		states *= float64(c)
	}
	if states > 1<<20 {
		return 0, nil, false
	}
	a := brute.Solve(gr.Graph, nil)
	return a.LogZ + gr.LogZOffset, a.Marginals, true
}

func (in instance) String() string {
	return fmt.Sprintf("seed %d\n%s\nquery %v ow %v", in.seed, in.src, in.opt.Query, in.opt.OpenWorld)
}

// TestSemanticsRandom is the main correctness test: on random small MLNs,
// enumerating the ground factor graph gives the same log Z and marginals
// as enumerating worlds under the MLN semantics directly.
func TestSemanticsRandom(t *testing.T) {
	checkSemantics(t, randomInstances(t, 300, 12))
}

// TestFunctionsRandom runs the semantic, kept-count and pruned-versus-naive
// checks on random MLNs with Alchemy functions (nested, in equalities, with
// constants), whose values the evidence gives for every argument or for
// about two thirds; the reference evaluates function terms directly and
// counts a grounding with an undefined one as true.
func TestFunctionsRandom(t *testing.T) {
	ins := randomInstancesOf(t, 300, 12, true)
	funcs := 0
	for _, in := range ins {
		if usesFunctions(in.m) {
			funcs++
		}
	}
	if funcs < 100 {
		t.Fatalf("only %d of %d instances use a function in a formula", funcs, len(ins))
	}
	checkSemantics(t, ins)
	checkKeptCount(t, ins)
	checkPrunedEqualsNaive(t, ins)
	t.Logf("%d instances with function terms", funcs)
}

// usesFunctions reports whether a formula of m has a function term.
func usesFunctions(m *mln.MLN) bool {
	found := false
	for _, f := range m.Formulas {
		mln.Inspect(f.Expr, func(e mln.Expr) bool {
			var ts []mln.Term
			switch n := e.(type) {
			case *mln.Atom:
				ts = n.Args
			case *mln.Equal:
				ts = []mln.Term{n.L, n.R}
			}
			for _, t := range ts {
				found = found || t.Func
			}
			return !found
		})
	}
	return found
}

func checkSemantics(t *testing.T, ins []instance) {
	t.Helper()
	contradictions := 0
	for _, in := range ins {
		semZ, semM := in.sem.solve()
		for _, cfg := range []struct {
			arity int
			merge bool
		}{{12, false}, {12, true}, {2, false}, {1, true}} {
			arity := cfg.arity
			opt := in.opt
			opt.MaxArity, opt.MergeDuplicates = arity, cfg.merge
			gr, err := Ground(context.Background(), in.m, in.db, opt)
			if errors.Is(err, ErrContradiction) {
				contradictions++
				if !math.IsInf(semZ, -1) {
					t.Fatalf("%v\ngrounding reports %v, but Z > 0 (log Z = %v)", in, err, semZ)
				}
				continue
			}
			if err != nil {
				t.Fatalf("%v\n%v", in, err)
			}
			logZ, marg, ok := exactOf(gr)
			if !ok {
				continue
			}
			if math.IsInf(semZ, -1) {
				if !math.IsInf(logZ, -1) {
					t.Fatalf("%v\nsemantics: Z = 0; graph: log Z = %v", in, logZ)
				}
				continue
			}
			if math.Abs(logZ-semZ) > 1e-9*math.Max(1, math.Abs(semZ)) {
				t.Fatalf("%v\nmax arity %d: log Z %v, semantics %v", in, arity, logZ, semZ)
			}
			for id, a := range in.sem.atoms {
				v, truth := gr.Var(a.pred, a.args)
				var p float64
				switch {
				case v >= 0:
					p = marg[v][1]
				case truth == mln.True:
					p = 1
				case truth == mln.False:
					p = 0
				default:
					p = 0.5 // an atom no formula mentions
				}
				if math.Abs(p-semM[id]) > 1e-9 {
					t.Fatalf("%v\nmax arity %d: P(%s) = %v, semantics %v", in, arity, gr.Name(a.pred, a.args), p, semM[id])
				}
			}
		}
	}
	t.Logf("%d instances, %d contradictory", len(ins), contradictions)
}

// TestKeptCountRandom checks the number of ground formulas left after
// simplification against an independent count: groundings whose value
// depends on the open atoms.
func TestKeptCountRandom(t *testing.T) {
	checkKeptCount(t, randomInstances(t, 200, 16))
}

func checkKeptCount(t *testing.T, ins []instance) {
	t.Helper()
	checked := 0
	defer func() { t.Logf("%d formulas checked", checked) }()
	for _, in := range ins {
		gr, err := Ground(context.Background(), in.m, in.db, in.opt)
		if err != nil {
			continue
		}
		for _, st := range gr.Formulas {
			f := in.m.Formulas[st.Formula]
			if f.Hard && len(conjuncts(f.Expr, nil)) > 1 {
				continue // counted per conjunct
			}
			want := float64(in.sem.keptCount(st.Formula))
			if f.Hard {
				// hard formulas are ground over the variables they still
				// use after constant folding
				full := float64(len(starSigns(f)))
				for _, v := range f.Vars {
					full *= float64(len(in.db.Domain(v.Type)))
				}
				want = want * st.Groundings / full
			}
			checked++
			if want != float64(st.Kept) {
				t.Fatalf("%v\nformula %d %q: kept %d, independent count %v", in, st.Formula+1, f.Text, st.Kept, want)
			}
			if !f.Hard && float64(st.Kept)+st.TrueByEv+st.FalseByEv != st.Groundings {
				t.Fatalf("%v\nformula %d: %d + %v + %v != %v groundings", in, st.Formula+1, st.Kept, st.TrueByEv, st.FalseByEv, st.Groundings)
			}
		}
	}
}

// canonical lists the factors of g as strings independent of factor order
// and of each factor's variable order.
func canonical(g *fg.Graph) []string {
	var out []string
	for f := 0; f < g.NumFactors(); f++ {
		scope := g.Scope(f)
		t := g.Table(f)
		order := make([]int, len(scope))
		for i := range order {
			order[i] = i
		}
		slices.SortFunc(order, func(a, b int) int { return int(scope[a] - scope[b]) })
		var b strings.Builder
		for _, p := range order {
			fmt.Fprintf(&b, "%d,", scope[p])
		}
		b.WriteString(":")
		n := len(t.Values)
		idx := make([]int, len(scope))
		for k := 0; k < n; k++ {
			// entry at sorted-order index k
			r := k
			for i := len(order) - 1; i >= 0; i-- {
				d := int(t.Dims[order[i]])
				idx[order[i]] = r % d
				r /= d
			}
			j := 0
			for p := range scope {
				j = j*int(t.Dims[p]) + idx[p]
			}
			fmt.Fprintf(&b, "%.12g,", t.Values[j])
		}
		out = append(out, b.String())
	}
	slices.Sort(out)
	return out
}

// TestPrunedEqualsNaive compares the join-based grounder with the
// reference that visits every binding: same factors, same offset.
func TestPrunedEqualsNaive(t *testing.T) {
	checkPrunedEqualsNaive(t, randomInstances(t, 300, 20))
}

func checkPrunedEqualsNaive(t *testing.T, ins []instance) {
	t.Helper()
	for _, in := range ins {
		opt := in.opt
		a, errA := Ground(context.Background(), in.m, in.db, opt)
		opt.naive = true
		b, errB := Ground(context.Background(), in.m, in.db, opt)
		if (errA == nil) != (errB == nil) {
			t.Fatalf("%v\npruned: %v; naive: %v", in, errA, errB)
		}
		if errA != nil {
			continue
		}
		if !slices.Equal(canonical(a.Graph), canonical(b.Graph)) {
			t.Fatalf("%v\nfactors differ:\n%v\n%v", in, canonical(a.Graph), canonical(b.Graph))
		}
		if math.Abs(a.LogZOffset-b.LogZOffset) > 1e-9 {
			t.Fatalf("%v\noffset %v vs %v", in, a.LogZOffset, b.LogZOffset)
		}
	}
}

// isForest reports whether the factor graph has no cycle.
func isForest(g *fg.Graph) bool {
	parent := make([]int, g.NumVars()+g.NumFactors())
	for i := range parent {
		parent[i] = i
	}
	var find func(int) int
	find = func(x int) int {
		for parent[x] != x {
			parent[x] = parent[parent[x]]
			x = parent[x]
		}
		return x
	}
	for f := 0; f < g.NumFactors(); f++ {
		for _, v := range g.Scope(f) {
			a, b := find(int(v)), find(g.NumVars()+f)
			if a == b {
				return false
			}
			parent[a] = b
		}
	}
	return true
}

// TestBPRandom: lifted BP equals ground BP (flooding) to 1e-9 on every
// random MLN, and both equal the exact marginals where the grounding is a
// tree.
func TestBPRandom(t *testing.T) {
	trees := 0
	for _, in := range randomInstances(t, 300, 20) {
		gr, err := Ground(context.Background(), in.m, in.db, in.opt)
		if err != nil {
			continue
		}
		var res [2]*infer.Answer
		var errs [2]error
		for i, lifted := range []bool{false, true} {
			res[i], errs[i] = infer.Run(context.Background(), bp.New(bp.DefaultOptions()), gr.Graph, nil, infer.Options{Lifted: lifted})
		}
		if (errs[0] == nil) != (errs[1] == nil) {
			t.Fatalf("%v\nground: %v; lifted: %v", in, errs[0], errs[1])
		}
		if errs[0] != nil {
			continue
		}
		for v := 0; v < gr.Graph.NumVars(); v++ {
			a, b := res[0].Marginal(v), res[1].Marginal(v)
			for x := range a {
				if math.Abs(a[x]-b[x]) > 1e-9 {
					t.Fatalf("%v\nvariable %d: ground %v lifted %v", in, v, a, b)
				}
			}
		}
		if !isForest(gr.Graph) || gr.Graph.NumVars() > 20 {
			continue
		}
		trees++
		ex := brute.Solve(gr.Graph, nil)
		if math.IsInf(ex.LogZ, -1) {
			continue
		}
		for v := 0; v < gr.NumAtoms; v++ {
			if d := math.Abs(res[0].Marginal(v)[1] - ex.Marginals[v][1]); d > 1e-9 {
				t.Fatalf("%v\ntree grounding: %s BP %v exact %v", in, gr.AtomName(int32(v)), res[0].Marginal(v), ex.Marginals[v])
			}
		}
		if d := math.Abs(res[0].LogZ - ex.LogZ); d > 1e-9*math.Max(1, math.Abs(ex.LogZ)) {
			t.Fatalf("%v\ntree grounding: Bethe log Z %v exact %v", in, res[0].LogZ, ex.LogZ)
		}
	}
	if trees < 20 {
		t.Fatalf("only %d tree-structured groundings", trees)
	}
	t.Logf("%d tree-structured groundings", trees)
}
