package uai

import (
	"fmt"
	"slices"

	"github.com/lifted-dev/lifted/fg"
)

// sameGraph reports how a and b differ, or nil: same cardinalities, scopes
// and table entries factor by factor.
func sameGraph(a, b *fg.Graph) error {
	if !slices.Equal(a.Card, b.Card) {
		return fmt.Errorf("cardinalities differ: %v vs %v", a.Card, b.Card)
	}
	if a.NumFactors() != b.NumFactors() {
		return fmt.Errorf("%d vs %d factors", a.NumFactors(), b.NumFactors())
	}
	for f := range a.NumFactors() {
		if !slices.Equal(a.Scope(f), b.Scope(f)) {
			return fmt.Errorf("factor %d: scope %v vs %v", f, a.Scope(f), b.Scope(f))
		}
		ta, tb := a.Table(f), b.Table(f)
		if !slices.Equal(ta.Dims, tb.Dims) || !slices.Equal(ta.Values, tb.Values) {
			return fmt.Errorf("factor %d: table %v %v vs %v %v", f, ta.Dims, ta.Values, tb.Dims, tb.Values)
		}
	}
	if len(a.Tables) != len(b.Tables) {
		return fmt.Errorf("%d vs %d distinct tables", len(a.Tables), len(b.Tables))
	}
	return nil
}
