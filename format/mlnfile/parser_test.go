package mlnfile

import (
	"errors"
	"os"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/lifted-dev/lifted/mln"
	"github.com/lifted-dev/lifted/pos"
)

func mustParse(t *testing.T, name, src string) *mln.MLN {
	t.Helper()
	m, err := Parse(name, []byte(src))
	if err != nil {
		t.Fatalf("Parse(%s): %v\nsource:\n%s", name, err, src)
	}
	return m
}

func TestParseSmokersFixture(t *testing.T) {
	m, err := ParseFile("testdata/smokers.mln")
	if err != nil {
		t.Fatal(err)
	}
	wantTypes := map[string]string{
		"person": `Anna,Bob,"Carl Smith",Dora,Eve`, // Eve comes from a formula
		"time":   "0,1,2,3",
		"color":  "Red,Green,Blue",
		"city":   "",
	}
	if len(m.Types) != len(wantTypes) {
		t.Errorf("got %d types, want %d", len(m.Types), len(wantTypes))
	}
	for name, want := range wantTypes {
		td := m.Type(name)
		if td == nil {
			t.Errorf("type %s missing", name)
			continue
		}
		if got := strings.Join(td.Constants, ","); got != want {
			t.Errorf("type %s = {%s}, want {%s}", name, got, want)
		}
		if td.Declared != (name != "city") {
			t.Errorf("type %s: Declared = %v", name, td.Declared)
		}
	}
	if td := m.Type("person"); td.NumDeclared != 4 {
		t.Errorf("person: NumDeclared = %d, want 4", td.NumDeclared)
	}
	if m.TypeIndex("time") != 1 || m.TypeIndex("nope") != -1 || m.PredIndex("Smokes") != 1 || m.PredIndex("nope") != -1 {
		t.Errorf("index lookups wrong")
	}

	likes := m.Pred("Likes")
	if likes == nil || likes.MutexArg != 1 || len(likes.MutexArgs) != 1 || likes.Arity() != 2 {
		t.Errorf("Likes = %+v, want MutexArg 1", likes)
	}
	if r := m.Pred("Raining"); r == nil || r.Arity() != 0 || r.MutexArg != -1 {
		t.Errorf("Raining = %+v", r)
	}
	if f := m.Func("cityOf"); f == nil || f.RetType != "city" || f.String() != "city cityOf(person)" {
		t.Errorf("cityOf = %+v", f)
	}
	if m.Pred("Friends").Pos != (pos.Position{File: "testdata/smokers.mln", Line: 10, Col: 1}) {
		t.Errorf("Friends declared at %v", m.Pred("Friends").Pos)
	}

	// One warning: Eve is not a declared person.
	if len(m.Warnings) != 1 || m.Warnings[0].Error() != "testdata/smokers.mln:34:12: constant Eve is not in the declared domain of type \"person\" (declared at 5:1); it is added to the domain, as Alchemy does" {
		t.Errorf("warnings = %v", m.Warnings)
	}

	type want struct {
		line       int
		weight     float64
		has, hard  bool
		text, dump string
	}
	wants := []want{
		{20, 1.5, true, false, "Smokes(x) => Cancer(x)", "(=> Smokes[?x:person] Cancer[?x:person])"},
		{21, 1.1, true, false, "Friends(x, y) => (Smokes(x) <=> Smokes(y))", "(=> Friends[?x:person ?y:person] (<=> Smokes[?x:person] Smokes[?y:person]))"},
		{22, -2, true, false, "Raining ^ Smokes(x)", "(^ Raining[] Smokes[?x:person])"},
		{23, .5, true, false, "Smokes(x) v\n   Cancer(x)", "(v Smokes[?x:person] Cancer[?x:person])"},
		{25, 1e-3, true, false, "Likes(x, Red) v Likes(x, Blue)", "(v Likes[?x:person Red:color] Likes[?x:person Blue:color])"},
		{26, 3, true, false, "Smoked(x, t) => Smokes(x)", "(=> Smoked[?x:person ?t:time] Smokes[?x:person])"},
		{29, 0, false, true, "Friends(x, y) ^ !(x = y) => Friends(y, x)", "(=> (^ Friends[?x:person ?y:person] (! (= ?x:person ?y:person))) Friends[?y:person ?x:person])"},
		{30, 0, false, false, "Friends(x, y) ^ x != Bob => Smokes(y)", "(=> (^ Friends[?x:person ?y:person] (! (= ?x:person Bob:person))) Smokes[?y:person])"},
		{31, 1, true, false, "Smokes(+p)", "Smokes[+?p:person]"},
		{32, 0, false, false, "EXIST y Friends(x, y)", "(E [y:person] Friends[?x:person ?y:person])"},
		{33, 0, false, false, "FORALL x EXISTS y Friends(x, y) ^ Smoked(y, 0)", "(A [x:person] (E [y:person] (^ Friends[?x:person ?y:person] Smoked[?y:person 0:time])))"},
		{34, 0, false, false, `Friends(x, Eve) v Friends(x, "Carl Smith")`, `(v Friends[?x:person Eve:person] Friends[?x:person "Carl Smith":person])`},
		{35, 0, false, false, "LivesIn(x, cityOf(x))", "LivesIn[?x:person cityOf(?x:person):city]"},
	}
	if len(m.Formulas) != len(wants) {
		t.Fatalf("got %d formulas, want %d", len(m.Formulas), len(wants))
	}
	for i, w := range wants {
		f := m.Formulas[i]
		if f.Pos.Line != w.line || f.Pos.Col != 1 {
			t.Errorf("formula %d at %v, want line %d", i, f.Pos, w.line)
		}
		if f.Weight != w.weight || f.HasWeight != w.has || f.Hard != w.hard {
			t.Errorf("line %d: weight %v/%v hard %v, want %v/%v %v", w.line, f.Weight, f.HasWeight, f.Hard, w.weight, w.has, w.hard)
		}
		if f.Text != w.text {
			t.Errorf("line %d: Text = %q, want %q", w.line, f.Text, w.text)
		}
		if got := dumpExpr(f.Expr); got != w.dump {
			t.Errorf("line %d:\n got %s\nwant %s", w.line, got, w.dump)
		}
	}
	// Free variables, in order of first appearance.
	vars := func(i int) string {
		var s []string
		for _, v := range m.Formulas[i].Vars {
			s = append(s, dumpVar(v))
		}
		return strings.Join(s, " ")
	}
	for i, want := range map[int]string{1: "x:person y:person", 5: "x:person t:time", 8: "+p:person", 9: "x:person", 10: ""} {
		if got := vars(i); got != want {
			t.Errorf("formula %d: Vars = %q, want %q", i, got, want)
		}
	}
}

