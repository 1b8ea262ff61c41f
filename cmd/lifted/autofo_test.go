package main

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"
)

// writeTransitive writes friends-and-smokers over n people with a
// transitivity formula that wfomc cannot lift (three logical variables),
// with Smokes evidence on e people; chain adds the evidence
// Friends(P0,P1), Friends(P1,P2), … which tells every constant apart.
func writeTransitive(t *testing.T, n, e int, chain bool) (model, db string) {
	t.Helper()
	var d strings.Builder
	for i := range e {
		if i%2 == 1 {
			d.WriteString("!")
		}
		fmt.Fprintf(&d, "Smokes(P%d)\n", i)
	}
	for i := 0; chain && i+1 < n; i++ {
		fmt.Fprintf(&d, "Friends(P%d, P%d)\n", i, i+1)
	}
	return writeModel(t, smokersText(n, "0.7 Friends(x, y) ^ Friends(y, z) => Friends(x, z)\n"), d.String())
}

// autoVsGround runs lifted infer with args by default (auto before
// grounding) and with --construction ground (auto on the grounding, as
// before), checks that both print the same Alchemy lines and the same JSON
// marginals within tol, and returns the two JSON answers.
func autoVsGround(t *testing.T, tol float64, args ...string) (def, gr mlnJSON) {
	t.Helper()
	a, stderr, code := run(t, append([]string{"infer"}, args...)...)
	if code != 0 {
		t.Fatalf("default: exit %d: %s", code, stderr)
	}
	g, stderr, code := run(t, append([]string{"infer", "--construction", "ground"}, args...)...)
	if code != 0 {
		t.Fatalf("--construction ground: exit %d: %s", code, stderr)
	}
	if a != g || a == "" {
		t.Fatalf("default output differs from --construction ground's:\n%.300s\n%.300s", a, g)
	}
	var res [2]mlnJSON
	for i, extra := range [][]string{nil, {"--construction", "ground"}} {
		out, stderr, code := run(t, append(append([]string{"infer", "--quiet", "--output-format", "json"}, extra...), args...)...)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		if err := json.Unmarshal([]byte(out), &res[i]); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
	}
	if len(res[0].Marginals) != len(res[1].Marginals) || len(res[0].Marginals) == 0 {
		t.Fatalf("%d and %d marginals", len(res[0].Marginals), len(res[1].Marginals))
	}
	for k, p := range res[1].Marginals {
		q, ok := res[0].Marginals[k]
		if !ok || math.Abs(p-q) > tol {
			t.Fatalf("%s: %v default, %v ground", k, q, p)
		}
	}
	return res[0], res[1]
}

// Where wfomc lifts the MLN, the default run answers with it before
// grounding: the same answer (marginals and log Z) as wfomc on the
// grounding, reported as wfomc with auto's reason, without a grounding.
func TestInferAutoWFOMCBeforeGrounding(t *testing.T) {
	model, db := writeSmokers(t, 60)
	def, gr := autoVsGround(t, 1e-12, model, "-e", db, "-q", "Smokes,Cancer")
	for _, r := range []mlnJSON{def, gr} {
		if r.Stats["method"] != "wfomc" || r.Stats["method_reason"] != "exact: wfomc lifts the MLN (domains person=60)" {
			t.Errorf("method %v: %v", r.Stats["method"], r.Stats["method_reason"])
		}
	}
	if def.Stats["lifted_construction"] != true || gr.Stats["lifted_construction"] != false {
		t.Errorf("lifted_construction %v default, %v ground", def.Stats["lifted_construction"], gr.Stats["lifted_construction"])
	}
	// The predicted number of unknown ground atoms is the grounding's.
	if def.Stats["ground_atoms"] != gr.Stats["ground_atoms"] {
		t.Errorf("ground_atoms %v default, %v ground", def.Stats["ground_atoms"], gr.Stats["ground_atoms"])
	}
	if def.LogZ == nil || gr.LogZ == nil || math.Abs(*def.LogZ-*gr.LogZ) > 1e-9*math.Abs(*gr.LogZ) {
		t.Errorf("log_z %v default, %v ground", def.LogZ, gr.LogZ)
	}
}

// Where wfomc cannot lift the MLN, the default run answers with lifted BP
// on the first-order network: what lifted BP gives on the grounding, with
// a reason that names wfomc's failure and the first-order network.
func TestInferAutoFirstOrderLBP(t *testing.T) {
	model, db := writeTransitive(t, 30, 3, false)
	// bp-check 0: on the grounding BP's fixed point answers as it is (by
	// default the sampler runs too and answers, BP checked against it).
	def, gr := autoVsGround(t, 1e-12, model, "-e", db, "-q", "Smokes,Cancer", "--prop", "bp-check=0")
	// The grounding splits into connected components given the evidence:
	// auto answers the small ones exactly and the large one by lifted BP
	// (the same marginals: BP is exact on the small ones).
	for i, r := range []mlnJSON{def, gr} {
		if m := r.Stats["method"].(string); m != "lbp" && !(i == 1 && m == "enumerate+lbp") ||
			!strings.HasPrefix(r.Stats["method_reason"].(string), "wfomc cannot answer exactly: formula 3 (Friends(x, y) ^ Friends(y, z) => Friends(x, z)) is beyond FO2") {
			t.Errorf("method %v: %v", r.Stats["method"], r.Stats["method_reason"])
		}
	}
	if r, _ := gr.Stats["method_reason"].(string); !strings.Contains(r, "4 components: 3 exact by enumeration, 1 by lifted BP (converged)") {
		t.Errorf("ground method_reason %q", r)
	}
	if r, _ := def.Stats["method_reason"].(string); !strings.HasSuffix(r, "; lifted BP on the first-order network") {
		t.Errorf("method_reason %q", r)
	}
	if def.Stats["lifted_construction"] != true || gr.Stats["lifted_construction"] != false {
		t.Errorf("lifted_construction %v default, %v ground", def.Stats["lifted_construction"], gr.Stats["lifted_construction"])
	}
	for _, k := range []string{"ground_atoms", "ground_formulas"} {
		if def.Stats[k] != gr.Stats[k] {
			t.Errorf("%s: %v default, %v ground", k, def.Stats[k], gr.Stats[k])
		}
	}
}

