package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

const (
	smokersMLN = "../../examples/mln/smokers.mln"
	smokersDB  = "../../examples/mln/smokers.db"
	mlnData    = "testdata/mln/"
)

// alchemyLines parses Alchemy's result format into names and values.
func alchemyLines(t *testing.T, out string) ([]string, map[string]float64) {
	t.Helper()
	// A marginal with more than its value carries its status in a
	// comment: "// mixed ±SE", or "// unresolved [lo, hi]: why" with
	// lo ≤ p ≤ hi.
	line := regexp.MustCompile(`^(\S+\)|[A-Za-z]\w*) (\S+)(?: // mixed(?: ±\S+)?| // unresolved \[(\S+), (\S+)\]: .+)?$`)
	var names []string
	vals := map[string]float64{}
	for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if strings.HasPrefix(l, "// Monte Carlo standard errors ") { // a sampler's closing line
			continue
		}
		m := line.FindStringSubmatch(l)
		if m == nil {
			t.Fatalf("bad output line %q", l)
		}
		p, err := strconv.ParseFloat(m[2], 64)
		if err != nil || p < 0 || p > 1 {
			t.Fatalf("bad probability in %q", l)
		}
		if m[3] != "" {
			lo, _ := strconv.ParseFloat(m[3], 64)
			hi, _ := strconv.ParseFloat(m[4], 64)
			if !(0 <= lo && lo <= p+5e-4 && p <= hi+5e-4 && hi <= 1) {
				t.Fatalf("interval not around the probability in %q", l)
			}
		}
		names = append(names, m[1])
		vals[m[1]] = p
	}
	return names, vals
}

func TestMLNAlchemyOutput(t *testing.T) {
	out, stderr, code := run(t, "infer", smokersMLN, "-e", smokersDB, "-q", "Smokes,Cancer")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	names, vals := alchemyLines(t, out)
	// 8 Cancer atoms and the 5 Smokes atoms the evidence leaves open,
	// Smokes first, each in constant order
	want := []string{"Smokes(Carl)", "Smokes(Dana)", "Smokes(Frank)", "Smokes(Gary)", "Smokes(Helen)",
		"Cancer(Anna)", "Cancer(Bob)", "Cancer(Carl)", "Cancer(Dana)", "Cancer(Edward)", "Cancer(Frank)", "Cancer(Gary)", "Cancer(Helen)"}
	if strings.Join(names, " ") != strings.Join(want, " ") {
		t.Fatalf("atoms %v", names)
	}
	// Bob does not smoke, so no formula touches Cancer(Bob); Anna smokes
	if vals["Cancer(Bob)"] != 0.5 || vals["Cancer(Anna)"] <= 0.5 {
		t.Fatalf("values %v", vals)
	}
	// -q repeated, atoms with constants, -r as -o
	path := filepath.Join(t.TempDir(), "out.result")
	stdout, _, code := run(t, "infer", smokersMLN, "-e", smokersDB, "-q", "Cancer(Anna)", "-q", "Friends(Anna,y)", "--ow", "Friends", "-r", path)
	b, err := os.ReadFile(path)
	if code != 0 || stdout != "" || err != nil {
		t.Fatalf("exit %d, stdout %q, %v", code, stdout, err)
	}
	names, _ = alchemyLines(t, string(b))
	if len(names) != 7 || names[0] != "Cancer(Anna)" || names[1] != "Friends(Anna,Anna)" || names[2] != "Friends(Anna,Dana)" {
		t.Fatalf("atoms %v", names)
	}
}

type mlnJSON struct {
	Marginals  map[string]float64 `json:"marginals"`
	Assignment map[string]int     `json:"assignment"`
	LogZ       *float64           `json:"log_z"`
	Stats      map[string]any     `json:"stats"`
}

