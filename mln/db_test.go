package mln_test

import (
	"reflect"
	"strings"
	"testing"

	mlnfile "github.com/lifted-dev/lifted/format/mln"
	"github.com/lifted-dev/lifted/mln"
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
	cw, err := mln.ClosedWorld(m, db, []string{"Smokes(x)", "Cancer"}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{
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
