package engine

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/lifted-dev/lifted/infer"
	"github.com/lifted-dev/lifted/infer/bp"
)

// deskmateMLN is the perfect-matching model of n students: every student
// has exactly one deskmate, mates are mutual, nobody is their own; a
// weighted formula prefers mates who are friends (the closed-world fr of
// the evidence: a ring of friendships).
func deskmateMLN(n int) (mlnText, db string) {
	var s, ev []string
	for i := 1; i <= n; i++ {
		s = append(s, fmt.Sprintf("S%d", i))
		ev = append(ev, fmt.Sprintf("fr(S%d,S%d)", i, i%n+1))
	}
	return "student = {" + strings.Join(s, ",") + "}\nmate(student, student)\nfr(student, student)\n" +
			"mate(x,y) => mate(y,x).\nEXIST y mate(x,y).\nmate(x,y) ^ mate(x,z) => y = z.\n!mate(x,x).\n1.5 mate(x,y) => fr(x,y)\n",
		strings.Join(ev, "\n") + "\n"
}

// derangementMLN: the 3×3 permutation matrices without fixed points (2
// of them).
const derangementMLN = "e = {A,B,C}\np(e,e)\nEXIST y p(x,y).\nEXIST x p(x,y).\np(x,y) ^ p(x,z) => y = z.\np(x,y) ^ p(z,y) => x = z.\n!p(x,x).\n"

// BP on satisfiable models with hard constraints never fails with "not
// normalizable" (which underflow caused: in exact arithmetic BP never
// zeroes a state of a satisfying world), ground or lifted, flooding or
// sequential, damped or not; where its messages converge, no hard
// factor's zeros carry the beliefs.
func TestBPHardConstraintsNormalizable(t *testing.T) {
	dm, dmDB := deskmateMLN(6)
	models := []Request{
		{Model: writeTemp(t, "dm6.mln", dm), Evidence: []string{writeTemp(t, "dm6.db", dmDB)}, Query: []string{"mate"}},
		{Model: writeTemp(t, "der.mln", derangementMLN), Query: []string{"p"}},
	}
	for _, req := range models {
		for _, m := range []string{"bp", "lbp"} {
			for _, props := range []infer.Properties{{}, {"damping": "0.5"}, {"schedule": "seq"}} {
				req.Method, req.Properties, req.AllowUnconverged = m, props, true
				req.Properties["max-iter"] = "300"
				res, err := Run(context.Background(), req)
				if errors.Is(err, bp.ErrNotNormalizable) || err != nil {
					t.Errorf("%s %s %v: %v", req.Model, m, props, err)
					continue
				}
				for a := range res.Atoms() {
					if math.IsNaN(a.P) || a.P < 0 || a.P > 1 {
						t.Errorf("%s %s %v: %s = %g", req.Model, m, props, a.Name, a.P)
					}
				}
			}
		}
	}
}

// Factor entries near MaxFloat64 (1e308) do not overflow BP's sums: bp
// and lbp give the junction tree's marginals on a tree, and on a loop
// their fixed point.
func TestBPHugeEntries(t *testing.T) {
	tree := writeTemp(t, "big.uai", "MARKOV\n3\n2 2 2\n2\n2 0 1\n2 1 2\n\n4\n1e308 1 1 1e308\n\n4\n1e308 3e307 1 1.7e308\n")
	loop := writeTemp(t, "loop.uai", "MARKOV\n3\n2 2 2\n3\n2 0 1\n2 1 2\n2 0 2\n\n4\n1e308 1 1 1e308\n\n4\n1e308 1 1 1e308\n\n4\n1 1e308 1e308 1\n")
	want, err := Run(context.Background(), Request{Model: tree, Method: "jtree"})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{"bp", "lbp"} {
		got, err := Run(context.Background(), Request{Model: tree, Method: m})
		if err != nil {
			t.Fatalf("%s tree: %v", m, err)
		}
		for v := range want.Marginals {
			if d := math.Abs(got.Marginals[v][1] - want.Marginals[v][1]); !(d < 1e-9) {
				t.Errorf("%s tree: variable %d: %g, jtree %g", m, v, got.Marginals[v][1], want.Marginals[v][1])
			}
		}
		if d := math.Abs(got.LogZ - want.LogZ); !(d < 1e-9*math.Abs(want.LogZ)) {
			t.Errorf("%s tree: log Z %g, jtree %g", m, got.LogZ, want.LogZ)
		}
		if _, err := Run(context.Background(), Request{Model: loop, Method: m, AllowUnconverged: true}); err != nil {
			t.Errorf("%s loop: %v", m, err)
		}
	}
}

