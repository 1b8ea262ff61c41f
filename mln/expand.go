package mln

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/lifted-dev/lifted/pos"
)

// MaxExpandedFormulas bounds the formulas Expand may create.
const MaxExpandedFormulas = 1 << 20

// MaxStarredAtoms bounds the starred atoms of one formula (2^10 sign
// combinations), as in grounding.
const MaxStarredAtoms = 10

// Expand returns m with every formula that has per-constant variables
// ("+x") or starred atoms ("*P(x)") replaced by its copies — one per
// combination of constants of the "+" variables, the variables substituted,
// and one per sign combination of the starred atoms (each written plain or
// negated) — which is what Alchemy does before it learns weights, so that
// each copy gets a weight of its own. A copy keeps the weight (or
// hardness) of its formula, so the expanded model with those weights is
// the model m describes; its Text is the copy as this package prints it,
// e.g. "Smokes(Anna) => Cancer(Anna)" for "Smokes(+x) => Cancer(x)".
//
// domain returns the constants of a type (for learning: the union over the
// training databases); nil means the constants m knows. origin[k] is the
// index in m.Formulas of the formula the k-th formula of the result comes
// from. Without "+" or "*" m itself is returned. The result is built and
// checked by a Builder, as a reader of its printout would build it, so it
// is an MLN like any parsed one; formulas without "+" or "*" keep their
// text, copies get their printed text; every formula keeps the positions
// of the formula it comes from.
func Expand(m *MLN, domain func(typ string) []string) (out *MLN, origin []int, err error) {
	if domain == nil {
		domain = func(typ string) []string {
			if t := m.Type(typ); t != nil {
				return t.Constants
			}
			return nil
		}
	}
	any := false
	for _, f := range m.Formulas {
		if len(perConstantVars(f)) > 0 || len(starredAtoms(f)) > 0 {
			any = true
		}
	}
	if !any {
		origin = make([]int, len(m.Formulas))
		for j := range origin {
			origin[j] = j
		}
		return m, origin, nil
	}
	b := declarationsOf(m, false)
	total := 0
	for j, f := range m.Formulas {
		vars, stars := perConstantVars(f), starredAtoms(f)
		if len(vars) == 0 && len(stars) == 0 {
			b.AddFormula(copyFormula(f, substitute(f.Expr, nil, nil)))
			origin = append(origin, j)
			continue
		}
		if len(stars) > MaxStarredAtoms {
			return nil, nil, fmt.Errorf("%s: formula %d (%s) has %d starred atoms; at most %d are supported (2^%d sign combinations)", f.Pos, j+1, f.Text, len(stars), MaxStarredAtoms, MaxStarredAtoms)
		}
		doms := make([][]string, len(vars))
		n := 1 << len(stars)
		for i, v := range vars {
			doms[i] = domain(v.Type)
			for _, c := range doms[i] {
				if !looksLikeConstant(c) {
					return nil, nil, fmt.Errorf("%s: formula %d (%s): constant %q of +%s is not written like a constant (upper-case initial, integer or quoted string), so it cannot name a formula copy", f.Pos, j+1, f.Text, c, v.Name)
				}
			}
			n *= len(doms[i])
			if n > MaxExpandedFormulas {
				break
			}
		}
		if total += n; total > MaxExpandedFormulas {
			return nil, nil, fmt.Errorf("%s: formula %d (%s): per-constant variables and starred atoms would make more than %d formulas", f.Pos, j+1, f.Text, MaxExpandedFormulas)
		}
		idx := make([]int, len(vars))
		for k := 0; k < n>>len(stars); k++ {
			sub := map[string]string{}
			for i, v := range vars {
				sub[v.Name] = doms[i][idx[i]]
			}
			for signs := 0; signs < 1<<len(stars); signs++ {
				neg := map[*Atom]bool{}
				for i, a := range stars {
					neg[a] = signs>>i&1 == 1
				}
				g := copyFormula(f, substitute(f.Expr, sub, neg))
				g.Text = g.bodyString()
				b.AddFormula(g)
				origin = append(origin, j)
			}
			for i := len(idx) - 1; i >= 0; i-- {
				if idx[i]++; idx[i] < len(doms[i]) {
					break
				}
				idx[i] = 0
			}
		}
	}
	out, err = b.Finish()
	if err != nil {
		return nil, nil, fmt.Errorf("expanding per-constant formulas and starred atoms: %w", err)
	}
	out.Warnings = m.Warnings
	return out, origin, nil
}

