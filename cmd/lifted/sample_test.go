package main

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// hardConjunctionMLN is the case that Alchemy's MC-SAT and Gibbs get
// wrong (P ≈ 0.31 and 0.33): a hard conjunction with soft formulas around
// it. Every atom of the conjunction is true in every possible world.
const hardConjunctionMLN = `item = {I1, I2, I3}
obj = {O1, O2}
H(item)
S(obj)
T(item, obj)
H(i) ^ S(o).
1.5 H(i) ^ S(o) => T(i, o)
-2 H(i)
-1 S(o) v T(i, o)
0.7 T(i, o) => !H(i)
`

func writeTemp(t *testing.T, name, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestSamplersHardConjunction: both samplers give P = 1 for the atoms of the
// hard conjunction, and the enumeration answer for the others.
func TestSamplersHardConjunction(t *testing.T) {
	model := writeTemp(t, "hard.mln", hardConjunctionMLN)
	exact, err := runCLI(t, "infer", "--method", "enumerate", "--quiet", "-q", "H,S,T", model)
	if err != nil {
		t.Fatal(err)
	}
	_, want := alchemyLines(t, exact)
	for _, m := range []string{"gibbs", "mcsat", "bgibbs"} {
		out, err := runCLI(t, "infer", "--method", m, "--seed", "1", "--samples", "3000", "--chains", "2", "--quiet", "-q", "H,S,T", model)
		if err != nil {
			t.Fatal(err)
		}
		names, got := alchemyLines(t, out)
		if len(names) != 11 {
			t.Fatalf("%s: %d atoms printed", m, len(names))
		}
		for a, p := range got {
			if strings.HasPrefix(a, "H(") || strings.HasPrefix(a, "S(") {
				if p != 1 {
					t.Errorf("%s: P(%s) = %v, want 1", m, a, p)
				}
			}
			if math.Abs(p-want[a]) > 0.02 {
				t.Errorf("%s: P(%s) = %v, enumeration %v", m, a, p, want[a])
			}
		}
	}
}

// TestSamplersOnUAI: Gibbs and MC-SAT on a loopy .uai with a zero entry
// agree with enumeration; the JSON output carries the sampler statistics
// and no log Z.
func TestSamplersOnUAI(t *testing.T) {
	model := writeTemp(t, "loopy.uai", loopyUAI)
	exact, err := runCLI(t, "infer", "--method", "enumerate", "--quiet", model)
	if err != nil {
		t.Fatal(err)
	}
	want := parseMAR(t, exact)
	for _, m := range []string{"gibbs", "mcsat", "bgibbs"} {
		blocks := []string{}
		if m == "bgibbs" {
			blocks = []string{"--block-size", "2"} // two blocks: the chains vary
		}
		out, err := runCLI(t, append([]string{"infer", "--method", m, "--seed", "5", "--samples", "20000", "--burn-in", "50", "--chains", "3", "--quiet", model}, blocks...)...)
		if err != nil {
			t.Fatal(err)
		}
		got := parseMAR(t, out)
		for v := range want {
			for s, p := range want[v] {
				if math.Abs(got[v][s]-p) > 0.02 {
					t.Errorf("%s: variable %d state %d: %v, enumeration %v", m, v, s, got[v][s], p)
				}
			}
		}
		out, err = runCLI(t, append([]string{"infer", "--method", m, "--seed", "5", "--samples", "200", "--burn-in", "50", "--chains", "3", "--quiet", "--allow-unconverged", "--output-format", "json", model}, blocks...)...)
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
		if js.LogZ != nil || js.Stats["samples"] != 600.0 || js.Stats["sweeps"] != 750.0 || js.Stats["chains"] != 3.0 ||
			js.Stats["r_hat"] == nil || js.Stats["interrupted"] != nil || (js.Stats["clusters"] == 2.0) != (m == "bgibbs") {
			t.Errorf("%s: JSON %s", m, out)
		}
	}
}

// TestSamplersSeed: the same --seed (and --chains) prints the same answer;
// another seed does not.
func TestSamplersSeed(t *testing.T) {
	for _, m := range []string{"gibbs", "mcsat", "bgibbs"} {
		args := []string{"infer", "--method", m, "--samples", "300", "--chains", "4", "--quiet", "--allow-unconverged", smokersMLN, "-e", smokersDB, "-q", "Smokes,Cancer"}
		if m == "bgibbs" {
			// with the default blocks each connected part of this grounding is one block: its
			// conditionals do not vary and every seed gives the exact marginals
			args = append(args, "--block-size", "2")
		}
		a, err := runCLI(t, append(args, "--seed", "11")...)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := runCLI(t, append(args, "--seed", "11")...)
		c, _ := runCLI(t, append(args, "--seed", "12")...)
		if a != b || a == c {
			t.Fatalf("%s: seed 11 twice equal %v, seeds 11 and 12 equal %v", m, a == b, a == c)
		}
	}
}

// TestSamplerFlags: sampler flags are refused for BP and BP's for the
// samplers; bad values are named by their flag.
func TestSamplerFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--method", "bp", "--samples", "10"}, "--samples does not apply to --method bp"},
		{[]string{"--method", "lbp", "--chains", "2"}, "--chains does not apply to --method lbp"},
		{[]string{"--method", "gibbs", "--damping", "0.5"}, "--damping does not apply to --method gibbs"},
		{[]string{"--method", "mcsat", "--burn-in", "-1"}, "--burn-in must not be negative, got -1"},
		{[]string{"--method", "gibbs", "--samples", "0"}, "--samples must be positive unless a time-limit is set"},
		{[]string{"--method", "mcsat", "--max-product"}, "--method mcsat does not answer map queries"},
		{[]string{"--method", "gibbs", "--block-size", "3"}, "--block-size does not apply to --method gibbs"},
		{[]string{"--method", "bgibbs", "--block-size", "0"}, "--block-size must be at least 1, got 0"},
		{[]string{"--method", "bgibbs", "--block-states", "1"}, "--block-states must be at least 2, got 1"},
	} {
		_, err := runCLI(t, append(append([]string{"infer"}, c.args...), smokers)...)
		if err == nil || err.Error() != c.want {
			t.Errorf("%v: got %v, want %q", c.args, err, c.want)
		}
	}
}