func TestMLNJSONLiftedEqualsGround(t *testing.T) {
	var res [2]mlnJSON
	for i, m := range []string{"lbp", "bp"} {
		out, stderr, code := run(t, "infer", "--method", m, "--output-format", "json", smokersMLN, "-e", smokersDB, "-q", "Smokes,Cancer")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		if err := json.Unmarshal([]byte(out), &res[i]); err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{"variables", "factors", "edges", "clusternodes", "clusterfactors", "lifted_edges",
			"color_iterations", "color_seconds", "bp_iterations", "messages", "converged", "seconds", "ground_atoms", "ground_formulas"} {
			if _, ok := res[i].Stats[k]; !ok {
				t.Errorf("stats lack %q", k)
			}
		}
		if res[i].LogZ == nil || len(res[i].Marginals) != 13 {
			t.Fatalf("%s: %v", m, out)
		}
	}
	for k, p := range res[0].Marginals {
		if math.Abs(p-res[1].Marginals[k]) > 1e-9 {
			t.Fatalf("%s: lifted %v ground %v", k, p, res[1].Marginals[k])
		}
	}
	if res[0].Stats["clusternodes"].(float64) >= res[1].Stats["clusternodes"].(float64) {
		t.Errorf("no compression: %v", res[0].Stats)
	}
	// the JSON marginals print the Alchemy lines' values
	out, _, _ := run(t, "infer", smokersMLN, "-e", smokersDB, "-q", "Smokes,Cancer")
	_, vals := alchemyLines(t, out)
	for k, p := range vals {
		if math.Abs(p-res[0].Marginals[k]) > 5e-6 {
			t.Fatalf("%s: %v vs %v", k, p, res[0].Marginals[k])
		}
	}
}

func TestMLNMaxProduct(t *testing.T) {
	out, _, code := run(t, "infer", "--max-product", smokersMLN, "-e", smokersDB, "-q", "Cancer")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if !strings.HasSuffix(l, " 0") && !strings.HasSuffix(l, " 1") {
			t.Fatalf("line %q", l)
		}
	}
	out, _, code = run(t, "infer", "--max-product", "--output-format", "json", smokersMLN, "-e", smokersDB, "-q", "Cancer")
	var r mlnJSON
	if code != 0 || json.Unmarshal([]byte(out), &r) != nil || len(r.Assignment) != 8 || r.Marginals != nil {
		t.Fatalf("exit %d, output %q", code, out)
	}
	if r.Assignment["Cancer(Anna)"] != 1 {
		t.Fatalf("Anna smokes: %v", r.Assignment)
	}
}

func TestMLNErrors(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"infer", smokersMLN}, "no query: give the predicates to infer with -q, e.g. -q Smokes (this MLN declares Smokes, Cancer, Friends)"},
		{[]string{"infer", smokersMLN, "-q", "Smoke"}, `unknown predicate "Smoke" in the query list; did you mean "Smokes"?`},
		{[]string{"infer", smokersMLN, "-q", "Smokes(Zed)"}, "constant Zed in Smokes(Zed) is not in the domain of type person"},
		{[]string{"infer", smokersMLN, "-q", "Smokes(Anna, Bob)"}, "takes 1 argument"},
		{[]string{"infer", mlnData + "unweighted.mln", "-q", "Smokes"}, `unweighted.mln:5:1: formula 2 "Smokes(x) ^ Cancer(x)" has no weight`},
		{[]string{"infer", mlnData + "hard.mln", "-e", mlnData + "contradiction.db", "-q", "Knows"}, `contradictory evidence: hard formula 1 "Friends(x, y) => Knows(x, y)" (testdata/mln/hard.mln:5:1) is false for x = Anna, y = Bob`},
		{[]string{"infer", mlnData + "mutex.mln", "-e", mlnData + "mutex.db", "-q", "Likes"}, "every atom of Has(Bob,*) is false"},
		{[]string{"infer", smokersMLN, "-q", "Smokes", "--max-ground", "10", "--construction", "ground"}, "grounding would create about 80 ground atoms (Friends: 64); limit 10; raise --max-ground to allow it"},
		{[]string{"infer", mlnData + "syntax.mln", "-q", "Smokes"}, `syntax.mln:3:18: unknown predicate "Cancer"`},
		{[]string{"infer", mlnData + "badweight.mln", "-q", "Smokes"}, "badweight.mln:3:1:"},
		{[]string{"infer", mlnData + "hard.mln", "-e", mlnData + "unknownpred.db", "-q", "Knows"}, `unknownpred.db:1:1: unknown predicate "Smokes"`},
		{[]string{"infer", smokersMLN, "-q", "Smokes", "--output-format", "mar"}, "want alchemy or json"},
		{[]string{"infer", smokersMLN, "-q", "Smokes", "--default-weight", "x"}, "default-weight"},
		{[]string{"infer", smokersMLN, "-q", "Smokes", "--cw", "Smokes"}, `query predicate "Smokes" cannot be closed-world`},
		{[]string{"infer", smokersMLN, "-q", "Smokes", "-e", "no-such.db"}, "no-such.db: cannot read file"},
		{[]string{"infer", "no-such.mln", "-q", "Smokes"}, "no-such.mln: cannot read file"},
	}
	for _, c := range cases {
		out, stderr, code := run(t, c.args...)
		if code != 1 || !strings.Contains(stderr, c.want) || out != "" {
			t.Errorf("%v: exit %d, stderr %q (want %q)", c.args, code, stderr, c.want)
		}
	}
	out, stderr, code := run(t, "infer", mlnData+"unweighted.mln", "-q", "Smokes", "--default-weight", "0.5")
	if code != 0 || len(strings.Split(strings.TrimSpace(out), "\n")) != 2 {
		t.Fatalf("--default-weight: exit %d %q %q", code, out, stderr)
	}
}

