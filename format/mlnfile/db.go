package mlnfile

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/lifted-dev/lifted/internal/memlimit"
	"github.com/lifted-dev/lifted/internal/suggest"
	"github.com/lifted-dev/lifted/mln"
	"github.com/lifted-dev/lifted/pos"
)

// ReadDB reads one .db file of evidence for m. name is used in positions.
// On error it returns what it could read and a pos.ErrorList.
func ReadDB(r io.Reader, name string, m *mln.MLN) (*mln.DB, error) {
	db := mln.NewDB(m)
	err := ReadDBInto(db, r, name)
	return db, err
}

// ReadDBFiles reads several .db files, in order, into one database.
func ReadDBFiles(m *mln.MLN, filenames ...string) (*mln.DB, error) {
	return ReadDBFilesContext(context.Background(), m, filenames...)
}

// ReadDBFilesContext is ReadDBFiles that stops when ctx ends (Ctrl-C
// while reading a large database): it then returns ctx's error.
func ReadDBFilesContext(ctx context.Context, m *mln.MLN, filenames ...string) (*mln.DB, error) {
	db := mln.NewDB(m)
	var errs pos.ErrorList
	for _, name := range filenames {
		if err := ctx.Err(); err != nil {
			return db, err
		}
		f, err := os.Open(name)
		if err != nil {
			errs.Add(pos.Position{File: name}, "cannot read file: %s", errText(err))
			continue
		}
		err = ReadDBIntoContext(ctx, db, memlimit.Reader(f, name), name)
		f.Close()
		if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
			return db, err
		}
		if el, ok := err.(pos.ErrorList); ok {
			errs = append(errs, el...)
		} else if err != nil {
			errs.Add(pos.Position{File: name}, "%v", err)
		}
	}
	return db, errs.Err()
}

// ReadDBInto reads one .db file into db, after the evidence it holds
// already; name is used in positions. A .db file has one ground atom per
// line, optionally negated with "!" or marked unknown with "?":
//
//	Friends(Anna, Bob)
//	!Smokes(Bob)
//	?Cancer("Carl Smith")
//	Raining
//	Bob = motherOf(Anna)     // an Alchemy function value
//
// with // and /* */ comments and blank lines. Soft evidence (a weight or
// probability before the atom) and real values after it are rejected.
// Constants new to a type join its domain.
func ReadDBInto(db *mln.DB, r io.Reader, name string) error {
	return ReadDBIntoContext(context.Background(), db, r, name)
}

// ReadDBIntoContext is ReadDBInto that stops when ctx ends, looking every
// few thousand lines, and then returns ctx's error.
func ReadDBIntoContext(ctx context.Context, db *mln.DB, r io.Reader, name string) error {
	src, err := io.ReadAll(ctxReader{ctx, r})
	if ctx.Err() != nil {
		return ctx.Err() // reading a large file takes a while too
	}
	if err != nil {
		return pos.ErrorList{pos.Errorf(pos.Position{File: name}, "read error: %v", err)}
	}
	rd := newLineReader(src, name, db.MLN())
	line := func(r *lineReader) *pos.Error { return evidenceLine(db, r) }
	for n := 1; ; n++ {
		if n%4096 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		rd.skipNewlines()
		if rd.tok.kind == tEOF {
			break
		}
		if len(rd.errs) >= maxErrors {
			rd.errs.Add(rd.pos(rd.tok), "too many errors; stopping")
			break
		}
		if e := rd.line(line); e != nil {
			rd.errs = append(rd.errs, e)
		}
	}
	rd.errs.Sort()
	return rd.errs.Err()
}

// ctxReader is a reader that fails with its context's error once the
// context ends.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// lineReader reads line-oriented ground syntax (.db files and queries)
// token by token, with two tokens of lookahead.
type lineReader struct {
	s    *scanner
	file string
	m    *mln.MLN
	tok  token
	la   []token
	errs pos.ErrorList

	names []string       // scratch for atomArgs
	toks  []token        // scratch for atomArgs
	at    []pos.Position // scratch for argument positions
}

func newLineReader(src []byte, name string, m *mln.MLN) *lineReader {
	r := &lineReader{s: newScanner(src), file: name, m: m, names: make([]string, 0, 8)}
	r.tok = r.s.next()
	return r
}

