package maplp

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/ground"
	"github.com/lifted-dev/lifted/infer"
	"github.com/lifted-dev/lifted/internal/gen"
)

// checkStabCuts runs the cutting-plane loop of lifted CYCLE by hand with
// both separations on the same LP: at every round each cut of the
// stabiliser separation must be violated by the current solution by its
// reported amount (its left side is the ground inequality of a closed walk
// through the source at the expanded solution: the cut expressions are the
// ground edges' read in the lifted columns), and the most violated cut it
// finds must be as violated as the most violated one of the ground
// separation (the expand-and-fold oracle), which searches the ground graph.
func checkStabCuts(t *testing.T, name string, g *fg.Graph, ev fg.Evidence, sym Symmetry) (found int) {
	t.Helper()
	ctx := context.Background()
	if ev == nil {
		ev = fg.NoEvidence(g.NumVars())
	}
	part, err := sym.Group(ctx, g, ev)
	if err != nil {
		t.Fatal(err)
	}
	m, err := buildLocal(context.Background(), g, ev, part)
	if err != nil {
		t.Fatal(err)
	}
	sep := newCycleSep(m)
	if sep.numEdges() == 0 {
		return 0
	}
	st, err := sep.buildStab(ctx, sym.(StabiliserSymmetry))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	const tol = 1e-6
	for r := 0; r < 30; r++ {
		sol, err := solveLP(ctx, Simplex{}, m.lp)
		if err != nil {
			t.Fatal(err)
		}
		sep.stab = nil
		gc, err := sep.separate(ctx, sol.X, tol, 1<<30)
		if err != nil {
			t.Fatal(err)
		}
		sep.stab = st
		sc, err := sep.separate(ctx, sol.X, tol, 1<<30)
		if err != nil {
			t.Fatal(err)
		}
		if len(gc) == 0 || len(sc) == 0 {
			if len(gc) != len(sc) {
				t.Errorf("%s round %d: ground separation %d cuts, stabiliser %d", name, r, len(gc), len(sc))
			}
			return found
		}
		found += len(sc)
		if math.Abs(gc[0].viol-sc[0].viol) > 1e-9 {
			t.Errorf("%s round %d: most violated ground %g, stabiliser %g", name, r, gc[0].viol, sc[0].viol)
		}
		for _, k := range sc {
			lhs := 0.0
			for i, c := range k.cols {
				lhs += k.vals[i] * sol.X[c]
			}
			if !(lhs-k.rhs > tol) || math.Abs(lhs-k.rhs-k.viol) > 1e-7 {
				t.Errorf("%s round %d: cut %s: lhs−rhs %g, reported violation %g", name, r, k.key, lhs-k.rhs, k.viol)
			}
		}
		for _, k := range sc {
			m.lp.AddRow(k.cols, k.vals, Le, k.rhs)
		}
	}
	return found
}

// Lifted CYCLE with stabiliser separation (the default for Orbits and
// Renaming) has the ground CYCLE value, as has the ground-separation
// fallback, on the models of TestLiftedEqualsGround and the semi-transitive
// model at n = 5..8; and its cuts are violated (checkStabCuts).
func TestStabiliserSeparation(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(7, 8))
	type mdl struct {
		name string
		g    *fg.Graph
		ev   fg.Evidence
		syms []Symmetry
	}
	var models []mdl
	for i := 0; i < 4; i++ {
		models = append(models, mdl{"ring", gen.Ring(r, 4+2*r.IntN(3), r.IntN(2) == 0), nil, []Symmetry{Orbits{}}})
		piece := gen.Random(r, 3, 4, 2, 0)
		g, ev := gen.Copies(r, piece, 3, 1)
		models = append(models, mdl{"copies", g, ev, []Symmetry{Orbits{}}})
	}
	models = append(models, mdl{"smokers", gen.Smokers(3, -1.5, 0.8), nil, []Symmetry{Orbits{}}})
	sizes := []int{5, 6, 7, 8}
	if testing.Short() {
		sizes = []int{5, 6}
	}
	for _, n := range sizes {
		src := "d = {A,B"
		for i := 3; i <= n; i++ {
			src += ",C" + string(rune('0'+i))
		}
		src += "}\nPred(d,d)\n-1 Pred(x,y) ^ Pred(x,z)\n1.5 Pred(x,y)\n"
		m := groundMLN(t, src, "Pred(A,B)\n")
		models = append(models, mdl{"semi-" + string(rune('0'+n)), m.Graph, nil,
			[]Symmetry{Orbits{}, Renaming{Grounding: m.Grounding.(*ground.Grounding)}}})
	}
	found := 0
	for _, md := range models {
		gsol, err := Solve(ctx, md.g, md.ev, Config{Relaxation: Cycle})
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range md.syms {
			for _, groundSep := range []bool{false, true} {
				l, err := Solve(ctx, md.g, md.ev, Config{Relaxation: Cycle, Symmetry: s, GroundSeparation: groundSep})
				if err != nil {
					t.Fatalf("%s %T: %v", md.name, s, err)
				}
				if !l.CutsDone || !near(l.Bound, gsol.Bound, 1e-6) {
					t.Errorf("%s %T ground-sep=%v: lifted CYCLE %.9g (cuts done %v), ground %.9g", md.name, s, groundSep, l.Bound, l.CutsDone, gsol.Bound)
				}
			}
			found += checkStabCuts(t, md.name, md.g, md.ev, s)
		}
	}
	if found < 10 {
		t.Errorf("only %d stabiliser cuts checked", found)
	}
	t.Logf("%d stabiliser cuts checked", found)
}

// The separation property picks the separation; a bad value is an error.
func TestSeparationProperty(t *testing.T) {
	for _, v := range []string{"stabiliser", "ground"} {
		alg, _, err := infer.New("lp", infer.Properties{"separation": v, "symmetry": "orbits"})
		if err != nil {
			t.Fatal(err)
		}
		if got := alg.(Algorithm).Config.GroundSeparation; got != (v == "ground") {
			t.Errorf("separation=%s: GroundSeparation %v", v, got)
		}
	}
	if _, _, err := infer.New("lp", infer.Properties{"separation": "bogus"}); err == nil {
		t.Error("separation=bogus accepted")
	}
}
