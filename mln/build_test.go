package mln_test

import (
	"testing"

	"github.com/lifted-dev/lifted/mln"
	"github.com/lifted-dev/lifted/pos"
)

// TestBuilder builds a model without the parser: a formula over a
// predicate declared after it, then one that checks.
func TestBuilder(t *testing.T) {
	at := func(line, col int) pos.Position { return pos.Position{File: "b.mln", Line: line, Col: col} }
	v := func(name string, col int) mln.Term { return mln.Term{Name: name, IsVar: true, Pos: at(3, col)} }
	b := mln.NewBuilder()
	b.DeclareType("person", at(1, 1), []string{"Anna", "Bob"})
	b.AddFormula(&mln.Formula{Expr: &mln.Atom{Pred: "Smokes", Args: []mln.Term{v("x", 8)}, Pos: at(2, 1)}, Text: "Smokes(x)", Pos: at(2, 1)})
	b.DeclarePred(&mln.PredDecl{Name: "Smokes", ArgTypes: []string{"person"}, Pos: at(4, 1)}, []pos.Position{at(4, 8)})
	b.DeclarePred(&mln.PredDecl{Name: "Has", ArgTypes: []string{"person", "color"}, MutexArgs: []int{1}, Pos: at(5, 1)}, []pos.Position{at(5, 5), at(5, 13)})
	f := &mln.Formula{Weight: 1, HasWeight: true, Pos: at(3, 1), Expr: &mln.Implies{
		L: &mln.Atom{Pred: "Smokes", Args: []mln.Term{v("x", 10)}, Pos: at(3, 3)},
		R: &mln.Atom{Pred: "Has", Args: []mln.Term{v("x", 20), {Name: "Red", Pos: at(3, 22)}}, Pos: at(3, 16)},
	}}
	b.AddFormula(f)
	m, err := b.Finish()
	want := `b.mln:2:1: predicate "Smokes" is used before its declaration at 4:1; move the declaration above the first formula that uses it`
	if err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
	if len(f.Vars) != 1 || f.Vars[0].Type != "person" || f.String() != "1 Smokes(x) => Has(x,Red)" {
		t.Errorf("%s: vars %v", f, f.Vars)
	}
	if d := m.Pred("Has"); d.MutexArg != 1 || d.TypeIdx[1] != m.TypeIndex("color") || m.Type("color").Pos != at(5, 13) {
		t.Errorf("Has: %+v", d)
	}
	if c := m.Type("color").Constants; len(c) != 1 || c[0] != "Red" {
		t.Errorf("color = %v", c)
	}
}
