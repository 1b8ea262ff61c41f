package maplp

import (
	"context"
	"errors"
)

// PDLP is restarted primal–dual hybrid gradient (Applegate et al. 2021).
type PDLP struct {
	Tol     float64
	MaxIter int
}

func (PDLP) Name() string { return "pdlp" }

func (PDLP) Solve(ctx context.Context, p *LP) (*Solution, error) {
	return nil, errors.New("maplp: pdlp: not built yet")
}
