package mlnfile

import (
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/lifted-dev/lifted/mln"
)

func smokersMLN(t testing.TB) *mln.MLN {
	t.Helper()
	m, err := ParseFile("testdata/smokers.mln")
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestReadDBFixture(t *testing.T) {
	m := smokersMLN(t)
	db, err := ReadDBFiles(m, "testdata/smokers.db")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, a := range db.Atoms {
		got = append(got, db.Format(a))
	}
	want := []string{
		"Friends(Anna,Bob)", "Friends(Bob,Anna)", `Friends(Anna,"Carl Smith")`, "!Friends(Bob,Dora)",
		"Smokes(Anna)", "?Cancer(Bob)", "Raining", "Likes(Anna,Red)", "!Likes(Anna,Blue)",
		"Smoked(Fred,3)", "Smoked(Anna,12)", "LivesIn(Anna,Seattle)",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("atoms in file order:\n got %v\nwant %v", got, want)
	}
	if db.Atoms[0].Pos.String() != "testdata/smokers.db:2:1" {
		t.Errorf("first atom at %v", db.Atoms[0].Pos)
	}

	for _, c := range []struct {
		pred  string
		args  []string
		truth mln.Truth
		found bool
	}{
		{"Friends", []string{"Anna", "Bob"}, mln.True, true},
		{"Friends", []string{"Bob", "Dora"}, mln.False, true},
		{"Friends", []string{"Dora", "Bob"}, mln.False, false},
		{"Cancer", []string{"Bob"}, mln.Unknown, true},
		{"Raining", nil, mln.True, true},
		{"Smoked", []string{"Anna", "12"}, mln.True, true},
		{"Smoked", []string{"Anna", "Nope"}, mln.False, false},
		{"Nope", nil, mln.False, false},
	} {
		tv, ok := db.LookupAtom(c.pred, c.args...)
		if tv != c.truth || ok != c.found {
			t.Errorf("LookupAtom(%s%v) = %v, %v; want %v, %v", c.pred, c.args, tv, ok, c.truth, c.found)
		}
	}
	// Lookup by indices.
	friends := m.PredIndex("Friends")
	anna, bob := db.ConstIndex("person", "Anna"), db.ConstIndex("person", "Bob")
	if tv, ok := db.Lookup(friends, []int{bob, anna}); !ok || tv != mln.True {
		t.Errorf("Lookup(Friends(Bob,Anna)) = %v, %v", tv, ok)
	}
	if db.Count(friends) != 4 || db.Count(m.PredIndex("Cancer")) != 1 || db.Count(m.PredIndex("Smokes")) != 1 {
		t.Errorf("counts wrong")
	}

	// Function values.
	city := m.Func("cityOf")
	if v, ok := db.FuncValueOf(city.Index, []int{anna}); !ok || db.Domain("city")[v] != "Seattle" {
		t.Errorf("cityOf(Anna) = %v, %v", v, ok)
	}
	if len(db.Funcs) != 1 || db.Funcs[0].Pos.Line != 14 {
		t.Errorf("Funcs = %+v", db.Funcs)
	}

	// Domains: declared, then from formulas, then from evidence.
	doms := mln.Domains(m, db)
	wantDoms := map[string][]string{
		"person": {"Anna", "Bob", `"Carl Smith"`, "Dora", "Eve", "Fred"},
		"time":   {"0", "1", "2", "3", "12"},
		"color":  {"Red", "Green", "Blue"},
		"city":   {"Seattle"},
	}
	if !reflect.DeepEqual(doms, wantDoms) {
		t.Errorf("Domains = %v, want %v", doms, wantDoms)
	}
	if !reflect.DeepEqual(db.Domain("time"), wantDoms["time"]) || db.Domain("nope") != nil || db.ConstIndex("time", "12") != 4 || db.ConstIndex("x", "y") != -1 {
		t.Errorf("Domain/ConstIndex wrong")
	}
	// The MLN itself is not changed by evidence.
	if len(m.Type("person").Constants) != 5 {
		t.Errorf("evidence changed the MLN's domain: %v", m.Type("person").Constants)
	}

	var ws []string
	for _, w := range db.Warnings {
		ws = append(ws, w.Error())
	}
	wantWarn := []string{
		"testdata/smokers.db:11:8: constant Fred is not in the declared domain of type \"person\"; it is added to the domain, as Alchemy does",
		"testdata/smokers.db:12:14: constant 12 is not in the declared domain of type \"time\"; it is added to the domain, as Alchemy does",
	}
	if !reflect.DeepEqual(ws, wantWarn) {
		t.Errorf("warnings:\n%s", strings.Join(ws, "\n"))
	}
	if db.MLN() != m {
		t.Error("MLN()")
	}
}

func TestReadDBSeveral(t *testing.T) {
	m := smokersMLN(t)
	dir := t.TempDir()
	a, b := dir+"/a.db", dir+"/b.db"
	os.WriteFile(a, []byte("Smokes(Zed)\nFriends(Zed, Anna)\n"), 0o644)
	os.WriteFile(b, []byte("Smokes(Yan)\n!Smokes(Zed)\n"), 0o644)
	db, err := ReadDBFiles(m, a, b, dir+"/missing.db")
	if err == nil || !strings.Contains(err.Error(), "b.db:2:1: conflicting evidence: !Smokes(Zed) here contradicts Smokes(Zed) at "+a+":1:1") ||
		!strings.Contains(err.Error(), "missing.db: cannot read file: no such file or directory") {
		t.Errorf("err = %v", err)
	}
	if got := db.Domain("person"); strings.Join(got[len(got)-2:], ",") != "Zed,Yan" {
		t.Errorf("person domain %v", got)
	}
	// Domains merges several databases, in order.
	db2, err := ReadDB(strings.NewReader("Smokes(Xia)\nSmokes(Zed)\n"), "c.db", m)
	if err != nil {
		t.Fatal(err)
	}
	if got := mln.Domains(m, db, db2)["person"]; strings.Join(got, ",") != `Anna,Bob,"Carl Smith",Dora,Eve,Zed,Yan,Xia` {
		t.Errorf("merged person domain %v", got)
	}
	if got := mln.Domains(m)["city"]; got == nil || len(got) != 0 {
		t.Errorf("empty domain should be an empty slice, got %#v", got)
	}
}

func TestDBErrors(t *testing.T) {
	m := smokersMLN(t)
	tests := []struct {
		name, src string
		want      []string
	}{
		{"unknown predicate", "Smoke(Anna)", []string{
			"e.db:1:1: unknown predicate \"Smoke\"; declare it in the .mln file, or did you mean \"Smokes\"?"}},
		{"arity", "Friends(Anna)", []string{
			"e.db:1:1: predicate \"Friends\" takes 2 arguments but is given 1; it is declared as Friends(person, person) at testdata/smokers.mln:10:1"}},
		{"variable", "Friends(anna, Bob)", []string{
			`e.db:1:9: evidence must be ground: anna starts with a lowercase letter, so it is a variable; write constants with an uppercase first letter, as integers or as "quoted strings"`}},
		{"conflict", "Smokes(Anna)\n!Smokes(Anna)", []string{
			"e.db:2:1: conflicting evidence: !Smokes(Anna) here contradicts Smokes(Anna) at 1:1; an atom can have only one value"}},
		{"conflict with unknown", "?Smokes(Anna)\n// comment\nSmokes(Anna)", []string{
			"e.db:3:1: conflicting evidence: Smokes(Anna) here contradicts ?Smokes(Anna) at 1:1; an atom can have only one value"}},
		{"soft evidence", "0.8 Smokes(Anna)", []string{
			"e.db:1:1: soft evidence is not supported: remove the weight or probability 0.8 before the atom"}},
		{"real value", "Smokes(Anna) 0.8", []string{
			"e.db:1:14: unexpected number 0.8 after the atom; real-valued evidence is not supported"}},
		{"two atoms on a line", "Smokes(Anna) Smokes(Bob)", []string{
			`e.db:1:14: unexpected "Smokes", expected end of line (one atom per line)`}},
		{"mutex", "Likes(Anna, Red)\nLikes(Anna, Blue)", []string{
			`e.db:2:1: Likes(Anna,Blue) and Likes(Anna,Red) (at 1:1) are both true, but Likes(person, color!) allows only one true value of its "!" argument for the same other arguments`}},
		{"unclosed", "Smokes(Anna\nSmokes(Bob)", []string{
			"e.db:1:7: unbalanced parenthesis: the argument list of \"Smokes\" is not closed before the end of the line"}},
		{"function conflict", "Bob = cityOf(Anna)\nSea = cityOf(Anna)", []string{
			"e.db:2:1: conflicting function values: cityOf(Anna) is Sea here but Bob at 1:1"}},
		{"unknown function", "X = foo(Anna)", []string{
			`e.db:1:5: unknown function "foo"; declare it in the .mln file, e.g. "rettype foo(argtype)"`}},
		{"function as atom", "cityOf(Anna)", []string{
			`e.db:1:1: "cityOf" is a function; give its values as "C = cityOf(args)"`}},
		{"non-integer", "Smoked(Anna, 1.5)", []string{
			"e.db:1:14: constant 1.5 is not an integer; numeric constants must be integers"}},
		{"bad token", "Smokes(Anna) ^ Smokes(Bob)", []string{
			`e.db:1:14: unexpected "^", expected end of line (one atom per line)`}},
		{"several", "Smoke(A)\nSmokes(Anna)\nFriends(a, B)\n!Smokes(Anna)", []string{
			"e.db:1:1: unknown predicate \"Smoke\"; declare it in the .mln file, or did you mean \"Smokes\"?",
			`e.db:3:9: evidence must be ground: a starts with a lowercase letter, so it is a variable; write constants with an uppercase first letter, as integers or as "quoted strings"`,
			"e.db:4:1: conflicting evidence: !Smokes(Anna) here contradicts Smokes(Anna) at 2:1; an atom can have only one value"}},
	}
	for _, tt := range tests {
		db, err := ReadDB(strings.NewReader(tt.src), "e.db", m)
		if db == nil {
			t.Errorf("%s: nil DB", tt.name)
		}
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != strings.Join(tt.want, "\n") {
			t.Errorf("%s:\n got: %s\nwant: %s", tt.name, got, strings.Join(tt.want, "\n"))
		}
	}
	// Accepted: repeats, nullary with parentheses, quoted and integer constants, comments.
	db, err := ReadDB(strings.NewReader("Smokes(Anna)\nSmokes(Anna)\nRaining()\n/* a\n b */ Smoked(\"Carl Smith\", 007)\n"), "ok.db", m)
	if err != nil || len(db.Atoms) != 3 {
		t.Errorf("err %v, atoms %d", err, len(db.Atoms))
	}
	if tv, ok := db.LookupAtom("Smoked", `"Carl Smith"`, "7"); !ok || tv != mln.True {
		t.Errorf("Smoked(\"Carl Smith\", 7) = %v %v", tv, ok)
	}
}

func TestReadQuery(t *testing.T) {
	m := smokersMLN(t)
	atoms, err := ReadQuery(strings.NewReader("Cancer, Smokes(x)\nFriends(Anna, y)\n\nRaining\n"), "q.db", m)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, a := range atoms {
		got = append(got, dumpExpr(a))
	}
	want := []string{"Cancer[]", "Smokes[?x:person]", "Friends[Anna:person ?y:person]", "Raining[]"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	_, err = ReadQuery(strings.NewReader("Cancr(x)\nFriends(x)\nSmokes()"), "q.db", m)
	wantErr := "q.db:1:1: unknown predicate \"Cancr\"; declare it in the .mln file, or did you mean \"Cancer\"?\n" +
		"q.db:2:1: predicate \"Friends\" takes 2 arguments but is given 1; it is declared as Friends(person, person) at testdata/smokers.mln:10:1\n" +
		"q.db:3:1: predicate \"Smokes\" takes 1 argument but is given 0; it is declared as Smokes(person) at testdata/smokers.mln:11:1"
	if err == nil || err.Error() != wantErr {
		t.Errorf("got %v", err)
	}
}
