package cnf

import "fmt"

// CNF is a propositional formula in conjunctive normal form.
type CNF struct {
	// NumVars is the number of variables, numbered 1..NumVars. Variables
	// that occur in no clause are still variables of the formula.
	NumVars int
	// Clauses are disjunctions of literals: +v for variable v, -v for its
	// negation. An empty clause is false.
	Clauses [][]int32
}

// Limits on formula sizes, so that a corrupt or hostile input cannot make a
// reader or a consumer allocate without bound. The DIMACS reader refuses
// headers beyond them.
const (
	// MaxVars is the largest number of variables of a formula.
	MaxVars = 1 << 28
	// MaxClauses is the largest number of clauses of a formula.
	MaxClauses = 1 << 30
)

// Validate reports the first literal that is zero or names a variable
// outside 1..NumVars, and a negative or too large NumVars.
//
// Its messages start with "dimacs:", as they did when the model lived in
// package format/dimacs; the command line prints them.
func (c *CNF) Validate() error {
	if c.NumVars < 0 || c.NumVars > MaxVars {
		return fmt.Errorf("dimacs: number of variables %d out of range 0..%d", c.NumVars, MaxVars)
	}
	for i, cl := range c.Clauses {
		for _, l := range cl {
			if l == 0 || l == -l || int(abs32(l)) > c.NumVars {
				return fmt.Errorf("dimacs: clause %d: literal %d out of range ±1..±%d", i+1, l, c.NumVars)
			}
		}
	}
	return nil
}

func abs32(x int32) int32 {
	if x < 0 {
		return -x
	}
	return x
}
