//go:build coin

package maplp

// #cgo pkg-config: clp cbc
// #include <coin/Clp_C_Interface.h>
// #include <coin/Cbc_C_Interface.h>
import "C"

import (
	"context"
	"fmt"
	"math"
	"unsafe"
)

// Clp solves an LP with COIN-OR Clp (through cgo; build tag coin, Debian
// coinor-libclp-dev): the tests' independent oracle for the LOCAL LP.
type Clp struct{}

// Name names the Clp solver as the solver property takes it.
func (Clp) Name() string { return "clp" }

// csc is p in the column-major form COIN's loadProblem takes.
type csc struct {
	start             []C.CoinBigIndex
	index             []C.int
	value             []C.double
	collb, colub      []C.double
	obj, rowlb, rowub []C.double
}

func toCSC(p *LP) *csc {
	n, m := p.NumCols(), p.NumRows()
	a := &csc{start: make([]C.CoinBigIndex, n+1), collb: make([]C.double, n), colub: make([]C.double, n),
		obj: make([]C.double, n), rowlb: make([]C.double, m), rowub: make([]C.double, m)}
	for _, j := range p.RowCol {
		a.start[j+1]++
	}
	for j := 0; j < n; j++ {
		a.start[j+1] += a.start[j]
	}
	a.index = make([]C.int, len(p.RowCol))
	a.value = make([]C.double, len(p.RowCol))
	fill := make([]C.CoinBigIndex, n)
	copy(fill, a.start[:n])
	for i := 0; i < m; i++ {
		cols, vals := p.Row(i)
		for k, j := range cols {
			a.index[fill[j]], a.value[fill[j]] = C.int(i), C.double(vals[k])
			fill[j]++
		}
		a.rowub[i] = C.double(p.RHS[i])
		a.rowlb[i] = C.double(p.RHS[i])
		if p.Sense[i] == Le {
			a.rowlb[i] = -1e30
		}
	}
	for j := 0; j < n; j++ {
		a.obj[j] = C.double(p.Obj[j])
		a.colub[j] = C.double(math.Min(p.Upper[j], 1e30))
	}
	return a
}

func ptr[T any](s []T) *T {
	if len(s) == 0 {
		return nil
	}
	return &s[0]
}

// Solve solves the LP p with the Clp solver.
func (Clp) Solve(ctx context.Context, p *LP) (*Solution, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	a := toCSC(p)
	model := C.Clp_newModel()
	defer C.Clp_deleteModel(model)
	C.Clp_setLogLevel(model, 0)
	C.Clp_loadProblem(model, C.int(p.NumCols()), C.int(p.NumRows()), ptr(a.start), ptr(a.index), ptr(a.value),
		ptr(a.collb), ptr(a.colub), ptr(a.obj), ptr(a.rowlb), ptr(a.rowub))
	C.Clp_setOptimizationDirection(model, -1) // maximise
	C.Clp_initialSolve(model)
	switch st := C.Clp_status(model); st {
	case 0:
	case 1:
		return &Solution{Status: Infeasible}, nil
	default:
		return nil, fmt.Errorf("maplp: clp: status %d", int(st))
	}
	sol := unsafe.Slice(C.Clp_primalColumnSolution(model), p.NumCols())
	x := make([]float64, p.NumCols())
	for j := range x {
		x[j] = float64(sol[j])
	}
	return &Solution{X: x, Value: p.Value(x), Status: Optimal}, nil
}

// CbcILP solves p with the columns in integer integral, by COIN-OR Cbc
// (build tag coin, Debian coinor-libcbc-dev).
func CbcILP(ctx context.Context, p *LP, integer []int32) (*Solution, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	a := toCSC(p)
	model := C.Cbc_newModel()
	defer C.Cbc_deleteModel(model)
	C.Cbc_loadProblem(model, C.int(p.NumCols()), C.int(p.NumRows()), ptr(a.start), ptr(a.index), ptr(a.value),
		ptr(a.collb), ptr(a.colub), ptr(a.obj), ptr(a.rowlb), ptr(a.rowub))
	C.Cbc_setObjSense(model, -1)
	C.Cbc_setLogLevel(model, 0)
	for _, j := range integer {
		C.Cbc_setInteger(model, C.int(j))
	}
	C.Cbc_solve(model)
	if C.Cbc_isProvenInfeasible(model) != 0 {
		return &Solution{Status: Infeasible}, nil
	}
	if C.Cbc_isProvenOptimal(model) == 0 {
		return nil, fmt.Errorf("maplp: cbc: no proven optimum")
	}
	sol := unsafe.Slice(C.Cbc_getColSolution(model), p.NumCols())
	x := make([]float64, p.NumCols())
	for j := range x {
		x[j] = float64(sol[j])
	}
	return &Solution{X: x, Value: p.Value(x), Status: Optimal}, nil
}

func init() { cbcSolve = cbcWorld }

// cbcWorld is a MAP world of the ground model m by Cbc: m's LP (cuts
// included) with integral variable marginals.
func cbcWorld(ctx context.Context, m *model) ([]int32, error) {
	var integer []int32
	for v := range m.g.Card {
		for a := int32(0); a < m.g.Card[v]; a++ {
			integer = append(integer, m.nodeOff[v]+a)
		}
	}
	sol, err := CbcILP(ctx, m.lp, integer)
	if err != nil {
		return nil, err
	}
	if sol.Status == Infeasible {
		return nil, ErrInfeasible
	}
	return m.round(sol.X), nil
}