// A model with few unknown ground atoms is still ground and enumerated
// when wfomc cannot lift it; auto's reason is the one wfomc's only try
// gave (Auto.Tried: Choose does not run wfomc again).
func TestInferAutoSmallEnumerates(t *testing.T) {
	model, db := writeTransitive(t, 3, 3, false) // 9 Friends + 3 Cancer atoms unknown
	def, gr := autoVsGround(t, 1e-12, model, "-e", db, "-q", "Smokes,Cancer,Friends")
	for _, r := range []mlnJSON{def, gr} {
		if r.Stats["method"] != "enumerate" || !strings.HasPrefix(r.Stats["method_reason"].(string), "wfomc cannot answer exactly: ") ||
			!strings.HasSuffix(r.Stats["method_reason"].(string), "the grounding has 4096 joint states, so exact by enumeration") {
			t.Errorf("method %v: %v", r.Stats["method"], r.Stats["method_reason"])
		}
	}
	if r, _ := def.Stats["construction_reason"].(string); !strings.Contains(r, "12 unknown ground atoms") {
		t.Errorf("construction_reason %q", r)
	}
	if def.LogZ == nil || gr.LogZ == nil || *def.LogZ != *gr.LogZ {
		t.Errorf("log_z %v default, %v ground", def.LogZ, gr.LogZ)
	}
}

// A model too large to ground (Friends open-world) whose evidence tells
// too many constants apart for the first-order network to be built first
// (its reduced model keeps 9 of 12 people): wfomc is tried first (it
// cannot lift formula 3), then lifted BP runs on the first-order network,
// whose reduced model is under the limit. Where the evidence tells every
// constant apart (a chain of Friends), the reduced model is the full one
// and is refused with its size, as the grounding was (issue 37: it was
// built past the limit).
func TestInferAutoTooLargeTriesWFOMC(t *testing.T) {
	model, db := writeTransitive(t, 12, 7, false)
	out, stderr, code := run(t, "infer", model, "-e", db, "-q", "Smokes,Cancer", "--ow", "Friends", "--max-ground", "1000", "--prop", "wfomc-work=1")
	if code != 0 || !strings.Contains(stderr, "lifted: method lbp: wfomc cannot answer exactly: formula 3 (Friends(x, y) ^ Friends(y, z) => Friends(x, z)) is beyond FO2") || !strings.Contains(stderr, "; the grounding is too large") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	want, _, _ := run(t, "infer", model, "-e", db, "-q", "Smokes,Cancer", "--ow", "Friends", "--method", "lbp", "--construction", "ground")
	if out != want || out == "" {
		t.Fatalf("auto on the first-order network:\n%.200s\nground lifted BP:\n%.200s", out, want)
	}
	model, db = writeTransitive(t, 12, 3, true)
	_, stderr, code = run(t, "infer", model, "-e", db, "-q", "Smokes,Cancer", "--ow", "Friends", "--max-ground", "1000", "--prop", "wfomc-work=1")
	if code == 0 || !strings.Contains(stderr, "grounding would create about") || !strings.Contains(stderr, "limit 1000; raise --max-ground") {
		t.Fatalf("every constant told apart: exit %d: %s", code, stderr)
	}
}

// Where wfomc cannot lift the MLN and the evidence tells the constants
// apart (the first-order network would be the grounding), the default run
// grounds and auto answers there per connected component (enumeration for
// the small ones, lifted BP for the large one), with wfomc's one failure
// as its reason.
func TestInferAutoGroundsWhenNotFirstOrder(t *testing.T) {
	model, db := writeTransitive(t, 12, 3, true)
	def, gr := autoVsGround(t, 1e-12, model, "-e", db, "-q", "Smokes,Cancer", "--ow", "Friends", "--prop", "bp-check=0")
	for _, r := range []mlnJSON{def, gr} { // components: the small ones exact, the large one by lifted BP
		if r.Stats["method"] != "enumerate+lbp" || r.Stats["lifted_construction"] != false ||
			!strings.HasPrefix(r.Stats["method_reason"].(string), "wfomc cannot answer exactly: formula 3 (") ||
			strings.Contains(r.Stats["method_reason"].(string), "first-order network") {
			t.Errorf("method %v: %v (lifted_construction %v)", r.Stats["method"], r.Stats["method_reason"], r.Stats["lifted_construction"])
		}
	}
	if r, _ := def.Stats["construction_reason"].(string); r == "" || r == gr.Stats["construction_reason"] {
		t.Errorf("construction_reason %q (ground: %v)", r, gr.Stats["construction_reason"])
	}
}
