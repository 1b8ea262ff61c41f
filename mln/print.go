package mln

import (
	"strconv"
	"strings"
)

// Printing produces Alchemy syntax that package format/mlnfile parses back to an equal
// tree (positions and Formula.Text aside). Parentheses are added where
// precedence or Alchemy's left associativity requires them, around every
// quantifier that is an operand, and around nested => and <=> so that
// readers with other associativity conventions agree.

// precedence levels
const (
	precIff = 1 + iota
	precImplies
	precOr
	precAnd
	precUnary
)

func prec(e Expr) int {
	switch e.(type) {
	case *Iff:
		return precIff
	case *Implies:
		return precImplies
	case *Or:
		return precOr
	case *And:
		return precAnd
	case *Exists, *Forall:
		return 0
	}
	return precUnary
}

func isQuant(e Expr) bool {
	switch e.(type) {
	case *Exists, *Forall:
		return true
	}
	return false
}

func isArrow(e Expr) bool {
	switch e.(type) {
	case *Iff, *Implies:
		return true
	}
	return false
}

func writeExpr(b *strings.Builder, e Expr) {
	switch e := e.(type) {
	case *Atom:
		if e.Star {
			b.WriteByte('*')
		}
		b.WriteString(e.Pred)
		if len(e.Args) > 0 {
			b.WriteByte('(')
			writeTerms(b, e.Args)
			b.WriteByte(')')
		}
	case *Equal:
		writeTerm(b, e.L)
		b.WriteString(" = ")
		writeTerm(b, e.R)
	case *Not:
		b.WriteByte('!')
		switch e.X.(type) {
		case *Atom, *Not:
			writeExpr(b, e.X)
		default:
			b.WriteByte('(')
			writeExpr(b, e.X)
			b.WriteByte(')')
		}
	case *And:
		writeBinary(b, e.L, e.R, " ^ ", precAnd)
	case *Or:
		writeBinary(b, e.L, e.R, " v ", precOr)
	case *Implies:
		writeBinary(b, e.L, e.R, " => ", precImplies)
	case *Iff:
		writeBinary(b, e.L, e.R, " <=> ", precIff)
	case *Exists:
		writeQuant(b, "EXIST"+e.Cmp+countText(e)+" ", e.Vars, e.Body)
	case *Forall:
		writeQuant(b, "FORALL ", e.Vars, e.Body)
	case *Cardinality:
		b.WriteString(e.String())
	}
}

func writeBinary(b *strings.Builder, l, r Expr, op string, p int) {
	arrow := p <= precImplies
	lp := prec(l) < p || isQuant(l) || arrow && isArrow(l)
	rp := prec(r) <= p || isQuant(r) || arrow && isArrow(r)
	writeOperand(b, l, lp)
	b.WriteString(op)
	writeOperand(b, r, rp)
}

func writeOperand(b *strings.Builder, e Expr, paren bool) {
	if paren {
		b.WriteByte('(')
	}
	writeExpr(b, e)
	if paren {
		b.WriteByte(')')
	}
}

func writeQuant(b *strings.Builder, kw string, vars []*Var, body Expr) {
	b.WriteString(kw)
	for i, v := range vars {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(v.Name)
	}
	b.WriteByte(' ')
	writeExpr(b, body)
}

func writeTerms(b *strings.Builder, ts []Term) {
	for i, t := range ts {
		if i > 0 {
			b.WriteByte(',')
		}
		writeTerm(b, t)
	}
}

func writeTerm(b *strings.Builder, t Term) {
	if t.PerConstant {
		b.WriteByte('+')
	}
	if t.Succ {
		b.WriteString("succ(")
		b.WriteString(t.Name)
		b.WriteByte(')')
		return
	}
	b.WriteString(t.Name)
	if t.Func {
		b.WriteByte('(')
		writeTerms(b, t.Args)
		b.WriteByte(')')
	}
}

func exprString(e Expr) string {
	var b strings.Builder
	writeExpr(&b, e)
	return b.String()
}

// String prints the atom, e.g. "Friends(x,Anna)" or "*Smokes(x)".
func (e *Atom) String() string { return exprString(e) }

// String prints "l = r".
func (e *Equal) String() string { return exprString(e) }

// String prints "!x" or "!(…)".
func (e *Not) String() string { return exprString(e) }

// String prints "l ^ r".
func (e *And) String() string { return exprString(e) }

// String prints "l v r".
func (e *Or) String() string { return exprString(e) }

// String prints "l => r".
func (e *Implies) String() string { return exprString(e) }

// String prints "l <=> r".
func (e *Iff) String() string { return exprString(e) }

