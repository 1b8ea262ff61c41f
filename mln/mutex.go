package mln

import (
	"fmt"
	"slices"
	"strings"
)

// MutexAsFormulas returns m with the mutual exclusion of every predicate
// declared with "!" arguments written as a hard formula and the "!"
// dropped from the declaration: for Has(person, color!),
//
//	(EXIST u1 Has(o0,u1)) ^ (FORALL u1,v1 (Has(o0,u1) ^ Has(o0,v1) => (u1 = v1))).
//
// (at least one and at most one colour per person: exactly one). The
// distribution is the same; code that handles hard formulas and
// quantifiers but not "!" can then use the model. Expanded over the
// colours, each ground formula is one "exactly one" constraint on a block,
// as grounding builds it for "!" (a conjunction of an "at least one" clause
// and pairwise "at most one" clauses would make BP's graph loopy). The
// formulas come after m's formulas, so formula k of m is formula k of the
// result; added is their number (one per such predicate). m itself is
// returned when no predicate has "!" arguments.
func MutexAsFormulas(m *MLN) (out *MLN, added int, err error) {
	var from []*PredDecl // the declarations with "!" arguments
	for _, p := range m.Preds {
		if len(p.MutexArgs) > 0 {
			from = append(from, p)
		}
	}
	if len(from) == 0 {
		return m, 0, nil
	}
	b := declarationsOf(m, true) // the declarations without "!"
	for _, f := range m.Formulas {
		b.AddFormula(copyFormula(f, substitute(f.Expr, nil, nil)))
	}
	for _, p := range from {
		b.AddFormula(mutexFormula(p))
	}
	out, err = b.Finish()
	if err != nil {
		return nil, 0, fmt.Errorf("writing mutual exclusion as formulas: %w", err)
	}
	out.Warnings = m.Warnings
	return out, len(from), nil
}

// mutexFormula returns the hard formula that says what the "!" arguments
// of p say, as written in its Text, at the position of the declaration
// (messages about it point there).
func mutexFormula(p *PredDecl) *Formula {
	at := p.Pos
	isMutex := make([]bool, p.Arity())
	for _, a := range p.MutexArgs {
		isMutex[a] = true
	}
	// Variable names cannot clash with anything: a formula of its own.
	var one, two, us, vs []string
	for i := range p.ArgTypes {
		if isMutex[i] {
			u, v := fmt.Sprintf("u%d", i), fmt.Sprintf("v%d", i)
			one, two = append(one, u), append(two, v)
			us, vs = append(us, u), append(vs, v)
		} else {
			o := fmt.Sprintf("o%d", i)
			one, two = append(one, o), append(two, o)
		}
	}
	variable := func(name string) Term { return Term{Name: name, IsVar: true, Pos: at} }
	atom := func(args []string) *Atom {
		a := &Atom{Pred: p.Name, Pos: at}
		for _, n := range args {
			a.Args = append(a.Args, variable(n))
		}
		return a
	}
	vars := func(names ...[]string) []*Var {
		var out []*Var
		for _, ns := range names {
			for _, n := range ns {
				out = append(out, &Var{Name: n, Pos: at})
			}
		}
		return out
	}
	// (EXIST us A) ^ (FORALL us,vs (A ^ B => (u = v ^ ...)))
	var eq Expr
	for i := range us {
		e := &Equal{L: variable(us[i]), R: variable(vs[i]), Pos: at}
		if eq == nil {
			eq = e
		} else {
			eq = &And{L: eq, R: e, OpPos: at}
		}
	}
	expr := &And{
		L:     &Exists{Vars: vars(us), Body: atom(one), Pos: at},
		R:     &Forall{Vars: vars(us, vs), Body: &Implies{L: &And{L: atom(one), R: atom(two), OpPos: at}, R: eq, OpPos: at}, Pos: at},
		OpPos: at,
	}
	a, b := p.Name+"("+strings.Join(one, ",")+")", p.Name+"("+strings.Join(two, ",")+")"
	eqs := make([]string, len(us))
	for i := range us {
		eqs[i] = us[i] + " = " + vs[i]
	}
	text := "(EXIST " + strings.Join(us, ",") + " " + a + ") ^ (FORALL " + strings.Join(append(slices.Clone(us), vs...), ",") + " (" + a + " ^ " + b + " => (" + strings.Join(eqs, " ^ ") + ")))"
	return &Formula{Hard: true, Expr: expr, Text: text + " (from " + p.String() + ")", Pos: at}
}