// TestPrecedence checks grouping: ! binds tightest, then ^, v, =>, <=>; all
// left-associative; quantifiers extend as far right as possible.
func TestPrecedence(t *testing.T) {
	const decls = "P\nQ\nR\nS\nA(t)\nB(t)\nv(t)\n"
	tests := []struct{ src, want string }{
		{"P ^ Q v R", "(v (^ P[] Q[]) R[])"},
		{"P v Q ^ R", "(v P[] (^ Q[] R[]))"},
		{"P => Q v R", "(=> P[] (v Q[] R[]))"},
		{"P v Q => R", "(=> (v P[] Q[]) R[])"},
		{"P <=> Q => R", "(<=> P[] (=> Q[] R[]))"},
		{"P => Q <=> R", "(<=> (=> P[] Q[]) R[])"},
		{"!P ^ Q", "(^ (! P[]) Q[])"},
		{"!(P ^ Q)", "(! (^ P[] Q[]))"},
		{"!!P", "(! (! P[]))"},
		{"P ^ Q ^ R", "(^ (^ P[] Q[]) R[])"},
		{"P v Q v R", "(v (v P[] Q[]) R[])"},
		{"P => Q => R", "(=> (=> P[] Q[]) R[])"},
		{"P => (Q => R)", "(=> P[] (=> Q[] R[]))"},
		{"P <=> Q <=> R", "(<=> (<=> P[] Q[]) R[])"},
		{"P ^ (Q v R)", "(^ P[] (v Q[] R[]))"},
		{"((P))", "P[]"},
		{"EXIST x A(x) v B(x)", "(E [x:t] (v A[?x:t] B[?x:t]))"},
		{"(EXIST x A(x)) v P", "(v (E [x:t] A[?x:t]) P[])"},
		{"P ^ EXIST x A(x) v B(x)", "(^ P[] (E [x:t] (v A[?x:t] B[?x:t])))"},
		{"FORALL x EXIST y A(x) => B(y)", "(A [x:t] (E [y:t] (=> A[?x:t] B[?y:t])))"},
		{"!EXIST x A(x) ^ P", "(! (E [x:t] (^ A[?x:t] P[])))"},
		{"exist x,y A(x) ^ A(y)", "(E [x:t y:t] (^ A[?x:t] A[?y:t]))"},
		{"Forall x A(x)", "(A [x:t] A[?x:t])"},
		{"A(x) ^ !(x = y) v B(y)", "(v (^ A[?x:t] (! (= ?x:t ?y:t))) B[?y:t])"},
		{"A(x) ^ x != y ^ B(y)", "(^ (^ A[?x:t] (! (= ?x:t ?y:t))) B[?y:t])"},
		// v is the operator only between formulas; inside atoms it is a variable.
		{"A(v) v B(v)", "(v A[?v:t] B[?v:t])"},
		{"A(v) v v = v", "(v A[?v:t] (= ?v:t ?v:t))"},
		{"EXIST v A(v)", "(E [v:t] A[?v:t])"},
		{"P() ^ Q", "(^ P[] Q[])"},
		{"v(x) v v(v)", "(v v[?x:t] v[?v:t])"},
		{"*A(x) v !A(x)", "(v *A[?x:t] (! A[?x:t]))"},
		{"P =>\n  Q", "(=> P[] Q[])"},
		// Counting quantifiers of C2.
		{"EXIST=1 y A(y)", "(E=1 [y:t] A[?y:t])"},
		{"EXIST<=2 y A(y) ^ B(y)", "(E<=2 [y:t] (^ A[?y:t] B[?y:t]))"},
		{"exists>=0 y A(y)", "(E>=0 [y:t] A[?y:t])"},
		{"P ^ EXIST = 3 y A(y)", "(^ P[] (E=3 [y:t] A[?y:t]))"},
		{"EXIST>=1 x,y A(x) ^ B(y)", "(E>=1 [x:t y:t] (^ A[?x:t] B[?y:t]))"},
	}
	for _, tt := range tests {
		m, err := Parse("p.mln", []byte(decls+tt.src))
		if err != nil {
			t.Errorf("%q: %v", tt.src, err)
			continue
		}
		if got := dumpExpr(m.Formulas[0].Expr); got != tt.want {
			t.Errorf("%q:\n got %s\nwant %s", tt.src, got, tt.want)
		}
	}
}

