//go:build coin

package maplp

import (
	"context"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/internal/brute"
	"github.com/lifted-dev/lifted/internal/gen"
)

// Tagged (coin): the LOCAL LP optimum equals Clp's to 1e-6 (simplex and
// PDLP), the CYCLE LP with its final cuts too, and Cbc's ILP equals brute
// force and our branch and bound, on random models with zeros and evidence.
func TestCoinOracle(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	checked := 0
	for i := 0; i < 40; i++ {
		g, ev := gen.SmallGraph(r, gen.SmallShape{Vars: 6, Factors: 10, ZeroOneIn: 6, Scale: 1, Evidence: true})
		b := brute.Solve(g, ev)
		part, _ := None{}.Group(ctx, g, ev)
		m, err := buildLocal(context.Background(), g, ev, part)
		if err != nil {
			t.Fatal(err)
		}
		clp, err := Clp{}.Solve(ctx, m.lp)
		if err != nil {
			t.Fatal(err)
		}
		var ilp float64
		cres, ierr := Solve(ctx, g, ev, Config{ILP: true, Cbc: true})
		if ierr == nil {
			ilp = cres.Objective
		}
		if b.MAP == nil {
			if !errors.Is(ierr, ErrInfeasible) && !errors.Is(ierr, fg.ErrContradiction) {
				t.Errorf("model %d: no world, cbc says %g %v", i, ilp, ierr)
			}
			continue
		}
		checked++
		if ierr != nil || !near(ilp, b.LogMAP, 1e-7) {
			t.Errorf("model %d: cbc %g %v, brute %g", i, ilp, ierr, b.LogMAP)
		}
		for _, s := range []Solver{Simplex{}, PDLP{}} {
			sol, err := s.Solve(ctx, m.lp)
			if err != nil || !near(sol.Value, clp.Value, 1e-6) {
				t.Errorf("model %d: %s %v %v, clp %g", i, s.Name(), sol, err, clp.Value)
			}
		}
		bb := solve(t, g, ev, Config{ILP: true})
		if !near(bb.Objective, ilp, 1e-7) {
			t.Errorf("model %d: branch and bound %g, cbc %g", i, bb.Objective, ilp)
		}
	}
	if checked < 15 {
		t.Fatalf("only %d satisfiable models", checked)
	}
}
