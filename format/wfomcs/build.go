package wfomcs

import (
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/lifted-dev/lifted/mln"
	"github.com/lifted-dev/lifted/pos"
)

// MaxElements is the largest integer domain a file may declare: its
// elements are named (Person0, Person1, …) so that evidence can refer to
// them. lifted wfomc's --domain sets larger sizes.
const MaxElements = 1_000_000

// maxSize is the most a file is read of.
const maxSize = 64 << 20

// File is a model of the WFOMC tool read as a Markov logic network: the
// MLN (its hard formulas, weights and cardinality constraints) and the
// unary evidence the file lists.
type File struct {
	MLN *mln.MLN
	// DB holds the file's unary evidence (empty when it has none).
	DB *mln.DB
	// Domain is the name of the file's domain, the MLN's one type.
	Domain string
}

// Read reads a .wfomcs file: a first-order sentence, the domain, the
// weightings, cardinality constraints and unary evidence. name is the file
// name used in error positions.
func Read(r io.Reader, name string) (*File, error) { return read(r, name, false) }

// ReadMLN reads a file in the tool's .mln syntax: weighted and hard
// rules, the domain, cardinality constraints and unary evidence.
func ReadMLN(r io.Reader, name string) (*File, error) { return read(r, name, true) }

func read(r io.Reader, name string, mlnSyntax bool) (*File, error) {
	src, err := io.ReadAll(io.LimitReader(r, maxSize+1))
	if err != nil {
		return nil, err
	}
	if len(src) > maxSize {
		return nil, pos.Errorf(pos.Position{File: name}, "file larger than %d MiB", maxSize>>20)
	}
	f, perr := parse(src, name, mlnSyntax)
	if perr != nil {
		return nil, perr
	}
	b := &builder{p: &parser{src: src, file: name}, f: f, arity: map[string]int{}, b: mln.NewBuilder(), mlnSyntax: mlnSyntax}
	return b.build()
}

type builder struct {
	p      *parser
	f      *file
	b      *mln.Builder
	arity  map[string]int
	order  []token // predicates in order of first use
	errs   pos.ErrorList
	consts map[string]bool // the domain's elements, as named here
	// mlnSyntax: the tool's .mln syntax (rules), not .wfomcs (a sentence).
	mlnSyntax bool
}

func (b *builder) errorf(t token, format string, args ...any) {
	b.errs.Add(b.p.pos(t), format, args...)
}

// constName is the name a constant of the tool gets: its first letter
// capitalised (lifted's constants start with an upper-case letter or a
// digit; the tool's with a lower-case letter).
func constName(s string) string {
	if s != "" && s[0] >= 'a' && s[0] <= 'z' {
		return string(s[0]-'a'+'A') + s[1:]
	}
	return s
}

// use records a predicate of arity n used at t.
func (b *builder) use(t token, n int) {
	if a, ok := b.arity[t.text]; ok {
		if a != n {
			b.errorf(t, "predicate %s has %d arguments here and %d elsewhere", t.text, n, a)
		}
		return
	}
	b.arity[t.text] = n
	b.order = append(b.order, t)
}

func (b *builder) collect(n *fnode) {
	switch n.op {
	case "atom":
		b.use(n.name, len(n.args))
	case "one":
		for _, p := range n.preds {
			b.use(p, 1)
		}
	}
	for _, k := range n.kids {
		b.collect(k)
	}
}

