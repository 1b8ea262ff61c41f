package cnf

import (
	"errors"
	"reflect"
	"testing"

	"github.com/lifted-dev/lifted/fg"
)

func TestValidate(t *testing.T) {
	for _, c := range []*CNF{
		{NumVars: -1},
		{NumVars: 2, Clauses: [][]int32{{1, 0}}},
		{NumVars: 2, Clauses: [][]int32{{3}}},
		{NumVars: 2, Clauses: [][]int32{{-1 << 31}}},
	} {
		if c.Validate() == nil {
			t.Errorf("Validate(%+v) = nil, want an error", c)
		}
	}
	if err := (&CNF{NumVars: 2, Clauses: [][]int32{{1, -2}}}).Validate(); err != nil {
		t.Errorf("Validate: %v", err)
	}
}

func TestToGraph(t *testing.T) {
	c := &CNF{NumVars: 4, Clauses: [][]int32{
		{1, -2},    // factor 0
		{2, 2, -3}, // duplicate merged: scope (1,2)
		{3, -3, 1}, // tautology dropped
		{-1, 2},    // factor 2
		{1, -2},    // same table as factor 0
	}}
	g, err := ToGraph(c)
	if err != nil {
		t.Fatal(err)
	}
	if g.NumVars() != 4 || g.NumFactors() != 4 {
		t.Fatalf("%d vars %d factors, want 4 and 4", g.NumVars(), g.NumFactors())
	}
	if g.Degree(3) != 0 {
		t.Errorf("variable 4 occurs in no clause but has degree %d", g.Degree(3))
	}
	wantScopes := [][]int32{{0, 1}, {1, 2}, {0, 1}, {0, 1}}
	wantNeg := [][]bool{{false, true}, {false, true}, {true, false}, {false, true}}
	for f := range g.NumFactors() {
		if !reflect.DeepEqual(g.Scope(f), wantScopes[f]) {
			t.Errorf("factor %d scope %v, want %v", f, g.Scope(f), wantScopes[f])
		}
		neg, ok := fg.ClauseSigns(g.Table(f))
		if !ok || !reflect.DeepEqual(neg, wantNeg[f]) {
			t.Errorf("ClauseSigns(factor %d) = %v %v, want %v", f, neg, ok, wantNeg[f])
		}
	}
	if g.FactorTable[0] != g.FactorTable[3] || g.FactorTable[0] != g.FactorTable[1] {
		t.Errorf("clauses with equal signs should share a table: %v", g.FactorTable)
	}
	// (x1 ∨ ¬x2): zero at x1=0, x2=1, index 0b01.
	if got := g.Table(0).Values; !reflect.DeepEqual(got, []float64{1, 0, 1, 1}) {
		t.Errorf("table of (1 -2) = %v", got)
	}
	if got := g.Table(2).Values; !reflect.DeepEqual(got, []float64{1, 1, 0, 1}) {
		t.Errorf("table of (-1 2) = %v", got)
	}
}

// partition sums the product of factor values over all assignments.
func partition(t *testing.T, c *CNF) int {
	g, err := ToGraph(c)
	if err != nil {
		t.Fatal(err)
	}
	z := 0
	for x := 0; x < 1<<c.NumVars; x++ {
		p := 1.0
		for f := range g.NumFactors() {
			idx := 0
			for _, v := range g.Scope(f) {
				idx = idx<<1 | x>>v&1
			}
			p *= g.Table(f).Values[idx]
		}
		z += int(p)
	}
	return z
}

func models(c *CNF) int {
	n := 0
	for x := 0; x < 1<<c.NumVars; x++ {
		ok := true
		for _, cl := range c.Clauses {
			sat := false
			for _, l := range cl {
				if (x>>(abs32(l)-1)&1 == 1) == (l > 0) {
					sat = true
					break
				}
			}
			if !sat {
				ok = false
				break
			}
		}
		if ok {
			n++
		}
	}
	return n
}

