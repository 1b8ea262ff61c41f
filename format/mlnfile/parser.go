package mlnfile

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"path"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/lifted-dev/lifted/internal/memlimit"
	"github.com/lifted-dev/lifted/internal/suggest"
	"github.com/lifted-dev/lifted/mln"
	"github.com/lifted-dev/lifted/pos"
)

// maxErrors bounds the errors collected before the parser gives up.
const maxErrors = 100

// maxRange bounds the size of an integer range type {a,...,b} (a variable
// so that the fuzz test can lower it).
var maxRange int64 = 1 << 24

// Parse parses and type-checks one .mln file whose contents are src.
// filename appears in positions, and #include "f" is resolved relative to
// its directory through the operating system's file system.
//
// On error Parse returns the partial MLN (everything it could make sense of)
// and a pos.ErrorList sorted by position.
func Parse(filename string, src []byte) (*mln.MLN, error) {
	return ParseWith(Options{}, filename, src)
}

// ParseWith is Parse reading the dialect opt names (or detecting it).
func ParseWith(opt Options, filename string, src []byte) (*mln.MLN, error) {
	p := newParser(osFS{}, opt)
	p.parseTop(filename, src)
	return p.finish()
}

// ParseFile reads and parses one .mln file.
func ParseFile(filename string) (*mln.MLN, error) {
	return ParseFiles(filename)
}

// ParseFiles parses several .mln files, in order, into one MLN, the way
// Alchemy reads "-i a.mln,b.mln": declarations in earlier files are visible
// in later ones.
func ParseFiles(filenames ...string) (*mln.MLN, error) {
	return ParseFilesWith(Options{}, filenames...)
}

// ParseFilesWith is ParseFiles reading the dialect opt names (or detecting
// it).
func ParseFilesWith(opt Options, filenames ...string) (*mln.MLN, error) {
	return parseFiles(newParser(osFS{}, opt), filenames)
}

// ParseFS is ParseFiles reading from fsys; #include is resolved within fsys.
func ParseFS(fsys fs.FS, filenames ...string) (*mln.MLN, error) {
	return parseFiles(newParser(ioFS{fsys}, Options{}), filenames)
}

func parseFiles(p *parser, filenames []string) (*mln.MLN, error) {
	for _, name := range filenames {
		src, err := p.fsys.ReadFile(name)
		if err != nil {
			p.b.Errorf(pos.Position{File: name}, "cannot read file: %s", errText(err))
			continue
		}
		p.parseTop(name, src)
	}
	return p.finish()
}

// fileSystem abstracts where #include reads from.
type fileSystem interface {
	ReadFile(name string) ([]byte, error)
	Join(from, name string) string // name as included from the file from
	Key(name string) string        // canonical name for cycle detection
}

// osFS reads through the operating system.
type osFS struct{}

// ReadFile reads name.
func (osFS) ReadFile(name string) ([]byte, error) { return memlimit.ReadFile(name) }

// Join resolves name relative to the directory of from.
func (osFS) Join(from, name string) string {
	if filepath.IsAbs(name) {
		return name
	}
	return filepath.Join(filepath.Dir(from), name)
}

// Key returns the absolute path.
func (osFS) Key(name string) string {
	if abs, err := filepath.Abs(name); err == nil {
		return abs
	}
	return filepath.Clean(name)
}

// ioFS reads from an fs.FS.
type ioFS struct{ fsys fs.FS }

// ReadFile reads name.
func (f ioFS) ReadFile(name string) ([]byte, error) { return fs.ReadFile(f.fsys, name) }

// Join resolves name relative to the directory of from.
func (ioFS) Join(from, name string) string { return path.Join(path.Dir(from), name) }

// Key returns the cleaned path.
func (ioFS) Key(name string) string { return path.Clean(name) }

// errText shortens OS errors: "open x: no such file or directory" becomes
// "no such file or directory".
func errText(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// bailout is panicked to abandon the current statement after an error.
type bailout struct{}

type parser struct {
	b        *mln.Builder // checks and collects what is parsed
	m        *mln.MLN     // b.MLN(), for looking declarations up
	fsys     fileSystem
	includes []string // include stack of Key()s

	// Current file. The tokens are scanned on demand: toks is a window
	// holding p.toks[p.i] and the lookahead after it, plus the tokens of the
	// current statement before it (see trim); it ends with tEOF once the
	// scanner has reached the end.
	file string
	src  []byte
	s    *scanner
	toks []token
	i    int

	// sawFormula is set once a formula has been parsed (for the warning on
	// declarations that may be mistyped formulas).
	sawFormula bool

	// depth is the nesting of the formula being parsed (parentheses,
	// negations, quantifiers, function terms), bounded by MaxDepth.
	depth int

	dialectState
}

// MaxDepth bounds how deeply a formula may nest parentheses, negations,
// quantifiers and function terms: deeper is an error at the token that
// passes it (not a stack overflow of this recursive-descent parser, or of
// the passes over the formula after it).
const MaxDepth = 1000

// enter counts one level of nesting at t, failing past MaxDepth; the
// caller defers p.leave().
func (p *parser) enter(t token) {
	p.depth++
	if p.depth > MaxDepth {
		p.fail(t, "formula nested more than %d deep (parentheses, negations, quantifiers, function terms); write it with fewer levels", MaxDepth)
	}
}

func (p *parser) leave() { p.depth-- }

func newParser(fsys fileSystem, opt Options) *parser {
	b := mln.NewBuilder()
	return &parser{b: b, m: b.MLN(), fsys: fsys, dialectState: dialectState{opt: opt}}
}

func (p *parser) finish() (*mln.MLN, error) {
	p.complete()
	p.warnMixed()
	m, err := p.b.Finish()
	if m != nil {
		m.Dialect = p.dialectInfo()
	}
	return m, err
}

// plural returns "s" unless n is 1.
func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// relPos prints at relative to from: "7:3" in the same file, else in full.
func relPos(from, at pos.Position) string {
	if at.File == from.File && at.Line > 0 {
		return fmt.Sprintf("%d:%d", at.Line, at.Col)
	}
	return at.String()
}

// trimAt is how many consumed tokens trim lets accumulate before it drops
// them (so that dropping costs O(1) per token).
const trimAt = 1024

// fill scans tokens until the window holds p.toks[p.i+n] or ends with tEOF.
func (p *parser) fill(n int) {
	for p.i+n >= len(p.toks) {
		if k := len(p.toks); k > 0 && p.toks[k-1].kind == tEOF {
			return
		}
		p.toks = append(p.toks, p.s.next())
	}
}

// trim drops the tokens before p.toks[p.i] from the window once there are
// trimAt of them. Callers that never look back (statement starts, the
// constants of a type declaration) call it so that the window stays small
// however long the file or the declaration is.
func (p *parser) trim() {
	if p.i >= trimAt {
		n := copy(p.toks, p.toks[p.i:])
		clear(p.toks[n:])
		p.toks, p.i = p.toks[:n], 0
	}
}

func (p *parser) parseTop(filename string, src []byte) {
	p.includes = append(p.includes[:0], p.fsys.Key(filename))
	p.parseSource(filename, src)
}

// parseSource parses a whole file (top level or included).
func (p *parser) parseSource(filename string, src []byte) {
	p.file, p.src, p.s, p.toks, p.i = filename, src, newScanner(src), nil, 0
	p.prescan(filename, src)
	for {
		p.skipNewlines()
		p.trim()
		if p.tok().kind == tEOF {
			return
		}
		if p.b.NumErrors() >= maxErrors {
			p.b.Errorf(p.pos(p.tok()), "too many errors; stopping")
			for p.tok().kind != tEOF {
				p.next()
				p.trim()
			}
			return
		}
		p.statementSafely()
	}
}

func (p *parser) statementSafely() {
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(bailout); !ok {
				panic(r)
			}
			p.syncLine()
		}
	}()
	p.statement()
}

