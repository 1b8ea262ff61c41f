package mws_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/infer"
	"github.com/lifted-dev/lifted/infer/mws"
	"github.com/lifted-dev/lifted/internal/brute"
	"github.com/lifted-dev/lifted/internal/gen"
)

// randomGraph: see gen.SmallGraph (about a fifth of the entries 0, one
// observed variable half the time).
func randomGraph(t *testing.T, r *rand.Rand) (*fg.Graph, fg.Evidence) {
	return gen.SmallGraph(r, gen.SmallShape{Vars: 6, Factors: 8, ZeroOneIn: 5, Scale: 1.5, Evidence: true})
}

// randomMLN: see gen.SmallMLN (three to six formulas, about a third hard,
// at least one).
func randomMLN(r *rand.Rand) (src, db string) {
	return gen.SmallMLN(r, gen.MLNShape{Formulas: 4, HardOneIn: 3, FirstHard: true})
}

// groundMLN: see gen.GroundSmallMLN (at most 16 variables).
func groundMLN(t *testing.T, src, db string) *fg.Graph {
	t.Helper()
	g, err := gen.GroundSmallMLN(src, db, 0, 16)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// hasZero reports whether some factor of g has a zero entry.
func hasZero(g *fg.Graph) bool {
	for _, t := range g.Tables {
		if slices.Contains(t.Values, 0) {
			return true
		}
	}
	return false
}

// solve brute-forces g, returning ok false when no world is positive.
func solveBrute(g *fg.Graph, ev fg.Evidence) (brute.Answer, bool) {
	ex := brute.Solve(g, ev)
	return ex, ex.MAP != nil
}

// check runs maxwalksat through infer.Run and compares with brute force:
// the same objective (MAP may tie), the world's own score equal to the
// reported objective, evidence kept and no hard clause broken; an
// unsatisfiable model is an error.
//
// It checks three ways: the default (components, small ones enumerated),
// the search on each component (exact-limit 0) and the search on the whole
// graph (components false).
func check(t *testing.T, name string, g *fg.Graph, ev fg.Evidence, seed uint64) bool {
	t.Helper()
	ok := false
	for i, p := range []infer.Properties{{}, {"exact-limit": "0"}, {"exact-limit": "0", "components": "false"}} {
		p["tries"], p["max-flips"] = "5", "2000"
		ok = check1(t, fmt.Sprintf("%s (properties %v)", name, p), g, ev, seed, p)
		if i > 0 && !ok {
			return false
		}
	}
	return ok
}

func check1(t *testing.T, name string, g *fg.Graph, ev fg.Evidence, seed uint64, p infer.Properties) bool {
	t.Helper()
	alg, _, err := infer.New("maxwalksat", p)
	if err != nil {
		t.Fatal(err)
	}
	ans, err := infer.Run(context.Background(), alg, g, ev, infer.Options{Query: infer.Query{Task: infer.MAP, Seed: seed}})
	ex, sat := solveBrute(g, ev)
	if !sat {
		if err == nil {
			t.Fatalf("%s: no positive world, but maxwalksat answered %v", name, ans.Assignment)
		}
		return false
	}
	if err != nil {
		t.Fatalf("%s: %v (brute-force MAP %v, log score %v)", name, err, ex.MAP, ex.LogMAP)
	}
	x := ans.Assignment
	obj, _ := mws.Score(g, x)
	if math.IsInf(obj, -1) {
		t.Fatalf("%s: world %v breaks a hard clause", name, x)
	}
	for v, s := range ev {
		if s >= 0 && x[v] != s {
			t.Fatalf("%s: variable %d is %d, evidence %d", name, v, x[v], s)
		}
	}
	if ans.Stats.Objective == nil || math.Abs(*ans.Stats.Objective-obj) > 1e-9 {
		t.Fatalf("%s: objective %v, the world scores %v", name, ans.Stats.Objective, obj)
	}
	if math.Abs(obj-ex.LogMAP) > 1e-9*math.Max(1, math.Abs(ex.LogMAP)) {
		t.Fatalf("%s: objective %v, brute-force MAP %v (%v)", name, obj, ex.LogMAP, ex.MAP)
	}
	if ans.LogZKind != infer.NoLogZ || !ans.Converged || ans.Task != infer.MAP {
		t.Fatalf("%s: answer %+v", name, ans)
	}
	return true
}

// MaxWalkSAT finds the brute-force optimum on random factor graphs with
// zeros (hard clauses), non-binary variables and evidence.
func TestRandomGraphs(t *testing.T) {
	checked, unsat := 0, 0
	for seed := uint64(1); seed <= 150; seed++ {
		r := rand.New(rand.NewPCG(seed, 12))
		g, ev := randomGraph(t, r)
		if err := g.CheckEvidence(ev); err != nil {
			continue
		}
		if check(t, fmt.Sprintf("graph %d", seed), g, ev, seed) {
			if hasZero(g) {
				checked++
			}
		} else {
			unsat++
		}
	}
	t.Logf("%d graphs with zeros checked, %d without a positive world refused", checked, unsat)
	if checked < 50 {
		t.Fatalf("only %d random graphs with zeros checked", checked)
	}
}

// MaxWalkSAT finds the brute-force optimum on the groundings of random
// MLNs with hard formulas and evidence.
func TestRandomMLNs(t *testing.T) {
	checked := 0
	for seed := uint64(1); seed <= 120 && checked < 60; seed++ {
		r := rand.New(rand.NewPCG(seed, 13))
		src, db := randomMLN(r)
		g := groundMLN(t, src, db)
		if g == nil || !hasZero(g) {
			continue
		}
		if check(t, fmt.Sprintf("MLN %d\n%s\n%s", seed, src, db), g, nil, seed) {
			checked++
		}
	}
	t.Logf("%d MLNs with hard formulas checked", checked)
	if checked < 30 {
		t.Fatalf("only %d random MLNs with hard formulas checked", checked)
	}
}

// The same seed gives the same world, bit for bit; the search does not
// depend on anything else.
func TestDeterministic(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	b := fg.NewBuilder()
	b.AddVars(40, 2)
	for range 120 {
		u, v := int32(r.IntN(40)), int32(r.IntN(40))
		if u == v {
			continue
		}
		vals := []float64{math.Exp(r.NormFloat64()), math.Exp(r.NormFloat64()), math.Exp(r.NormFloat64()), math.Exp(r.NormFloat64())}
		if r.IntN(6) == 0 {
			vals[r.IntN(4)] = 0
		}
		b.AddFactor([]int32{u, v}, vals)
	}
	g := b.Build()
	cfg := mws.Config{Tries: 2, MaxFlips: 500, Seed: 9}
	a, err := mws.Solve(context.Background(), g, nil, cfg)
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		c, err := mws.Solve(context.Background(), g, nil, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(a.X, c.X) || a.Objective != c.Objective || a.Flips != c.Flips {
			t.Fatalf("seed 9 twice: %v (%v) and %v (%v)", a.X, a.Objective, c.X, c.Objective)
		}
	}
	if math.IsInf(a.Objective, -1) {
		t.Fatal("a hard clause broken")
	}
}

// Hard constraints that cannot all hold are an error, never a world; so
// are ones the evidence contradicts; and a world at every factor's
// largest entry ends the search at once, marked optimal.
func TestUnsatAndOptimal(t *testing.T) {
	// x0 = x1, x1 = x2, x0 != x2: unsatisfiable, but no single factor is.
	b := fg.NewBuilder()
	b.AddVars(3, 2)
	eq, ne := []float64{1, 0, 0, 1}, []float64{0, 1, 1, 0}
	b.AddFactor([]int32{0, 1}, eq)
	b.AddFactor([]int32{1, 2}, eq)
	b.AddFactor([]int32{0, 2}, ne)
	g := b.Build()
	_, err := mws.Solve(context.Background(), g, nil, mws.Config{Tries: 3, MaxFlips: 100})
	var ue *mws.UnsatError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "found no world satisfying the hard constraints (zero entries) in 3 tries of 100 flips") {
		t.Fatalf("unsatisfiable: %v", err)
	}
	b = fg.NewBuilder()
	b.AddVars(2, 2)
	b.AddFactor([]int32{0, 1}, eq)
	b.AddFactor([]int32{1}, []float64{1, 3})
	g = b.Build()
	_, err = mws.Solve(context.Background(), g, fg.Evidence{0, -1}, mws.Config{})
	if err != nil {
		t.Fatal(err)
	}
	// Evidence x0 = 0 forces x1 = 0 against the unit factor: not provably
	// optimal for the search, proved by enumerating the component.
	res, _ := mws.Solve(context.Background(), g, fg.Evidence{0, -1}, mws.Config{Whole: true, ExactLimit: -1})
	if res.X[1] != 0 || res.Optimal || math.Abs(res.Objective-0) > 1e-12 {
		t.Fatalf("forced: %+v", res)
	}
	res, _ = mws.Solve(context.Background(), g, fg.Evidence{0, -1}, mws.Config{})
	if res.X[1] != 0 || !res.Optimal || res.Exact != 1 || math.Abs(res.Objective-0) > 1e-12 {
		t.Fatalf("forced, enumerated: %+v", res)
	}
	res, _ = mws.Solve(context.Background(), g, nil, mws.Config{})
	if !slices.Equal(res.X, []int32{1, 1}) || !res.Optimal || res.Cost != 0 || math.Abs(res.Objective-math.Log(3)) > 1e-12 {
		t.Fatalf("optimal: %+v", res)
	}
	b = fg.NewBuilder()
	b.AddVars(2, 2)
	b.AddFactor([]int32{0, 1}, []float64{0, 0, 1, 1})
	g = b.Build()
	_, err = mws.Solve(context.Background(), g, fg.Evidence{0, -1}, mws.Config{})
	if !errors.Is(err, fg.ErrContradiction) {
		t.Fatalf("contradictory evidence: %v", err)
	}
}

