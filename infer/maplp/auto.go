package maplp

import "context"

// Auto solves small LPs (at most 1000 columns) exactly by Simplex and
// larger ones by PDLP (on the semi-transitive model the dense simplex
// takes over a second from about 500 columns).
type Auto struct{}

// Name names the Auto solver as the solver property takes it.
func (Auto) Name() string { return "auto" }

// Solve solves the LP p with the Auto solver.
func (Auto) Solve(ctx context.Context, p *LP) (*Solution, error) {
	if p.NumCols() <= 1000 {
		return Simplex{}.Solve(ctx, p)
	}
	return PDLP{}.Solve(ctx, p)
}
