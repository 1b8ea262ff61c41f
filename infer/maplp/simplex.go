package maplp

import (
	"context"
	"fmt"
	"math"
)

// Solver solves an LP. Implementations: Simplex (exact, dense, small LPs)
// and PDLP (first order, sparse, large LPs).
type Solver interface {
	Name() string
	Solve(ctx context.Context, p *LP) (*Solution, error)
}

// Simplex is an exact two-phase dense tableau simplex for small LPs, with
// Dantzig's entering rule and Bland's rule while pivots are degenerate
// (MAP LPs are highly degenerate; Bland's rule cannot cycle). Its memory is
// rows × columns, so it refuses LPs with more than MaxCells tableau
// entries (default 4e7).
type Simplex struct{ MaxCells int }

// Name names the Simplex solver as the solver property takes it.
func (Simplex) Name() string { return "simplex" }

// Solve converts p to standard form, min c·x s.t. Ax = b ≥ 0, x ≥ 0:
// columns fixed at 0 are dropped, finite upper bounds and ≤ rows get slack
// columns, and every row an artificial column. Phase 1 minimises the
// artificials (a positive minimum: infeasible), phase 2 the objective with
// the artificials barred from entering.
func (s Simplex) Solve(ctx context.Context, p *LP) (*Solution, error) {
	maxCells := s.MaxCells
	if maxCells == 0 {
		maxCells = 4e7
	}
	col := make([]int, p.NumCols()) // p column → standard column, -1 fixed
	n := 0
	for j, u := range p.Upper {
		col[j] = -1
		if u > 0 {
			col[j] = n
			n++
		}
	}
	nslack := 0
	for i := range p.RHS {
		if p.Sense[i] == Le {
			nslack++
		}
	}
	nub := 0
	for _, u := range p.Upper {
		if u > 0 && !math.IsInf(u, 1) {
			nub++
		}
	}
	m := p.NumRows() + nub
	nstruct := n + nslack + nub
	ncol := nstruct + m // artificials last
	w := ncol + 1       // tableau row width: columns, then the RHS
	if (m+1)*w > maxCells {
		return nil, fmt.Errorf("maplp: simplex: a %d×%d tableau exceeds its limit of %g entries (use the pdlp solver)", m, ncol, float64(maxCells))
	}
	T := make([]float64, (m+1)*w) // rows 0..m-1 constraints, row m the cost row
	basis := make([]int, m)
	slack, ub := n, n+nslack
	r := 0
	for i := range p.RHS {
		row := T[r*w : (r+1)*w]
		cols, vals := p.Row(i)
		for k, c := range cols {
			if col[c] >= 0 {
				row[col[c]] += vals[k]
			}
		}
		if p.Sense[i] == Le {
			row[slack] = 1
			slack++
		}
		row[ncol] = p.RHS[i]
		r++
	}
	for j, u := range p.Upper {
		if u > 0 && !math.IsInf(u, 1) {
			row := T[r*w : (r+1)*w]
			row[col[j]], row[ub], row[ncol] = 1, 1, u
			ub++
			r++
		}
	}
	for i := 0; i < m; i++ {
		row := T[i*w : (i+1)*w]
		if row[ncol] < 0 {
			for k := range row {
				row[k] = -row[k]
			}
		}
		row[nstruct+i] = 1
		basis[i] = nstruct + i
	}
	// Phase 1 cost row: minimise Σ artificials, reduced costs = −Σ rows.
	cost := T[m*w:]
	for i := 0; i < m; i++ {
		row := T[i*w : (i+1)*w]
		for k := 0; k < nstruct; k++ {
			cost[k] -= row[k]
		}
		cost[ncol] -= row[ncol]
	}
	const eps = 1e-9
	iters := 0
	if err := runSimplex(ctx, T, basis, m, w, ncol, ncol, &iters); err != nil {
		return nil, err
	}
	if -cost[ncol] > 1e-7*(1+float64(m)) {
		return &Solution{Status: Infeasible, Iterations: iters}, nil
	}
	// Drive artificials out of the basis where a structural column can
	// replace them; the rest sit on redundant rows at 0.
	for i := 0; i < m; i++ {
		if basis[i] < nstruct {
			continue
		}
		row := T[i*w : (i+1)*w]
		for k := 0; k < nstruct; k++ {
			if math.Abs(row[k]) > 1e-7 {
				pivot(T, basis, m, w, i, k)
				break
			}
		}
	}
	// Phase 2 cost row: c − c_B B⁻¹A.
	for k := range cost {
		cost[k] = 0
	}
	for j, c := range col {
		if c >= 0 {
			cost[c] = -p.Obj[j]
		}
	}
	for i := 0; i < m; i++ {
		if b := basis[i]; cost[b] != 0 {
			f := cost[b]
			row := T[i*w : (i+1)*w]
			for k := range cost {
				cost[k] -= f * row[k]
			}
		}
	}
	if err := runSimplex(ctx, T, basis, m, w, ncol, nstruct, &iters); err != nil {
		return nil, err
	}
	x := make([]float64, ncol)
	for i, b := range basis {
		x[b] = T[i*w+ncol]
	}
	out := make([]float64, p.NumCols())
	for j, c := range col {
		if c >= 0 {
			out[j] = math.Max(0, x[c])
		}
	}
	_ = eps
	return &Solution{X: out, Value: p.Value(out), Status: Optimal, Iterations: iters}, nil
}

// runSimplex pivots until no column below enter has a negative reduced
// cost. Unboundedness cannot happen in MAP LPs (the marginals are bounded)
// and is reported as an error.
func runSimplex(ctx context.Context, T []float64, basis []int, m, w, ncol, enter int, iters *int) error {
	cost := T[m*w:]
	degenerate := 0
	for {
		*iters++
		if *iters%256 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		bland := degenerate > 20
		e := -1
		best := -1e-9
		for k := 0; k < enter; k++ {
			if cost[k] < best {
				e, best = k, cost[k]
				if bland {
					break
				}
			}
		}
		if e < 0 {
			return nil
		}
		l := -1
		ratio := math.Inf(1)
		for i := 0; i < m; i++ {
			a := T[i*w+e]
			if a > 1e-9 {
				q := T[i*w+ncol] / a
				if q < ratio-1e-12 || (q < ratio+1e-12 && l >= 0 && basis[i] < basis[l]) {
					l, ratio = i, q
				}
			}
		}
		if l < 0 {
			return fmt.Errorf("maplp: simplex: the LP is unbounded")
		}
		if ratio < 1e-12 {
			degenerate++
		} else {
			degenerate = 0
		}
		pivot(T, basis, m, w, l, e)
	}
}

func pivot(T []float64, basis []int, m, w, l, e int) {
	prow := T[l*w : (l+1)*w]
	inv := 1 / prow[e]
	for k := range prow {
		prow[k] *= inv
	}
	prow[e] = 1
	for i := 0; i <= m; i++ {
		if i == l {
			continue
		}
		row := T[i*w : (i+1)*w]
		f := row[e]
		if f == 0 {
			continue
		}
		for k, v := range prow {
			if v != 0 {
				row[k] -= f * v
			}
		}
		row[e] = 0
	}
	basis[l] = e
}
