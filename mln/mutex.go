package mln

import (
	"fmt"
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
	var extra []string
	var from []*PredDecl // the declaration each extra formula comes from
	for _, p := range m.Preds {
		if len(p.MutexArgs) == 0 {
			continue
		}
		isMutex := make([]bool, p.Arity())
		for _, a := range p.MutexArgs {
			isMutex[a] = true
		}
		// Variable names cannot clash with anything: a formula of its own.
		var one, two, eq, exist []string
		for i := range p.ArgTypes {
			if isMutex[i] {
				u, v := fmt.Sprintf("u%d", i), fmt.Sprintf("v%d", i)
				one, two = append(one, u), append(two, v)
				exist = append(exist, u)
				eq = append(eq, u+" = "+v)
			} else {
				o := fmt.Sprintf("o%d", i)
				one, two = append(one, o), append(two, o)
			}
		}
		a := p.Name + "(" + strings.Join(one, ",") + ")"
		b := p.Name + "(" + strings.Join(two, ",") + ")"
		all := strings.Join(exist, ",")
		for i := range exist {
			all += "," + strings.Replace(exist[i], "u", "v", 1)
		}
		extra = append(extra, "(EXIST "+strings.Join(exist, ",")+" "+a+") ^ (FORALL "+all+" ("+a+" ^ "+b+" => ("+strings.Join(eq, " ^ ")+"))).")
		from = append(from, p)
	}
	if len(extra) == 0 {
		return m, 0, nil
	}
	plain := *m // the declarations without "!"
	plain.Preds = make([]*PredDecl, len(m.Preds))
	for i, d := range m.Preds {
		c := *d
		c.MutexArgs, c.MutexArg = nil, -1
		plain.Preds[i] = &c
	}
	var src strings.Builder
	src.WriteString(plain.Declarations())
	for _, f := range m.Formulas {
		src.WriteString(f.String() + "\n")
	}
	for _, e := range extra {
		src.WriteString(e + "\n")
	}
	out, err = Parse(m.sourceName()+" (mutual exclusion as formulas)", []byte(src.String()))
	if err != nil {
		return nil, 0, fmt.Errorf("writing mutual exclusion as formulas: %w", err)
	}
	if len(out.Formulas) != len(m.Formulas)+len(extra) {
		return nil, 0, fmt.Errorf("writing mutual exclusion as formulas: %d formulas, want %d", len(out.Formulas), len(m.Formulas)+len(extra))
	}
	out.Warnings = m.Warnings
	for k, f := range m.Formulas {
		out.Formulas[k].Text, out.Formulas[k].Pos = f.Text, f.Pos
	}
	// Messages about the extra formulas point at the declaration.
	for i, p := range from {
		f := out.Formulas[len(m.Formulas)+i]
		f.Text += " (from " + p.String() + ")"
		f.Pos = p.Pos
	}
	return out, len(extra), nil
}
