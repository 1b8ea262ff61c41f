package wfomc

import (
	"context"
	"math/bits"
)

// The power rule (independent partial grounding). If every formula of a
// component has a free variable s_f that occurs in every one of its atoms,
// and every predicate p has an argument position pos_p at which each of its
// atoms carries that variable, then the atoms split by the element at the
// separator position into groups that no formula connects, and the groups
// are alike: Z = Z₁^m, where m is the size of the separator's domain and Z₁
// is the model with the separator fixed to one new named constant (which
// drops pos_p from every predicate, so arities fall by one). Z₁ is compiled
// like any other problem, recursively. This lifts, for example,
// TaughtBy(c,p,q) => Professor(p): with p fixed it is TaughtBy'(c,q) =>
// Professor', which is in FO2.

const sepConst = "$sep"

type powerComp struct {
	pb  *problem // the component (for the separator's domain size)
	typ int
	lv  *level // the model with the separator fixed
}

func (p *powerComp) eval(ctx context.Context, theta []float64, n []int64, grad []float64) (float64, float64, error) {
	m := p.pb.size(p.typ, n)
	if m == 0 {
		return 0, 0, nil
	}
	g := make([]float64, len(grad))
	l, d, err := p.lv.eval(ctx, theta, n, g)
	if err != nil {
		return 0, 0, err
	}
	fm := float64(m)
	for i, x := range g {
		grad[i] += fm * x
	}
	return fm * l, d, nil
}

// powerRule applies the rule to a component, or returns errNoRule.
func (c *compiler) powerRule(sub *problem, depth int) (*powerComp, error) {
	sep, pos, typ, ok := findSeparator(sub)
	if !ok {
		return nil, errNoRule
	}
	p2 := &problem{types: sub.types}
	for pi, p := range sub.preds {
		types := append(append([]int(nil), p.types[:pos[pi]]...), p.types[pos[pi]+1:]...)
		p2.preds = append(p2.preds, pred{name: p.name + "/" + sepConst, types: types, kind: p.kind, parent: -1})
	}
	for fi, f := range sub.formulas {
		s := sep[fi]
		body := mapNode(f.body, func(n *node) *node {
			switch n.k {
			case nAtom:
				args := make([]term, 0, len(n.args)-1)
				for i, a := range n.args {
					if i == pos[n.pred] {
						continue
					}
					if a.isVar() && a.v == s {
						a = term{v: -1, c: sepConst}
					}
					args = append(args, a)
				}
				return &node{k: nAtom, pred: n.pred, args: args}
			case nEq:
				args := make([]term, 2)
				for i, a := range n.args {
					if a.isVar() && a.v == s {
						a = term{v: -1, c: sepConst}
					}
					args[i] = a
				}
				return &node{k: nEq, args: args}
			}
			return n
		})
		var free []int
		for _, v := range f.free {
			if v != s {
				free = append(free, v)
			}
		}
		p2.formulas = append(p2.formulas, &formula{src: f.src, param: f.param, vars: f.vars, free: free, body: body, text: f.text})
	}
	specials := make([][]string, len(sub.types))
	specials[typ] = []string{sepConst}
	sh := shatter(c.pl, p2, specials)
	lv, err := c.compileLevel(sh.pb, nil, depth+1)
	if err != nil {
		return nil, err
	}
	lv.sh, lv.parent = sh, p2
	return &powerComp{pb: sub, typ: typ, lv: lv}, nil
}

// findSeparator searches for the separator variable of every formula and
// the separator position of every predicate.
func findSeparator(pb *problem) (sep []int, pos []int, typ int, ok bool) {
	allowed := make([]uint64, len(pb.preds))
	for i, p := range pb.preds {
		if len(p.types) == 0 || len(p.types) > 64 {
			return nil, nil, 0, false
		}
		allowed[i] = 1<<len(p.types) - 1
	}
	sep = make([]int, len(pb.formulas))
	typ = -1
	var rec func(fi int) bool
	rec = func(fi int) bool {
		if fi == len(pb.formulas) {
			return true
		}
		f := pb.formulas[fi]
		for _, v := range f.free {
			t := f.vars[v].typ
			if typ >= 0 && t != typ {
				continue
			}
			masks, good := separatorMasks(f, v, len(pb.preds))
			if !good {
				continue
			}
			saved := append([]uint64(nil), allowed...)
			fine := true
			for p, m := range masks {
				if m == 0 {
					continue
				}
				allowed[p] &= m
				if allowed[p] == 0 {
					fine = false
				}
			}
			savedTyp := typ
			typ = t
			if fine && rec(fi+1) {
				sep[fi] = v
				return true
			}
			copy(allowed, saved)
			typ = savedTyp
		}
		return false
	}
	if !rec(0) {
		return nil, nil, 0, false
	}
	pos = make([]int, len(pb.preds))
	for i, a := range allowed {
		pos[i] = bits.TrailingZeros64(a)
	}
	return sep, pos, typ, true
}

// separatorMasks returns, per predicate, the positions at which every atom
// of it in f carries v (0 for predicates not in f); good is false when some
// atom does not contain v at all.
func separatorMasks(f *formula, v int, npreds int) (map[int]uint64, bool) {
	masks := map[int]uint64{}
	good := true
	walkAtoms(f.body, func(n *node) {
		var m uint64
		for i, a := range n.args {
			if a.isVar() && a.v == v {
				m |= 1 << i
			}
		}
		if m == 0 {
			good = false
			return
		}
		if old, ok := masks[n.pred]; ok {
			m &= old
		}
		masks[n.pred] = m
		if m == 0 {
			good = false
		}
	})
	return masks, good
}
