package maplp

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	mlnfile "github.com/lifted-dev/lifted/format/mlnfile"
	"github.com/lifted-dev/lifted/ground"
	"github.com/lifted-dev/lifted/infer"
	"github.com/lifted-dev/lifted/infer/exact"
	"github.com/lifted-dev/lifted/lift/orbit"
)

// groundMLN grounds src with evidence db.
func groundMLN(t *testing.T, src, db string) *infer.Model {
	t.Helper()
	m, err := mlnfile.Parse("m.mln", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	d, err := mlnfile.ReadDB(strings.NewReader(db), "m.db", m)
	if err != nil {
		t.Fatal(err)
	}
	var preds []string
	for _, p := range m.Preds {
		preds = append(preds, p.Name)
	}
	opt := ground.Options{Query: preds}
	gr, err := ground.Ground(context.Background(), m, d, opt)
	if err != nil {
		t.Fatal(err)
	}
	return exact.NewModel(gr, opt)
}

// The renaming orbits of an MLN (read off its constants) and the
// automorphism orbits of its grounding (found by search) give the ground
// LP's value, LOCAL and CYCLE, on the semi-transitive model of the paper's
// Section 9; renaming's LP is smaller than the ground one and, once the
// domain has three interchangeable constants (every pattern of x, y, z
// exists), does not grow with it.
func TestRenamingAndOrbitsEqualGround(t *testing.T) {
	ctx := context.Background()
	sizes := map[int]int{}
	for _, n := range []int{5, 6} {
		src := "d = {A,B"
		for i := 3; i <= n; i++ {
			src += ",C" + string(rune('0'+i))
		}
		src += "}\nPred(d,d)\n-1 Pred(x,y) ^ Pred(x,z)\n1.5 Pred(x,y)\n"
		m := groundMLN(t, src, "Pred(A,B)\n")
		for _, rel := range []Relaxation{Local, Cycle} {
			gsol, err := Solve(ctx, m.Graph, nil, Config{Relaxation: rel})
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range []Symmetry{Orbits{}, Renaming{Grounding: m.Grounding.(*ground.Grounding)}} {
				l, err := Solve(ctx, m.Graph, nil, Config{Relaxation: rel, Symmetry: s})
				if err != nil {
					t.Fatalf("n=%d %s %T: %v", n, rel, s, err)
				}
				if !near(l.Bound, gsol.Bound, 1e-6) {
					t.Errorf("n=%d %s %T: lifted bound %.9g, ground %.9g", n, rel, s, l.Bound, gsol.Bound)
				}
				if l.LPVariables >= gsol.LPVariables {
					t.Errorf("n=%d %s %T: lifted LP %d variables, ground %d", n, rel, s, l.LPVariables, gsol.LPVariables)
				}
				if _, ok := s.(Renaming); ok && rel == Local {
					sizes[n] = l.LPVariables
				}
			}
		}
	}
	if sizes[5] != sizes[6] {
		t.Errorf("renaming LP size grows with the domain: %v", sizes)
	}
	// Renaming orbits lie inside the automorphism orbits.
	m := groundMLN(t, "d = {A,B,C,D}\nPred(d,d)\n-1 Pred(x,y) ^ Pred(x,z)\n1.5 Pred(x,y)\n", "Pred(A,B)\n")
	ren, err := orbit.Renaming(ctx, m.Grounding.(*ground.Grounding))
	if err != nil {
		t.Fatal(err)
	}
	aut, err := orbit.FactorGraph(ctx, m.Graph, nil, orbit.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rep := map[int32]int32{}
	for v, o := range ren.VarOrbit {
		if r, ok := rep[o]; !ok {
			rep[o] = aut.VarOrbit[v]
		} else if r != aut.VarOrbit[v] {
			t.Fatalf("renaming orbit %d spans automorphism orbits %d and %d", o, r, aut.VarOrbit[v])
		}
	}
}

// lp on an MLN reports the MAP world's score on the MLN's own scale,
// Σ w·n(x): for 1.5 P(x) => Q(x) and -0.5 Q(x) over two constants the best
// world has every P and Q false, scoring 2·1.5 = 3; so does its bound.
// Renaming on a bare factor graph is refused.
func TestMLNObjectiveScale(t *testing.T) {
	ctx := context.Background()
	m := groundMLN(t, "d = {A,B}\nP(d)\nQ(d)\n1.5 P(x) => Q(x)\n-0.5 Q(x)\n", "")
	for _, sym := range []string{"none", "orbits", "renaming"} {
		for _, name := range []string{"lp", "ilp"} {
			if name == "ilp" && sym != "none" {
				continue
			}
			alg, _, err := infer.New(name, infer.Properties{"symmetry": sym})
			if err != nil {
				t.Fatal(err)
			}
			ans, err := infer.RunModel(ctx, alg, m, infer.Options{Query: infer.Query{Task: infer.MAP}})
			if err != nil {
				t.Fatalf("%s %s: %v", name, sym, err)
			}
			if ans.Stats.Objective == nil || ans.Stats.Bound == nil ||
				math.Abs(*ans.Stats.Objective-3) > 1e-9 || math.Abs(*ans.Stats.Bound-3) > 1e-6 {
				t.Errorf("%s %s: objective %v bound %v, want 3", name, sym, ans.Stats.Objective, ans.Stats.Bound)
			}
		}
	}
	_, err := Solve(ctx, m.Graph, nil, Config{Symmetry: Renaming{}})
	if !errors.Is(err, ErrRenamingNeedsMLN) {
		t.Errorf("renaming without an MLN: %v", err)
	}
}
