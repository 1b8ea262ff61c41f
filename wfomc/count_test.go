package wfomc

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
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
	// Cardinality constraints that the per-element counts must fill
	// (the WFOMC tool's permutation, function and 2-regular models): the
	// dynamic program prunes the states whose totals can no longer meet
	// the bound.
	{"functions as at least one and |P| = n", "!P(x,x).\nEXIST y P(x,y).\n|P| = 3\n0.4 P(x,y) ^ Q(y)\n-0.3 Q(x)\n", []int64{3}, []string{"P(E1_d,E2_d)", "Q(E1_d)"}},
	{"permutations as two functions", "!P(x,x).\nP(x,y) <=> R(y,x).\nEXIST y P(x,y).\nEXIST y R(x,y).\n|P| = 3\n|R| = 3\n0.5 P(x,y) ^ P(y,x)\n-0.4 R(x,y)\n", []int64{3}, []string{"P(E1_d,E2_d)"}},
	{"symmetric with |P| = 2n (two atoms per edge)", "!P(x,x).\nP(x,y) => P(y,x).\nEXIST y P(x,y).\n|P| = 4\n0.3 P(x,y) ^ Q(x)\n", []int64{3, 4}, []string{"P(E1_d,E2_d)", "Q(E1_d)"}},
	{"at most a total that the counts nearly fill", "EXIST>=1 y P(x,y).\n|P| <= 4\n0.6 P(x,y) ^ P(y,x)\n-0.2 P(x,x)\n", []int64{2, 3}, []string{"P(E1_d,E2_d)", "P(E1_d,E1_d)"}},
	{"exactly two per element, total bound with loops", "EXIST=2 y P(x,y).\n|P| <= 7\n0.5 P(x,x)\n0.3 P(x,y) ^ Q(y)\n", []int64{3}, []string{"P(E1_d,E1_d)", "Q(E1_d)"}},
	{"bound on another predicate than the counted one", "EXIST y P(x,y).\nP(x,y) => R(x,y).\n|R| = 3\n0.4 R(x,y)\n", []int64{2, 3}, []string{"R(E1_d,E2_d)"}},
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

