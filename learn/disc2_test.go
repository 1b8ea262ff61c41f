package learn

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	mlnfile "github.com/lifted-dev/lifted/format/mlnfile"
	"github.com/lifted-dev/lifted/mln"
)

// starModel has table factors and, with MaxArity 2, ground formulas with an
// auxiliary variable (the EXIST clause over every person's Cancer atom).
const starModel = `Smokes(person)
Cancer(person)
Friends(person, person)
0.5 Smokes(x) => Cancer(x)
0.3 Friends(x,y) ^ Cancer(x) => Cancer(y)
-0.2 Cancer(x)
0.7 EXIST y !Smokes(x) v Cancer(y)
`

func starProblem(t *testing.T) (*mln.MLN, *discProblem) {
	t.Helper()
	m := parse(t, starModel)
	db, err := mlnfile.ReadDB(strings.NewReader(discData), "data.db", m)
	if err != nil {
		t.Fatal(err)
	}
	p, err := newDiscProblem(context.Background(), m, db, []string{"Cancer"}, learnable(m), 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.starForm) == 0 {
		t.Fatal("no ground formula with an auxiliary variable")
	}
	return m, p
}

// TestDiscIncrementalCounts: the counts updated from the atoms that changed
// equal a recount of every ground formula after every MC-SAT step.
func TestDiscIncrementalCounts(t *testing.T) {
	m, p := starProblem(t)
	w := []float64{1.1, -0.4, 0.3, -1.5}
	o := DiscOptions{NE: []string{"Cancer"}, Samples: 1, WarmBurnIn: -1, ExactVars: -1}.defaults()
	rng := rand.New(rand.NewPCG(5, 6))
	nf := len(m.Formulas)
	for step := range 300 {
		mo := &moments{}
		if err := p.expect(context.Background(), w, o, rng, mo, false); err != nil {
			t.Fatal(err)
		}
		// expect recounts in full at its first sample: count on from here
		full := p.counts(p.state, make([]float64, nf))
		for j := range nf {
			if mo.n[0][j] != full[j] {
				t.Fatalf("step %d, formula %d: incremental %v, recount %v", step, j, mo.n[0][j], full[j])
			}
		}
		inc := p.countsInc(p.state, make([]float64, nf))
		for j := range nf {
			if inc[j] != full[j] {
				t.Fatalf("step %d, formula %d: countsInc again %v, recount %v", step, j, inc[j], full[j])
			}
		}
	}
	// within one call: many samples, each checked
	p.prev = nil
	o.Samples = 200
	mo := &moments{}
	if err := p.expect(context.Background(), w, o, rng, mo, false); err != nil {
		t.Fatal(err)
	}
	moves := 0
	for i := 1; i < len(mo.n); i++ {
		for j := range nf {
			if mo.n[i][j] != mo.n[i-1][j] {
				moves++
				break
			}
		}
	}
	if moves < 20 {
		t.Errorf("the counts changed at only %d of %d steps: the chain hardly moves", moves, len(mo.n))
	}
}

// TestDiscReweightExact: the counting network with its learned tables
// reweighted (auxiliary variables included, weights of both signs) gives
// the expected counts of the MLN at those weights, computed independently
// by enumerating the query atoms and counting with CountDB (exactCLL).
func TestDiscReweightExact(t *testing.T) {
	m, p := starProblem(t)
	nf := len(m.Formulas)
	for _, w := range [][]float64{{1.1, -0.4, 0.3, -1.5}, {-2, 0.7, -0.1, 2.5}, {0, 0, 0, 0}} {
		p.reweight(w)
		mo := &moments{}
		if err := p.enumerate(&p.sg, nf, mo); err != nil {
			t.Fatal(err)
		}
		_, grad := exactCLL(t, m, discData, "Cancer", w, 1e300)
		for j := range nf {
			got := p.data[j] - mo.mean(j)
			if math.Abs(got-grad[j]) > 1e-9 {
				t.Errorf("w %v formula %d: data − E[n] = %v from the reweighted network, %v by enumeration", w, j, got, grad[j])
			}
		}
	}
}

