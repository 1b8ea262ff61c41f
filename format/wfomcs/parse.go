package wfomcs

import (
	"fmt"
	"strconv"

	"github.com/lifted-dev/lifted/pos"
)

// MaxDepth bounds the nesting of a formula (parentheses, negations,
// quantifiers), so that no input exhausts the stack.
const MaxDepth = 1000

// fnode is a formula of the tool's syntax as parsed.
type fnode struct {
	op    string // atom not and or imp iff forall exists count one
	name  token  // atom: the predicate; quantifiers: the variable
	args  []token
	kids  []*fnode
	cmp   string // count: = <= >= < > !=
	k     int
	preds []token // one: ExactlyOne's predicates
	at    token   // first token
	end   int     // byte offset after the last token
}

// ccTerm is a·|P| in a cardinality constraint.
type ccTerm struct {
	coef int
	pred token
}

// cc is a cardinality constraint Σ a_i·|P_i| cmp k.
type cc struct {
	terms []ccTerm
	cmp   string
	k     int
	at    token
	end   int
}

// rule is a formula of the tool's .mln syntax (hard, or with a weight).
type rule struct {
	f      *fnode
	weight float64
	hard   bool
	at     token
	end    int
}

type weighting struct {
	pos, neg float64
	pred     token
	at       token
	end      int
}

type literal struct {
	neg  bool
	pred token
	args []token
	at   token
}

// file is a parsed file of either syntax.
type file struct {
	rules      []rule // .mln; a .wfomcs sentence is one hard rule
	domain     token
	size       int64   // an integer domain's size, or −1
	elems      []token // a set domain's elements
	domAt      token
	weightings []weighting
	ccs        []cc
	evidence   []literal
}

// parseError ends parsing (recovered in parse).
type parseError struct{ err *pos.Error }

type parser struct {
	src   []byte
	file  string
	toks  []token
	i     int
	depth int
}

func (p *parser) tok() token       { return p.toks[p.i] }
func (p *parser) peek(k int) token { return p.toks[min(p.i+k, len(p.toks)-1)] }
func (p *parser) next()            { p.i = min(p.i+1, len(p.toks)-1) }
func (p *parser) pos(t token) pos.Position {
	return pos.Position{File: p.file, Line: t.line, Col: t.col}
}

func (p *parser) fail(t token, format string, args ...any) {
	panic(parseError{pos.Errorf(p.pos(t), format, args...)})
}

func describe(t token) string {
	if t.k == tEOF {
		return "the end of the file"
	}
	return strconv.Quote(t.text)
}

func (p *parser) expect(text, what string) token {
	t := p.tok()
	if t.k != tPunct || t.text != text {
		p.fail(t, "expected %s, found %s", what, describe(t))
	}
	p.next()
	return t
}

func (p *parser) is(text string) bool {
	t := p.tok()
	return t.k == tPunct && t.text == text
}

// parse parses src in the .wfomcs syntax (mlnSyntax false: a sentence,
// then the domain) or the tool's .mln syntax (rules, then the domain);
// both then take weightings (.wfomcs only), cardinality constraints and
// unary evidence.
func parse(src []byte, name string, mlnSyntax bool) (f *file, err *pos.Error) {
	toks, lerr := lex(src, name)
	if lerr != nil {
		return nil, lerr
	}
	p := &parser{src: src, file: name, toks: toks}
	defer func() {
		if r := recover(); r != nil {
			pe, ok := r.(parseError)
			if !ok {
				panic(r)
			}
			f, err = nil, pe.err
		}
	}()
	f = &file{size: -1}
	if mlnSyntax {
		for !p.atDomain() {
			f.rules = append(f.rules, p.rule())
		}
	} else {
		if p.atDomain() {
			p.fail(p.tok(), "expected the sentence (a formula) before the domain %s", p.tok().text)
		}
		at := p.tok()
		s := p.formula()
		f.rules = append(f.rules, rule{f: s, hard: true, at: at, end: s.end})
		if !p.atDomain() {
			p.fail(p.tok(), "expected an operator (&, |, ->, <->) or the domain line (name = size or name = {elements}) after the sentence, found %s", describe(p.tok()))
		}
	}
	p.domain(f)
	if !mlnSyntax {
		for p.tok().k == tNumber && p.peek(1).k == tNumber {
			f.weightings = append(f.weightings, p.weighting())
		}
	}
	for p.atCC() {
		f.ccs = append(f.ccs, p.cc())
	}
	for p.tok().k != tEOF {
		if p.is(",") && len(f.evidence) > 0 {
			p.next()
			continue
		}
		f.evidence = append(f.evidence, p.literal())
	}
	return f, nil
}

