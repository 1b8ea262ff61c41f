package reftest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lifted-dev/lifted/bp"
	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/lift"
)

// bpReference is a libDAI BP result as stored in uai/reference/*.json.
type bpReference struct {
	Reference  string               `json:"reference"`
	Iterations int                  `json:"iterations"`
	MaxChange  float64              `json:"max_change"`
	Converged  bool                 `json:"converged"`
	BetheLogZ  float64              `json:"bethe_logZ_ln"`
	Marginals  map[string][]float64 `json:"marginals"`
	Note       string               `json:"note"`
}

// Tolerances against libDAI where it converged.
const (
	libdaiMargTol = 1e-6 // largest absolute marginal difference
	libdaiLogZTol = 1e-6 // relative Bethe log Z difference
	liftedTol     = 1e-9 // lifted vs ground under flooding
)

// slowModels take long enough that -short skips them; the times are for the
// whole model (both schedules, ground and lifted) on 2 cores.
var slowModels = map[string]string{}

func readReference(t *testing.T, path string) *bpReference {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var r bpReference
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return &r
}

// TestLibDAIBP compares our BP with libDAI's on every UAI model that has a
// reference result.
func TestLibDAIBP(t *testing.T) {
	dir := dataPath(t, "uai/reference")
	files, err := filepath.Glob(filepath.Join(dir, "*.bp-*.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Skipf("no libDAI reference files in %s", dir)
	}
	// model name → schedules with a reference, in file order (flood first)
	byModel := map[string][]string{}
	var models []string
	for _, f := range files {
		base := strings.TrimSuffix(filepath.Base(f), ".json")
		i := strings.LastIndex(base, ".bp-")
		name, sched := base[:i], base[i+len(".bp-"):]
		if _, ok := byModel[name]; !ok {
			models = append(models, name)
		}
		byModel[name] = append(byModel[name], sched)
	}
	slices.Sort(models)
	for _, name := range models {
		t.Run(name, func(t *testing.T) {
			if why, ok := slowModels[name]; ok && testing.Short() {
				t.Skipf("slow (%s); skipped under -short", why)
			}
			start := time.Now()
			g, ev := readUAI(t, name)
			gc := ground(t, g, ev)
			lc := compress(t, g, ev)
			t.Logf("%d variables, %d factors; lifted: %d clusternodes, %d clusterfactors",
				g.NumVars(), g.NumFactors(), lc.NumNodes(), lc.NumFactors())
			for _, sched := range byModel[name] {
				ref := readReference(t, filepath.Join(dir, name+".bp-"+sched+".json"))
				t.Run(sched, func(t *testing.T) {
					checkAgainstLibDAI(t, name, sched, g, ev, gc, lc, ref)
				})
			}
			t.Logf("model total %.2fs", time.Since(start).Seconds())
		})
	}
}

func checkAgainstLibDAI(t *testing.T, name, sched string, g *fg.Graph, ev fg.Evidence, gc, lc *lift.Compressed, ref *bpReference) {
	var s bp.Schedule
	switch sched {
	case "flood":
		s = bp.Flood
	case "seq":
		s = bp.Sequential
	default:
		t.Fatalf("unknown schedule %q in reference file name", sched)
	}
	n := g.NumVars()
	if len(ref.Marginals) != n {
		t.Fatalf("reference has %d marginals for %d variables", len(ref.Marginals), n)
	}
	want := func(v int) []float64 { return ref.Marginals[strconv.Itoa(v)] }

	results := map[string]*bp.Result{}
	for _, mode := range []struct {
		name string
		c    *lift.Compressed
	}{{"ground", gc}, {"lifted", lc}} {
		start := time.Now()
		r := runBP(t, mode.c, s)
		results[mode.name] = r
		w := maxDiff(r, n, want)
		t.Logf("%s %s: iterations ours %d / libDAI %d, converged ours %v / libDAI %v, max |Δmarginal| %.3g (x%d=%d), log Z ours %.10g / libDAI %.10g (rel Δ %.3g), %.2fs",
			mode.name, sched, r.Iterations, ref.Iterations, r.Converged, ref.Converged,
			w.diff, w.v, w.x, r.LogZ, ref.BetheLogZ, relDiff(r.LogZ, ref.BetheLogZ), time.Since(start).Seconds())
		if !ref.Converged {
			if r.Converged {
				t.Errorf("%s %s %s: libDAI did not converge in %d iterations (final max change %g), but ours reports convergence after %d",
					name, sched, mode.name, ref.Iterations, ref.MaxChange, r.Iterations)
			}
			continue
		}
		if !r.Converged {
			t.Errorf("%s %s %s: libDAI converged in %d iterations, ours did not in %d (final max change %g)",
				name, sched, mode.name, ref.Iterations, r.Iterations, r.MaxChange)
		}
		if !(w.diff <= libdaiMargTol) {
			t.Errorf("%s %s %s: marginal of variable %d state %d is %.10g, libDAI %.10g (|Δ| %.3g > %g); iterations ours %d, libDAI %d",
				name, sched, mode.name, w.v, w.x, w.got, w.want, w.diff, libdaiMargTol, r.Iterations, ref.Iterations)
		}
		if d := relDiff(r.LogZ, ref.BetheLogZ); !(d <= libdaiLogZTol) {
			t.Errorf("%s %s %s: Bethe log Z %.10g, libDAI %.10g (relative Δ %.3g > %g); iterations ours %d, libDAI %d",
				name, sched, mode.name, r.LogZ, ref.BetheLogZ, d, libdaiLogZTol, r.Iterations, ref.Iterations)
		}
	}
	if s == bp.Flood {
		checkLiftedEqualsGround(t, name, results["ground"], results["lifted"], n)
	}
}

// checkLiftedEqualsGround requires lifted flooding BP to reproduce ground
// flooding BP.
func checkLiftedEqualsGround(t *testing.T, name string, gr, lr *bp.Result, n int) {
	t.Helper()
	if gr.Converged != lr.Converged {
		t.Errorf("%s flood: ground converged=%v after %d iterations, lifted converged=%v after %d",
			name, gr.Converged, gr.Iterations, lr.Converged, lr.Iterations)
	}
	w := maxDiff(lr, n, gr.Marginal)
	if !(w.diff <= liftedTol) {
		t.Errorf("%s flood: lifted marginal of variable %d state %d is %.15g, ground %.15g (|Δ| %.3g > %g); iterations lifted %d, ground %d",
			name, w.v, w.x, w.got, w.want, w.diff, liftedTol, lr.Iterations, gr.Iterations)
	}
	if d := relDiff(lr.LogZ, gr.LogZ); !(d <= liftedTol) {
		t.Errorf("%s flood: lifted Bethe log Z %.15g, ground %.15g (relative Δ %.3g > %g)", name, lr.LogZ, gr.LogZ, d, liftedTol)
	}
}
