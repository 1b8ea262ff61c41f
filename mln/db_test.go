package mln_test

import (
	"reflect"
	"strings"
	"testing"

	mlnfile "github.com/lifted-dev/lifted/format/mlnfile"
	"github.com/lifted-dev/lifted/mln"
	"github.com/lifted-dev/lifted/pos"
)

func TestAddAtom(t *testing.T) {
	m := smokersMLN(t)
	db := mln.NewDB(m)
	if err := db.AddAtom("Smokes", []string{"Zoe"}, mln.True); err != nil {
		t.Fatal(err)
	}
	if err := db.AddAtom("Smokes", []string{"Zoe"}, mln.False); err == nil || !strings.Contains(err.Error(), "conflicting evidence") {
		t.Errorf("conflict: %v", err)
	}
	if err := db.AddAtom("Nope", nil, mln.True); err == nil {
		t.Error("unknown predicate accepted")
	}
	if err := db.AddAtom("Smokes", nil, mln.True); err == nil {
		t.Error("wrong arity accepted")
	}
	if db.ConstIndex("person", "Zoe") != 5 {
		t.Errorf("Zoe at %d", db.ConstIndex("person", "Zoe"))
	}
}

func TestClosedWorld(t *testing.T) {
	m := mustParse(t, "w.mln", "Friends(p, p)\nSmokes(p)\nCancer(p)\nAsthma(p)\n*Knows(p, p)\nTall(p)\n")
	db, err := mlnfile.ReadDB(strings.NewReader("Friends(A, B)\nSmokes(A)\n?Asthma(B)\n"), "w.db", m)
	if err != nil {
		t.Fatal(err)
	}
	// The "*" mark makes the program Tuffy's: only *Knows is closed-world.
	if m.Dialect.Dialect != mln.DialectTuffy {
		t.Fatalf("dialect %v, want tuffy", m.Dialect)
	}
	cw, err := mln.ClosedWorld(m, db, []string{"Smokes(x)", "Cancer"}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{"Friends": false, "Smokes": false, "Cancer": false, "Asthma": false, "Knows": true, "Tall": false}
	if !reflect.DeepEqual(cw, want) {
		t.Errorf("tuffy: got %v, want %v", cw, want)
	}
	// pracmln: none is closed-world.
	m.Dialect.Dialect = mln.DialectPracmln
	cw, _ = mln.ClosedWorld(m, db, []string{"Smokes(x)", "Cancer"}, nil, nil)
	for p, c := range cw {
		if c {
			t.Errorf("pracmln: %s closed-world", p)
		}
	}
	// Alchemy's rule.
	m.Dialect.Dialect = mln.DialectAlchemy
	cw, err = mln.ClosedWorld(m, db, []string{"Smokes(x)", "Cancer"}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	want = map[string]bool{
		"Friends": true,  // evidence, not queried
		"Smokes":  false, // queried, even with evidence
		"Cancer":  false, // queried
		"Asthma":  true,  // an explicitly unknown atom is still evidence
		"Knows":   true,  // Tuffy *Knows(...)
		"Tall":    false, // no evidence
	}
	if !reflect.DeepEqual(cw, want) {
		t.Errorf("got %v, want %v", cw, want)
	}
	cw, err = mln.ClosedWorld(m, db, []string{"Cancer"}, []string{"Tall"}, []string{"Friends", "Knows"})
	if err != nil {
		t.Fatal(err)
	}
	want = map[string]bool{"Friends": false, "Smokes": true, "Cancer": false, "Asthma": true, "Knows": false, "Tall": true}
	if !reflect.DeepEqual(cw, want) {
		t.Errorf("with overrides: got %v, want %v", cw, want)
	}
	cw, err = mln.ClosedWorld(m, nil, nil, nil, nil)
	if err != nil || cw["Friends"] || !cw["Knows"] {
		t.Errorf("without evidence: %v %v", cw, err)
	}
	for _, c := range []struct {
		q, cw, ow []string
		want      string
	}{
		{nil, []string{"Tall"}, []string{"Tall"}, `predicate "Tall" is listed as both closed-world and open-world`},
		{[]string{"Tall"}, []string{"Tall"}, nil, `query predicate "Tall" cannot be closed-world`},
		{[]string{"Cancr"}, nil, nil, `unknown predicate "Cancr" in the query list; did you mean "Cancer"?`},
		{nil, nil, []string{"Nope"}, `unknown predicate "Nope" in the open-world list`},
	} {
		_, err := mln.ClosedWorld(m, db, c.q, c.cw, c.ow)
		if err == nil || err.Error() != c.want {
			t.Errorf("got %v, want %s", err, c.want)
		}
	}
}

func TestTruthString(t *testing.T) {
	if mln.True.String() != "true" || mln.False.String() != "false" || mln.Unknown.String() != "unknown" || mln.Truth(9).String() != "Truth(9)" {
		t.Error("Truth.String")
	}
}

// TestDBSharesTypeIndex checks the database's domain, which shares the
// declared type's index, against the MLN's constants: lookups, constants
// new in evidence, and constants the MLN gains after the database is made
// (which that database must not see, nor another database's).
func TestDBSharesTypeIndex(t *testing.T) {
	m := mustParse(t, "s.mln", "person = {A, B, C}\nSmokes(person)\n")
	db := mln.NewDB(m)
	for i, c := range []string{"A", "B", "C"} {
		if got := db.ConstIndex("person", c); got != i {
			t.Errorf("ConstIndex(%s) = %d, want %d", c, got, i)
		}
	}
	// An MLN that gains a constant after a database is made: the database
	// keeps the domain it started with.
	bld := mln.NewBuilder()
	bld.DeclareType("person", pos.Position{Line: 1}, []string{"A", "B"})
	m2, err := bld.Finish()
	if err != nil {
		t.Fatal(err)
	}
	early := mln.NewDB(m2)
	bld.DeclareType("person", pos.Position{Line: 2}, []string{"C"})
	if got := m2.Type("person").Constants; !reflect.DeepEqual(got, []string{"A", "B", "C"}) {
		t.Fatalf("constants %v", got)
	}
	if got := early.ConstIndex("person", "C"); got != -1 {
		t.Errorf("the earlier database sees C at %d", got)
	}
	if got := mln.NewDB(m2).ConstIndex("person", "C"); got != 2 {
		t.Errorf("a later database has C at %d, want 2", got)
	}
	if err := db.AddAtom("Smokes", []string{"E"}, mln.True); err != nil {
		t.Fatal(err)
	}
	if err := db.AddAtom("Smokes", []string{"B"}, mln.False); err != nil {
		t.Fatal(err)
	}
	if got := db.Domain("person"); !reflect.DeepEqual(got, []string{"A", "B", "C", "E"}) {
		t.Errorf("domain %v", got)
	}
	if got := m.Type("person").Constants; !reflect.DeepEqual(got, []string{"A", "B", "C"}) {
		t.Errorf("the MLN's constants changed: %v", got)
	}
	db2 := mln.NewDB(m)
	if got := db2.ConstIndex("person", "E"); got != -1 {
		t.Errorf("a second database sees the first's constant E at %d", got)
	}
	if err := db2.AddAtom("Smokes", []string{"F"}, mln.True); err != nil {
		t.Fatal(err)
	}
	if got, want := db2.ConstIndex("person", "F"), 3; got != want {
		t.Errorf("F at %d, want %d", got, want)
	}
	if v, ok := db.LookupAtom("Smokes", "B"); !ok || v != mln.False {
		t.Errorf("LookupAtom(Smokes, B) = %v, %v", v, ok)
	}
}

// World names each predicate's world and why, in agreement with
// ClosedWorld, under each dialect's rule and the --cw/--ow lists.
func TestWorld(t *testing.T) {
	m := mustParse(t, "w.mln", "Friends(p, p)\nSmokes(p)\nCancer(p)\nAsthma(p)\n*Knows(p, p)\nTall(p)\n")
	db, err := mlnfile.ReadDB(strings.NewReader("Friends(A, B)\nSmokes(A)\n?Asthma(B)\n"), "w.db", m)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		dialect mln.Dialect
		cw, ow  []string
		want    string
	}{
		{mln.DialectAlchemy, nil, nil, "closed world: Friends, Asthma (not queried, with evidence: Alchemy's rule; --ow opens it); Knows (marked *); open world: Smokes, Cancer (queried); Tall (no evidence)"},
		{mln.DialectAlchemy, []string{"Tall"}, []string{"Friends"}, "closed world: Asthma (not queried, with evidence: Alchemy's rule; --ow opens it); Knows (marked *); Tall (--cw); open world: Friends (--ow); Smokes, Cancer (queried)"},
		{mln.DialectTuffy, nil, nil, "closed world: Knows (marked * (Tuffy's rule)); open world: Friends, Asthma, Tall (not marked * (Tuffy's rule)); Smokes, Cancer (queried)"},
		{mln.DialectPracmln, nil, nil, "open world: Friends, Asthma, Knows, Tall (pracmln's rule: every predicate open); Smokes, Cancer (queried)"},
	} {
		m.Dialect.Dialect = c.dialect
		got, err := mln.World(m, db, []string{"Smokes(x)", "Cancer"}, c.cw, c.ow)
		if err != nil || got != c.want {
			t.Errorf("%v cw %v ow %v:\n got %q, %v\nwant %q", c.dialect, c.cw, c.ow, got, err, c.want)
		}
		cw, _ := mln.ClosedWorld(m, db, []string{"Smokes(x)", "Cancer"}, c.cw, c.ow)
		for p, closed := range cw {
			if in := strings.Contains(strings.Split(got, "open world:")[0], p); in != closed {
				t.Errorf("%v: %s closed %v by ClosedWorld, but World says %q", c.dialect, p, closed, got)
			}
		}
	}
}
