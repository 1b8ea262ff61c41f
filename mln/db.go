package mln

import (
	"encoding/binary"
	"fmt"
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

// domain is a type's domain in a database: the MLN's constants, then those
// met in evidence. base, when not nil, is the TypeDecl's index of
// names[:nbase], shared read-only (a type of 10⁶ declared constants is not
// indexed twice); an entry of base at nbase or beyond, or negative, was
// added to the MLN after the database was made and does not count. index
// holds the other names.
type domain struct {
	names []string
	base  map[string]int
	nbase int
	index map[string]int
}

func (d *domain) lookup(name string) (int, bool) {
	if d.base != nil {
		if i, ok := d.base[name]; ok && 0 <= i && i < d.nbase {
			return i, true
		}
	}
	i, ok := d.index[name]
	return i, ok
}

func (d *domain) add(name string) (int, bool) {
	if i, ok := d.lookup(name); ok {
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
		n := len(t.Constants)
		if t.index != nil && len(t.index) == n {
			// Share the type's index (Builder.Finish builds it) and its
			// constants; the full slice expression makes the first
			// append copy them.
			db.domains[i] = domain{names: t.Constants[:n:n], base: t.index, nbase: n, index: map[string]int{}}
			continue
		}
		d := domain{names: append([]string(nil), t.Constants...), index: make(map[string]int, n)}
		for j, c := range t.Constants {
			d.index[c] = j
		}
		db.domains[i] = d
	}
	return db
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
		if j, ok := db.domains[i].lookup(name); ok {
			return j
		}
	}
	return -1
}

// Count returns the number of evidence atoms (of any truth value) of the
// predicate with index pred.
func (db *DB) Count(pred int) int { return db.perPred[pred] }

// key is the map key of an atom or function value, built in the
// database's buffer: for writers only (AddAtomAt, …), which may not run
// concurrently with anything. Readers (Lookup, LookupFunc) build theirs
// with appendKey on their own stack, so that any number of goroutines may
// read one database at once.
func (db *DB) key(tag byte, head int, args []int, skip []int) []byte {
	db.buf = appendKey(db.buf[:0], tag, head, args, skip)
	return db.buf
}

// appendKey appends the key of tag, head and args (less the positions in
// skip) to b.
func appendKey(b []byte, tag byte, head int, args []int, skip []int) []byte {
	b = append(b, tag)
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
	return b
}

// Lookup returns the truth value of the ground atom pred(args...), args
// being domain indices, and whether the database has it.
func (db *DB) Lookup(pred int, args []int) (Truth, bool) {
	var buf [64]byte
	if i, ok := db.index[string(appendKey(buf[:0], 'a', pred, args, nil))]; ok {
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
		j, ok := db.domains[d.TypeIdx[i]].lookup(a)
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
	var buf [64]byte
	if i, ok := db.fIndex[string(appendKey(buf[:0], 'f', fn, args, nil))]; ok {
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
	if err := db.AddAtomAt(d, args, nil, v, pos.Position{}); err != nil {
		return err
	}
	return nil
}

// AddAtomAt is AddAtom for a reader of evidence files: d is a predicate of
// the database's MLN and args has its arity (the caller has checked both).
// The atom is recorded at position at; argAt, if not nil, holds the
// position of each argument (for warnings about constants new to a
// declared type). A conflict with earlier evidence is returned as a
// positioned error (nil if none).
func (db *DB) AddAtomAt(d *PredDecl, args []string, argAt []pos.Position, v Truth, at pos.Position) *pos.Error {
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

// AddConstantAt adds constant name to the domain of type t (an index into
// the MLN's Types), as a domain declaration in a database does (pracmln);
// at is where it was declared. It is a no-op for a constant already there.
func (db *DB) AddConstantAt(t int, name string, at pos.Position) {
	db.constant(t, name, at)
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

// AddFuncValueAt records the evidence function value "val = fd(args...)"
// for a reader of evidence files: fd is a function of the database's MLN
// and args has its arity (the caller has checked both). The value is
// recorded at position at; argAt holds the position of each argument and
// valAt that of val. A conflict with an earlier value is returned as a
// positioned error (nil if none).
func (db *DB) AddFuncValueAt(fd *FuncDecl, args []string, argAt []pos.Position, val string, valAt, at pos.Position) *pos.Error {
	idx := make([]int, len(args))
	for i, a := range args {
		idx[i] = db.constant(fd.TypeIdx[i], a, argAt[i])
	}
	vi := db.constant(fd.RetIdx, val, valAt)
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
