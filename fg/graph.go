package fg

import (
	"errors"
	"fmt"
	"math"
	"slices"
)

// Graph is an immutable discrete factor graph. Build one with a Builder.
type Graph struct {
	// Card[v] is the number of states of variable v (at least 1).
	Card []int32

	// FactorStart[f]..FactorStart[f+1] indexes the scope of factor f in
	// EdgeVar; an edge id is an index into EdgeVar. len = NumFactors+1.
	FactorStart []int64
	// EdgeVar[e] is the variable of edge e.
	EdgeVar []int32
	// FactorTable[f] is the table id of factor f.
	FactorTable []int32

	// VarStart[v]..VarStart[v+1] indexes VarEdges, the ids of the edges of
	// variable v in increasing factor order. len = NumVars+1.
	VarStart []int64
	VarEdges []int64

	// Tables[t] is a table's entries in scope order (last variable fastest).
	// Tables with equal entries and equal dimensions share one id.
	Tables []Table
}

// Table is a factor table: its dimensions and its entries.
type Table struct {
	Dims   []int32   // cardinality per scope position
	Values []float64 // len = product of Dims, last position fastest
}

// Strides returns, per position, how far apart in Values two entries are
// whose states differ by one at that position (1 for the last position).
func (t *Table) Strides() []int {
	stride := make([]int, len(t.Dims))
	s := 1
	for p := len(t.Dims) - 1; p >= 0; p-- {
		stride[p] = s
		s *= int(t.Dims[p])
	}
	return stride
}

// NumVars returns the number of variables.
func (g *Graph) NumVars() int { return len(g.Card) }

// NumFactors returns the number of factors.
func (g *Graph) NumFactors() int { return len(g.FactorTable) }

// NumEdges returns the number of factor–variable edges.
func (g *Graph) NumEdges() int { return len(g.EdgeVar) }

// Scope returns the variables of factor f in table order. The slice aliases
// the graph's storage and must not be modified.
func (g *Graph) Scope(f int) []int32 {
	return g.EdgeVar[g.FactorStart[f]:g.FactorStart[f+1]]
}

// Table returns the table of factor f.
func (g *Graph) Table(f int) *Table { return &g.Tables[g.FactorTable[f]] }

// Degree returns the number of factors variable v is in.
func (g *Graph) Degree(v int) int { return int(g.VarStart[v+1] - g.VarStart[v]) }

// EdgeFactors returns, per edge, its factor: EdgeFactor for every edge at
// once, in O(edges) (a loop over the edges of VarEdges that calls
// EdgeFactor pays a binary search each).
func (g *Graph) EdgeFactors() []int32 {
	out := make([]int32, g.FactorStart[len(g.FactorTable)])
	for f := range g.FactorTable {
		for e := g.FactorStart[f]; e < g.FactorStart[f+1]; e++ {
			out[e] = int32(f)
		}
	}
	return out
}