// ---- token helpers ----

func (p *parser) tok() token {
	p.fill(0)
	return p.toks[p.i]
}

func (p *parser) peek(n int) token {
	p.fill(n)
	if p.i+n < len(p.toks) {
		return p.toks[p.i+n]
	}
	return p.toks[len(p.toks)-1]
}

func (p *parser) next() {
	p.fill(1)
	if p.i < len(p.toks)-1 {
		p.i++
	}
}

func (p *parser) pos(t token) pos.Position {
	return pos.Position{File: p.file, Line: t.line, Col: t.col}
}

func (p *parser) errorf(t token, format string, args ...any) {
	p.b.Errorf(p.pos(t), format, args...)
}

func (p *parser) warnAt(at pos.Position, format string, args ...any) {
	p.b.Warnf(at, format, args...)
}

// fail reports an error at t and abandons the statement.
func (p *parser) fail(t token, format string, args ...any) {
	p.errorf(t, format, args...)
	panic(bailout{})
}

// unexpected fails with a message naming t and what was expected.
func (p *parser) unexpected(t token, expected string) {
	if t.kind == tIllegal && t.msg != "" {
		p.fail(t, "%s", t.msg)
	}
	msg := "unexpected " + t.describe()
	if expected != "" {
		msg += ", expected " + expected
	}
	p.fail(t, "%s%s", msg, hintFor(t))
}

// hintFor suggests the Alchemy spelling of common foreign syntax.
func hintFor(t token) string {
	switch t.kind {
	case tIllegal:
		switch {
		case t.text == "|" || t.text == "||":
			return `; Alchemy writes disjunction as " v " (a v surrounded by spaces)`
		case t.text == "&" || t.text == "&&":
			return `; Alchemy writes conjunction as "^"`
		case t.text == "~" || t.text == "¬":
			return `; Alchemy writes negation as "!"`
		case t.text == "->":
			return `; Alchemy writes implication as "=>"`
		case t.text == "<->":
			return `; Alchemy writes equivalence as "<=>"`
		case strings.HasPrefix(t.text, "#"):
			return `; the only "#" directive is #include "file"`
		}
	case tColon:
		return `; utilities (":") of decision-theoretic MLNs are not supported`
	case tLBrack, tRBrack:
		return `; Alchemy's indivisible "[ ]" formulas are not supported`
	case tLt, tGt, tLe, tGe:
		return "; internal comparison predicates (<, >, <=, >=) are not supported"
	case tAt:
		return `; "@" is only allowed before a weight (Tuffy's fixed weight, "@2.5 F")`
	}
	return ""
}

func (p *parser) skipNewlines() {
	for p.tok().kind == tNewline {
		p.next()
	}
}

// syncLine skips to the start of the next line.
func (p *parser) syncLine() {
	for k := p.tok().kind; k != tNewline && k != tEOF; k = p.tok().kind {
		p.next()
	}
	p.next()
}

func atLineEnd(t token) bool { return t.kind == tNewline || t.kind == tEOF }

// expectLineEnd requires the statement to end here.
func (p *parser) expectLineEnd(what string) {
	if t := p.tok(); !atLineEnd(t) {
		p.unexpected(t, "end of line after "+what)
	}
}

func isVarName(s string) bool {
	return s != "" && ('a' <= s[0] && s[0] <= 'z' || s[0] == '_')
}

func isQuantifier(s string) (exists, ok bool) {
	switch strings.ToLower(s) {
	case "exist", "exists":
		return true, true
	case "forall":
		return false, true
	}
	return false, false
}

// ---- statements ----

