package ground

import (
	"fmt"

	"github.com/lifted-dev/lifted/mln"
)

// Restriction grounds an MLN over a subset of each type's constants, with
// the evidence restricted to the atoms over those constants, and reports
// the binding of every factor. It serves the lifted network construction of
// package lift, which grounds a small model in which each class of
// interchangeable constants keeps a few representatives and counts the
// groundings of the full model combinatorially.
type Restriction struct {
	// Keep lists, per type index, the constants kept (indices into the
	// full domain, increasing); a nil entry keeps the whole domain.
	Keep [][]int
	// OnFactor, if set, is called for every ground formula that becomes a
	// factor: formula is the index of the compiled formula (a piece of a
	// hard formula split into conjuncts, or a clause of Options.AlchemyCNF,
	// is its own), slotTypes the type of each of its variables, binding
	// their constants (indices into the restricted domains), and factor the
	// factor's index, or -1 for a ground formula represented with an
	// auxiliary variable. The slices are reused after the call returns.
	OnFactor func(formula int, slotTypes []int, binding []int32, factor int32)
	// OnOffset, if set, is called with every term the grounding adds to
	// Grounding.LogZOffset for one binding (the scale taken out of a
	// factor's table, the weight of a soft ground formula the evidence
	// makes true, the constant of a ground formula whose table is
	// constant), with the binding as for OnFactor; a binding of nil stands
	// for every binding of a formula whose value is the same for all
	// (each contributing logZ). Setting it makes the grounding visit every
	// binding (no pruning), which is slower: use it on small models. The
	// terms for open-world predicates that no formula mentions are not
	// reported.
	OnOffset func(formula int, slotTypes []int, binding []int32, logZ float64)
}

// restrict replaces the domains by their kept constants.
func (t *atomTable) restrict(r *Restriction) error {
	if r == nil {
		return nil
	}
	if len(r.Keep) > len(t.domains) {
		return fmt.Errorf("ground: restriction names %d types, the MLN has %d", len(r.Keep), len(t.domains))
	}
	if len(t.m.Funcs) > 0 {
		return fmt.Errorf("ground: a restricted grounding does not support functions")
	}
	t.keep = make([][]int32, len(t.domains))
	for ti, dom := range t.domains {
		idx := make([]int32, len(dom))
		if ti >= len(r.Keep) || r.Keep[ti] == nil {
			for i := range idx {
				idx[i] = int32(i)
			}
			t.keep[ti] = idx
			continue
		}
		for i := range idx {
			idx[i] = -1
		}
		sub := make([]string, 0, len(r.Keep[ti]))
		for _, c := range r.Keep[ti] {
			if c < 0 || c >= len(dom) || idx[c] >= 0 || (len(sub) > 0 && c < r.Keep[ti][len(sub)-1]) {
				return fmt.Errorf("ground: restriction of type %s: constant index %d is out of range, repeated or out of order", t.m.Types[ti].Name, c)
			}
			idx[c] = int32(len(sub))
			sub = append(sub, dom[c])
		}
		t.keep[ti] = idx
		t.domains[ti] = sub
	}
	return nil
}

// restrictAtom maps an evidence atom to the restricted domains, and reports
// false when one of its constants is not kept.
func (t *atomTable) restrictAtom(a mln.GroundAtom) (mln.GroundAtom, bool) {
	d := t.m.Preds[a.Pred]
	args := make([]int, len(a.Args))
	for p, c := range a.Args {
		x := t.keep[d.TypeIdx[p]][c]
		if x < 0 {
			return a, false
		}
		args[p] = int(x)
	}
	a.Args = args
	return a, true
}