// Lifted BP is ground BP, with damping too. (Models whose symmetric BP
// iterates are unstable are TestLBPIsGroundBPSymmetric's.)
func TestLBPIsGroundBPDamped(t *testing.T) {
	for _, req := range []Request{
		{Model: smokersMLN, Evidence: []string{smokersDB}, Query: []string{"Smokes", "Cancer"}},
		{Model: smokersUAI, Evidence: []string{smokersUAI + ".evid"}},
		{Model: "../examples/fg/grid20.uai"},
	} {
		for _, d := range []string{"0.5", "0.8"} {
			var got [2]map[string]float64
			for i, m := range []string{"bp", "lbp"} {
				req.Method, req.Properties, req.AllowUnconverged = m, infer.Properties{"damping": d, "max-iter": "3000"}, true
				req.Ground.Construction = ConstructGround
				res, err := Run(context.Background(), req)
				if err != nil {
					t.Fatalf("%s %s: %v", req.Model, m, err)
				}
				got[i] = map[string]float64{}
				if res.IsMLN() {
					got[i] = res.AtomMarginals()
				} else {
					for v, mv := range res.Marginals {
						got[i][fmt.Sprint(v)] = mv[1]
					}
				}
			}
			for k, p := range got[0] {
				if math.Abs(p-got[1][k]) > 1e-6 {
					t.Errorf("%s damping %s: %s bp %g, lbp %g", req.Model, d, k, p, got[1][k])
				}
			}
		}
	}
}

// Where BP's path through the symmetric messages is unstable — the 3×3
// derangement, the deskmate matchings — bp and lbp say the same, damped
// or not: neither answer is labelled converged (ground flooding used to
// leave the symmetric path through rounding and settle on one solution,
// P = 0 or 1, labelled converged; the sequential fallback's fixed point
// breaks the symmetry in exact arithmetic and is flagged), and without
// --allow-unconverged both refuse. (Flooding runs, ground and lifted,
// agree to 1e-9 on these models: bp's TestGroundFloodKeepsSymmetry.)
func TestLBPIsGroundBPSymmetric(t *testing.T) {
	dm, dmDB := deskmateMLN(6)
	for _, req := range []Request{
		{Model: writeTemp(t, "der.mln", derangementMLN), Query: []string{"p"}},
		{Model: writeTemp(t, "dm6.mln", dm), Evidence: []string{writeTemp(t, "dm6.db", dmDB)}, Query: []string{"mate"}},
	} {
		for _, d := range []string{"0", "0.5"} {
			for _, m := range []string{"bp", "lbp"} {
				req.Method, req.Properties = m, infer.Properties{"damping": d, "max-iter": "400"}
				req.AllowUnconverged = true
				res, err := Run(context.Background(), req)
				if err != nil {
					t.Fatalf("%s %s damping %s: %v", req.Model, m, d, err)
				}
				if res.Converged {
					t.Errorf("%s %s damping %s: labelled converged", req.Model, m, d)
				}
				req.AllowUnconverged = false
				var nc *infer.NotConvergedError
				if _, err := Run(context.Background(), req); !errors.As(err, &nc) {
					t.Errorf("%s %s damping %s: %v, want a refusal", req.Model, m, d, err)
				}
			}
		}
	}
}
