package reftest

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/infer/bp"
	"github.com/lifted-dev/lifted/internal/shareddata"
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

// slowModels take long enough that -short skips them. The note is the CPU
// time of the whole model subtest (both schedules, ground and lifted) measured
// on the development machine; all of them run 10,000 iterations in at least
// one schedule because BP does not converge there (linkage_16: almost 7,000
// sequential iterations before it does).
var slowModels = map[string]string{
	"CSP_11":      "about 4 s: flooding does not converge",
	"Grids_11":    "about 4 s: neither schedule converges",
	"Grids_12":    "about 4 s: neither schedule converges",
	"Grids_15":    "about 16 s: neither schedule converges",
	"Pedigree_11": "about 1 s: about 300 sequential iterations",
	"linkage_16":  "about 7 s: sequential BP needs about 7,000 iterations",
}

// knownDiscrepancies are comparisons with libDAI that fail for a reason
// understood and reported, not yet resolved. They run and log every
// difference; they fail only with LIFTED_REFTEST_STRICT=1, and otherwise skip.
// A listed comparison that agrees is an error, so the list cannot go stale.
//
// bp.Sequential follows libDAI 0.3.1's SEQFIX order (factors in order, each
// factor's variables in label order), so sequential runs reach libDAI's fixed
// points too — also on DBN_11 and linkage_16, which have several BP fixed
// points between which the update order decides. Pedigree_11 remains: both
// converge to the same log Z (rel. difference 5e-11), but ours lands on the
// mirror image of libDAI's fixed point (variable 208 flipped). The model is
// symmetric and the choice between the two images is decided by rounding;
// a diagnostic BP reproduced libDAI's image only when it also multiplied
// messages in libDAI's internal order.
var knownDiscrepancies = map[string]string{
	"Pedigree_11/seq": "rounding picks the mirror image of libDAI's fixed point: " +
		"same log Z (-41.82747638), marginal of variable 208 flipped",
}

// strict reports whether known discrepancies should fail.
func strict() bool { return os.Getenv("LIFTED_REFTEST_STRICT") == "1" }

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
// reference result: one subtest per model, one per schedule below it.
func TestLibDAIBP(t *testing.T) {
	dir := dataPath(t, "uai/reference")
	files, err := filepath.Glob(filepath.Join(dir, "*.bp-*.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		shareddata.Skipf(t, "no libDAI reference files in %s", dir)
	}
	// model name → schedules with a reference file
	byModel := map[string][]string{}
	for _, f := range files {
		base := strings.TrimSuffix(filepath.Base(f), ".json")
		i := strings.LastIndex(base, ".bp-")
		byModel[base[:i]] = append(byModel[base[:i]], base[i+len(".bp-"):])
	}
	models := slices.Sorted(maps.Keys(byModel))
	for _, name := range models {
		t.Run(name, func(t *testing.T) {
			if why, ok := slowModels[name]; ok && testing.Short() {
				t.Skipf("slow (%s); skipped under -short", why)
			}
			t.Parallel()
			start := time.Now()
			g, ev := readUAI(t, name)
			gc := ground(t, g, ev)
			lc := compress(t, g, ev)
			t.Logf("%s: %d variables, %d factors; lifted: %d clusternodes, %d clusterfactors",
				name, g.NumVars(), g.NumFactors(), lc.NumNodes(), lc.NumFactors())
			for _, sched := range byModel[name] {
				ref := readReference(t, filepath.Join(dir, name+".bp-"+sched+".json"))
				t.Run(sched, func(t *testing.T) {
					checkAgainstLibDAI(t, name, sched, g, gc, lc, ref)
				})
			}
			t.Logf("%s: model total %.2fs", name, time.Since(start).Seconds())
		})
	}
}

// reporter fails a test, or, for a known discrepancy outside strict mode, only
// logs, remembering that something differed.
type reporter struct {
	t      *testing.T
	known  string
	failed bool
}

func (r *reporter) errorf(format string, args ...any) {
	r.t.Helper()
	r.failed = true
	if r.known == "" || strict() {
		r.t.Errorf(format, args...)
	} else {
		r.t.Logf("known discrepancy: "+format, args...)
	}
}

// finish turns a logged known discrepancy into a skip and flags a listed one
// that no longer occurs.
func (r *reporter) finish() {
	r.t.Helper()
	switch {
	case r.known == "" || strict():
	case r.failed:
		r.t.Skipf("known discrepancy (%s), differences logged above; set LIFTED_REFTEST_STRICT=1 to fail on it", r.known)
	default:
		r.t.Errorf("listed in knownDiscrepancies (%s) but agrees with libDAI now: remove it from the list", r.known)
	}
}

func checkAgainstLibDAI(t *testing.T, name, sched string, g *fg.Graph, gc, lc *lift.Compressed, ref *bpReference) {
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
	rep := &reporter{t: t, known: knownDiscrepancies[name+"/"+sched]}

	results := map[string]*bp.Result{}
	for _, mode := range []struct {
		name string
		c    *lift.Compressed
	}{{"ground", gc}, {"lifted", lc}} {
		start := time.Now()
		r := runBP(t, mode.c, s)
		results[mode.name] = r
		w := maxDiff(r, n, want)
		t.Logf("%s %s %s: iterations ours %d / libDAI %d, converged ours %v / libDAI %v, max |Δmarginal| %.3g (x%d=%d), log Z ours %.10g / libDAI %.10g (rel Δ %.3g), %.2fs",
			name, sched, mode.name, r.Iterations, ref.Iterations, r.Converged, ref.Converged,
			w.diff, w.v, w.x, r.LogZ, ref.BetheLogZ, relDiff(r.LogZ, ref.BetheLogZ), time.Since(start).Seconds())
		if !ref.Converged {
			// libDAI's marginals are then no fixed point; only the verdict is compared.
			if r.Converged {
				rep.errorf("%s %s %s: libDAI did not converge in %d iterations (final max change %g), but ours reports convergence after %d",
					name, sched, mode.name, ref.Iterations, ref.MaxChange, r.Iterations)
			}
			continue
		}
		if !r.Converged {
			rep.errorf("%s %s %s: libDAI converged in %d iterations, ours did not in %d (final max change %g)",
				name, sched, mode.name, ref.Iterations, r.Iterations, r.MaxChange)
		}
		if !(w.diff <= libdaiMargTol) {
			rep.errorf("%s %s %s: marginal of variable %d state %d is %.10g, libDAI %.10g (|Δ| %.3g > %g); iterations ours %d, libDAI %d",
				name, sched, mode.name, w.v, w.x, w.got, w.want, w.diff, libdaiMargTol, r.Iterations, ref.Iterations)
		}
		if d := relDiff(r.LogZ, ref.BetheLogZ); !(d <= libdaiLogZTol) {
			rep.errorf("%s %s %s: Bethe log Z %.10g, libDAI %.10g (relative Δ %.3g > %g); iterations ours %d, libDAI %d",
				name, sched, mode.name, r.LogZ, ref.BetheLogZ, d, libdaiLogZTol, r.Iterations, ref.Iterations)
		}
	}
	if s == bp.Flood {
		checkLiftedEqualsGround(t, name, results["ground"], results["lifted"], n)
	}
	rep.finish()
}

// checkLiftedEqualsGround requires lifted flooding BP to reproduce ground
// flooding BP: the same verdict, marginals and Bethe log Z to 1e-9.
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
	t.Logf("%s lifted vs ground (flood): max |Δmarginal| %.3g, rel Δ log Z %.3g, iterations %d / %d",
		name, w.diff, relDiff(lr.LogZ, gr.LogZ), lr.Iterations, gr.Iterations)
}
