package mlnfile

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/lifted-dev/lifted/mln"
	"github.com/lifted-dev/lifted/pos"
)

// Options configure how a model is read.
type Options struct {
	// Dialect is the dialect to read (--dialect), or mln.DialectAuto to
	// detect it from the syntax used (see DetectDialect).
	Dialect mln.Dialect
	// PracGrammar reads every file in pracmln's PRACGrammar, as a file with
	// ?x variables is (mln.DialectInfo.PracGrammar): for a printed copy of
	// such a model, whose constants may be any characters.
	PracGrammar bool
}

// ParseDialect reads a --dialect value: auto, alchemy, tuffy, pracmln or
// lomrf (any case); "" is auto.
func ParseDialect(name string) (mln.Dialect, error) {
	if strings.TrimSpace(name) == "" {
		return mln.DialectAuto, nil
	}
	for i, n := range mln.Dialects() {
		if strings.EqualFold(strings.TrimSpace(name), n) {
			return mln.Dialect(i), nil
		}
	}
	return mln.DialectAuto, fmt.Errorf("unknown dialect %q; use one of %s", name, strings.Join(mln.Dialects(), ", "))
}

// DetectDialect returns the dialect that the syntax of one .mln source
// shows, and why, without type-checking it: the first construct that only
// one dialect has decides. Tuffy: a predicate declaration marked "*"
// (closed-world). pracmln: "?x" variables, #fixweight, #fuzzy, #group,
// #unique, a weight written as an arithmetic expression (log(0.9/0.1)),
// "=/=", probability constraints "P(f) = p". LoMRF: definite clauses
// "head :- body". Without any, the dialect is Alchemy's. The parser
// (ParseWith with mln.DialectAuto) decides the same way, and records the
// outcome in mln.MLN.Dialect.
func DetectDialect(filename string, src []byte) mln.DialectInfo {
	m, _ := ParseWith(Options{}, filename, src)
	if m == nil {
		return mln.DialectInfo{Dialect: mln.DialectAlchemy, Reason: "no dialect-specific syntax"}
	}
	return m.Dialect
}

// dialectState is the parser's dialect bookkeeping.
type dialectState struct {
	opt   Options
	marks []dialectMark // the first syntax of each dialect met, in order
	// prac is set while reading a file that uses pracmln's "?x" variables
	// (its PRACGrammar): there, names without "?" are constants whatever
	// their case.
	prac    bool
	anyPrac bool // some file was read so (mln.DialectInfo.PracGrammar)
	fixNext bool // #fixweight: the next formula's weight is fixed
	// uniqueNext are the variables of "#unique{…}": the next formula
	// holds only where they are bound to distinct constants.
	uniqueNext []mln.Term
	fileSeq    int // reading order of the current file
	nFiles     int
	horn       []hornClause
}

type dialectMark struct {
	d      mln.Dialect
	reason string
	at     pos.Position
	seq    int // the file's place in reading order
}

func (m dialectMark) before(o dialectMark) bool {
	if m.seq != o.seq {
		return m.seq < o.seq
	}
	if m.at.Line != o.at.Line {
		return m.at.Line < o.at.Line
	}
	return m.at.Col < o.at.Col
}

// mark records that syntax of dialect d was met at at, in the current
// file (the earliest one of each dialect is kept).
func (p *parser) mark(d mln.Dialect, reason string, at pos.Position) {
	m := dialectMark{d, reason, at, p.fileSeq}
	for i, o := range p.marks {
		if o.d == d {
			if m.before(o) {
				p.marks[i] = m
			}
			return
		}
	}
	p.marks = append(p.marks, m)
	slices.SortStableFunc(p.marks, func(a, b dialectMark) int {
		if a.before(b) {
			return -1
		}
		if b.before(a) {
			return 1
		}
		return 0
	})
}

// warnMixed warns, once parsing is done, when syntax of two dialects was
// met and none was given.
func (p *parser) warnMixed() {
	if p.opt.Dialect != mln.DialectAuto || len(p.marks) < 2 {
		return
	}
	f, s := p.marks[0], p.marks[1]
	p.warnAt(s.at, "%s is %s syntax, but %s at %s is %s syntax; the model is read as %s (use --dialect to choose)",
		s.reason, dialectTitle(s.d), f.reason, relPos(s.at, f.at), dialectTitle(f.d), dialectTitle(f.d))
}

func dialectTitle(d mln.Dialect) string {
	switch d {
	case mln.DialectTuffy:
		return "Tuffy"
	case mln.DialectPracmln:
		return "pracmln"
	case mln.DialectLoMRF:
		return "LoMRF"
	}
	return "Alchemy"
}

