package engine

import (
	"math"

	"github.com/lifted-dev/lifted/infer"
	"github.com/lifted-dev/lifted/wfomc"
)

// WFOMCResult is the one result of a weighted first-order model count
// ("lifted wfomc"): log Z (exact), the query probabilities as marginals,
// the expected formula counts in the stats.
func WFOMCResult(res *wfomc.FileResult) *Result {
	r := &Result{Task: LogZ, Method: "wfomc", Converged: true, LogZ: res.LogZ, LogZKind: infer.Exact, Figures: res.Figures()}
	if !res.Exact() {
		r.LogZKind = infer.Estimate // digits lost: Figures has the relative error
	}
	atoms := make([]Atom, len(res.Queries))
	for i, q := range res.Queries {
		atoms[i] = Atom{Name: q.Text, P: res.Marginals[i], StdErr: math.NaN()}
	}
	r.SetAtoms(atoms)
	return r
}