// countText is the bound of a counting quantifier ("" for a plain EXIST).
func countText(e *Exists) string {
	if e.Cmp == "" {
		return ""
	}
	return strconv.Itoa(e.K)
}

// String prints "EXIST x,y body", or "EXIST=k y body" for a counting
// quantifier.
func (e *Exists) String() string { return exprString(e) }

// String prints "FORALL x,y body".
func (e *Forall) String() string { return exprString(e) }

// String prints the term: "x", "+x", "Anna", "\"Carl Smith\"", "f(x,B)".
func (t Term) String() string {
	var b strings.Builder
	writeTerm(&b, t)
	return b.String()
}

// FormatWeight prints a weight the way this package writes it: the shortest
// decimal that parses back to the same float64.
func FormatWeight(w float64) string {
	return strconv.FormatFloat(w, 'g', -1, 64)
}

// String prints the formula as one .mln statement: "1.5 F", "F." or "F"
// (weight to learn), or "@1.5 F" for a Tuffy fixed weight.
func (f *Formula) String() string {
	var b strings.Builder
	if f.HasWeight {
		if f.FixedWeight {
			b.WriteByte('@')
		}
		b.WriteString(FormatWeight(f.Weight))
		b.WriteByte(' ')
	}
	f.writeBody(&b)
	if f.Hard {
		b.WriteByte('.')
	}
	return b.String()
}

// writeBody prints the formula without its weight and period.
func (f *Formula) writeBody(b *strings.Builder) {
	// A bare unit formula such as "Smokes(person)" would read back as a
	// (repeated) predicate declaration; parentheses keep it a formula.
	_, unit := f.Expr.(*Atom)
	writeOperand(b, f.Expr, unit && !f.HasWeight && !f.Hard)
}

// bodyString is the formula as String prints it, without its weight and
// period: the Text a parser gives the printed formula.
func (f *Formula) bodyString() string {
	var b strings.Builder
	f.writeBody(&b)
	return b.String()
}

// String prints the declaration, e.g. "Has(person,value!)" or "*Friends(person,person)".
func (d *PredDecl) String() string {
	var b strings.Builder
	if d.ClosedWorld {
		b.WriteByte('*')
	}
	b.WriteString(d.Name)
	if len(d.ArgTypes) > 0 {
		b.WriteByte('(')
		for i, t := range d.ArgTypes {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(t)
			for _, m := range d.MutexArgs {
				if m == i {
					b.WriteByte('!')
				}
			}
		}
		b.WriteByte(')')
	}
	return b.String()
}

// String prints the declaration, e.g. "person motherOf(person)".
func (d *FuncDecl) String() string {
	return d.RetType + " " + d.Name + "(" + strings.Join(d.ArgTypes, ", ") + ")"
}

// String prints the declaration with its declared constants, e.g.
// "person = {Anna, Bob}" or "time = {0,...,9}". Constants that only
// formulas add are left out (formulas add them again when read back). An
// open type (Declared false) prints as "" since it has no declaration.
func (d *TypeDecl) String() string {
	if !d.Declared {
		return ""
	}
	cs := d.Constants[:d.NumDeclared]
	if isIntRange(cs) {
		return d.Name + " = {" + cs[0] + ",...," + cs[len(cs)-1] + "}"
	}
	return d.Name + " = {" + strings.Join(cs, ", ") + "}"
}

// isIntRange reports whether cs are at least three consecutive integers.
func isIntRange(cs []string) bool {
	if len(cs) < 3 {
		return false
	}
	first, err := strconv.ParseInt(cs[0], 10, 64)
	if err != nil {
		return false
	}
	for i, c := range cs {
		if c != strconv.FormatInt(first+int64(i), 10) {
			return false
		}
	}
	return true
}

// String prints the whole MLN as one .mln file: declared types, function
// and predicate declarations, then the formulas.
func (m *MLN) String() string {
	var b strings.Builder
	b.WriteString(m.Declarations())
	for _, f := range m.Formulas {
		b.WriteString(f.String())
		b.WriteByte('\n')
	}
	return b.String()
}

// Declarations prints the declarations of m as .mln lines: declared types,
// functions, then predicates — what a formula or query needs to be parsed
// in m's terms.
func (m *MLN) Declarations() string {
	var b strings.Builder
	for _, t := range m.Types {
		if s := t.String(); s != "" {
			b.WriteString(s)
			b.WriteByte('\n')
		}
	}
	// Functions before predicates: "A f(A)" reads as a function
	// declaration only while A is not yet a predicate.
	for _, d := range m.Funcs {
		b.WriteString(d.String())
		b.WriteByte('\n')
	}
	for _, d := range m.Preds {
		b.WriteString(d.String())
		b.WriteByte('\n')
	}
	return b.String()
}