// dialect is the dialect being read: the given one, or the first detected.
func (p *parser) dialect() mln.Dialect {
	if p.opt.Dialect != mln.DialectAuto {
		return p.opt.Dialect
	}
	if len(p.marks) > 0 {
		return p.marks[0].d
	}
	return mln.DialectAlchemy
}

func (p *parser) dialectInfo() mln.DialectInfo {
	d := p.dialectInfoOf()
	d.PracGrammar = p.anyPrac
	return d
}

func (p *parser) dialectInfoOf() mln.DialectInfo {
	if p.opt.Dialect != mln.DialectAuto {
		return mln.DialectInfo{Dialect: p.opt.Dialect, Given: true, Reason: "given"}
	}
	if len(p.marks) > 0 {
		m := p.marks[0]
		return mln.DialectInfo{Dialect: m.d, Reason: m.reason, At: m.at}
	}
	return mln.DialectInfo{Dialect: mln.DialectAlchemy, Reason: "no dialect-specific syntax"}
}

// lowerConstants reports whether a lowercase name in a type declaration
// is a constant (pracmln).
func (p *parser) lowerConstants() bool { return p.prac || p.dialect() == mln.DialectPracmln }

// prescan looks through a file for the syntax that decides its dialect
// before it is parsed (the parser needs to know, for one, whether a
// lowercase name is a variable).
func (p *parser) prescan(filename string, src []byte) {
	p.prac = p.opt.PracGrammar
	defer func() { p.anyPrac = p.anyPrac || p.prac }()
	p.nFiles++
	p.fileSeq = p.nFiles
	// One pass over the tokens holding three (the one before, the one
	// looked at, the one after), not a slice of them all: a model of 2^24
	// named constants (173 MB) made a slice of 72-byte tokens past 4 GB.
	s := newScanner(src)
	at := func(t token) pos.Position { return pos.Position{File: filename, Line: t.line, Col: t.col} }
	lineStart := true
	var prev token
	t := s.next()
	next := t
	if t.kind != tEOF {
		next = s.next()
	}
	for i := 0; ; i++ {
		if t.kind == tNewline {
			lineStart = true
		} else {
			switch {
			case t.kind == tQuestion && next.kind == tIdent && next.off == t.end && !lineStart:
				p.prac = true
				p.mark(mln.DialectPracmln, "pracmln's variable ?"+next.text, at(t))
			case t.kind == tIllegal && isPracDirective(t.text):
				p.mark(mln.DialectPracmln, "pracmln's "+t.text, at(t))
			case t.kind == tIf:
				p.mark(mln.DialectLoMRF, "LoMRF's definite clause (:-)", at(t))
			case t.kind == tPlus && next.kind == tPlus && next.off == t.end && i > 0 && prev.kind == tIdent && prev.end == t.off:
				p.mark(mln.DialectLoMRF, "LoMRF's successor "+prev.text+"++", at(prev))
			case t.kind == tNeq && t.text == "=/=":
				p.mark(mln.DialectPracmln, "pracmln's =/=", at(t))
			case lineStart && t.kind == tIdent && mathFuncs[t.text] != nil && next.kind == tLParen && next.off == t.end:
				p.mark(mln.DialectPracmln, "pracmln's weight expression "+t.text+"(…)", at(t))
			case lineStart && t.kind == tNumber && next.off == t.end && (next.kind == tSlash || next.kind == tStar):
				p.mark(mln.DialectPracmln, "pracmln's weight expression", at(t))
			case lineStart && t.kind == tIdent && t.text == "P" && next.kind == tLParen && probConstraintAt(next, *s):
				p.mark(mln.DialectPracmln, "pracmln's probability constraint P(…) = p", at(t))
			}
			lineStart = false
		}
		if t.kind == tEOF {
			return
		}
		prev, t = t, next
		if next.kind != tEOF {
			next = s.next()
		}
	}
}

func isPracDirective(s string) bool {
	switch s {
	case "#fixweight", "#fuzzy", "#group", "#unique":
		return true
	}
	return false
}

// probConstraintAt reports whether the tokens from lparen (the "(" after
// a "P" that starts a line) on, read on by s (a copy: the caller's scanner
// does not move), are "( … ) = number" on one line.
func probConstraintAt(lparen token, s scanner) bool {
	depth := 0
	for t := lparen; ; t = s.next() {
		switch t.kind {
		case tLParen:
			depth++
		case tRParen:
			depth--
			if depth == 0 {
				return s.next().kind == tEq && s.next().kind == tNumber
			}
		case tNewline, tEOF:
			return false
		}
	}
}