// TestCountingGroundFallback: unary evidence on the counted type is
// lifted (its blocks' elements added in every order, order.go), against
// brute force; a second type in the component is refused by the counting
// component, and the ground fallback (ground.Builder's counting nodes)
// answers under AllowGround, against brute force.
func TestCountingGroundFallback(t *testing.T) {
	src := "EXIST=1 y P(x,y).\n0.7 P(x,y) ^ Q(x)\n"
	m := mustParse(t, c2Decl(src)+src)
	ev := []Literal{{Pred: "Q", Args: []string{"E1_d"}, Value: true}, {Pred: "Q", Args: []string{"E3_d"}, Value: false}}
	checkAgainstBrute(t, "evidence", m, weightsOf(m), map[string]int64{"d": 3}, ev, []string{"P(E1_d,E2_d)", "Q(E2_d)"}, nil)
	src = "EXIST=1 y P(x,y).\n0.7 P(x,y) ^ Q(x)\n0.4 Q(x) ^ T(x,u)\n"
	m = mustParse(t, c2Decl(src)+"T(d, e)\n"+src)
	if _, err := Compile(m, &Options{}); err == nil || !strings.Contains(err.Error(), "counting quantifier") {
		t.Fatalf("want a refusal naming the counting quantifier, got %v", err)
	}
	checkAgainstBrute(t, "ground fallback", m, weightsOf(m), map[string]int64{"d": 3, "e": 1}, ev, []string{"P(E1_d,E2_d)"}, &Options{AllowGround: true})
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

// TestCardinalityClosedForms: the WFOMC tool's cardinality models
// (testdata/anchor) at sizes brute force cannot reach, against closed
// forms: derangements D(n) (|F1| = |F2| = n with ∃ y F1(x,y), ∃ y
// F2(x,y)), functions without a fixed point (n−1)^n (|func| = n with ∃),
// and 2-regular graphs with each vertex's two edges told apart, 2^n·g(n)
// with g(n) = (n−1)·g(n−1) + C(n−1,2)·g(n−3) (OEIS A001205). Before the
// dynamic program pruned by the bounds, n = 14 took seconds.
func TestCardinalityClosedForms(t *testing.T) {
	logBig := func(x *big.Int) float64 {
		f, _ := new(big.Float).SetInt(x).Float64()
		if !math.IsInf(f, 0) {
			return math.Log(f)
		}
		l := x.BitLen() - 60
		f, _ = new(big.Float).SetInt(new(big.Int).Rsh(x, uint(l))).Float64()
		return math.Log(f) + float64(l)*math.Ln2
	}
	derange := func(n int) *big.Int {
		a, b := big.NewInt(1), big.NewInt(0) // D(0), D(1)
		for i := 2; i <= n; i++ {
			c := new(big.Int).Add(a, b)
			a, b = b, c.Mul(c, big.NewInt(int64(i-1)))
		}
		return b
	}
	twoRegular := func(n int) *big.Int {
		g := []*big.Int{big.NewInt(1), big.NewInt(0), big.NewInt(0)}
		for i := 3; i <= n; i++ {
			x := new(big.Int).Mul(big.NewInt(int64(i-1)), g[i-1])
			y := new(big.Int).Mul(big.NewInt(int64((i-1)*(i-2)/2)), g[i-3])
			g = append(g, x.Add(x, y))
		}
		return new(big.Int).Lsh(g[n], uint(n))
	}
	for _, c := range []struct {
		model, dom string
		n          int
		card       map[string]int
		want       *big.Int
	}{
		{"permutation-no-fix", "domain", 14, map[string]int{"F1": 14, "F2": 14}, derange(14)},
		{"permutation-no-fix", "domain", 30, map[string]int{"F1": 30, "F2": 30}, derange(30)},
		{"function-no-fix", "domain", 40, map[string]int{"func": 40}, new(big.Int).Exp(big.NewInt(39), big.NewInt(40), nil)},
		{"2-regular-graph", "v", 12, map[string]int{"E": 24}, twoRegular(12)},
		{"2-regular-graph", "v", 20, map[string]int{"E": 40}, twoRegular(20)},
	} {
		src, err := os.ReadFile(filepath.Join("testdata", "anchor", c.model+".mln"))
		if err != nil {
			t.Fatal(err)
		}
		text := string(src)
		for p, k := range c.card {
			text = regexp.MustCompile(`(?m)^\|`+p+`\| *= *[0-9]+`).ReplaceAllString(text, fmt.Sprintf("|%s| = %d", p, k))
		}
		m := mustParse(t, text)
		mod, err := Compile(m, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := mod.top.comps[0].(*countWrap); !ok || len(mod.top.comps) != 1 {
			t.Fatalf("%s: not one counting component", c.model)
		}
		got, err := mod.Evaluate(weightsOf(m), map[string]int64{c.dom: int64(c.n)})
		if err != nil {
			t.Fatalf("%s at n = %d: %v", c.model, c.n, err)
		}
		if want := logBig(c.want); math.Abs(got.LogZ-want) > 1e-12*want || !got.Exact() {
			t.Errorf("%s at n = %d: log Z = %.17g, want %.17g", c.model, c.n, got.LogZ, want)
		}
	}
}

// TestRandomCountingAgainstBruteForce: random models with counting
// quantifiers (∃=k, ∃≤k, ∃≥k, plain ∃) and cardinality constraints
// (|P| = k, ≤, ≥, on the counted predicate or another, binary or unary),
// beside random soft and hard formulas, against brute force: the bounds
// the dynamic program prunes by must never cut a world.
func TestRandomCountingAgainstBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(36, 5))
	atoms := []string{"P(x,y)", "P(y,x)", "P(x,x)", "Q(x)", "Q(y)", "R(x,y)", "R(y,x)", "x = y"}
	cmps := []string{"=", "<=", ">="}
	models := 400
	if testing.Short() {
		models = 100
	}
	checked, pruned := 0, 0
	for i := 0; i < models; i++ {
		var b strings.Builder
		writeRandomFormulas(r, &b, atoms)
		bin := []string{"P", "R"}
		for range 1 + r.IntN(2) {
			p := bin[r.IntN(2)]
			if r.IntN(3) == 0 {
				fmt.Fprintf(&b, "EXIST y %s(x,y).\n", p)
			} else {
				fmt.Fprintf(&b, "EXIST%s%d y %s(x,y).\n", cmps[r.IntN(3)], r.IntN(3), p)
			}
		}
		n := int64(2 + r.IntN(2))
		for range 1 + r.IntN(2) {
			p := []string{"P", "P", "R", "Q"}[r.IntN(4)]
			most := n * n
			if p == "Q" {
				most = n
			}
			fmt.Fprintf(&b, "|%s| %s %d\n", p, []string{"=", "<=", "<=", ">="}[r.IntN(4)], r.Int64N(most+1))
		}
		src := b.String()
		m, err := mlnfile.Parse("random.mln", []byte("P(d, d)\nQ(d)\nR(d, d)\n"+src))
		if err != nil {
			continue // a formula whose variables only occur in x = y
		}
		sizes := map[string]int64{"d": n}
		if len(newBruteWorld(m, sizes).atoms) > 18 {
			sizes["d"] = 2
		}
		want := brute(m, weightsOf(m), sizes, nil, nil, nil)
		if want.logZ != want.logZ || want.logZ < -1e300 {
			continue // no model
		}
		mod, err := Compile(m, &Options{})
		if err != nil {
			t.Fatalf("model %d: %v\n%s", i, err, src)
		}
		for _, comp := range mod.top.comps {
			if cw, ok := comp.(*countWrap); ok && cw.c.prunes(weightsOf(m)) {
				pruned++
				break
			}
		}
		checkAgainstBrute(t, fmt.Sprintf("model %d (n = %d)", i, sizes["d"]), m, weightsOf(m), sizes, nil, []string{"P(E1_d,E2_d)"}, nil)
		checked++
	}
	t.Logf("%d of %d random models checked against brute force (the others have no world), %d of them pruned by a bound", checked, models, pruned)
	// The bound must be exercised, not hit a share: 38 of 186 in the full
	// run, 7 of the -short run's 100 models (which failed the old
	// "a fifth of those checked").
	if checked < models/3 || pruned < 5 {
		t.Fatalf("only %d of %d models checked, %d pruned", checked, models, pruned)
	}
}

