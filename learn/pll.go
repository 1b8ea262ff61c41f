package learn

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/lifted-dev/lifted/ground"
	"github.com/lifted-dev/lifted/mln"
)

// PLL learns the weights that maximise the pseudo-log-likelihood of the
// training databases (closed world) times the Gaussian prior, by L-BFGS:
// the sum over ground atoms X of log P(X = its value | all other atoms),
// Alchemy's default generative learner. By default each predicate's atoms
// are weighted by one over their number (Alchemy's equal predicate
// weights); Options.UnweightedPLL sums them alike.
//
// Flipping atom X changes the count of formula j by Δ_j(X), and
// log P(X = x | rest) = −log(1 + exp(Σ_j w_j Δ_j(X))). Atoms with equal Δ
// vectors are grouped, so after one pass over the ground atoms every
// iteration costs the number of distinct Δ vectors. Flips that would break
// a hard formula have probability 0 and drop out.
//
// A predicate with mutually exclusive arguments, Has(person, color!),
// contributes one term per block (binding of the other arguments) instead,
// as in Alchemy: the block's true atom is one of its k atoms, and
// log P(block as observed | rest) = −log(1 + Σ_b exp(w·Δ(b))) over the
// k−1 other atoms b that could be the true one, Δ(b) being the change of
// the counts when the truth moves to b. Equal predicate weights divide by
// the number of blocks. Every block of the data must have exactly one true
// atom.
func PLL(m *mln.MLN, dbs []*mln.DB, names []string, opt *Options) (*Result, error) {
	start := time.Now()
	o := opt.defaults()
	if len(dbs) == 0 {
		return nil, errors.New("no training data")
	}
	if err := checkExpanded(m); err != nil {
		return nil, err
	}
	var only []bool
	if len(o.Predicates) > 0 {
		only = make([]bool, len(m.Preds))
		for _, n := range o.Predicates {
			p := m.PredIndex(n)
			if p < 0 {
				return nil, fmt.Errorf("unknown predicate %q", n)
			}
			only[p] = true
		}
	}
	groups := map[string]*pllGroup{}
	for i, db := range dbs {
		name := fmt.Sprintf("database %d", i+1)
		if i < len(names) {
			name = names[i]
		}
		var tick func(stage string, done, total int64)
		if o.Stage != nil {
			detail := name
			if len(dbs) > 1 {
				detail = fmt.Sprintf("%s (database %d of %d)", name, i+1, len(dbs))
			}
			tick = func(stage string, done, total int64) { o.Stage(stage, done, total, detail) }
		}
		ctx := o.Context
		if ctx == nil {
			ctx = context.Background()
		}
		if err := pllDeltasOnly(ctx, m, db, name, !o.UnweightedPLL, only, groups, tick); err != nil {
			return nil, err
		}
	}
	list := make([]*pllGroup, 0, len(groups))
	for _, g := range groups {
		list = append(list, g)
	}
	sort.Slice(list, func(i, j int) bool { return list[i].key < list[j].key })
	var s []float64 // per alternative of a group: w·Δ
	obj := func(w []float64, grad []float64) (float64, error) {
		total := 0.0
		for _, g := range list {
			if len(g.alts) == 1 { // one atom: the logistic case
				s := dot(w, g.alts[0])
				total -= g.mult * softplus(s)
				if grad != nil {
					p := sigmoid(s)
					for _, d := range g.alts[0] {
						grad[d.j] -= g.mult * p * d.v
					}
				}
				continue
			}
			// A block: −log(1 + Σ_b exp(s_b)), computed around the largest term.
			s = s[:0]
			top := 0.0
			for _, a := range g.alts {
				s = append(s, dot(w, a))
				top = math.Max(top, s[len(s)-1])
			}
			sum := math.Exp(-top)
			for _, x := range s {
				sum += math.Exp(x - top)
			}
			lse := top + math.Log(sum)
			total -= g.mult * lse
			if grad != nil {
				for b, a := range g.alts {
					p := math.Exp(s[b] - lse)
					for _, d := range a {
						grad[d.j] -= g.mult * p * d.v
					}
				}
			}
		}
		return total, nil
	}
	return maximise(m, obj, o, start)
}

type pllEntry struct {
	j int
	v float64
}

