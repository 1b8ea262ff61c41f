package ground

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"
)

// TestTseitinLargeFormulas grounds non-clausal formulas over more unknown
// atoms than one table may hold (issue 24: "usesAnyIn(p,u,m) <=> EXIST g
// usesAnyForIn(p,u,g,m)" over 14 atoms was refused) and checks log Z and
// every marginal against the independent enumeration of the MLN semantics
// (semantics_test.go), at several MaxArity values: 20 (one table per
// ground formula, no auxiliary variable), 12 (the default) and 6 (more
// auxiliary variables). Auxiliary variables must be hidden: every variable
// past NumAtoms is no atom.
func TestTseitinLargeFormulas(t *testing.T) {
	groups := make([]string, 14)
	for i := range groups {
		groups[i] = fmt.Sprintf("G%d", i)
	}
	decl := "proc = {P}\nuser = {U}\nmach = {M}\ngrp = {" + strings.Join(groups, ",") + "}\n" +
		"usesAnyIn(proc, user, mach)\nusesAnyForIn(proc, user, grp, mach)\n"
	cases := []struct{ name, mln, db string }{
		{"issue", decl + "1.3 usesAnyIn(p,u,m) <=> (EXIST g (usesAnyForIn(p,u,g,m)))\n-0.2 usesAnyForIn(p,u,g,m)\n", ""},
		{"negative", decl + "-0.7 usesAnyIn(p,u,m) <=> (EXIST g (usesAnyForIn(p,u,g,m)))\n0.4 usesAnyForIn(p,u,g,m)\n", ""},
		{"hard", decl + "usesAnyIn(p,u,m) <=> (EXIST g (usesAnyForIn(p,u,g,m))).\n-0.5 usesAnyForIn(p,u,g,m)\n0.3 usesAnyIn(p,u,m)\n", ""},
		{"evidence", decl + "2 usesAnyIn(p,u,m) <=> (EXIST g (usesAnyForIn(p,u,g,m)))\n-1 usesAnyForIn(p,u,g,m)\n",
			"!usesAnyForIn(P,U,G0,M)\n!usesAnyForIn(P,U,G1,M)\n?usesAnyIn(P,U,M)\n"},
		{"forall-xor", decl + "0.9 (usesAnyIn(p,u,m) ^ !(FORALL g usesAnyForIn(p,u,g,m))) v (!usesAnyIn(p,u,m) ^ (FORALL g usesAnyForIn(p,u,g,m)))\n0.6 usesAnyForIn(p,u,g,m)\n", ""},
		{"nested", decl + "1.1 (EXIST g usesAnyForIn(p,u,g,m)) <=> ((FORALL g usesAnyForIn(p,u,g,m)) <=> usesAnyIn(p,u,m))\n-0.3 usesAnyForIn(p,u,g,m)\n", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := parse(t, c.mln)
			db := readDB(t, m, c.db)
			opt := Options{Query: []string{"usesAnyIn", "usesAnyForIn"}}
			sem := newSemModel(t, m, db, opt)
			semZ, semM := sem.solve()
			for _, arity := range []int{20, 12, 6} {
				opt.MaxArity = arity
				gr, err := Ground(context.Background(), m, db, opt)
				if err != nil {
					t.Fatalf("max arity %d: %v", arity, err)
				}
				aux := len(gr.Graph.Card) - gr.NumAtoms
				if arity == 20 && aux != 0 || arity < 15 && aux == 0 {
					t.Fatalf("max arity %d: %d auxiliary variables", arity, aux)
				}
				for v := gr.NumAtoms; v < len(gr.Graph.Card); v++ {
					if _, _, ok := gr.Atom(int32(v)); ok {
						t.Fatalf("auxiliary variable %d reads as an atom", v)
					}
				}
				logZ, marg, ok := exactOf(gr)
				if !ok && arity < 12 {
					t.Logf("max arity %d: %d auxiliary variables, too many states to enumerate", arity, aux)
					continue
				}
				if !ok {
					t.Fatalf("max arity %d: too many states to enumerate", arity)
				}
				if math.Abs(logZ-semZ) > 1e-9*math.Max(1, math.Abs(semZ)) {
					t.Fatalf("max arity %d: log Z %v, semantics %v", arity, logZ, semZ)
				}
				for id, a := range sem.atoms {
					v, truth := gr.Var(a.pred, a.args)
					p := float64(truth) // only read when v < 0 and truth is known
					if v >= 0 {
						p = marg[v][1]
					} else if truth != 0 && truth != 1 {
						p = 0.5
					}
					if math.Abs(p-semM[id]) > 1e-9 {
						t.Fatalf("max arity %d: P(%s) = %v, semantics %v", arity, gr.Name(a.pred, a.args), p, semM[id])
					}
				}
				t.Logf("max arity %d: %d atoms, %d auxiliary variables, log Z %.6f", arity, gr.NumAtoms, aux, logZ)
			}
		})
	}
}

// TestTseitinCounting: counting quantifiers and cardinality constraints of
// C2 ground to a shared "at least j of the first i" network, which the
// Tseitin reduction must split once per shared gate (it was exponential);
// log Z and the marginals against the enumeration of the semantics.
func TestTseitinCounting(t *testing.T) {
	decl := "grp = {G0,G1,G2,G3,G4,G5,G6}\nA\nU(grp)\n"
	for _, c := range []struct{ name, src string }{
		{"exactly", "1.2 A <=> (EXIST=3 g U(g))\n-0.4 U(g)\n"},
		{"at most, hard", "A => (EXIST<=2 g U(g)).\n0.6 U(g)\n0.2 A\n"},
		{"cardinality as a formula", "0.8 (EXIST>=4 x U(x)) v A\n-0.3 U(g)\n"},
	} {
		m := parse(t, decl+c.src)
		db := readDB(t, m, "")
		opt := Options{Query: []string{"A", "U"}}
		semZ, semM := newSemModel(t, m, db, opt).solve()
		for _, arity := range []int{20, 7} {
			opt.MaxArity = arity
			gr, err := Ground(context.Background(), m, db, opt)
			if err != nil {
				t.Fatalf("%s, max arity %d: %v", c.name, arity, err)
			}
			aux := len(gr.Graph.Card) - gr.NumAtoms
			if arity == 7 && aux == 0 {
				t.Fatalf("%s: no auxiliary variable at max arity 7", c.name)
			}
			logZ, marg, ok := exactOf(gr)
			if !ok {
				t.Fatalf("%s, max arity %d: %d auxiliary variables, too many states to enumerate", c.name, arity, aux)
			}
			if math.Abs(logZ-semZ) > 1e-9*math.Max(1, math.Abs(semZ)) {
				t.Errorf("%s, max arity %d: log Z %v, semantics %v", c.name, arity, logZ, semZ)
			}
			sum := 0.0
			for v := 0; v < gr.NumAtoms; v++ {
				sum += marg[v][1]
			}
			want := 0.0
			for _, p := range semM {
				want += p
			}
			if math.Abs(sum-want) > 1e-9 {
				t.Errorf("%s, max arity %d: Σ marginals %v, semantics %v", c.name, arity, sum, want)
			}
			t.Logf("%s, max arity %d: %d atoms, %d auxiliary variables", c.name, arity, gr.NumAtoms, aux)
		}
	}
}