func (b *builder) build() (*File, error) {
	f := b.f
	for _, r := range f.rules {
		b.collect(r.f)
	}
	where := "sentence"
	if b.mlnSyntax {
		where = "rules"
	}
	known := func(t token, what string) bool {
		if _, ok := b.arity[t.text]; !ok {
			b.errorf(t, "%s: predicate %s does not occur in the %s", what, t.text, where)
			return false
		}
		return true
	}
	dom := f.domain.text
	b.consts = map[string]bool{}
	var consts []string
	if f.size >= 0 {
		if f.size > MaxElements {
			b.errorf(f.domAt, "domain %s of %d elements: a file declares at most %d (their names are Name0, Name1, …); write a smaller size and set the size with lifted wfomc --domain %s=%d", dom, f.size, MaxElements, dom, f.size)
		} else {
			for i := range f.size {
				c := constName(dom + strconv.FormatInt(i, 10))
				consts = append(consts, c)
				b.consts[c] = true
			}
		}
	}
	for _, e := range f.elems {
		c := constName(e.text)
		if b.consts[c] {
			b.errorf(e, "element %s of domain %s is listed twice (or differs from another only in the case of its first letter)", e.text, dom)
			continue
		}
		consts = append(consts, c)
		b.consts[c] = true
	}
	domPos := b.p.pos(f.domAt)
	b.b.DeclareType(dom, domPos, consts)
	for _, t := range b.order {
		types := make([]string, b.arity[t.text])
		at := make([]pos.Position, len(types))
		for i := range types {
			types[i], at[i] = dom, b.p.pos(t)
		}
		b.b.DeclarePred(&mln.PredDecl{Name: t.text, ArgTypes: types, Pos: b.p.pos(t)}, at)
	}
	for _, r := range f.rules {
		pieces := []*fnode{r.f}
		if r.hard {
			pieces = split(r.f)
		}
		for _, piece := range pieces {
			fm := &mln.Formula{Hard: r.hard, Weight: r.weight, HasWeight: !r.hard, Pos: b.p.pos(r.at)}
			start, end := piece.at.off, piece.end
			if !r.hard || len(pieces) == 1 {
				start, end = r.at.off, r.end
			}
			if len(pieces) > 1 {
				fm.Pos = b.p.pos(piece.at)
			}
			fm.Text = unparen(oneLine(b.p.src[start:end]))
			fm.Expr = b.expr(piece, newScope(piece))
			b.b.AddFormula(fm)
		}
	}
	for _, w := range f.weightings {
		if !known(w.pred, "weighting") {
			continue
		}
		b.weighting(w)
	}
	for _, c := range f.ccs {
		ok := true
		for _, t := range c.terms {
			ok = known(t.pred, "cardinality constraint") && ok
			if ok && b.arity[t.pred.text] == 0 {
				b.errorf(t.pred, "a cardinality constraint needs a predicate with arguments; %s has none", t.pred.text)
				ok = false
			}
		}
		if ok {
			b.cardinality(c)
		}
	}
	for _, l := range f.evidence {
		if ok := known(l.pred, "evidence"); ok && (len(l.args) != 1 || b.arity[l.pred.text] != 1) {
			b.errorf(l.pred, "evidence: only unary evidence P(c) is supported (as by the WFOMC tool); %s has %d arguments", l.pred.text, len(l.args))
		}
		for _, a := range l.args {
			if !b.consts[constName(a.text)] {
				b.errorf(a, "evidence: %s is not an element of domain %s", a.text, dom)
			}
		}
	}
	m, err := b.b.Finish()
	if err != nil {
		if el, ok := err.(pos.ErrorList); ok {
			b.errs = append(b.errs, el...)
		} else {
			return nil, err
		}
	}
	if len(b.errs) > 0 {
		b.errs.Sort()
		return nil, b.errs
	}
	m.Dialect = mln.DialectInfo{Dialect: mln.DialectPracmln, Reason: "the WFOMC tool's syntax: every predicate open-world, the unary evidence conditions", At: domPos}
	db := mln.NewDB(m)
	for _, l := range f.evidence {
		d := m.Pred(l.pred.text)
		v := mln.True
		if l.neg {
			v = mln.False
		}
		if e := db.AddAtomAt(d, []string{constName(l.args[0].text)}, []pos.Position{b.p.pos(l.args[0])}, v, b.p.pos(l.at)); e != nil {
			b.errs = append(b.errs, e)
		}
	}
	if len(b.errs) > 0 {
		return nil, b.errs
	}
	return &File{MLN: m, DB: db, Domain: dom}, nil
}

// oneLine returns s with its whitespace runs (newlines included) made one
// space: a formula's text as messages print it.
func oneLine(s []byte) string { return strings.Join(strings.Fields(string(s)), " ") }