func TestWeights(t *testing.T) {
	const decls = "P\n"
	tests := []struct {
		src       string
		w         float64
		has, hard bool
		fixed     bool
	}{
		{"1.5 P", 1.5, true, false, false},
		{"-2 P", -2, true, false, false},
		{".5 P", .5, true, false, false},
		{"-.5 P", -.5, true, false, false},
		{"1e-3 P", 1e-3, true, false, false},
		{"2.5E+2 P", 250, true, false, false},
		{"3. P", 3, true, false, false},
		{"0 P", 0, true, false, false},
		{"P.", 0, false, true, false},
		{"P .", 0, false, true, false},
		{"P", 0, false, false, false},
		{"@2 P", 2, true, false, true},
	}
	for _, tt := range tests {
		m, err := Parse("w.mln", []byte(decls+tt.src))
		if err != nil {
			t.Errorf("%q: %v", tt.src, err)
			continue
		}
		f := m.Formulas[0]
		if f.Weight != tt.w || f.HasWeight != tt.has || f.Hard != tt.hard || f.FixedWeight != tt.fixed {
			t.Errorf("%q: got %v/%v/%v/%v", tt.src, f.Weight, f.HasWeight, f.Hard, f.FixedWeight)
		}
		if f.Text != "P" {
			t.Errorf("%q: Text = %q", tt.src, f.Text)
		}
	}
}

func TestDeclarations(t *testing.T) {
	m := mustParse(t, "d.mln", `
t = {A, B}
t = {C, A}            // a second declaration adds constants
u = {}
n = {-2,...,2}
m = {007, 8}
Raining
Sunny()
P(t, u!)
Q(t!, n!, m)
*R(t)
Smokes(person)
Smokes(person)        // repeated declaration: a warning
Smokes(person2)       // a unit formula over the variable person2
`)
	if got := strings.Join(m.Type("t").Constants, ","); got != "A,B,C" {
		t.Errorf("t = %s", got)
	}
	if td := m.Type("u"); !td.Declared || len(td.Constants) != 0 {
		t.Errorf("u = %+v", td)
	}
	if got := strings.Join(m.Type("n").Constants, ","); got != "-2,-1,0,1,2" {
		t.Errorf("n = %s", got)
	}
	if got := strings.Join(m.Type("m").Constants, ","); got != "7,8" {
		t.Errorf("m = %s", got)
	}
	if d := m.Pred("Q"); d.MutexArg != 0 || len(d.MutexArgs) != 2 || d.MutexArgs[1] != 1 || d.String() != "Q(t!, n!, m)" {
		t.Errorf("Q = %+v", d)
	}
	if d := m.Pred("R"); !d.ClosedWorld || d.String() != "*R(t)" {
		t.Errorf("R = %+v", d)
	}
	if d := m.Pred("Sunny"); d == nil || d.Arity() != 0 {
		t.Errorf("Sunny = %+v", d)
	}
	if td := m.Type("person"); td == nil || td.Declared {
		t.Errorf("person should be an open type: %+v", td)
	}
	if len(m.Formulas) != 1 || dumpExpr(m.Formulas[0].Expr) != "Smokes[?person2:person]" {
		t.Errorf("formulas: %v", m.Formulas)
	}
	var ws []string
	for _, w := range m.Warnings {
		ws = append(ws, w.Error())
	}
	want := []string{
		"d.mln:3:1: type \"t\" is declared again (first at 2:1); the constants are added to it",
		"d.mln:13:1: predicate \"Smokes\" is declared again (first at 12:1); the repeated declaration is ignored",
	}
	if strings.Join(ws, "\n") != strings.Join(want, "\n") {
		t.Errorf("warnings:\n%s\nwant:\n%s", strings.Join(ws, "\n"), strings.Join(want, "\n"))
	}
}