// Only MAP queries; properties are checked.
func TestAlgorithm(t *testing.T) {
	alg, _, err := infer.New("maxwalksat", nil)
	if err != nil {
		t.Fatal(err)
	}
	b := fg.NewBuilder()
	b.AddVars(1, 2)
	b.AddFactor([]int32{0}, []float64{1, 2})
	g := b.Build()
	if _, err := infer.Run(context.Background(), alg, g, nil, infer.Options{}); err == nil || !strings.Contains(err.Error(), "answers MAP queries only") {
		t.Fatalf("marginals: %v", err)
	}
	for _, p := range []infer.Properties{{"tries": "0"}, {"max-flips": "x"}, {"noise": "1.5"}, {"time-limit": "soon"}, {"damping": "0.5"}} {
		if _, _, err := infer.New("maxwalksat", p); err == nil {
			t.Errorf("%v: no error", p)
		}
	}
}

// On a disjoint union of random graphs, the search per component finds
// the sum of the parts' brute-force optima (on the whole graph's scale),
// the same world whatever the number of workers, and the whole-graph
// search with enough flips agrees.
func TestComponentsAndWorkers(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 27))
	b := fg.NewBuilder()
	want := 0.0
	parts := 0
	for parts < 25 {
		g, _ := gen.SmallGraph(r, gen.SmallShape{Vars: 6, Factors: 8, ZeroOneIn: 5, Scale: 1.5})
		ex, sat := solveBrute(g, nil)
		if !sat {
			continue
		}
		want += ex.LogMAP
		parts++
		first := int32(b.NumVars())
		for v := range g.NumVars() {
			b.AddVar(int(g.Card[v]))
		}
		for f := range g.NumFactors() {
			sc := make([]int32, 0, 3)
			for _, v := range g.Scope(f) {
				sc = append(sc, first+v)
			}
			if _, err := b.AddFactor(sc, g.Table(f).Values); err != nil {
				t.Fatal(err)
			}
		}
	}
	g := b.Build()
	var first *mws.Result
	for _, w := range []int{1, 2, 5} {
		res, err := mws.Solve(context.Background(), g, nil, mws.Config{Tries: 5, MaxFlips: 20000, ExactLimit: -1, Workers: w, Seed: 3})
		if err != nil {
			t.Fatal(err)
		}
		if res.Components < parts {
			t.Fatalf("%d components for %d parts", res.Components, parts)
		}
		if obj, _ := mws.Score(g, res.X); obj != res.Objective || math.Abs(obj-want) > 1e-9*math.Max(1, math.Abs(want)) {
			t.Fatalf("workers %d: objective %v, world scores %v, sum of the parts' optima %v", w, res.Objective, obj, want)
		}
		if first == nil {
			first = res
		} else if !slices.Equal(first.X, res.X) || first.Flips != res.Flips {
			t.Fatalf("workers %d: another world or flip count than with 1 worker", w)
		}
	}
	res, err := mws.Solve(context.Background(), g, nil, mws.Config{Tries: 20, MaxFlips: 100000, Noise: 0.2, Whole: true, ExactLimit: -1, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(res.Objective-want) > 1e-9*math.Max(1, math.Abs(want)) {
		t.Fatalf("whole-graph search: %v, per component %v", res.Objective, want)
	}
}