// directive handles pracmln's "#" directives at the start of a statement;
// it reports false for any other "#" word (an error elsewhere).
func (p *parser) directive() bool {
	t := p.tok()
	switch t.text {
	case "#fixweight":
		p.fixNext = true
	case "#fuzzy":
		p.warnAt(p.pos(t), "pracmln's #fuzzy: the next predicate is read as an ordinary binary predicate, as pracmln does under first-order logic")
	case "#group":
		// Formula groups only matter to pracmln's learners.
	case "#unique":
		p.unique(t)
		return true
	default:
		return false
	}
	for !atLineEnd(p.tok()) {
		p.next()
	}
	return true
}

func (p *parser) isProbConstraint() bool {
	t := p.tok()
	if t.kind != tIdent || (t.text != "P" && t.text != "R" && t.text != "SE") || p.peek(1).kind != tLParen {
		return false
	}
	depth := 0
	for j := 1; ; j++ {
		switch p.peek(j).kind {
		case tLParen:
			depth++
		case tRParen:
			depth--
			if depth == 0 {
				return p.peek(j+1).kind == tEq && p.peek(j+2).kind == tNumber && atLineEnd(p.peek(j+3))
			}
		case tNewline, tEOF:
			return false
		}
	}
}

// probConstraint refuses pracmln's probability constraints.
func (p *parser) probConstraint() {
	t := p.tok()
	kind := "prior probability constraint"
	if t.text != "P" {
		kind = "posterior probability constraint (soft evidence)"
	}
	p.fail(t, "pracmln's %s %s(…) = p is not supported: lifted does not fit weights to probabilities; "+
		"give the formula a weight instead (log(p/(1-p)) for a formula over independent atoms)", kind, t.text)
}

// qVar reads pracmln's "?x" (after a "+" when plus): a variable named
// "?x". The current token is the "?".
func (p *parser) qVar(plus bool, q token) mln.Term {
	v := p.peek(1)
	if v.kind != tIdent || v.off != q.end {
		p.fail(q, "\"?\" must be followed by a variable name (pracmln's ?x)")
	}
	p.next()
	p.next()
	return mln.Term{Name: "?" + v.text, IsVar: true, PerConstant: plus, Pos: p.pos(q)}
}

// mathFuncs are the functions of pracmln's weight expressions (Python's
// math module, and pracmln's logx, which gives -100 for 0).
var mathFuncs = map[string]func(float64) (float64, bool){
	"log": func(x float64) (float64, bool) { return math.Log(x), x > 0 },
	"logx": func(x float64) (float64, bool) {
		if x == 0 {
			return -100, true
		}
		return math.Log(x), x > 0
	},
	"exp":  func(x float64) (float64, bool) { return math.Exp(x), true },
	"sqrt": func(x float64) (float64, bool) { return math.Sqrt(x), x >= 0 },
}

// weightExpr reads a weight written as an arithmetic expression, as
// pracmln allows ("log(0.9/0.1) bird(x) => flies(x)"): the expression is
// the text up to the first blank, as in pracmln, made of numbers, + - * /,
// parentheses and log, logx, exp, sqrt. It reports false, consuming
// nothing, when the statement does not start with one.
func (p *parser) weightExpr() (float64, bool) {
	t0, t1 := p.tok(), p.peek(1)
	adjacent := t1.off == t0.end
	switch {
	case t0.kind == tIdent && mathFuncs[t0.text] != nil && t1.kind == tLParen && adjacent && p.m.Pred(t0.text) == nil:
	case t0.kind == tNumber && adjacent && (t1.kind == tSlash || t1.kind == tStar || t1.kind == tPlus || t1.kind == tMinus || t1.kind == tNumber && strings.HasPrefix(t1.text, "-")):
	case t0.kind == tLParen && adjacent && (t1.kind == tNumber || t1.kind == tMinus || t1.kind == tLParen):
	default:
		return 0, false
	}
	n := 1
	for {
		a, b := p.peek(n-1), p.peek(n)
		if b.off != a.end || atLineEnd(b) {
			break
		}
		n++
	}
	toks := make([]token, n)
	for j := range toks {
		toks[j] = p.peek(j)
		switch t := toks[j]; t.kind {
		case tNumber, tLParen, tRParen, tSlash, tStar, tPlus, tMinus:
		case tIdent:
			if mathFuncs[t.text] == nil {
				return 0, false // a formula such as "log(x) v …"
			}
		default:
			return 0, false
		}
	}
	text := string(p.src[t0.off:toks[n-1].end])
	e := &exprEval{toks: toks}
	w, err := e.sum()
	if err == "" && e.i < len(toks) {
		err = "unexpected " + toks[e.i].describe()
	}
	if err != "" {
		p.fail(t0, "cannot read the weight expression %q: %s", text, err)
	}
	if math.IsNaN(w) || math.IsInf(w, 0) {
		p.fail(t0, "the weight expression %q is %v; weights must be finite", text, w)
	}
	p.mark(mln.DialectPracmln, "pracmln's weight expression "+text, p.pos(t0))
	for range n {
		p.next()
	}
	if atLineEnd(p.tok()) {
		p.fail(p.tok(), "expected a formula after the weight %s", text)
	}
	return w, true
}