// TestErrors checks each kind of error: position and full message.
// TestCardinality: "|P| = k" is the hard formula EXIST=k over P's atoms.
func TestCardinality(t *testing.T) {
	m, err := Parse("c.mln", []byte("F(t, t)\nA(t)\n|F| = 3\n|A| >= 2.\n"))
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{"(E=3 [x1:t x2:t] F[?x1:t ?x2:t])", "(E>=2 [x1:t] A[?x1:t])"} {
		f := m.Formulas[i]
		if got := dumpExpr(f.Expr); got != want || !f.Hard {
			t.Errorf("formula %d: %s (hard %v), want %s", i+1, got, f.Hard, want)
		}
	}
	if got := m.Formulas[0].Text; got != "|F| = 3" {
		t.Errorf("text %q", got)
	}
}

func TestErrors(t *testing.T) {
	const hdr = "person = {Anna, Bob}\nSmokes(person)\nFriends(person, person)\nCancer(person)\nLocated(person, city)\n"
	// Line 6 is the first line after hdr.
	tests := []struct {
		name, src string
		want      []string
	}{
		{"counting bound", "EXIST=1.5 y Friends(x, y).", []string{
			"e.mln:6:7: the bound of a counting quantifier must be a whole number at least 0, not 1.5"}},
		{"cardinality of an unknown predicate", "|Zorg| = 1", []string{
			"e.mln:6:2: unknown predicate \"Zorg\" in a cardinality constraint; declare it first"}},
		{"cardinality bound", "|Friends| <= x", []string{
			"e.mln:6:14: the bound of a cardinality constraint must be a whole number, not x"}},
		{"unknown predicate", "1.5 Smoke(x) => Cancer(x)", []string{
			"e.mln:6:5: unknown predicate \"Smoke\"; declare it, e.g. Smoke(person), or did you mean \"Smokes\"?"}},
		{"unknown predicate, no suggestion", "Zorg(x, Anna) ^ Smokes(x)", []string{
			"e.mln:6:1: unknown predicate \"Zorg\"; declare it, e.g. Zorg(person, type2)"}},
		{"used before declaration", "Smoke(x) => Cancer(x)\nSmoke(person)", []string{
			"e.mln:6:1: predicate \"Smoke\" is used before its declaration at 7:1; move the declaration above the first formula that uses it"}},
		{"arity", "2 Friends(x) => Smokes(x)", []string{
			"e.mln:6:3: predicate \"Friends\" takes 2 arguments but is given 1; it is declared as Friends(person, person) at 3:1"}},
		{"type clash", "1 Friends(x, y) ^ Located(y, z) => Located(z, x)", []string{
			"e.mln:6:44: type clash for variable \"z\": it is argument 2 of Located (type city) at 6:30 and argument 1 of Located (type person) here; a variable has a single type",
			"e.mln:6:47: type clash for variable \"x\": it is argument 1 of Friends (type person) at 6:11 and argument 2 of Located (type city) here; a variable has a single type"}},
		{"equality type clash", "Located(x, c) ^ x = c", []string{
			"e.mln:6:17: cannot compare x (type person) with c (type city): both sides of = must have the same type"}},
		{"untyped variables", "1 Smokes(x) ^ y = z", []string{
			"e.mln:6:15: cannot infer the type of variable \"y\": it is not an argument of any predicate; use it in an atom or compare it with a typed term",
			"e.mln:6:19: cannot infer the type of variable \"z\": it is not an argument of any predicate; use it in an atom or compare it with a typed term"}},
		{"untyped constants", "1 Smokes(x) ^ Carl = Dave", []string{
			"e.mln:6:15: cannot infer the type of Carl = Dave: neither side is a variable or constant of a known type"}},
		{"unused quantified variable", "1 EXIST y Smokes(x)", []string{
			"e.mln:6:9: variable \"y\" is quantified by EXIST but not used in its scope; remove it from the list"}},
		{"free and quantified", "1 Smokes(x) ^ EXIST x Cancer(x)", []string{
			"e.mln:6:21: variable \"x\" is used free at 6:10 and quantified here in the same formula; rename the quantified one"}},
		{"quantified then free", "(EXIST x Cancer(x)) ^ Smokes(x)", []string{
			"e.mln:6:30: variable \"x\" is quantified at 6:8 and used free here in the same formula; rename the quantified one"}},
		{"shadowing", "FORALL x (Smokes(x) ^ EXIST x Cancer(x))", []string{
			"e.mln:6:29: variable \"x\" is already quantified at 6:8 in an enclosing scope; rename one of them"}},
		{"uppercase quantified variable", "EXIST X Smokes(X)", []string{
			"e.mln:6:7: quantified variable \"X\" must start with a lowercase letter (names starting with an uppercase letter are constants)"}},
		{"per-constant on quantified", "EXIST y Friends(+y, x)", []string{
			`e.mln:6:17: "+y": a per-constant "+" cannot be used on a quantified variable`}},
		{"plus before constant", "Smokes(+Anna)", []string{
			`e.mln:6:8: "+" (per-constant weight) must be followed by a variable`}},
		{"malformed number", "1.2.3 Smokes(x)", []string{
			`e.mln:6:1: malformed number "1.2.3"`}},
		{"non-integer constant", "1 Smokes(1.5)", []string{
			"e.mln:6:10: constant 1.5 is not an integer; numeric constants must be integers"}},
		{"huge constant", "Smokes(99999999999999999999)", []string{
			"e.mln:6:8: integer constant 99999999999999999999 is out of range"}},
		{"weight out of range", "1e999 Smokes(x)", []string{
			"e.mln:6:1: weight 1e999 is out of range"}},
		{"weight without formula", "1.5\nSmokes(x)", []string{
			"e.mln:6:4: expected a formula after the weight 1.5"}},
		{"weight after formula", "Smokes(x) 1.5", []string{
			"e.mln:6:11: unexpected number 1.5 after the formula; Alchemy puts the weight before the formula"}},
		{"weight and period", "1.5 Smokes(x) => Cancer(x).", []string{
			"e.mln:6:27: a formula cannot have both a weight and a trailing period; drop the weight for a hard formula or the period for a soft one"}},
		{"unclosed paren", "1 Smokes(x) ^ (Cancer(x) v Friends(x, y)", []string{
			`e.mln:6:15: unbalanced parenthesis: this "(" is not closed before the end of the line`}},
		{"unclosed argument list", "1 Friends(x, y ^ Smokes(x)", []string{
			`e.mln:6:16: unexpected "^", expected "," or ")" in the arguments of "Friends"`}},
		{"unclosed argument list at end of line", "1 Friends(x, y\nSmokes(x)", []string{
			`e.mln:6:10: unbalanced parenthesis: the argument list of "Friends" is not closed before the end of the line`}},
		{"extra paren", "1 Smokes(x) ^ Cancer(x))", []string{
			`e.mln:6:24: unexpected ")" without a matching "("`}},
		{"dangling operator", "1 Smokes(x) ^", []string{
			"e.mln:6:14: unexpected end of file, expected a formula"}},
		{"operator at line start", "=> Smokes(x)", []string{
			"e.mln:6:1: a formula cannot start with the operator =>; to continue a formula on the next line, end the previous line with the operator"}},
		{"or at line start", "1 Smokes(x)\nv Cancer(x)", []string{
			"e.mln:7:1: a formula cannot start with the operator v; to continue a formula on the next line, end the previous line with the operator"}},
		{"equivalence arrow", "Smokes(x) <-> Cancer(x)", []string{
			`e.mln:6:11: unexpected "<->", expected an operator, "." or end of line after the formula; Alchemy writes equivalence as "<=>"`}},
		{"pipe", "1 Smokes(x) | Cancer(x)", []string{
			`e.mln:6:13: unexpected "|", expected an operator, "." or end of line after the formula; Alchemy writes disjunction as " v " (a v surrounded by spaces)`}},
		{"ampersand", "1 Smokes(x) & Cancer(x)", []string{
			`e.mln:6:13: unexpected "&", expected an operator, "." or end of line after the formula; Alchemy writes conjunction as "^"`}},
		{"arrow", "Smokes(x) -> Cancer(x)", []string{
			`e.mln:6:11: unexpected "->", expected an operator, "." or end of line after the formula; Alchemy writes implication as "=>"`}},
		{"comparison", "1 Smokes(x) ^ x < 3", []string{
			"e.mln:6:17: comparison < is not supported; only = and != can compare terms"}},
		{"brackets", "1 [Smokes(x)]", []string{
			`e.mln:6:3: unexpected "[", expected a formula; Alchemy's indivisible "[ ]" formulas are not supported`}},
		{"successor two steps", "State(t)\nState(t+2)", []string{
			`e.mln:7:9: t+2 links time slices more than one step apart; a dynamic MLN allows only t+1 (the Markov assumption)`}},
		{"successor twice", "State(t)\nState(t++ +1)", []string{
			`e.mln:7:11: t+1+... links time slices more than one step apart; a dynamic MLN allows at most one successor per term (the Markov assumption)`}},
		{"succ of succ", "State(t)\nState(succ(succ(t)))", []string{
			`e.mln:7:12: succ(succ(...)) links time slices two steps apart; a dynamic MLN allows at most one succ per term (the Markov assumption)`}},
		{"succ of constant", "State(t)\nState(succ(A))", []string{
			`e.mln:7:12: succ takes a time variable, e.g. succ(t)`}},
		{"plus after constant", "State(t)\nState(A+1)", []string{
			`e.mln:7:8: unexpected "+" in the arguments of "State"; a "+" may only precede a variable (per-constant weights); only a time variable's successor t+1 or t++ is arithmetic`}},
		{"bang star", "1 !*Smokes(x)", []string{
			`e.mln:6:4: "!" and "*" cannot be used on the same atom`}},
		{"atom compared", "Smokes(x) = Cancer(x)", []string{
			"e.mln:6:11: an atom cannot be compared with =; = and != compare terms (variables, constants, function terms)"}},
		{"equality as argument", "Smokes(x = y)", []string{
			`e.mln:6:10: unexpected "=" inside the arguments of "Smokes"; an equality is a formula, not an argument`}},
		{"nested atom", "1 Smokes(Friends(x, y))", []string{
			"e.mln:6:10: \"Friends\" is a predicate, so Friends(...) cannot be an argument; only functions can be nested"}},
		{"unknown function", "Smokes(x) ^ Friends(x, f(x))", []string{
			`e.mln:6:24: unknown function "f"; declare it before use, e.g. "rettype f(argtype)"`}},
		{"unterminated string", `Smokes("abc)`, []string{
			`e.mln:6:8: string not terminated: add the closing '"' on the same line`}},
		{"unterminated comment", "Smokes(x) /* ...", []string{
			`e.mln:6:11: comment not terminated: "/*" has no matching "*/"`}},
		{"lowercase constant in type", "t = {anna, Bob}", []string{
			`e.mln:6:6: constant "anna" in type "t" must start with an uppercase letter, be an integer or a "quoted string" (pracmln allows lowercase constants: --dialect pracmln)`}},
		{"bad range", "t = {1,...}", []string{
			"e.mln:6:8: malformed range in type \"t\"; write an integer range as {first,...,last}"}},
		{"empty range", "t = {5,...,1}", []string{
			"e.mln:6:12: empty range {5,...,1} in type \"t\": the last value must not be smaller than the first"}},
		{"unclosed type", "t = {A, B", []string{
			`e.mln:6:5: missing "}" to close the "{" of type "t"`}},
		{"predicate redeclared", "Smokes(person!)", []string{
			"e.mln:6:1: predicate \"Smokes\" is already declared at 2:1 as Smokes(person)"}},
		{"forclift weighted declaration", "p(person) 3.5 1.0\np(x) v Smokes(x)", []string{
			`e.mln:6:11: unexpected number 3.5 after the declaration of "p"; weighted predicate declarations (Forclift's "p(t) w1 w2") are not Alchemy syntax`}},
		{"missing include", `#include "nope.mln"`, []string{
			"e.mln:6:10: cannot read included file nope.mln: no such file or directory"}},
		{"include without string", "#include nope", []string{
			`e.mln:6:10: unexpected "nope", expected a quoted file name after #include`}},
		{"include db", `#include "ev.db"`, []string{
			`e.mln:6:10: #include of "ev.db": evidence cannot be included from an .mln file here; read it with ReadDB`}},
		{"other directive", "#domains\nSmokes(x)", []string{
			`e.mln:6:1: unexpected "#domains", expected a formula; the only "#" directive is #include "file"`}},
		{"several errors", "1 Smoke(x)\n2 Friends(x)\n3 Cancer(x) v )\n4 Smokes(x)", []string{
			"e.mln:6:3: unknown predicate \"Smoke\"; declare it, e.g. Smoke(person), or did you mean \"Smokes\"?",
			"e.mln:7:3: predicate \"Friends\" takes 2 arguments but is given 1; it is declared as Friends(person, person) at 3:1",
			`e.mln:8:15: unexpected ")", expected a formula`}},
	}
	for _, tt := range tests {
		m, err := Parse("e.mln", []byte(hdr+tt.src))
		if m == nil {
			t.Errorf("%s: nil MLN", tt.name)
		}
		var el pos.ErrorList
		if !errors.As(err, &el) {
			t.Errorf("%s: error %v is not a pos.ErrorList", tt.name, err)
			continue
		}
		var got []string
		for _, e := range el {
			got = append(got, e.Error())
		}
		if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
			t.Errorf("%s:\n got: %s\nwant: %s", tt.name, strings.Join(got, "\n      "), strings.Join(tt.want, "\n      "))
		}
	}
}