// TestRandomLinearCardinalityAgainstBruteForce: random models with linear
// cardinality constraints Σ a_i·|P_i| cmp k (coefficients −2…2, =, <=, >=,
// !=, over unary and binary predicates), beside weighted formulas,
// counting quantifiers and plain cardinality constraints, against
// enumeration of every world: log Z, expected counts and a marginal.
func TestRandomLinearCardinalityAgainstBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(36, 77))
	atoms := []string{"P(x,y)", "P(y,x)", "P(x,x)", "Q(x)", "Q(y)", "R(x,y)", "S(x)", "x = y"}
	models := 150
	if testing.Short() {
		models = 50
	}
	checked := 0
	for i := 0; i < models; i++ {
		var b strings.Builder
		writeRandomFormulas(r, &b, atoms)
		if r.IntN(3) == 0 {
			fmt.Fprintf(&b, "EXIST%s%d y %s(x,y).\n", []string{"=", "<=", ">="}[r.IntN(3)], r.IntN(3), []string{"P", "R"}[r.IntN(2)])
		}
		if r.IntN(4) == 0 {
			fmt.Fprintf(&b, "|Q| <= %d\n", r.IntN(3))
		}
		n := int64(2 + r.IntN(2))
		for range 1 + r.IntN(2) {
			preds := []string{"P", "Q", "R", "S"}
			r.Shuffle(len(preds), func(i, j int) { preds[i], preds[j] = preds[j], preds[i] })
			terms := 1 + r.IntN(3)
			k := int64(0)
			for j := range terms {
				a := []int{-2, -1, 1, 2}[r.IntN(4)]
				if j == 0 && terms == 1 && a == 1 {
					a = 2 // one term with coefficient 1 is the plain |P| = k
				}
				most := n
				if preds[j] == "P" || preds[j] == "R" {
					most = n * n
				}
				k += int64(a) * r.Int64N(most+1) // the sum of some world
				switch {
				case j == 0 && a < 0:
					fmt.Fprintf(&b, "%d |%s|", a, preds[j])
				case j == 0:
					fmt.Fprintf(&b, "%d |%s|", a, preds[j])
				case a < 0:
					fmt.Fprintf(&b, " - %d |%s|", -a, preds[j])
				default:
					fmt.Fprintf(&b, " + %d |%s|", a, preds[j])
				}
			}
			fmt.Fprintf(&b, " %s %d\n", []string{"=", "<=", ">=", "!=", "<", ">"}[r.IntN(6)], k)
		}
		src := b.String()
		m, err := mlnfile.Parse("random.mln", []byte("P(d, d)\nQ(d)\nR(d, d)\nS(d)\n"+src))
		if err != nil {
			continue // a formula whose variables only occur in x = y
		}
		sizes := map[string]int64{"d": n}
		if len(newBruteWorld(m, sizes).atoms) > 18 {
			sizes["d"] = 2
		}
		want := brute(m, weightsOf(m), sizes, nil, nil, nil)
		if want.logZ != want.logZ || want.logZ < -1e300 {
			continue // no model
		}
		if _, err := Compile(m, &Options{}); err != nil {
			t.Fatalf("model %d: %v\n%s", i, err, src)
		}
		checkAgainstBrute(t, fmt.Sprintf("model %d (n = %d)", i, sizes["d"]), m, weightsOf(m), sizes, nil, []string{"P(E1_d,E2_d)"}, nil)
		checked++
	}
	t.Logf("%d of %d random models checked against brute force (the others have no world)", checked, models)
	if checked < models/3 {
		t.Fatalf("only %d of %d models checked", checked, models)
	}
}