// exprEval evaluates a weight expression by recursive descent.
type exprEval struct {
	toks []token
	i    int
}

func (e *exprEval) peek() token {
	if e.i < len(e.toks) {
		return e.toks[e.i]
	}
	return token{kind: tEOF}
}

func (e *exprEval) sum() (float64, string) {
	x, err := e.product()
	for err == "" {
		t := e.peek()
		switch {
		case t.kind == tPlus || t.kind == tMinus:
			e.i++
			y, err2 := e.product()
			if err2 != "" {
				return 0, err2
			}
			if t.kind == tPlus {
				x += y
			} else {
				x -= y
			}
		case t.kind == tNumber && strings.HasPrefix(t.text, "-"):
			// "1-0.5": the scanner read "-0.5" as one number.
			y, err2 := e.product()
			if err2 != "" {
				return 0, err2
			}
			x += y
		default:
			return x, ""
		}
	}
	return 0, err
}

func (e *exprEval) product() (float64, string) {
	x, err := e.factor()
	for err == "" {
		t := e.peek()
		if t.kind != tStar && t.kind != tSlash {
			return x, ""
		}
		e.i++
		y, err2 := e.factor()
		if err2 != "" {
			return 0, err2
		}
		if t.kind == tStar {
			x *= y
		} else {
			if y == 0 {
				return 0, "division by zero"
			}
			x /= y
		}
	}
	return 0, err
}

func (e *exprEval) factor() (float64, string) {
	t := e.peek()
	e.i++
	switch t.kind {
	case tNumber:
		x, err := strconv.ParseFloat(t.text, 64)
		if err != nil {
			return 0, "bad number " + t.text
		}
		return x, ""
	case tMinus:
		x, err := e.factor()
		return -x, err
	case tPlus:
		return e.factor()
	case tLParen:
		x, err := e.sum()
		if err != "" {
			return 0, err
		}
		if e.peek().kind != tRParen {
			return 0, "missing \")\""
		}
		e.i++
		return x, ""
	case tIdent:
		fn := mathFuncs[t.text]
		if fn == nil || e.peek().kind != tLParen {
			return 0, "unknown function or name " + strconv.Quote(t.text) + " (known: log, logx, exp, sqrt)"
		}
		x, err := e.factor()
		if err != "" {
			return 0, err
		}
		y, ok := fn(x)
		if !ok {
			return 0, fmt.Sprintf("%s(%v) is undefined", t.text, x)
		}
		return y, ""
	}
	return 0, "unexpected " + t.describe()
}

// hornClause is a definite clause of LoMRF, "w head :- body".
type hornClause struct {
	head *mln.Atom
	body mln.Expr
	at   pos.Position
}

// definiteClause reads the body of LoMRF's "[w] head :- body [.]" (f holds
// the weight and the head) and adds "body => head" with the clause's
// weight; the predicate completion is added when parsing ends (complete).
func (p *parser) definiteClause(f *mln.Formula, exprStart, ifTok token) {
	head, ok := f.Expr.(*mln.Atom)
	if !ok || head.Star {
		p.fail(exprStart, "the head of a definite clause (LoMRF's \"head :- body\") must be one positive atom")
	}
	p.mark(mln.DialectLoMRF, "LoMRF's definite clause (:-)", p.pos(ifTok))
	p.next()
	p.skipNewlines()
	bodyStart := p.tok()
	body := p.parseExpr()
	if !isLiteralConjunction(body) {
		p.fail(bodyStart, "the body of a definite clause (LoMRF's \"head :- body\") must be a literal or a conjunction of literals; disjunctions, quantifiers, implications and equivalences are not allowed")
	}
	last := p.toks[p.i-1]
	if t := p.tok(); t.kind == tDot {
		if f.HasWeight {
			p.fail(t, "a definite clause cannot have both a weight and a trailing period; drop the weight for a hard clause or the period for a soft one")
		}
		f.Hard = true
		p.next()
	}
	if t := p.tok(); !atLineEnd(t) {
		p.unexpected(t, "an operator, \".\" or end of line after the body of the definite clause")
	}
	f.Expr = &mln.Implies{L: body, R: head, OpPos: p.pos(ifTok)}
	f.Text = strings.TrimSpace(string(p.src[bodyStart.off:last.end])) + " => " + strings.TrimSpace(string(p.src[exprStart.off:ifTok.off]))
	p.sawFormula = true
	p.horn = append(p.horn, hornClause{head: head, body: body, at: f.Pos})
	p.b.AddFormula(f)
}