// pllGroup is one kind of pseudo-likelihood term: the Δ vectors of the
// alternatives to the observed state (one for an atom, up to k−1 for a
// block of k mutually exclusive atoms), with the total multiplicity of the
// atoms or blocks that have them.
type pllGroup struct {
	key  string
	alts [][]pllEntry
	mult float64
}

func dot(w []float64, d []pllEntry) float64 {
	s := 0.0
	for _, e := range d {
		s += w[e.j] * e.v
	}
	return s
}

func softplus(x float64) float64 {
	if x > 0 {
		return x + math.Log1p(math.Exp(-x))
	}
	return math.Log1p(math.Exp(x))
}

func sigmoid(x float64) float64 {
	if x >= 0 {
		return 1 / (1 + math.Exp(-x))
	}
	e := math.Exp(x)
	return e / (1 + e)
}

// pllDeltas adds the Δ vectors of every ground atom of db to groups.
func pllDeltas(m *mln.MLN, db *mln.DB, name string, equalPredWeights bool, groups map[string]*pllGroup) error {
	return pllDeltasProgress(context.Background(), m, db, name, equalPredWeights, groups, nil)
}

// pllDeltasProgress is pllDeltas reporting its progress to tick (if not
// nil): the hard formulas checked, then the ground atoms done. It stops
// with ctx's error when ctx ends (checked at every ground atom).
func pllDeltasProgress(ctx context.Context, m *mln.MLN, db *mln.DB, name string, equalPredWeights bool, groups map[string]*pllGroup, tick func(stage string, done, total int64)) error {
	return pllDeltasOnly(ctx, m, db, name, equalPredWeights, nil, groups, tick)
}

// pllDeltasOnly is pllDeltasProgress over the atoms of the predicates
// only marks (nil: all).
func pllDeltasOnly(ctx context.Context, m *mln.MLN, db *mln.DB, name string, equalPredWeights bool, only []bool, groups map[string]*pllGroup, tick func(stage string, done, total int64)) error {
	if tick == nil {
		tick = func(string, int64, int64) {}
	}
	w := newWorld(m, db)
	// The database must satisfy the hard formulas.
	nhard := int64(0)
	for _, f := range m.Formulas {
		if f.Hard {
			nhard++
		}
	}
	checked := int64(0)
	for j, f := range m.Formulas {
		if !f.Hard {
			continue
		}
		tick("pll: checking the hard formulas", checked, nhard)
		checked++
		if err := ctx.Err(); err != nil {
			return err
		}
		c, err := w.count(j)
		if err != nil {
			return fmt.Errorf("%s: formula %d (%s): %w", name, j+1, f.Text, err)
		}
		if c != groundingsAt(m, f, sizesOf(m, w)) {
			return fmt.Errorf("%s violates hard formula %d (%s)", name, j+1, f.Text)
		}
	}
	// Which formulas mention which predicates.
	byPred := make([][]int, len(m.Preds))
	for j, f := range m.Formulas {
		seen := map[int]bool{}
		mln.Inspect(f.Expr, func(e mln.Expr) bool {
			if a, ok := e.(*mln.Atom); ok {
				p := m.PredIndex(a.Pred)
				if !seen[p] {
					seen[p] = true
					byPred[p] = append(byPred[p], j)
				}
			}
			return true
		})
	}
	// Progress: the ground atoms whose conditional likelihood is done.
	total, done := int64(0), int64(0)
	for pi, p := range m.Preds {
		if only != nil && !only[pi] {
			continue
		}
		n := int64(1)
		for _, t := range p.TypeIdx {
			n *= int64(len(w.dom[t]))
		}
		total += n
	}
	const stage = "pll: conditional likelihood terms (ground atoms)"
	tick(stage, 0, total)
	for pi, p := range m.Preds {
		if only != nil && !only[pi] {
			continue
		}
		n := int64(1)
		for _, t := range p.TypeIdx {
			n *= int64(len(w.dom[t]))
		}
		if len(byPred[pi]) == 0 {
			w.unusedPredicate(pi, equalPredWeights, groups)
			done += n
			tick(stage, done, total)
			continue
		}
		if len(p.MutexArgs) > 0 {
			if err := w.blockDeltas(pi, byPred[pi], name, equalPredWeights, groups); err != nil {
				return err
			}
			done += n
			tick(stage, done, total)
			continue
		}
		natoms := 1.0
		for _, t := range p.TypeIdx {
			natoms *= float64(len(w.dom[t]))
		}
		mult := 1.0
		if equalPredWeights {
			mult = 1 / natoms
		}
		args := make([]int, p.Arity())
		var rec func(i int) error
		rec = func(i int) error {
			if i == len(args) {
				if done++; done&255 == 0 {
					tick(stage, done, total)
				}
				if err := ctx.Err(); err != nil {
					return err
				}
				d, ok, err := w.flipDelta(m, []atomRef{{pi, args}}, byPred[pi])
				if err != nil {
					return fmt.Errorf("%s: %w", name, err)
				}
				if ok {
					addGroup(groups, [][]pllEntry{d}, mult)
				}
				return nil
			}
			for k := range w.dom[p.TypeIdx[i]] {
				args[i] = k
				if err := rec(i + 1); err != nil {
					return err
				}
			}
			return nil
		}
		if err := rec(0); err != nil {
			return err
		}
	}
	return nil
}

