package lift

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/lifted-dev/lifted/fg"
)

// Shrink moves the Recolourer to g2, a graph obtained from the current one
// by deleting nodes and edges, and recolours from the previous colouring,
// re-signing only what the deletions touch. This is LBPCount's residual
// graph after a clamp: the satisfied clauses are deleted, and so are the
// fixed variables with their edges, which shortens the clauses they were
// false in.
//
// varFrom[v] is the variable of the current graph that variable v of g2
// was, factorFrom[f] the factor that factor f of g2 was; both injective.
// Factor f's scope must be that of factorFrom[f] with some variables left
// out, in the same order, and a factor that keeps its whole scope must keep
// its table (one that lost variables has a new table). ev2 is g2's
// evidence (nil: none); opt are g2's options (the mode must be the same,
// Symmetric indexes g2's tables). Shrink checks the maps and the scopes (not the
// tables) and returns an error, changing nothing, when they do not fit.
//
// The seeded refinement is Update's: the touched nodes (variables that
// lost a factor or whose initial colour changed, factors that lost a
// variable) leave their classes, grouped by (old class, new initial colour,
// signature), and colour passing continues next to them. The result is the
// coarsest stable colouring of g2 that refines the old colouring: stable,
// so lifted BP on it computes ground BP's messages, but possibly finer than
// colour passing from scratch on g2, since a deletion can make nodes alike
// that were told apart. With merge, colour passing on the quotient of that
// colouring (Update's second stage) joins them, and the colouring is
// exactly ColourPassing's on g2 and ev2, class ids included.
//
// On cancellation the Recolourer must not be used further; an error from
// the checks of the arguments changes nothing.
func (r *Recolourer) Shrink(ctx context.Context, g2 *fg.Graph, ev2 fg.Evidence, opt Options, varFrom, factorFrom []int32, merge bool) (RecolourStats, error) {
	start := time.Now()
	var st RecolourStats
	old := r.p
	g1 := old.g
	switch {
	case opt.MaxIter != 0:
		return st, ErrRecolourMaxIter
	case opt.Mode != old.opt.Mode:
		return st, fmt.Errorf("lift: Shrink: mode %v, the colouring's is %v", opt.Mode, old.opt.Mode)
	}
	if err := g2.CheckEvidence(ev2); err != nil {
		return st, err
	}
	if ev2 == nil {
		ev2 = fg.NoEvidence(g2.NumVars())
	}
	if err := checkShrink(g1, g2, varFrom, factorFrom); err != nil {
		return st, err
	}
	// Carry the old classes over; the refiners keep the old class ids
	// (classes left without members are dead ids).
	p := newPassing(g2, ev2, opt, 1)
	for v := range p.vc {
		p.vc[v] = old.vc[varFrom[v]]
	}
	p.vr = newRefiner(p.vc, old.vr.numClasses())
	for f := range p.fc {
		p.fc[f] = old.fc[factorFrom[f]]
	}
	p.fr = newRefiner(p.fc, old.fr.numClasses())
	initKey := func(v int32, e int32) uint64 { return uint64(uint32(g2.Card[v]))<<32 | uint64(uint32(e)) }

	// Touched factors leave their classes: their signatures are shorter
	// than their untouched classmates' (which are unchanged), and their new
	// tables differ from those classmates' tables.
	step := p.step
	p.step++
	for f := range int32(g2.NumFactors()) {
		if g2.FactorStart[f+1]-g2.FactorStart[f] != g1.FactorStart[factorFrom[f]+1]-g1.FactorStart[factorFrom[f]] {
			p.fr.mark(f, step)
			st.Changed++
		}
	}
	p.fr.resign(func(f int32, buf []uint64) []uint64 {
		return append(p.signFactor(f, buf), p.initF[f])
	})
	// Touched variables (fewer factors, or another initial colour) and the
	// variables next to factors that changed class.
	step = p.step
	p.step++
	for v := range int32(g2.NumVars()) {
		u := varFrom[v]
		if g2.VarStart[v+1]-g2.VarStart[v] != g1.VarStart[u+1]-g1.VarStart[u] || ev2[v] != r.ev[u] {
			p.vr.mark(v, step)
			st.Changed++
		}
	}
	for _, f := range p.fr.changed {
		for _, v := range g2.Scope(int(f)) {
			p.vr.mark(v, step)
		}
	}
	p.vr.resign(func(v int32, buf []uint64) []uint64 {
		return append(p.signVar(v, buf), initKey(v, ev2[v]))
	})
	rounds, err := p.run(ctx, false)
	st.Rounds = rounds + 1
	st.Resigned = p.vr.signed + p.fr.signed
	if err != nil {
		return st, err
	}
	r.p, r.ev, r.rounds = p, slices.Clone(ev2), st.Rounds
	clear(r.initCount)
	for v := range r.ev {
		r.initCount[r.initKey(int32(v), r.ev[v])]++
	}
	if merge {
		if err := r.merge(ctx, &st); err != nil {
			return st, err
		}
	}
	st.Seconds = time.Since(start).Seconds()
	return st, nil
}

// checkShrink checks that g2 is g1 with nodes and edges deleted, as
// Shrink's maps say: injective maps, the same cardinalities, and every
// factor's scope a subsequence of its origin's.
func checkShrink(g1, g2 *fg.Graph, varFrom, factorFrom []int32) error {
	if len(varFrom) != g2.NumVars() || len(factorFrom) != g2.NumFactors() {
		return fmt.Errorf("lift: Shrink: maps of %d variables and %d factors for a graph of %d and %d", len(varFrom), len(factorFrom), g2.NumVars(), g2.NumFactors())
	}
	seen := make([]bool, max(g1.NumVars(), g1.NumFactors()))
	for v, u := range varFrom {
		if u < 0 || int(u) >= g1.NumVars() || seen[u] {
			return fmt.Errorf("lift: Shrink: variable %d comes from %d: out of range or taken twice", v, u)
		}
		seen[u] = true
		if g2.Card[v] != g1.Card[u] {
			return fmt.Errorf("lift: Shrink: variable %d has %d states, its origin %d has %d", v, g2.Card[v], u, g1.Card[u])
		}
	}
	clear(seen)
	for f, h := range factorFrom {
		if h < 0 || int(h) >= g1.NumFactors() || seen[h] {
			return fmt.Errorf("lift: Shrink: factor %d comes from %d: out of range or taken twice", f, h)
		}
		seen[h] = true
		s1 := g1.Scope(int(h))
		k := 0
		for _, v := range g2.Scope(f) {
			for k < len(s1) && s1[k] != varFrom[v] {
				k++
			}
			if k == len(s1) {
				return fmt.Errorf("lift: Shrink: the scope of factor %d is not part of its origin %d's", f, h)
			}
			k++
		}
	}
	return nil
}