func isLiteralConjunction(e mln.Expr) bool {
	switch e := e.(type) {
	case *mln.Atom, *mln.Equal:
		return true
	case *mln.Not:
		switch e.X.(type) {
		case *mln.Atom, *mln.Equal:
			return true
		}
	case *mln.And:
		return isLiteralConjunction(e.L) && isLiteralConjunction(e.R)
	}
	return false
}

// complete adds LoMRF's predicate completion of the definite clauses, in
// its decomposed form (the one LoMRF infers with). The clauses of a head
// predicate P are grouped by head pattern (equal up to the names of
// variables: InitiatedAt(meet(p1,p2), t), InitiatedAt(Loaded, t)); each
// group adds the hard formula
//
//	pattern => B1' v … v Bk'
//
// with the bodies' variables renamed to the pattern's and their variables
// not in the head existentially quantified; and the ground atoms of P that
// no pattern matches are false: P(_h1,…,_hn) => M1 v … v Mg, Mi saying
// that the arguments match pattern i (equalities with its constants and
// repeated variables). When the patterns of P overlap (Head(Foo,t) and
// Head(x,t)), P gets Clark's completion over all its clauses instead,
// P(_h1,…,_hn) => OR_i EXIST vars_i (_h = head_i ^ body_i), as LoMRF's
// generalisation does. A pattern with a function term cannot be matched by
// equalities, so values of its argument type that no function term of a
// head produces are not forced false (they are in LoMRF; the examples'
// fluents are all function values).
func (p *parser) complete() {
	if len(p.horn) == 0 {
		return
	}
	used := map[string]bool{}
	for _, c := range p.horn {
		collectVarNames(c.head, used)
		collectVarNames(c.body, used)
	}
	prefix := "_h"
	for {
		clash := false
		for n := range used {
			if strings.HasPrefix(n, prefix) {
				clash = true
			}
		}
		if !clash {
			break
		}
		prefix = "_" + prefix
	}
	var order []string
	byPred := map[string][]hornClause{}
	for _, c := range p.horn {
		if _, ok := byPred[c.head.Pred]; !ok {
			order = append(order, c.head.Pred)
		}
		byPred[c.head.Pred] = append(byPred[c.head.Pred], c)
	}
	for _, pred := range order {
		cs := byPred[pred]
		n := len(cs[0].head.Args)
		for _, c := range cs {
			if len(c.head.Args) != n {
				return // an arity error, reported by the checker
			}
		}
		var keys []string
		groups := map[string][]hornClause{}
		for _, c := range cs {
			k := patternKey(c.head.Args)
			if _, ok := groups[k]; !ok {
				keys = append(keys, k)
			}
			groups[k] = append(groups[k], c)
		}
		overlap := false
		for i := range keys {
			for j := i + 1; j < len(keys); j++ {
				overlap = overlap || unifiable(groups[keys[i]][0].head.Args, groups[keys[j]][0].head.Args)
			}
		}
		hv := make([]mln.Term, n)
		for j := range hv {
			hv[j] = mln.Term{Name: fmt.Sprintf("%s%d", prefix, j+1), IsVar: true, Pos: cs[0].at}
		}
		if overlap {
			p.addCompletion(cs[0].at, &mln.Atom{Pred: pred, Args: slices.Clone(hv), Pos: cs[0].at}, cs, hv)
			continue
		}
		for _, k := range keys {
			g := groups[k]
			head := renameExpr(g[0].head, nil).(*mln.Atom)
			head.Pos = g[0].at
			p.addCompletion(g[0].at, head, g, head.Args)
		}
		// Ground atoms of P that no pattern matches are false.
		var match mln.Expr
		complement := true
		for _, k := range keys {
			m, ok := matchExpr(groups[k][0].head.Args, hv, cs[0].at)
			if !ok {
				complement = false
				break
			}
			if m == nil { // all distinct variables: everything matches
				complement = false
				break
			}
			if match == nil {
				match = m
			} else {
				match = &mln.Or{L: match, R: m, OpPos: cs[0].at}
			}
		}
		if complement {
			at := cs[0].at
			f := &mln.Formula{Hard: true, Pos: at, Expr: &mln.Implies{L: &mln.Atom{Pred: pred, Args: slices.Clone(hv), Pos: at}, R: match, OpPos: at}}
			f.Text = f.Expr.String()
			p.b.AddFormula(f)
		}
	}
}

