package ground

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	mlnfile "github.com/lifted-dev/lifted/format/mlnfile"
	"github.com/lifted-dev/lifted/mln"
)

func parse(t *testing.T, src string) *mln.MLN {
	t.Helper()
	m, err := mlnfile.Parse("test.mln", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func readDB(t *testing.T, m *mln.MLN, src string) *mln.DB {
	t.Helper()
	db, err := mlnfile.ReadDB(strings.NewReader(src), "test.db", m)
	if err != nil {
		t.Fatal(err)
	}
	return db
}

// marginalsOf grounds and enumerates: log Z and P(atom) by name.
func marginalsOf(t *testing.T, m *mln.MLN, db *mln.DB, opt Options) (float64, map[string]float64) {
	t.Helper()
	gr, err := Ground(context.Background(), m, db, opt)
	if err != nil {
		t.Fatal(err)
	}
	logZ, marg, ok := exactOf(gr)
	if !ok {
		t.Fatal("too large to enumerate")
	}
	out := map[string]float64{}
	for v := 0; v < gr.NumAtoms; v++ {
		out[gr.AtomName(int32(v))] = marg[v][1]
	}
	return logZ, out
}

func sameMarginals(t *testing.T, a, b map[string]float64) {
	t.Helper()
	if len(a) != len(b) {
		t.Fatalf("%d vs %d atoms", len(a), len(b))
	}
	for k, p := range a {
		if math.Abs(p-b[k]) > 1e-9 {
			t.Fatalf("P(%s) = %v vs %v", k, p, b[k])
		}
	}
}

func TestAlchemyCNF(t *testing.T) {
	const decl = "t = {A, B, C}\nP(t)\nQ(t)\nR(t, t)\n"
	cases := []struct{ formula, clauses string }{
		// two clauses: half the weight each
		{"1.2 P(x) <=> Q(x)", "0.6 !P(x) v Q(x)\n0.6 P(x) v !Q(x)"},
		// a conjunction with negative weight is one clause with the
		// opposite weight (exact up to a constant)
		{"-1 P(x) ^ Q(x)", "1 !P(x) v !Q(x)"},
		// clauses ground over their own variables
		{"2 P(x) ^ (Q(x) v R(x, y))", "1 P(x)\n1 Q(x) v R(x, y)"},
		{"2 P(x) ^ R(x, y)", "-2 !P(x) v !R(x, y)"},
		{"1.5 P(x) => Q(x)", "1.5 !P(x) v Q(x)"},
	}
	for _, c := range cases {
		a := parse(t, decl+c.formula+"\n")
		b := parse(t, decl+c.clauses+"\n")
		da := readDB(t, a, "R(A, B)\n")
		dbb := readDB(t, b, "R(A, B)\n")
		opt := Options{Query: []string{"P", "Q"}}
		_, ma := marginalsOf(t, a, da, Options{Query: opt.Query, AlchemyCNF: true})
		_, mb := marginalsOf(t, b, dbb, opt)
		sameMarginals(t, ma, mb)
	}
}

// A hard conjunction is split into its conjuncts (exact).
func TestHardConjunction(t *testing.T) {
	m := parse(t, "t = {A, B}\nH(t)\nS(t)\nH(x) ^ !S(x).\n1 H(x) v S(x)\n")
	gr, err := Ground(context.Background(), m, nil, Options{Query: []string{"H", "S"}})
	if err != nil {
		t.Fatal(err)
	}
	// 4 unary hard factors and 2 soft ones, merged per atom
	if gr.NumFormulas != 6 {
		t.Fatalf("%d ground formulas", gr.NumFormulas)
	}
	for f := 0; f < gr.Graph.NumFactors(); f++ {
		if n := len(gr.Graph.Scope(f)); n > 2 {
			t.Fatalf("factor %d has %d variables", f, n)
		}
	}
	_, marg := marginalsOf(t, m, nil, Options{Query: []string{"H", "S"}})
	if marg["H(A)"] != 1 || marg["S(B)"] != 0 {
		t.Fatalf("marginals %v", marg)
	}
}

func TestContradictionMessage(t *testing.T) {
	m := parse(t, "person = {Anna, Bob}\nFriends(person, person)\nKnows(person, person)\nFriends(x, y) => Knows(x, y).\n")
	db := readDB(t, m, "Friends(Anna, Bob)\n!Knows(Anna, Bob)\n")
	_, err := Ground(context.Background(), m, db, Options{Query: []string{"Friends"}})
	if !errors.Is(err, ErrContradiction) {
		t.Fatalf("error %v", err)
	}
	for _, want := range []string{"contradictory evidence", "formula 1", "Friends(x, y) => Knows(x, y)", "test.mln:4:1", "x = Anna, y = Bob"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message %q lacks %q", err, want)
		}
	}
	// the closed world can contradict too: Knows is closed (it has evidence)
	db = readDB(t, m, "Friends(Bob, Bob)\n!Knows(Anna, Anna)\n")
	_, err = Ground(context.Background(), m, db, Options{Query: []string{"Anna"}[:0]})
	if !errors.Is(err, ErrContradiction) || !strings.Contains(err.Error(), "x = Bob, y = Bob") {
		t.Fatalf("error %v", err)
	}
}

func TestMutexEvidence(t *testing.T) {
	m := parse(t, "person = {Anna, Bob}\ncolor = {Red, Green, Blue}\nHas(person, color!)\nLikes(person)\n0.5 Has(x, Red) => Likes(x)\n")
	db := readDB(t, m, "Has(Anna, Green)\n!Has(Bob, Red)\n")
	_, marg := marginalsOf(t, m, db, Options{Query: []string{"Has", "Likes"}})
	if marg["Has(Anna,Red)"] != 0 || marg["Has(Anna,Blue)"] != 0 {
		t.Fatalf("Anna has green: %v", marg)
	}
	if p := marg["Has(Bob,Green)"] + marg["Has(Bob,Blue)"]; math.Abs(p-1) > 1e-12 {
		t.Fatalf("Bob: %v", marg)
	}
	// closed world with an empty block: contradiction, with a hint
	_, err := Ground(context.Background(), m, db, Options{Query: []string{"Likes"}})
	if !errors.Is(err, ErrContradiction) || !strings.Contains(err.Error(), "Has(Bob,*)") || !strings.Contains(err.Error(), "--ow Has") {
		t.Fatalf("error %v", err)
	}
}

func TestMaxGround(t *testing.T) {
	m := smokersMLN(t, 100)
	_, err := Ground(context.Background(), m, nil, Options{Query: []string{"Smokes"}, MaxGround: 5000})
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("error %v", err)
	}
	for _, want := range []string{"about 1e+04 ground atoms", "Friends"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q lacks %q", err, want)
		}
	}
	m = parse(t, "p = {1,...,100}\nFriends(p, p)\n1 Friends(x, y) ^ Friends(y, z) => Friends(x, z)\n")
	_, err = Ground(context.Background(), m, nil, Options{Query: []string{"Friends"}, MaxGround: 20000})
	for _, want := range []string{"about 1e+06 ground formulas", `formula 1 "Friends(x, y) ^ Friends(y, z) => Friends(x, z)": 1e+06`, "raise --max-ground"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%v lacks %q", err, want)
		}
	}
	m = smokersMLN(t, 100)
	sz, err := Estimate(m, nil, Options{Query: []string{"Smokes"}})
	if err != nil || sz.Atoms != 100+100+100*100 || sz.Upper != 100+100*100 {
		t.Fatalf("estimate %+v %v", sz, err)
	}
}