// TestDiscMCSATCounts: MC-SAT's mean counts on the reweighted network
// (blocked moves on the auxiliary variables) agree with the exact ones.
func TestDiscMCSATCounts(t *testing.T) {
	m, p := starProblem(t)
	nf := len(m.Formulas)
	w := []float64{1.1, -0.4, 0.3, 1.5}
	p.reweight(w)
	ex := &moments{}
	if err := p.enumerate(&p.sg, nf, ex); err != nil {
		t.Fatal(err)
	}
	o := DiscOptions{NE: []string{"Cancer"}, Samples: 40000, ExactVars: -1}.defaults()
	mc := &moments{}
	if err := p.expect(context.Background(), w, o, rand.New(rand.NewPCG(1, 2)), mc, false); err != nil {
		t.Fatal(err)
	}
	ms := momentSet{mc}
	for j := range nf {
		se := math.Sqrt(ms.meanVariance(j))
		d := mc.mean(j) - ex.mean(j)
		t.Logf("formula %d: MC-SAT %.4f ± %.4f, exact %.4f", j, mc.mean(j), se, ex.mean(j))
		if math.Abs(d) > 5*se+1e-3 {
			t.Errorf("formula %d: MC-SAT mean count %v, exact %v (standard error %v)", j, mc.mean(j), ex.mean(j), se)
		}
	}
}

// TestDiscRecoversWeights: data drawn from known weights, where the
// conditional likelihood's optimum has a closed form (independent persons:
// w₂ = logit of the fraction of non-smokers with cancer, w₁ + w₂ = logit of
// the smokers' fraction); MC-SAT learning finds it, and it is near the
// weights the data were drawn from.
func TestDiscRecoversWeights(t *testing.T) {
	const n = 1000
	w1, w2 := 1.5, -1.0
	rng := rand.New(rand.NewPCG(11, 12))
	var b strings.Builder
	var ns, nsc, nn, nnc float64
	sig := func(x float64) float64 { return 1 / (1 + math.Exp(-x)) }
	for i := range n {
		smokes := rng.Float64() < 0.5
		p := sig(w2)
		if smokes {
			p = sig(w1 + w2)
			fmt.Fprintf(&b, "Smokes(P%d)\n", i)
			ns++
		} else {
			nn++
		}
		if rng.Float64() < p {
			fmt.Fprintf(&b, "Cancer(P%d)\n", i)
			if smokes {
				nsc++
			} else {
				nnc++
			}
		} else {
			fmt.Fprintf(&b, "!Cancer(P%d)\n", i)
		}
	}
	logit := func(p float64) float64 { return math.Log(p / (1 - p)) }
	opt2 := logit(nnc / nn)
	opt1 := logit(nsc/ns) - opt2
	if math.Abs(opt1-w1) > 0.4 || math.Abs(opt2-w2) > 0.3 {
		t.Fatalf("closed-form optimum (%v, %v) far from the generating weights (%v, %v)", opt1, opt2, w1, w2)
	}
	m := parse(t, "Smokes(person)\nCancer(person)\n0 Smokes(x) => Cancer(x)\n0 Cancer(x)\n")
	db, err := mlnfile.ReadDB(strings.NewReader(b.String()), "synthetic.db", m)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Discriminative(context.Background(), m, []*mln.DB{db}, nil, DiscOptions{NE: []string{"Cancer"}, PriorStdDev: -1, Seed: 4, NoPLLInit: true, MaxIter: 100})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("learned %v (%s, %d iterations), closed-form optimum (%v, %v), generating (%v, %v)", r.Weights, r.Status, r.Iterations, opt1, opt2, w1, w2)
	if math.Abs(r.Weights[0]-opt1) > 0.05 || math.Abs(r.Weights[1]-opt2) > 0.05 {
		t.Errorf("learned %v, closed-form optimum (%v, %v)", r.Weights, opt1, opt2)
	}
	if !r.Converged {
		t.Errorf("not converged: %s", r.Status)
	}
}

// discOptimum is the exact optimum of the conditional likelihood of
// discModel's Cancer given discData (prior σ = 2), by Newton's method on
// the enumerated objective (exactCLL, independent of the learner).
func discOptimum(t *testing.T, m *mln.MLN) []float64 {
	t.Helper()
	k := len(m.Formulas)
	w := make([]float64, k)
	for range 30 {
		_, g := exactCLL(t, m, discData, "Cancer", w, 2)
		h := make([][]float64, k)
		for a := range k {
			wp := append([]float64(nil), w...)
			wp[a] += 1e-5
			_, gp := exactCLL(t, m, discData, "Cancer", wp, 2)
			h[a] = make([]float64, k)
			for b := range k {
				h[a][b] = (gp[b] - g[b]) / 1e-5
			}
		}
		step := solve(h, g)
		for j := range k {
			w[j] -= step[j]
		}
	}
	if _, g := exactCLL(t, m, discData, "Cancer", w, 2); maxAbs(g) > 1e-8 {
		t.Fatalf("reference Newton did not converge: gradient %v", g)
	}
	return w
}

