package wfomc

import (
	"context"
	"errors"
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"

	mlnfile "github.com/lifted-dev/lifted/format/mlnfile"
)

// c2Decl declares the predicates src uses (brute force enumerates every
// declared atom).
func c2Decl(src string) string {
	var b strings.Builder
	for _, d := range []string{"P(d, d)", "Q(d)", "R(d, d)", "mate(d, d)", "S(d)"} {
		if strings.Contains(src, d[:strings.IndexByte(d, '(')+1]) {
			b.WriteString(d + "\n")
		}
	}
	return b.String()
}

// c2Models are models with counting quantifiers (and the functionality
// pattern), each checked against brute-force enumeration of its worlds
// (log Z, every expected count, the query marginals) at the sizes given.
var c2Models = []struct {
	name, src string
	sizes     []int64
	queries   []string
}{
	{"exactly-1 (functions)", "EXIST=1 y P(x,y).\n0.7 P(x,y) ^ Q(x)\n-0.4 Q(x)\n", []int64{1, 2, 3}, []string{"P(E1_d,E2_d)", "P(E1_d,E1_d)", "Q(E1_d)"}},
	{"exactly-1 counted on the first argument", "EXIST=1 x P(x,y).\n1.1 P(x,y) ^ Q(x)\n0.3 P(x,y) ^ Q(y)\n", []int64{2, 3}, []string{"P(E1_d,E2_d)"}},
	{"at most 2", "EXIST<=2 y P(x,y).\n0.5 P(x,y) => P(y,x)\n0.3 Q(y) ^ P(x,y)\n", []int64{1, 3}, []string{"P(E1_d,E2_d)", "Q(E1_d)"}},
	{"at least 2 of a compound formula", "EXIST>=2 y (P(x,y) v Q(y)).\n-0.6 P(x,y)\n0.9 Q(x)\n", []int64{2, 3}, []string{"P(E1_d,E2_d)", "Q(E1_d)"}},
	{"exactly 2 with loops", "EXIST=2 y P(x,y).\n0.4 P(x,x)\n-0.2 P(x,y) ^ P(y,x)\n", []int64{2, 3}, []string{"P(E1_d,E1_d)", "P(E1_d,E2_d)"}},
	{"perfect matchings (deskmate)", "!mate(x,x).\nmate(x,y) => mate(y,x).\nEXIST=1 y mate(x,y).\n0.8 mate(x,y) ^ S(x) ^ S(y)\n-0.3 S(x)\n", []int64{2, 4}, []string{"mate(E1_d,E2_d)", "S(E1_d)"}},
	{"functionality pattern (at most one)", "P(x,y) ^ P(x,z) => y = z.\n0.5 P(x,y) ^ Q(y)\n0.2 Q(x)\n", []int64{1, 3}, []string{"P(E1_d,E2_d)"}},
	{"functionality pattern with EXIST (exactly one)", "P(x,y) ^ P(x,z) => y = z.\nEXIST y P(x,y).\n0.5 P(x,y) ^ Q(y)\n", []int64{2, 3}, []string{"P(E1_d,E2_d)", "Q(E1_d)"}},
	{"functionality on the first argument", "P(y,x) ^ P(z,x) => y = z.\n-0.5 P(x,y) ^ Q(x)\n", []int64{3}, nil},
	{"counting beside a Skolem existential", "EXIST<=1 y P(x,y).\nEXIST y R(x,y).\n0.5 P(x,y) ^ R(x,y)\n-0.7 R(x,y)\n", []int64{1, 2, 3}, []string{"R(E1_d,E2_d)"}},
	{"two constraints on one predicate", "EXIST>=1 y P(x,y).\nEXIST<=1 x P(x,y).\n0.3 P(x,y) ^ Q(x)\n", []int64{2, 3}, []string{"P(E1_d,E2_d)"}},
	{"cardinality of a symmetric relation", "P(x,y) => P(y,x).\n|P| = 4\n0.3 P(x,y) ^ Q(x)\n", []int64{2, 3}, []string{"P(E1_d,E2_d)", "Q(E1_d)"}},
	{"cardinality of a unary predicate (at most)", "|Q| <= 1\n0.5 P(x,y) ^ Q(x)\n-0.2 P(x,y)\n", []int64{1, 2, 3}, []string{"Q(E1_d)"}},
	{"cardinality (at least) with at most one per element", "EXIST<=1 y P(x,y).\n|P| >= 2\n0.4 P(x,y)\n", []int64{2, 3}, []string{"P(E1_d,E2_d)"}},
	{"cardinality with loops and an existential", "|P| = 2\n0.7 P(x,x)\nEXIST y R(x,y).\n0.2 R(x,y) ^ P(x,y)\n", []int64{2, 3}, []string{"P(E1_d,E1_d)"}},
	{"cardinality written as a counting quantifier", "EXIST=3 x,y P(x,y).\nEXIST>=1 x Q(x).\n0.5 P(x,y) => Q(x)\n", []int64{2, 3}, nil},
	{"at least 0 and exactly 0", "EXIST>=0 y P(x,y).\nEXIST=0 y R(x,y).\n0.3 P(x,y)\n0.2 R(x,y)\n", []int64{2, 3}, nil},
}

func TestCountingAgainstBruteForce(t *testing.T) {
	for _, c := range c2Models {
		m := mustParse(t, c2Decl(c.src)+c.src)
		for _, n := range c.sizes {
			var qs []string
			if n >= 2 {
				qs = c.queries
			}
			checkAgainstBrute(t, c.name, m, weightsOf(m), map[string]int64{"d": n}, nil, qs, nil)
		}
	}
}