func TestProgressAndCancel(t *testing.T) {
	m := smokersMLN(t, 300)
	calls := 0
	var last Progress
	_, err := Ground(context.Background(), m, nil, Options{Query: []string{"Smokes"}, Progress: func(p Progress) { calls++; last = p }})
	if err != nil {
		t.Fatal(err)
	}
	if calls < 2 || last.Groundings != last.Total || last.Total != 300+300*300 {
		t.Fatalf("%d calls, last %+v", calls, last)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Ground(ctx, m, nil, Options{Query: []string{"Smokes"}}); !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v", err)
	}
}

func TestUnweighted(t *testing.T) {
	m := parse(t, "t = {A}\nP(t)\nP(x) v !P(x)\n")
	_, err := Ground(context.Background(), m, nil, Options{Query: []string{"P"}})
	if err == nil || !strings.Contains(err.Error(), "test.mln:3:1") || !strings.Contains(err.Error(), "--default-weight") {
		t.Fatalf("error %v", err)
	}
}

// Identical ground formulas share a table: friends-and-smokers has one
// table per formula and evidence pattern.
func TestTableSharing(t *testing.T) {
	m := smokersMLN(t, 20)
	db := mln.NewDB(m)
	db.AddAtom("Smokes", []string{"P0"}, mln.True)
	gr, err := Ground(context.Background(), m, db, Options{Query: []string{"Smokes"}})
	if err != nil {
		t.Fatal(err)
	}
	// Cancer(P0) unit, Smokes=>Cancer pair, Friends(P0,y)=>Smokes(y) pair,
	// the ternary clause
	if n := len(gr.Graph.Tables); n != 4 {
		t.Fatalf("%d tables", n)
	}
}