// TestErrorsFixture reads testdata/errors.mln, which collects several
// mistakes in one file, and checks that each is reported.
func TestErrorsFixture(t *testing.T) {
	m, err := ParseFile("testdata/errors.mln")
	want := []string{
		"testdata/errors.mln:7:5: unknown predicate \"Smoke\"; declare it, e.g. Smoke(person), or did you mean \"Smokes\"?",
		"testdata/errors.mln:8:3: predicate \"Friends\" takes 2 arguments but is given 1; it is declared as Friends(person, person) at 4:1",
		"testdata/errors.mln:9:19: unknown predicate \"Located\"; declare it, e.g. Located(person, type2)",
		`testdata/errors.mln:10:15: unbalanced parenthesis: this "(" is not closed before the end of the line`,
		"testdata/errors.mln:11:27: a formula cannot have both a weight and a trailing period; drop the weight for a hard formula or the period for a soft one",
		`testdata/errors.mln:12:1: malformed number "1.2.3"`,
	}
	if err == nil {
		t.Fatal("no error")
	}
	if got := err.Error(); got != strings.Join(want, "\n") {
		t.Errorf("got:\n%s\nwant:\n%s", got, strings.Join(want, "\n"))
	}
	// The declarations survive the errors.
	if m == nil || len(m.Preds) != 3 || len(m.Types) != 1 {
		t.Errorf("partial MLN: %+v", m)
	}
}

