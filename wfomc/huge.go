package wfomc

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/lifted-dev/lifted/mln"
)

// Huge weights. Every log that the evaluation forms is a double-double,
// exact to about 2^-104 of its magnitude, and the magnitudes are bounded by
// M = Σ_j |w_j|·G_j + (log of the number of worlds), G_j the number of
// groundings of formula j: a weight of 10^300 makes that absolute error
// 10^196, and the answer noise. Such weights are the hard limit in all but
// name, and are evaluated as such: when the largest weights (a set S, all
// integer multiples r_j of the smallest of them, β) exceed by a margin what
// the other weights and the number of worlds can ever add up to (B), the
// worlds that do not maximise N = Σ_{j∈S} sign_j·r_j·n_j weigh less than
// e^-64 of the rest, both at β and at any T ≥ B + margin. So the weights of
// S are replaced by sign_j·r_j·T, which changes neither the marginals nor
// the expected counts (to 2^-64), and log Z moves by exactly (β − T)·N*,
// N* = max N, the expected N at T rounded. T is a power-of-two multiple of
// the next weight below, so that the next level (if it is huge too) is an
// integer multiple again. What cannot be so reduced and is still too large
// is refused with a PrecisionError.

// maxRelError is the largest estimated relative error Evaluate answers with.
const maxRelError = 1e-9

// ddRelError is the relative error of a double-double log, with slack for
// the operations that form it.
const ddRelError = 0x1p-102

// hugeLevel is one substitution: the weights of idx, sr[k]·β, became
// sr[k]·t.
type hugeLevel struct {
	beta, t float64
	idx     []int
	sr      []float64
}

// magnitudes returns G_j for every formula (0 for hard ones) and the log of
// the number of worlds bound, 2·(ground atoms)·ln 2 (doubled for the
// auxiliary atoms of quantifiers).
func (mod *Model) magnitudes(n []int64) (g []float64, logWorlds float64) {
	g = make([]float64, mod.nf)
	for j, f := range mod.m.Formulas {
		if !f.Hard {
			g[j] = groundings(mod.m, f, n)
		}
	}
	atoms := 0.0
	for _, p := range mod.m.Preds {
		a := 1.0
		for _, ti := range p.TypeIdx {
			a *= float64(n[ti])
		}
		atoms += a
	}
	return g, 2 * atoms * math.Ln2
}

func magnitude(theta, g []float64, logWorlds float64) float64 {
	m := logWorlds
	for j, x := range g {
		m += math.Abs(theta[j]) * x
	}
	return m
}

// reduceHuge replaces huge weights of theta (in place) by the hard limit's
// equivalents and returns the levels and the estimated relative error of
// the evaluation at the reduced weights.
func (mod *Model) reduceHuge(theta []float64, n []int64) ([]hugeLevel, float64, error) {
	g, logWorlds := mod.magnitudes(n)
	var levels []hugeLevel
	for range mod.nf + 1 {
		M := magnitude(theta, g, logWorlds)
		if M*ddRelError <= 1e-14 {
			break
		}
		lv, ok := findHuge(theta, g, logWorlds)
		if !ok {
			break
		}
		for k, j := range lv.idx {
			theta[j] = lv.sr[k] * lv.t
		}
		levels = append(levels, lv)
	}
	rel := magnitude(theta, g, logWorlds) * ddRelError
	if rel > maxRelError {
		var big []string
		for j, x := range theta[:mod.nf] {
			if math.Abs(x)*g[j] > 1e6 {
				big = append(big, fmt.Sprintf("formula %d (weight %g)", j+1, x))
				if len(big) == 3 {
					break
				}
			}
		}
		return nil, rel, &PrecisionError{RelError: rel, Reason: fmt.Sprintf("weights times groundings up to %.3g, in double precision; the largest weights are not integer multiples of one another far above the rest: %v", M(theta, g, logWorlds), big)}
	}
	return levels, rel, nil
}

// M is magnitude under a shorter name for messages.
func M(theta, g []float64, logWorlds float64) float64 { return magnitude(theta, g, logWorlds) }

