package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	mlnfile "github.com/lifted-dev/lifted/format/mlnfile"
)

const wfDir = "testdata/wfomc/"

// wfomcJSON is wfomc's JSON (engine/result.schema.json): the expected
// counts and seconds are in stats.
type wfomcJSON struct {
	LogZ      float64            `json:"log_z"`
	LogZKind  string             `json:"log_z_kind"`
	Marginals map[string]float64 `json:"marginals"`
	Stats     struct {
		ExpectedCounts []float64 `json:"expected_counts"`
		Seconds        *float64  `json:"seconds"`
	} `json:"stats"`
}

func TestWfomcJSON(t *testing.T) {
	out, stderr, code := run(t, "wfomc", wfDir+"friendsmoker.mln", "--query", "friends(Guy,Nima)", "-q", "smokes(Guy)", "--output-format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var r wfomcJSON
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if math.Abs(r.LogZ-68.63908810719217) > 1e-11 {
		t.Errorf("log_z = %.17g, Forclift 68.63908810719217", r.LogZ)
	}
	if math.Abs(r.Marginals["friends(Guy,Nima)"]-0.4580488556024473) > 1e-12 || math.Abs(r.Marginals["smokes(Guy)"]-0.5) > 1e-12 {
		t.Errorf("marginals %v", r.Marginals)
	}
	if len(r.Stats.ExpectedCounts) != 1 || r.LogZKind != "exact" || r.Stats.Seconds == nil {
		t.Errorf("expected_counts %v, seconds %v", r.Stats.ExpectedCounts, r.Stats.Seconds)
	}
}

func TestWfomcTextAndDomain(t *testing.T) {
	out, stderr, code := run(t, "wfomc", wfDir+"friendsmoker.mln", "--domain", "person=1000000")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"log Z = ", "expected counts:", "friends(x,y) ^ smokes(x) => smokes(y)", "seconds = "} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	line := strings.SplitN(out, "\n", 2)[0]
	lz, err := strconv.ParseFloat(strings.TrimPrefix(line, "log Z = "), 64)
	// n² friends atoms and n smokes atoms, each ground formula worth at
	// most e²: n ln 2 + n²(ln 2 + 2) bounds log Z from above.
	if err != nil || lz < 1e12*math.Ln2 || lz > 1e6*math.Ln2+1e12*(math.Ln2+2) {
		t.Errorf("log Z line %q", line)
	}
}

func TestWfomcEvidence(t *testing.T) {
	out, stderr, code := run(t, "wfomc", wfDir+"friendsmoker.mln", "-e", wfDir+"evidence.db", "-q", "smokes(Guy)", "-q", "friends(Wannes,Jesse)", "--output-format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var r wfomcJSON
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	// Conditioning removes worlds: log Z falls. The evidence (Wannes
	// smokes, Jesse does not) is symmetric for Guy: P(smokes(Guy)) stays
	// 0.5; friends(Wannes,Jesse) violates the formula: 1/(1 + e^2).
	if !(r.LogZ < 68.63908810719217) || math.Abs(r.Marginals["smokes(Guy)"]-0.5) > 1e-15 ||
		math.Abs(r.Marginals["friends(Wannes,Jesse)"]-1/(1+math.Exp(2))) > 1e-15 {
		t.Errorf("evidence had no effect: %+v", r)
	}
}

func TestWfomcBeyondFO2(t *testing.T) {
	_, stderr, code := run(t, "wfomc", wfDir+"transitive.mln")
	if code == 0 || !strings.Contains(stderr, "--allow-ground") || !strings.Contains(stderr, "Knows(x,y) ^ Knows(y,z) => Knows(x,z)") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
	out, stderr, code := run(t, "wfomc", wfDir+"transitive.mln", "--allow-ground", "--output-format", "json")
	if code != 0 {
		t.Fatalf("--allow-ground: exit %d: %s", code, stderr)
	}
	var r wfomcJSON
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if !(r.LogZ > 9*math.Ln2) || r.Stats.ExpectedCounts[0] > 27 {
		t.Errorf("ground fallback: %+v", r)
	}
}

func TestWfomcUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"wfomc"},
		{"wfomc", wfDir + "friendsmoker.mln", "--domain", "person"},
		{"wfomc", wfDir + "friendsmoker.mln", "--domain", "people=3"},
		{"wfomc", wfDir + "friendsmoker.mln", "--output-format", "xml"},
		{"wfomc", wfDir + "friendsmoker.mln", "-q", "smokes(x)"},
	} {
		_, stderr, code := run(t, args...)
		if code == 0 || !strings.Contains(stderr, " --help' for usage") {
			t.Errorf("%v: exit %d, stderr %q; want a usage error", args, code, stderr)
		}
	}
	_, stderr, code := run(t, "wfomc", wfDir+"friendsmoker.mln", "--domain", "person=2")
	if code == 0 || !strings.Contains(stderr, "constants are named") {
		t.Errorf("domain smaller than its constants: exit %d, stderr %q", code, stderr)
	}
}

