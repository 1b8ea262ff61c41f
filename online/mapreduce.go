package online

import (
	"context"
	"fmt"
)

// The map/reduce steps of lifted training (Theorem 4 of Ahmadi et al. 2013):
// the gradient of a mini-batch of pieces is a sum of per-piece terms, since
// pieces share no atoms. PieceGradient is the map (the raw terms of one piece
// or a shard of pieces), SumGradients the reduce, FinishGradient turns the
// sum into the normalised gradient, and TrainOptions.Gradient lets another
// engine (the Apache Beam pipeline of module beam/) compute every mini-batch
// while Train keeps the shuffling, SMD and SGD.

// PieceGradient is the map step: the raw gradient terms (counts,
// expectations, loss; Grad left zero) of the given pieces, computed on their
// own batch graph. One piece per call gives the per-piece terms of Theorem 4.
func (md *Model) PieceGradient(ctx context.Context, w []float64, pieces *Pieces, batch []int32, opt GradOptions) (*BatchResult, error) {
	if len(w) != md.NumFormulas() {
		return nil, fmt.Errorf("online: %d weights for %d formulas", len(w), md.NumFormulas())
	}
	for _, p := range batch {
		if p < 0 || int(p) >= pieces.Len() {
			return nil, fmt.Errorf("online: piece %d of %d", p, pieces.Len())
		}
	}
	return md.rawGradient(ctx, w, pieces, batch, opt)
}

// SumGradients is the reduce step: the sum of raw gradient terms, in order
// (counts, expectations, loss and sizes add; Hidden is any, Converged all).
// It returns a new result; nil parts are skipped.
func SumGradients(parts []*BatchResult) *BatchResult {
	var out *BatchResult
	for _, p := range parts {
		if p == nil {
			continue
		}
		if out == nil {
			k := len(p.Count)
			out = &BatchResult{Grad: make([]float64, k), Count: make([]float64, k),
				Expected: make([]float64, k), Data: make([]float64, k), Converged: true}
		}
		AddGradient(out, p)
	}
	return out
}

// AddGradient adds the raw terms of p into acc (one step of SumGradients).
func AddGradient(acc, p *BatchResult) {
	for f := range acc.Count {
		acc.Count[f] += p.Count[f]
		acc.Expected[f] += p.Expected[f]
		acc.Data[f] += p.Data[f]
	}
	acc.Loss += p.Loss
	acc.Hidden = acc.Hidden || p.Hidden
	acc.Converged = acc.Converged && p.Converged
	acc.GroundVars += p.GroundVars
	acc.GroundFactors += p.GroundFactors
	acc.LiftedNodes += p.LiftedNodes
	acc.LiftedFactors += p.LiftedFactors
}

// FinishGradient sets r.Grad to Expected − Data, divided per formula by its
// count unless noNormalize (Eq. 14).
func FinishGradient(r *BatchResult, noNormalize bool) {
	for f := range r.Grad {
		r.Grad[f] = r.Expected[f] - r.Data[f]
		if !noNormalize && r.Count[f] > 0 {
			r.Grad[f] /= r.Count[f]
		}
	}
}
