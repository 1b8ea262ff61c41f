package main

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// The paper's M1 on three constants with evidence (a closed-world
// predicate's atom among it is not queried).
const rstMLN = `d = {A1, A2, A3}
R(d)
S(d, d)
T(d, d)
0.8 R(x) v S(x, y)
1.2 S(x, y) v T(y, z)
`

const rstDB = `R(A1)
!S(A1, A2)
T(A2, A3)
!T(A3, A3)
`

// TestLBGUngrounded: lbg on an MLN whose clusters are all lifted and
// that has no hard formula runs without grounding it, and its answer is
// the grounded run's, bit for bit, with the same seed (the chains are the
// same: the grounding only changes how the answer is addressed), in both
// output formats; the marginals agree with enumeration within 5 standard
// errors of the Rao-Blackwellised mean (sd ≤ 1/2, at least a quarter of
// the samples effective). A model with a hard formula is grounded.
func TestLBGUngrounded(t *testing.T) {
	model := writeTemp(t, "rst.mln", rstMLN)
	db := writeTemp(t, "rst.db", rstDB)
	args := []string{"infer", "--method", "lbg", "--seed", "7", "--samples", "4000", "--burn-in", "50", "--chains", "2", "--quiet",
		"-q", "R,S,T", "-e", db, model}
	lifted, err := runCLI(t, args...)
	if err != nil {
		t.Fatal(err)
	}
	grounded, err := runCLI(t, append(args, "--construction", "ground")...)
	if err != nil {
		t.Fatal(err)
	}
	// The same estimates; the grounded run's answer also carries standard
	// errors (its closing comment line), the ungrounded one's does not.
	if noStdErrLine(lifted) != noStdErrLine(grounded) {
		t.Errorf("ungrounded run\n%s\ngrounded run\n%s", lifted, grounded)
	}
	names, got := alchemyLines(t, lifted)
	if len(names) != 3+9+9-4 {
		t.Errorf("%d query atoms printed, want 17 (the evidence atoms are not)", len(names))
	}
	exact, err := runCLI(t, "infer", "--method", "enumerate", "--quiet", "-q", "R,S,T", "-e", db, model)
	if err != nil {
		t.Fatal(err)
	}
	exNames, want := alchemyLines(t, exact)
	if strings.Join(exNames, " ") != strings.Join(names, " ") {
		t.Errorf("atoms %v, enumeration's %v", names, exNames)
	}
	tol := 5 * 0.5 / math.Sqrt(2*4000/4)
	for a, p := range got {
		if math.Abs(p-want[a]) > tol {
			t.Errorf("P(%s) = %v, enumeration %v (tolerance %.3g)", a, p, want[a], tol)
		}
	}

	js := func(args ...string) map[string]any {
		out, err := runCLI(t, append(args, "--output-format", "json")...)
		if err != nil {
			t.Fatal(err)
		}
		var v struct {
			Marginals map[string]float64 `json:"marginals"`
			Stats     map[string]any     `json:"stats"`
		}
		if err := json.Unmarshal([]byte(out), &v); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		for a, p := range v.Marginals {
			if got[a] != p && math.Abs(got[a]-p) > 1e-6 {
				t.Errorf("JSON P(%s) = %v, Alchemy output %v", a, p, got[a])
			}
		}
		if len(v.Marginals) != len(names) {
			t.Errorf("JSON has %d marginals, want %d", len(v.Marginals), len(names))
		}
		return v.Stats
	}
	st := js(args...)
	if st["lifted_construction"] != true || st["ground_atoms"] != 17.0 || st["ground_formulas"] != 3.0*3+27 ||
		!strings.Contains(st["method_reason"].(string), "not grounded") {
		t.Errorf("ungrounded run's stats %v", st)
	}
	if st := js(append(args, "--construction", "ground")...); st["lifted_construction"] != false {
		t.Errorf("--construction ground: stats %v", st)
	}

	hard := writeTemp(t, "hard.mln", hardConjunctionMLN)
	out, err := runCLI(t, "infer", "--method", "lbg", "--seed", "1", "--samples", "100", "--allow-unconverged", "--quiet", "--output-format", "json", "-q", "H,S,T", hard)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out, "not grounded") || !strings.Contains(out, `"lifted_construction":false`) {
		t.Errorf("a model with a hard formula was not grounded: %s", out)
	}
}

// noStdErrLine drops a sampler's closing "// Monte Carlo standard errors"
// line from Alchemy output.
func noStdErrLine(out string) string {
	var keep []string
	for _, l := range strings.SplitAfter(out, "\n") {
		if !strings.HasPrefix(l, "// Monte Carlo standard errors ") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "")
}
