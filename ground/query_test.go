package ground

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"github.com/lifted-dev/lifted/mln"
)

func TestSplitQuery(t *testing.T) {
	for s, want := range map[string][]string{
		"Smokes,Cancer":               {"Smokes", "Cancer"},
		" Friends(Anna, y) , Smokes ": {"Friends(Anna, y)", "Smokes"},
		`P("a,b"),Q`:                  {`P("a,b")`, "Q"},
		",, ,":                        nil,
	} {
		if got := SplitQuery(s); !reflect.DeepEqual(got, want) {
			t.Errorf("SplitQuery(%q) = %q, want %q", s, got, want)
		}
	}
}

func TestQueryAtoms(t *testing.T) {
	m := smokersMLN(t, 3)
	db := mln.NewDB(m)
	if err := db.AddAtom("Smokes", []string{"P0"}, mln.True); err != nil {
		t.Fatal(err)
	}
	q, err := ParseQuery(m, db, []string{"Friends(x,x),Smokes", "Smokes(P1),Cancer(P2)"})
	if err != nil {
		t.Fatal(err)
	}
	if q.Len() != 4 || !reflect.DeepEqual(q.Preds(), []string{"Friends", "Smokes", "Smokes", "Cancer"}) || q.Need() != nil {
		t.Fatalf("query: %d atoms, predicates %q, need %v", q.Len(), q.Preds(), q.Need())
	}
	gr, err := Ground(context.Background(), m, db, Options{QueryAtoms: q})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, qa := range gr.Queries {
		names = append(names, qa.Name)
		if got := gr.AtomName(qa.Var); got != qa.Name {
			t.Errorf("%s: variable %d is %s", qa.Name, qa.Var, got)
		}
	}
	// Smokes(P0) is evidence; Smokes(P1) is listed once.
	want := []string{"Friends(P0,P0)", "Friends(P1,P1)", "Friends(P2,P2)", "Smokes(P1)", "Smokes(P2)", "Cancer(P2)"}
	if !reflect.DeepEqual(names, want) {
		t.Errorf("queries %q, want %q", names, want)
	}
	// Friends is a query predicate, so open-world.
	if gr.Closed["Friends"] {
		t.Error("Friends is closed-world")
	}

	empty, err := ParseQuery(m, nil, []string{" , "})
	if err != nil || empty.Len() != 0 {
		t.Fatalf("empty query: %v, %d atoms", err, empty.Len())
	}
	var qe *QueryError
	if err := empty.Need(); !errors.As(err, &qe) || err.Error() != "no query: give the predicates to infer with -q, e.g. -q Smokes (this MLN declares Smokes, Cancer, Friends)" {
		t.Errorf("Need: %v", err)
	}
	for v, msg := range map[string]string{
		"Nope":           `-q: unknown predicate "Nope" in the query list (this MLN declares Smokes, Cancer, Friends)`,
		"Smokes(Zed)":    "-q: constant Zed in Smokes(Zed) is not in the domain of type person",
		"Smokes(a,b)":    `-q:1:1: predicate "Smokes" takes 1 argument but is given 2; it is declared as Smokes(person) at smokers.mln:2:1`,
		"Smokes,Nope(x)": `-q: unknown predicate "Nope" in the query list (this MLN declares Smokes, Cancer, Friends)`,
	} {
		_, err := ParseQuery(m, db, []string{v})
		if !errors.As(err, &qe) || err.Error() != msg {
			t.Errorf("%s: %v, want %s", v, err, msg)
		}
	}
	if _, err := Ground(context.Background(), smokersMLN(t, 2), nil, Options{QueryAtoms: q}); err == nil {
		t.Error("a query of another MLN is accepted")
	}
}
