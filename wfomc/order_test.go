package wfomc

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	mlnfile "github.com/lifted-dev/lifted/format/mlnfile"
	"github.com/lifted-dev/lifted/mln"
)

// bruteOrders is brute force with the linear order axiom: every order of
// the domain of the ordered type enumerated explicitly, the order
// predicates' atoms set from it as evidence, the worlds of the others
// enumerated (brute), and the results summed over the orders.
func bruteOrders(t *testing.T, m *mln.MLN, weights []float64, sizes map[string]int64, evidence []Literal, queries []string) bruteResult {
	t.Helper()
	w := newBruteWorld(m, sizes)
	typ := -1
	for _, p := range m.Preds {
		if k, _ := orderOf(p.Name); k != ordNone {
			typ = p.TypeIdx[0]
		}
	}
	if typ < 0 {
		return brute(m, weights, sizes, evidence, queries, nil)
	}
	dom := w.dom[typ]
	n := len(dom)
	var perms [][]int
	var rec func(p []int, used []bool)
	rec = func(p []int, used []bool) {
		if len(p) == n {
			perms = append(perms, append([]int(nil), p...))
			return
		}
		for i := range n {
			if !used[i] {
				used[i] = true
				rec(append(p, i), used)
				used[i] = false
			}
		}
	}
	rec(nil, make([]bool, n))
	var logs []float64
	var all []bruteResult
	for _, perm := range perms {
		pos := make([]int, n) // pos[element] = place in the order
		for place, e := range perm {
			pos[e] = place
		}
		ev := append([]Literal(nil), evidence...)
		for _, p := range m.Preds {
			k, d := orderOf(p.Name)
			if k == ordNone {
				continue
			}
			for a := range n {
				for b := range n {
					var v bool
					switch k {
					case ordLeq:
						v = pos[a] <= pos[b]
					case ordPred:
						v = pos[b]-pos[a] == d
					case ordCirc:
						v = pos[b] == (pos[a]+1)%n
					}
					ev = append(ev, Literal{Pred: p.Name, Args: []string{dom[a], dom[b]}, Value: v})
				}
			}
		}
		r := brute(m, weights, sizes, ev, queries, nil)
		logs = append(logs, r.logZ)
		all = append(all, r)
	}
	mx := math.Inf(-1)
	for _, l := range logs {
		mx = math.Max(mx, l)
	}
	out := bruteResult{logZ: math.Inf(-1), counts: make([]float64, len(m.Formulas)), marginal: make([]float64, len(queries))}
	if math.IsInf(mx, -1) {
		return out
	}
	z := 0.0
	for i, r := range all {
		if math.IsInf(logs[i], -1) {
			continue
		}
		p := math.Exp(logs[i] - mx)
		z += p
		for j := range r.counts {
			out.counts[j] += p * r.counts[j]
		}
		for j := range r.marginal {
			out.marginal[j] += p * r.marginal[j]
		}
	}
	out.logZ = mx + math.Log(z)
	for j := range out.counts {
		out.counts[j] /= z
	}
	for j := range out.marginal {
		out.marginal[j] /= z
	}
	return out
}

// checkOrderBrute compares wfomc with bruteOrders.
func checkOrderBrute(t *testing.T, name string, m *mln.MLN, sizes map[string]int64, ev []Literal, queries []string) {
	t.Helper()
	opt := Options{Evidence: ev}
	for _, q := range queries {
		pq, err := ParseQuery(m, q)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		opt.Queries = append(opt.Queries, pq)
	}
	mod, err := Compile(m, &opt)
	if err != nil {
		t.Fatalf("%s: compile: %v\n%s", name, err, m)
	}
	weights := weightsOf(m)
	got, err := mod.Evaluate(weights, sizes)
	want := bruteOrders(t, m, weights, sizes, ev, queries)
	if math.IsInf(want.logZ, -1) {
		if err == nil {
			t.Errorf("%s: log Z = %g, brute force: no world\n%s", name, got.LogZ, m)
		}
		return
	}
	if err != nil {
		t.Fatalf("%s: evaluate: %v\n%s", name, err, m)
	}
	compareBrute(t, name, m, got, want, queries)
}