// unusedPredicate adds the constant terms of a predicate no formula
// mentions without enumerating its atoms: each atom is −log 2 (either value
// equally likely), each block of k mutually exclusive atoms −log k.
func (w *world) unusedPredicate(pi int, equalPredWeights bool, groups map[string]*pllGroup) {
	p := w.m.Preds[pi]
	terms, size := 1.0, 1 // atoms or blocks; block size
	for i, t := range p.TypeIdx {
		n := len(w.dom[t])
		if slices.Contains(p.MutexArgs, i) {
			size *= n
		} else {
			terms *= float64(n)
		}
	}
	if len(p.MutexArgs) == 0 {
		size = 2 // an atom: its value and the flipped one
	}
	if size < 2 || terms == 0 {
		return
	}
	mult := terms
	if equalPredWeights {
		mult = 1
	}
	addGroup(groups, make([][]pllEntry, size-1), mult)
}

// blockDeltas adds the terms of the blocks of a predicate with mutually
// exclusive arguments: per binding of the other arguments, the Δ vectors
// of moving the one true atom to each other atom of the block.
func (w *world) blockDeltas(pi int, formulas []int, name string, equalPredWeights bool, groups map[string]*pllGroup) error {
	m, p := w.m, w.m.Preds[pi]
	isMutex := make([]bool, p.Arity())
	for _, a := range p.MutexArgs {
		isMutex[a] = true
	}
	// odometer over the argument positions selected by sel
	each := func(args []int, sel func(i int) bool, visit func() error) error {
		var rec func(i int) error
		rec = func(i int) error {
			if i == len(args) {
				return visit()
			}
			if !sel(i) {
				return rec(i + 1)
			}
			for k := range w.dom[p.TypeIdx[i]] {
				args[i] = k
				if err := rec(i + 1); err != nil {
					return err
				}
			}
			return nil
		}
		return rec(0)
	}
	nblocks := 1.0
	for i, t := range p.TypeIdx {
		if !isMutex[i] {
			nblocks *= float64(len(w.dom[t]))
		}
	}
	mult := 1.0
	if equalPredWeights {
		mult = 1 / nblocks
	}
	args := make([]int, p.Arity())
	return each(args, func(i int) bool { return !isMutex[i] }, func() error {
		var members [][]int
		trueAt := -1
		err := each(args, func(i int) bool { return isMutex[i] }, func() error {
			if w.truth(pi, args) {
				if trueAt >= 0 {
					return fmt.Errorf("%s: %s and %s are both true, but %s allows one true atom per block", name, w.atomString(pi, members[trueAt]), w.atomString(pi, args), p)
				}
				trueAt = len(members)
			}
			members = append(members, append([]int(nil), args...))
			return nil
		})
		if err != nil {
			return err
		}
		if trueAt < 0 {
			if len(members) == 0 {
				return nil
			}
			return fmt.Errorf("%s: no atom of the block of %s is true, but %s needs exactly one", name, w.atomString(pi, members[0]), p)
		}
		var alts [][]pllEntry
		for b := range members {
			if b == trueAt {
				continue
			}
			d, ok, err := w.flipDelta(m, []atomRef{{pi, members[trueAt]}, {pi, members[b]}}, formulas)
			if err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			if ok {
				alts = append(alts, d)
			}
		}
		if len(alts) > 0 {
			addGroup(groups, alts, mult)
		}
		return nil
	})
}

