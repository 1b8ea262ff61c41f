package main

import (
	"math"
	"strconv"
	"strings"
	"testing"
)

// TestDialects runs one small model per point of issue 24 from the
// command line against its closed form: Tuffy's world rule (detected, and
// overridden by --dialect alchemy), a non-clausal formula over 15 atoms
// (Tseitin auxiliary variables), a pracmln weight expression and LoMRF's
// definite clause with its completion.
func TestDialects(t *testing.T) {
	e := math.Exp
	const dir = "testdata/dialects/"
	s := math.Pow(1+e(-0.2), 14) // Σ over the 14 usesFor atoms
	cases := []struct {
		name   string
		args   []string
		atom   string
		want   float64
		stderr string
	}{
		{"tuffy", []string{dir + "tuffy.mln", "-e", dir + "tuffy.db", "-q", "Ill"}, "Ill(Bob)",
			(e(1.5) + e(2)) / (2*e(1.5) + e(0.5) + e(2)), "dialect tuffy (detected: Tuffy's closed-world mark *Knows at " + dir + "tuffy.mln:2:1)"},
		{"tuffy-as-alchemy", []string{dir + "tuffy.mln", "-e", dir + "tuffy.db", "-q", "Ill", "--dialect", "alchemy"}, "Ill(Bob)",
			0.5, "dialect alchemy (given)"},
		{"big-formula", []string{dir + "big.mln", "-q", "usesAny"}, "usesAny(P)",
			(e(1.3)*(s-1) + 1) / (e(1.3)*(s-1) + 1 + (s - 1) + e(1.3)), ""},
		{"big-formula-ground", []string{dir + "big.mln", "-q", "usesAny", "--method", "enumerate"}, "usesAny(P)",
			(e(1.3)*(s-1) + 1) / (e(1.3)*(s-1) + 1 + (s - 1) + e(1.3)), "15 ground atoms (17 variables)"},
		{"pracmln", []string{dir + "pracmln.mln", "-e", dir + "pracmln.db", "-q", "flies"}, "flies(Tweety)",
			0.9, "dialect pracmln (detected: pracmln's weight expression log(…) at " + dir + "pracmln.mln:3:1)"},
		{"lomrf-defined", []string{dir + "lomrf.mln", "-e", dir + "lomrf.db", "-q", "H"}, "H(P1)",
			e(2) / (1 + e(2)), "dialect lomrf"},
		{"lomrf-completion", []string{dir + "lomrf.mln", "-e", dir + "lomrf.db", "-q", "H"}, "H(P2)", 0, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, stderr, code := run(t, append([]string{"infer"}, c.args...)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if !strings.Contains(stderr, c.stderr) {
				t.Errorf("stderr lacks %q:\n%s", c.stderr, stderr)
			}
			found := false
			for _, l := range strings.Split(out, "\n") {
				f := strings.Fields(l)
				if len(f) == 2 && f[0] == c.atom {
					p, err := strconv.ParseFloat(f[1], 64)
					if err != nil || math.Abs(p-c.want) > 1e-5 {
						t.Errorf("%s: %s, closed form %.6f", c.atom, f[1], c.want)
					}
					found = true
				}
			}
			if !found {
				t.Errorf("no line for %s in\n%s", c.atom, out)
			}
		})
	}
}