// unparen strips parentheses around the whole of s.
func unparen(s string) string {
	for len(s) > 2 && s[0] == '(' && s[len(s)-1] == ')' {
		depth := 0
		for i := range len(s) - 1 {
			switch s[i] {
			case '(':
				depth++
			case ')':
				depth--
			}
			if depth == 0 {
				return s // the first parenthesis closes before the end
			}
		}
		s = strings.TrimSpace(s[1 : len(s)-1])
	}
	return s
}

// split splits a hard sentence at its top-level conjunctions and universal
// quantifiers: each piece is a hard formula whose free variables are
// universal, as in lifted's syntax.
func split(n *fnode) []*fnode {
	switch n.op {
	case "and":
		return append(split(n.kids[0]), split(n.kids[1])...)
	case "forall":
		return split(n.kids[0])
	}
	return []*fnode{n}
}

// scope maps the tool's variable names to lifted's: X becomes x, and a
// quantifier that binds a name already in scope or used free in the
// formula gets a fresh one (x2, …), which lifted's checker asks for.
type scope struct {
	names map[string]string
	taken map[string]bool
}

func newScope(n *fnode) *scope {
	s := &scope{names: map[string]string{}, taken: map[string]bool{}}
	var free func(n *fnode, bound map[string]bool)
	free = func(n *fnode, bound map[string]bool) {
		switch n.op {
		case "atom":
			for _, a := range n.args {
				if isVar(a.text) && !bound[a.text] {
					s.names[a.text] = strings.ToLower(a.text)
					s.taken[strings.ToLower(a.text)] = true
				}
			}
		case "forall", "exists", "count":
			nb := map[string]bool{n.name.text: true}
			for k := range bound {
				nb[k] = true
			}
			free(n.kids[0], nb)
			return
		}
		for _, k := range n.kids {
			free(k, bound)
		}
	}
	free(n, map[string]bool{})
	return s
}

func (s *scope) bind(v string) (name string, restore func()) {
	old, had := s.names[v]
	name = strings.ToLower(v)
	for i := 2; s.taken[name]; i++ {
		name = strings.ToLower(v) + strconv.Itoa(i)
	}
	s.taken[name] = true
	s.names[v] = name
	return name, func() {
		delete(s.taken, name)
		if had {
			s.names[v] = old
		} else {
			delete(s.names, v)
		}
	}
}