func (r *lineReader) next() {
	if len(r.la) > 0 {
		r.tok = r.la[0]
		r.la = r.la[1:]
		return
	}
	r.tok = r.s.next()
}

func (r *lineReader) peek() token { return r.peekAt(0) }

// peekAt returns the token i+1 places after the current one.
func (r *lineReader) peekAt(i int) token {
	for len(r.la) <= i {
		r.la = append(r.la, r.s.next())
	}
	return r.la[i]
}

func (r *lineReader) pos(t token) pos.Position {
	return pos.Position{File: r.file, Line: t.line, Col: t.col}
}

func (r *lineReader) skipNewlines() {
	for r.tok.kind == tNewline {
		r.next()
	}
}

// lineError abandons the current line.
type lineError struct{ e *pos.Error }

func (r *lineReader) fail(t token, format string, args ...any) {
	panic(lineError{pos.Errorf(r.pos(t), format, args...)})
}

func (r *lineReader) unexpected(t token, expected string) {
	if t.kind == tIllegal && t.msg != "" {
		r.fail(t, "%s", t.msg)
	}
	r.fail(t, "unexpected %s, expected %s%s", t.describe(), expected, hintFor(t))
}

// line runs parse on one line; on error it skips the rest of the line.
func (r *lineReader) line(parse func(*lineReader) *pos.Error) (err *pos.Error) {
	defer func() {
		if x := recover(); x != nil {
			le, ok := x.(lineError)
			if !ok {
				panic(x)
			}
			err = le.e
			for r.tok.kind != tNewline && r.tok.kind != tEOF {
				r.next()
			}
		}
	}()
	return parse(r)
}

// groundConst reads a constant argument.
func (r *lineReader) groundConst(what string) (string, token) {
	t := r.tok
	switch t.kind {
	case tIdent:
		if isVarName(t.text) && r.m.Dialect.Dialect != mln.DialectPracmln {
			r.fail(t, "evidence must be ground: %s starts with a lowercase letter, so it is a variable; write constants with an uppercase first letter, as integers or as \"quoted strings\"", t.text)
		}
	case tString:
	case tNumber:
		n, err := parseInt(t.text)
		if err != "" {
			r.fail(t, "%s", err)
		}
		r.next()
		return n, t
	default:
		r.unexpected(t, what)
	}
	r.next()
	return t.text, t
}

// parseInt canonicalizes an integer constant or explains why it is not one.
func parseInt(s string) (string, string) {
	_, c, msg := canonInt(s)
	return c, msg
}

// atomArgs reads "(c1, c2, ...)" or nothing.
func (r *lineReader) atomArgs(name string, ground bool) ([]string, []token) {
	if r.tok.kind != tLParen {
		return nil, nil
	}
	open := r.tok
	r.next()
	// The slices are reused from line to line; callers copy what they keep.
	names := r.names[:0]
	toks := r.toks[:0]
	defer func() { r.names, r.toks = names, toks }()
	if r.tok.kind == tRParen {
		r.next()
		return names, toks
	}
	for {
		var s string
		var t token
		if ground {
			if r.m.Dialect.Dialect == mln.DialectPracmln && r.tok.kind != tString {
				s, t = r.pracConst()
			} else {
				s, t = r.groundConst("a constant")
			}
		} else {
			t = r.tok
			switch t.kind {
			case tIdent, tString:
				s = t.text
			case tNumber:
				var msg string
				if s, msg = parseInt(t.text); msg != "" {
					r.fail(t, "%s", msg)
				}
			default:
				r.unexpected(t, "a variable or constant")
			}
			r.next()
		}
		names = append(names, s)
		toks = append(toks, t)
		switch r.tok.kind {
		case tComma:
			r.next()
			continue
		case tRParen:
			r.next()
			return names, toks
		case tNewline, tEOF:
			r.fail(open, "unbalanced parenthesis: the argument list of %q is not closed before the end of the line", name)
		default:
			r.unexpected(r.tok, "\",\" or \")\"")
		}
	}
}