// TestOrderAgainstBruteForce: hand-written models with LEQ, PRED, PREDk
// and CIRCULAR_PRED, alone and beside counting quantifiers and
// cardinality constraints, against brute force over every order.
func TestOrderAgainstBruteForce(t *testing.T) {
	for i, c := range []struct {
		src string
		n   []int64
	}{
		// head-middle-tail
		{"H(d)\nT(d)\nLEQ(d,d)\n!H(x) v !T(x).\nH(y) ^ LEQ(x,y) => H(x).\nT(x) ^ LEQ(x,y) => T(y).\n0.3 H(x)\n", []int64{1, 2, 3, 4, 5}},
		// a soft order-respecting relation
		{"P(d,d)\nLEQ(d,d)\n0.7 P(x,y) => LEQ(x,y)\n-0.4 P(x,y) ^ P(y,x)\n", []int64{2, 3}},
		// increasing functions: ∃=1 with an order
		{"F(d,d)\nLEQ(d,d)\nEXIST=1 y F(x,y).\nF(x,y) => LEQ(x,y).\n0.2 F(x,x)\n", []int64{1, 2, 3}},
		// a permutation that moves every element forward or to the first
		{"F(d,d)\nLEQ(d,d)\nEXIST=1 y F(x,y).\nEXIST=1 x F(x,y).\n0.5 F(x,y) ^ LEQ(y,x)\n", []int64{2, 3}},
		// |P| = k with an order
		{"P(d)\nQ(d,d)\nLEQ(d,d)\nQ(x,y) => P(x) ^ LEQ(x,y).\n0.4 Q(x,y)\n|P| = 2\n", []int64{2, 3}},
		// successor: runs of H
		{"H(d)\nPRED(d,d)\n0.8 H(x) ^ PRED(x,y) => H(y)\n-0.3 H(x)\n", []int64{1, 2, 3, 4, 5}},
		// successor and order together; PRED2
		{"H(d)\nLEQ(d,d)\nPRED(d,d)\nPRED2(d,d)\n0.6 H(x) ^ PRED(x,y) => !H(y)\n0.9 H(x) ^ PRED2(x,y) => H(y)\n-0.5 H(x) ^ LEQ(x,y) ^ H(y)\n", []int64{1, 2, 3, 4}},
		// PRED1 and PRED3 with a binary predicate
		{"H(d)\nR(d,d)\nPRED1(d,d)\nPRED3(d,d)\n0.5 R(x,y) => PRED1(x,y) v PRED3(x,y)\n0.7 H(x) ^ PRED3(x,y) => H(y)\n0.3 R(x,y)\n", []int64{1, 2, 3}},
		{"H(d)\nG(d)\nPRED1(d,d)\nPRED3(d,d)\n0.5 G(x) ^ PRED1(x,y) => H(y)\n0.7 H(x) ^ PRED3(x,y) => !G(y)\n", []int64{3, 4, 5}},
		// successor with a counting quantifier and a cardinality constraint
		{"H(d)\nE(d,d)\nPRED(d,d)\nEXIST<=1 y E(x,y).\nE(x,y) => PRED(x,y) v PRED(y,x).\n0.5 E(x,y) ^ H(y)\n|H| = 2\n", []int64{2, 3}},
		// a circle
		{"H(d)\nLEQ(d,d)\nCIRCULAR_PRED(d,d)\n0.8 H(x) ^ CIRCULAR_PRED(x,y) => !H(y)\n0.3 H(x)\n-0.2 H(x) ^ LEQ(x,y)\n", []int64{3, 4, 5}},
		// a circle with a counting quantifier
		{"H(d)\nE(d,d)\nCIRCULAR_PRED(d,d)\nEXIST=1 y E(x,y).\nE(x,y) => CIRCULAR_PRED(x,y) v CIRCULAR_PRED(y,x).\n0.4 E(x,y) ^ H(x) ^ H(y)\n", []int64{3}},
	} {
		m := mustParse(t, c.src)
		for _, n := range c.n {
			checkOrderBrute(t, fmt.Sprintf("model %d (n = %d)", i, n), m, map[string]int64{"d": n}, nil, []string{"H(E1_d)"}[:min(1, strings.Count(c.src, "H(d)"))])
		}
	}
}