// TestCountingIsLifted: the models above are answered by the counting
// component, not by the ground fallback.
func TestCountingIsLifted(t *testing.T) {
	for _, c := range c2Models {
		m := mustParse(t, c2Decl(c.src)+c.src)
		mod, err := Compile(m, &Options{})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		found := false
		for _, comp := range mod.top.comps {
			_, ok := comp.(*countWrap)
			found = found || ok
		}
		if !found {
			t.Errorf("%s: no counting component", c.name)
		}
	}
}

// TestCountingGroundFallback: with evidence on the counted type the
// counting component refuses, and the ground fallback (ground.Builder's
// counting nodes) answers under AllowGround, against brute force.
func TestCountingGroundFallback(t *testing.T) {
	src := "EXIST=1 y P(x,y).\n0.7 P(x,y) ^ Q(x)\n"
	m := mustParse(t, c2Decl(src)+src)
	ev := []Literal{{Pred: "Q", Args: []string{"E1_d"}, Value: true}}
	if _, err := Compile(m, &Options{Evidence: ev}); err == nil || !strings.Contains(err.Error(), "counting quantifier") {
		t.Fatalf("want a refusal naming the counting quantifier, got %v", err)
	}
	checkAgainstBrute(t, "ground fallback", m, weightsOf(m), map[string]int64{"d": 3}, ev, []string{"P(E1_d,E2_d)"}, &Options{AllowGround: true})
}

// TestDeskmateClosedForm: the deskmate model (examples/mln/wfomc; the WFOMC
// tool's) has Z = (n−1)!!·(1+e)^n·(2e)^(n(n−2))·e^n: a perfect matching,
// each of its n ordered pairs with fr free (1 + e), every other ordered
// pair of distinct students with fr free (2e), every x = y grounding true.
// Odd n has no perfect matching.
func TestDeskmateClosedForm(t *testing.T) {
	m, err := mlnfile.ParseFile(filepath.Join("..", "examples", "mln", "wfomc", "deskmate.mln"))
	if err != nil {
		t.Fatal(err)
	}
	mod, err := Compile(m, &Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int64{2, 4, 8, 30, 100} {
		res, err := mod.Evaluate(weightsOf(m), map[string]int64{"student": n})
		if err != nil {
			t.Fatalf("n = %d: %v", n, err)
		}
		lf := 0.0
		for k := int64(1); k < n; k += 2 {
			lf += math.Log(float64(k))
		}
		fn := float64(n)
		want := lf + fn*math.Log1p(math.E) + fn*(fn-2)*(1+math.Ln2) + fn
		if math.Abs(res.LogZ-want) > 1e-12*want || !res.Exact() {
			t.Errorf("n = %d: log Z = %.17g, closed form %.17g", n, res.LogZ, want)
		}
		// E[mate(x,y) => fr(x,y)] = n + n·e/(1+e) + n(n−2).
		wantE := fn + fn*math.E/(1+math.E) + fn*(fn-2)
		if got := res.ExpectedCounts[5]; math.Abs(got-wantE) > 1e-10*wantE {
			t.Errorf("n = %d: E[n_6] = %.17g, closed form %.17g", n, got, wantE)
		}
	}
	_, err = mod.Evaluate(weightsOf(m), map[string]int64{"student": 5})
	var z *zeroError
	if !errors.As(err, &z) {
		t.Errorf("n = 5: want no model (Z = 0), got %v", err)
	}
}

// TestPerfectMatchingCount: the number of perfect matchings of 2m
// elements is (2m−1)!!.
func TestPerfectMatchingCount(t *testing.T) {
	m := mustParse(t, "mate(d, d)\n!mate(x,x).\nmate(x,y) => mate(y,x).\nmate(x,y) ^ mate(x,z) => y = z.\nEXIST y mate(x,y).\n")
	mod, err := Compile(m, &Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int64{0, 2, 6, 12, 40} {
		res, err := mod.Evaluate(weightsOf(m), map[string]int64{"d": n})
		if err != nil {
			t.Fatalf("n = %d: %v", n, err)
		}
		want := 0.0
		for k := int64(1); k < n; k += 2 {
			want += math.Log(float64(k))
		}
		if math.Abs(res.LogZ-want) > 1e-13*max(1, want) || !res.Exact() {
			t.Errorf("n = %d: log Z = %.17g, log (n−1)!! = %.17g", n, res.LogZ, want)
		}
	}
}

// TestCountingBudget: the counting program's size is estimated before it
// starts (reachable groups: a polynomial of degree 2 in n for deskmate),
// and refused at once beyond Options.MaxTerms; a cancelled context stops
// it.
func TestCountingBudget(t *testing.T) {
	m, err := mlnfile.ParseFile(filepath.Join("..", "examples", "mln", "wfomc", "deskmate.mln"))
	if err != nil {
		t.Fatal(err)
	}
	mod, err := Compile(m, &Options{MaxTerms: 1e6})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = mod.Evaluate(weightsOf(m), map[string]int64{"student": 2000})
	var te *TermsError
	if !errors.As(err, &te) || te.Terms < 2e6 || te.Classes != 2 {
		t.Fatalf("n = 2000 under a budget of 1e6: want a TermsError of about 2e6 terms and 2 groups, got %v", err)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("refused after %v, not before starting", d)
	}
	if _, err := mod.Evaluate(weightsOf(m), map[string]int64{"student": 200}); err != nil {
		t.Errorf("n = 200 within the budget: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := mod.EvaluateContext(ctx, weightsOf(m), map[string]int64{"student": 1000}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: got %v", err)
	}
}