// atDomain says whether the domain line starts here: name "=".
func (p *parser) atDomain() bool {
	if p.tok().k == tEOF {
		p.fail(p.tok(), "expected the domain line (name = size or name = {elements}), found the end of the file")
	}
	return p.tok().k == tIdent && p.peek(1).k == tPunct && p.peek(1).text == "="
}

func (p *parser) rule() rule {
	at := p.tok()
	r := rule{at: at}
	if p.tok().k == tNumber || (p.is("-") || p.is("+")) && p.peek(1).k == tNumber {
		sign := 1.0
		if p.is("-") {
			sign = -1
		}
		if p.tok().k == tPunct {
			p.next()
		}
		w, err := strconv.ParseFloat(p.tok().text, 64)
		if err != nil {
			p.fail(p.tok(), "cannot read the weight %s", p.tok().text)
		}
		p.next()
		r.weight = sign * w
		r.f = p.formula()
		r.end = r.f.end
		return r
	}
	r.f = p.formula()
	if !p.is(".") {
		p.fail(p.tok(), "expected \".\" after a hard rule (a rule without a weight), found %s", describe(p.tok()))
	}
	r.end = p.tok().end
	p.next()
	r.hard = true
	return r
}

func (p *parser) domain(f *file) {
	f.domain = p.tok()
	f.domAt = p.tok()
	p.next()
	p.next() // "="
	switch t := p.tok(); {
	case t.k == tNumber:
		n, err := strconv.ParseInt(t.text, 10, 64)
		if err != nil || n < 0 {
			p.fail(t, "the size of domain %s must be a whole number, not %s", f.domain.text, t.text)
		}
		f.size = n
		p.next()
	case t.k == tPunct && t.text == "{":
		p.next()
		for {
			e := p.tok()
			if e.k != tIdent {
				p.fail(e, "expected an element of domain %s, found %s", f.domain.text, describe(e))
			}
			f.elems = append(f.elems, e)
			p.next()
			if p.is("}") {
				p.next()
				break
			}
			p.expect(",", "\",\" or \"}\" in the elements of domain "+f.domain.text)
		}
	default:
		p.fail(t, "expected the size of domain %s or {elements}, found %s", f.domain.text, describe(t))
	}
}

func (p *parser) number(what string) float64 {
	t := p.tok()
	if t.k != tNumber {
		p.fail(t, "expected %s, found %s", what, describe(t))
	}
	x, err := strconv.ParseFloat(t.text, 64)
	if err != nil {
		p.fail(t, "cannot read %s %s", what, t.text)
	}
	p.next()
	return x
}

func (p *parser) weighting() weighting {
	at := p.tok()
	w := weighting{at: at}
	w.pos = p.number("the weight of a true atom")
	w.neg = p.number("the weight of a false atom")
	if p.tok().k != tIdent {
		p.fail(p.tok(), "expected the predicate of the weighting, found %s", describe(p.tok()))
	}
	w.pred = p.tok()
	w.end = p.tok().end
	p.next()
	return w
}

// atCC says whether a cardinality constraint starts here: "|", a
// coefficient and "|", or "(".
func (p *parser) atCC() bool {
	return p.is("|") || p.is("(") || p.tok().k == tNumber && p.peek(1).k == tPunct && p.peek(1).text == "|"
}

