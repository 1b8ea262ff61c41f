package calib

import (
	"context"
	"testing"

	"github.com/lifted-dev/lifted/infer"
)

// TestCalibrationClasses is issue 35's calibration: the model classes the
// samplers used to refuse — frustrated grids, perfect matchings,
// permutations, symmetric pairs — each with the samplers meant for it and
// the general ones, several seeds, against exact marginals (enumeration,
// or the matchings' closed form). As TestCalibration: no run labelled
// mixed may be off by more than 0.1 anywhere, at least 95% of the mixed
// runs' marginals must be within K standard errors + 1/N, and the sampler
// meant for a class must label some runs mixed there (so the check is not
// vacuous).
func TestCalibrationClasses(t *testing.T) {
	seeds := 2
	if testing.Short() {
		seeds = 1
	}
	var all []Model
	all = append(all, Grids(21, 3, 2)...)
	ms, err := Matchings(1.5, 4, 6)
	if err != nil {
		t.Fatal(err)
	}
	all = append(all, ms...)
	ps, err := Permutations(22, 3, 2)
	if err != nil {
		t.Fatal(err)
	}
	all = append(all, ps...)
	sp, err := SymmetricPairs(23, 2)
	if err != nil {
		t.Fatal(err)
	}
	all = append(all, sp...)
	methods := map[string][]string{
		"grid3x3":  {"gibbs", "tempering", "swendsen-wang", "tree-gibbs"},
		"matching": {"gibbs", "mcsat", "orbital"},
		"perm3":    {"gibbs", "mcsat", "orbital", "swap"},
		"sympairs": {"gibbs", "mcsat", "orbital", "tempering"},
	}
	// the sampler that must answer each class (labelled mixed at least once)
	must := map[string]string{"grid3x3": "tempering", "matching": "orbital", "perm3": "swap", "sympairs": "orbital"}
	ctx := context.Background()
	tallies := map[[2]string]*Tally{}
	var order [][2]string
	for _, m := range all {
		class := m.Family
		if len(class) > 8 && class[:8] == "matching" {
			class = "matching"
		}
		for _, meth := range methods[class] {
			key := [2]string{class, meth}
			tl := tallies[key]
			if tl == nil {
				tl = &Tally{}
				tallies[key] = tl
				order = append(order, key)
			}
			for s := range seeds {
				r := Do(ctx, m, meth, infer.Properties{}, uint64(200+s))
				tl.Add(r)
				if r.Err != nil {
					t.Logf("%s on %s model %d seed %d: %v", meth, m.Family, m.Index, r.Seed, r.Err)
				}
				if r.Mixed && r.MaxErr > 0.1 {
					t.Errorf("%s on %s model %d seed %d: labelled mixed (R-hat %.4f) but off by %.3f", meth, m.Family, m.Index, r.Seed, r.RHat, r.MaxErr)
				}
			}
		}
	}
	for _, key := range order {
		tl := tallies[key]
		t.Logf("%-9s %-14s runs %3d, errors %d, refused %3d, mixed %3d (all within %d SE: %3d), pairs within %d/%d (%.3f), max error mixed %.3f, all %.3f",
			key[0], key[1], tl.Runs, tl.Errors, tl.Runs-tl.Errors-tl.Mixed, tl.Mixed, K, tl.MixedWithin, tl.Within, tl.Pairs, tl.Fraction(), tl.MaxErrMixed, tl.MaxErr)
		if tl.Fraction() < 0.95 {
			t.Errorf("%s on %s: only %.3f of the mixed runs' marginals within %d standard errors + 1/N, want ≥ 0.95", key[1], key[0], tl.Fraction(), K)
		}
		if must[key[0]] == key[1] && tl.Mixed == 0 {
			t.Errorf("%s on %s: no run labelled mixed", key[1], key[0])
		}
	}
}