// findHuge finds the smallest set of largest weights that can be reduced.
func findHuge(theta, g []float64, logWorlds float64) (hugeLevel, bool) {
	var idx []int
	for j, x := range g {
		if x > 0 && theta[j] != 0 {
			idx = append(idx, j)
		}
	}
	slices.SortFunc(idx, func(a, b int) int {
		x, y := math.Abs(theta[a]), math.Abs(theta[b])
		switch {
		case x > y:
			return -1
		case x < y:
			return 1
		}
		return a - b
	})
	for k := 1; k <= len(idx); k++ {
		if k < len(idx) && math.Abs(theta[idx[k]]) == math.Abs(theta[idx[k-1]]) {
			continue // equal magnitudes go together
		}
		beta := math.Abs(theta[idx[k-1]])
		rest := logWorlds
		for _, j := range idx[k:] {
			rest += 2 * math.Abs(theta[j]) * g[j]
		}
		sr := make([]float64, k)
		grS := 1.0
		ok := true
		for i, j := range idx[:k] {
			r := math.Abs(theta[j]) / beta
			if r != math.Trunc(r) || r > 1<<40 || math.FMA(r, beta, -math.Abs(theta[j])) != 0 {
				ok = false
				break
			}
			sr[i] = math.Copysign(r, theta[j])
			grS += r * g[j]
		}
		if !ok {
			continue
		}
		need := rest + 64 + math.Log(grS)
		if beta < need {
			continue
		}
		t := need
		if k < len(idx) {
			next := math.Abs(theta[idx[k]])
			_, e := math.Frexp(need / next)
			t = math.Ldexp(next, e)
			for t < need {
				t *= 2
			}
		}
		if t >= beta/2 {
			continue // not worth it: β is not far above the rest
		}
		return hugeLevel{beta: beta, t: t, idx: slices.Clone(idx[:k]), sr: sr}, true
	}
	return hugeLevel{}, false
}

// shift is what the levels add to log Z given the expected counts at the
// reduced weights.
func (lv *hugeLevel) shift(grad []float64) (float64, error) {
	N := 0.0
	for k, j := range lv.idx {
		N += lv.sr[k] * grad[j]
	}
	r := math.Round(N)
	if math.Abs(N-r) > 1e-6*math.Max(1, math.Abs(r)) || math.Abs(r) > 1<<52 {
		return 0, &PrecisionError{RelError: math.Abs(N - r), Reason: fmt.Sprintf("the near-hard formulas' count %g is not an integer at the limit", N)}
	}
	return (lv.beta - lv.t) * r, nil
}

// hardenHuge answers weights whose Skolem sums cancel completely (a
// quantified formula with a weight far beyond the rest: e^-w next to 1) by
// the hard limit itself: the formulas H whose |w_j| exceeds what all other
// weights and the number of worlds can add up to, by e^64, become hard —
// φ_j where w_j > 0, ¬φ_j where w_j < 0. When that model has a world,
// those worlds are exactly the ones that dominate (each formula of H at
// its extreme count, which no other world reaches), so its marginals and
// expected counts are the answer to e^-64 and log Z is its log Z plus
// Σ_{w_j > 0} w_j·G_j. ok is false when no such H exists or the hardened
// model has no world (then the extremes conflict and the caller's
// PrecisionError stands). The hardened model's own huge weights are
// hardened in turn (each level makes at least one more formula hard).
func (mod *Model) hardenHuge(ctx context.Context, weights []float64, sizes map[string]int64, n []int64) (*Result, bool) {
	g, logWorlds := mod.magnitudes(n)
	var idx []int
	for j, x := range g {
		if x > 0 && weights[j] != 0 {
			idx = append(idx, j)
		}
	}
	slices.SortFunc(idx, func(a, b int) int { return cmp.Compare(math.Abs(weights[b]), math.Abs(weights[a])) })
	k := 0
	for k = 1; k <= len(idx); k++ {
		if k < len(idx) && math.Abs(weights[idx[k]]) == math.Abs(weights[idx[k-1]]) {
			continue
		}
		rest := logWorlds
		for _, j := range idx[k:] {
			rest += 2 * math.Abs(weights[j]) * g[j]
		}
		gs := 1.0
		for _, j := range idx[:k] {
			gs += g[j]
		}
		if math.Abs(weights[idx[k-1]]) >= rest+64+math.Log(gs) {
			break
		}
	}
	if k > len(idx) {
		return nil, false
	}
	m2 := *mod.m
	m2.Formulas = slices.Clone(mod.m.Formulas)
	for _, j := range idx[:k] {
		f := *m2.Formulas[j]
		f.Hard = true
		if weights[j] < 0 {
			f.Expr = &mln.Not{X: f.Expr, Pos: f.Pos}
		}
		m2.Formulas[j] = &f
	}
	opt := mod.opt
	m3, err := CompileContext(ctx, &m2, &opt)
	if err != nil {
		return nil, false
	}
	res, err := m3.EvaluateContext(ctx, weights, sizes)
	if err != nil {
		return nil, false
	}
	for _, j := range idx[:k] {
		if weights[j] > 0 {
			res.LogZ += weights[j] * g[j]
		} else {
			res.ExpectedCounts[j] = 0 // ¬φ_j held at every grounding
		}
	}
	return res, true
}