func (p *parser) cc() cc {
	c := cc{at: p.tok()}
	sign := 1
	p.ccExpr(&c, &sign, 0)
	op := p.tok()
	switch {
	case op.k == tPunct && (op.text == "=" || op.text == "<=" || op.text == ">=" || op.text == "<" || op.text == ">" || op.text == "!="):
		c.cmp = op.text
	default:
		p.fail(op, "expected a comparison (=, <=, >=, <, >, !=) in the cardinality constraint, found %s", describe(op))
	}
	p.next()
	k := p.tok()
	x := p.number("the bound of the cardinality constraint")
	if x != float64(int(x)) || x > 1<<31 {
		p.fail(k, "the bound of a cardinality constraint must be a whole number, not %s", k.text)
	}
	c.k = int(x)
	c.end = k.end
	return c
}

// ccExpr reads terms a·|P| joined by + and −, with parentheses.
func (p *parser) ccExpr(c *cc, sign *int, depth int) {
	if depth > MaxDepth {
		p.fail(p.tok(), "parentheses nested deeper than %d", MaxDepth)
	}
	for first := true; ; first = false {
		if !first {
			switch {
			case p.is("+"):
				*sign = 1
			case p.is("-"):
				*sign = -1
			default:
				return
			}
			p.next()
		}
		if first && p.is("(") {
			p.next()
			p.ccExpr(c, sign, depth+1)
			p.expect(")", "\")\"")
			continue
		}
		coef := 1
		if t := p.tok(); t.k == tNumber {
			x := p.number("a coefficient")
			if x != float64(int(x)) || x > 1<<20 {
				p.fail(t, "the coefficient of a cardinality constraint must be a whole number (at most 2^20), not %s", t.text)
			}
			coef = int(x)
		}
		p.expect("|", "\"|\" before a predicate of the cardinality constraint")
		if p.tok().k != tIdent {
			p.fail(p.tok(), "expected a predicate between | and |, found %s", describe(p.tok()))
		}
		pr := p.tok()
		p.next()
		p.expect("|", "\"|\" after the predicate "+pr.text)
		c.terms = append(c.terms, ccTerm{coef: *sign * coef, pred: pr})
	}
}

func (p *parser) literal() literal {
	l := literal{at: p.tok()}
	if p.is("~") {
		l.neg = true
		p.next()
	}
	if p.tok().k != tIdent {
		p.fail(p.tok(), "expected an evidence literal (P(c) or ~P(c)), found %s", describe(p.tok()))
	}
	l.pred = p.tok()
	p.next()
	if p.is("(") {
		p.next()
		for !p.is(")") {
			if p.tok().k != tIdent {
				p.fail(p.tok(), "expected a constant in the evidence atom %s(…), found %s", l.pred.text, describe(p.tok()))
			}
			l.args = append(l.args, p.tok())
			p.next()
			if !p.is(")") {
				p.expect(",", "\",\" or \")\"")
			}
		}
		p.next()
	}
	return l
}

// ---- formulas ----
//
// Precedence, loosest first: <-> (left), -> (right), |, &, then ~,
// quantifiers (whose bodies are parenthesised) and atoms.

func (p *parser) formula() *fnode {
	p.depth++
	if p.depth > MaxDepth {
		p.fail(p.tok(), "formula nested deeper than %d", MaxDepth)
	}
	defer func() { p.depth-- }()
	a := p.imp()
	for p.is("<->") {
		p.next()
		b := p.imp()
		a = &fnode{op: "iff", kids: []*fnode{a, b}, at: a.at, end: b.end}
	}
	return a
}

func (p *parser) imp() *fnode {
	a := p.binary("|", "or", p.conj)
	if p.is("->") {
		p.next()
		p.depth++
		if p.depth > MaxDepth {
			p.fail(p.tok(), "formula nested deeper than %d", MaxDepth)
		}
		b := p.imp()
		p.depth--
		return &fnode{op: "imp", kids: []*fnode{a, b}, at: a.at, end: b.end}
	}
	return a
}

func (p *parser) conj() *fnode { return p.binary("&", "and", p.unary) }

