package mln

import (
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/lifted-dev/lifted/pos"
)

// Truth is the value of a ground atom in an evidence database.
type Truth uint8

// Truth values. Unknown is written "?P(A)" in a .db file.
const (
	False Truth = iota
	True
	Unknown
)

// String returns "false", "true" or "unknown".
func (t Truth) String() string {
	switch t {
	case False:
		return "false"
	case True:
		return "true"
	case Unknown:
		return "unknown"
	}
	return fmt.Sprintf("Truth(%d)", uint8(t))
}

// GroundAtom is one evidence atom. Args are constant indices into the
// domain of each argument's type (see DB.Domain).
type GroundAtom struct {
	Pred  int // index into MLN.Preds
	Args  []int
	Truth Truth
	Pos   pos.Position
}

// FuncValue is one function value from evidence, "C = f(A, B)". Args index
// the domains of the argument types, Value the domain of the return type.
type FuncValue struct {
	Func  int // index into MLN.Funcs
	Args  []int
	Value int
	Pos   pos.Position
}

// DB is an evidence database for one MLN: ground atoms with their truth
// values, Alchemy function values, and the domains of all types as extended
// by the constants the evidence mentions.
//
// Read order is kept: Atoms lists the atoms in the order they were read.
// Lookup finds an atom in constant time through a map keyed by the packed
// (predicate, argument indices) tuple.
type DB struct {
	// Atoms holds every evidence atom in file order (a repeated atom is kept
	// once, at its first occurrence).
	Atoms []GroundAtom
	// Funcs holds function values in file order.
	Funcs []FuncValue
	// Warnings lists accepted oddities, such as evidence constants missing
	// from a type declared with an explicit list (they are added to it).
	Warnings pos.ErrorList

	m        *MLN
	domains  []domain
	index    map[string]int32 // packed key → index in Atoms
	fIndex   map[string]int32 // packed key → index in Funcs
	perPred  []int
	mutexKey map[string]int32 // block key → index of its true atom
	buf      []byte
	scratch  []int
	arena    []int // backing store for GroundAtom.Args
}

type domain struct {
	names []string
	index map[string]int
}

func (d *domain) add(name string) (int, bool) {
	if i, ok := d.index[name]; ok {
		return i, false
	}
	i := len(d.names)
	d.names = append(d.names, name)
	d.index[name] = i
	return i, true
}

// NewDB returns an empty database for m. Each type's domain starts as
// m's (declared constants, then those formulas mention).
func NewDB(m *MLN) *DB {
	db := &DB{
		m:        m,
		domains:  make([]domain, len(m.Types)),
		index:    map[string]int32{},
		fIndex:   map[string]int32{},
		perPred:  make([]int, len(m.Preds)),
		mutexKey: map[string]int32{},
	}
	for i, t := range m.Types {
		d := domain{names: append([]string(nil), t.Constants...), index: make(map[string]int, len(t.Constants))}
		for j, c := range t.Constants {
			d.index[c] = j
		}
		db.domains[i] = d
	}
	return db
}

// ReadDB reads one .db file of evidence for m. name is used in positions.
// On error it returns what it could read and a pos.ErrorList.
func ReadDB(r io.Reader, name string, m *MLN) (*DB, error) {
	db := NewDB(m)
	err := db.Read(r, name)
	return db, err
}

// ReadDBFiles reads several .db files, in order, into one database.
func ReadDBFiles(m *MLN, filenames ...string) (*DB, error) {
	db := NewDB(m)
	var errs pos.ErrorList
	for _, name := range filenames {
		f, err := os.Open(name)
		if err != nil {
			errs.Add(pos.Position{File: name}, "cannot read file: %s", errText(err))
			continue
		}
		err = db.Read(f, name)
		f.Close()
		if el, ok := err.(pos.ErrorList); ok {
			errs = append(errs, el...)
		} else if err != nil {
			errs.Add(pos.Position{File: name}, "%v", err)
		}
	}
	return db, errs.Err()
}

