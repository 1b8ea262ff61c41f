package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// lifted score on a 2-person world: the text table, the JSON report (same
// numbers as package score computes: TestScoreFormats) and the SVG plot.
func TestScoreCommand(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	model := write("m.mln", "Adv(person, person)\nProf(person)\n1 Prof(x) => !Adv(x, y)\n")
	truth := write("truth.db", "Adv(A,B)\nProf(B)\n")
	result := write("r.result", "Adv(A,A) 0.1\nAdv(A,B) 0.7\nAdv(B,A) 0.4\nAdv(B,B) 0.05\n")
	plot := filepath.Join(dir, "pr.svg")
	out, stderr, code := run(t, "score", "-i", model, "-t", truth, "-r", result, "--plot", plot)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(out, "Adv (2 person × 2 person: 4)") || !strings.Contains(out, "-0.2560") {
		t.Errorf("text output:\n%s", out)
	}
	if b, err := os.ReadFile(plot); err != nil || !strings.Contains(string(b), "<polyline") {
		t.Errorf("plot: %v %.200s", err, b)
	}
	out, stderr, code = run(t, "score", "-i", model, "-t", truth, result, "--output-format", "json")
	if code != 0 {
		t.Fatalf("json: exit %d: %s", code, stderr)
	}
	var r struct {
		Format  string
		Overall struct {
			Atoms int
			CLL   float64
			AUCPR float64 `json:"auc_pr"`
		}
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if r.Format != "alchemy" || r.Overall.Atoms != 4 || r.Overall.AUCPR != 1 {
		t.Errorf("json: %+v", r)
	}
	if _, stderr, code := run(t, "score", "-i", model, "-t", truth, result, "--plot", "x.png"); code != 1 || !strings.Contains(stderr, ".svg") {
		t.Errorf("--plot x.png: exit %d: %s", code, stderr)
	}
}