func TestLearnLWLAndLoglik(t *testing.T) {
	dir := t.TempDir()
	learned := filepath.Join(dir, "learned.mln")
	_, stderr, code := run(t, "learn", "--method", "lwl", "-i", wfDir+"smoking.mln", "-t", wfDir+"train.db", "-o", learned)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	m, err := mlnfile.ParseFile(learned)
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{6.819112, -7.512383, -0.951713, 7.511290, 0.490357, 0.490357}
	for j, f := range m.Formulas {
		if !f.HasWeight || math.Abs(f.Weight-want[j]) > 1e-4 {
			t.Errorf("formula %d: weight %v, want %v", j+1, f.Weight, want[j])
		}
	}
	src, _ := os.ReadFile(learned)
	if !strings.Contains(string(src), " Friends(x,y) ^ Smokes(x) => Smokes(y)\n") {
		t.Errorf("formula text not kept:\n%s", src)
	}
	// The learned model's training log-likelihood, reported by loglik.
	out, stderr, code := run(t, "loglik", learned, wfDir+"train.db", wfDir+"test.db", "--output-format", "json")
	if code != 0 {
		t.Fatalf("loglik: exit %d: %s", code, stderr)
	}
	var r struct {
		Databases []struct {
			LogLik float64   `json:"log_likelihood"`
			LogZ   float64   `json:"log_z"`
			Counts []float64 `json:"counts"`
		} `json:"databases"`
		Total float64 `json:"log_likelihood"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if len(r.Databases) != 2 || math.Abs(r.Databases[0].LogLik+r.Databases[1].LogLik-r.Total) > 1e-9 {
		t.Fatalf("loglik output %s", out)
	}
	d := r.Databases[0]
	ll := -d.LogZ
	for j, f := range m.Formulas {
		ll += f.Weight * d.Counts[j]
	}
	if math.Abs(ll-d.LogLik) > 1e-9 || d.LogLik > 0 {
		t.Errorf("log-likelihood %v, recomputed %v", d.LogLik, ll)
	}
	// loglik's log Z is wfomc's log Z at the database's domain size.
	wout, _, _ := run(t, "wfomc", learned, "--domain", "person=8", "--output-format", "json")
	var w wfomcJSON
	if err := json.Unmarshal([]byte(wout), &w); err != nil || math.Abs(w.LogZ-d.LogZ) > 1e-9 {
		t.Errorf("wfomc log Z %v (%v), loglik's %v", w.LogZ, err, d.LogZ)
	}
}

func TestLearnPLLAndErrors(t *testing.T) {
	out, stderr, code := run(t, "learn", "--method", "pll", "-i", wfDir+"smoking.mln", "-t", wfDir+"train.db,"+wfDir+"test.db", "--quiet")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	m, err := mlnfile.Parse("out.mln", []byte(out))
	if err != nil || len(m.Formulas) != 6 {
		t.Fatalf("pll output does not parse back (%v):\n%s", err, out)
	}
	for _, args := range [][]string{
		{"learn", "-t", wfDir + "train.db"},
		{"learn", "-i", wfDir + "smoking.mln"},
		{"learn", "--method", "mcmc", "-i", wfDir + "smoking.mln", "-t", wfDir + "train.db"},
		{"loglik", wfDir + "smoking.mln"},
	} {
		_, stderr, code := run(t, args...)
		if code == 0 || !strings.Contains(stderr, " --help' for usage") {
			t.Errorf("%v: exit %d, stderr %q; want a usage error", args, code, stderr)
		}
	}
	// Unweighted formulas: loglik needs weights.
	_, stderr, code = run(t, "loglik", wfDir+"smoking.mln", wfDir+"test.db")
	if code == 0 || !strings.Contains(stderr, "no weight") {
		t.Errorf("unweighted model: exit %d, stderr %q", code, stderr)
	}
}

// "+x" formulas: learn writes one formula per constant (Alchemy's output);
// loglik and wfomc read them as one formula per constant, all with the
// formula's weight, which is the tied formula.
func TestPerConstantFormulasCLI(t *testing.T) {
	dir := t.TempDir()
	decl := "person = {A, B, C}\nSmokes(person)\nCancer(person)\nFriends(person, person)\n"
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	structure := write("s.mln", decl+"Smokes(+x) => Cancer(x)\nFriends(x, y) ^ Smokes(x) => Smokes(y)\n")
	// D is only in the data: it gets a formula too.
	train := write("t.db", "Smokes(A)\nCancer(A)\nSmokes(B)\nFriends(A, B)\nSmokes(D)\n")
	out, stderr, code := run(t, "learn", "--method", "pll", "-i", structure, "-t", train, "--quiet")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{" Smokes(A) => Cancer(A)\n", " Smokes(B) => Cancer(B)\n", " Smokes(C) => Cancer(C)\n", " Smokes(D) => Cancer(D)\n", " Friends(x, y) ^ Smokes(x) => Smokes(y)\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("learned model lacks %q:\n%s", want, out)
		}
	}
	if m, err := mlnfile.Parse("out.mln", []byte(out)); err != nil || len(m.Formulas) != 5 {
		t.Errorf("learned model does not read back with 5 formulas (%v):\n%s", err, out)
	}

	small := write("s.db", "Smokes(A)\nCancer(A)\nSmokes(B)\nFriends(A, B)\n")
	perConst := write("w.mln", decl+"0.7 Smokes(+x) => Cancer(x)\n1.1 Friends(x, y) ^ Smokes(x) => Smokes(y)\n")
	tied := write("w0.mln", decl+"0.7 Smokes(x) => Cancer(x)\n1.1 Friends(x, y) ^ Smokes(x) => Smokes(y)\n")
	for _, args := range [][]string{{"loglik", "--output-format", "json"}, {"wfomc", "--output-format", "json"}} {
		var got [2]map[string]any
		for i, model := range []string{perConst, tied} {
			a := append(append([]string(nil), args...), model)
			if args[0] == "loglik" {
				a = append(a, small)
			}
			out, stderr, code := run(t, a...)
			if code != 0 {
				t.Fatalf("%v: exit %d: %s", a, code, stderr)
			}
			if err := json.Unmarshal([]byte(out), &got[i]); err != nil {
				t.Fatal(err)
			}
		}
		key := map[string]string{"loglik": "log_likelihood", "wfomc": "log_z"}[args[0]]
		a, b := got[0][key].(float64), got[1][key].(float64)
		if math.Abs(a-b) > 1e-12*math.Abs(b) {
			t.Errorf("%s: %s %.15g with +x, %.15g tied", args[0], key, a, b)
		}
	}
	// Starred atoms: one formula per sign combination, each learned; read
	// with the written weight they are the written-out formulas.
	star := write("star.mln", decl+"0.5 *Smokes(x) => Cancer(x)\n")
	written := write("written.mln", decl+"0.5 Smokes(x) => Cancer(x)\n0.5 !Smokes(x) => Cancer(x)\n")
	out, stderr, code = run(t, "learn", "--method", "lwl", "-i", star, "-t", small, "--quiet")
	if code != 0 || !strings.Contains(out, " Smokes(x) => Cancer(x)\n") || !strings.Contains(out, " !Smokes(x) => Cancer(x)\n") {
		t.Errorf("learn with *: exit %d, %s\n%s", code, stderr, out)
	}
	var lls [2]string
	for i, model := range []string{star, written} {
		if lls[i], stderr, code = run(t, "loglik", model, small); code != 0 {
			t.Fatalf("loglik %s: exit %d: %s", model, code, stderr)
		}
		lls[i], _, _ = strings.Cut(lls[i], "\t")
	}
	if lls[0] != lls[1] {
		t.Errorf("loglik with *: %s, written out: %s", lls[0], lls[1])
	}

	_, stderr, code = run(t, "wfomc", "--domain", "person=5", perConst)
	if code == 0 || !strings.Contains(stderr, "must all be named") {
		t.Errorf("+x with unnamed elements: exit %d, %q", code, stderr)
	}
}
