package maplp

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/internal/brute"
	"github.com/lifted-dev/lifted/internal/gen"
)

var ctx = context.Background()

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol*(1+math.Abs(b)) }

// bruteSym enumerates the automorphisms of a tiny factor graph by
// backtracking over variable images: a permutation keeping cardinalities
// and evidence that maps every factor, position by position, onto a factor
// with the same table. Its partition is the orbit partition of the whole
// group (every automorphism is a generator).
type bruteSym struct{}

func (bruteSym) Group(_ context.Context, g *fg.Graph, ev fg.Evidence) (*Partition, error) {
	if ev == nil {
		ev = fg.NoEvidence(g.NumVars())
	}
	return FromGenerators(g.NumVars(), g.NumFactors(), automorphisms(g, ev)), nil
}

func automorphisms(g *fg.Graph, ev fg.Evidence) []Perm {
	n := g.NumVars()
	type fkey struct {
		t     int32
		scope string
	}
	key := func(t int32, sc []int32) fkey {
		b := make([]byte, 0, 4*len(sc))
		for _, v := range sc {
			b = append(b, byte(v), byte(v>>8), byte(v>>16), byte(v>>24))
		}
		return fkey{t, string(b)}
	}
	byKey := map[fkey][]int32{}
	for f := 0; f < g.NumFactors(); f++ {
		k := key(g.FactorTable[f], g.Scope(f))
		byKey[k] = append(byKey[k], int32(f))
	}
	closes := make([][]int32, n) // factors whose last variable (by id) is v
	for f := 0; f < g.NumFactors(); f++ {
		last := int32(-1)
		for _, u := range g.Scope(f) {
			last = max(last, u)
		}
		if last >= 0 {
			closes[last] = append(closes[last], int32(f))
		}
	}
	var out []Perm
	img := make([]int32, n)
	used := make([]bool, n)
	var rec func(v int)
	check := func() (Perm, bool) {
		p := Perm{Var: append([]int32(nil), img...), Factor: make([]int32, g.NumFactors())}
		next := map[fkey]int{}
		sc := make([]int32, 0, 8)
		for f := 0; f < g.NumFactors(); f++ {
			sc = sc[:0]
			for _, v := range g.Scope(f) {
				sc = append(sc, img[v])
			}
			k := key(g.FactorTable[f], sc)
			l := byKey[k]
			if next[k] >= len(l) {
				return p, false
			}
			p.Factor[f] = l[next[k]]
			next[k]++
		}
		return p, true
	}
	rec = func(v int) {
		if v == n {
			if p, ok := check(); ok {
				out = append(out, p)
			}
			return
		}
		for w := 0; w < n; w++ {
			if used[w] || g.Card[w] != g.Card[v] || ev[w] != ev[v] || g.Degree(w) != g.Degree(v) {
				continue
			}
			used[w], img[v] = true, int32(w)
			ok := true
			for _, f := range closes[v] {
				sc := make([]int32, 0, 4)
				for _, u := range g.Scope(int(f)) {
					sc = append(sc, img[u])
				}
				if len(byKey[key(g.FactorTable[f], sc)]) == 0 {
					ok = false
					break
				}
			}
			if ok {
				rec(v + 1)
			}
			used[w] = false
		}
	}
	rec(0)
	return out
}

