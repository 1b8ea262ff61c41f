package mln

import (
	"fmt"
	"strings"

	"github.com/lifted-dev/lifted/internal/suggest"
	"github.com/lifted-dev/lifted/pos"
)

// This file type-checks one formula as it is added to a Builder, right
// after it is parsed (declarations must come before use, as in Alchemy):
//
//   - every atom names a declared predicate with the right number of
//     arguments, every function term a declared function;
//   - every variable gets exactly one type, from the argument positions it
//     occupies; "=" propagates types between its sides;
//   - constants join the domain of the type of their position (Alchemy does
//     this silently; a warning is recorded when the type was declared with an
//     explicit list);
//   - quantified variables must be used, must not shadow an enclosing
//     quantifier and must not also occur free in the same formula;
//   - "+x" only applies to free variables.

// binding is one variable of a formula: free, or bound by one quantifier.
type binding struct {
	v        *Var
	quant    bool
	used     bool
	typeCtx  string       // where the type came from, for messages
	typePos  pos.Position // …and where
	terms    []*Term      // occurrences, to receive the type
	inBadUse bool         // occurs in an atom that already has an error
}

type checker struct {
	b      *Builder
	f      *Formula
	active map[string]*binding // quantified, in scope
	free   map[string]*binding
	order  []*binding // free variables in order of first appearance
	bound  map[string]pos.Position
	eqs    []*Equal
	// settled holds quantified variables whose scope has been checked.
	settled []*binding
	// of maps each variable occurrence to its binding.
	of map[*Term]*binding
	// Atoms over unknown predicates, reported after inference so that the
	// message can suggest argument types.
	unknownAtoms []*Atom
}

func (b *Builder) checkFormula(f *Formula) {
	c := &checker{b: b, f: f, active: map[string]*binding{}, free: map[string]*binding{}, bound: map[string]pos.Position{}, of: map[*Term]*binding{}}
	c.walk(f.Expr)
	c.equalities()
	c.reportUnknown()
	c.finish()
}

func (c *checker) errorf(at pos.Position, format string, args ...any) *pos.Error {
	return c.b.Errorf(at, format, args...)
}

func (c *checker) walk(e Expr) {
	switch e := e.(type) {
	case *Atom:
		c.atom(e)
	case *Equal:
		c.term(&e.L, "", "")
		c.term(&e.R, "", "")
		c.eqs = append(c.eqs, e)
	case *Not:
		c.walk(e.X)
	case *And:
		c.walk(e.L)
		c.walk(e.R)
	case *Or:
		c.walk(e.L)
		c.walk(e.R)
	case *Implies:
		c.walk(e.L)
		c.walk(e.R)
	case *Iff:
		c.walk(e.L)
		c.walk(e.R)
	case *Exists:
		if e.Cmp != "" && e.K < 0 {
			c.errorf(e.Pos, "the bound of a counting quantifier must be at least 0, not %d", e.K)
		}
		c.quantified(e.Vars, e.Body, "EXIST")
	case *Forall:
		c.quantified(e.Vars, e.Body, "FORALL")
	case *Cardinality:
		if e != c.f.Expr || !c.f.Hard {
			c.errorf(e.Pos, "a linear cardinality constraint (%s) is a hard formula of its own", e)
		}
		for _, t := range e.Terms {
			switch d := c.b.m.Pred(t.Pred); {
			case d == nil:
				c.errorf(t.Pos, "unknown predicate %q in a cardinality constraint; declare it first", t.Pred)
			case len(d.ArgTypes) == 0:
				c.errorf(t.Pos, "a cardinality constraint needs a predicate with arguments; %s has none", t.Pred)
			}
		}
	}
}

func (c *checker) quantified(vars []*Var, body Expr, kw string) {
	var bs []*binding
	for _, v := range vars {
		if b, ok := c.active[v.Name]; ok {
			c.errorf(v.Pos, "variable %q is already quantified at %s in an enclosing scope; rename one of them", v.Name, relPos(v.Pos, b.v.Pos))
			continue
		}
		if b, ok := c.free[v.Name]; ok {
			c.errorf(v.Pos, "variable %q is used free at %s and quantified here in the same formula; rename the quantified one", v.Name, relPos(v.Pos, b.v.Pos))
			continue
		}
		dup := false
		for _, o := range bs {
			dup = dup || o.v.Name == v.Name
		}
		if dup {
			c.errorf(v.Pos, "variable %q is listed twice after %s", v.Name, kw)
			continue
		}
		b := &binding{v: v, quant: true}
		bs = append(bs, b)
		c.active[v.Name] = b
		c.bound[v.Name] = v.Pos
	}
	c.walk(body)
	for _, b := range bs {
		delete(c.active, b.v.Name)
		if !b.used {
			c.errorf(b.v.Pos, "variable %q is quantified by %s but not used in its scope; remove it from the list", b.v.Name, kw)
		}
		c.settle(b)
	}
}