func (p *parser) statement() {
	t := p.tok()
	switch {
	case t.kind == tIllegal && strings.HasPrefix(t.text, "#") && p.directive():
	case p.isProbConstraint():
		p.probConstraint()
	case t.kind == tInclude:
		p.include()
	case t.kind == tIllegal && t.text == "|" && p.peek(1).kind == tIdent,
		t.kind == tNumber && p.peek(1).kind == tIllegal && p.peek(1).text == "|" && p.peek(2).kind == tIdent:
		p.cardinality()
	case t.kind == tIdent && p.peek(1).kind == tEq && p.peek(2).kind == tLBrace:
		p.typeDecl()
	case p.isFuncDecl():
		p.funcDecl()
	default:
		if p.tryPredDecl() {
			return
		}
		p.formula()
	}
}

// isFuncDecl reports whether the line has the shape "ret name(t1, ..., tn)"
// with ret and name not declared predicates or functions (the rule
// Alchemy's lexer applies), so that "P v (Q)" stays a formula.
func (p *parser) isFuncDecl() bool {
	ret, name := p.peek(0), p.peek(1)
	if ret.kind != tIdent || name.kind != tIdent || p.peek(2).kind != tLParen || isQuantWord(ret.text) {
		return false
	}
	for _, s := range []string{ret.text, name.text} {
		if p.m.Pred(s) != nil || p.m.Func(s) != nil {
			return false
		}
	}
	for j := 3; ; j += 2 {
		if p.peek(j).kind != tIdent {
			return false
		}
		switch p.peek(j + 1).kind {
		case tComma:
			continue
		case tRParen:
			return atLineEnd(p.peek(j + 2))
		}
		return false
	}
}

func isQuantWord(s string) bool { _, ok := isQuantifier(s); return ok }

func (p *parser) include() {
	inc := p.tok()
	p.next()
	t := p.tok()
	if t.kind != tString {
		p.unexpected(t, `a quoted file name after #include`)
	}
	p.next()
	p.expectLineEnd("#include")
	name, err := strconv.Unquote(t.text)
	if err != nil {
		name = strings.Trim(t.text, `"`)
	}
	switch {
	case name == "":
		p.fail(t, "empty file name in #include")
	case strings.HasSuffix(name, ".cpp"):
		p.fail(t, "#include of %s: linked-in C++ functions and predicates are not supported", t.text)
	case strings.HasSuffix(name, ".db"):
		p.fail(t, "#include of %s: evidence cannot be included from an .mln file here; read it with ReadDB", t.text)
	}
	target := p.fsys.Join(p.file, name)
	key := p.fsys.Key(target)
	for i, k := range p.includes {
		if k == key {
			chain := []string{}
			for _, c := range p.includes[i:] {
				chain = append(chain, filepath.Base(c))
			}
			chain = append(chain, filepath.Base(key))
			p.fail(inc, "include cycle: %s", strings.Join(chain, " includes "))
		}
	}
	src, err := p.fsys.ReadFile(target)
	if err != nil {
		p.fail(t, "cannot read included file %s: %s", target, errText(err))
	}
	// Parse the included file, then resume here.
	file, osrc, sc, toks, i := p.file, p.src, p.s, p.toks, p.i
	p.includes = append(p.includes, key)
	prac, seq := p.prac, p.fileSeq
	p.parseSource(target, src)
	p.includes = p.includes[:len(p.includes)-1]
	p.file, p.src, p.s, p.toks, p.i = file, osrc, sc, toks, i
	p.prac, p.fileSeq = prac, seq
}

// typeDecl parses "name = { C1, C2, ... }" or "name = { 0, ..., 9 }".
func (p *parser) typeDecl() {
	nameTok := p.tok()
	name := nameTok.text
	p.next() // name
	p.next() // =
	open := p.tok()
	p.next() // {
	var consts []string
	var ints []int64 // for ranges
	allInts := true
	sawRange := false
	for {
		p.skipNewlines()
		p.trim() // nothing below looks back
		t := p.tok()
		switch t.kind {
		case tRBrace:
			p.next()
		case tComma:
			p.next()
			continue
		case tIdent:
			if isVarName(t.text) && !p.lowerConstants() {
				p.errorf(t, "constant %q in type %q must start with an uppercase letter, be an integer or a \"quoted string\" (pracmln allows lowercase constants: --dialect pracmln)", t.text, name)
			} else {
				consts = append(consts, t.text)
				allInts = false
			}
			p.next()
			continue
		case tString:
			consts = append(consts, t.text)
			allInts = false
			p.next()
			continue
		case tNumber:
			n, s, ok := p.intConst(t)
			if ok {
				consts = append(consts, s)
				ints = append(ints, n)
			}
			p.next()
			continue
		case tEllipsis:
			// Only {first,...,last}.
			p.next()
			for p.tok().kind == tComma || p.tok().kind == tNewline {
				p.next()
			}
			last := p.tok()
			if !allInts || len(ints) != 1 || len(consts) != 1 || last.kind != tNumber || sawRange {
				p.fail(t, "malformed range in type %q; write an integer range as {first,...,last}", name)
			}
			hi, _, ok := p.intConst(last)
			p.next()
			for p.tok().kind == tNewline {
				p.next()
			}
			if p.tok().kind != tRBrace {
				p.fail(p.tok(), "malformed range in type %q; write an integer range as {first,...,last}", name)
			}
			if ok {
				lo := ints[0]
				switch {
				case hi < lo:
					p.errorf(last, "empty range {%d,...,%d} in type %q: the last value must not be smaller than the first", lo, hi, name)
				case hi-lo >= maxRange:
					p.errorf(last, "range {%d,...,%d} in type %q is too large (more than %d constants)", lo, hi, name, maxRange)
				default:
					for v := lo + 1; v <= hi; v++ {
						consts = append(consts, strconv.FormatInt(v, 10))
					}
				}
			}
			sawRange = true
			continue
		case tEOF:
			p.fail(open, "missing \"}\" to close the \"{\" of type %q", name)
		default:
			p.unexpected(t, "a constant, \",\" or \"}\" in the declaration of type "+strconv.Quote(name))
		}
		break
	}
	p.expectLineEnd("the type declaration")
	p.b.DeclareType(name, p.pos(nameTok), consts)
}