// TestMLNNoPanic feeds mangled models and evidence to the command: every
// run must end with exit status 0 or 1 and no panic.
func TestMLNNoPanic(t *testing.T) {
	dir := t.TempDir()
	src, _ := os.ReadFile(mlnData + "exist.mln")
	ev, _ := os.ReadFile(smokersDB)
	r := rand.New(rand.NewPCG(1, 2))
	mangle := func(b []byte) []byte {
		b = bytes.Clone(b)
		for k := 0; k < 1+r.IntN(4); k++ {
			if len(b) == 0 {
				break
			}
			i := r.IntN(len(b))
			switch r.IntN(3) {
			case 0:
				chars := "(),!^v=>.\n xA1+?\"*"
				b[i] = chars[r.IntN(len(chars))]
			case 1:
				b = append(b[:i], b[i+1:]...)
			default:
				b = b[:i]
			}
		}
		return b
	}
	for i := 0; i < 40; i++ {
		m := filepath.Join(dir, fmt.Sprintf("m%d.mln", i))
		d := filepath.Join(dir, fmt.Sprintf("e%d.db", i))
		os.WriteFile(m, mangle(src), 0o644)
		os.WriteFile(d, mangle(ev), 0o644)
		for _, args := range [][]string{
			{"infer", m, "-q", "Smokes,Friends", "--default-weight", "1"},
			{"infer", smokersMLN, "-e", d, "-q", "Cancer"},
		} {
			_, stderr, code := run(t, args...)
			if code > 1 || strings.Contains(stderr, "panic") || strings.Contains(stderr, "NaN") {
				t.Fatalf("%v: exit %d\n%s", args, code, stderr)
			}
		}
	}
}

// TestMLNAlchemyRegression: friends-and-smokers with Smokes(P0) observed and
// Friends open-world, where Alchemy's lifted BP prints 0.418662 for
// P(Smokes(P1)) at any size. Ours equals Alchemy's ground BP (0.466 for its
// "n = 3", a domain of P0..P3).
func TestMLNAlchemyRegression(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "s.mln")
	ev := filepath.Join(dir, "s.db")
	os.WriteFile(model, []byte("person = {P0, P1, P2, P3}\nSmokes(person)\nCancer(person)\nFriends(person, person)\n"+
		"1.5 Smokes(x) => Cancer(x)\n1.1 Friends(x, y) ^ Smokes(x) => Smokes(y)\n"), 0o644)
	os.WriteFile(ev, []byte("Smokes(P0)\n"), 0o644)
	for _, m := range []string{"lbp", "bp"} {
		out, stderr, code := run(t, "infer", "--method", m, model, "-e", ev, "-q", "Smokes")
		if code != 0 || !strings.HasPrefix(out, "Smokes(P1) 0.466124\n") {
			t.Fatalf("%s: exit %d %q %s", m, code, out, stderr)
		}
	}
}

func TestCompressMLN(t *testing.T) {
	out, stderr, code := run(t, "compress", smokersMLN, "-e", smokersDB, "-q", "Smokes", "--quiet")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var st map[string]any
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatal(err)
	}
	num := func(k string) float64 { x, _ := st[k].(float64); return x }
	// Smokes open (5 unknown), Cancer open (8), Friends closed
	if num("ground_atoms") != 13 || num("variables") != 13 || num("clusternodes") == 0 || num("clusternodes") > 13 {
		t.Fatalf("stats %v", st)
	}
	if _, ok := st["ground_formulas"]; !ok {
		t.Fatalf("stats %v", st)
	}
}