// addCompletion adds the hard formula head => OR of the clauses' bodies,
// each clause's head unified with head, whose arguments are target:
// variables of a clause's head map to the variables of target at the same
// place (when target has a variable there), other arguments become
// equalities, and the remaining variables of the clause are existentially
// quantified (renamed apart from target's).
func (p *parser) addCompletion(at pos.Position, head *mln.Atom, cs []hornClause, target []mln.Term) {
	targetVars := map[string]bool{}
	for _, t := range target {
		eachVar(t, func(v mln.Term) { targetVars[v.Name] = true })
	}
	var disj mln.Expr
	for _, c := range cs {
		sub := map[string]mln.Term{}
		var conj []mln.Expr
		// Plain variables first, so that equalities can use them.
		for j, a := range c.head.Args {
			if a.IsVar && !a.Succ && !a.PerConstant && target[j].IsVar && !target[j].Succ {
				if _, ok := sub[a.Name]; !ok {
					sub[a.Name] = target[j]
				}
			}
		}
		// Pattern variables inside function terms or succ terms map in
		// parallel to the target's (same pattern), else stay local.
		for j, a := range c.head.Args {
			parallelVars(a, target[j], sub)
		}
		// Local variables clashing with the target's are renamed apart.
		local := map[string]bool{}
		collect := func(e mln.Expr) {
			names := map[string]bool{}
			collectVarNames(e, names)
			for nm := range names {
				if _, ok := sub[nm]; !ok {
					local[nm] = true
				}
			}
		}
		collect(c.head)
		collect(c.body)
		for nm := range local {
			if targetVars[nm] {
				fresh := nm
				for k := 1; targetVars[fresh] || local[fresh]; k++ {
					fresh = fmt.Sprintf("%s_%d", nm, k)
				}
				sub[nm] = mln.Term{Name: fresh, IsVar: true}
			}
		}
		for j, a := range c.head.Args {
			r := renameTerm(a, sub)
			if termEqual(r, target[j]) {
				continue
			}
			conj = append(conj, &mln.Equal{L: renameTerm(target[j], nil), R: r, Pos: c.at})
		}
		body := renameExpr(c.body, sub)
		conj = append(conj, body)
		d := conj[0]
		for _, x := range conj[1:] {
			d = &mln.And{L: d, R: x, OpPos: c.at}
		}
		var qs []*mln.Var
		seen := map[string]bool{}
		names := map[string]bool{}
		collectVarNames(d, names)
		mln.Inspect(d, func(e mln.Expr) bool {
			var ts []mln.Term
			switch e := e.(type) {
			case *mln.Atom:
				ts = e.Args
			case *mln.Equal:
				ts = []mln.Term{e.L, e.R}
			}
			for _, t := range ts {
				eachVar(t, func(v mln.Term) {
					if !targetVars[v.Name] && !seen[v.Name] {
						seen[v.Name] = true
						qs = append(qs, &mln.Var{Name: v.Name, Pos: v.Pos})
					}
				})
			}
			return true
		})
		if len(qs) > 0 {
			d = &mln.Exists{Vars: qs, Body: d, Pos: c.at}
		}
		if disj == nil {
			disj = d
		} else {
			disj = &mln.Or{L: disj, R: d, OpPos: c.at}
		}
	}
	f := &mln.Formula{Hard: true, Pos: at, Expr: &mln.Implies{L: head, R: disj, OpPos: at}}
	f.Text = f.Expr.String()
	p.b.AddFormula(f)
}

// parallelVars maps the variables of a to those of t at the same places
// when both are function (or successor) terms of the same shape.
func parallelVars(a, t mln.Term, sub map[string]mln.Term) {
	switch {
	case a.Func && t.Func && a.Name == t.Name && len(a.Args) == len(t.Args):
		for i := range a.Args {
			parallelVars(a.Args[i], t.Args[i], sub)
		}
	case a.IsVar && t.IsVar && (a.Succ || !t.Succ):
		if _, ok := sub[a.Name]; !ok {
			v := t
			v.Succ = false
			sub[a.Name] = v
		}
	}
}

func termEqual(a, b mln.Term) bool {
	if a.Name != b.Name || a.IsVar != b.IsVar || a.Func != b.Func || a.Succ != b.Succ || len(a.Args) != len(b.Args) {
		return false
	}
	for i := range a.Args {
		if !termEqual(a.Args[i], b.Args[i]) {
			return false
		}
	}
	return true
}