// atomString prints a ground atom, e.g. Has(Anna,Red).
func (w *world) atomString(pred int, args []int) string {
	p := w.m.Preds[pred]
	parts := make([]string, len(args))
	for i, a := range args {
		parts[i] = w.dom[p.TypeIdx[i]][a]
	}
	return p.Name + "(" + strings.Join(parts, ",") + ")"
}

func sizesOf(m *mln.MLN, w *world) map[string]int64 {
	s := map[string]int64{}
	for i, t := range m.Types {
		s[t.Name] = int64(len(w.dom[i]))
	}
	return s
}

func addGroup(groups map[string]*pllGroup, alts [][]pllEntry, mult float64) {
	keys := make([]string, len(alts))
	for i, d := range alts {
		var b strings.Builder
		for _, e := range d {
			fmt.Fprintf(&b, "%d:%g;", e.j, e.v)
		}
		keys[i] = b.String()
	}
	sort.Strings(keys) // the order of a block's alternatives does not matter
	k := strings.Join(keys, "|")
	g, ok := groups[k]
	if !ok {
		g = &pllGroup{key: k, alts: alts}
		groups[k] = g
	}
	g.mult += mult
}

// flipDelta returns the change of every formula's count when the atoms
// in flips are flipped together; ok is false when that breaks a hard
// formula.
func (w *world) flipDelta(m *mln.MLN, flips []atomRef, formulas []int) ([]pllEntry, bool, error) {
	var out []pllEntry
	for _, j := range formulas {
		f := m.Formulas[j]
		cf, ev, err := w.formula(j)
		if err != nil {
			return nil, false, fmt.Errorf("formula %d (%s): %w", j+1, f.Text, err)
		}
		var gs [][]int32
		seen := map[string]bool{}
		for _, a := range flips {
			// a grounding with both atoms counts once
			gs = w.groundingsWith(cf, a.pred, a.args, seen, gs)
		}
		delta := 0.0
		for _, b := range gs {
			before := ev.Truth(b, w.truth32)
			w.flips = flips
			after := ev.Truth(b, w.truth32)
			w.flips = nil
			if before == after {
				continue
			}
			if f.Hard {
				return nil, false, nil // the flipped world is impossible
			}
			if after {
				delta++
			} else {
				delta--
			}
		}
		if delta != 0 && !f.Hard {
			out = append(out, pllEntry{j, delta})
		}
	}
	return out, true, nil
}

// groundingsWith appends to out the bindings of cf's free variables under
// which the atom pred(args) may occur in it, and not in seen: each
// occurrence of pred whose constants agree with args fixes the free
// variables in its argument positions; the others range over their
// domains.
func (w *world) groundingsWith(cf *ground.Formula, pred int, args []int, seen map[string]bool, out [][]int32) [][]int32 {
	nv := cf.NumVars()
	fixed := make([]int32, nv)
	b := make([]int32, nv)
	key := make([]byte, 0, 4*nv)
	for o := range cf.NumOccs() {
		p, ts := cf.Occ(o)
		if p != pred {
			continue
		}
		for i := range fixed {
			fixed[i] = -1
		}
		ok := true
		for i, t := range ts {
			if v, isVar := t.Var(); isVar {
				if fixed[v] >= 0 && int(fixed[v]) != args[i] {
					ok = false
					break
				}
				fixed[v] = int32(args[i])
			} else if c, _ := t.Const(); c != args[i] {
				ok = false
				break
			}
		}
		if !ok {
			continue
		}
		var rec func(i int)
		rec = func(i int) {
			if i == nv {
				key = key[:0]
				for _, x := range b {
					key = append(key, byte(x), byte(x>>8), byte(x>>16), byte(x>>24))
				}
				if !seen[string(key)] {
					seen[string(key)] = true
					out = append(out, slices.Clone(b))
				}
				return
			}
			if fixed[i] >= 0 {
				b[i] = fixed[i]
				rec(i + 1)
				return
			}
			for k := range cf.VarDomain(i) {
				b[i] = int32(k)
				rec(i + 1)
			}
		}
		rec(0)
	}
	return out
}
