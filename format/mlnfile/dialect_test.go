package mlnfile

import (
	"math"
	"strings"
	"testing"

	"github.com/lifted-dev/lifted/mln"
)

// TestDetectDialect: the first dialect-specific syntax decides, with its
// position; --dialect overrides; mixed syntax is warned about.
func TestDetectDialect(t *testing.T) {
	cases := []struct {
		src    string
		want   mln.Dialect
		reason string
		line   int
	}{
		{"P(t)\nQ(t)\n1 P(x) => Q(x)\n", mln.DialectAlchemy, "no dialect-specific syntax", 0},
		{"P(t)\n*Q(t)\n1 P(x) => Q(x)\n", mln.DialectTuffy, "Tuffy's closed-world mark *Q", 2},
		{"p(t)\nq(t)\n\nlog(0.9/0.1) p(x) => q(x)\n", mln.DialectPracmln, "pracmln's weight expression log(…)", 4},
		{"p(t)\nq(t)\n#fixweight\n1 p(x) => q(x)\n", mln.DialectPracmln, "pracmln's #fixweight", 3},
		{"p(t, t)\n1 p(?x, ?y) => p(?y, ?x)\n", mln.DialectPracmln, "pracmln's variable ?x", 2},
		{"P(t)\nQ(t)\n2 Q(x) :- P(x)\n", mln.DialectLoMRF, "LoMRF's definite clause (:-)", 3},
	}
	for _, c := range cases {
		m, err := Parse("d.mln", []byte(c.src))
		if err != nil {
			t.Errorf("%q: %v", c.src, err)
			continue
		}
		d := m.Dialect
		if d.Dialect != c.want || d.Reason != c.reason || d.At.Line != c.line || d.Given {
			t.Errorf("%q: %+v, want %v %q at line %d", c.src, d, c.want, c.reason, c.line)
		}
		if dd := DetectDialect("d.mln", []byte(c.src)); dd != d {
			t.Errorf("%q: DetectDialect %+v, parser %+v", c.src, dd, d)
		}
		g, err := ParseWith(Options{Dialect: mln.DialectAlchemy}, "d.mln", []byte(c.src))
		if err != nil || g.Dialect.Dialect != mln.DialectAlchemy || !g.Dialect.Given {
			t.Errorf("%q given alchemy: %+v, %v", c.src, g.Dialect, err)
		}
	}
	m, err := Parse("d.mln", []byte("P(t)\n*Q(t)\n2 Q(x) :- P(x)\n"))
	if err != nil || m.Dialect.Dialect != mln.DialectTuffy || len(m.Warnings) != 1 || !strings.Contains(m.Warnings[0].Error(), "d.mln:3:8: LoMRF's definite clause (:-) is LoMRF syntax, but Tuffy's closed-world mark *Q at 2:1 is Tuffy syntax") {
		t.Errorf("mixed: %+v %v %v", m.Dialect, m.Warnings, err)
	}
	for _, s := range []string{"auto", "Alchemy", "TUFFY", "pracmln", "lomrf"} {
		if _, err := ParseDialect(s); err != nil {
			t.Error(err)
		}
	}
	if _, err := ParseDialect("markov"); err == nil || !strings.Contains(err.Error(), "alchemy, tuffy, pracmln, lomrf") {
		t.Errorf("ParseDialect(markov): %v", err)
	}
}

