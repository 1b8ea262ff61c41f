package mln

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/lifted-dev/lifted/pos"
)

// HasSuccessors reports whether a formula of m uses a successor term
// (t++, t+1, succ(t)).
func HasSuccessors(m *MLN) bool {
	return CheckStatic(m) != nil
}

// StaticSuccessors gives LoMRF's static meaning to successor terms: in
// LoMRF, "t++" is the built-in function t+1 over an integer domain, and a
// grounding whose t+1 is not in the domain does not exist. The MLN
// returned has, for each type T whose variables take successors, a
// closed-world predicate Successor_T(T, T) (PredDecl.Successor) that
// AddSuccessorEvidence makes true exactly for the pairs (i, i+1) of the
// domain, and each formula F with successor terms of its free variables
// t1, …, tk becomes
//
//	!Successor_T(t1, u1) v … v !Successor_T(tk, uk) v F[ui/ti++]
//
// as the grounder treats Alchemy functions (LoMRF's semantics): bindings
// without a successor give a true ground formula, which shifts log Z by a
// constant and leaves the distribution alone. A successor of a quantified
// variable is left as it is (CheckStatic reports it). m is not modified.
func StaticSuccessors(m *MLN) (*MLN, error) {
	b := NewBuilder()
	for _, t := range m.Types {
		if t.Declared {
			b.DeclareType(t.Name, t.Pos, t.Constants[:t.NumDeclared])
		}
	}
	for _, d := range m.Funcs {
		b.DeclareFunc(&FuncDecl{Name: d.Name, RetType: d.RetType, ArgTypes: slices.Clone(d.ArgTypes), Pos: d.Pos}, samePos(len(d.ArgTypes), d.Pos))
	}
	for _, d := range m.Preds {
		b.DeclarePred(&PredDecl{Name: d.Name, ArgTypes: slices.Clone(d.ArgTypes), MutexArgs: slices.Clone(d.MutexArgs), ClosedWorld: d.ClosedWorld, Successor: d.Successor, Pos: d.Pos}, samePos(len(d.ArgTypes), d.Pos))
	}
	succPred := map[string]string{} // type → predicate name
	predFor := func(typ string, at Term) string {
		if p, ok := succPred[typ]; ok {
			return p
		}
		name := "Successor_" + typ
		for m.Pred(name) != nil || b.m.Pred(name) != nil && !b.m.Pred(name).Successor {
			name += "_"
		}
		if b.m.Pred(name) == nil {
			b.DeclarePred(&PredDecl{Name: name, ArgTypes: []string{typ, typ}, ClosedWorld: true, Successor: true, Pos: at.Pos}, samePos(2, at.Pos))
		}
		succPred[typ] = name
		return name
	}
	for _, f := range m.Formulas {
		free := map[string]string{} // free variable → type
		names := map[string]bool{}
		for _, v := range f.Vars {
			free[v.Name] = v.Type
			names[v.Name] = true
		}
		Inspect(f.Expr, func(e Expr) bool {
			switch e := e.(type) {
			case *Exists:
				for _, v := range e.Vars {
					names[v.Name] = true
				}
			case *Forall:
				for _, v := range e.Vars {
					names[v.Name] = true
				}
			}
			return true
		})
		next := map[string]string{} // t → u
		var order []string
		var at []Term
		var fix func(t Term) Term
		fix = func(t Term) Term {
			if t.Func {
				args := make([]Term, len(t.Args))
				for i, a := range t.Args {
					args[i] = fix(a)
				}
				t.Args = args
				return t
			}
			if !t.Succ {
				return t
			}
			if _, ok := free[t.Name]; !ok {
				return t
			}
			u, ok := next[t.Name]
			if !ok {
				u = t.Name + "_next"
				for names[u] {
					u += "_"
				}
				names[u] = true
				next[t.Name] = u
				order = append(order, t.Name)
				at = append(at, t)
			}
			return Term{Name: u, IsVar: true, Pos: t.Pos}
		}
		e := substitute(f.Expr, nil, nil)
		Inspect(e, func(x Expr) bool {
			switch x := x.(type) {
			case *Atom:
				for i := range x.Args {
					x.Args[i] = fix(x.Args[i])
				}
			case *Equal:
				x.L, x.R = fix(x.L), fix(x.R)
			}
			return true
		})
		if len(order) == 0 {
			b.AddFormula(copyFormula(f, e))
			continue
		}
		for i := len(order) - 1; i >= 0; i-- {
			t := order[i]
			p := predFor(free[t], at[i])
			guard := &Not{X: &Atom{Pred: p, Args: []Term{{Name: t, IsVar: true, Pos: at[i].Pos}, {Name: next[t], IsVar: true, Pos: at[i].Pos}}, Pos: at[i].Pos}, Pos: at[i].Pos}
			e = &Or{L: guard, R: e, OpPos: at[i].Pos}
		}
		b.AddFormula(copyFormula(f, e))
	}
	out, err := b.Finish()
	if err != nil {
		return nil, fmt.Errorf("LoMRF's successor terms: %w", err)
	}
	out.Warnings = m.Warnings
	out.Dialect = m.Dialect
	return out, nil
}

// AddSuccessorEvidence adds to db, for every successor predicate of its
// MLN (see StaticSuccessors), the true atoms (i, i+1) of the integer
// constants of its type's domain. Call it once the evidence is read.
func AddSuccessorEvidence(db *DB) error {
	for _, d := range db.m.Preds {
		if !d.Successor {
			continue
		}
		dom := db.Domain(d.ArgTypes[0])
		have := map[int64]string{}
		for _, c := range dom {
			if n, err := strconv.ParseInt(c, 10, 64); err == nil {
				have[n] = c
			}
		}
		for n, c := range have {
			if c1, ok := have[n+1]; ok {
				if err := db.AddAtom(d.Name, []string{c, c1}, True); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func samePos(n int, p pos.Position) []pos.Position {
	out := make([]pos.Position, n)
	for i := range out {
		out[i] = p
	}
	return out
}