// MLN returns the MLN the database belongs to.
func (db *DB) MLN() *MLN { return db.m }

// Domain returns the domain of the named type: the MLN's constants, then
// constants met in evidence in order of first appearance. It returns nil
// for an unknown type. The slice must not be modified.
func (db *DB) Domain(typ string) []string {
	if i := db.m.TypeIndex(typ); i >= 0 {
		return db.domains[i].names
	}
	return nil
}

// ConstIndex returns the index of constant name in the domain of typ, or -1.
func (db *DB) ConstIndex(typ, name string) int {
	if i := db.m.TypeIndex(typ); i >= 0 {
		if j, ok := db.domains[i].index[name]; ok {
			return j
		}
	}
	return -1
}

// Count returns the number of evidence atoms (of any truth value) of the
// predicate with index pred.
func (db *DB) Count(pred int) int { return db.perPred[pred] }

func (db *DB) key(tag byte, head int, args []int, skip []int) []byte {
	b := append(db.buf[:0], tag)
	b = binary.AppendUvarint(b, uint64(head))
outer:
	for i, a := range args {
		for _, s := range skip {
			if s == i {
				continue outer
			}
		}
		b = binary.AppendUvarint(b, uint64(a))
	}
	db.buf = b
	return b
}

// Lookup returns the truth value of the ground atom pred(args...), args
// being domain indices, and whether the database has it.
func (db *DB) Lookup(pred int, args []int) (Truth, bool) {
	if i, ok := db.index[string(db.key('a', pred, args, nil))]; ok {
		return db.Atoms[i].Truth, true
	}
	return False, false
}

// LookupAtom is Lookup by names: LookupAtom("Friends", "Anna", "Bob").
func (db *DB) LookupAtom(pred string, args ...string) (Truth, bool) {
	d := db.m.Pred(pred)
	if d == nil || len(args) != len(d.ArgTypes) {
		return False, false
	}
	idx := make([]int, len(args))
	for i, a := range args {
		j, ok := db.domains[d.TypeIdx[i]].index[a]
		if !ok {
			return False, false
		}
		idx[i] = j
	}
	return db.Lookup(d.Index, idx)
}

// FuncValueOf returns the value (a domain index of the return type) of
// function fn at args, and whether the evidence defines it.
func (db *DB) FuncValueOf(fn int, args []int) (int, bool) {
	if i, ok := db.fIndex[string(db.key('f', fn, args, nil))]; ok {
		return db.Funcs[i].Value, true
	}
	return 0, false
}

// Format prints an evidence atom as in a .db file: "Friends(Anna,Bob)",
// "!Smokes(Bob)", "?Cancer(Carl)".
func (db *DB) Format(a GroundAtom) string {
	var b strings.Builder
	switch a.Truth {
	case False:
		b.WriteByte('!')
	case Unknown:
		b.WriteByte('?')
	}
	d := db.m.Preds[a.Pred]
	b.WriteString(d.Name)
	if len(a.Args) > 0 {
		b.WriteByte('(')
		for i, x := range a.Args {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(db.domains[d.TypeIdx[i]].names[x])
		}
		b.WriteByte(')')
	}
	return b.String()
}

// AddAtom adds evidence pred(args...) = v, extending domains with new
// constants. It fails for an unknown predicate, a wrong number of arguments,
// a contradiction with earlier evidence, or a second true value in a block
// of mutually exclusive atoms.
func (db *DB) AddAtom(pred string, args []string, v Truth) error {
	d := db.m.Pred(pred)
	if d == nil {
		return fmt.Errorf("unknown predicate %q", pred)
	}
	if len(args) != len(d.ArgTypes) {
		return fmt.Errorf("predicate %q takes %d arguments, got %d", pred, len(d.ArgTypes), len(args))
	}
	if err := db.add(d, args, nil, v, pos.Position{}); err != nil {
		return err
	}
	return nil
}