func solve(t *testing.T, g *fg.Graph, ev fg.Evidence, cfg Config) *Result {
	t.Helper()
	res, err := Solve(ctx, g, ev, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// On a tree the LOCAL relaxation is tight: its bound is the brute-force
// MAP score and the decoded world attains it.
func TestLocalTightOnTree(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 20; i++ {
		g := gen.Tree(r, 3+r.IntN(8), 3, 0.1)
		b := brute.Solve(g, nil)
		if b.MAP == nil {
			continue
		}
		res := solve(t, g, nil, Config{Relaxation: Local})
		if !near(res.Bound, b.LogMAP, 1e-7) || !near(res.Objective, b.LogMAP, 1e-7) {
			t.Errorf("tree %d: bound %g objective %g, brute MAP %g", i, res.Bound, res.Objective, b.LogMAP)
		}
	}
}

// On small random loopy models with zero entries and evidence: the ILP
// equals brute force; LOCAL ≥ CYCLE ≥ MAP ≥ the decoded world.
func TestILPAndBoundsBrute(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	tried := 0
	for i := 0; i < 60; i++ {
		g, ev := gen.SmallGraph(r, gen.SmallShape{Vars: 6, Factors: 10, ZeroOneIn: 6, Scale: 1, Evidence: true})
		b := brute.Solve(g, ev)
		if b.MAP == nil {
			_, err := Solve(ctx, g, ev, Config{ILP: true})
			if err == nil {
				t.Errorf("model %d: no world, but ILP answered", i)
			}
			continue
		}
		tried++
		ilp := solve(t, g, ev, Config{ILP: true, Relaxation: Local})
		if !near(ilp.Objective, b.LogMAP, 1e-9) || !ilp.Optimal || math.Abs(Score(g, ilp.X)-ilp.Objective) > 1e-12 {
			t.Errorf("model %d: ILP %g, brute %g", i, ilp.Objective, b.LogMAP)
		}
		loc, err := Solve(ctx, g, ev, Config{Relaxation: Local})
		if err != nil {
			continue // rounding may miss every world of a hard model
		}
		cyc := solve(t, g, ev, Config{Relaxation: Cycle})
		if cyc.Bound > loc.Bound+1e-7 || cyc.Bound < b.LogMAP-1e-7 || loc.Objective > b.LogMAP+1e-9 {
			t.Errorf("model %d: LOCAL %g CYCLE %g MAP %g decoded %g", i, loc.Bound, cyc.Bound, b.LogMAP, loc.Objective)
		}
	}
	if tried < 20 {
		t.Fatalf("only %d satisfiable models", tried)
	}
}

// Frustrated binary models (random signs) where LOCAL is loose: CYCLE
// strictly tightens it on some, never below the MAP value; the ILP, with
// cycle cuts at its root, equals brute force.
func TestCycleTightens(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	tighter := 0
	for i := 0; i < 20; i++ {
		g := gen.Random(r, 4+r.IntN(5), 6+r.IntN(8), 2, 0)
		b := brute.Solve(g, nil)
		loc := solve(t, g, nil, Config{Relaxation: Local})
		var seen []Round
		cyc := solve(t, g, nil, Config{Relaxation: Cycle, Progress: func(r Round) { seen = append(seen, r) }})
		if len(seen) != cyc.CutRounds+1 || len(seen) != len(cyc.Rounds) || !cyc.CutsDone {
			t.Errorf("model %d: %d progress calls for %d rounds (done %v)", i, len(seen), cyc.CutRounds, cyc.CutsDone)
		}
		for k := 1; k < len(seen); k++ {
			if seen[k].Round != k || seen[k].Bound > seen[k-1].Bound+1e-9 || seen[k].Cuts == 0 {
				t.Errorf("model %d: round %d after %d: %+v", i, k, k-1, seen[k])
			}
		}
		if cyc.Bound > loc.Bound+1e-7 || cyc.Bound < b.LogMAP-1e-7 {
			t.Errorf("model %d: LOCAL %g CYCLE %g MAP %g", i, loc.Bound, cyc.Bound, b.LogMAP)
		}
		if cyc.Bound < loc.Bound-1e-4 {
			tighter++
		}
		ilp := solve(t, g, nil, Config{Relaxation: Cycle, ILP: true})
		if !near(ilp.Objective, b.LogMAP, 1e-9) {
			t.Errorf("model %d: ILP %g brute %g", i, ilp.Objective, b.LogMAP)
		}
	}
	if tighter == 0 {
		t.Error("CYCLE never tightened LOCAL")
	}
}

// Lifted LP value = ground LP value for every partition: colour passing
// (LOCAL) and the brute-force automorphism orbits (LOCAL and CYCLE), on
// rings, disjoint copies with evidence, and the smokers network.
func TestLiftedEqualsGround(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	type model struct {
		name string
		g    *fg.Graph
		ev   fg.Evidence
	}
	var models []model
	for i := 0; i < 4; i++ {
		models = append(models, model{"ring", gen.Ring(r, 4+2*r.IntN(3), r.IntN(2) == 0), nil})
		piece := gen.Random(r, 3, 4, 2, 0)
		g, ev := gen.Copies(r, piece, 3, 1)
		models = append(models, model{"copies", g, ev})
	}
	models = append(models, model{"smokers", gen.Smokers(3, -1.5, 0.8), nil})
	smaller := 0
	for _, md := range models {
		for _, rel := range []Relaxation{Local, Cycle} {
			ground := solve(t, md.g, md.ev, Config{Relaxation: rel})
			syms := []Symmetry{bruteSym{}, Orbits{}}
			if rel == Local {
				syms = append(syms, Colour{})
			}
			for _, s := range syms {
				l := solve(t, md.g, md.ev, Config{Relaxation: rel, Symmetry: s})
				if !near(l.Bound, ground.Bound, 1e-6) {
					t.Errorf("%s %s %T: lifted %g ground %g", md.name, rel, s, l.Bound, ground.Bound)
				}
				if l.LPVariables < ground.LPVariables {
					smaller++
				}
				if l.LPVariables > ground.LPVariables {
					t.Errorf("%s %s %T: lifted LP has %d variables, ground %d", md.name, rel, s, l.LPVariables, ground.LPVariables)
				}
			}
		}
	}
	if smaller < len(models) {
		t.Errorf("only %d lifted LPs smaller than their ground LP", smaller)
	}
}

// The Frucht graph is 3-regular, so colour passing puts all its nodes in
// one class and all its edges in another, yet it has no non-trivial
// automorphism (its group has order 1): the true orbits are singletons.
// With an antiferromagnetic coupling (max cut) the CYCLE LP restricted to
// colour-constant solutions gives a value below the MAP score, so it is
// no bound: Solve refuses colour with CYCLE, and the orbit partition
// (trivial here) gives a valid bound.
func TestFruchtColourInvalidForCycle(t *testing.T) {
	edges := [][2]int32{{0, 1}, {1, 2}, {2, 3}, {3, 4}, {4, 5}, {5, 6}, {6, 7}, {7, 8}, {8, 9}, {9, 10}, {10, 11}, {11, 0},
		{0, 7}, {1, 11}, {2, 10}, {3, 5}, {4, 9}, {6, 8}} // LCF [-5,-2,-4,2,5,-2,2,5,-2,-5,4,2]
	b := fg.NewBuilder()
	b.AddVars(12, 2)
	for _, e := range edges {
		if _, err := b.AddFactor(e[:], []float64{1, math.E, math.E, 1}); err != nil {
			t.Fatal(err)
		}
	}
	g := b.Build()
	col, _ := Colour{}.Group(ctx, g, nil)
	if col.NumVarClasses != 1 || col.NumFactorClasses != 1 {
		t.Fatalf("colour passing: %d variable and %d factor classes", col.NumVarClasses, col.NumFactorClasses)
	}
	if gens := automorphisms(g, fg.NoEvidence(12)); len(gens) != 1 {
		t.Fatalf("Frucht graph: %d automorphisms, want 1", len(gens))
	}
	if _, err := Solve(ctx, g, nil, Config{Relaxation: Cycle, Symmetry: Colour{}}); !errors.Is(err, ErrColourCycle) {
		t.Fatalf("colour with cycle: %v", err)
	}
	mapv := brute.Solve(g, nil).LogMAP
	forced := forceOrbits{Colour{}}
	bad := solve(t, g, nil, Config{Relaxation: Cycle, Symmetry: forced})
	good := solve(t, g, nil, Config{Relaxation: Cycle, Symmetry: bruteSym{}})
	loc := solve(t, g, nil, Config{Relaxation: Local, Symmetry: Colour{}})
	if !(bad.Bound < mapv-0.5) || good.Bound < mapv-1e-7 || !near(loc.Bound, 18, 1e-7) {
		t.Errorf("MAP %g: colour CYCLE %g (want < MAP), orbit CYCLE %g, colour LOCAL %g", mapv, bad.Bound, good.Bound, loc.Bound)
	}
}

type forceOrbits struct{ s Symmetry }

func (f forceOrbits) Group(ctx context.Context, g *fg.Graph, ev fg.Evidence) (*Partition, error) {
	p, err := f.s.Group(ctx, g, ev)
	if p != nil {
		p.Orbits = true
	}
	return p, err
}

// Hard zeros that admit no world: the LP relaxation of "differ and agree"
// is feasible (fractional), decoding says no world was found, and the ILP
// proves there is none; evidence against a hard unary makes the LP itself
// infeasible.
func TestInfeasible(t *testing.T) {
	b := fg.NewBuilder()
	b.AddVars(2, 2)
	b.AddFactor([]int32{0, 1}, []float64{0, 1, 1, 0}) // differ
	b.AddFactor([]int32{0, 1}, []float64{1, 0, 0, 1}) // agree
	g := b.Build()
	if _, err := Solve(ctx, g, nil, Config{Relaxation: Local}); err == nil {
		t.Error("LOCAL decoded a world")
	}
	if _, err := Solve(ctx, g, nil, Config{ILP: true}); !errors.Is(err, ErrInfeasible) {
		t.Errorf("ILP: %v", err)
	}
	b = fg.NewBuilder()
	b.AddVars(1, 2)
	b.AddFactor([]int32{0}, []float64{0, 1})
	if _, err := Solve(ctx, b.Build(), fg.Evidence{0}, Config{Relaxation: Local}); !errors.Is(err, fg.ErrContradiction) {
		t.Errorf("evidence against a hard unary: %v", err)
	}
}

// PDLP and the exact simplex agree on the LOCAL and CYCLE LPs of random
// models (zero entries and evidence included) to 1e-6 relative.
func TestPDLPMatchesSimplex(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for i := 0; i < 12; i++ {
		g, ev := gen.SmallGraph(r, gen.SmallShape{Vars: 6, Factors: 10, ZeroOneIn: 8, Scale: 1, Evidence: true})
		if brute.Solve(g, ev).MAP == nil {
			continue
		}
		part, _ := None{}.Group(ctx, g, ev)
		m, err := buildLocal(context.Background(), g, ev, part)
		if err != nil {
			t.Fatal(err)
		}
		ex, err := Simplex{}.Solve(ctx, m.lp)
		if err != nil || ex.Status != Optimal {
			t.Fatalf("model %d: simplex %v %v", i, err, ex)
		}
		pd, err := PDLP{}.Solve(ctx, m.lp)
		if err != nil || pd.Status != Optimal {
			t.Fatalf("model %d: pdlp %v %+v", i, err, pd)
		}
		if !near(pd.Value, ex.Value, 1e-6) || m.lp.Violation(pd.X) > 1e-5 {
			t.Errorf("model %d: pdlp %g (violation %g, %d iterations), simplex %g", i, pd.Value, m.lp.Violation(pd.X), pd.Iterations, ex.Value)
		}
		a := solve(t, g, ev, Config{Relaxation: Cycle, Solver: Simplex{}})
		b := solve(t, g, ev, Config{Relaxation: Cycle, Solver: PDLP{}})
		if !near(a.Bound, b.Bound, 1e-6) {
			t.Errorf("model %d: CYCLE simplex %g pdlp %g", i, a.Bound, b.Bound)
		}
	}
}

// A partition claimed to be orbits must keep argument positions: colour
// passing merges a factor with its transpose, which an orbit partition
// may not (the cycle cuts read entry x of every factor of a class as
// entry x of the representative).
func TestOrbitsKeepPositions(t *testing.T) {
	b := fg.NewBuilder()
	b.AddVars(4, 2)
	b.AddFactor([]int32{0, 1}, []float64{1, 2, 3, 4})
	b.AddFactor([]int32{2, 3}, []float64{1, 3, 2, 4}) // the transpose
	g := b.Build()
	col, _ := Colour{}.Group(ctx, g, nil)
	if col.NumFactorClasses != 1 {
		t.Fatalf("colour passing: %d factor classes", col.NumFactorClasses)
	}
	if _, err := Solve(ctx, g, nil, Config{Relaxation: Local, Symmetry: Colour{}}); err != nil {
		t.Errorf("colour LOCAL: %v", err)
	}
	if _, err := Solve(ctx, g, nil, Config{Relaxation: Cycle, Symmetry: forceOrbits{Colour{}}}); err == nil || !strings.Contains(err.Error(), "different tables") && !strings.Contains(err.Error(), "does not keep argument positions") {
		t.Errorf("claimed orbits: %v", err)
	}
}

// Issue 39: a run stopped (its time limit, Ctrl-C) before its first LP —
// while grouping the variables or building the LP, which takes seconds on
// UW-CSE — answers with the greedy world and the trivial bound, marked
// Interrupted, as one stopped while solving the LP does (it returned
// "context deadline exceeded", and lifted map --time-limit 1s exited 1).
func TestStoppedBeforeFirstLP(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	stopped, cancel := context.WithCancel(context.Background())
	cancel()
	for i := 0; i < 10; i++ {
		g := gen.Random(r, 4+r.IntN(5), 6+r.IntN(8), 2, 0)
		b := brute.Solve(g, nil)
		for _, cfg := range []Config{{Relaxation: Local}, {Relaxation: Cycle}, {ILP: true}, {Relaxation: Cycle, Symmetry: bruteSym{}}} {
			res, err := Solve(stopped, g, nil, cfg)
			if err != nil {
				t.Fatalf("model %d %+v: %v", i, cfg, err)
			}
			if !res.Interrupted || len(res.X) != g.NumVars() || res.Objective != Score(g, res.X) ||
				res.Objective > b.LogMAP+1e-9 || res.Bound < b.LogMAP-1e-9 || !near(res.Gap, res.Bound-res.Objective, 1e-12) {
				t.Errorf("model %d %+v: interrupted %v, objective %g (score %g), bound %g, gap %g; MAP %g",
					i, cfg, res.Interrupted, res.Objective, Score(g, res.X), res.Bound, res.Gap, b.LogMAP)
			}
		}
	}
}