func (b *builder) expr(n *fnode, s *scope) mln.Expr {
	at := b.p.pos(n.at)
	switch n.op {
	case "atom":
		a := &mln.Atom{Pred: n.name.text, Pos: b.p.pos(n.name)}
		for _, t := range n.args {
			tp := b.p.pos(t)
			switch {
			case isVar(t.text):
				a.Args = append(a.Args, mln.Term{Name: s.names[t.text], IsVar: true, Pos: tp})
			case t.text[0] >= 'a' && t.text[0] <= 'z':
				a.Args = append(a.Args, mln.Term{Name: constName(t.text), Pos: tp})
			default:
				b.errorf(t, "%s is neither a variable (one upper-case letter, X) nor a constant (a name that starts with a lower-case letter, alice)", t.text)
				a.Args = append(a.Args, mln.Term{Name: t.text, Pos: tp})
			}
		}
		return a
	case "not":
		return &mln.Not{X: b.expr(n.kids[0], s), Pos: at}
	case "and":
		return &mln.And{L: b.expr(n.kids[0], s), R: b.expr(n.kids[1], s), OpPos: at}
	case "or":
		return &mln.Or{L: b.expr(n.kids[0], s), R: b.expr(n.kids[1], s), OpPos: at}
	case "imp":
		return &mln.Implies{L: b.expr(n.kids[0], s), R: b.expr(n.kids[1], s), OpPos: at}
	case "iff":
		return &mln.Iff{L: b.expr(n.kids[0], s), R: b.expr(n.kids[1], s), OpPos: at}
	case "one":
		// ExactlyOne[P1, …, Pm]: every element satisfies exactly one:
		// FORALL x (P1(x) v … v Pm(x)) ^ Λ_{i<j} !(Pi(x) ^ Pj(x)).
		v, restore := s.bind("X")
		defer restore()
		atom := func(p token) *mln.Atom {
			return &mln.Atom{Pred: p.text, Args: []mln.Term{{Name: v, IsVar: true, Pos: b.p.pos(p)}}, Pos: b.p.pos(p)}
		}
		var some mln.Expr = atom(n.preds[0])
		for _, p := range n.preds[1:] {
			some = &mln.Or{L: some, R: atom(p), OpPos: b.p.pos(p)}
		}
		body := some
		for i, p := range n.preds {
			for _, q := range n.preds[i+1:] {
				body = &mln.And{L: body, R: &mln.Not{X: &mln.And{L: atom(p), R: atom(q), OpPos: b.p.pos(q)}, Pos: b.p.pos(p)}, OpPos: b.p.pos(q)}
			}
		}
		return &mln.Forall{Vars: []*mln.Var{{Name: v, Pos: at}}, Body: body, Pos: at}
	case "forall", "exists", "count":
		v, restore := s.bind(n.name.text)
		defer restore()
		vars := []*mln.Var{{Name: v, Pos: b.p.pos(n.name)}}
		body := b.expr(n.kids[0], s)
		if n.op == "forall" {
			return &mln.Forall{Vars: vars, Body: body, Pos: at}
		}
		if n.op == "exists" {
			return &mln.Exists{Vars: vars, Body: body, Pos: at}
		}
		// A fresh copy of the quantifier for each bound.
		mk := func(cmp string, k int) *mln.Exists {
			return &mln.Exists{Vars: []*mln.Var{{Name: v, Pos: b.p.pos(n.name)}}, Body: b.expr(n.kids[0], s), Cmp: cmp, K: k, Pos: at}
		}
		switch n.cmp {
		case "=", "<=", ">=":
			return mk(n.cmp, n.k)
		case ">":
			return mk(">=", n.k+1)
		case "<":
			if n.k == 0 {
				// Fewer than 0: never.
				return &mln.And{L: mk("<=", 0), R: mk(">=", 1), OpPos: at}
			}
			return mk("<=", n.k-1)
		}
		// != k: at most k−1 or at least k+1.
		if n.k == 0 {
			return mk(">=", 1)
		}
		return &mln.Or{L: mk("<=", n.k-1), R: mk(">=", n.k+1), OpPos: at}
	}
	panic("wfomcs: unknown node " + n.op)
}

// weighting adds "pos neg P": every true atom of P weighs pos, every false
// one neg. With pos, neg > 0 that is the unit formula ln(pos/neg) P(x…)
// and the constant factor neg per atom (a formula true for every atom,
// P(x…) v !P(x…), of weight ln neg); a zero weight makes the atoms hard.
func (b *builder) weighting(w weighting) {
	n := b.arity[w.pred.text]
	at := b.p.pos(w.at)
	text := oneLine(b.p.src[w.at.off:w.end])
	atom := func() *mln.Atom {
		a := &mln.Atom{Pred: w.pred.text, Pos: b.p.pos(w.pred)}
		for i := range n {
			a.Args = append(a.Args, mln.Term{Name: "x" + strconv.Itoa(i+1), IsVar: true, Pos: b.p.pos(w.pred)})
		}
		return a
	}
	if w.pos < 0 || w.neg < 0 || math.IsInf(w.pos, 0) || math.IsInf(w.neg, 0) || math.IsNaN(w.pos) || math.IsNaN(w.neg) {
		b.errorf(w.at, "weighting %s: negative or infinite weights are not supported (a world's weight is a product of positive factors in an MLN)", text)
		return
	}
	c := 1.0 // the factor every atom contributes whatever its value
	switch {
	case w.pos == 0 && w.neg == 0:
		b.b.AddFormula(&mln.Formula{Hard: true, Expr: &mln.And{L: atom(), R: &mln.Not{X: atom(), Pos: at}, OpPos: at}, Text: text, Pos: at})
	case w.pos == 0:
		b.b.AddFormula(&mln.Formula{Hard: true, Expr: &mln.Not{X: atom(), Pos: at}, Text: text, Pos: at})
		c = w.neg
	case w.neg == 0:
		b.b.AddFormula(&mln.Formula{Hard: true, Expr: atom(), Text: text, Pos: at})
		c = w.pos
	default:
		b.b.AddFormula(&mln.Formula{HasWeight: true, Weight: math.Log(w.pos) - math.Log(w.neg), Expr: atom(), Text: text, Pos: at})
		c = w.neg
	}
	if c != 1 {
		b.b.AddFormula(&mln.Formula{HasWeight: true, Weight: math.Log(c), Expr: &mln.Or{L: atom(), R: &mln.Not{X: atom(), Pos: at}, OpPos: at},
			Text: text + " (a factor " + strconv.FormatFloat(c, 'g', -1, 64) + " per atom)", Pos: at})
	}
}