// TestLinearCardinalityClosedForms: |A| − |B| = 0 counts the worlds where
// A and B have as many true atoms: Σ_k C(a,k)·C(b,k) over their a and b
// atoms (C(2n,n) for two unary predicates; Σ_k C(n²,k)·C(n,k) for a binary
// and a unary one), and |A| + 2|B| <= k the worlds Σ_{i+2j<=k} C(a,i)·C(b,j).
// (The WFOMC tool's molecule model, |AuxBond| − |H| = 0: TestAnchorWFOMCTool.)
func TestLinearCardinalityClosedForms(t *testing.T) {
	lc := func(n, k int64) float64 {
		a, _ := math.Lgamma(float64(n + 1))
		b, _ := math.Lgamma(float64(k + 1))
		c, _ := math.Lgamma(float64(n - k + 1))
		return a - b - c
	}
	logSum := func(terms []float64) float64 {
		mx := math.Inf(-1)
		for _, x := range terms {
			mx = math.Max(mx, x)
		}
		s := 0.0
		for _, x := range terms {
			s += math.Exp(x - mx)
		}
		return mx + math.Log(s)
	}
	for _, c := range []struct {
		decl, cons string
		n          int64
		want       func(n int64) float64
	}{
		{"A(d)\nB(d)\n", "|A| - |B| = 0", 30, func(n int64) float64 { return lc(2*n, n) }},
		{"A(d, d)\nB(d)\n", "|A| - |B| = 0", 10, func(n int64) float64 {
			var ts []float64
			for k := int64(0); k <= n; k++ {
				ts = append(ts, lc(n*n, k)+lc(n, k))
			}
			return logSum(ts)
		}},
		{"A(d)\nB(d)\n", "|A| + 2 |B| <= 7", 9, func(n int64) float64 {
			var ts []float64
			for i := int64(0); i <= n; i++ {
				for j := int64(0); j <= n; j++ {
					if i+2*j <= 7 {
						ts = append(ts, lc(n, i)+lc(n, j))
					}
				}
			}
			return logSum(ts)
		}},
	} {
		m, err := mlnfile.Parse("lin.mln", []byte(c.decl+c.cons+"\n"))
		if err != nil {
			t.Fatal(err)
		}
		mod, err := Compile(m, &Options{})
		if err != nil {
			t.Fatalf("%s: %v", c.cons, err)
		}
		res, err := mod.Evaluate(weightsOf(m), map[string]int64{"d": c.n})
		if err != nil {
			t.Fatalf("%s: %v", c.cons, err)
		}
		if want := c.want(c.n); math.Abs(res.LogZ-want) > 1e-12*math.Abs(want) || !res.Exact() {
			t.Errorf("%s%s at n = %d: log Z = %.17g, want %.17g", c.decl, c.cons, c.n, res.LogZ, want)
		}
	}
}

// writeRandomFormulas writes one to three random formulas over atoms
// (each a literal, or two joined by v, ^ or =>; a fifth hard, the rest
// weighted in [-1.5, 1.5]) to b; the second atom of a pair is never the
// last of atoms.
func writeRandomFormulas(r *rand.Rand, b *strings.Builder, atoms []string) {
	for range 1 + r.IntN(3) {
		body := atoms[r.IntN(len(atoms))]
		if r.IntN(2) == 0 {
			body = "!" + paren(body)
		}
		if r.IntN(2) == 0 {
			body = paren(body) + []string{" v ", " ^ ", " => "}[r.IntN(3)] + atoms[r.IntN(len(atoms)-1)]
		}
		if r.IntN(5) == 0 {
			fmt.Fprintf(b, "%s.\n", body)
		} else {
			fmt.Fprintf(b, "%.3f %s\n", -1.5+3*r.Float64(), body)
		}
	}
}