func (p *parser) binary(sym, op string, sub func() *fnode) *fnode {
	a := sub()
	for p.is(sym) {
		p.next()
		b := sub()
		a = &fnode{op: op, kids: []*fnode{a, b}, at: a.at, end: b.end}
	}
	return a
}

func (p *parser) unary() *fnode {
	t := p.tok()
	switch {
	case t.k == tPunct && t.text == "~":
		p.next()
		p.depth++
		if p.depth > MaxDepth {
			p.fail(t, "formula nested deeper than %d", MaxDepth)
		}
		x := p.unary()
		p.depth--
		return &fnode{op: "not", kids: []*fnode{x}, at: t, end: x.end}
	case t.k == tPunct && t.text == "(":
		p.next()
		x := p.formula()
		end := p.expect(")", "\")\"")
		x2 := *x
		x2.at, x2.end = t, end.end
		return &x2
	case t.k == tForall || t.k == tExists || t.k == tCounting:
		return p.quantified()
	case t.k == tIdent && t.text == "ExactlyOne":
		p.next()
		p.expect("[", "\"[\" after ExactlyOne")
		n := &fnode{op: "one", at: t}
		for {
			if p.tok().k != tIdent {
				p.fail(p.tok(), "expected a predicate in ExactlyOne[…], found %s", describe(p.tok()))
			}
			n.preds = append(n.preds, p.tok())
			p.next()
			if p.is("]") {
				break
			}
			p.expect(",", "\",\" or \"]\" in ExactlyOne[…]")
		}
		n.end = p.tok().end
		p.next()
		return n
	case t.k == tIdent:
		p.next()
		n := &fnode{op: "atom", name: t, at: t, end: t.end}
		if p.is("(") {
			p.next()
			for !p.is(")") {
				a := p.tok()
				if a.k != tIdent {
					p.fail(a, "expected a term (a variable X or a constant c) in %s(…), found %s", t.text, describe(a))
				}
				n.args = append(n.args, a)
				p.next()
				if !p.is(")") {
					p.expect(",", "\",\" or \")\" in "+t.text+"(…)")
				}
			}
			n.end = p.tok().end
			p.next()
		}
		return n
	}
	p.fail(t, "expected a formula, found %s", describe(t))
	return nil
}

func (p *parser) quantified() *fnode {
	t := p.tok()
	p.next()
	n := &fnode{at: t}
	switch t.k {
	case tForall:
		n.op = "forall"
	case tExists:
		n.op = "exists"
	default:
		n.op = "count"
		op := p.tok()
		if op.k != tPunct || op.text != "=" && op.text != "<=" && op.text != ">=" && op.text != "<" && op.text != ">" && op.text != "!=" {
			p.fail(op, "expected a comparison (=, <=, >=, <, >, !=) after \\exists_{, found %s", describe(op))
		}
		n.cmp = op.text
		p.next()
		k := p.tok()
		if k.k != tNumber {
			p.fail(k, "expected the count of \\exists_{%s …}, found %s", n.cmp, describe(k))
		}
		x, err := strconv.Atoi(k.text)
		if err != nil || x < 0 {
			p.fail(k, "the count of a counting quantifier must be a whole number at least 0, not %s", k.text)
		}
		n.k = x
		p.next()
		p.expect("}", "\"}\" after the count")
	}
	v := p.tok()
	if v.k != tIdent || !isVar(v.text) {
		p.fail(v, "expected a variable (one upper-case letter) after %s, found %s", t.text, describe(v))
	}
	n.name = v
	p.next()
	p.expect(":", "\":\" after the quantified variable "+v.text)
	if !p.is("(") {
		p.fail(p.tok(), "expected \"(\": the body of a quantifier is parenthesised, as in %s %s: (…)", t.text, v.text)
	}
	body := p.unary()
	n.kids = []*fnode{body}
	n.end = body.end
	return n
}

// isVar says whether a term is a variable: one upper-case letter.
func isVar(s string) bool { return len(s) == 1 && s[0] >= 'A' && s[0] <= 'Z' }

func (n *fnode) String() string { return fmt.Sprintf("%s@%d:%d", n.op, n.at.line, n.at.col) }