// TestSamplerInterrupt: Ctrl-C with --allow-partial prints the estimates
// so far, marked as interrupted on stderr and in the JSON statistics
// (without it: exit status 130, TestInterruptedSampling).
func TestSamplerInterrupt(t *testing.T) {
	cmd := exec.Command(binary, "infer", "--method", "gibbs", "--samples", "0", "--time-limit", "10m", "--chains", "2",
		"--output-format", "json", "--allow-partial", "--allow-unconverged", smokers)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(1500 * time.Millisecond)
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("%v: %s", err, errb.String())
	}
	if !strings.Contains(errb.String(), "warning: interrupted after ") {
		t.Errorf("stderr: %q", errb.String())
	}
	var js struct {
		Marginals [][]float64
		Stats     map[string]any
	}
	if err := json.Unmarshal(out.Bytes(), &js); err != nil {
		t.Fatalf("%v: %s", err, out.String())
	}
	if js.Stats["interrupted"] != true || float64(len(js.Marginals)) != js.Stats["variables"] || js.Stats["samples"].(float64) < 1 {
		t.Errorf("output %s", out.String())
	}
}

// TestBlockedGibbsExactOnSmallParts: with enumerated blocks (8 atoms)
// every connected part of the smokers grounding is one block, so blocked
// Gibbs's Rao-Blackwellised marginals are the exact conditionals given
// the evidence, equal to enumeration's; the JSON counts the blocks.
func TestBlockedGibbsExactOnSmallParts(t *testing.T) {
	args := []string{"infer", "--quiet", smokersMLN, "-e", smokersDB, "-q", "Smokes,Cancer"}
	exact, err := runCLI(t, append(args, "--method", "enumerate")...)
	if err != nil {
		t.Fatal(err)
	}
	_, want := alchemyLines(t, exact)
	// enumerated blocks (the junction-tree blocks, bgibbs's default on a
	// model without zeros, draw a block exactly but average single-site
	// conditionals)
	enum := []string{"--method", "bgibbs", "--prop", "blocks=enumerate", "--samples", "1000", "--chains", "2"}
	out, err := runCLI(t, append(args, enum...)...)
	if err != nil {
		t.Fatal(err)
	}
	_, got := alchemyLines(t, out)
	for a, p := range want {
		if math.Abs(got[a]-p) > 1e-6 { // the printed precision
			t.Errorf("P(%s) = %v, enumeration %v", a, got[a], p)
		}
	}
	out, err = runCLI(t, append(args, append(enum, "--output-format", "json")...)...)
	if err != nil {
		t.Fatal(err)
	}
	var js struct{ Stats map[string]any }
	if err := json.Unmarshal([]byte(out), &js); err != nil {
		t.Fatal(err)
	}
	if js.Stats["clusters"] != 5.0 || js.Stats["samples"] != 2000.0 {
		t.Errorf("stats %v", js.Stats)
	}
}
