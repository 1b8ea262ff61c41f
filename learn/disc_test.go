package learn

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	mlnfile "github.com/lifted-dev/lifted/format/mlnfile"
	"github.com/lifted-dev/lifted/internal/shareddata"
	"github.com/lifted-dev/lifted/mln"
)

const discModel = `Smokes(person)
Cancer(person)
Friends(person, person)
0.5 Smokes(x) => Cancer(x)
0.3 Friends(x,y) ^ Cancer(x) => Cancer(y)
-0.2 Cancer(x)
Cancer(x) ^ Friends(x,y) ^ Smokes(y)
`

const discData = `Smokes(A)
Smokes(C)
Friends(A,B)
Friends(B,C)
Friends(C,A)
Friends(C,D)
Cancer(A)
Cancer(B)
Cancer(C)
`

// exactCLL computes the conditional log-likelihood of the NE atoms' data
// values given the evidence, and its gradient, by enumerating every
// assignment of the query atoms and counting each world's true groundings
// with CountDB (independent of the learner's ground networks). Prior as in
// the learner.
func exactCLL(t *testing.T, m *mln.MLN, data string, ne string, w []float64, sd float64) (float64, []float64) {
	t.Helper()
	db, err := mlnfile.ReadDB(strings.NewReader(data), "data.db", m)
	if err != nil {
		t.Fatal(err)
	}
	var evLines, qLines []string
	for _, l := range strings.Split(strings.TrimSpace(data), "\n") {
		if strings.HasPrefix(l, ne+"(") {
			qLines = append(qLines, l)
		} else {
			evLines = append(evLines, l)
		}
	}
	dom := db.Domain("person")
	var atoms []string
	for _, c := range dom {
		atoms = append(atoms, fmt.Sprintf("%s(%s)", ne, c))
	}
	nData, err := CountDB(m, db, "data")
	if err != nil {
		t.Fatal(err)
	}
	k := len(m.Formulas)
	logZ := math.Inf(-1)
	var lws []float64
	var ns [][]float64
	for mask := 0; mask < 1<<len(atoms); mask++ {
		lines := append([]string(nil), evLines...)
		for i, a := range atoms {
			if mask&(1<<i) != 0 {
				lines = append(lines, a)
			}
		}
		wdb, err := mlnfile.ReadDB(strings.NewReader(strings.Join(lines, "\n")+"\n"), "w.db", m)
		if err != nil {
			t.Fatal(err)
		}
		if len(wdb.Domain("person")) != len(dom) {
			t.Fatal("domain changed")
		}
		c, err := CountDB(m, wdb, "w")
		if err != nil {
			t.Fatal(err)
		}
		lw := 0.0
		for j := range k {
			lw += w[j] * c.Counts[j]
		}
		lws = append(lws, lw)
		ns = append(ns, c.Counts)
		logZ = logAdd(logZ, lw)
	}
	cll := -logZ
	grad := make([]float64, k)
	for j := range k {
		cll += w[j] * nData.Counts[j]
		grad[j] = nData.Counts[j]
		for i := range lws {
			grad[j] -= math.Exp(lws[i]-logZ) * ns[i][j]
		}
		cll -= 0.5 * w[j] * w[j] / (sd * sd)
		grad[j] -= w[j] / (sd * sd)
	}
	return cll, grad
}

func logAdd(a, b float64) float64 {
	if math.IsInf(a, -1) {
		return b
	}
	if a < b {
		a, b = b, a
	}
	return a + math.Log1p(math.Exp(b-a))
}

