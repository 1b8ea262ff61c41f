package dimacs

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
)

// CNF is a propositional formula in conjunctive normal form.
type CNF struct {
	// NumVars is the number of variables, numbered 1..NumVars. Variables
	// that occur in no clause are still variables of the formula.
	NumVars int
	// Clauses are disjunctions of literals: +v for variable v, -v for its
	// negation. An empty clause is false.
	Clauses [][]int32
}

// Limits on header sizes that Read accepts, so that a corrupt or hostile
// header cannot make a reader or a consumer allocate without bound.
const (
	// MaxVars is the largest number of variables Read accepts.
	MaxVars = 1 << 28
	// MaxClauses is the largest number of clauses Read accepts.
	MaxClauses = 1 << 30
)

// Validate reports the first literal that is zero or names a variable
// outside 1..NumVars, and a negative or too large NumVars.
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

// Write writes c in DIMACS CNF: the header and one clause per line. Reading
// the output back gives a formula equal to c.
func Write(w io.Writer, c *CNF) error {
	bw := bufio.NewWriter(w)
	buf := make([]byte, 0, 256)
	buf = append(buf, "p cnf "...)
	buf = strconv.AppendInt(buf, int64(c.NumVars), 10)
	buf = append(buf, ' ')
	buf = strconv.AppendInt(buf, int64(len(c.Clauses)), 10)
	buf = append(buf, '\n')
	for _, cl := range c.Clauses {
		for _, l := range cl {
			buf = strconv.AppendInt(buf, int64(l), 10)
			buf = append(buf, ' ')
		}
		buf = append(buf, '0', '\n')
		if len(buf) > 4096 {
			if _, err := bw.Write(buf); err != nil {
				return err
			}
			buf = buf[:0]
		}
	}
	if _, err := bw.Write(buf); err != nil {
		return err
	}
	return bw.Flush()
}