// intConst parses an integer constant, reporting bad numbers.
func (p *parser) intConst(t token) (int64, string, bool) {
	n, s, msg := canonInt(t.text)
	if msg != "" {
		p.errorf(t, "%s", msg)
		return 0, "", false
	}
	return n, s, true
}

// canonInt parses an integer constant into canonical decimal form, or
// explains why s is not one.
func canonInt(s string) (int64, string, string) {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		if _, ferr := strconv.ParseFloat(s, 64); ferr == nil && !errors.Is(err, strconv.ErrRange) {
			return 0, "", fmt.Sprintf("constant %s is not an integer; numeric constants must be integers", s)
		}
		return 0, "", fmt.Sprintf("integer constant %s is out of range", s)
	}
	return n, strconv.FormatInt(n, 10), ""
}

// funcDecl parses "rettype name(type, ...)".
func (p *parser) funcDecl() {
	retTok := p.tok()
	p.next()
	nameTok := p.tok()
	name := nameTok.text
	p.next()
	open := p.tok()
	p.next() // (
	var args []token
	for {
		t := p.tok()
		if t.kind != tIdent {
			if atLineEnd(t) {
				p.fail(open, "missing \")\" in the declaration of function %q", name)
			}
			p.unexpected(t, "an argument type in the declaration of function "+strconv.Quote(name))
		}
		args = append(args, t)
		p.next()
		if p.tok().kind == tNot {
			p.fail(p.tok(), "\"!\" cannot be used in a function declaration")
		}
		if p.tok().kind == tComma {
			p.next()
			continue
		}
		if p.tok().kind == tRParen {
			p.next()
			break
		}
		if atLineEnd(p.tok()) {
			p.fail(open, "missing \")\" in the declaration of function %q", name)
		}
		p.unexpected(p.tok(), "\",\" or \")\"")
	}
	p.expectLineEnd("the function declaration")
	switch {
	case p.m.Func(name) != nil:
		p.fail(nameTok, "function %q is already declared at %s", name, relPos(p.pos(nameTok), p.m.Func(name).Pos))
	case p.m.Pred(name) != nil:
		p.fail(nameTok, "%q is already declared as a predicate at %s", name, relPos(p.pos(nameTok), p.m.Pred(name).Pos))
	}
	fd := &mln.FuncDecl{Name: name, RetType: retTok.text, Pos: p.pos(retTok)}
	var argAt []pos.Position
	for _, a := range args {
		fd.ArgTypes = append(fd.ArgTypes, a.text)
		argAt = append(argAt, p.pos(a))
	}
	p.b.DeclareFunc(fd, argAt)
}

// tryPredDecl parses the statement as a predicate declaration if it has the
// shape of one: [*]Name, [*]Name() or [*]Name(type[!], ...) alone on its line,
// where Name is not yet a predicate. This is how Alchemy tells "Smokes(person)"
// (a declaration) from "Smokes(x)" (a unit formula): by whether the predicate
// is already declared.
func (p *parser) tryPredDecl() bool {
	j := 0
	star := false
	if p.peek(j).kind == tStar {
		star = true
		j++
	}
	nameTok := p.peek(j)
	if nameTok.kind != tIdent || isQuantWord(nameTok.text) {
		return false
	}
	j++
	var args []token // type names
	var mutex []int
	if p.peek(j).kind == tLParen {
		j++
		if p.peek(j).kind == tRParen {
			j++
		} else {
			for {
				t := p.peek(j)
				if t.kind != tIdent {
					return false
				}
				args = append(args, t)
				j++
				if p.peek(j).kind == tNot {
					mutex = append(mutex, len(args)-1)
					j++
				}
				if p.peek(j).kind == tComma {
					j++
					continue
				}
				if p.peek(j).kind == tRParen {
					j++
					break
				}
				return false
			}
		}
	}
	name := nameTok.text
	end := p.peek(j)
	if d := p.m.Pred(name); d != nil {
		// A declared predicate: normally a unit formula. An exact repeat of
		// the declaration is reported as such.
		if !atLineEnd(end) || len(args) == 0 && len(mutex) == 0 {
			return false
		}
		same := len(args) == len(d.ArgTypes) && len(mutex) == len(d.MutexArgs)
		for i := 0; same && i < len(args); i++ {
			same = args[i].text == d.ArgTypes[i]
		}
		for i := 0; same && i < len(mutex); i++ {
			same = mutex[i] == d.MutexArgs[i]
		}
		if same {
			p.i += j
			p.warnAt(p.pos(nameTok), "predicate %q is declared again (first at %s); the repeated declaration is ignored", name, relPos(p.pos(nameTok), d.Pos))
			return true
		}
		if len(mutex) > 0 {
			p.fail(nameTok, "predicate %q is already declared at %s as %s", name, relPos(p.pos(nameTok), d.Pos), d.String())
		}
		return false
	}
	if p.m.Func(name) != nil {
		return false
	}
	// An argument that is a known constant means this is a formula over an
	// undeclared predicate, not a declaration ("Smoke(Anna)").
	for _, a := range args {
		if p.isKnownConstant(a.text) {
			return false
		}
	}
	if !atLineEnd(end) {
		if end.kind != tNumber {
			return false
		}
		// Forclift's weighted declaration: report it, but keep the
		// declaration so that the formulas using it check normally.
		p.errorf(end, "unexpected number %s after the declaration of %q; weighted predicate declarations (Forclift's \"p(t) w1 w2\") are not Alchemy syntax", end.text, name)
		for !atLineEnd(p.peek(j)) {
			j++
		}
	}
	p.i += j
	d := &mln.PredDecl{Name: name, MutexArgs: mutex, ClosedWorld: star, Pos: p.pos(nameTok)}
	if star {
		p.mark(mln.DialectTuffy, "Tuffy's closed-world mark *"+name, p.pos(p.toks[p.i-j]))
	}
	var argAt []pos.Position
	for _, a := range args {
		d.ArgTypes = append(d.ArgTypes, a.text)
		argAt = append(argAt, p.pos(a))
	}
	if p.sawFormula {
		if s := suggest.Closest(name, p.predNames()); s != "" {
			p.warnAt(d.Pos, "%s declares a new predicate after the formulas; if it was meant as a formula over %q, fix the name", d.String(), s)
		}
	}
	p.b.DeclarePred(d, argAt)
	return true
}

