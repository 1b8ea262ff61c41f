package maplp

import (
	"fmt"
	"math"
)

// Sense is the relation of an LP row to its right-hand side.
type Sense int8

const (
	Eq Sense = iota // Σ a_j x_j = b
	Le              // Σ a_j x_j ≤ b
)

// LP is a linear program in the form every Solver takes:
//
//	maximise Obj·x  subject to  rows (Eq or Le),  0 ≤ x ≤ Upper
//
// with rows stored as CSR (RowStart, RowCol, RowVal). Upper may be +Inf;
// an Upper of 0 fixes the variable at 0 (forbidden entries, evidence,
// branching).
type LP struct {
	Obj      []float64
	Upper    []float64
	RowStart []int
	RowCol   []int32
	RowVal   []float64
	RHS      []float64
	Sense    []Sense
}

// NumCols is the number of LP variables; NumRows the number of constraints.
func (lp *LP) NumCols() int { return len(lp.Obj) }

// NumRows is the number of constraints.
func (lp *LP) NumRows() int { return len(lp.RHS) }

// AddCol appends a variable with objective coefficient c and upper bound u.
func (lp *LP) AddCol(c, u float64) int32 {
	lp.Obj = append(lp.Obj, c)
	lp.Upper = append(lp.Upper, u)
	return int32(len(lp.Obj) - 1)
}

// AddRow appends the constraint Σ vals[k]·x[cols[k]] (sense) rhs.
func (lp *LP) AddRow(cols []int32, vals []float64, s Sense, rhs float64) {
	if len(lp.RowStart) == 0 {
		lp.RowStart = append(lp.RowStart, 0)
	}
	lp.RowCol = append(lp.RowCol, cols...)
	lp.RowVal = append(lp.RowVal, vals...)
	lp.RowStart = append(lp.RowStart, len(lp.RowCol))
	lp.RHS = append(lp.RHS, rhs)
	lp.Sense = append(lp.Sense, s)
}

// Row returns the columns and coefficients of row i.
func (lp *LP) Row(i int) ([]int32, []float64) {
	a, b := lp.RowStart[i], lp.RowStart[i+1]
	return lp.RowCol[a:b], lp.RowVal[a:b]
}

// Value is Obj·x.
func (lp *LP) Value(x []float64) float64 {
	s := 0.0
	for j, c := range lp.Obj {
		if c != 0 && x[j] != 0 {
			s += c * x[j]
		}
	}
	return s
}

// Violation is the largest violation of a bound or a row at x.
func (lp *LP) Violation(x []float64) float64 {
	worst := 0.0
	for j, v := range x {
		worst = math.Max(worst, math.Max(-v, v-lp.Upper[j]))
	}
	for i := range lp.RHS {
		cols, vals := lp.Row(i)
		s := 0.0
		for k, c := range cols {
			s += vals[k] * x[c]
		}
		d := s - lp.RHS[i]
		if lp.Sense[i] == Eq {
			d = math.Abs(d)
		}
		worst = math.Max(worst, d)
	}
	return worst
}

// truncate drops the rows from row n on.
func (lp *LP) truncate(n int) {
	if n >= lp.NumRows() {
		return
	}
	lp.RowCol, lp.RowVal = lp.RowCol[:lp.RowStart[n]], lp.RowVal[:lp.RowStart[n]]
	lp.RowStart, lp.RHS, lp.Sense = lp.RowStart[:n+1], lp.RHS[:n], lp.Sense[:n]
}

// Status is how a Solver ended.
type Status int8

const (
	// Optimal: the LP was solved to optimality.
	Optimal    Status = iota
	Infeasible        // no x satisfies the constraints
	Stopped           // iteration or time limit, or cancelled: X is the last iterate
)

// String names the status.
func (s Status) String() string {
	switch s {
	case Optimal:
		return "optimal"
	case Infeasible:
		return "infeasible"
	}
	return "stopped"
}

// Solution is a Solver's answer: X and its objective value.
type Solution struct {
	X          []float64
	Value      float64
	Status     Status
	Iterations int
}

// ErrInfeasible says that the LP (the hard constraints and evidence of the
// model, or a branch of branch and bound) admits no solution.
var ErrInfeasible = fmt.Errorf("maplp: the LP is infeasible: the hard constraints (zero entries) and evidence admit no world")