// patternKey names a head pattern up to the names of its variables.
func patternKey(args []mln.Term) string {
	var b strings.Builder
	vars := map[string]int{}
	var rec func(t mln.Term)
	rec = func(t mln.Term) {
		switch {
		case t.Func:
			b.WriteString("f:" + t.Name + "(")
			for _, a := range t.Args {
				rec(a)
				b.WriteByte(',')
			}
			b.WriteByte(')')
		case t.IsVar:
			k, ok := vars[t.Name]
			if !ok {
				k = len(vars)
				vars[t.Name] = k
			}
			if t.Succ {
				b.WriteString("s")
			}
			fmt.Fprintf(&b, "v%d", k)
		default:
			b.WriteString("c:" + t.Name)
		}
		b.WriteByte(';')
	}
	for _, a := range args {
		rec(a)
	}
	return b.String()
}

// unifiable reports whether two head patterns may match one ground atom
// (conservatively: repeated variables are ignored).
func unifiable(a, b []mln.Term) bool {
	for i := range a {
		if !termsUnify(a[i], b[i]) {
			return false
		}
	}
	return true
}

func termsUnify(a, b mln.Term) bool {
	switch {
	case a.IsVar && !a.Succ || b.IsVar && !b.Succ:
		return true
	case a.Func && b.Func:
		if a.Name != b.Name || len(a.Args) != len(b.Args) {
			return false
		}
		for i := range a.Args {
			if !termsUnify(a.Args[i], b.Args[i]) {
				return false
			}
		}
		return true
	case !a.Func && !b.Func && !a.IsVar && !b.IsVar:
		return a.Name == b.Name
	}
	return !a.Func && !b.Func // succ terms: assume they may meet
}

// matchExpr is the condition, over the variables hv, that a ground atom
// matches the pattern args: equalities for constants and repeated
// variables; nil when every atom matches; ok false when the pattern has a
// function or successor term.
func matchExpr(args, hv []mln.Term, at pos.Position) (e mln.Expr, ok bool) {
	first := map[string]int{}
	var conj []mln.Expr
	for j, a := range args {
		switch {
		case a.Func || a.Succ:
			return nil, false
		case a.IsVar:
			if k, seen := first[a.Name]; seen {
				conj = append(conj, &mln.Equal{L: hv[j], R: hv[k], Pos: at})
			} else {
				first[a.Name] = j
			}
		default:
			c := a
			c.Type = ""
			conj = append(conj, &mln.Equal{L: hv[j], R: c, Pos: at})
		}
	}
	for _, x := range conj {
		if e == nil {
			e = x
		} else {
			e = &mln.And{L: e, R: x, OpPos: at}
		}
	}
	return e, true
}

func collectVarNames(e mln.Expr, used map[string]bool) {
	mln.Inspect(e, func(x mln.Expr) bool {
		var ts []mln.Term
		switch x := x.(type) {
		case *mln.Atom:
			ts = x.Args
		case *mln.Equal:
			ts = []mln.Term{x.L, x.R}
		}
		for _, t := range ts {
			eachVar(t, func(t mln.Term) { used[t.Name] = true })
		}
		return true
	})
}

// eachVar calls fn for every variable in t (function arguments included).
func eachVar(t mln.Term, fn func(mln.Term)) {
	if t.Func {
		for _, a := range t.Args {
			eachVar(a, fn)
		}
		return
	}
	if t.IsVar {
		fn(t)
	}
}

// renameTerm copies t with its variables renamed by sub, types cleared
// (the checker infers them again).
func renameTerm(t mln.Term, sub map[string]mln.Term) mln.Term {
	out := t
	out.Type = ""
	if t.Func {
		out.Args = make([]mln.Term, len(t.Args))
		for i, a := range t.Args {
			out.Args[i] = renameTerm(a, sub)
		}
		return out
	}
	if t.IsVar {
		if r, ok := sub[t.Name]; ok {
			out.Name = r.Name
		}
	}
	return out
}

// renameExpr deep-copies e with renameTerm applied to its terms.
func renameExpr(e mln.Expr, sub map[string]mln.Term) mln.Expr {
	switch e := e.(type) {
	case *mln.Atom:
		a := *e
		a.Args = make([]mln.Term, len(e.Args))
		for i, t := range e.Args {
			a.Args[i] = renameTerm(t, sub)
		}
		return &a
	case *mln.Equal:
		return &mln.Equal{L: renameTerm(e.L, sub), R: renameTerm(e.R, sub), Pos: e.Pos}
	case *mln.Not:
		return &mln.Not{X: renameExpr(e.X, sub), Pos: e.Pos}
	case *mln.And:
		return &mln.And{L: renameExpr(e.L, sub), R: renameExpr(e.R, sub), OpPos: e.OpPos}
	case *mln.Or:
		return &mln.Or{L: renameExpr(e.L, sub), R: renameExpr(e.R, sub), OpPos: e.OpPos}
	case *mln.Implies:
		return &mln.Implies{L: renameExpr(e.L, sub), R: renameExpr(e.R, sub), OpPos: e.OpPos}
	case *mln.Iff:
		return &mln.Iff{L: renameExpr(e.L, sub), R: renameExpr(e.R, sub), OpPos: e.OpPos}
	}
	panic(fmt.Sprintf("renameExpr: unexpected %T in a definite clause", e))
}