func TestToGraphPartitionIsModelCount(t *testing.T) {
	for _, c := range []*CNF{
		{NumVars: 3, Clauses: [][]int32{{1, 2, 3}, {-1, -2}, {2, -3, 3}}},
		{NumVars: 5, Clauses: [][]int32{{1, -5, 3}, {-1, -2}, {5}, {4, 2, -3, 1}, {-3, -3}}},
		{NumVars: 2},
	} {
		if got, want := partition(t, c), models(c); got != want {
			t.Errorf("Z = %d, models = %d for %+v", got, want, c)
		}
	}
}

func TestToGraphErrors(t *testing.T) {
	_, err := ToGraph(&CNF{NumVars: 2, Clauses: [][]int32{{1}, {}}})
	if !errors.Is(err, ErrUnsatisfiable) {
		t.Errorf("empty clause: got %v, want ErrUnsatisfiable", err)
	}
	long := make([]int32, MaxClauseArity+1)
	for i := range long {
		long[i] = int32(i + 1)
	}
	if _, err := ToGraph(&CNF{NumVars: len(long), Clauses: [][]int32{long}}); err == nil {
		t.Error("overlong clause: want an error")
	}
	if _, err := ToGraph(&CNF{NumVars: 1, Clauses: [][]int32{{2}}}); err == nil {
		t.Error("literal out of range: want an error")
	}
}

func TestClauseSignsRejects(t *testing.T) {
	c := &CNF{NumVars: 2, Clauses: [][]int32{{1, 2}}}
	g, err := ToGraph(c)
	if err != nil {
		t.Fatal(err)
	}
	tab := &g.Tables[g.FactorTable[0]]
	orig := append([]float64(nil), tab.Values...)
	for _, vals := range [][]float64{
		{1, 1, 1, 1},
		{0, 0, 1, 1},
		{0, 2, 1, 1},
		{0.5, 1, 1, 1},
	} {
		copy(tab.Values, vals)
		if neg, ok := fg.ClauseSigns(tab); ok {
			t.Errorf("ClauseSigns accepted %v as a clause: %v", vals, neg)
		}
	}
	copy(tab.Values, orig)
	if _, ok := fg.ClauseSigns(tab); !ok {
		t.Error("ClauseSigns rejected a clause table")
	}
}

// FromGraph inverts ToGraph on the clauses ToGraph keeps: a round trip gives
// back each clause with its variables in order (duplicates merged,
// tautologies dropped), and a table with a weight or a variable with three
// states is refused.
func TestFromGraph(t *testing.T) {
	c := &CNF{NumVars: 4, Clauses: [][]int32{{1, -2}, {2, 2, -3}, {3, -3, 1}, {-4}, {1, -2}}}
	g, err := ToGraph(c)
	if err != nil {
		t.Fatal(err)
	}
	back, err := FromGraph(g)
	if err != nil {
		t.Fatal(err)
	}
	want := &CNF{NumVars: 4, Clauses: [][]int32{{1, -2}, {2, -3}, {-4}, {1, -2}}}
	if !reflect.DeepEqual(back, want) {
		t.Errorf("FromGraph(ToGraph(c)) = %+v, want %+v", back, want)
	}
	// A table with two zeros is two clauses over the same variables.
	b := fg.NewBuilder()
	b.AddVars(2, 2)
	if _, err := b.AddFactor([]int32{1, 0}, []float64{0, 1, 1, 0}); err != nil {
		t.Fatal(err)
	}
	back, err = FromGraph(b.Build())
	if err != nil {
		t.Fatal(err)
	}
	want = &CNF{NumVars: 2, Clauses: [][]int32{{2, 1}, {-2, -1}}}
	if !reflect.DeepEqual(back, want) {
		t.Errorf("FromGraph(xor) = %+v, want %+v", back, want)
	}
	b = fg.NewBuilder()
	b.AddVars(1, 2)
	if _, err := b.AddFactor([]int32{0}, []float64{0.5, 1}); err != nil {
		t.Fatal(err)
	}
	if _, err := FromGraph(b.Build()); err == nil || err.Error() != "factor 0 has the entry 0.5; model counting needs tables of 0 and 1" {
		t.Errorf("weighted table: got %v", err)
	}
	b = fg.NewBuilder()
	b.AddVars(1, 3)
	if _, err := FromGraph(b.Build()); err == nil || err.Error() != "variable 0 has 3 states; model counting needs binary variables" {
		t.Errorf("ternary variable: got %v", err)
	}
}
