package main

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lifted-dev/lifted/dynamic"
	mlnfile "github.com/lifted-dev/lifted/format/mlnfile"
	"github.com/lifted-dev/lifted/internal/brute"
	"github.com/lifted-dev/lifted/mln"
)

const dynHMM = `time = {0,...,5}
Rain(time)
Umbrella(time)
0.7 Rain(0)
1.5 Rain(t) <=> Rain(t++)
2 Rain(t) => Umbrella(t)
-0.3 Umbrella(t)
`

// dynStep is a step of --dynamic's JSON (engine/result.schema.json).
type dynStep struct {
	Step      int                `json:"step"`
	Kind      string             `json:"kind"`
	Marginals map[string]float64 `json:"marginals"`
	Stats     dynamic.Stats      `json:"stats"`
}

type dynOut struct {
	Stats struct {
		Horizon int `json:"horizon"`
	} `json:"stats"`
	Steps []dynStep `json:"steps"`
	// Filtered and Smoothed are Steps by kind (split).
	Filtered []dynStep
	Smoothed *dynStep
}

// split sorts the steps by kind.
func (r *dynOut) split() {
	for i, s := range r.Steps {
		if s.Kind == "smoothed" {
			r.Smoothed = &r.Steps[i]
		} else {
			r.Filtered = append(r.Filtered, s)
		}
	}
}

// The command's smoothed marginals on an HMM-shaped DMLN are the exact ones
// (enumeration of the unrolled graph), for FF and LFF; the evidence comes
// from a directory of per-step files.
func TestInferDynamicHMM(t *testing.T) {
	dir := t.TempDir()
	model := writeFile(t, dir, "hmm.mln", dynHMM)
	evDir := filepath.Join(dir, "ev")
	if err := os.Mkdir(evDir, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, evDir, "0.db", "Umbrella(0)\n")
	writeFile(t, evDir, "2.db", "!Umbrella(2)\n")
	writeFile(t, evDir, "3.db", "Umbrella(3)\n")
	// The truth: enumeration over the unrolled, grounded model.
	m, err := mlnfile.Parse("hmm.mln", []byte(dynHMM))
	if err != nil {
		t.Fatal(err)
	}
	md, err := dynamic.Unroll(context.Background(), m, func(s *mln.MLN) (*mln.DB, error) {
		return mlnfile.ReadDB(strings.NewReader("Umbrella(0)\n!Umbrella(2)\nUmbrella(3)\n"), "e.db", s)
	}, dynamic.Options{Horizon: -1, Query: []string{"Rain"}})
	if err != nil {
		t.Fatal(err)
	}
	exact := brute.Solve(md.Grounding.Graph, md.EvidenceUpTo(md.Horizon))
	for _, method := range []string{"bp", "lbp"} {
		out, stderr, code := run(t, "infer", "--dynamic", "--method", method, model, "-e", evDir, "-q", "Rain", "--output-format", "json", "--tol", "1e-12")
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", method, code, stderr)
		}
		var r dynOut
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		r.split()
		if r.Stats.Horizon != 5 || len(r.Filtered) != 6 || r.Smoothed == nil || len(r.Smoothed.Marginals) != 6 {
			t.Fatalf("%s: unexpected output %s", method, out)
		}
		for _, q := range md.Queries {
			if d := math.Abs(r.Smoothed.Marginals[q.Name] - exact.Marginals[q.Var][1]); d > 1e-9 {
				t.Errorf("%s: %s = %v, exact %v", method, q.Name, r.Smoothed.Marginals[q.Name], exact.Marginals[q.Var][1])
			}
		}
		if st := r.Smoothed.Stats; st.Edges == 0 || st.Messages == 0 || st.ClusterNodes == 0 || !st.Converged {
			t.Errorf("%s: stats %+v", method, st)
		}
	}
	// Any registered method runs on the unrolled graph: Gibbs sampling
	// agrees with enumeration up to its Monte Carlo error (Rao-Blackwellised
	// estimates over 2 x 20000 samples: standard errors well below 0.005).
	out, stderr, code := run(t, "infer", "--dynamic", "--smooth", "--method", "gibbs", "--samples", "20000", "--chains", "2", "--seed", "1",
		model, "-e", evDir, "-q", "Rain", "--output-format", "json")
	if code != 0 {
		t.Fatalf("gibbs: exit %d: %s", code, stderr)
	}
	var r dynOut
	err = json.Unmarshal([]byte(out), &r)
	r.split()
	if err != nil || r.Smoothed == nil {
		t.Fatalf("%v: %s", err, out)
	}
	for _, q := range md.Queries {
		if d := math.Abs(r.Smoothed.Marginals[q.Name] - exact.Marginals[q.Var][1]); d > 0.02 {
			t.Errorf("gibbs: %s = %v, exact %v", q.Name, r.Smoothed.Marginals[q.Name], exact.Marginals[q.Var][1])
		}
	}
}

func TestInferDynamicTextAndPlot(t *testing.T) {
	dir := t.TempDir()
	svg := filepath.Join(dir, "p.svg")
	args := []string{"infer", "--dynamic", "../../examples/mln/social-dynamic.mln", "-e", "../../examples/mln/social-dynamic.db",
		"-q", "Cancer(A,t)", "--horizon", "4", "--quiet", "--plot"}
	// The binary is built without -tags plot: PNG is refused before any
	// work, with how to get it (issue 39: no plotting modules by default).
	if _, stderr, code := run(t, append(args, filepath.Join(dir, "p.png"))...); code != 1 || !strings.Contains(stderr, "need a build with -tags plot") {
		t.Errorf("--plot p.png: exit %d: %s", code, stderr)
	}
	out, stderr, code := run(t, append(args, svg)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"// step 0: filtered", "// step 4: filtered", "// smoothed (evidence of steps 0..4)", "Cancer(A,4) "} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if b, err := os.ReadFile(svg); err != nil || !strings.HasPrefix(string(b), "<svg") || strings.Count(string(b), "<polyline") == 0 {
		t.Errorf("no SVG plot written: %v", err)
	}
}

func TestInferDynamicErrors(t *testing.T) {
	dir := t.TempDir()
	two := writeFile(t, dir, "two.mln", "time = {0,...,3}\nP(time)\n1 P(t) => P(t+2)\n")
	vars := writeFile(t, dir, "vars.mln", "time = {0,...,3}\nP(time)\n1 P(t) => P(u)\n1 P(t) => P(t+1)\n")
	ev := writeFile(t, dir, "late.db", "Umbrella(7)\n")
	hmm := writeFile(t, dir, "hmm.mln", dynHMM)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{two, "-q", "P"}, "two.mln:3:15: t+2 links time slices more than one step apart"},
		{[]string{vars, "-q", "P"}, "vars.mln:3:5: the formula has two time variables, t and u"},
		{[]string{hmm, "-q", "Rain", "-e", ev}, "the evidence names time step 7, beyond the horizon 5"},
		{[]string{hmm, "-q", "Rain", "--protocol", "zig"}, `unknown --protocol "zig"`},
		{[]string{hmm, "-q", "Rain", "--method", "gibbs", "--protocol", "fb"}, "--protocol applies to --method lbp and bp only"},
		{[]string{hmm, "-q", "Rain", "--schedule", "seq"}, "--schedule does not apply to --dynamic"},
	} {
		args := append([]string{"infer", "--dynamic"}, c.args...)
		_, stderr, code := run(t, args...)
		if code == 0 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want %q", c.args, code, stderr, c.want)
		}
	}
}