func (p *parser) isKnownConstant(s string) bool {
	if isVarName(s) {
		return false
	}
	for _, td := range p.m.Types {
		if td.ConstIndex(s) >= 0 {
			return true
		}
	}
	return false
}

func (p *parser) predNames() []string {
	names := make([]string, len(p.m.Preds))
	for i, d := range p.m.Preds {
		names[i] = d.Name
	}
	return names
}

// formula parses "[@][weight] formula [.]".
func (p *parser) formula() {
	start := p.tok()
	f := &mln.Formula{Pos: p.pos(start)}
	if p.fixNext {
		f.FixedWeight, p.fixNext = true, false
	}
	if w, ok := p.weightExpr(); ok {
		f.Weight, f.HasWeight = w, true
	} else if start.kind == tAt {
		f.FixedWeight = true
		p.next()
		if p.tok().kind != tNumber {
			p.unexpected(p.tok(), "a weight after \"@\"")
		}
	}
	p.nonFiniteWeight()
	if t := p.tok(); t.kind == tNumber && p.peek(1).kind != tEq && p.peek(1).kind != tNeq {
		text := t.text
		p.next()
		// "3. F": Alchemy reads "3." as a weight.
		if d := p.tok(); d.kind == tDot && d.off == t.end && !atLineEnd(p.peek(1)) &&
			!strings.ContainsAny(text, ".eE") {
			text += "."
			p.next()
		}
		w, err := strconv.ParseFloat(text, 64)
		if err != nil || math.IsInf(w, 0) || math.IsNaN(w) {
			p.fail(t, "weight %s is out of range", t.text)
		}
		if atLineEnd(p.tok()) {
			p.fail(p.tok(), "expected a formula after the weight %s", t.text)
		}
		f.Weight, f.HasWeight = w, true
	}
	exprStart := p.tok()
	if k := exprStart.kind; k == tAnd || k == tImplies || k == tIff || isOr(exprStart) && startsFormula(exprStart, p.peek(1)) {
		p.fail(exprStart, "a formula cannot start with the operator %s; to continue a formula on the next line, end the previous line with the operator", exprStart.text)
	}
	si := p.i
	f.Expr = p.parseExpr()
	p.warnPracPrecedence(si)
	if t := p.tok(); t.kind == tIf {
		p.definiteClause(f, exprStart, t)
		return
	}
	last := p.toks[p.i-1]
	if t := p.tok(); t.kind == tDot {
		if f.HasWeight {
			p.fail(t, "a formula cannot have both a weight and a trailing period; drop the weight for a hard formula or the period for a soft one")
		}
		f.Hard = true
		p.next()
	}
	if t := p.tok(); !atLineEnd(t) {
		switch {
		case t.kind == tRParen:
			p.fail(t, "unexpected \")\" without a matching \"(\"")
		case t.kind == tPlus && last.kind != tComma && last.kind != tLParen:
			p.fail(t, "unexpected \"+\"; a \"+\" may only precede a variable (per-constant weights); only a time variable's successor t+1 or t++ is arithmetic")
		case t.kind == tNumber && !f.HasWeight && p.isOnlyNumbersToEnd():
			p.fail(t, "unexpected number %s after the formula; Alchemy puts the weight before the formula", t.text)
		}
		p.unexpected(t, "an operator, \".\" or end of line after the formula")
	}
	f.Text = strings.TrimSpace(string(p.src[exprStart.off:last.end]))
	p.applyUnique(f, start)
	p.sawFormula = true
	p.b.AddFormula(f)
}

// nonFiniteWeight fails on a formula whose weight is written nan, inf or
// infinity (in any case, maybe signed: strconv's spellings), which reads as
// an identifier followed by the formula.
func (p *parser) nonFiniteWeight() {
	t, j := p.tok(), 0
	if (t.text == "-" || t.text == "+") && p.peek(1).off == t.end {
		j = 1
	}
	w := p.peek(j)
	switch strings.ToLower(w.text) {
	case "nan", "inf", "infinity":
	default:
		return
	}
	if next := p.peek(j + 1); w.kind != tIdent || next.kind == tLParen || atLineEnd(next) {
		return // a predicate or constant of that name
	}
	p.fail(t, "weight %s is not a finite number; give a finite weight, or write a hard formula with a period at its end and no weight", string(p.src[t.off:w.end]))
}

func (p *parser) isOnlyNumbersToEnd() bool {
	for j := 0; ; j++ {
		t := p.peek(j)
		if atLineEnd(t) {
			return true
		}
		if t.kind != tNumber {
			return false
		}
	}
}

// startsFormula reports whether t, following the token prev, begins a
// formula; it tells "v Smokes(x)" (a misplaced operator) from "v(x)" (an
// atom over a predicate named v) and "v = x".
func startsFormula(prev, t token) bool {
	switch t.kind {
	case tNot, tStar:
		return true
	case tLParen:
		return t.off > prev.end
	case tIdent:
		return t.text != "v"
	}
	return false
}

// ---- formulas ----
//
// Precedence, loosest first: <=>, =>, v, ^, then ! and atoms. All binary
// operators are left-associative, as in Alchemy's grammar. A line break is
// allowed after a binary operator and after a comma.

func (p *parser) parseExpr() mln.Expr { return p.parseIff() }

