package cnf

import (
	"errors"
	"fmt"

	"github.com/lifted-dev/lifted/fg"
)

// MaxClauseArity is the longest clause (after merging duplicate literals)
// that ToGraph turns into a table; such a table has 2^24 entries (128 MiB),
// which the Langford instance lang12 needs.
const MaxClauseArity = 24

// ErrUnsatisfiable reports a formula with an empty clause.
var ErrUnsatisfiable = errors.New("formula is unsatisfiable")

// ToGraph returns the factor graph of c: variable v-1 is CNF variable v
// (binary; state 0 is false, 1 is true), and each clause becomes a factor
// whose scope lists the clause's variables in literal order and whose table
// is 1 everywhere except 0 at the one assignment that falsifies the clause.
// The graph's partition function is therefore the number of models of c.
//
// Repeated literals are merged (the first occurrence keeps its place), a
// tautological clause (containing x and -x) is dropped, and variables that
// occur in no clause become variables without factors. An empty clause gives
// an error wrapping ErrUnsatisfiable, and a clause longer than
// MaxClauseArity an error. fg.ClauseSigns recognises the clause tables
// again. Error messages start with "dimacs:", as they did when the model
// lived in package format/dimacs; the command line prints them.
func ToGraph(c *CNF) (*fg.Graph, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	b := fg.NewBuilder()
	b.AddVars(c.NumVars, 2)
	var (
		scope  []int32
		neg    []bool
		values []float64
		dims   []int32
		key    []byte
	)
	tables := map[string]int32{} // sign pattern → table id
	for i, cl := range c.Clauses {
		var taut bool
		scope, neg, taut = clauseScope(cl, scope[:0], neg[:0])
		if taut {
			continue
		}
		if len(scope) == 0 {
			return nil, fmt.Errorf("dimacs: clause %d is empty: %w", i+1, ErrUnsatisfiable)
		}
		if len(scope) > MaxClauseArity {
			return nil, fmt.Errorf("dimacs: clause %d has %d distinct variables; at most %d fit in a table", i+1, len(scope), MaxClauseArity)
		}
		key = signKey(neg, key[:0])
		t, ok := tables[string(key)]
		if !ok {
			values = clauseTable(neg, values)
			dims = dims[:0]
			for range scope {
				dims = append(dims, 2)
			}
			var err error
			if t, err = b.Table(dims, values); err != nil {
				return nil, fmt.Errorf("dimacs: clause %d: %w", i+1, err)
			}
			tables[string(key)] = t
		}
		if _, err := b.AddFactorTable(scope, t); err != nil {
			return nil, fmt.Errorf("dimacs: clause %d: %w", i+1, err)
		}
	}
	return b.Build(), nil
}

// signKey encodes a sign pattern as bytes, one per literal.
func signKey(neg []bool, key []byte) []byte {
	for _, n := range neg {
		if n {
			key = append(key, '-')
		} else {
			key = append(key, '+')
		}
	}
	return key
}

// clauseScope appends the clause's distinct variables (0-based, in order of
// first occurrence) to scope and their signs to neg; taut reports a clause
// with a variable of both signs.
func clauseScope(cl []int32, scope []int32, neg []bool) (_ []int32, _ []bool, taut bool) {
	for _, l := range cl {
		v, n := abs32(l)-1, l < 0
		dup := false
		for p, w := range scope {
			if w == v {
				if neg[p] != n {
					return scope, neg, true
				}
				dup = true
				break
			}
		}
		if !dup {
			scope = append(scope, v)
			neg = append(neg, n)
		}
	}
	return scope, neg, false
}

// clauseTable fills values (reused if large enough) with the table of a
// clause with the given signs: all ones except a zero at the falsifying
// assignment, where a positive literal's variable is 0 and a negative one's
// is 1. The last position changes fastest.
func clauseTable(neg []bool, values []float64) []float64 {
	n := 1 << len(neg)
	if cap(values) < n {
		values = make([]float64, n)
	}
	values = values[:n]
	for i := range values {
		values[i] = 1
	}
	values[falsifying(neg)] = 0
	return values
}

// falsifying returns the table index of the assignment that falsifies a
// clause with the given signs.
func falsifying(neg []bool) int {
	idx := 0
	for _, n := range neg {
		idx <<= 1
		if n {
			idx |= 1
		}
	}
	return idx
}

// FromGraph returns the formula whose models are the assignments of g with
// non-zero weight, for a graph of binary variables whose tables hold only
// 0 and 1 (a constraint network, such as ToGraph builds or a UAI file of
// clauses): every zero entry of a table becomes the clause that excludes
// that assignment of the table's variables. Variable v of g is variable
// v+1 of the formula. Other tables — weights, or variables with more than
// two states — are an error naming the first such factor: their weighted
// count is not a model count.
func FromGraph(g *fg.Graph) (*CNF, error) {
	for v, c := range g.Card {
		if c != 2 {
			return nil, fmt.Errorf("variable %d has %d states; model counting needs binary variables", v, c)
		}
	}
	c := &CNF{NumVars: g.NumVars()}
	for f := range g.NumFactors() {
		t, scope := g.Table(f), g.Scope(f)
		for i, x := range t.Values {
			switch {
			case x == 1:
				continue
			case x != 0:
				return nil, fmt.Errorf("factor %d has the entry %v; model counting needs tables of 0 and 1", f, x)
			}
			k := len(scope)
			cl := make([]int32, k)
			for p, v := range scope {
				if i>>(k-1-p)&1 == 1 { // the excluded assignment sets v: the clause says ¬v
					cl[p] = -(v + 1)
				} else {
					cl[p] = v + 1
				}
			}
			if len(c.Clauses) == MaxClauses {
				return nil, fmt.Errorf("more than %d clauses", MaxClauses)
			}
			c.Clauses = append(c.Clauses, cl)
		}
	}
	return c, nil
}
