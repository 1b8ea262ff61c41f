package calib

import (
	"context"
	"os"
	"strconv"
	"testing"

	"github.com/lifted-dev/lifted/infer"
)

// TestCalibration is issue 23's calibration test: for each sampler, many
// seeds on random frustrated Ising grids (3×3, 4×4) and random MLNs with
// hard formulas, against enumeration. Among the runs a sampler labels
// mixed (Answer.Converged), at least 95% of the (run, marginal) pairs must
// be within K = 4 stated standard errors plus 1/N of the exact marginal,
// and no mixed run may be off by more than 0.1 anywhere; runs that do not
// mix are refused (counted, logged). Each sampler must label some runs
// mixed where it can mix (the MLNs; tempering also the grids), so that
// the check is not vacuous.
//
// CALIB_BIG=1 runs the larger version of the figures (more models and
// seeds, 20000 samples); the default keeps to about a minute on 2 cores.
func TestCalibration(t *testing.T) {
	models, seeds, samples := 3, 3, 0
	if os.Getenv("CALIB_BIG") != "" {
		models, seeds, samples = 10, 5, 20000
	} else if testing.Short() {
		models, seeds = 2, 2
	}
	var all []Model
	all = append(all, Grids(11, 3, models)...)
	all = append(all, Grids(12, 4, max(models/2, 1))...)
	ms, err := MLNs(13, 2*models)
	if err != nil {
		t.Fatal(err)
	}
	all = append(all, ms...)
	ctx := context.Background()
	for _, meth := range []string{"gibbs", "mcsat", "bgibbs", "tempering", "lbg"} {
		tallies := map[string]*Tally{}
		var order []string
		for _, m := range all {
			if meth == "lbg" && m.MLN == nil {
				continue
			}
			p := infer.Properties{}
			if samples > 0 {
				p["samples"] = strconv.Itoa(samples)
			}
			tl := tallies[m.Family]
			if tl == nil {
				tl = &Tally{}
				tallies[m.Family] = tl
				order = append(order, m.Family)
			}
			for s := range seeds {
				r := Do(ctx, m, meth, p, uint64(100+s))
				tl.Add(r)
				if r.Err != nil {
					t.Logf("%s on %s model %d seed %d: %v", meth, m.Family, m.Index, r.Seed, r.Err)
				}
				if r.Mixed && r.MaxErr > 0.1 {
					t.Errorf("%s on %s model %d seed %d: labelled mixed (R-hat %.4f) but off by %.3f", meth, m.Family, m.Index, r.Seed, r.RHat, r.MaxErr)
				}
			}
		}
		mixed := 0
		for _, fam := range order {
			tl := tallies[fam]
			t.Logf("%-9s %-9s runs %3d, errors %d, refused %3d, mixed %3d (all within %d SE: %3d), pairs within %d/%d (%.3f), max error mixed %.3f, all %.3f",
				meth, fam, tl.Runs, tl.Errors, tl.Runs-tl.Errors-tl.Mixed, tl.Mixed, K, tl.MixedWithin, tl.Within, tl.Pairs, tl.Fraction(), tl.MaxErrMixed, tl.MaxErr)
			if tl.Fraction() < 0.95 {
				t.Errorf("%s on %s: only %.3f of the mixed runs' marginals within %d standard errors + 1/N, want ≥ 0.95", meth, fam, tl.Fraction(), K)
			}
			mixed += tl.Mixed
			if (fam == "mln-hard" || meth == "tempering" && fam == "grid3x3") && tl.Mixed == 0 {
				t.Errorf("%s on %s: no run labelled mixed: the check is vacuous", meth, fam)
			}
		}
	}
}