// cardinality adds a cardinality constraint: |P| cmp k as the hard
// formula EXIST=k x1,…,xn P(x1,…,xn) that lifted's |P| = k is, any other
// Σ a_i·|P_i| cmp k (a predicate named twice has its coefficients added)
// as an mln.Cardinality.
func (b *builder) cardinality(c cc) {
	at := b.p.pos(c.at)
	text := oneLine(b.p.src[c.at.off:c.end])
	coef := map[string]int{}
	var preds []token
	for _, t := range c.terms {
		if _, ok := coef[t.pred.text]; !ok {
			preds = append(preds, t.pred)
		}
		coef[t.pred.text] += t.coef
	}
	var live []token
	for _, p := range preds {
		if coef[p.text] != 0 {
			live = append(live, p)
		}
	}
	cmp, k := c.cmp, c.k
	switch cmp {
	case "<":
		cmp, k = "<=", k-1
	case ">":
		cmp, k = ">=", k+1
	}
	if len(live) != 1 || coef[live[0].text] != 1 || cmp == "!=" || k < 0 {
		// A linear constraint (mln.Cardinality), which wfomc sums exactly.
		lc := &mln.Cardinality{Cmp: cmp, K: k, Pos: at}
		for _, p := range live {
			lc.Terms = append(lc.Terms, mln.CardTerm{Coef: coef[p.text], Pred: p.text, Pos: b.p.pos(p)})
		}
		if len(live) == 0 {
			// 0 cmp k: true or false whatever the world.
			if lc.Holds(0) {
				return
			}
			b.b.AddFormula(&mln.Formula{Hard: true, Expr: falseExpr(b, preds[0], at), Text: text, Pos: at})
			return
		}
		b.b.AddFormula(&mln.Formula{Hard: true, Expr: lc, Text: text, Pos: at})
		return
	}
	b.b.AddFormula(&mln.Formula{Hard: true, Expr: countAtom(b, live[0], cmp, k, at), Text: text, Pos: at})
}

// countAtom is EXIST cmp k x1,…,xn P(x1,…,xn).
func countAtom(b *builder, p token, cmp string, k int, at pos.Position) *mln.Exists {
	pp := b.p.pos(p)
	atom := &mln.Atom{Pred: p.text, Pos: pp}
	var vars []*mln.Var
	for i := range b.arity[p.text] {
		v := "x" + strconv.Itoa(i+1)
		vars = append(vars, &mln.Var{Name: v, Pos: pp})
		atom.Args = append(atom.Args, mln.Term{Name: v, IsVar: true, Pos: pp})
	}
	return &mln.Exists{Vars: vars, Body: atom, Cmp: cmp, K: k, Pos: at}
}

// falseExpr is a formula that no world satisfies (a cardinality
// constraint no count meets).
func falseExpr(b *builder, p token, at pos.Position) mln.Expr {
	return &mln.And{L: countAtom(b, p, "<=", 0, at), R: countAtom(b, p, ">=", 1, at), OpPos: at}
}
