package main

import (
	"encoding/json"
	"math"
	"path/filepath"
	"strings"
	"testing"
)

type mapJSON struct {
	Assignment []int32
	Objective  float64
	Bound      float64
	Gap        float64
	Stats      map[string]any
}

func runMapJSON(t *testing.T, args ...string) mapJSON {
	t.Helper()
	out, stderr, code := run(t, append(append([]string{"map", "--method", "lp"}, args...), "--output-format", "json")...)
	var ans mapJSON
	if err := json.Unmarshal([]byte(out), &ans); err != nil || code != 0 {
		t.Fatalf("%v: exit %d, %v: %s%s", args, code, err, out, stderr)
	}
	return ans
}

// MAP by LP relaxation from the command line (--method lp); its JSON
// has objective, bound ≥ objective and gap, and the LP sizes; LOCAL over
// colour classes has the ground LOCAL bound with a smaller LP; ilp proves
// the optimum; MaxWalkSAT finds no better world than the LP bound allows.
func TestMapLPCommand(t *testing.T) {
	uai, evid := "../../examples/fg/smokers10.uai", "../../examples/fg/smokers10.uai.evid"
	out, stderr, code := run(t, "map", uai, "-e", evid, "--method", "lp", "--symmetry", "none", "--prop", "solver=simplex")
	if code != 0 || !strings.HasPrefix(out, "MPE\n120 ") || !strings.Contains(stderr, "MAP by LP relaxation (lp), objective 125, bound 125") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, stderr)
	}
	cyc := runMapJSON(t, uai, "-e", evid, "--symmetry", "none")
	loc := runMapJSON(t, uai, "-e", evid, "--symmetry", "none", "--relaxation", "local")
	col := runMapJSON(t, uai, "-e", evid, "--symmetry", "colour", "--relaxation", "local")
	ilp := runMapJSON(t, uai, "-e", evid, "--method", "ilp")
	mws := runMapJSON(t, uai, "-e", evid, "--method", "maxwalksat", "--tries", "3", "--seed", "1")
	mwsObj, _ := mws.Stats["objective"].(float64)
	for name, a := range map[string]mapJSON{"cycle": cyc, "local": loc, "colour": col, "ilp": ilp} {
		if len(a.Assignment) != 120 || a.Bound < a.Objective-1e-9 || math.Abs(a.Gap-(a.Bound-a.Objective)) > 1e-9 || mwsObj > a.Bound+1e-7 {
			t.Errorf("%s: objective %g bound %g gap %g (maxwalksat %g)", name, a.Objective, a.Bound, a.Gap, mwsObj)
		}
		if a.Stats["lp_variables"] == nil || a.Stats["orbits"] == nil {
			t.Errorf("%s: stats %v", name, a.Stats)
		}
	}
	if math.Abs(col.Bound-loc.Bound) > 1e-6*(1+math.Abs(loc.Bound)) || col.Stats["lp_variables"].(float64) >= loc.Stats["lp_variables"].(float64) {
		t.Errorf("colour LOCAL bound %g (%v LP variables), ground %g (%v)", col.Bound, col.Stats["lp_variables"], loc.Bound, loc.Stats["lp_variables"])
	}
	if cyc.Bound > loc.Bound+1e-7 || math.Abs(ilp.Objective-ilp.Bound) > 1e-7 || ilp.Objective < cyc.Objective-1e-9 {
		t.Errorf("cycle %g local %g ilp %g/%g", cyc.Bound, loc.Bound, ilp.Objective, ilp.Bound)
	}
	// An MLN: Alchemy's format, and the JSON objective is Σ w·n(x).
	mln := []string{smokersMLN, "-e", smokersDB, "-q", "Smokes,Cancer", "--method", "lp", "--symmetry", "none"}
	a, stderr, code := run(t, append([]string{"map"}, mln...)...)
	if code != 0 || !strings.HasPrefix(a, "Smokes(") || strings.Count(a, "\n") != 13 {
		t.Errorf("MLN: exit %d\n%s%s", code, a, stderr)
	}
	js, _, _ := run(t, append(append([]string{"map"}, mln...), "--output-format", "json")...)
	var mj struct {
		Assignment            map[string]int
		Objective, Bound, Gap *float64
	}
	if err := json.Unmarshal([]byte(js), &mj); err != nil || len(mj.Assignment) != 13 || mj.Objective == nil || mj.Bound == nil || *mj.Bound < *mj.Objective-1e-9 {
		t.Errorf("MLN json: %v %s", err, js)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"map", uai, "--method", "lp", "--symmetry", "renaming"}, `lp: maplp: symmetry renaming is read off a Markov logic network's constants`},
		{[]string{"map", uai, "--method", "lp", "--symmetry", "colour"}, "--symmetry colour is valid for the LOCAL relaxation only"},
		{[]string{"map", uai, "--method", "lp", "--symmetry", "mirror"}, `unknown --symmetry "mirror"`},
		{[]string{"map", uai, "--method", "lp", "--relaxation", "tight", "--symmetry", "none"}, `unknown --relaxation "tight"`},
		{[]string{"map", uai, "--method", "maxwalksat", "--relaxation", "local"}, "--relaxation does not apply to --method maxwalksat"},
	} {
		_, stderr, code := run(t, c.args...)
		if code != 1 || !strings.Contains(stderr, "lifted: "+c.want) {
			t.Errorf("%v: exit %d, %q", c.args, code, stderr)
		}
	}
}

// The default symmetries (orbits on a factor graph, renaming on an MLN)
// give the ground LP's bound and the same world's score, on a smaller LP.
func TestMapLPDefaultSymmetry(t *testing.T) {
	uai := filepath.Join("..", "..", "examples", "fg", "smokers10.uai")
	for _, model := range [][]string{{uai}, {smokersMLN, "-q", "Smokes"}} {
		type out struct {
			Objective, Bound float64
			Stats            struct {
				LPVariables int `json:"lp_variables"`
			}
		}
		var res [2]out
		for i, sym := range []string{"", "none"} {
			args := append([]string{"map", "--method", "lp"}, model...)
			args = append(args, "--output-format", "json")
			if sym != "" {
				args = append(args, "--symmetry", sym)
			}
			stdout, stderr, code := run(t, args...)
			if code != 0 {
				t.Fatalf("%v: exit %d: %s", args, code, stderr)
			}
			if err := json.Unmarshal([]byte(stdout), &res[i]); err != nil {
				t.Fatalf("%v: %v", args, err)
			}
		}
		if math.Abs(res[0].Bound-res[1].Bound) > 1e-6*(1+math.Abs(res[1].Bound)) || math.Abs(res[0].Objective-res[1].Objective) > 1e-9*(1+math.Abs(res[1].Objective)) {
			t.Errorf("%v: default symmetry objective %g bound %g, none %g %g", model, res[0].Objective, res[0].Bound, res[1].Objective, res[1].Bound)
		}
		if res[0].Stats.LPVariables >= res[1].Stats.LPVariables {
			t.Errorf("%v: lifted LP %d variables, ground %d", model, res[0].Stats.LPVariables, res[1].Stats.LPVariables)
		}
	}
}