// EdgeFactor returns the factor of edge e (binary search in FactorStart).
func (g *Graph) EdgeFactor(e int64) int {
	lo, hi := 0, len(g.FactorTable)
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if g.FactorStart[mid] <= e {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}

// Evidence assigns observed values to variables: Evidence[v] is the observed
// state of v, or -1 where v is unobserved. A nil Evidence means none.
type Evidence []int32

// NoEvidence returns an all-unobserved evidence vector for n variables.
func NoEvidence(n int) Evidence {
	e := make(Evidence, n)
	for i := range e {
		e[i] = -1
	}
	return e
}

// ErrContradiction reports evidence that gives every world probability zero.
var ErrContradiction = errors.New("contradictory evidence")

// CheckEvidence verifies that ev fits g (length, ranges) and that no factor is
// zero on every assignment consistent with it; the latter is reported as an
// error wrapping ErrContradiction that names the factor.
func (g *Graph) CheckEvidence(ev Evidence) error {
	if ev == nil {
		return nil
	}
	if len(ev) != g.NumVars() {
		return fmt.Errorf("evidence has %d entries for %d variables", len(ev), g.NumVars())
	}
	for v, x := range ev {
		if x < -1 || x >= g.Card[v] {
			return fmt.Errorf("evidence value %d for variable %d out of range 0..%d", x, v, g.Card[v]-1)
		}
	}
	for f := 0; f < g.NumFactors(); f++ {
		if !g.factorSatisfiable(f, ev) {
			return fmt.Errorf("%w: factor %d is zero on every assignment consistent with the evidence", ErrContradiction, f)
		}
	}
	return nil
}

// factorSatisfiable reports whether factor f has a positive entry consistent
// with ev.
func (g *Graph) factorSatisfiable(f int, ev Evidence) bool {
	t := g.Table(f)
	scope := g.Scope(f)
	n := len(t.Values)
	// Tables are small: scan every entry with a mixed-radix counter.
	idx := make([]int32, len(scope))
	for k := 0; k < n; k++ {
		if t.Values[k] > 0 {
			ok := true
			for p, v := range scope {
				if ev[v] >= 0 && idx[p] != ev[v] {
					ok = false
					break
				}
			}
			if ok {
				return true
			}
		}
		// increment mixed-radix counter, last position fastest
		for p := len(idx) - 1; p >= 0; p-- {
			idx[p]++
			if idx[p] < t.Dims[p] {
				break
			}
			idx[p] = 0
		}
	}
	return false
}

// Validate checks the graph's internal consistency: ranges, table sizes and
// non-negative finite entries. Builders produce valid graphs; Validate is for
// graphs assembled by hand.
func (g *Graph) Validate() error {
	if len(g.FactorStart) != len(g.FactorTable)+1 || len(g.VarStart) != len(g.Card)+1 {
		return errors.New("fg: index arrays have inconsistent lengths")
	}
	for v, c := range g.Card {
		if c < 1 {
			return fmt.Errorf("fg: variable %d has cardinality %d", v, c)
		}
	}
	for f := range g.FactorTable {
		t := g.FactorTable[f]
		if t < 0 || int(t) >= len(g.Tables) {
			return fmt.Errorf("fg: factor %d has table id %d out of range", f, t)
		}
		tab := &g.Tables[t]
		scope := g.Scope(f)
		if len(scope) != len(tab.Dims) {
			return fmt.Errorf("fg: factor %d has %d variables but its table %d dimensions", f, len(scope), len(tab.Dims))
		}
		for p, v := range scope {
			if v < 0 || int(v) >= len(g.Card) {
				return fmt.Errorf("fg: factor %d refers to variable %d out of range", f, v)
			}
			if g.Card[v] != tab.Dims[p] {
				return fmt.Errorf("fg: factor %d position %d: variable %d has %d states, table has %d", f, p, v, g.Card[v], tab.Dims[p])
			}
		}
	}
	for t := range g.Tables {
		if err := g.Tables[t].check(); err != nil {
			return fmt.Errorf("fg: table %d: %w", t, err)
		}
	}
	return nil
}

func (t *Table) check() error {
	n := 1
	for _, d := range t.Dims {
		if d < 1 {
			return fmt.Errorf("dimension %d", d)
		}
		n *= int(d)
	}
	if n != len(t.Values) {
		return fmt.Errorf("%d entries for %d", len(t.Values), n)
	}
	for i, x := range t.Values {
		if !(x >= 0) || math.IsInf(x, 1) {
			return fmt.Errorf("entry %d is %v; entries must be finite and non-negative", i, x)
		}
	}
	return nil
}

// Size returns the number of entries a table with these dimensions has.
func Size(dims []int32) int {
	n := 1
	for _, d := range dims {
		n *= int(d)
	}
	return n
}

// Diff reports the first difference between a and b, or nil when they have
// the same cardinalities, the same scopes and the same table entries factor
// by factor, and the same number of distinct tables.
func Diff(a, b *Graph) error {
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
