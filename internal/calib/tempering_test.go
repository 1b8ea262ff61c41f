package calib

import (
	"context"
	"math"
	"os"
	"testing"

	"github.com/lifted-dev/lifted/engine"
	"github.com/lifted-dev/lifted/infer"
)

// TestTemperingFrustratedCalibration checks tempering with its defaults
// (4 chains, the adaptive ladder with Houdayer moves, runs extended until
// mixed up to max-samples and max-work) on frustrated 6×6 grids (couplings
// |J| in [2, 2.5] of random sign, fields in ±0.5; exact by the junction
// tree) over seeds: every run must answer labelled mixed (issue 35's aim:
// tempering answers every such grid), every marginal labelled mixed must
// be within K standard errors plus 1/N of the exact one (≥ 95% of them)
// and none off by more than 0.05. The extensions test the diagnostics
// again after every doubling, so this also checks that stopping at the
// first pass does not make the label optimistic.
func TestTemperingFrustratedCalibration(t *testing.T) {
	grids, seeds := 2, 2 // about 10 CPU s (6 runs: 14.5 CPU s, 216 marginals mixed, max error 0.023)
	if os.Getenv("CALIB_BIG") != "" {
		grids, seeds = 6, 4
	} else if testing.Short() {
		grids, seeds = 1, 1
	}
	gs, err := JTreeGrids(61, 6, grids)
	if err != nil {
		t.Fatal(err)
	}
	alg, _, err := infer.New("tempering", nil)
	if err != nil {
		t.Fatal(err)
	}
	var runs, mixedRuns, mixed, within int
	worst := 0.0
	for _, m := range gs {
		for s := range seeds {
			ans, err := infer.Run(context.Background(), alg, m.Graph, nil, infer.Options{Query: infer.Query{Task: infer.Marginals, Seed: uint64(500 + s)}})
			if err != nil {
				t.Fatalf("%s model %d seed %d: %v", m.Family, m.Index, s, err)
			}
			runs++
			if !ans.Converged {
				t.Errorf("%s model %d seed %d: not mixed after %d samples: %s", m.Family, m.Index, s, ans.Stats.Samples, ans.Stats.Mixing)
				continue
			}
			mixedRuns++
			r := &engine.Result{Task: infer.Marginals, Method: "tempering", Converged: ans.Converged, Answer: ans, Stats: infer.MLNStats{Stats: ans.Stats}}
			n := float64(max(ans.Stats.Samples, 1))
			for v := range m.Graph.NumVars() {
				st, d := r.VarStatus(v), math.Abs(ans.Marginal(v)[1]-m.Exact[v][1])
				if st.Status != engine.StatusMixed {
					t.Errorf("%s model %d seed %d variable %d: status %v in a mixed run", m.Family, m.Index, s, v, st.Status)
					continue
				}
				mixed++
				worst = max(worst, d)
				if d <= K*ans.StdErr[ans.NodeOff[ans.Graph.NodeOf[v]]+1]+1/n {
					within++
				}
				if d > 0.05 {
					t.Errorf("%s model %d seed %d variable %d: mixed but off by %.3f", m.Family, m.Index, s, v, d)
				}
			}
		}
	}
	t.Logf("tempering on frustrated 6×6 grids: %d runs, %d mixed; marginals mixed %d, within %d SE + 1/N %d, max error %.3f", runs, mixedRuns, mixed, K, within, worst)
	if float64(within) < 0.95*float64(mixed) {
		t.Errorf("%d of %d mixed marginals within %d standard errors + 1/N, want ≥ 95%%", within, mixed, K)
	}
}
