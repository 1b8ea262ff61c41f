package maplp

import "context"

// Auto solves small LPs (at most 2000 columns) exactly by Simplex and
// larger ones by PDLP.
type Auto struct{}

func (Auto) Name() string { return "auto" }

func (Auto) Solve(ctx context.Context, p *LP) (*Solution, error) {
	if p.NumCols() <= 2000 {
		return Simplex{}.Solve(ctx, p)
	}
	return PDLP{}.Solve(ctx, p)
}