func TestDiscriminativeExact(t *testing.T) {
	m := parse(t, discModel)
	db, err := mlnfile.ReadDB(strings.NewReader(discData), "data.db", m)
	if err != nil {
		t.Fatal(err)
	}
	// The exact optimum by Newton's method on the enumerated objective
	// (numerical Hessian from exact gradients).
	k := len(m.Formulas)
	wOpt := make([]float64, k)
	for it := 0; it < 30; it++ {
		_, g := exactCLL(t, m, discData, "Cancer", wOpt, 2)
		h := make([][]float64, k)
		for a := range k {
			wp := append([]float64(nil), wOpt...)
			wp[a] += 1e-5
			_, gp := exactCLL(t, m, discData, "Cancer", wp, 2)
			h[a] = make([]float64, k)
			for b := range k {
				h[a][b] = (gp[b] - g[b]) / 1e-5
			}
		}
		step := solve(h, g)
		for j := range k {
			wOpt[j] -= step[j]
		}
	}
	if _, g := exactCLL(t, m, discData, "Cancer", wOpt, 2); maxAbs(g) > 1e-8 {
		t.Fatalf("reference Newton did not converge: gradient %v", g)
	}
	r, err := Discriminative(context.Background(), m, []*mln.DB{db}, nil, DiscOptions{NE: []string{"Cancer"}, PriorStdDev: 2, GradTol: 1e-9, StepTol: 1e-9, MaxIter: 500})
	if err != nil {
		t.Fatal(err)
	}
	_, g := exactCLL(t, m, discData, "Cancer", r.Weights, 2)
	t.Logf("learned %v (%s, %d iterations), optimum %v, exact gradient %v", r.Weights, r.Status, r.Iterations, wOpt, g)
	if maxAbs(g) > 1e-6 {
		t.Errorf("exact gradient at the learned weights %v, want ≈ 0", g)
	}
	for j := range k {
		if math.Abs(r.Weights[j]-wOpt[j]) > 1e-5 {
			t.Errorf("weight %d: learned %v, optimum %v", j, r.Weights[j], wOpt[j])
		}
	}
	// MC-SAT expected counts: the weights approach the optimum.
	r, err = Discriminative(context.Background(), m, []*mln.DB{db}, nil, DiscOptions{NE: []string{"Cancer"}, PriorStdDev: 2, ExactVars: -1, Samples: 2000, MaxIter: 40, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	cllOpt, _ := exactCLL(t, m, discData, "Cancer", wOpt, 2)
	cll, g := exactCLL(t, m, discData, "Cancer", r.Weights, 2)
	t.Logf("MC-SAT: learned %v, CLL %.5f (optimum %.5f), exact gradient %v", r.Weights, cll, cllOpt, g)
	if cllOpt-cll > 0.01 {
		t.Errorf("MC-SAT learning reached CLL %.5f, optimum %.5f", cll, cllOpt)
	}
	if maxAbs(g) > 0.15 {
		t.Errorf("exact gradient at the MC-SAT weights %v", g)
	}
}

func maxAbs(x []float64) float64 {
	m := 0.0
	for _, v := range x {
		m = math.Max(m, math.Abs(v))
	}
	return m
}

// solve solves a x = b by Gaussian elimination with partial pivoting.
func solve(a [][]float64, b []float64) []float64 {
	n := len(b)
	m := make([][]float64, n)
	for i := range n {
		m[i] = append(append([]float64(nil), a[i]...), b[i])
	}
	for c := range n {
		p := c
		for r := c + 1; r < n; r++ {
			if math.Abs(m[r][c]) > math.Abs(m[p][c]) {
				p = r
			}
		}
		m[c], m[p] = m[p], m[c]
		for r := c + 1; r < n; r++ {
			f := m[r][c] / m[c][c]
			for k := c; k <= n; k++ {
				m[r][k] -= f * m[c][k]
			}
		}
	}
	x := make([]float64, n)
	for i := n - 1; i >= 0; i-- {
		s := m[i][n]
		for k := i + 1; k < n; k++ {
			s -= m[i][k] * x[k]
		}
		x[i] = s / m[i][i]
	}
	return x
}

// TestDiscriminativeUWCSECounts checks the learner's counting of the data
// on UW-CSE (ground formulas the evidence leaves open, plus those it makes
// true) against CountDB's count of every grounding.
func TestDiscriminativeUWCSECounts(t *testing.T) {
	dir := filepath.Dir(shareddata.Need(t, "mln", "uwcse", "tuffy-cse", "prog.mln")) + "/"
	m, err := mlnfile.ParseFile(dir + "prog.mln")
	if err != nil {
		t.Fatal(err)
	}
	db, err := mlnfile.ReadDBFiles(m, dir+"evidence.db")
	if err != nil {
		t.Fatal(err)
	}
	p, err := newDiscProblem(context.Background(), m, db, []string{"advisedBy"}, learnable(m), 0)
	if err != nil {
		t.Fatal(err)
	}
	want, err := CountDB(m, db, "uwcse")
	if err != nil {
		t.Fatal(err)
	}
	byEv := map[int]float64{}
	for _, s := range p.count.Formulas {
		byEv[s.Formula] += s.TrueByEv
	}
	stars := 0
	for j := range m.Formulas {
		if got := p.data[j] + byEv[j]; got != want.Counts[j] {
			t.Errorf("formula %d %q: %v open + %v true by evidence, CountDB %v", j+1, m.Formulas[j].Text, p.data[j], byEv[j], want.Counts[j])
		}
	}
	stars = len(p.starForm)
	if stars == 0 {
		t.Error("no ground formula with an auxiliary variable: the EXIST formulas should have some")
	}
}

// Where the query atoms are independent given the evidence (no formula
// has two Cancer atoms), the conditional pseudo-likelihood is the
// conditional likelihood: Discriminative's starting weights alone
// (MaxIter < 0) are the exact optimum, checked by the enumerated gradient.
func TestDiscriminativePLLStartIndependent(t *testing.T) {
	model := `Smokes(person)
Cancer(person)
Friends(person, person)
0.5 Smokes(x) => Cancer(x)
-0.2 Cancer(x)
Cancer(x) ^ Friends(x,y) ^ Smokes(y)
`
	m := parse(t, model)
	db, err := mlnfile.ReadDB(strings.NewReader(discData), "data.db", m)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Discriminative(context.Background(), m, []*mln.DB{db}, nil, DiscOptions{NE: []string{"Cancer"}, PriorStdDev: 2, MaxIter: -1})
	if err != nil {
		t.Fatal(err)
	}
	if r.Iterations != 0 || !strings.Contains(r.Status, "conditional pseudo-likelihood") {
		t.Errorf("status %q after %d iterations", r.Status, r.Iterations)
	}
	if _, g := exactCLL(t, m, discData, "Cancer", r.Weights, 2); maxAbs(g) > 1e-5 {
		t.Errorf("exact conditional gradient at the pseudo-likelihood's optimum %v: %v, want ≈ 0", r.Weights, g)
	}
	// with coupled query atoms it is only a start: not the optimum
	m = parse(t, discModel)
	db, _ = mlnfile.ReadDB(strings.NewReader(discData), "data.db", m)
	r, err = Discriminative(context.Background(), m, []*mln.DB{db}, nil, DiscOptions{NE: []string{"Cancer"}, PriorStdDev: 2, MaxIter: -1})
	if err != nil {
		t.Fatal(err)
	}
	if _, g := exactCLL(t, m, discData, "Cancer", r.Weights, 2); maxAbs(g) < 1e-3 {
		t.Errorf("coupled model: the pseudo-likelihood's optimum has exact gradient %v: the test cannot tell them apart", g)
	}
}

// Cancelling the context mid-learning returns the weights so far, marked
// interrupted.
func TestDiscriminativeInterrupted(t *testing.T) {
	m := parse(t, discModel)
	db, err := mlnfile.ReadDB(strings.NewReader(discData), "data.db", m)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r, err := Discriminative(ctx, m, []*mln.DB{db}, nil, DiscOptions{NE: []string{"Cancer"}, ExactVars: -1, Samples: 20, MaxIter: 50, Seed: 1, NoPLLInit: true, StepTol: 1e-12,
		Progress: func(p DiscProgress) {
			if p.Iter == 2 {
				cancel()
			}
		}})
	if err != nil || r == nil || !r.Interrupted {
		t.Fatalf("got %+v, %v; want the weights so far, marked interrupted", r, err)
	}
	if len(r.Weights) != len(m.Formulas) || !strings.HasPrefix(r.Status, "interrupted after 2 iterations") {
		t.Errorf("weights %v, status %q", r.Weights, r.Status)
	}
}