// add is AddAtom for checked arguments; argAt, if not nil, holds the
// position of each argument.
func (db *DB) add(d *PredDecl, args []string, argAt []pos.Position, v Truth, at pos.Position) *pos.Error {
	idx := db.scratch[:0]
	for range args {
		idx = append(idx, 0)
	}
	db.scratch = idx
	for i, a := range args {
		p := at
		if argAt != nil {
			p = argAt[i]
		}
		idx[i] = db.constant(d.TypeIdx[i], a, p)
	}
	k := db.key('a', d.Index, idx, nil)
	if i, ok := db.index[string(k)]; ok {
		old := db.Atoms[i]
		if old.Truth != v {
			return pos.Errorf(at, "conflicting evidence: %s here contradicts %s at %s; an atom can have only one value",
				db.Format(GroundAtom{Pred: d.Index, Args: idx, Truth: v}), db.Format(old), relPos(at, old.Pos))
		}
		return nil // a harmless repeat
	}
	if v == True && len(d.MutexArgs) > 0 {
		mk := string(db.key('m', d.Index, idx, d.MutexArgs))
		if j, ok := db.mutexKey[mk]; ok {
			old := db.Atoms[j]
			return pos.Errorf(at, "%s and %s (at %s) are both true, but %s allows only one true value of its \"!\" argument for the same other arguments",
				db.Format(GroundAtom{Pred: d.Index, Args: idx, Truth: v}), db.Format(old), relPos(at, old.Pos), d.String())
		}
		db.mutexKey[mk] = int32(len(db.Atoms))
		k = db.key('a', d.Index, idx, nil)
	}
	db.index[string(k)] = int32(len(db.Atoms))
	db.Atoms = append(db.Atoms, GroundAtom{Pred: d.Index, Args: db.keep(idx), Truth: v, Pos: at})
	db.perPred[d.Index]++
	return nil
}

// keep copies idx into the argument arena, which saves one allocation
// per atom.
func (db *DB) keep(idx []int) []int {
	if len(idx) == 0 {
		return nil
	}
	if len(db.arena) < len(idx) {
		db.arena = make([]int, max(4096, len(idx)))
	}
	out := db.arena[:len(idx):len(idx)]
	db.arena = db.arena[len(idx):]
	copy(out, idx)
	return out
}

// constant returns the domain index of name in type t, adding it.
func (db *DB) constant(t int, name string, at pos.Position) int {
	i, added := db.domains[t].add(name)
	if added {
		if td := db.m.Types[t]; td.Declared {
			db.Warnings.Add(at, "constant %s is not in the declared domain of type %q; it is added to the domain, as Alchemy does", name, td.Name)
		}
	}
	return i
}

// Read reads one .db file into the database. A .db file has one ground atom
// per line, optionally negated with "!" or marked unknown with "?":
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
func (db *DB) Read(r io.Reader, name string) error {
	src, err := io.ReadAll(r)
	if err != nil {
		return pos.ErrorList{pos.Errorf(pos.Position{File: name}, "read error: %v", err)}
	}
	rd := newLineReader(src, name, db.m)
	for {
		rd.skipNewlines()
		if rd.tok.kind == tEOF {
			break
		}
		if len(rd.errs) >= maxErrors {
			rd.errs.Add(rd.pos(rd.tok), "too many errors; stopping")
			break
		}
		if e := rd.line(db.evidenceLine); e != nil {
			rd.errs = append(rd.errs, e)
		}
	}
	rd.errs.Sort()
	return rd.errs.Err()
}

// lineReader reads line-oriented ground syntax (.db files and queries)
// token by token, with two tokens of lookahead.
type lineReader struct {
	s    *scanner
	file string
	m    *MLN
	tok  token
	la   []token
	errs pos.ErrorList

	names []string       // scratch for atomArgs
	toks  []token        // scratch for atomArgs
	at    []pos.Position // scratch for argument positions
}