func TestIncludes(t *testing.T) {
	m, err := ParseFile("testdata/include.mln")
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Preds) != 2 || len(m.Formulas) != 1 || strings.Join(m.Type("person").Constants, ",") != "Anna,Bob" {
		t.Errorf("included declarations missing: %s", m)
	}
	if p := m.Pred("Smokes").Pos; p.File != "testdata/inc/decls.mln" || p.Line != 3 {
		t.Errorf("Smokes declared at %v", p)
	}
	if p := m.Type("person").Pos; p.File != "testdata/inc/types.mln" || p.Line != 1 {
		t.Errorf("person declared at %v", p)
	}

	_, err = ParseFile("testdata/cycle_a.mln")
	want := "testdata/cycle_b.mln:2:1: include cycle: cycle_a.mln includes cycle_b.mln includes cycle_a.mln"
	if err == nil || err.Error() != want {
		t.Errorf("cycle: got %v, want %s", err, want)
	}

	// Through an fs.FS, with a self-include.
	fsys := fstest.MapFS{
		"a/main.mln": {Data: []byte("#include \"../b/decl.mln\"\nP(x) => Q(x)\n")},
		"b/decl.mln": {Data: []byte("P(t)\nQ(t)\n")},
		"self.mln":   {Data: []byte("#include \"self.mln\"\n")},
	}
	m, err = ParseFS(fsys, "a/main.mln")
	if err != nil || len(m.Formulas) != 1 || m.Pred("Q").Pos.File != "b/decl.mln" {
		t.Errorf("ParseFS: %v %v", m, err)
	}
	_, err = ParseFS(fsys, "self.mln")
	if err == nil || err.Error() != "self.mln:1:1: include cycle: self.mln includes self.mln" {
		t.Errorf("self include: %v", err)
	}
	_, err = ParseFS(fsys, "missing.mln")
	if err == nil || err.Error() != "missing.mln: cannot read file: file does not exist" {
		t.Errorf("missing file: %v", err)
	}
}

