package cnf

import (
	"reflect"
	"testing"

	"github.com/lifted-dev/lifted/fg"
)

// CheckSigns verifies that each factor of g is recognised as the clause it
// came from: same variables in order and same signs.
func CheckSigns(t testing.TB, c *CNF, g *fg.Graph) {
	t.Helper()
	f := 0
	for i, cl := range c.Clauses {
		scope, neg, taut := clauseScope(cl, nil, nil)
		if taut {
			continue
		}
		got, ok := fg.ClauseSigns(g.Table(f))
		if !ok || !reflect.DeepEqual(got, neg) || !reflect.DeepEqual(g.Scope(f), scope) {
			t.Fatalf("clause %d %v: factor %d has scope %v signs %v (ok=%v)", i+1, cl, f, g.Scope(f), got, ok)
		}
		f++
	}
	if f != g.NumFactors() {
		t.Fatalf("%d clauses kept, %d factors", f, g.NumFactors())
	}
}