// pracConstant reads, in a file of pracmln's PRACGrammar, a constant
// argument written with the characters pracmln allows in names
// (FLAKES_00.000_, ja!_): the adjacent tokens up to the next "," or ")".
// It reports false, consuming nothing, for anything else.
func (p *parser) pracConstant() (mln.Term, bool) {
	if !p.prac {
		return mln.Term{}, false
	}
	t := p.tok()
	switch t.kind {
	case tIdent, tNumber, tIllegal:
	default:
		return mln.Term{}, false
	}
	j := 1
	for {
		n := p.peek(j)
		if n.off != p.peek(j-1).end || n.kind == tComma || n.kind == tRParen || atLineEnd(n) {
			break
		}
		j++
	}
	if n := p.peek(j); n.kind != tComma && n.kind != tRParen {
		return mln.Term{}, false
	}
	if j == 1 && t.kind != tIllegal {
		if t.kind == tIdent && p.peek(1).kind != tLParen {
			p.next()
			return mln.Term{Name: t.text, Pos: p.pos(t)}, true
		}
		return mln.Term{}, false
	}
	name := string(p.src[t.off:p.peek(j-1).end])
	for range j {
		p.next()
	}
	return mln.Term{Name: name, Pos: p.pos(t)}, true
}

// unique reads pracmln's "#unique{+?a, +?b, …}": the next (soft) formula
// is only instantiated with distinct constants for the listed variables.
// Conjoining the pairwise inequalities is the same: an instance that is
// never true contributes nothing.
func (p *parser) unique(kw token) {
	p.next()
	if p.tok().kind != tLBrace {
		p.unexpected(p.tok(), "\"{\" after #unique")
	}
	p.next()
	var vars []mln.Term
	for {
		t := p.tok()
		switch t.kind {
		case tPlus:
			p.next()
			continue
		case tComma:
			p.next()
			continue
		case tRBrace:
			p.next()
			p.expectLineEnd("#unique{…}")
			if len(vars) < 2 {
				p.fail(kw, "#unique needs at least two variables")
			}
			p.uniqueNext = vars
			return
		case tQuestion:
			v := p.qVar(false, t)
			vars = append(vars, v)
		case tIdent:
			if !isVarName(t.text) || p.prac {
				p.fail(t, "%s in #unique{…} is not a variable", t.describe())
			}
			p.next()
			vars = append(vars, mln.Term{Name: t.text, IsVar: true, Pos: p.pos(t)})
		default:
			p.unexpected(t, "a variable, \",\" or \"}\" in #unique{…}")
		}
	}
}

// applyUnique conjoins the inequalities of a pending #unique to f.
func (p *parser) applyUnique(f *mln.Formula, at token) {
	vars := p.uniqueNext
	if vars == nil {
		return
	}
	p.uniqueNext = nil
	if f.Hard {
		p.fail(at, "#unique before a hard formula is not supported (the excluded instances would make it false)")
	}
	for i := range vars {
		for j := i + 1; j < len(vars); j++ {
			ne := &mln.Not{X: &mln.Equal{L: vars[i], R: vars[j], Pos: vars[i].Pos}, Pos: vars[i].Pos}
			f.Expr = &mln.And{L: f.Expr, R: ne, OpPos: vars[i].Pos}
		}
	}
}

// warnPracPrecedence warns, in a pracmln model of its StandardGrammar (no
// ?x variables), about "^" and "v" mixed without parentheses at one level
// of the formula whose tokens start at p.toks[from]: that grammar binds v
// tighter than ^, the opposite of Alchemy's, which is how the formula is
// read here.
func (p *parser) warnPracPrecedence(from int) {
	if p.prac || p.dialect() != mln.DialectPracmln {
		return
	}
	type level struct{ and, or bool }
	stack := []level{{}}
	for _, t := range p.toks[from:p.i] {
		top := &stack[len(stack)-1]
		switch {
		case t.kind == tLParen:
			stack = append(stack, level{})
		case t.kind == tRParen && len(stack) > 1:
			stack = stack[:len(stack)-1]
		case t.kind == tAnd:
			top.and = true
		case isOr(t):
			top.or = true
		}
		if top := stack[len(stack)-1]; top.and && top.or {
			p.warnAt(p.pos(p.toks[from]), "\"^\" and \"v\" without parentheses: pracmln's StandardGrammar binds v tighter than ^, Alchemy (and this reading) ^ tighter than v; add parentheses to be sure")
			return
		}
	}
}
