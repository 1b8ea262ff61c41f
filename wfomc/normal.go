package wfomc

import (
	"fmt"
	"sort"
	"strings"
)

// Quantifier elimination. Every quantified subformula Qz ψ whose other free
// variables are fv (at most one) is replaced by an atom B(fv) of a fresh
// auxiliary predicate, defined exactly by hard formulas. For Q = ∃:
//
//	¬ψ ∨ B             (∃z ψ ⇒ B)
//	¬B ∨ S ∨ ¬ψ        (B ⇒ ∃z ψ, Skolemized: S has weight −1 when false)
//	B ∨ S              (S is true whenever B is false)
//
// For a given fv, if ∃z ψ holds then B is forced true and S must be true
// (weight 1); otherwise B = true leaves S free (1 + (−1) = 0) and B = false
// forces S true (weight 1). The third clause keeps this right when the
// domain of z is empty. ∀z ψ is handled as ¬∃z ¬ψ. A hard formula whose body
// is ∃z ψ (at the top, under universal quantifiers and conjunctions) needs no
// B: it becomes S ∨ ¬ψ directly. The result is quantifier-free, and it is in
// FO2 when no formula has more than two free variables.

// errBeyondFO2 describes a formula outside the two-variable fragment.
type errBeyondFO2 struct {
	f      *formula
	reason string
}

func (e *errBeyondFO2) Error() string { return e.reason }

type normalizer struct {
	pb  *problem
	out []*formula
	// c2: the problem has counting constraints (count.go), so a hard
	// ∀x ∃y ψ(x,y) becomes the constraint ∃≥1 too, summed without Skolem
	// predicates and their cancellation.
	c2 bool
}

// normalize returns pb with quantifier-free formulas (new auxiliary and
// Skolem predicates appended to pb.preds), or an *errBeyondFO2.
func normalize(pl *poller, pb *problem) (*problem, error) {
	nz := &normalizer{pb: &problem{types: pb.types, preds: append([]pred(nil), pb.preds...)}}
	// The linear order is summed by the counting dynamic program too.
	nz.c2 = hasOrder(pb)
	for _, f := range pb.formulas {
		_, fn := functional(pb, f)
		nz.c2 = nz.c2 || fn || hasCounting(f.body)
	}
	for _, f := range pb.formulas {
		pl.poll()
		if err := nz.formula(f); err != nil {
			return nil, err
		}
	}
	nz.pb.formulas = nz.out
	for _, f := range nz.out {
		pl.poll()
		if err := checkFO2(nz.pb, f); err != nil {
			return nil, err
		}
	}
	return nz.pb, nil
}

func (nz *normalizer) formula(f *formula) error {
	if !hasQuantifier(f.body) {
		if cc, ok := functional(nz.pb, f); ok {
			nz.pb.counts = append(nz.pb.counts, cc)
			return nil
		}
		nz.out = append(nz.out, f)
		return nil
	}
	if f.param < 0 {
		return nz.hard(f, f.body, append([]int(nil), f.free...))
	}
	body, err := nz.exact(f, f.body)
	if err != nil {
		return err
	}
	nz.emit(f, f.param, body, f.free)
	return nil
}

// emit adds a formula sharing f's variables.
func (nz *normalizer) emit(f *formula, param int, body *node, free []int) {
	nz.out = append(nz.out, &formula{src: f.src, param: param, vars: f.vars, free: free, body: simplify(body), text: f.text})
}

// hard handles the top of a hard formula: conjunctions split, universal
// quantifiers become free variables, a top existential is Skolemized.
func (nz *normalizer) hard(f *formula, n *node, free []int) error {
	switch n.k {
	case nAnd:
		for _, k := range n.kids {
			if err := nz.hard(f, k, free); err != nil {
				return err
			}
		}
		return nil
	case nForall:
		return nz.hard(f, n.kids[0], append(append([]int(nil), free...), n.qv))
	case nNot:
		x := n.kids[0]
		switch x.k {
		case nNot:
			return nz.hard(f, x.kids[0], free)
		case nExists:
			if x.cmp != "" {
				return nz.beyond(f, "a negated counting quantifier (write the complementary bound instead)")
			}
			return nz.hard(f, &node{k: nForall, qv: x.qv, kids: []*node{not(x.kids[0])}}, free)
		case nForall:
			return nz.hard(f, &node{k: nExists, qv: x.qv, kids: []*node{not(x.kids[0])}}, free)
		case nOr:
			kids := make([]*node, len(x.kids))
			for i, k := range x.kids {
				kids[i] = not(k)
			}
			return nz.hard(f, &node{k: nAnd, kids: kids}, free)
		}
	case nCard:
		a := n.kids[0]
		if ts := nz.pb.preds[a.pred].types; len(ts) == 2 && ts[0] != ts[1] {
			return nz.beyond(f, "a cardinality constraint on a predicate over two types")
		}
		nz.pb.counts = append(nz.pb.counts, countCons{pred: a.pred, global: true, cmp: n.cmp, k: n.cnt, text: f.text})
		return nil
	case nLin:
		// Each member's total runs along in the counting dynamic program
		// (cmp "free": no bound of its own); the sum is checked at the end.
		l := len(nz.pb.lins) + 1
		for i, a := range n.kids {
			if ts := nz.pb.preds[a.pred].types; len(ts) == 2 && ts[0] != ts[1] {
				return nz.beyond(f, "a cardinality constraint on a predicate over two types")
			}
			nz.pb.counts = append(nz.pb.counts, countCons{pred: a.pred, global: true, cmp: "free", lin: l, coef: n.coefs[i], text: f.text})
		}
		nz.pb.lins = append(nz.pb.lins, linCons{cmp: n.cmp, k: n.cnt, text: f.text})
		return nil
	case nExists:
		if n.cmp != "" {
			return nz.counting(f, n, free)
		}
		if fv := usedFree(n, free); nz.c2 && len(fv) == 1 && f.vars[fv[0]].typ == f.vars[n.qv].typ {
			return nz.counting(f, &node{k: nExists, qv: n.qv, kids: n.kids, cmp: ">=", cnt: 1}, free)
		}
		psi, err := nz.exact(f, n.kids[0])
		if err != nil {
			return err
		}
		fv := usedFree(n, free)
		if len(fv) > 1 {
			return nz.beyond(f, fmt.Sprintf("an existential quantifier (over %s) inside the scope of two universally quantified variables (%s)",
				f.vars[n.qv].name, varNames(f, fv)))
		}
		s := nz.newPred(f, pSkolem, "skolem", fv)
		nz.emit(f, -1, or(atomOf(s, fv), not(psi)), append(append([]int(nil), fv...), n.qv))
		return nil
	}
	body, err := nz.exact(f, n)
	if err != nil {
		return err
	}
	nz.emit(f, -1, body, free)
	return nil
}