func newLineReader(src []byte, name string, m *MLN) *lineReader {
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

func (r *lineReader) peek() token {
	if len(r.la) == 0 {
		r.la = append(r.la, r.s.next())
	}
	return r.la[0]
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
		if isVarName(t.text) {
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
			s, t = r.groundConst("a constant")
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
func (r *lineReader) predFor(t token, nargs int) *PredDecl {
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
		if s := suggest(t.text, names); s != "" {
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
func (db *DB) evidenceLine(r *lineReader) *pos.Error {
	start := r.tok
	v := True
	switch start.kind {
	case tNot:
		v = False
		r.next()
	case tQuestion:
		v = Unknown
		r.next()
	case tNumber:
		if r.peek().kind == tEq {
			return db.funcLine(r)
		}
		r.fail(start, "soft evidence is not supported: remove the weight or probability %s before the atom", start.text)
	case tIdent, tString:
		if r.peek().kind == tEq {
			return db.funcLine(r)
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
	return db.add(d, args, argAt, v, r.pos(start))
}

// funcLine parses "C = f(A, B)".
func (db *DB) funcLine(r *lineReader) *pos.Error {
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
	at := r.pos(start)
	idx := make([]int, len(args))
	for i, a := range args {
		idx[i] = db.constant(fd.TypeIdx[i], a, r.pos(toks[i]))
	}
	vi := db.constant(fd.RetIdx, val, r.pos(valTok))
	k := db.key('f', fd.Index, idx, nil)
	if i, ok := db.fIndex[string(k)]; ok {
		old := db.Funcs[i]
		if old.Value != vi {
			return pos.Errorf(at, "conflicting function values: %s(%s) is %s here but %s at %s",
				fd.Name, strings.Join(args, ","), val, db.domains[fd.RetIdx].names[old.Value], relPos(at, old.Pos))
		}
		return nil
	}
	db.fIndex[string(k)] = int32(len(db.Funcs))
	db.Funcs = append(db.Funcs, FuncValue{Func: fd.Index, Args: idx, Value: vi, Pos: at})
	return nil
}

// Domains returns the final domain of every type of m: the declared
// constants, then constants from formulas, then constants met in each
// database in order of first appearance.
func Domains(m *MLN, dbs ...*DB) map[string][]string {
	out := make(map[string][]string, len(m.Types))
	for i, t := range m.Types {
		seen := make(map[string]bool, len(t.Constants))
		var names []string
		add := func(cs []string) {
			for _, c := range cs {
				if !seen[c] {
					seen[c] = true
					names = append(names, c)
				}
			}
		}
		add(t.Constants)
		for _, db := range dbs {
			if db != nil && db.m == m {
				add(db.domains[i].names)
			}
		}
		if names == nil {
			names = []string{}
		}
		out[t.Name] = names
	}
	return out
}

// ReadQuery reads query atoms, separated by commas or line breaks, such as
// "Smokes, Cancer(x), Friends(Anna, y)" or a Tuffy query.db file. Arguments
// may be variables or constants; a bare predicate name queries all its
// groundings. Terms get the types of their argument positions; constants
// are not added to any domain.
func ReadQuery(rd io.Reader, name string, m *MLN) ([]*Atom, error) {
	src, err := io.ReadAll(rd)
	if err != nil {
		return nil, pos.ErrorList{pos.Errorf(pos.Position{File: name}, "read error: %v", err)}
	}
	r := newLineReader(src, name, m)
	var atoms []*Atom
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
			a := &Atom{Pred: t.text, Pos: r.pos(t)}
			if args == nil && r.m.Pred(t.text) != nil {
				atoms = append(atoms, a) // all groundings
			} else {
				d := r.predFor(t, len(args))
				for i, s := range args {
					a.Args = append(a.Args, Term{Name: s, IsVar: isVarName(s), Type: d.ArgTypes[i], Pos: r.pos(toks[i])})
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
