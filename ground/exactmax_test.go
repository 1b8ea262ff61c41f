package ground

import (
	"context"
	"math"
	"testing"

	"github.com/lifted-dev/lifted/internal/brute"
)

// With ExactMax the MAP of the grounding (over atoms and auxiliary
// variables) is the MLN's MAP, for large conjunctions of positive weight
// and clauses of negative weight, whose default binary mixture is exact
// for sums only; log Z is the same either way.
func TestExactMax(t *testing.T) {
	for _, c := range []struct {
		src  string
		want int32 // the MAP state of every atom
	}{
		// Σ w·n: all true 0.5; all false 13·0.01.
		{"t = {1,2,3,4,5,6,7,8,9,10,11,12,13}\nP(t)\n0.5 FORALL y P(y)\n0.01 !P(x)\n", 1},
		// A clause of negative weight: all false 13·0.01 beats 0.5 for one true atom.
		{"t = {1,2,3,4,5,6,7,8,9,10,11,12,13}\nP(t)\n-0.5 EXIST y P(y)\n0.01 P(x)\n", 0},
	} {
		m := parse(t, c.src)
		var logZ [2]float64
		for i, exactMax := range []bool{false, true} {
			gr, err := Ground(context.Background(), m, readDB(t, m, ""), Options{Query: []string{"P"}, ExactMax: exactMax})
			if err != nil {
				t.Fatal(err)
			}
			if gr.Graph.NumVars() != 14 {
				t.Fatalf("%d variables, want 13 atoms and an auxiliary one", gr.Graph.NumVars())
			}
			ex := brute.Solve(gr.Graph, nil)
			logZ[i] = ex.LogZ
			if !exactMax {
				continue
			}
			for v := range gr.NumAtoms {
				if ex.MAP[v] != c.want {
					t.Fatalf("%s: MAP %v, want every atom %d", c.src, ex.MAP[:gr.NumAtoms], c.want)
				}
			}
		}
		if math.Abs(logZ[0]-logZ[1]) > 1e-9 {
			t.Errorf("%s: log Z %v without ExactMax, %v with", c.src, logZ[0], logZ[1])
		}
	}
}