func (c *checker) atom(a *Atom) {
	d := c.b.m.Pred(a.Pred)
	if d == nil {
		c.unknownAtoms = append(c.unknownAtoms, a)
		for i := range a.Args {
			c.term(&a.Args[i], "", "").markBad()
		}
		return
	}
	if len(a.Args) != len(d.ArgTypes) {
		c.errorf(a.Pos, "predicate %q takes %d argument%s but is given %d; it is declared as %s at %s",
			a.Pred, len(d.ArgTypes), plural(len(d.ArgTypes)), len(a.Args), d.String(), relPos(a.Pos, d.Pos))
		for i := range a.Args {
			c.term(&a.Args[i], "", "").markBad()
		}
		return
	}
	for i := range a.Args {
		c.term(&a.Args[i], d.ArgTypes[i], fmt.Sprintf("argument %d of %s", i+1, a.Pred))
	}
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// termResult lets callers flag the variables of a term.
type termResult struct{ bs []*binding }

func (r termResult) markBad() {
	for _, b := range r.bs {
		b.inBadUse = true
	}
}

// term checks one term occurring where a value of type want ("" if unknown)
// is expected; ctx describes the position for messages.
func (c *checker) term(t *Term, want, ctx string) termResult {
	switch {
	case t.Func:
		var res termResult
		fd := c.b.m.Func(t.Name)
		if fd == nil { // the parser rejects these; be safe for hand-built trees
			c.errorf(t.Pos, "unknown function %q", t.Name)
			for i := range t.Args {
				res.bs = append(res.bs, c.term(&t.Args[i], "", "").bs...)
			}
			return res
		}
		if len(t.Args) != len(fd.ArgTypes) {
			c.errorf(t.Pos, "function %q takes %d argument%s but is given %d; it is declared as %s",
				t.Name, len(fd.ArgTypes), plural(len(fd.ArgTypes)), len(t.Args), fd.String())
			for i := range t.Args {
				res.bs = append(res.bs, c.term(&t.Args[i], "", "").bs...)
			}
			res.markBad()
		} else {
			for i := range t.Args {
				res.bs = append(res.bs, c.term(&t.Args[i], fd.ArgTypes[i], fmt.Sprintf("argument %d of function %s", i+1, t.Name)).bs...)
			}
		}
		t.Type = fd.RetType
		if want != "" && want != fd.RetType {
			c.errorf(t.Pos, "function %q returns %s but %s has type %s", t.Name, fd.RetType, ctx, want)
		}
		return res
	case t.IsVar:
		b := c.resolve(t)
		b.used = true
		b.terms = append(b.terms, t)
		c.of[t] = b
		if t.PerConstant {
			if b.quant {
				c.errorf(t.Pos, "\"+%s\": a per-constant \"+\" cannot be used on a quantified variable", t.Name)
			} else {
				b.v.PerConstant = true
			}
		}
		if want != "" {
			c.setType(b, want, ctx, t.Pos)
		}
		return termResult{bs: []*binding{b}}
	default:
		if want != "" {
			t.Type = want
			c.addConstant(want, t.Name, t.Pos)
		}
		return termResult{}
	}
}

// resolve finds or creates the binding a variable occurrence refers to.
func (c *checker) resolve(t *Term) *binding {
	if b, ok := c.active[t.Name]; ok {
		return b
	}
	if b, ok := c.free[t.Name]; ok {
		return b
	}
	if at, ok := c.bound[t.Name]; ok {
		c.errorf(t.Pos, "variable %q is quantified at %s and used free here in the same formula; rename the quantified one", t.Name, relPos(t.Pos, at))
	}
	b := &binding{v: &Var{Name: t.Name, Pos: t.Pos}}
	c.free[t.Name] = b
	c.order = append(c.order, b)
	return b
}

func (c *checker) setType(b *binding, typ, ctx string, at pos.Position) {
	switch b.v.Type {
	case "":
		b.v.Type, b.typeCtx, b.typePos = typ, ctx, at
	case typ:
	default:
		c.errorf(at, "type clash for variable %q: it is %s (type %s) at %s and %s (type %s) here; a variable has a single type",
			b.v.Name, b.typeCtx, b.v.Type, relPos(at, b.typePos), ctx, typ)
	}
}

// addConstant adds a constant met in a formula to its type's domain.
func (c *checker) addConstant(typ, name string, at pos.Position) {
	td := c.b.m.Type(typ)
	if td == nil {
		return
	}
	if td.addConstant(name) && td.Declared {
		c.b.Warnf(at, "constant %s is not in the declared domain of type %q (declared at %s); it is added to the domain, as Alchemy does",
			name, typ, relPos(at, td.Pos))
	}
}

// typeOf returns the known type of a term in an equality.
func (c *checker) typeOf(t *Term) string {
	if t.IsVar {
		if b := c.lookup(t); b != nil {
			return b.v.Type
		}
	}
	return t.Type
}

// lookup finds the binding of an already resolved variable occurrence.
func (c *checker) lookup(t *Term) *binding { return c.of[t] }

// equalities propagates types across "=" until nothing changes.
func (c *checker) equalities() {
	if len(c.eqs) == 0 {
		return
	}
	done := make([]bool, len(c.eqs))
	for changed := true; changed; {
		changed = false
		for i, e := range c.eqs {
			if done[i] {
				continue
			}
			lt, rt := c.typeOf(&e.L), c.typeOf(&e.R)
			switch {
			case lt != "" && rt != "":
				if lt != rt {
					c.errorf(e.Pos, "cannot compare %s (type %s) with %s (type %s): both sides of = must have the same type", e.L.Name, lt, e.R.Name, rt)
				}
				done[i] = true
			case lt != "":
				c.give(&e.R, lt, e)
				done[i], changed = true, true
			case rt != "":
				c.give(&e.L, rt, e)
				done[i], changed = true, true
			}
		}
	}
	for i, e := range c.eqs {
		if done[i] || e.L.IsVar || e.R.IsVar {
			continue // untyped variables are reported by finish
		}
		// Two constants: use the one type that already contains one of them.
		if typ := c.b.uniqueTypeOf(e.L.Name, e.R.Name); typ != "" {
			c.give(&e.L, typ, e)
			c.give(&e.R, typ, e)
			continue
		}
		c.errorf(e.Pos, "cannot infer the type of %s = %s: neither side is a variable or constant of a known type", e.L.Name, e.R.Name)
	}
}

// give assigns typ to an untyped side of an equality.
func (c *checker) give(t *Term, typ string, e *Equal) {
	if t.IsVar {
		if b := c.lookup(t); b != nil {
			c.setType(b, typ, fmt.Sprintf("compared with %s", otherSide(e, t).Name), e.Pos)
		}
		return
	}
	t.Type = typ
	c.addConstant(typ, t.Name, t.Pos)
}

func otherSide(e *Equal, t *Term) *Term {
	if t == &e.L {
		return &e.R
	}
	return &e.L
}

// uniqueTypeOf returns the single type whose domain holds one of the
// constants, or "".
func (b *Builder) uniqueTypeOf(names ...string) string {
	found := ""
	for _, td := range b.m.Types {
		for _, n := range names {
			if _, ok := td.constIndex()[n]; ok {
				if found != "" && found != td.Name {
					return ""
				}
				found = td.Name
			}
		}
	}
	return found
}

func (c *checker) reportUnknown() {
	for _, a := range c.unknownAtoms {
		var types []string
		sugg := suggest.Closest(a.Pred, c.b.m.predNames())
		if d := c.b.m.Pred(sugg); d != nil && len(d.ArgTypes) == len(a.Args) {
			types = d.ArgTypes
		} else {
			for i := range a.Args {
				t := c.typeOf(&a.Args[i])
				if t == "" {
					t = fmt.Sprintf("type%d", i+1)
				}
				types = append(types, t)
			}
		}
		example := a.Pred
		if len(types) > 0 {
			example += "(" + strings.Join(types, ", ") + ")"
		}
		msg := fmt.Sprintf("unknown predicate %q; declare it, e.g. %s", a.Pred, example)
		if sugg != "" {
			msg += fmt.Sprintf(", or did you mean %q?", sugg)
		}
		e := c.errorf(a.Pos, "%s", msg)
		c.b.unknown = append(c.b.unknown, unknownUse{name: a.Pred, err: e})
	}
}

// settle records the final type of a quantified variable's occurrences.
func (c *checker) settle(b *binding) {
	c.settled = append(c.settled, b)
}

// finish reports untyped variables and fills in types and Formula.Vars.
func (c *checker) finish() {
	all := append(append([]*binding(nil), c.order...), c.settled...)
	for _, b := range all {
		if b.v.Type == "" && !b.inBadUse && b.used {
			c.errorf(b.v.Pos, "cannot infer the type of variable %q: it is not an argument of any predicate; use it in an atom or compare it with a typed term", b.v.Name)
		}
		for _, t := range b.terms {
			t.Type = b.v.Type
		}
	}
	c.f.Vars = make([]*Var, len(c.order))
	for i, b := range c.order {
		c.f.Vars[i] = b.v
	}
}

// predNames returns the names of the predicates in order.
func (m *MLN) predNames() []string {
	names := make([]string, len(m.Preds))
	for i, d := range m.Preds {
		names[i] = d.Name
	}
	return names
}