func TestParseFiles(t *testing.T) {
	dir := t.TempDir()
	types := dir + "/types.mln"
	prog := dir + "/prog.mln"
	os.WriteFile(types, []byte("person = {Ann, Bob}\n"), 0o644)
	os.WriteFile(prog, []byte("Smokes(person)\n1 Smokes(Ann)\n"), 0o644)
	m, err := ParseFiles(types, prog)
	if err != nil {
		t.Fatal(err)
	}
	if !m.Type("person").Declared || len(m.Type("person").Constants) != 2 || len(m.Warnings) != 0 {
		t.Errorf("got %s / %v", m, m.Warnings)
	}
}

// TestRoundTrip parses, prints and parses again, and compares the trees.
func TestRoundTrip(t *testing.T) {
	sources := map[string]string{}
	for _, f := range []string{"testdata/smokers.mln"} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		sources[f] = string(b)
	}
	const decls = "t = {A, B, \"C d\"}\nn = {0,...,4}\nP\nQ\nR\nA(t)\nB(t)\nE(t, n!)\nt f(t, t)\n"
	formulas := []string{
		"P ^ Q v R", "P v Q ^ R", "P => Q => R", "P => (Q => R)", "(P <=> Q) <=> R", "P <=> (Q <=> R)",
		"P ^ (Q ^ R)", "P v (Q v R)", "!(P v Q) ^ !!R", "(EXIST x A(x)) v P", "P ^ (EXIST x A(x)) ^ Q",
		"P v FORALL x EXIST y A(x) ^ B(y)", "!(EXIST x A(x))", "A(x) ^ !(x = y) ^ B(y)", "A(x) ^ x != B",
		"A(x) ^ x = \"C d\"", "E(x, 3) ^ E(x, n)", "-1.5 A(+x) v B(x)", "2 *A(x) v *B(x)", "A(f(x, A)) => B(x).",
		"A(x)", "A(person)", "P", "@3 P", "1e-05 A(x)", "A(v) v B(v)", "0 = n ^ E(A, n)",
		"FORALL x (A(x) => EXIST y (B(y) ^ f(x, y) = x))", "(EXIST x A(x)) ^ (EXIST x B(x))",
	}
	sources["formulas"] = decls + strings.Join(formulas, "\n") + "\n"
	for name, src := range sources {
		m1, err := Parse(name, []byte(src))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		printed := m1.String()
		m2, err := Parse("printed", []byte(printed))
		if err != nil {
			t.Errorf("%s: reparse: %v\nprinted:\n%s", name, err, printed)
			continue
		}
		if d1, d2 := dumpMLN(m1), dumpMLN(m2); d1 != d2 {
			t.Errorf("%s: round trip changed the tree\nfirst:\n%s\nsecond:\n%s\nprinted:\n%s", name, d1, d2, printed)
		}
		// Each formula also round-trips on its own, after the declarations.
		for _, f := range m1.Formulas {
			var b strings.Builder
			for _, t := range m1.Types {
				b.WriteString(t.String() + "\n")
			}
			for _, d := range m1.Funcs {
				b.WriteString(d.String() + "\n")
			}
			for _, d := range m1.Preds {
				b.WriteString(d.String() + "\n")
			}
			b.WriteString(f.String())
			m3, err := Parse("one", []byte(b.String()))
			if err != nil {
				t.Errorf("%q: %v", f.String(), err)
				continue
			}
			if got, want := dumpFormula(m3.Formulas[0]), dumpFormula(f); got != want {
				t.Errorf("%q:\n got %s\nwant %s", f.String(), got, want)
			}
		}
	}
}