// TestDiscOptimisers: scaled conjugate gradient and the voted perceptron
// reach the exact optimum with exact counts (enumeration), and SCG with
// MC-SAT counts comes near it.
func TestDiscOptimisers(t *testing.T) {
	m := parse(t, discModel)
	db, err := mlnfile.ReadDB(strings.NewReader(discData), "data.db", m)
	if err != nil {
		t.Fatal(err)
	}
	wOpt := discOptimum(t, m)
	cllOpt, _ := exactCLL(t, m, discData, "Cancer", wOpt, 2)
	for _, c := range []struct {
		name string
		o    DiscOptions
		tol  float64 // on the weights
	}{
		{"scg exact", DiscOptions{Method: "scg", GradTol: 1e-9, StepTol: 1e-9, MaxIter: 500}, 1e-5},
		{"vp exact", DiscOptions{Method: "vp", LearningRate: 0.2, NoPLLInit: true, MaxIter: 3000, GradTol: 1e-9, StepTol: 1e-4}, 0.01},
		{"scg MC-SAT", DiscOptions{Method: "scg", ExactVars: -1, Samples: 2000, MaxIter: 40, Seed: 3}, 0.5},
	} {
		c.o.NE, c.o.PriorStdDev = []string{"Cancer"}, 2
		r, err := Discriminative(context.Background(), m, []*mln.DB{db}, nil, c.o)
		if err != nil {
			t.Fatal(err)
		}
		cll, g := exactCLL(t, m, discData, "Cancer", r.Weights, 2)
		t.Logf("%s: %v (%s, %d iterations), CLL %.6f, optimum %v CLL %.6f, exact gradient %v", c.name, r.Weights, r.Status, r.Iterations, cll, wOpt, cllOpt, g)
		for j := range wOpt {
			if math.Abs(r.Weights[j]-wOpt[j]) > c.tol {
				t.Errorf("%s: weight %d: learned %v, optimum %v", c.name, j, r.Weights[j], wOpt[j])
			}
		}
		if cllOpt-cll > 0.01 {
			t.Errorf("%s: CLL %.5f, optimum %.5f", c.name, cll, cllOpt)
		}
		if c.name == "scg exact" && (!strings.Contains(r.Status, "directions conjugate") || strings.Contains(r.Status, "; 0 of")) {
			t.Errorf("scg with exact counts took no conjugate direction: %s", r.Status)
		}
	}
	if _, err := Discriminative(context.Background(), m, []*mln.DB{db}, nil, DiscOptions{NE: []string{"Cancer"}, Method: "newton"}); err == nil {
		t.Error("an unknown optimiser was accepted")
	}
}

// TestDiscConvergenceCalibrated: the convergence test is not fooled by a
// chain that never moves. Started at the data, such a chain's counts are
// the data's, so at the prior mean (weights 0, no pseudo-likelihood start)
// the gradient is exactly 0 — the uncalibrated test said "converged" at
// once. The check chains start with every query atom false and disagree.
// With chains that do move, a claim of convergence is checked against the
// exact optimum.
func TestDiscConvergenceCalibrated(t *testing.T) {
	m := parse(t, discModel)
	db, err := mlnfile.ReadDB(strings.NewReader(discData), "data.db", m)
	if err != nil {
		t.Fatal(err)
	}
	zero := make([]float64, len(m.Formulas))
	o := DiscOptions{NE: []string{"Cancer"}, PriorStdDev: 2, ExactVars: -1, Init: zero, MaxIter: 3, Samples: 200, frozen: true}
	r, err := Discriminative(context.Background(), m, []*mln.DB{db}, nil, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("frozen chains: %v (%s)", r.Weights, r.Status)
	if r.Converged {
		t.Errorf("chains that never move: claimed converged (%s)", r.Status)
	}
	if !strings.Contains(r.Status, "not on fresh chains") {
		t.Errorf("status does not say the check failed: %s", r.Status)
	}
	wOpt := discOptimum(t, m)
	conv := 0
	for seed := range uint64(4) {
		r, err := Discriminative(context.Background(), m, []*mln.DB{db}, nil, DiscOptions{NE: []string{"Cancer"}, PriorStdDev: 2, ExactVars: -1, Samples: 2000, MaxIter: 40, Seed: 10 + seed})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("seed %d: %v (%s, %d iterations), optimum %v", seed, r.Weights, r.Status, r.Iterations, wOpt)
		if !r.Converged {
			continue
		}
		conv++
		// converged: every gradient component within two standard errors
		// of 0 on two independent chains, so each weight is within a few
		// Newton steps of that size of the optimum
		for j := range wOpt {
			if math.Abs(r.Weights[j]-wOpt[j]) > 0.3 {
				t.Errorf("seed %d: claimed converged at weight %d = %v, optimum %v", seed, j, r.Weights[j], wOpt[j])
			}
		}
	}
	if conv == 0 {
		t.Error("never converged with 2000 MC-SAT samples per iteration on a 4-atom model")
	}
}