// binary parses one left-associative operator level: operands parsed by
// operand, joined by the tokens isOp accepts, combined by join.
func (p *parser) binary(operand func() mln.Expr, isOp func(token) bool, join func(l, r mln.Expr, at pos.Position) mln.Expr) mln.Expr {
	l := operand()
	for isOp(p.tok()) {
		op := p.tok()
		p.next()
		p.skipNewlines()
		l = join(l, operand(), p.pos(op))
	}
	return l
}

func (p *parser) parseIff() mln.Expr {
	return p.binary(p.parseImplies, func(t token) bool { return t.kind == tIff },
		func(l, r mln.Expr, at pos.Position) mln.Expr { return &mln.Iff{L: l, R: r, OpPos: at} })
}

func (p *parser) parseImplies() mln.Expr {
	return p.binary(p.parseOr, func(t token) bool { return t.kind == tImplies },
		func(l, r mln.Expr, at pos.Position) mln.Expr { return &mln.Implies{L: l, R: r, OpPos: at} })
}

func isOr(t token) bool { return t.kind == tIdent && t.text == "v" }

func (p *parser) parseOr() mln.Expr {
	return p.binary(p.parseAnd, isOr,
		func(l, r mln.Expr, at pos.Position) mln.Expr { return &mln.Or{L: l, R: r, OpPos: at} })
}

func (p *parser) parseAnd() mln.Expr {
	return p.binary(p.parseUnary, func(t token) bool { return t.kind == tAnd },
		func(l, r mln.Expr, at pos.Position) mln.Expr { return &mln.And{L: l, R: r, OpPos: at} })
}

func (p *parser) parseUnary() mln.Expr {
	t := p.tok()
	p.enter(t)
	defer p.leave()
	switch t.kind {
	case tNot:
		p.next()
		if p.tok().kind == tStar {
			p.fail(p.tok(), "\"!\" and \"*\" cannot be used on the same atom")
		}
		x := p.parseUnary()
		return &mln.Not{X: x, Pos: p.pos(t)}
	case tLParen:
		p.next()
		e := p.parseExpr()
		if c := p.tok(); c.kind != tRParen {
			if atLineEnd(c) || c.kind == tDot && atLineEnd(p.peek(1)) {
				p.fail(t, "unbalanced parenthesis: this \"(\" is not closed before the end of the line")
			}
			p.unexpected(c, "an operator or \")\"")
		}
		p.next()
		return e
	case tStar:
		p.next()
		a := p.tok()
		if a.kind != tIdent || p.m.Func(a.text) != nil || p.peek(1).kind == tEq || p.peek(1).kind == tNeq {
			p.unexpected(a, "an atom after \"*\"")
		}
		e := p.parseAtomOrEquality()
		atom := e.(*mln.Atom)
		atom.Star = true
		atom.Pos = p.pos(t)
		return atom
	case tIdent:
		if exists, ok := isQuantifier(t.text); ok && (p.peek(1).kind == tIdent || p.peek(1).kind == tQuestion) {
			return p.parseQuantifier(exists)
		}
		if exists, ok := isQuantifier(t.text); ok && exists && isCountOp(p.peek(1).kind) && p.peek(2).kind == tNumber {
			return p.parseCounting()
		}
		return p.parseAtomOrEquality()
	case tNumber, tString, tPlus, tQuestion:
		l := p.parseTerm()
		return p.finishEquality(l)
	case tNewline, tEOF:
		p.fail(t, "unexpected %s, expected a formula", t.describe())
	case tRParen:
		p.fail(t, "unexpected \")\", expected a formula")
	}
	p.unexpected(t, "a formula")
	return nil
}

func (p *parser) parseQuantifier(exists bool) mln.Expr {
	kw := p.tok()
	p.next()
	var vars []*mln.Var
	for {
		t := p.tok()
		if t.kind == tQuestion {
			v := p.qVar(false, t)
			vars = append(vars, &mln.Var{Name: v.Name, Pos: v.Pos})
			if p.tok().kind != tComma {
				break
			}
			p.next()
			p.skipNewlines()
			continue
		}
		if t.kind != tIdent {
			p.unexpected(t, "a variable after "+kw.text)
		}
		if !isVarName(t.text) {
			p.fail(t, "quantified variable %q must start with a lowercase letter (names starting with an uppercase letter are constants)", t.text)
		}
		vars = append(vars, &mln.Var{Name: t.text, Pos: p.pos(t)})
		p.next()
		if p.tok().kind != tComma {
			break
		}
		p.next()
		p.skipNewlines()
	}
	body := p.parseExpr()
	if exists {
		return &mln.Exists{Vars: vars, Body: body, Pos: p.pos(kw)}
	}
	return &mln.Forall{Vars: vars, Body: body, Pos: p.pos(kw)}
}