// MergeDuplicates combines the two groundings of a symmetric clause.
func TestMergeDuplicates(t *testing.T) {
	m := parse(t, "p = {A, B, C}\nAdv(p, p)\n0.7 !Adv(x, y) v !Adv(y, x)\n")
	for _, merge := range []bool{false, true} {
		gr, err := Ground(context.Background(), m, nil, Options{Query: []string{"Adv"}, MergeDuplicates: merge})
		if err != nil {
			t.Fatal(err)
		}
		// 9 groundings: 3 unary (x = y), 6 binary forming 3 pairs
		want := 9
		if merge {
			want = 6
		}
		if gr.NumFormulas != 9 || gr.Graph.NumFactors() != want || (merge && gr.Merged != 3) {
			t.Fatalf("merge %v: %d ground formulas, %d factors, %d merged", merge, gr.NumFormulas, gr.Graph.NumFactors(), gr.Merged)
		}
	}
	za, ma := marginalsOf(t, m, nil, Options{Query: []string{"Adv"}})
	zb, mb := marginalsOf(t, m, nil, Options{Query: []string{"Adv"}, MergeDuplicates: true})
	sameMarginals(t, ma, mb)
	if math.Abs(za-zb) > 1e-12 {
		t.Fatalf("log Z %v vs %v", za, zb)
	}
}