func TestPrinting(t *testing.T) {
	m := mustParse(t, "p.mln", "t = {A, B}\nn = {1,...,5}\nP\nQ\nR\nA(t)\nH(t, n!)\nt f(t)\n"+
		"1.5 P => Q => R\nP => (Q => R)\n!(P ^ Q) v R\nA(x) ^ !(x = B) ^ x != A\nEXIST x,y A(x) ^ A(y)\n-2 A(+x)\nA(f(x))\n*A(x) ^ P.\nP\n")
	want := []string{
		"1.5 (P => Q) => R",
		"P => (Q => R)",
		"!(P ^ Q) v R",
		"A(x) ^ !(x = B) ^ !(x = A)",
		"EXIST x,y A(x) ^ A(y)",
		"-2 A(+x)",
		"(A(f(x)))",
		"*A(x) ^ P.",
		"(P)",
	}
	for i, w := range want {
		if got := m.Formulas[i].String(); got != w {
			t.Errorf("formula %d: got %q, want %q", i, got, w)
		}
	}
	if got := m.Type("n").String(); got != "n = {1,...,5}" {
		t.Errorf("range prints as %q", got)
	}
	if got := m.Pred("H").String(); got != "H(t, n!)" {
		t.Errorf("H prints as %q", got)
	}
	wantMLN := "t = {A, B}\nn = {1,...,5}\nt f(t)\nP\nQ\nR\nA(t)\nH(t, n!)\n" + strings.Join(want, "\n") + "\n"
	if got := m.String(); got != wantMLN {
		t.Errorf("MLN prints as\n%s\nwant\n%s", got, wantMLN)
	}
	if got := (mln.Term{Name: "x", IsVar: true, PerConstant: true}).String(); got != "+x" {
		t.Errorf("term prints as %q", got)
	}
}

func TestInspect(t *testing.T) {
	m := mustParse(t, "i.mln", "P\nA(t)\nP ^ !(A(x) v EXIST y A(y)) => A(B)\n")
	var atoms []string
	mln.Inspect(m.Formulas[0].Expr, func(e mln.Expr) bool {
		if a, ok := e.(*mln.Atom); ok {
			atoms = append(atoms, a.String())
		}
		_, isQuant := e.(*mln.Exists)
		return !isQuant // skip quantified bodies
	})
	if got := strings.Join(atoms, " "); got != "P A(x) A(B)" {
		t.Errorf("Inspect visited %s", got)
	}
	if p := m.Formulas[0].Expr.Position(); p.Line != 3 || p.Col != 1 {
		t.Errorf("position %v", p)
	}
}