// TestPracmlnSyntax: weight expressions and their errors, #fixweight,
// ?x variables, lowercase constants, =/=, and the refused constructs with
// positioned messages.
func TestPracmlnSyntax(t *testing.T) {
	src := "p(t)\nq(t)\nt = {a1, b2}\n#fixweight\nlog(0.9/0.1) p(?x) => q(?x)\n-1.5*2+logx(0) p(?x)\n(1-0.25)/2 q(?x)\n1 p(?x) ^ q(?y) ^ ?x =/= ?y\n1 p(a1) v EXIST ?z q(?z)\n"
	m, err := Parse("p.mln", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		w     float64
		fixed bool
		dump  string
	}{
		{math.Log(9), true, ""},
		{-3 - 100, false, ""},
		{0.375, false, ""},
		{1, false, ""},
		{1, false, ""},
	}
	if len(m.Formulas) != len(want) {
		t.Fatalf("%d formulas", len(m.Formulas))
	}
	for i, w := range want {
		f := m.Formulas[i]
		if math.Abs(f.Weight-w.w) > 1e-12 || f.FixedWeight != w.fixed || !f.HasWeight {
			t.Errorf("formula %d: weight %v fixed %v, want %v %v", i+1, f.Weight, f.FixedWeight, w.w, w.fixed)
		}
	}
	// ?x and ?y are variables; a1 is a constant of t.
	if vs := m.Formulas[3].Vars; len(vs) != 2 || vs[0].Name != "?x" || vs[1].Name != "?y" {
		t.Errorf("variables of formula 4: %v", vs)
	}
	if c := m.Type("t").Constants; len(c) != 2 || c[0] != "a1" {
		t.Errorf("constants of t: %v", c)
	}
	// pracmln's StandardGrammar binds v tighter than ^: a warning.
	m, err = Parse("w.mln", []byte("p(t)\nq(t)\nlog(2) p(x) ^ q(x) v p(x)\nlog(2) p(x) ^ (q(x) v p(x))\n"))
	if err != nil || len(m.Warnings) != 1 || !strings.Contains(m.Warnings[0].Error(), "w.mln:3:8: \"^\" and \"v\" without parentheses") {
		t.Errorf("precedence warning: %v %v", m.Warnings, err)
	}
	// #unique{+?a,+?b}: the next formula gets ?a =/= ?b.
	m, err = Parse("u.mln", []byte("p(t)\n#unique{+?a,+?b}\n0.5 p(+?a) ^ p(+?b)\n"))
	if err != nil || m.Formulas[0].Expr.String() != "p(+?a) ^ p(+?b) ^ !(?a = ?b)" {
		t.Errorf("#unique: %v %v", m.Formulas[0].Expr, err)
	}
	// pracmln's names: any characters up to "," or ")" in PRACGrammar
	// files and pracmln evidence.
	m, err = Parse("n.mln", []byte("g(t, u)\n-5.5 g(?c, FLAKES_00.000_) ^ g(?c, ja!_)\n"))
	if err != nil {
		t.Fatal(err)
	}
	if c := m.Type("u").Constants; len(c) != 2 || c[0] != "FLAKES_00.000_" || c[1] != "ja!_" {
		t.Errorf("constants of u: %q", c)
	}
	db, err := ReadDB(strings.NewReader("g(c1, COR_500.000_)\n"), "n.db", m)
	if err != nil || db.ConstIndex("u", "COR_500.000_") < 0 {
		t.Errorf("pracmln evidence constant: %v %v", db.Domain("u"), err)
	}
	errs := []struct{ src, want string }{
		{"p(t)\nP(p(x)) = 0.1\n", "e.mln:2:1: pracmln's prior probability constraint P(…) = p is not supported"},
		{"p(t)\n#unique{+?x,+?y}\np(?x) ^ p(?y).\n", "e.mln:3:1: #unique before a hard formula is not supported"},
		{"p(t)\nlog(0) p(x)\n", `e.mln:2:1: cannot read the weight expression "log(0)": log(0) is undefined`},
		{"p(t)\nlog(1/0) p(x)\n", `e.mln:2:1: cannot read the weight expression "log(1/0)": division by zero`},
		{"p(t)\nexp(1000) p(x)\n", `e.mln:2:1: the weight expression "exp(1000)" is +Inf; weights must be finite`},
		{"P(t)\nQ(t)\n2 Q(x) v P(x) :- P(x)\n", "e.mln:3:3: the head of a definite clause"},
		{"P(t)\nQ(t)\n2 Q(x) :- P(x) v Q(x)\n", "e.mln:3:11: the body of a definite clause"},
	}
	for _, e := range errs {
		_, err := Parse("e.mln", []byte(e.src))
		if err == nil || !strings.Contains(err.Error(), e.want) {
			t.Errorf("%q: %v, want %q", e.src, err, e.want)
		}
	}
}

