package count

import (
	"fmt"

	"github.com/lifted-dev/lifted/cnf"
)

// Residual is a formula restricted by a partial assignment: what remains
// to be satisfied once some variables are fixed.
type Residual struct {
	// CNF is the restricted formula over the unassigned variables,
	// renumbered 1..len(Vars) in increasing order of their original
	// numbers. Satisfied clauses are gone and false literals removed; a
	// clause falsified by the assignment remains as an empty clause.
	CNF *cnf.CNF
	// Vars[i] is the original number of residual variable i+1.
	Vars []int32
	// Free counts the residual variables that occur in no residual clause;
	// each doubles the count.
	Free int
	// Unsat reports that the assignment falsifies a clause (CNF then
	// contains an empty clause and has no models).
	Unsat bool
}

// Condition restricts c by a partial assignment: assign[v-1] is +1 if
// variable v is true, -1 if false and 0 if unassigned (len(assign) must be
// c.NumVars). The number of models of c that agree with assign equals the
// number of models of the residual formula, so
//
//	r, err := Condition(c, assign)
//	n, err := Exact(ctx, r.CNF)
//
// counts the extensions of assign. Condition does not propagate units;
// Exact does.
func Condition(c *cnf.CNF, assign []int8) (*Residual, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	if len(assign) != c.NumVars {
		return nil, fmt.Errorf("count: assignment has %d entries for %d variables", len(assign), c.NumVars)
	}
	newNum := make([]int32, c.NumVars+1) // original → residual number, 0 if assigned
	r := &Residual{CNF: &cnf.CNF{}}
	for v, a := range assign {
		switch a {
		case 0:
			r.Vars = append(r.Vars, int32(v+1))
			newNum[v+1] = int32(len(r.Vars))
		case 1, -1:
		default:
			return nil, fmt.Errorf("count: assignment of variable %d is %d; want -1, 0 or 1", v+1, a)
		}
	}
	r.CNF.NumVars = len(r.Vars)
	used := make([]bool, len(r.Vars)+1)
	var lits []int32
	for _, cl := range c.Clauses {
		lits = lits[:0]
		sat := false
		for _, l := range cl {
			v := l
			if v < 0 {
				v = -v
			}
			if a := assign[v-1]; a != 0 {
				if (a > 0) == (l > 0) {
					sat = true
					break
				}
				continue
			}
			if l > 0 {
				lits = append(lits, newNum[v])
			} else {
				lits = append(lits, -newNum[v])
			}
		}
		if sat {
			continue
		}
		if len(lits) == 0 {
			r.Unsat = true
		}
		for _, l := range lits {
			used[max(l, -l)] = true
		}
		r.CNF.Clauses = append(r.CNF.Clauses, append([]int32(nil), lits...))
	}
	for v := 1; v <= len(r.Vars); v++ {
		if !used[v] {
			r.Free++
		}
	}
	return r, nil
}
