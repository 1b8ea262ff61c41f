package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeSmokers writes friends-and-smokers over n people with evidence on
// three of them.
func writeSmokers(t *testing.T, n int) (model, db string) {
	t.Helper()
	return writeModel(t, smokersText(n, ""), "Smokes(P0)\n!Smokes(P1)\nCancer(P2)\n")
}

// smokersText is friends-and-smokers over n people, P0 … P(n-1), with
// the formulas extra added.
func smokersText(n int, extra string) string {
	var b strings.Builder
	b.WriteString("person = {")
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "P%d", i)
	}
	b.WriteString("}\nSmokes(person)\nCancer(person)\nFriends(person, person)\n1.5 Smokes(x) => Cancer(x)\n1.1 Friends(x, y) ^ Smokes(x) => Smokes(y)\n")
	b.WriteString(extra)
	return b.String()
}

// writeModel writes an MLN and its evidence into a temporary directory.
func writeModel(t *testing.T, mlnText, dbText string) (model, db string) {
	t.Helper()
	dir := t.TempDir()
	model, db = filepath.Join(dir, "s.mln"), filepath.Join(dir, "s.db")
	if err := os.WriteFile(model, []byte(mlnText), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(db, []byte(dbText), 0o644); err != nil {
		t.Fatal(err)
	}
	return model, db
}

// The first-order construction prints what grounding + colour passing
// prints, line for line, and says in its statistics that it lifted before
// grounding, with the ground sizes it represents.
func TestInferFirstOrderEqualsGround(t *testing.T) {
	model, db := writeSmokers(t, 60)
	q := "Smokes,Cancer(x),Friends(P0,y)"
	fo, stderr, code := run(t, "infer", model, "-e", db, "-q", q, "--method", "lbp")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "represented (first-order construction: ") {
		t.Errorf("summary %q", stderr)
	}
	gr, stderr, code := run(t, "infer", model, "-e", db, "-q", q, "--method", "lbp", "--construction", "ground")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if fo != gr || strings.Count(fo, "\n") != 58+59+60 {
		t.Fatalf("first-order output (%d lines) differs from the ground one (%d lines):\n%.300s\n%.300s", strings.Count(fo, "\n"), strings.Count(gr, "\n"), fo, gr)
	}
	var res [2]mlnJSON
	for i, c := range []string{"first-order", "ground"} {
		out, stderr, code := run(t, "infer", model, "-e", db, "-q", q, "--method", "lbp", "--construction", c, "--output-format", "json")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		if err := json.Unmarshal([]byte(out), &res[i]); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
	}
	if res[0].Stats["lifted_construction"] != true || res[1].Stats["lifted_construction"] != false {
		t.Fatalf("lifted_construction %v and %v", res[0].Stats["lifted_construction"], res[1].Stats["lifted_construction"])
	}
	for _, k := range []string{"ground_atoms", "ground_formulas", "clusternodes", "clusterfactors", "lifted_edges", "edges"} {
		if res[0].Stats[k] != res[1].Stats[k] {
			t.Errorf("%s: %v first-order, %v ground", k, res[0].Stats[k], res[1].Stats[k])
		}
	}
	if b, _ := res[0].Stats["ground_atoms_built"].(float64); b <= 0 || b >= res[0].Stats["ground_atoms"].(float64)/10 {
		t.Errorf("ground_atoms_built %v of %v", res[0].Stats["ground_atoms_built"], res[0].Stats["ground_atoms"])
	}
	for k, p := range res[1].Marginals {
		if d := p - res[0].Marginals[k]; d > 1e-12 || d < -1e-12 {
			t.Fatalf("%s: %v first-order, %v ground", k, res[0].Marginals[k], p)
		}
	}
	if res[0].LogZ == nil || res[1].LogZ == nil || math.Abs(*res[0].LogZ-*res[1].LogZ) > 1e-9*math.Abs(*res[1].LogZ) {
		t.Errorf("log_z %v first-order, %v ground", res[0].LogZ, res[1].LogZ)
	}
	if len(res[0].Marginals) != len(res[1].Marginals) {
		t.Fatalf("%d and %d marginals", len(res[0].Marginals), len(res[1].Marginals))
	}
	// compress reports the same sizes both ways.
	a, _, _ := run(t, "compress", model, "-e", db, "-q", q)
	g, _, _ := run(t, "compress", model, "-e", db, "-q", q, "--construction", "ground")
	var ca, cg map[string]any
	json.Unmarshal([]byte(a), &ca)
	json.Unmarshal([]byte(g), &cg)
	for _, k := range []string{"ground_atoms", "ground_formulas", "clusternodes", "clusterfactors"} {
		if ca[k] != cg[k] || ca[k] == nil {
			t.Errorf("compress %s: %v first-order, %v ground", k, ca[k], cg[k])
		}
	}
	if ca["lifted_construction"] != true || cg["construction_reason"] == nil {
		t.Errorf("compress: %s / %s", a, g)
	}
	// A bad value is a usage error.
	_, stderr, code = run(t, "infer", model, "-e", db, "-q", q, "--construction", "sideways", "--method", "lbp")
	if code != 1 || !strings.Contains(stderr, `unknown --construction "sideways"`) {
		t.Errorf("--construction sideways: exit %d: %s", code, stderr)
	}
}

// --method auto on a model too large to ground answers with lifted BP on
// the first-order network when wfomc does not answer (here: no work for
// it), and says so.
func TestInferAutoTooLargeFirstOrder(t *testing.T) {
	model, db := writeSmokers(t, 60)
	out, stderr, code := run(t, "infer", model, "-e", db, "-q", "Smokes,Cancer", "--max-ground", "100", "--prop", "wfomc-work=1")
	if code != 0 || !strings.Contains(stderr, "lifted: method lbp: wfomc did not finish within its share of 1 work units (domains person=60); lifted BP on the first-order network") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	want, _, _ := run(t, "infer", model, "-e", db, "-q", "Smokes,Cancer", "--method", "lbp", "--construction", "ground")
	if out != want {
		t.Fatalf("auto on the first-order network:\n%.200s\nground lifted BP:\n%.200s", out, want)
	}
	if _, stderr, code := run(t, "infer", model, "-e", db, "-q", "Smokes,Cancer", "--max-ground", "100", "--construction", "ground"); code == 0 || !strings.Contains(stderr, "raise --max-ground") {
		t.Fatalf("--construction ground: exit %d: %s", code, stderr)
	}
}
