package main

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// TestLBGCommand: lifted infer --method lbg on the hard conjunction gives
// P = 1 for its atoms and enumeration's answer for the others, with the
// sampler flags; the JSON statistics count the clusters and the lifted
// ones; a BP flag is refused.
func TestLBGCommand(t *testing.T) {
	model := writeTemp(t, "hard.mln", hardConjunctionMLN)
	exact, err := runCLI(t, "infer", "--method", "enumerate", "--quiet", "-q", "H,S,T", model)
	if err != nil {
		t.Fatal(err)
	}
	_, want := alchemyLines(t, exact)
	out, err := runCLI(t, "infer", "--method", "lbg", "--seed", "1", "--samples", "3000", "--burn-in", "20", "--chains", "2", "--block-size", "4", "--quiet", "-q", "H,S,T", model)
	if err != nil {
		t.Fatal(err)
	}
	names, got := alchemyLines(t, out)
	if len(names) != 11 {
		t.Fatalf("%d atoms printed", len(names))
	}
	for a, p := range got {
		if (strings.HasPrefix(a, "H(") || strings.HasPrefix(a, "S(")) && p != 1 {
			t.Errorf("P(%s) = %v, want 1", a, p)
		}
		if math.Abs(p-want[a]) > 0.02 {
			t.Errorf("P(%s) = %v, enumeration %v", a, p, want[a])
		}
	}
	out, err = runCLI(t, "infer", "--method", "lbg", "--seed", "1", "--samples", "100", "--burn-in", "10", "--chains", "2", "--quiet", "--output-format", "json", "-q", "H,S,T", model)
	if err != nil {
		t.Fatal(err)
	}
	var js struct {
		LogZ  *float64 `json:"log_z"`
		Stats map[string]any
	}
	if err := json.Unmarshal([]byte(out), &js); err != nil {
		t.Fatal(err)
	}
	if js.LogZ != nil || js.Stats["samples"] != 200.0 || js.Stats["sweeps"] != 220.0 || js.Stats["chains"] != 2.0 ||
		js.Stats["clusters"] != 2.0 || js.Stats["lifted_clusters"] != 2.0 || js.Stats["method"] != "lbg" ||
		!strings.Contains(js.Stats["method_reason"].(string), "{H,T} lifted") {
		t.Errorf("JSON %s", out)
	}
	if _, err := runCLI(t, "infer", "--method", "lbg", "--damping", "0.5", "--quiet", model); err == nil {
		t.Error("--damping accepted")
	}
}
