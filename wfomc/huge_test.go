package wfomc

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	mlnfile "github.com/lifted-dev/lifted/format/mlnfile"
)

// hugeWeight draws a weight for the huge-weight test: small, one of a few
// magnitudes up to 1e300 that models use for near-hard formulas (often
// shared by several formulas), or any magnitude up to 1e300.
func hugeWeight(r *rand.Rand) float64 {
	s := 1.0
	if r.IntN(2) == 0 {
		s = -1
	}
	switch r.IntN(8) {
	case 0, 1, 2:
		return -2 + 4*r.Float64()
	case 3, 4, 5:
		return s * []float64{1e16, 1e300, 2e16, 1e6, 1e10, 3e300, 1e100, 1e20}[r.IntN(8)]
	default:
		return s * math.Pow(10, 300*r.Float64())
	}
}

// TestHugeWeightsAgainstBruteForce: random FO2 models with weights up to
// ±1e300, against enumeration with exact log weights. Each answer either
// matches to 1e-9 or is refused with a PrecisionError (never an inexact
// answer). Weights of incommensurable magnitudes within a factor of the
// number of groundings of one another (1e200 and 3.7e199) are refused:
// which worlds dominate depends on digits beyond double precision.
func TestHugeWeightsAgainstBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 36))
	models := 160
	if testing.Short() {
		models = 60
	}
	checked, refused := 0, 0
	for i := 0; i < models; i++ {
		src, sizes := randomMLN(r)
		m, err := mlnfile.Parse("random.mln", []byte(src))
		if err != nil {
			continue
		}
		w := newBruteWorld(m, sizes)
		if len(w.atoms) > 16 {
			continue
		}
		weights := make([]float64, len(m.Formulas))
		for j := range weights {
			weights[j] = hugeWeight(r)
		}
		var ev []Literal
		var qs []string
		if r.IntN(2) == 0 {
			ev, qs = randomEvidence(r, w)
		}
		want := brute(m, weights, sizes, ev, qs, nil)
		if want.logZ != want.logZ || want.logZ < -1e300 {
			continue
		}
		name := fmt.Sprintf("model %d (sizes %v, weights %v, evidence %v, queries %v)", i, sizes, weights, ev, qs)
		opt := &Options{Evidence: ev}
		for _, q := range qs {
			pq, err := ParseQuery(m, q)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			opt.Queries = append(opt.Queries, pq)
		}
		mod, err := Compile(m, opt)
		if err != nil {
			t.Fatalf("%s: compile: %v\n%s", name, err, m)
		}
		got, err := mod.Evaluate(weights, sizes)
		var pe *PrecisionError
		if errors.As(err, &pe) {
			refused++
			t.Logf("refused %v: %v", weights, err)
			continue
		}
		if err != nil {
			t.Fatalf("%s: evaluate: %v\n%s", name, err, m)
		}
		checked++
		const tol = 1e-9
		if !near(got.LogZ, want.logZ, tol) {
			t.Errorf("%s: log Z = %.17g, brute force %.17g\n%s", name, got.LogZ, want.logZ, m)
		}
		for j := range want.counts {
			if !near(got.ExpectedCounts[j], want.counts[j], tol) {
				t.Errorf("%s: E[n_%d] (%s) = %.15g, brute force %.15g\n%s", name, j+1, m.Formulas[j].Text, got.ExpectedCounts[j], want.counts[j], m)
			}
		}
		for k := range want.marginal {
			if math.Abs(got.Marginals[k]-want.marginal[k]) > tol {
				t.Errorf("%s: P(%s) = %.15g, brute force %.15g\n%s", name, qs[k], got.Marginals[k], want.marginal[k], m)
			}
		}
	}
	t.Logf("%d random models with huge weights matched brute force, %d refused as imprecise", checked, refused)
	if checked < 10*refused || checked < models/3 {
		t.Fatalf("only %d models answered (%d refused)", checked, refused)
	}
}

// TestHugeWeightIssue36: w Smokes(x) => Cancer(x) over three named people:
// P(Cancer) = 2/3 and log Z = 3·log(3e^w + 1) at any large weight (0.5 at
// 1e16 before the logs of cell weights were double-doubles).
func TestHugeWeightIssue36(t *testing.T) {
	m := mustParse(t, "person = {A, B, C}\nSmokes(person)\nCancer(person)\n1 Smokes(x) => Cancer(x)\n")
	q, err := ParseQuery(m, "Cancer(A)")
	if err != nil {
		t.Fatal(err)
	}
	mod, err := Compile(m, &Options{Queries: []Query{q}})
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []float64{1e6, 1e14, 1e15, 1e16, 1e17, 1e100, 1e300, -1e300} {
		res, err := mod.Evaluate([]float64{w}, nil)
		if err != nil {
			t.Fatalf("w = %g: %v", w, err)
		}
		wantP, wantZ := 2.0/3, 3*w+3*math.Log(3)
		if w < 0 {
			wantP, wantZ = 0, 0 // Smokes true, Cancer false: log(1 + 3e^w) per person
		}
		if math.Abs(res.Marginals[0]-wantP) > 1e-15 || !near(res.LogZ, wantZ, 1e-15) || !res.Exact() {
			t.Errorf("w = %g: P(Cancer(A)) = %.17g (want %.17g), log Z = %.17g (want %.17g), relative error %g", w, res.Marginals[0], wantP, res.LogZ, wantZ, res.RelError)
		}
	}
}
