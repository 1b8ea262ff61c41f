package mln

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
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
// from. Without "+" or "*" m itself is returned. The result is built by
// printing and parsing again, so it is an MLN like any Parse returns;
// formulas without "+" or "*" keep their text and position, copies get the
// position of their formula.
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
	var b strings.Builder
	b.WriteString(m.Declarations())
	var copyOf []*Formula // the formula each printed line is a copy of
	total := 0
	for j, f := range m.Formulas {
		vars, stars := perConstantVars(f), starredAtoms(f)
		if len(vars) == 0 && len(stars) == 0 {
			b.WriteString(f.String() + "\n")
			origin = append(origin, j)
			copyOf = append(copyOf, f)
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
				g := *f
				g.Expr = substitute(f.Expr, sub, neg)
				b.WriteString(g.String() + "\n")
				origin = append(origin, j)
				copyOf = append(copyOf, nil)
			}
			for i := len(idx) - 1; i >= 0; i-- {
				if idx[i]++; idx[i] < len(doms[i]) {
					break
				}
				idx[i] = 0
			}
		}
	}
	out, err = Parse(m.sourceName()+" (expanded)", []byte(b.String()))
	if err != nil {
		return nil, nil, fmt.Errorf("expanding per-constant formulas and starred atoms: %w", err)
	}
	if len(out.Formulas) != len(origin) {
		return nil, nil, fmt.Errorf("expanding per-constant formulas and starred atoms: %d formulas, want %d", len(out.Formulas), len(origin))
	}
	out.Warnings = m.Warnings
	for k, g := range out.Formulas {
		f := m.Formulas[origin[k]]
		if copyOf[k] == nil && len(g.Vars) != len(f.Vars)-len(perConstantVars(f)) {
			// A constant that reads back as a variable (Alchemy constants
			// start with an upper-case letter, a digit or a quote).
			return nil, nil, fmt.Errorf("%s: formula %d (%s): a constant of a per-constant variable is not written like a constant: %s", f.Pos, origin[k]+1, f.Text, g.Text)
		}
		g.Pos = f.Pos
		if f := copyOf[k]; f != nil {
			g.Text = f.Text
		}
	}
	return out, origin, nil
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

// sourceName returns the file the MLN was read from, for messages.
func (m *MLN) sourceName() string {
	for _, f := range m.Formulas {
		if f.Pos.File != "" {
			return f.Pos.File
		}
	}
	return "mln"
}

// substitute returns a copy of e with the variables named in sub replaced
// by constants and the starred atoms unstarred, negated where neg says so.
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
		if c.Star {
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
		c.Body = substitute(e.Body, sub, neg)
		return &c
	case *Forall:
		c := *e
		c.Body = substitute(e.Body, sub, neg)
		return &c
	}
	panic(fmt.Sprintf("mln: substitute: unexpected %T", e))
}

func substituteTerm(t Term, sub map[string]string) Term {
	if t.IsVar {
		if c, ok := sub[t.Name]; ok {
			return Term{Name: c, Type: t.Type, Pos: t.Pos}
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
