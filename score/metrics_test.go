package score

import (
	"math"
	"math/rand/v2"
	"testing"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-12 }

// The Davis–Goadrich area on rankings worked by hand.
func TestAUCPRByHand(t *testing.T) {
	for _, c := range []struct {
		name string
		p    []float64
		y    []bool
		want float64
	}{
		// points (r, p): (1/2, 1), (1/2, 1/2), (1, 2/3), (1, 1/2)
		{"distinct", []float64{0.9, 0.8, 0.7, 0.6}, []bool{true, false, true, false}, 0.5 + 0.5*(0.5+2.0/3)/2},
		// one tied group of 2 true and 2 false, then 1 and 1: (1,1) is put
		// first; precision 1/2 at recall 1/3, 2/3 and 1
		{"ties", []float64{0.9, 0.9, 0.9, 0.9, 0.1, 0.1}, []bool{true, true, false, false, true, false}, 0.5},
		// (1 true, 0 false), then a tie of 2 true and 4 false: the curve
		// passes through (2 true, 2 false): 1/3 + 1/4 + 13/84 = 31/42
		{"interpolated", []float64{0.9, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5}, []bool{true, true, true, false, false, false, false}, 31.0 / 42},
		// every atom tied: precision is the base rate everywhere
		{"all tied", []float64{0.3, 0.3, 0.3, 0.3, 0.3}, []bool{true, false, false, false, false}, 0.2},
		{"perfect", []float64{0.9, 0.8, 0.2, 0.1}, []bool{true, true, false, false}, 1},
	} {
		if got := AUCPR(c.p, c.y); !near(got, c.want) {
			t.Errorf("%s: AUC-PR %.15g, want %.15g", c.name, got, c.want)
		}
	}
	if !math.IsNaN(AUCPR([]float64{0.5}, []bool{false})) {
		t.Error("AUC-PR without a true atom should be NaN")
	}
}

// AUC-ROC against the Mann–Whitney count over all pairs (ties one half),
// on random scores with many ties.
func TestAUCROCMannWhitney(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 50 {
		n := 2 + rng.IntN(40)
		p := make([]float64, n)
		y := make([]bool, n)
		for i := range p {
			p[i] = float64(rng.IntN(5)) / 4
			y[i] = rng.Float64() < 0.3
		}
		y[0], y[1] = true, false
		s, pairs := 0.0, 0.0
		for i := range p {
			for j := range p {
				if y[i] && !y[j] {
					pairs++
					switch {
					case p[i] > p[j]:
						s++
					case p[i] == p[j]:
						s += 0.5
					}
				}
			}
		}
		if got := AUCROC(p, y); !near(got, s/pairs) {
			t.Fatalf("trial %d: AUC-ROC %g, Mann-Whitney %g", trial, got, s/pairs)
		}
	}
}

func TestComputeByHand(t *testing.T) {
	p := []float64{0.9, 0.6, 0.4, 0.0, 1.0}
	y := []bool{true, false, true, false, false}
	m := Compute(p, y, 1e-4)
	// log .9 + log(1-.6) + log .4 + log(1-1e-4) + log 1e-4, over 5
	cll := (math.Log(0.9) + math.Log(0.4) + math.Log(0.4) + math.Log(1-1e-4) + math.Log(1e-4)) / 5
	brier := (0.01 + 0.36 + 0.36 + 0 + 1) / 5
	// predicted true: 0.9 (tp), 0.6 (fp), 1.0 (fp); 0.4 is a fn
	f1 := 2.0 * 1 / (2*1 + 2 + 1)
	for _, c := range []struct {
		name      string
		got, want float64
	}{{"CLL", float64(m.CLL), cll}, {"Brier", float64(m.Brier), brier}, {"accuracy", float64(m.Accuracy), 2.0 / 5}, {"F1", float64(m.F1), f1}} {
		if !near(c.got, c.want) {
			t.Errorf("%s %g, want %g", c.name, c.got, c.want)
		}
	}
	if m.Atoms != 5 || m.Positives != 2 {
		t.Errorf("atoms %d, true %d", m.Atoms, m.Positives)
	}
	if got := CLL([]float64{0}, []bool{true}, -1); !math.IsInf(got, -1) {
		t.Errorf("unclipped CLL of a true atom at 0: %g, want -Inf", got)
	}
}
