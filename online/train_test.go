package online

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	mlnfile "github.com/lifted-dev/lifted/format/mlnfile"
	"github.com/lifted-dev/lifted/infer/bp"
	"gonum.org/v1/gonum/mat"
)

var genWeights = []float64{1.5, 1.0, -0.5}

// synth builds the consistency-test model with n persons and training data
// sampled from genWeights. All predicates are non-evidence, so every
// person's three ground clauses form the same tree, which tree pieces
// (t = 1, depth 2) cover whole: the piecewise objective is then consistent.
// (With Stress as evidence, persons without stress lose the clause
// Stress(x) => Smokes(x), a pattern grown at such a person leaves it out of
// every piece, and the pieces of stressed persons are truncated models: the
// piecewise estimate is then biased, as piecewise training is in general.)
func synth(t testing.TB, n int, seed uint64) *Model {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 7))
	var names []string
	for i := range n {
		names = append(names, fmt.Sprintf("P%d", i))
	}
	src := "person = {" + strings.Join(names, ", ") + "}\nSmokes(person)\nCancer(person)\nStress(person)\n" +
		"Smokes(x) => Cancer(x)\nStress(x) => Smokes(x)\nCancer(x)\n"
	var db strings.Builder
	m, err := mlnfile.Parse("s.mln", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	d, err := mlnfile.ReadDB(strings.NewReader(db.String()), "s.db", m)
	if err != nil {
		t.Fatal(err)
	}
	md, err := NewModel(m, d, []string{"Smokes", "Cancer", "Stress"})
	if err != nil {
		t.Fatal(err)
	}
	x, err := Sample(md, genWeights, 50, rng)
	if err != nil {
		t.Fatal(err)
	}
	return md.WithValues(x)
}

func dist(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += (a[i] - b[i]) * (a[i] - b[i])
	}
	return math.Sqrt(s)
}

// stdErr returns sqrt(tr H⁻¹), H the Hessian of the whole mega-example's
// negative log-likelihood at w (central differences of the BP gradient, which
// is exact on this model: every person's ground clauses form a tree): the
// asymptotic standard error of the maximum-likelihood estimate, summed over
// the weights in quadrature.
func stdErr(t *testing.T, md *Model, w []float64) float64 {
	o := newFullObjective(context.Background(), md, BatchOptions{Grad: GradOptions{BP: bp.Options{Tol: 1e-13, MaxIter: 1000}}})
	return hessianStdErr(t, o, w)
}

// hessianStdErr is sqrt(tr H⁻¹) for o's learnable weights w.
func hessianStdErr(t *testing.T, o *fullObjective, w []float64) float64 {
	t.Helper()
	k := len(w)
	h := mat.NewDense(k, k, nil)
	const eps = 1e-4
	for j := range k {
		wp, wm := slices.Clone(w), slices.Clone(w)
		wp[j] += eps
		wm[j] -= eps
		_, gp := o.eval(wp)
		gp = slices.Clone(gp)
		_, gm := o.eval(wm)
		for i := range k {
			h.Set(i, j, (gp[i]-gm[i])/(2*eps))
		}
	}
	if o.err != nil {
		t.Fatal(o.err)
	}
	var inv mat.Dense
	if err := inv.Inverse(h); err != nil {
		t.Fatal(err)
	}
	return math.Sqrt(mat.Trace(&inv))
}