// predFor looks up the predicate of an atom, failing with a suggestion.
func (r *lineReader) predFor(t token, nargs int) *mln.PredDecl {
	d := r.m.Pred(t.text)
	if d == nil {
		if r.m.Func(t.text) != nil {
			r.fail(t, "%q is a function; give its values as \"C = %s(args)\"", t.text, t.text)
		}
		names := make([]string, len(r.m.Preds))
		for i, p := range r.m.Preds {
			names[i] = p.Name
		}
		msg := fmt.Sprintf("unknown predicate %q; declare it in the .mln file", t.text)
		if s := suggest.Closest(t.text, names); s != "" {
			msg += fmt.Sprintf(", or did you mean %q?", s)
		}
		r.fail(t, "%s", msg)
	}
	if nargs != len(d.ArgTypes) {
		r.fail(t, "predicate %q takes %d argument%s but is given %d; it is declared as %s at %s",
			d.Name, len(d.ArgTypes), plural(len(d.ArgTypes)), nargs, d.String(), d.Pos)
	}
	return d
}

func (r *lineReader) endOfLine() {
	switch t := r.tok; {
	case t.kind == tNewline || t.kind == tEOF:
	case t.kind == tNumber:
		r.fail(t, "unexpected number %s after the atom; real-valued evidence is not supported", t.text)
	default:
		r.unexpected(t, "end of line (one atom per line)")
	}
}

// evidenceLine parses one line of a .db file into db.
func evidenceLine(db *mln.DB, r *lineReader) *pos.Error {
	start := r.tok
	v := mln.True
	switch start.kind {
	case tNot:
		v = mln.False
		r.next()
	case tQuestion:
		v = mln.Unknown
		r.next()
	case tNumber:
		if r.peek().kind == tEq {
			return funcLine(db, r)
		}
		r.fail(start, "soft evidence is not supported: remove the weight or probability %s before the atom", start.text)
	case tIdent, tString:
		if r.peek().kind == tEq && r.peekAt(1).kind == tLBrace && start.kind == tIdent {
			return domainLine(db, r)
		}
		if r.peek().kind == tEq {
			return funcLine(db, r)
		}
	case tMinus:
		if r.peek().kind == tMinus {
			r.fail(start, "\"---\" separates several databases in one pracmln file; put each database in its own .db file")
		}
	}
	nameTok := r.tok
	if nameTok.kind != tIdent {
		r.unexpected(nameTok, "a ground atom")
	}
	r.next()
	args, toks := r.atomArgs(nameTok.text, true)
	r.endOfLine()
	d := r.predFor(nameTok, len(args))
	argAt := r.at[:0]
	for _, t := range toks {
		argAt = append(argAt, r.pos(t))
	}
	r.at = argAt
	return db.AddAtomAt(d, args, argAt, v, r.pos(start))
}

// domainLine parses a domain declaration "type = {C1, C2, ...}" (pracmln
// allows them in databases): the constants join the type's domain.
func domainLine(db *mln.DB, r *lineReader) *pos.Error {
	nameTok := r.tok
	typ := db.MLN().Type(nameTok.text)
	if typ == nil {
		r.fail(nameTok, "unknown type %q in a domain declaration; declare it in the .mln file (as a predicate argument type)", nameTok.text)
	}
	r.next() // name
	r.next() // =
	open := r.tok
	r.next() // {
	var consts []string
	var at []pos.Position
	for {
		switch r.tok.kind {
		case tRBrace:
			r.next()
			r.endOfLine()
			for i, c := range consts {
				db.AddConstantAt(typ.Index, c, at[i])
			}
			return nil
		case tComma:
			r.next()
			continue
		case tNewline, tEOF:
			r.fail(open, "missing \"}\" to close the \"{\" of type %q", nameTok.text)
		}
		c, t := r.groundConst("a constant, \",\" or \"}\"")
		consts = append(consts, c)
		at = append(at, r.pos(t))
	}
}