// usedFree returns the variables of free that occur free in n, in order.
func usedFree(n *node, free []int) []int {
	fv := freeVarsOf(n)
	var out []int
	for _, v := range free {
		if fv[v] {
			out = append(out, v)
		}
	}
	// Variables free in n but not listed (cannot happen for well-formed
	// input) are appended in index order.
	listed := map[int]bool{}
	for _, v := range free {
		listed[v] = true
	}
	var extra []int
	for v := range fv {
		if !listed[v] {
			extra = append(extra, v)
		}
	}
	sort.Ints(extra)
	return append(out, extra...)
}

// exact replaces every quantified subformula of n, innermost first, by an
// auxiliary atom defined exactly.
func (nz *normalizer) exact(f *formula, n *node) (*node, error) {
	if !hasQuantifier(n) {
		return n, nil
	}
	kids := make([]*node, len(n.kids))
	for i, k := range n.kids {
		x, err := nz.exact(f, k)
		if err != nil {
			return nil, err
		}
		kids[i] = x
	}
	c := *n
	c.kids = kids
	if n.k != nExists && n.k != nForall && n.k != nCard && n.k != nLin {
		return &c, nil
	}
	if n.cmp != "" || n.k == nCard || n.k == nLin {
		return nil, nz.beyond(f, "a counting quantifier (EXIST"+n.cmp+itoa(n.cnt)+") or cardinality constraint is supported only at the top of a hard formula, under FORALL and ^")
	}
	z := n.qv
	psi := kids[0]
	fvSet := freeVarsOf(&c)
	var fv []int
	for v := range fvSet {
		fv = append(fv, v)
	}
	sort.Ints(fv)
	if len(fv) > 1 {
		return nil, nz.beyond(f, fmt.Sprintf("the quantifier over %s has %s free in its scope: three variables in one scope",
			f.vars[z].name, varNames(f, fv)))
	}
	b := nz.newPred(f, pAux, "aux", fv)
	s := nz.newPred(f, pSkolem, "skolem", fv)
	bAtom, sAtom := atomOf(b, fv), atomOf(s, fv)
	vz := append(append([]int(nil), fv...), z)
	chi := psi // ∃z χ with C ⇔ ∃z χ
	cAtom := bAtom
	if n.k == nForall {
		chi, cAtom = not(psi), not(bAtom) // ¬B ⇔ ∃z ¬ψ
	}
	nz.emit(f, -1, or(not(chi), cAtom), vz)
	nz.emit(f, -1, or(not(cAtom), sAtom, not(chi)), vz)
	nz.emit(f, -1, or(cAtom, sAtom), fv)
	return bAtom, nil
}

func (nz *normalizer) newPred(f *formula, kind predKind, what string, fv []int) int {
	types := make([]int, len(fv))
	for i, v := range fv {
		types[i] = f.vars[v].typ
	}
	i := len(nz.pb.preds)
	nz.pb.preds = append(nz.pb.preds, pred{name: fmt.Sprintf("$%s%d", what, i), types: types, kind: kind, parent: -1})
	return i
}

func (nz *normalizer) beyond(f *formula, why string) error {
	return &errBeyondFO2{f: f, reason: why}
}

// checkFO2 verifies that a quantifier-free formula has at most two free
// variables and only predicates of arity at most two.
func checkFO2(pb *problem, f *formula) error {
	if len(f.free) > 2 {
		return &errBeyondFO2{f: f, reason: fmt.Sprintf("it has %d logical variables (%s) in one scope", len(f.free), varNames(f, f.free))}
	}
	var bad string
	var walk func(n *node)
	walk = func(n *node) {
		if n.k == nAtom && len(n.args) > 2 && bad == "" {
			bad = fmt.Sprintf("predicate %s has %d variable arguments", pb.preds[n.pred].name, len(n.args))
		}
		for _, k := range n.kids {
			walk(k)
		}
	}
	walk(f.body)
	if bad != "" {
		return &errBeyondFO2{f: f, reason: bad}
	}
	return nil
}

func varNames(f *formula, vs []int) string {
	names := make([]string, len(vs))
	for i, v := range vs {
		names[i] = f.vars[v].name
	}
	return strings.Join(names, ", ")
}

func not(n *node) *node { return &node{k: nNot, kids: []*node{n}} }

func or(kids ...*node) *node { return &node{k: nOr, kids: kids} }

func atomOf(p int, vs []int) *node {
	args := make([]term, len(vs))
	for i, v := range vs {
		args[i] = term{v: v}
	}
	return &node{k: nAtom, pred: p, args: args}
}
