package learn

import (
	"context"
	"math"
	"strings"
	"testing"

	mlnfile "github.com/lifted-dev/lifted/format/mlnfile"
	"github.com/lifted-dev/lifted/mln"
)

// treeModel's ground network given treeData is a tree: unary factors on
// the Cancer atoms and one EXIST clause over all of them (a star around
// its auxiliary variable with MaxArity 2; the only smoker is A), so BP's
// beliefs are the exact marginals.
const treeModel = `Smokes(person)
Cancer(person)
0.5 Smokes(x) => Cancer(x)
-0.2 Cancer(x)
0.7 EXIST y !Smokes(x) v Cancer(y)
`

const treeData = `Smokes(A)
!Smokes(B)
!Smokes(C)
!Smokes(D)
!Smokes(E)
Cancer(C)
`

// TestDiscBPCountsExactOnTree: on a tree, BP's expected counts (factor
// beliefs, the auxiliary variable's factor included) equal the exact ones by
// enumeration at weights of both signs, and the variance of the formula
// with a single ground formula is its Bernoulli variance.
func TestDiscBPCountsExactOnTree(t *testing.T) {
	m := parse(t, treeModel)
	db, err := mlnfile.ReadDB(strings.NewReader(treeData), "tree.db", m)
	if err != nil {
		t.Fatal(err)
	}
	p, err := newDiscProblem(context.Background(), m, db, []string{"Cancer"}, learnable(m), 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.starForm) != 1 {
		t.Fatalf("%d ground formulas with an auxiliary variable, want the one EXIST clause", len(p.starForm))
	}
	nf := len(m.Formulas)
	for _, w := range [][]float64{{1.1, -0.4, 0.3}, {-2, 0.7, -2.5}, {0, 0, 0}, {3, 1, 4}} {
		p.reweight(w)
		ex := &moments{}
		if err := p.enumerate(&p.sg, nf, ex); err != nil {
			t.Fatal(err)
		}
		got := &moments{}
		if err := p.expectBP(context.Background(), &p.sg, nf, got); err != nil {
			t.Fatal(err)
		}
		// BP stops when no message changes by 1e-6 (bpSchedules, damped
		// 0.5): each of the 5 Cancer atoms' beliefs is then within a few
		// 1e-6 of its fixed point, so a count within 1e-4
		for j := range nf {
			if math.Abs(got.mean(j)-ex.mean(j)) > 1e-4 {
				t.Errorf("w %v formula %d: BP count %v, exact %v", w, j+1, got.mean(j), ex.mean(j))
			}
		}
		if math.Abs(got.variance(2)-ex.variance(2)) > 1e-4 {
			t.Errorf("w %v: the EXIST clause's variance %v by BP, %v exact", w, got.variance(2), ex.variance(2))
		}
	}
	if p.bpUnconverged > 0 {
		t.Errorf("BP did not converge in %d of %d runs on a tree", p.bpUnconverged, p.bpRuns)
	}
}

// TestDiscBPLearnsExactOptimum: on the tree, diagonal Newton with BP
// counts converges (deterministically) to the exact optimum of the
// conditional likelihood with the prior, whose gradient is computed
// independently by enumerating the Cancer atoms and counting with CountDB.
func TestDiscBPLearnsExactOptimum(t *testing.T) {
	m := parse(t, treeModel)
	db, err := mlnfile.ReadDB(strings.NewReader(treeData), "tree.db", m)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Discriminative(context.Background(), m, []*mln.DB{db}, nil, DiscOptions{NE: []string{"Cancer"}, Counts: "bp", ExactVars: -1, MaxArity: 2, StepTol: 1e-4})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Converged {
		t.Fatalf("not converged after %d iterations: %s", r.Iterations, r.Status)
	}
	_, g := exactCLL(t, m, treeData, "Cancer", r.Weights, 2)
	t.Logf("learned %v in %d iterations (%s); exact gradient there %v", r.Weights, r.Iterations, r.Status, g)
	for j, gj := range g {
		if math.Abs(gj) > 1e-3 {
			t.Errorf("formula %d: exact gradient %v at the learned weights", j+1, gj)
		}
	}
	again, err := Discriminative(context.Background(), m, []*mln.DB{db}, nil, DiscOptions{NE: []string{"Cancer"}, Counts: "bp", ExactVars: -1, MaxArity: 2, StepTol: 1e-4, Seed: 9})
	if err != nil {
		t.Fatal(err)
	}
	for j := range r.Weights {
		if again.Weights[j] != r.Weights[j] {
			t.Errorf("formula %d: %v, then %v with another seed: BP counts are deterministic", j+1, r.Weights[j], again.Weights[j])
		}
	}
}
