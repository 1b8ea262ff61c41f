package main

import (
	"context"
	"fmt"
	"io"

	"github.com/lifted-dev/lifted/infer"
	"github.com/lifted-dev/lifted/infer/exact"
	"github.com/lifted-dev/lifted/mln"
)

// autoSmallAtoms is the number of unknown ground atoms up to which
// --method auto grounds the MLN after wfomc did not answer, so that auto
// chooses on the grounding as before (exact enumeration up to
// exact.DefaultMaxStates joint states, 2^20). Above it the grounding has
// too many joint states to enumerate (unless grounding simplifies most
// atoms away) and lifted BP runs on the first-order network.
const autoSmallAtoms = 64

// inferAuto answers an MLN marginal query of --method auto before
// grounding: (a) wfomc within auto's budget, without the grounding; if it
// does not answer, (b) a model with at most autoSmallAtoms unknown ground
// atoms is grounded and auto chooses on the grounding (enumeration or
// lifted BP) without running wfomc again; (c) otherwise lifted BP runs on
// the first-order network where it applies; (d) else the model is
// grounded as in (b). It reports whether it answered; when not, it
// returns the algorithm to run on the grounding (auto told that wfomc was
// tried) and why the first-order network was not used.
func inferAuto(ctx context.Context, f *inferFlags, pm *parsedMLN, path string, alg infer.Algorithm, opt infer.Options, stdout io.Writer) (infer.Algorithm, bool, string, error) {
	a, ok := alg.(*exact.Auto)
	switch {
	case !ok || a.Tried != "" || f.construction == constructGround || opt.Query.Task != infer.Marginals:
		return alg, false, "", nil
	case pm.opt.AlchemyCNF:
		return alg, false, "--method auto with --alchemy-cnf chooses on the grounding", nil
	}
	model, err := ungroundedModel(pm)
	if err != nil {
		return alg, true, "", withPath(path, err)
	}
	unknown := unknownAtoms(pm, model)
	atoms := func(yield func(int, []int) bool) { pm.opt.QueryAtoms.Each(model.DB, yield) }
	ans, why, err := a.TryUngrounded(ctx, model, opt.Query, atoms)
	if err != nil {
		return alg, true, "", mlnError(path, err)
	}
	if ans != nil {
		ans.Stats.Variables = int(unknown)
		st := mlnStats{Stats: ans.Stats, GroundAtoms: int64(unknown), LiftedConstruction: true,
			ConstructionReason: "wfomc answers on the MLN without grounding it"}
		return alg, true, "", writeUngrounded(f, pm, ans, st, stdout)
	}
	tried := *a
	tried.Tried = why
	if unknown <= autoSmallAtoms {
		return &tried, false, fmt.Sprintf("--method auto: %.0f unknown ground atoms, few enough to choose on the grounding", unknown), nil
	}
	net, nwhy, err := firstOrderNetwork(ctx, &f.mlnFlags, pm, opt.Colour, f.outFormat == "json")
	if err != nil {
		return alg, true, "", withPathErr(path, err)
	}
	if net == nil {
		return &tried, false, nwhy, nil
	}
	_, _, err = runFirstOrder(ctx, f, pm, path, a.LBP, opt, net, "lbp", why+"; lifted BP on the first-order network", stdout)
	return alg, true, "", err
}

// unknownAtoms is the number of ground atoms that the evidence and the
// closed world leave unknown, counted without grounding: every ground atom
// of an open-world predicate less those the evidence fixes, and the atoms
// of closed-world predicates that the evidence lists as unknown.
func unknownAtoms(pm *parsedMLN, m *infer.Model) float64 {
	known := make([]float64, len(pm.m.Preds))
	listedUnknown := make([]float64, len(pm.m.Preds))
	for _, at := range m.DB.Atoms {
		if at.Truth == mln.Unknown {
			listedUnknown[at.Pred]++
		} else {
			known[at.Pred]++
		}
	}
	n := 0.0
	for p, d := range pm.m.Preds {
		if m.Closed[d.Name] {
			n += listedUnknown[p]
			continue
		}
		size := 1.0
		for _, t := range d.ArgTypes {
			size *= float64(len(m.DB.Domain(t)))
		}
		n += size - known[p]
	}
	return n
}