// TestLearnersApproachGeneratingWeights samples training data from known
// weights (Gibbs, fixed seed) for growing numbers of persons and checks that
// every learner's weights approach them. The tolerance is statistical: the
// maximum-likelihood estimate is off by about se = sqrt(tr H⁻¹) (H the
// Hessian of the negative log-likelihood at the generating weights), so every
// learner must be within 4·se of the generating weights, and se shrinks like
// 1/sqrt(n). Tree pieces (t = 1, depth 2) cover every person's whole
// component, so the piecewise objective is consistent here; the online
// learners run 40 passes of 20 mini-batches, which brings them within se/4
// of the maximum-likelihood estimate (L-BFGS) at the largest n.
func TestLearnersApproachGeneratingWeights(t *testing.T) {
	prev := map[string]float64{}
	for _, n := range []int{100, 1000, 10000} {
		md := synth(t, n, 1)
		se := stdErr(t, md, genWeights)
		rng := rand.New(rand.NewPCG(3, 4))
		p := TreePieces(md, 2, 1, rng)
		got := map[string][]float64{}
		for _, method := range []string{"smd", "sgd"} {
			r, err := Train(context.Background(), md, p, TrainOptions{Method: method, Passes: 40, BatchSize: max(1, p.Len()/20), Rand: rng})
			if err != nil {
				t.Fatal(err)
			}
			got[method] = r.Weights
		}
		for _, method := range []string{"scg", "lbfgs"} {
			opt := BatchOptions{MaxIter: 200, GradTol: 1e-6}
			var r *BatchLearnResult
			var err error
			if method == "scg" {
				r, err = SCG(context.Background(), md, opt)
			} else {
				r, err = LBFGS(context.Background(), md, opt)
			}
			if err != nil {
				t.Fatal(err)
			}
			got[method] = r.Weights
		}
		for _, method := range []string{"smd", "sgd", "scg", "lbfgs"} {
			e := dist(got[method], genWeights)
			t.Logf("n=%d %-5s weights %.3f, error %.3f (se %.3f)", n, method, got[method], e, se)
			if e > 4*se {
				t.Errorf("n=%d %s: error %.3f exceeds 4·se = %.3f", n, method, e, 4*se)
			}
			if p, ok := prev[method]; ok && n == 10000 && e > p {
				t.Errorf("%s: error grew from %.3f to %.3f with more data", method, p, e)
			}
			prev[method] = e
		}
		if n == 10000 {
			// The online learners have converged to the piecewise optimum,
			// which equals the maximum-likelihood estimate here.
			for _, method := range []string{"smd", "sgd"} {
				if d := dist(got[method], got["lbfgs"]); d > se/4 {
					t.Errorf("%s is %.3f from the maximum-likelihood estimate (se/4 = %.3f)", method, d, se/4)
				}
			}
		}
	}
}

func TestSCGMatchesLBFGS(t *testing.T) {
	m, db := parse(t, smokersMLN, smokersDB)
	md, err := NewModel(m, db, []string{"Smokes", "Cancer"})
	if err != nil {
		t.Fatal(err)
	}
	opt := BatchOptions{MaxIter: 500, GradTol: 1e-9, PriorStdDev: 2,
		Grad: GradOptions{BP: bp.Options{Tol: 1e-13, MaxIter: 5000}}}
	a, err := SCG(context.Background(), md, opt)
	if err != nil {
		t.Fatal(err)
	}
	b, err := LBFGS(context.Background(), md, opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("SCG   %.8f loss %.10f (%d iterations, %d evaluations, converged %v)", a.Weights, a.Loss, a.Iterations, a.Evaluations, a.Converged)
	t.Logf("LBFGS %.8f loss %.10f (%d iterations, %d evaluations, %s)", b.Weights, b.Loss, b.Iterations, b.Evaluations, b.Status)
	if !a.Converged {
		t.Errorf("SCG did not converge")
	}
	for i := range a.Weights {
		if math.Abs(a.Weights[i]-b.Weights[i]) > 1e-6 {
			t.Errorf("weight %d: SCG %v, L-BFGS %v", i, a.Weights[i], b.Weights[i])
		}
	}
}

// A gradient tolerance SCG cannot reach (rounding keeps the BP gradient
// above 1e-300) must not keep it running to its iteration limit: it stops
// once the loss stops changing, at the same optimum.
func TestSCGStopsWhenLossStalls(t *testing.T) {
	m, db := parse(t, smokersMLN, smokersDB)
	md, err := NewModel(m, db, []string{"Smokes", "Cancer"})
	if err != nil {
		t.Fatal(err)
	}
	opt := BatchOptions{MaxIter: 500, GradTol: 1e-300, PriorStdDev: 2,
		Grad: GradOptions{BP: bp.Options{Tol: 1e-13, MaxIter: 5000}}}
	a, err := SCG(context.Background(), md, opt)
	if err != nil {
		t.Fatal(err)
	}
	opt.GradTol = 1e-9
	b, err := LBFGS(context.Background(), md, opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("SCG %d iterations: %s", a.Iterations, a.Status)
	if a.Iterations >= opt.MaxIter || a.Status != "loss unchanged for 10 iterations" {
		t.Fatalf("SCG ran %d iterations and stopped with %q", a.Iterations, a.Status)
	}
	for i := range a.Weights {
		if math.Abs(a.Weights[i]-b.Weights[i]) > 1e-6 {
			t.Errorf("weight %d: SCG %v, L-BFGS %v", i, a.Weights[i], b.Weights[i])
		}
	}
}