// TestRandomOrderAgainstBruteForce: random models over LEQ, PRED, PRED2 or
// CIRCULAR_PRED (or none, with a counting quantifier or cardinality
// constraint), with soft and hard formulas, counting quantifiers,
// cardinality constraints and unary evidence, against brute force over
// every order.
func TestRandomOrderAgainstBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(36, 77))
	models := 150
	if testing.Short() {
		models = 40
	}
	checked, withEv := 0, 0
	for i := 0; i < models; i++ {
		ord := [][]string{{"LEQ"}, {"PRED"}, {"LEQ", "PRED"}, {"PRED", "PRED2"}, {"CIRCULAR_PRED"}, {"LEQ", "CIRCULAR_PRED"}, {}}[r.IntN(7)]
		atoms := []string{"H(x)", "H(y)", "P(x,y)", "P(y,x)", "P(x,x)", "x = y"}
		decl := "H(d)\nP(d,d)\n"
		for _, o := range ord {
			decl += o + "(d,d)\n"
			atoms = append(atoms, o+"(x,y)", o+"(y,x)", o+"(x,y)")
		}
		var b strings.Builder
		for range 2 + r.IntN(3) {
			body := atoms[r.IntN(len(atoms))]
			if r.IntN(2) == 0 {
				body = "!" + paren(body)
			}
			body = paren(body) + []string{" v ", " ^ ", " => "}[r.IntN(3)] + atoms[r.IntN(len(atoms))]
			if r.IntN(2) == 0 {
				body = paren(body) + []string{" v ", " ^ ", " => "}[r.IntN(3)] + atoms[r.IntN(len(atoms))]
			}
			if r.IntN(5) == 0 {
				fmt.Fprintf(&b, "%s.\n", body)
			} else {
				fmt.Fprintf(&b, "%.3f %s\n", -1.5+3*r.Float64(), body)
			}
		}
		circ := len(ord) > 0 && ord[len(ord)-1] == "CIRCULAR_PRED"
		n := int64(2 + r.IntN(3))
		if circ {
			n = 3 + r.Int64N(2)
		}
		switch r.IntN(4) {
		case 0, 3:
			if len(ord) > 0 && r.IntN(2) == 0 {
				break
			}
			fmt.Fprintf(&b, "EXIST%s%d y P(x,y).\n", []string{"=", "<=", ">="}[r.IntN(3)], r.IntN(3))
		case 1:
			fmt.Fprintf(&b, "|%s| %s %d\n", []string{"P", "H"}[r.IntN(2)], []string{"=", "<=", ">="}[r.IntN(3)], r.Int64N(n+1))
		}
		src := b.String()
		m, err := mlnfile.Parse("random.mln", []byte(decl+src))
		if err != nil {
			continue // a formula whose variables only occur in x = y
		}
		sizes := map[string]int64{"d": n}
		for len(newBruteWorld(m, sizes).atoms)-len(ord)*int(sizes["d"]*sizes["d"]) > 12 {
			sizes["d"]--
		}
		if circ && sizes["d"] < 3 {
			continue
		}
		// Unary evidence on some elements, half of the time.
		var ev []Literal
		if r.IntN(2) == 0 {
			for e := range sizes["d"] {
				switch r.IntN(3) {
				case 0:
					ev = append(ev, Literal{Pred: "H", Args: []string{fmt.Sprintf("E%d_d", e+1)}, Value: true})
				case 1:
					ev = append(ev, Literal{Pred: "H", Args: []string{fmt.Sprintf("E%d_d", e+1)}, Value: false})
				}
			}
			if len(ev) > 0 {
				withEv++
			}
		}
		want := bruteOrders(t, m, weightsOf(m), sizes, ev, nil)
		if math.IsInf(want.logZ, -1) {
			continue
		}
		checkOrderBrute(t, fmt.Sprintf("model %d (n = %d, evidence %v)", i, sizes["d"], ev), m, sizes, ev, []string{"P(E1_d,E2_d)"})
		checked++
	}
	t.Logf("%d of %d random models checked against brute force (the others have no world), %d with evidence", checked, models, withEv)
	if checked < models/2 {
		t.Fatalf("only %d of %d models checked", checked, models)
	}
}

