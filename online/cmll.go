package online

import (
	"context"
	"math"
	"math/rand/v2"

	"github.com/lifted-dev/lifted/fg"
)

// wholeGraph is the ground network of the whole mega-example: one variable
// per non-evidence atom, one factor per ground clause (a 0/1 table for a
// hard one).
type wholeGraph struct {
	g       *fg.Graph
	atomVar []int32 // ground atom → variable, -1 for evidence atoms
}

func (md *Model) buildWhole(w []float64) (*wholeGraph, error) {
	b := fg.NewBuilder()
	wg := &wholeGraph{atomVar: make([]int32, md.NumAtoms())}
	for a, s := range md.Status {
		if s == Evidence {
			wg.atomVar[a] = -1
		} else {
			wg.atomVar[a] = b.AddVar(2)
		}
	}
	var scope []int32
	var vals []float64
	for c := 0; c < md.NumClauses(); c++ {
		scope = scope[:0]
		for _, a := range md.ClauseAtoms(c) {
			scope = append(scope, wg.atomVar[a])
		}
		vals = vals[:0]
		if md.clauseHard(c) {
			for _, x := range md.clauseFeat(c) {
				vals = append(vals, float64(x))
			}
		} else {
			wf := w[md.clForm[c]]
			top := math.Max(wf, 0)
			for _, x := range md.clauseFeat(c) {
				vals = append(vals, softEntry(wf*float64(x)-top))
			}
		}
		if _, err := b.AddFactor(scope, vals); err != nil {
			return nil, err
		}
	}
	wg.g = b.Build()
	return wg, nil
}

// CMLL is the conditional marginal log-likelihood of the model's data under
// weights w, as the paper defines it (Lee et al. 2007): the Observed atoms
// are split at random into four groups; for each group, that group is
// observed and the other three hidden, and Σ_{X hidden} log P(X = x | observed)
// is computed from BP marginals (lifted unless opt.Ground) on the whole
// ground network; the result is the average over the four groups. Hidden
// atoms of the data are neither observed nor scored. It also returns the
// number of atoms scored per group on average, so callers can report CMLL
// per atom.
func CMLL(ctx context.Context, md *Model, w []float64, rng *rand.Rand, opt GradOptions) (cmll, perGroup float64, err error) {
	wg, err := md.buildWhole(w)
	if err != nil {
		return 0, 0, err
	}
	var obs []int32
	for a, s := range md.Status {
		if s == Observed {
			obs = append(obs, int32(a))
		}
	}
	group := make([]int, len(obs))
	for i, p := range rng.Perm(len(obs)) {
		group[p] = i % 4
	}
	ev := make(fg.Evidence, wg.g.NumVars())
	total, scored := 0.0, 0.0
	for g := range 4 {
		for i := range ev {
			ev[i] = -1
		}
		for i, a := range obs {
			if group[i] == g {
				ev[wg.atomVar[a]] = int32(md.Value[a])
			}
		}
		r := runBP(ctx, wg.g, ev, opt)
		if r.err != nil {
			return 0, 0, r.err
		}
		for i, a := range obs {
			if group[i] == g {
				continue
			}
			p := r.res.Marginal(int(wg.atomVar[a]))[md.Value[a]]
			total += math.Log(p)
			scored++
		}
	}
	return total / 4, scored / 4, nil
}