// declarationsOf returns a Builder holding the declarations of m, made in
// the order m.Declarations prints them (declared types, functions, then
// predicates; so the types come in the order a reader of that printout
// makes them), at m's positions. With noMutex the predicates lose their
// "!" arguments.
func declarationsOf(m *MLN, noMutex bool) *Builder {
	b := NewBuilder()
	for _, t := range m.Types {
		if t.Declared {
			b.DeclareType(t.Name, t.Pos, t.Constants[:t.NumDeclared])
		}
	}
	typeAt := func(types []string) []pos.Position {
		at := make([]pos.Position, len(types))
		for i, t := range types {
			if td := m.Type(t); td != nil {
				at[i] = td.Pos
			}
		}
		return at
	}
	for _, d := range m.Funcs {
		b.DeclareFunc(&FuncDecl{Name: d.Name, RetType: d.RetType, ArgTypes: slices.Clone(d.ArgTypes), Pos: d.Pos}, typeAt(d.ArgTypes))
	}
	for _, d := range m.Preds {
		c := &PredDecl{Name: d.Name, ArgTypes: slices.Clone(d.ArgTypes), MutexArgs: slices.Clone(d.MutexArgs), ClosedWorld: d.ClosedWorld, Pos: d.Pos}
		if noMutex {
			c.MutexArgs = nil
		}
		b.DeclarePred(c, typeAt(d.ArgTypes))
	}
	// An open type keeps the position where m first names it.
	for _, t := range b.m.Types {
		if td := m.Type(t.Name); td != nil {
			t.Pos = td.Pos
		}
	}
	return b
}

// copyFormula returns a formula with f's weight, text and position and the
// expression e, to be checked by a Builder.
func copyFormula(f *Formula, e Expr) *Formula {
	return &Formula{Weight: f.Weight, HasWeight: f.HasWeight, Hard: f.Hard, FixedWeight: f.FixedWeight, Expr: e, Text: f.Text, Pos: f.Pos}
}

// starredAtoms returns the starred atoms of f in order of appearance.
func starredAtoms(f *Formula) []*Atom {
	var out []*Atom
	Inspect(f.Expr, func(e Expr) bool {
		if a, ok := e.(*Atom); ok && a.Star {
			out = append(out, a)
		}
		return true
	})
	return out
}

// looksLikeConstant reports whether c reads back as a constant in a formula.
func looksLikeConstant(c string) bool {
	r, _ := utf8.DecodeRuneInString(strings.TrimPrefix(c, "-"))
	return unicode.IsUpper(r) || unicode.IsDigit(r) || r == '"'
}

// perConstantVars returns the free variables of f written "+x".
func perConstantVars(f *Formula) []*Var {
	var vs []*Var
	for _, v := range f.Vars {
		if v.PerConstant {
			vs = append(vs, v)
		}
	}
	return vs
}

// substitute returns a copy of e as written, for a Builder to check again
// (terms and quantified variables untyped), with the variables named in
// sub replaced by constants and the starred atoms that are keys of neg
// unstarred, negated where neg says so.
func substitute(e Expr, sub map[string]string, neg map[*Atom]bool) Expr {
	term := func(t Term) Term { return substituteTerm(t, sub) }
	terms := func(ts []Term) []Term {
		out := make([]Term, len(ts))
		for i, t := range ts {
			out[i] = term(t)
		}
		return out
	}
	switch e := e.(type) {
	case *Atom:
		c := *e
		c.Args = terms(e.Args)
		if _, ok := neg[e]; ok && c.Star {
			c.Star = false
			if neg[e] {
				return &Not{X: &c, Pos: e.Pos}
			}
		}
		return &c
	case *Equal:
		c := *e
		c.L, c.R = term(e.L), term(e.R)
		return &c
	case *Not:
		c := *e
		c.X = substitute(e.X, sub, neg)
		return &c
	case *And:
		c := *e
		c.L, c.R = substitute(e.L, sub, neg), substitute(e.R, sub, neg)
		return &c
	case *Or:
		c := *e
		c.L, c.R = substitute(e.L, sub, neg), substitute(e.R, sub, neg)
		return &c
	case *Implies:
		c := *e
		c.L, c.R = substitute(e.L, sub, neg), substitute(e.R, sub, neg)
		return &c
	case *Iff:
		c := *e
		c.L, c.R = substitute(e.L, sub, neg), substitute(e.R, sub, neg)
		return &c
	case *Exists:
		c := *e
		c.Vars, c.Body = untypedVars(e.Vars), substitute(e.Body, sub, neg)
		return &c
	case *Forall:
		c := *e
		c.Vars, c.Body = untypedVars(e.Vars), substitute(e.Body, sub, neg)
		return &c
	case *Cardinality:
		return e // no variables
	}
	panic(fmt.Sprintf("mln: substitute: unexpected %T", e))
}

// untypedVars copies quantified variables as written.
func untypedVars(vs []*Var) []*Var {
	out := make([]*Var, len(vs))
	for i, v := range vs {
		out[i] = &Var{Name: v.Name, Pos: v.Pos}
	}
	return out
}

func substituteTerm(t Term, sub map[string]string) Term {
	t.Type = ""
	if t.Succ {
		if c, ok := sub["succ("+t.Name+")"]; ok {
			return Term{Name: c, Pos: t.Pos}
		}
		return t
	}
	if t.IsVar {
		if c, ok := sub[t.Name]; ok {
			return Term{Name: c, Pos: t.Pos}
		}
		return t
	}
	if t.Func {
		args := make([]Term, len(t.Args))
		for i, a := range t.Args {
			args[i] = substituteTerm(a, sub)
		}
		t.Args = args
	}
	return t
}