// TestDBDomainsAndPracmlnConstants: "type = {…}" in a .db adds constants;
// lowercase constants are accepted in a pracmln model's evidence only;
// pracmln's "---" separator is refused.
func TestDBDomainsAndPracmlnConstants(t *testing.T) {
	m, err := Parse("a.mln", []byte("P(person)\n"))
	if err != nil {
		t.Fatal(err)
	}
	db, err := ReadDB(strings.NewReader("person = {Ann, Bob}\nP(Ann)\n"), "a.db", m)
	if err != nil || len(db.Domain("person")) != 2 {
		t.Fatalf("%v %v", db.Domain("person"), err)
	}
	if _, err := ReadDB(strings.NewReader("P(ann)\n"), "a.db", m); err == nil || !strings.Contains(err.Error(), "a.db:1:3: evidence must be ground") {
		t.Errorf("lowercase constant in Alchemy evidence: %v", err)
	}
	if _, err := ReadDB(strings.NewReader("colour = {Red}\n"), "a.db", m); err == nil || !strings.Contains(err.Error(), `a.db:1:1: unknown type "colour"`) {
		t.Errorf("unknown type: %v", err)
	}
	pm, err := Parse("p.mln", []byte("p(person)\nlog(2) p(x)\n"))
	if err != nil {
		t.Fatal(err)
	}
	db, err = ReadDB(strings.NewReader("person = {ann, bob}\np(ann)\n"), "p.db", pm)
	if err != nil || db.ConstIndex("person", "bob") != 1 {
		t.Fatalf("pracmln evidence: %v %v", db.Domain("person"), err)
	}
	if _, err := ReadDB(strings.NewReader("p(ann)\n---\np(bob)\n"), "p.db", pm); err == nil || !strings.Contains(err.Error(), `p.db:2:1: "---" separates several databases`) {
		t.Errorf("---: %v", err)
	}
}

// TestLoMRFCompletion: the formulas a definite clause adds.
func TestLoMRFCompletion(t *testing.T) {
	src := "kind = {K1, K2}\nA(p)\nF(p, p)\nQ(kind, p)\nR(p)\n1 Q(K1, x) :- A(x)\n0.5 R(x) :- F(x, y) ^ A(y)\nR(x) :- A(x) ^ !F(x, x).\n"
	m, err := Parse("l.mln", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range m.Formulas {
		got = append(got, f.String())
	}
	want := []string{
		"1 A(x) => Q(K1,x)",
		"0.5 F(x,y) ^ A(y) => R(x)",
		"A(x) ^ !F(x,x) => R(x).",
		"Q(K1,x) => A(x).",
		"Q(_h1,_h2) => _h1 = K1.",
		"R(x) => (EXIST y F(x,y) ^ A(y)) v A(x) ^ !F(x,x).",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// Overlapping patterns: Clark's completion. Function-term patterns:
	// their variables are the pattern's; a clause's other variables are
	// renamed apart from them.
	src = "id = {I1, I2}\nval = {Foo, Bar}\nfluent meet(id, id)\nH(val, id)\nP(id)\nInit(fluent, id)\nHap(id, id)\n" +
		"1 H(Foo, t) :- P(t)\n1 H(x, t) :- !P(t)\n" +
		"1 Init(meet(p1, p2), t) :- Hap(p1, t)\n1 Init(meet(a, b), t) :- Hap(b, p1)\n"
	m, err = Parse("l.mln", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	got = got[:0]
	for _, f := range m.Formulas[4:] {
		got = append(got, f.String())
	}
	want = []string{
		"H(_h1,_h2) => _h1 = Foo ^ P(_h2) v !P(_h2).",
		"Init(meet(p1,p2),t) => Hap(p1,t) v (EXIST p1_1 Hap(p2,p1_1)).",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
