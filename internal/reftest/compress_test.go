package reftest

import (
	"testing"
	"time"

	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/infer/bp"
)

// TestCompression runs colour passing on highly symmetric models: it must
// merge variables and factors, and lifted flooding BP must equal ground
// flooding BP to 1e-9. Where the shared data records the size Horus's
// counting BP (the same colour passing) lifts a model to, the counts must
// match it (uai/SOURCE.txt: relational_3 with its evidence to 60 variables and
// 120 factors, relational_4 to 5 and 7). Alchemy_11 comes twice: as UAI and as
// libDAI's conversion, which lists each factor's variables sorted by label and
// transposes its table to match; both must compress alike (4 and 7).
func TestCompression(t *testing.T) {
	models := []struct {
		name  string
		load  func(t *testing.T) (*fg.Graph, fg.Evidence)
		nodes int // expected clusternodes, 0 if no reference
		facs  int // expected clusterfactors
		ref   string
	}{
		{"horus_smokers27", func(t *testing.T) (*fg.Graph, fg.Evidence) {
			m := readFG(t, "horus_smokers27.fg")
			return m.Graph, nil
		}, 0, 0, ""},
		{"relational_3", func(t *testing.T) (*fg.Graph, fg.Evidence) { return readUAI(t, "relational_3") }, 60, 120, "Horus's counting BP"},
		{"relational_4", func(t *testing.T) (*fg.Graph, fg.Evidence) { return readUAI(t, "relational_4") }, 5, 7, "Horus's counting BP"},
		{"Alchemy_11.uai", func(t *testing.T) (*fg.Graph, fg.Evidence) {
			g, _ := readUAI(t, "Alchemy_11")
			return g, nil
		}, 4, 7, "the same model compressed from Alchemy_11.fg"},
		{"Alchemy_11.fg", func(t *testing.T) (*fg.Graph, fg.Evidence) {
			m := readFG(t, "Alchemy_11.fg")
			return m.Graph, nil
		}, 4, 7, "the same model compressed from Alchemy_11.uai"},
	}
	for _, m := range models {
		t.Run(m.name, func(t *testing.T) {
			g, ev := m.load(t)
			observed := 0
			for _, x := range ev {
				if x >= 0 {
					observed++
				}
			}
			start := time.Now()
			lc := compress(t, g, ev)
			t.Logf("%d variables (%d observed), %d factors → %d clusternodes, %d clusterfactors (%.3fs)",
				g.NumVars(), observed, g.NumFactors(), lc.NumNodes(), lc.NumFactors(), time.Since(start).Seconds())
			if lc.NumNodes() >= g.NumVars() || lc.NumFactors() >= g.NumFactors() {
				t.Errorf("no compression: %d variables → %d clusternodes, %d factors → %d clusterfactors",
					g.NumVars(), lc.NumNodes(), g.NumFactors(), lc.NumFactors())
			}
			if m.nodes > 0 && (lc.NumNodes() != m.nodes || lc.NumFactors() != m.facs) {
				t.Errorf("%d clusternodes and %d clusterfactors; %s gets %d and %d",
					lc.NumNodes(), lc.NumFactors(), m.ref, m.nodes, m.facs)
			}
			start = time.Now()
			gr := runBP(t, ground(t, g, ev), bp.Flood)
			gt := time.Since(start)
			start = time.Now()
			lr := runBP(t, lc, bp.Flood)
			lt := time.Since(start)
			t.Logf("flood: ground %d iterations (converged %v) in %.3fs, lifted %d (converged %v) in %.3fs",
				gr.Iterations, gr.Converged, gt.Seconds(), lr.Iterations, lr.Converged, lt.Seconds())
			checkLiftedEqualsGround(t, m.name, gr, lr, g.NumVars())
		})
	}
}