// funcLine parses "C = f(A, B)".
func funcLine(db *mln.DB, r *lineReader) *pos.Error {
	start := r.tok
	val, valTok := r.groundConst("a constant")
	r.next() // =
	ft := r.tok
	if ft.kind != tIdent {
		r.unexpected(ft, "a function term after \"=\"")
	}
	fd := r.m.Func(ft.text)
	if fd == nil {
		if r.m.Pred(ft.text) != nil {
			r.fail(ft, "%q is a predicate, not a function", ft.text)
		}
		r.fail(ft, "unknown function %q; declare it in the .mln file, e.g. \"rettype %s(argtype)\"", ft.text, ft.text)
	}
	r.next()
	if r.tok.kind != tLParen {
		r.unexpected(r.tok, "\"(\" after the function name")
	}
	args, toks := r.atomArgs(ft.text, true)
	r.endOfLine()
	if len(args) != len(fd.ArgTypes) {
		r.fail(ft, "function %q takes %d argument%s but is given %d", fd.Name, len(fd.ArgTypes), plural(len(fd.ArgTypes)), len(args))
	}
	argAt := make([]pos.Position, len(toks))
	for i, t := range toks {
		argAt[i] = r.pos(t)
	}
	return db.AddFuncValueAt(fd, args, argAt, val, r.pos(valTok), r.pos(start))
}

// ReadQuery reads query atoms, separated by commas or line breaks, such as
// "Smokes, Cancer(x), Friends(Anna, y)" or a Tuffy query.db file. Arguments
// may be variables or constants; a bare predicate name queries all its
// groundings. Terms get the types of their argument positions; constants
// are not added to any domain.
func ReadQuery(rd io.Reader, name string, m *mln.MLN) ([]*mln.Atom, error) {
	src, err := io.ReadAll(rd)
	if err != nil {
		return nil, pos.ErrorList{pos.Errorf(pos.Position{File: name}, "read error: %v", err)}
	}
	r := newLineReader(src, name, m)
	var atoms []*mln.Atom
	for {
		for r.tok.kind == tNewline || r.tok.kind == tComma {
			r.next()
		}
		if r.tok.kind == tEOF || len(r.errs) >= maxErrors {
			break
		}
		if e := r.line(func(r *lineReader) *pos.Error {
			t := r.tok
			if t.kind != tIdent {
				r.unexpected(t, "a query atom")
			}
			r.next()
			args, toks := r.atomArgs(t.text, false)
			a := &mln.Atom{Pred: t.text, Pos: r.pos(t)}
			if args == nil && r.m.Pred(t.text) != nil {
				atoms = append(atoms, a) // all groundings
			} else {
				d := r.predFor(t, len(args))
				for i, s := range args {
					a.Args = append(a.Args, mln.Term{Name: s, IsVar: isVarName(s), Type: d.ArgTypes[i], Pos: r.pos(toks[i])})
				}
				atoms = append(atoms, a)
			}
			if k := r.tok.kind; k != tComma && k != tNewline && k != tEOF {
				r.unexpected(r.tok, "\",\" or end of line")
			}
			return nil
		}); e != nil {
			r.errs = append(r.errs, e)
		}
	}
	r.errs.Sort()
	return atoms, r.errs.Err()
}

// ReadDBSets returns a reader of databases, each from a list of files,
// against a model: the callback of mln.ExpandForData.
func ReadDBSets(sets [][]string) func(*mln.MLN) ([]*mln.DB, error) {
	return func(m *mln.MLN) ([]*mln.DB, error) {
		dbs := make([]*mln.DB, len(sets))
		for i, files := range sets {
			var err error
			if dbs[i], err = ReadDBFiles(m, files...); err != nil {
				return nil, err
			}
		}
		return dbs, nil
	}
}

// pracConst reads a constant of a pracmln database: the adjacent tokens
// up to the next "," or ")" (pracmln allows '.', '!', ':' and the like in
// names), an integer in canonical form.
func (r *lineReader) pracConst() (string, token) {
	t := r.tok
	if t.kind == tComma || t.kind == tRParen || t.kind == tNewline || t.kind == tEOF {
		r.unexpected(t, "a constant")
	}
	end := t.end
	r.next()
	for r.tok.off == end && r.tok.kind != tComma && r.tok.kind != tRParen && r.tok.kind != tNewline && r.tok.kind != tEOF {
		end = r.tok.end
		r.next()
	}
	name := r.s.text[t.off:end]
	if c, msg := parseInt(name); msg == "" {
		return c, t
	}
	return name, t
}