// cardinality parses a cardinality constraint "|P| = k" (also <=, >=, <,
// >): the hard formula EXIST=k x1,…,xn P(x1,…,xn), which counts P's true
// atoms; or a linear one, Σ a_i·|P_i| cmp k with integer coefficients
// ("|AuxBond| - |H| = 0", "2 |A| + |B| <= 5", also !=): an
// mln.Cardinality.
func (p *parser) cardinality() {
	start := p.tok()
	var terms []mln.CardTerm
	sign := 1
	for {
		coef := sign
		if t := p.tok(); t.kind == tNumber {
			a, err := strconv.Atoi(t.text)
			if err != nil || a > 1<<20 || a < -(1<<20) {
				p.fail(t, "the coefficient of a cardinality constraint must be a whole number (at most 2^20 in size), not %s", t.text)
			}
			if len(terms) > 0 && a < 0 && sign < 0 {
				p.fail(t, "write the coefficient without a second sign: %s", t.text)
			}
			coef *= a
			p.next()
		}
		if t := p.tok(); t.kind != tIllegal || t.text != "|" {
			p.unexpected(t, "\"|\" before the predicate of a cardinality constraint |P|")
		}
		p.next()
		name := p.tok()
		if name.kind != tIdent {
			p.unexpected(name, "a predicate in a cardinality constraint |P|")
		}
		p.next()
		if t := p.tok(); t.kind != tIllegal || t.text != "|" {
			p.unexpected(t, "\"|\" after the predicate of a cardinality constraint |P|")
		}
		p.next()
		terms = append(terms, mln.CardTerm{Coef: coef, Pred: name.text, Pos: p.pos(name)})
		switch t := p.tok(); {
		case t.kind == tPlus:
			sign = 1
			p.next()
			continue
		case t.kind == tMinus:
			sign = -1
			p.next()
			continue
		case t.kind == tNumber && strings.HasPrefix(t.text, "-"):
			sign = 1 // "|A| -2 |B|": the sign is the number's
			continue
		}
		break
	}
	op := p.tok()
	cmp, ok := map[tokKind]string{tEq: "=", tLe: "<=", tGe: ">=", tLt: "<", tGt: ">", tNeq: "!="}[op.kind]
	if !ok {
		p.unexpected(op, "=, <=, >=, <, > or != after the terms of a cardinality constraint")
	}
	p.next()
	num := p.tok()
	k, err := strconv.Atoi(num.text)
	if num.kind != tNumber || err != nil || k < -(1<<30) || k > 1<<30 {
		p.fail(num, "the bound of a cardinality constraint must be a whole number, not %s", num.text)
	}
	p.next()
	last := num
	if t := p.tok(); t.kind == tDot {
		p.next()
	}
	p.expectLineEnd("a cardinality constraint")
	switch cmp {
	case "<":
		cmp, k = "<=", k-1
	case ">":
		cmp, k = ">=", k+1
	}
	text := strings.TrimSpace(string(p.src[start.off:last.end]))
	if len(terms) > 1 || terms[0].Coef != 1 || cmp == "!=" || k < 0 {
		for _, t := range terms {
			if d := p.m.Pred(t.Pred); d == nil {
				p.b.Errorf(t.Pos, "unknown predicate %q in a cardinality constraint; declare it first", t.Pred)
			}
		}
		p.sawFormula = true
		p.b.AddFormula(&mln.Formula{Pos: p.pos(start), Hard: true, Text: text,
			Expr: &mln.Cardinality{Terms: terms, Cmp: cmp, K: k, Pos: p.pos(start)}})
		return
	}
	name := terms[0]
	decl := p.m.Pred(name.Pred)
	if decl == nil {
		p.b.Errorf(name.Pos, "unknown predicate %q in a cardinality constraint; declare it first", name.Pred)
		return
	}
	if len(decl.ArgTypes) == 0 {
		p.b.Errorf(name.Pos, "a cardinality constraint needs a predicate with arguments; %s has none", name.Pred)
		return
	}
	at := name.Pos
	atom := &mln.Atom{Pred: name.Pred, Pos: at}
	var vars []*mln.Var
	for i := range decl.ArgTypes {
		v := "x" + strconv.Itoa(i+1)
		vars = append(vars, &mln.Var{Name: v, Pos: at})
		atom.Args = append(atom.Args, mln.Term{Name: v, IsVar: true, Pos: at})
	}
	f := &mln.Formula{Pos: p.pos(start), Hard: true,
		Expr: &mln.Exists{Vars: vars, Body: atom, Cmp: cmp, K: k, Pos: p.pos(start)},
		Text: text}
	p.sawFormula = true
	p.b.AddFormula(f)
}

func isCountOp(k tokKind) bool { return k == tEq || k == tLe || k == tGe }

// parseCounting parses a counting quantifier of C2: EXIST=k, EXIST<=k or
// EXIST>=k, then one variable and the body.
func (p *parser) parseCounting() mln.Expr {
	kw := p.tok()
	p.next()
	op := p.tok()
	p.next()
	num := p.tok()
	k, err := strconv.Atoi(num.text)
	if err != nil || k < 0 {
		p.fail(num, "the bound of a counting quantifier must be a whole number at least 0, not %s", num.text)
	}
	// parseQuantifier steps over the number as over a keyword.
	e := p.parseQuantifier(true).(*mln.Exists)
	e.Pos = p.pos(kw)
	e.Cmp = map[tokKind]string{tEq: "=", tLe: "<=", tGe: ">="}[op.kind]
	e.K = k
	return e
}

// parseAtomOrEquality parses an atom, or an equality whose left side is an
// identifier or a function term. The current token is an identifier.
func (p *parser) parseAtomOrEquality() mln.Expr {
	t := p.tok()
	next := p.peek(1)
	switch {
	case next.kind == tLParen && p.m.Func(t.text) != nil, next.kind == tEq, next.kind == tNeq:
		return p.finishEquality(p.parseTerm())
	case next.kind == tLt || next.kind == tGt || next.kind == tLe || next.kind == tGe:
		p.fail(next, "comparison %s is not supported; only = and != can compare terms", next.text)
	}
	atom := &mln.Atom{Pred: t.text, Pos: p.pos(t)}
	p.next()
	if p.tok().kind != tLParen {
		return atom // nullary predicate
	}
	open := p.tok()
	p.next()
	if p.tok().kind == tRParen {
		p.next()
		return atom
	}
	for {
		if c, ok := p.pracConstant(); ok {
			atom.Args = append(atom.Args, c)
		} else {
			atom.Args = append(atom.Args, p.parseTerm())
		}
		switch c := p.tok(); c.kind {
		case tComma:
			p.next()
			p.skipNewlines()
			continue
		case tRParen:
			p.next()
		case tNewline, tEOF:
			p.fail(open, "unbalanced parenthesis: the argument list of %q is not closed before the end of the line", atom.Pred)
		case tPlus:
			p.fail(c, "unexpected \"+\" in the arguments of %q; a \"+\" may only precede a variable (per-constant weights); only a time variable's successor t+1 or t++ is arithmetic", atom.Pred)
		case tEq, tNeq:
			p.fail(c, "unexpected %s inside the arguments of %q; an equality is a formula, not an argument", c.describe(), atom.Pred)
		default:
			p.unexpected(c, "\",\" or \")\" in the arguments of "+strconv.Quote(atom.Pred))
		}
		break
	}
	if c := p.tok(); c.kind == tEq || c.kind == tNeq {
		p.fail(c, "an atom cannot be compared with %s; = and != compare terms (variables, constants, function terms)", c.text)
	}
	return atom
}

