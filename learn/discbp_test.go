package learn

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"

	mlnfile "github.com/lifted-dev/lifted/format/mlnfile"
	"github.com/lifted-dev/lifted/infer/bp"
	"github.com/lifted-dev/lifted/internal/optim"
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

// bethe returns the objective Discriminative maximises with BP counts, the
// training conditional log-likelihood with Bethe's log Z plus the log
// prior (sd), and its gradient, at w on p's network.
func bethe(t *testing.T, p *discProblem, w []float64, learn []int, sd float64) (float64, []float64) {
	t.Helper()
	nf := len(w)
	p.reweight(w)
	mo := &moments{}
	if err := p.expectBP(context.Background(), &p.sg, nf, mo); err != nil {
		t.Fatal(err)
	}
	if !mo.bpConverged {
		t.Fatalf("BP did not converge at %v", w)
	}
	f := -mo.logZ
	g := make([]float64, nf)
	for _, j := range learn {
		f += w[j]*(p.data[j]-p.open[j]) - 0.5*w[j]*w[j]/(sd*sd)
		g[j] = p.data[j] - mo.mu[j] - w[j]/(sd*sd)
	}
	return f, g
}

// TestDiscBPConvergedIsNearOptimum: the default convergence test with BP
// counts, after diagonal Newton or L-BFGS (--method disc), (ZTol: every weight's predicted remaining change at most 0.05 of
// its standard error) is checked against optima found independently —
// on the tree (BP exact) Newton's method on the enumerated conditional
// likelihood, on a loopy network (BP approximate) gonum's L-BFGS on the
// Bethe objective, computed here from BP's log Z — and the objective the
// learner reports is the one maximised.
func TestDiscBPConvergedIsNearOptimum(t *testing.T) {
	for _, tc := range []struct {
		name, model, data, method string
		arity                     int
	}{{"tree", treeModel, treeData, "dn", 2}, {"loopy", discModel, discData, "dn", 0},
		{"tree", treeModel, treeData, "lbfgs", 2}, {"loopy", discModel, discData, "lbfgs", 0}} {
		tc.name += " " + tc.method
		m := parse(t, tc.model)
		db, err := mlnfile.ReadDB(strings.NewReader(tc.data), "data.db", m)
		if err != nil {
			t.Fatal(err)
		}
		r, err := Discriminative(context.Background(), m, []*mln.DB{db}, nil, DiscOptions{NE: []string{"Cancer"}, Counts: "bp", ExactVars: -1, MaxArity: tc.arity, Method: tc.method})
		if err != nil {
			t.Fatal(err)
		}
		if !r.Converged || r.Counts != "bp" {
			t.Fatalf("%s: not converged with BP counts after %d iterations: %s", tc.name, r.Iterations, r.Status)
		}
		learn := queryFormulas(m, learnable(m), []string{"Cancer"})
		p, err := newDiscProblem(context.Background(), m, db, []string{"Cancer"}, learnable(m), tc.arity)
		if err != nil {
			t.Fatal(err)
		}
		f, _ := bethe(t, p, r.Weights, learn, 2)
		if math.Abs(f-r.Objective) > 1e-4 {
			t.Errorf("%s: reported objective %v, Bethe's at the learned weights %v", tc.name, r.Objective, f)
		}
		// the independent optimum
		opt := slices.Clone(r.Weights)
		if strings.HasPrefix(tc.name, "tree") {
			for _, j := range learn {
				opt[j] = 0
			}
			for range 50 { // Newton with a finite-difference Hessian of the exact gradient
				_, g := exactCLL(t, m, tc.data, "Cancer", opt, 2)
				k := len(opt)
				h := make([][]float64, k)
				for a := range k {
					wp := slices.Clone(opt)
					wp[a] += 1e-5
					_, gp := exactCLL(t, m, tc.data, "Cancer", wp, 2)
					h[a] = make([]float64, k)
					for b := range k {
						h[a][b] = (gp[b] - g[b]) / 1e-5
					}
				}
				step := solve(h, g)
				for j := range opt {
					opt[j] -= step[j]
				}
			}
		} else {
			x0 := make([]float64, len(learn))
			res, err := optim.Minimize(context.Background(), func(x, grad []float64) (float64, error) {
				w := slices.Clone(r.Weights)
				for i, j := range learn {
					w[j] = x[i]
				}
				f, g := bethe(t, p, w, learn, 2)
				for i, j := range learn {
					grad[i] = -g[j]
				}
				return -f, nil
			}, x0, optim.Settings{GradTol: 1e-7, MaxIter: 500})
			if err != nil {
				t.Fatal(err)
			}
			if res.GradNorm > 1e-5 {
				t.Fatalf("loopy: L-BFGS on the Bethe objective did not converge: %s", res.Reason())
			}
			for i, j := range learn {
				opt[j] = res.X[i]
			}
		}
		// the distance in standard errors, the Hessian's diagonal at the
		// optimum as in the test (BP's variances)
		p.reweight(opt)
		mo := &moments{}
		if err := p.expectBP(context.Background(), &p.sg, len(opt), mo); err != nil {
			t.Fatal(err)
		}
		for _, j := range learn {
			se := 1 / math.Sqrt(mo.v[j]+0.25)
			d := math.Abs(r.Weights[j] - opt[j])
			t.Logf("%s formula %d: learned %.6f, optimum %.6f: %.4f standard errors (%.4f) apart", tc.name, j+1, r.Weights[j], opt[j], d/se, se)
			// the test predicts at most 0.05 with a diagonal Hessian;
			// the formulas' correlations may make the true distance
			// larger, but not by a factor of 2 here
			if d/se > 0.1 {
				t.Errorf("%s formula %d: converged at %v, the optimum is %v: %.3f standard errors away (the test allows 0.05)", tc.name, j+1, r.Weights[j], opt[j], d/se)
			}
		}
	}
}

// TestDiscAutoCounts: by default (auto) the learner takes BP's counts where
// BP converges at the starting weights and says so, and MC-SAT's where it
// does not (here BP cut to 2 iterations on the loopy network).
func TestDiscAutoCounts(t *testing.T) {
	m := parse(t, discModel)
	db, err := mlnfile.ReadDB(strings.NewReader(discData), "data.db", m)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Discriminative(context.Background(), m, []*mln.DB{db}, []string{"data.db"}, DiscOptions{NE: []string{"Cancer"}, Counts: "auto", ExactVars: -1})
	if err != nil {
		t.Fatal(err)
	}
	if r.Counts != "bp" || !r.Converged || !strings.Contains(r.Status, "counts BP (auto: BP converged on every training database") {
		t.Errorf("auto on a network where BP converges: counts %q, converged %v, status %q", r.Counts, r.Converged, r.Status)
	}
	want, err := Discriminative(context.Background(), m, []*mln.DB{db}, nil, DiscOptions{NE: []string{"Cancer"}, Counts: "bp", ExactVars: -1})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(r.Weights, want.Weights) {
		t.Errorf("auto %v, bp %v", r.Weights, want.Weights)
	}
	r, err = Discriminative(context.Background(), m, []*mln.DB{db}, []string{"data.db"}, DiscOptions{NE: []string{"Cancer"}, Counts: "auto", ExactVars: -1, Seed: 2, bpSchedules: []bp.Options{{Tol: 1e-12, MaxIter: 2}}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Counts != "mcsat" || r.Iterations > 5 || !strings.Contains(r.Status, "counts MC-SAT (auto: BP did not converge at the starting weights on data.db)") {
		t.Errorf("auto where BP does not converge: counts %q after %d iterations, status %q", r.Counts, r.Iterations, r.Status)
	}
}