// TestOrderClosedForms: counts with a known formula at sizes brute force
// cannot reach.
func TestOrderClosedForms(t *testing.T) {
	logFact := func(n int64) float64 { v, _ := math.Lgamma(float64(n) + 1); return v }
	for _, c := range []struct {
		name, src string
		n         int64
		want      float64 // log Z
	}{
		// head-middle-tail: a prefix H and a disjoint suffix T:
		// C(n+2,2) per order.
		{"head-middle-tail", "H(d)\nT(d)\nLEQ(d,d)\n!H(x) v !T(x).\nH(y) ^ LEQ(x,y) => H(x).\nT(x) ^ LEQ(x,y) => T(y).\n", 60,
			logFact(60) + math.Log(62*61/2)},
		// no two consecutive H (PRED): Fibonacci F(n+2) per order.
		{"no two consecutive", "H(d)\nPRED(d,d)\n!H(x) v !PRED(x,y) v !H(y).\n", 60, logFact(60) + math.Log(fib(62))},
		// ... on a circle: Lucas L(n) per order.
		{"no two adjacent on a circle", "H(d)\nCIRCULAR_PRED(d,d)\n!H(x) v !CIRCULAR_PRED(x,y) v !H(y).\n", 60, logFact(60) + math.Log(fib(59)+fib(61))},
		// increasing functions f(x) >= x: n! per order.
		{"f(x) >= x", "F(d,d)\nLEQ(d,d)\nEXIST=1 y F(x,y).\nF(x,y) => LEQ(x,y).\n", 30, 2 * logFact(30)},
		// permutations with f(x) >= x - 1 ... only the identity and the
		// adjacent transpositions' products: F(n+1) per order.
		{"near-identity permutations", "F(d,d)\nLEQ(d,d)\nPRED(d,d)\nEXIST=1 y F(x,y).\nEXIST=1 x F(x,y).\nF(x,y) => x = y v PRED(x,y) v PRED(y,x).\n", 20, logFact(20) + math.Log(fib(21))},
	} {
		m := mustParse(t, c.src)
		mod, err := Compile(m, &Options{})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		res, err := mod.Evaluate(weightsOf(m), map[string]int64{"d": c.n})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if !near(res.LogZ, c.want, 1e-12) || !res.Exact() {
			t.Errorf("%s at n = %d: log Z = %.17g, want %.17g", c.name, c.n, res.LogZ, c.want)
		}
	}
}

func fib(n int) float64 {
	a, b := 0.0, 1.0
	for range n {
		a, b = b, a+b
	}
	return a
}

// TestOrderRefusals: what the linear order axiom is not supported with
// says so, and is never grounded as a free predicate.
func TestOrderRefusals(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"LEQ(d,e)\n0.5 LEQ(x,y)\n", "binary over one type"},
		{"H(d)\nLEQ(d,d)\n0.5 H(A) ^ LEQ(A,x)\n", "is named"},
		{"H(d)\nLEQ(d,d)\nR(d,d,d)\n0.5 R(x,y,z) ^ LEQ(x,y)\n", "linear order"},
		{"H(d)\nPRED(d,d)\nCIRCULAR_PRED(d,d)\n0.5 PRED(x,y) ^ CIRCULAR_PRED(x,y)\n", "CIRCULAR_PRED and PRED"},
	} {
		m := mustParse(t, c.src)
		_, err := Compile(m, &Options{AllowGround: true})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want one saying %q", c.src, err, c.want)
		}
	}
	m := mustParse(t, "H(d)\nCIRCULAR_PRED(d,d)\n0.5 H(x) ^ CIRCULAR_PRED(x,y)\n")
	mod, err := Compile(m, &Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := mod.Evaluate(weightsOf(m), map[string]int64{"d": 2}); err == nil || !strings.Contains(err.Error(), "at least 3") {
		t.Errorf("CIRCULAR_PRED at n = 2: %v", err)
	}
}