func (p *parser) finishEquality(l mln.Term) mln.Expr {
	op := p.tok()
	switch op.kind {
	case tEq, tNeq:
	case tLt, tGt, tLe, tGe:
		p.fail(op, "comparison %s is not supported; only = and != can compare terms", op.text)
	default:
		p.unexpected(op, "\"=\" or \"!=\" after the term "+l.Name)
	}
	p.next()
	r := p.parseTerm()
	eq := &mln.Equal{L: l, R: r, Pos: l.Pos}
	if op.kind == tNeq {
		return &mln.Not{X: eq, Pos: l.Pos}
	}
	return eq
}

// parseTerm parses a variable, "+variable", constant or function term.
func (p *parser) parseTerm() mln.Term {
	t := p.tok()
	switch t.kind {
	case tPlus:
		p.next()
		if q := p.tok(); q.kind == tQuestion {
			term := p.qVar(true, q)
			term.Pos = p.pos(t)
			return term
		}
		v := p.tok()
		if v.kind != tIdent || !isVarName(v.text) || p.peek(1).kind == tLParen {
			p.fail(t, "\"+\" (per-constant weight) must be followed by a variable")
		}
		p.next()
		return mln.Term{Name: v.text, IsVar: true, PerConstant: true, Pos: p.pos(t)}
	case tQuestion:
		return p.qVar(false, t)
	case tIdent:
		if p.peek(1).kind == tLParen {
			if t.text == "succ" && p.m.Func(t.text) == nil {
				return p.parseSuccTerm()
			}
			return p.parseFuncTerm()
		}
		p.next()
		term := mln.Term{Name: t.text, IsVar: isVarName(t.text) && !p.prac, Pos: p.pos(t)}
		if p.tok().kind == tPlus && term.IsVar {
			p.parseSuccSuffix(&term)
		}
		return term
	case tNumber:
		p.next()
		_, s, ok := p.intConst(t)
		if !ok {
			panic(bailout{})
		}
		return mln.Term{Name: s, Pos: p.pos(t)}
	case tString:
		p.next()
		return mln.Term{Name: t.text, Pos: p.pos(t)}
	}
	p.unexpected(t, "a term (a variable, constant or function term)")
	return mln.Term{}
}

// parseSuccTerm parses "succ(t)" (succ not declared as a function): the
// successor of time variable t in a dynamic MLN. At most one succ per term
// (the Markov assumption).
func (p *parser) parseSuccTerm() mln.Term {
	t := p.tok()
	p.next()
	open := p.tok()
	p.next()
	arg := p.tok()
	switch {
	case arg.kind == tIdent && arg.text == "succ" && p.peek(1).kind == tLParen:
		p.fail(arg, "succ(succ(...)) links time slices two steps apart; a dynamic MLN allows at most one succ per term (the Markov assumption)")
	case arg.kind != tIdent || !isVarName(arg.text) || p.peek(1).kind == tLParen:
		p.fail(arg, "succ takes a time variable, e.g. succ(t)")
	}
	p.next()
	term := mln.Term{Name: arg.text, IsVar: true, Succ: true, Pos: p.pos(t)}
	switch c := p.tok(); c.kind {
	case tRParen:
		p.next()
	case tPlus:
		p.fail(c, "succ(t+...) links time slices more than one step apart; a dynamic MLN allows at most one succ per term (the Markov assumption)")
	case tNewline, tEOF:
		p.fail(open, "unbalanced parenthesis: succ( is not closed before the end of the line")
	default:
		p.unexpected(c, "\")\" after succ's variable")
	}
	return term
}

// parseSuccSuffix reads "+1" or LoMRF's "++" after the time variable term
// (the current token is the "+"), marking term as its successor.
func (p *parser) parseSuccSuffix(term *mln.Term) {
	plus := p.tok()
	n := p.peek(1)
	switch {
	case n.kind == tPlus && n.off == plus.end:
		p.next()
		p.next()
	case n.kind == tNumber && n.text == "1":
		p.next()
		p.next()
	case n.kind == tNumber:
		p.fail(n, "%s+%s links time slices more than one step apart; a dynamic MLN allows only t+1 (the Markov assumption)", term.Name, n.text)
	default:
		return // not a successor; the caller reports the "+"
	}
	if c := p.tok(); c.kind == tPlus {
		p.fail(c, "%s+1+... links time slices more than one step apart; a dynamic MLN allows at most one successor per term (the Markov assumption)", term.Name)
	}
	term.Succ = true
}

func (p *parser) parseFuncTerm() mln.Term {
	t := p.tok()
	p.enter(t)
	defer p.leave()
	if p.m.Func(t.text) == nil {
		if p.m.Pred(t.text) != nil {
			p.fail(t, "%q is a predicate, so %s(...) cannot be an argument; only functions can be nested", t.text, t.text)
		}
		p.fail(t, "unknown function %q; declare it before use, e.g. \"rettype %s(argtype)\"", t.text, t.text)
	}
	term := mln.Term{Name: t.text, Func: true, Pos: p.pos(t)}
	p.next()
	open := p.tok()
	p.next()
	for {
		term.Args = append(term.Args, p.parseTerm())
		switch c := p.tok(); c.kind {
		case tComma:
			p.next()
			p.skipNewlines()
			continue
		case tRParen:
			p.next()
		case tNewline, tEOF:
			p.fail(open, "unbalanced parenthesis: the arguments of function %q are not closed before the end of the line", term.Name)
		default:
			p.unexpected(c, "\",\" or \")\" in the arguments of function "+strconv.Quote(term.Name))
		}
		return term
	}
}
