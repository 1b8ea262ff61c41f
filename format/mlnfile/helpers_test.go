package mlnfile

import (
	"fmt"
	"sort"
	"strings"

	"github.com/lifted-dev/lifted/mln"
)

// dumpExpr renders e as a fully parenthesized S-expression including term
// flags and types, so that two trees compare equal iff their dumps do
// (positions aside).
func dumpExpr(e mln.Expr) string {
	var b strings.Builder
	var rec func(mln.Expr)
	bin := func(op string, l, r mln.Expr) {
		b.WriteString("(" + op + " ")
		rec(l)
		b.WriteByte(' ')
		rec(r)
		b.WriteByte(')')
	}
	quant := func(op string, vs []*mln.Var, body mln.Expr) {
		b.WriteString("(" + op + " [")
		for i, v := range vs {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(dumpVar(v))
		}
		b.WriteString("] ")
		rec(body)
		b.WriteByte(')')
	}
	rec = func(e mln.Expr) {
		switch e := e.(type) {
		case *mln.Atom:
			if e.Star {
				b.WriteByte('*')
			}
			b.WriteString(e.Pred + "[")
			for i, t := range e.Args {
				if i > 0 {
					b.WriteByte(' ')
				}
				b.WriteString(dumpTerm(t))
			}
			b.WriteByte(']')
		case *mln.Equal:
			b.WriteString("(= " + dumpTerm(e.L) + " " + dumpTerm(e.R) + ")")
		case *mln.Not:
			b.WriteString("(! ")
			rec(e.X)
			b.WriteByte(')')
		case *mln.And:
			bin("^", e.L, e.R)
		case *mln.Or:
			bin("v", e.L, e.R)
		case *mln.Implies:
			bin("=>", e.L, e.R)
		case *mln.Iff:
			bin("<=>", e.L, e.R)
		case *mln.Exists:
			quant("E"+e.Cmp+map[bool]string{true: fmt.Sprint(e.K)}[e.Cmp != ""], e.Vars, e.Body)
		case *mln.Forall:
			quant("A", e.Vars, e.Body)
		default:
			fmt.Fprintf(&b, "?%T", e)
		}
	}
	rec(e)
	return b.String()
}

func dumpVar(v *mln.Var) string {
	s := v.Name + ":" + v.Type
	if v.PerConstant {
		s = "+" + s
	}
	return s
}

func dumpTerm(t mln.Term) string {
	s := t.Name
	switch {
	case t.Func:
		var args []string
		for _, a := range t.Args {
			args = append(args, dumpTerm(a))
		}
		s += "(" + strings.Join(args, " ") + ")"
	case t.IsVar:
		s = "?" + s
	}
	if t.PerConstant {
		s = "+" + s
	}
	return s + ":" + t.Type
}

// dumpFormula renders everything about a formula except positions and Text.
func dumpFormula(f *mln.Formula) string {
	var vs []string
	for _, v := range f.Vars {
		vs = append(vs, dumpVar(v))
	}
	return fmt.Sprintf("w=%v has=%v hard=%v fixed=%v vars=[%s] %s",
		f.Weight, f.HasWeight, f.Hard, f.FixedWeight, strings.Join(vs, " "), dumpExpr(f.Expr))
}

// dumpMLN renders an MLN without positions, Text and warnings. Types are
// sorted by name: their order in MLN.Types depends on where they are first
// mentioned, which printing may change.
func dumpMLN(m *mln.MLN) string {
	var b strings.Builder
	types := append([]*mln.TypeDecl(nil), m.Types...)
	sort.Slice(types, func(i, j int) bool { return types[i].Name < types[j].Name })
	for _, t := range types {
		fmt.Fprintf(&b, "type %s declared=%v n=%d {%s}\n", t.Name, t.Declared, t.NumDeclared, strings.Join(t.Constants, ","))
	}
	for _, d := range m.Preds {
		fmt.Fprintf(&b, "pred %s mutex=%d %v cw=%v\n", d.String(), d.MutexArg, d.MutexArgs, d.ClosedWorld)
	}
	for _, d := range m.Funcs {
		fmt.Fprintf(&b, "func %s\n", d.String())
	}
	for _, f := range m.Formulas {
		b.WriteString(dumpFormula(f))
		b.WriteByte('\n')
	}
	return b.String()
}
