package main

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// MAP by MaxWalkSAT from the command line: the UAI MPE format, JSON with
// the assignment and stats.objective, the same answer for the same seed,
// and "lifted map" as infer --max-product with maxwalksat by default.
func TestMaxWalkSATCommand(t *testing.T) {
	uai, evid := "../../examples/fg/smokers10.uai", "../../examples/fg/smokers10.uai.evid"
	args := []string{"infer", uai, "-e", evid, "--method", "maxwalksat", "--max-product", "--tries", "3", "--seed", "7"}
	out, stderr, code := run(t, args...)
	if code != 0 || !strings.HasPrefix(out, "MPE\n120 ") || !strings.Contains(stderr, "MAP by MaxWalkSAT, objective 125 after") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, stderr)
	}
	again, _, _ := run(t, args...)
	mapped, _, _ := run(t, "map", uai, "-e", evid, "--method", "maxwalksat", "--tries", "3", "--seed", "7")
	if again != out || mapped != out {
		t.Errorf("same seed, different worlds:\n%s\n%s\n%s", out, again, mapped)
	}
	js, _, code := run(t, append(args, "--output-format", "json")...)
	var ans struct {
		Assignment []int32
		Stats      map[string]any
	}
	if err := json.Unmarshal([]byte(js), &ans); err != nil || code != 0 {
		t.Fatalf("%v: %s", err, js)
	}
	if obj, _ := ans.Stats["objective"].(float64); len(ans.Assignment) != 120 || math.Abs(obj-125) > 1e-9 {
		t.Errorf("json: %s", js)
	}
	// Max-product BP's JSON has the objective of its world on the same
	// scale: no more than the optimum 125 (ilp proves it; map_lp_test.go).
	js, _, _ = run(t, "infer", uai, "-e", evid, "--method", "lbp", "--max-product", "--output-format", "json")
	var bpAns struct{ Objective *float64 }
	if err := json.Unmarshal([]byte(js), &bpAns); err != nil || bpAns.Objective == nil || *bpAns.Objective > 125+1e-9 || !strings.Contains(js, `"assignment":[`) {
		t.Errorf("BP json: %s", js)
	}
	// An MLN: every query atom with 0/1; map = infer --method maxwalksat --max-product.
	mln := []string{smokersMLN, "-e", smokersDB, "-q", "Smokes,Cancer", "--seed", "2"}
	a, _, code := run(t, append([]string{"map", "--method", "maxwalksat"}, mln...)...)
	b, _, _ := run(t, append([]string{"infer", "--method", "maxwalksat", "--max-product"}, mln...)...)
	if code != 0 || a != b || !strings.HasPrefix(a, "Smokes(Carl) 1\n") || strings.Count(a, "\n") != 13 || !strings.Contains(a, "Cancer(Bob) 0\n") {
		t.Errorf("MLN:\n%s\n---\n%s", a, b)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"infer", uai, "--method", "maxwalksat"}, "--method maxwalksat does not answer marginals queries (it answers MAP queries: add --max-product)"},
		{[]string{"map", uai, "--damping", "0.5", "--method", "maxwalksat"}, "--damping does not apply to --method maxwalksat"},
		{[]string{"map", uai, "--noise", "2", "--method", "maxwalksat"}, "--noise must be in [0, 1], got 2"},
		{[]string{"map", uai, "--method", "gibbs"}, "--method gibbs does not answer map queries"},
	} {
		_, stderr, code := run(t, c.args...)
		if code != 1 || !strings.Contains(stderr, "lifted: "+c.want) {
			t.Errorf("%v: exit %d, %q", c.args, code, stderr)
		}
	}
}

// Hard formulas that cannot all hold: an error that says so, no world.
func TestMaxWalkSATUnsat(t *testing.T) {
	mln := writeFile(t, t.TempDir(), "u.mln", "t = {A, B}\nP(t)\nQ(t)\nP(x) v Q(x).\n!P(x) v Q(x).\nP(x) v !Q(x).\n!P(x) v !Q(x).\n1 P(x)\n")
	out, stderr, code := run(t, "map", mln, "-q", "P", "--method", "maxwalksat", "--max-flips", "1000")
	if code != 1 || out != "" || !strings.Contains(stderr, "maxwalksat: found no world satisfying the hard constraints (zero entries) in 1 tries of 1000 flips") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, stderr)
	}
}

// MAP queries ground large formulas so that maximising over their
// auxiliary variables gives the formula's value (ground.Options.ExactMax):
// a conjunction of positive weight over 13 atoms, true in the MAP world.
func TestMAPLargeConjunction(t *testing.T) {
	mln := writeFile(t, t.TempDir(), "c.mln", "t = {1,2,3,4,5,6,7,8,9,10,11,12,13}\nP(t)\n0.5 FORALL y P(y)\n0.01 !P(x)\n")
	for _, args := range [][]string{
		{"map", mln, "-q", "P", "--method", "bp"},
		{"map", mln, "-q", "P", "--method", "maxwalksat", "--tries", "20", "--noise", "0.8", "--max-flips", "20000"},
	} {
		out, stderr, code := run(t, args...)
		if code != 0 || strings.Count(out, " 1\n") != 13 {
			t.Errorf("%v: exit %d, %s%s", args, code, out, stderr)
		}
	}
}