// TestFunctionTerms covers what the random tests do not: a quantified
// variable inside a function term is refused with its position, and a
// formula over functions the evidence leaves undefined everywhere is true
// once per binding of its own variables (not once per value of the fresh
// variable, as LoMRF's rewrite counts it).
func TestFunctionTerms(t *testing.T) {
	src := "person = {A, B, C}\nperson mother(person)\nKnows(person, person)\n" +
		"1.5 Knows(x, mother(x))\n" +
		"0.5 EXIST y Knows(x, mother(y))\n"
	m, err := mlnfile.Parse("f.mln", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	db := mln.NewDB(m)
	_, err = Ground(context.Background(), m, db, Options{Query: []string{"Knows"}})
	if err == nil || !strings.Contains(err.Error(), "f.mln:5:") || !strings.Contains(err.Error(), "y is a quantified variable") {
		t.Fatalf("got %v, want a positioned error about the quantified variable y", err)
	}

	m, err = mlnfile.Parse("f.mln", []byte("person = {A, B, C}\nperson mother(person)\nKnows(person, person)\n1.5 Knows(x, mother(mother(x)))\n"))
	if err != nil {
		t.Fatal(err)
	}
	db = mln.NewDB(m)
	if err := mlnfile.ReadDBInto(db, strings.NewReader("B = mother(A)\nC = mother(B)\n"), "f.db"); err != nil {
		t.Fatal(err)
	}
	gr, err := Ground(context.Background(), m, db, Options{Query: []string{"Knows"}})
	if err != nil {
		t.Fatal(err)
	}
	// mother(mother(A)) = C; mother(mother(x)) is undefined for x = B, C.
	st := gr.Formulas[0]
	if st.Kept != 1 || st.Groundings != 3 || st.TrueByEv != 2 || gr.NumFormulas != 1 {
		t.Fatalf("kept %d of %v groundings, %v true by evidence; want 1 of 3, 2", st.Kept, st.Groundings, st.TrueByEv)
	}
	// 9 open atoms, each doubling Z, the factor over Knows(A,C) and two
	// true groundings.
	want := 8*math.Log(2) + math.Log(1+math.Exp(1.5)) + 2*1.5
	logZ, _, ok := exactOf(gr)
	if !ok || math.Abs(logZ-want) > 1e-9 {
		t.Fatalf("log Z %v, want %v", logZ, want)
	}
	v, _ := gr.Var(m.PredIndex("Knows"), []int{0, 2})
	if v < 0 || gr.Graph.NumFactors() != 1 || gr.Graph.Scope(0)[0] != v {
		t.Fatalf("the factor is not over Knows(A,C)")
	}
}

// mln.MutexAsFormulas writes "!" as two hard formulas: the grounded
// distribution (log Z, every marginal) is the one "!" gives.
func TestMutexAsFormulas(t *testing.T) {
	for _, c := range []struct{ src, db string }{
		{"person = {Anna, Bob}\ncolor = {Red, Green, Blue}\nHas(person, color!)\nLikes(person)\n0.5 Has(x, Red) => Likes(x)\n-0.3 Has(x, c) ^ Has(y, c) ^ x != y\n", ""},
		{"person = {Anna, Bob}\ncolor = {Red, Green, Blue}\nHas(person, color!)\nLikes(person)\n0.5 Has(x, Red) => Likes(x)\n", "!Has(Bob, Red)\n"},
		{"a = {A1, A2}\nb = {B1, B2}\nc = {C1, C2}\nR(a, b!, c!)\n0.7 R(x, B1, z)\n-1.2 R(x, y, C2) => R(x, y, C1)\n", ""},
		{"c = {R, G, B}\nH(c!)\nL\n2 H(R) <=> L\n", ""},
	} {
		m := parse(t, c.src)
		m2, added, err := mln.MutexAsFormulas(m)
		if err != nil {
			t.Fatal(err)
		}
		if added != 1 || len(m2.Formulas) != len(m.Formulas)+1 || m2.Formulas[0].Text != m.Formulas[0].Text {
			t.Fatalf("%s: %d added, %d formulas", c.src, added, len(m2.Formulas))
		}
		for _, p := range m2.Preds {
			if len(p.MutexArgs) > 0 {
				t.Fatalf("%s still has !", p)
			}
		}
		var query []string
		for _, p := range m.Preds {
			query = append(query, p.Name)
		}
		z1, marg1 := marginalsOf(t, m, readDB(t, m, c.db), Options{Query: query})
		z2, marg2 := marginalsOf(t, m2, readDB(t, m2, c.db), Options{Query: query})
		if math.Abs(z1-z2) > 1e-9*math.Max(1, math.Abs(z1)) {
			t.Errorf("%s: log Z %v with !, %v with formulas", c.src, z1, z2)
		}
		sameMarginals(t, marg1, marg2)
	}
}

// TestEstimateOpenEvidence: a query predicate with most of its atoms false
// by evidence (Cora's category(paper, cat) with the known papers' other
// categories false) prunes the groundings of a formula over two of its
// atoms; the estimate counts that (it was papers × cats², 10 times the
// grounding here) and stays within a factor 2 of the grounding.
func TestEstimateOpenEvidence(t *testing.T) {
	const papers, cats, unknown = 200, 10, 20
	var src strings.Builder
	src.WriteString("paper = {")
	for i := range papers {
		if i > 0 {
			src.WriteString(", ")
		}
		fmt.Fprintf(&src, "P%d", i)
	}
	src.WriteString("}\ncat = {")
	for c := range cats {
		if c > 0 {
			src.WriteString(", ")
		}
		fmt.Fprintf(&src, "C%d", c)
	}
	src.WriteString("}\nCategory(paper, cat)\n1 !Category(p, a) v !Category(p, b)\n")
	m := parse(t, src.String())
	var db strings.Builder
	for i := unknown; i < papers; i++ {
		for c := range cats {
			if c == i%cats {
				fmt.Fprintf(&db, "Category(P%d, C%d)\n", i, c)
			} else {
				fmt.Fprintf(&db, "!Category(P%d, C%d)\n", i, c)
			}
		}
	}
	d := readDB(t, m, db.String())
	opt := Options{Query: []string{"Category"}}
	sz, err := Estimate(m, d, opt)
	if err != nil {
		t.Fatal(err)
	}
	gr, err := Ground(context.Background(), m, d, opt)
	if err != nil {
		t.Fatal(err)
	}
	got := float64(gr.NumFormulas)
	t.Logf("estimate %.0f, ground formulas %.0f, bindings %.0f", sz.Estimate, got, sz.Upper)
	if sz.Estimate > 2*got || sz.Estimate < got/2 {
		t.Errorf("estimate %.0f for %.0f ground formulas", sz.Estimate, got)
	}
}
