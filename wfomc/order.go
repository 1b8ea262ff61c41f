package wfomc

import (
	"fmt"
	"math"

	"github.com/lifted-dev/lifted/mln"
)

// The linear order axiom (Tóth and Kuželka, "Lifted inference with linear
// order axiom", AAAI 2023), with the WFOMC tool's spelling. A predicate
// declared binary over one type t and named
//
//	LEQ            is a linear order of t: LEQ(x,y) iff x comes at or
//	               before y (reflexive, antisymmetric, transitive, total);
//	PRED, PRED1    is its successor relation: PRED(x,y) iff y comes
//	               immediately after x;
//	PREDk (k ≥ 2)  y comes exactly k places after x;
//	CIRCULAR_PRED  the successor on a circle: y comes immediately after x,
//	               or x is the last element and y the first (at least 3
//	               elements).
//
// Their atoms are not random variables of their own: a world is a linear
// order of t (one for all these predicates of t) together with the values
// of the other atoms, so Z sums over the n! orders (as the WFOMC tool's
// does). Without evidence every order gives the same sum, so
// Z = n!·Z_σ with σ the order in which the counting dynamic program
// (count.go) adds the elements: the pair weight of an element a added
// before b is computed with LEQ(a,b) true and LEQ(b,a) false, PREDk(a,b)
// true when a is the element added k steps before b (the state keeps the
// groups of the last k elements added), LEQ(x,x) true and PREDk(x,x)
// false.

type orderKind uint8

const (
	ordNone orderKind = iota
	ordLeq
	ordPred // dist = k
	ordCirc
)

// orderOf says whether name is a predicate of the linear order axiom
// (mln.OrderPredicate).
func orderOf(name string) (orderKind, int) {
	k, d := mln.OrderPredicate(name)
	switch k {
	case mln.OrderLEQ:
		return ordLeq, 0
	case mln.OrderPred:
		return ordPred, d
	case mln.OrderCircPred:
		return ordCirc, d
	}
	return ordNone, 0
}

// markOrder flags the order predicates of p0 and checks that they are
// binary over one type.
func markOrder(p0 *problem) error {
	for i := range p0.preds {
		p := &p0.preds[i]
		k, d := orderOf(p.name)
		if k == ordNone {
			continue
		}
		if len(p.types) != 2 || p.types[0] != p.types[1] {
			return fmt.Errorf("predicate %s is the linear order axiom's (a reserved name): it must be declared binary over one type, as %s(t, t)", p.name, p.name)
		}
		p.ord, p.dist = k, d
	}
	return nil
}

// orderedTypes returns the types (of p0) that have a predicate of the
// linear order axiom, and checks what wfomc supports with them.
func (c *compiler) orderedTypes(p0 *problem) ([]int, error) {
	seen := map[int]bool{}
	var out []int
	circ, succ := map[int]bool{}, map[int]bool{}
	for _, p := range p0.preds {
		if p.ord == ordNone {
			continue
		}
		t := p.types[0]
		switch p.ord {
		case ordCirc:
			circ[t] = true
		case ordPred:
			succ[t] = true
		}
		if circ[t] && succ[t] {
			return nil, fmt.Errorf("CIRCULAR_PRED and PRED over one type (%s): not supported by wfomc", c.m.Types[t].Name)
		}
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
		if len(c.specials[t]) > 0 {
			return nil, fmt.Errorf("the linear order axiom (%s) over type %s, whose constant %s is named (in a formula or evidence): not supported by wfomc", p.name, c.m.Types[t].Name, c.specials[t][0])
		}
	}
	for _, l := range c.opt.Evidence {
		if k, _ := orderOf(l.Pred); k != ordNone {
			if p := c.m.Pred(l.Pred); p != nil && seen[p.TypeIdx[0]] {
				return nil, fmt.Errorf("evidence on %s, a predicate of the linear order axiom: not supported", l.Pred)
			}
		}
	}
	return out, nil
}

// logOrders is log n! for every type with a linear order (n its size).
func (mod *Model) logOrders(n []int64) float64 {
	s := 0.0
	for _, t := range mod.ordered {
		v, _ := math.Lgamma(float64(n[t]) + 1)
		s += v
	}
	return s
}

// hasOrder says whether pb has a predicate of the linear order axiom.
func hasOrder(pb *problem) bool {
	for _, p := range pb.preds {
		if p.ord != ordNone {
			return true
		}
	}
	return false
}
