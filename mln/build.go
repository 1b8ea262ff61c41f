package mln

import (
	"fmt"
	"slices"

	"github.com/lifted-dev/lifted/pos"
)

// A Builder assembles an MLN declaration by declaration and formula by
// formula, in the order a .mln file states them: each formula is
// type-checked against the declarations made before it (see AddFormula).
// Readers of the .mln syntax (package format/mlnfile) build through it, and so
// do Expand and MutexAsFormulas, so every MLN is checked by the same code.
//
// Errors and warnings are collected, not returned one by one: Errorf and
// Warnf record those of the caller (a syntax error, say) in the same lists
// as the checker's, and Finish returns them sorted by position.
type Builder struct {
	m    *MLN
	errs pos.ErrorList
	// Unknown-predicate errors, revisited by Finish: the predicate may be
	// declared after its first use.
	unknown []unknownUse
}

type unknownUse struct {
	name string
	err  *pos.Error
}

// NewBuilder returns a Builder of an empty MLN.
func NewBuilder() *Builder {
	return &Builder{m: &MLN{
		types: map[string]int{},
		preds: map[string]int{},
		funcs: map[string]int{},
	}}
}

// MLN returns the MLN built so far, for looking declarations up while
// building; it must not be modified other than through b.
func (b *Builder) MLN() *MLN { return b.m }

// Errorf records an error at position at and returns it.
func (b *Builder) Errorf(at pos.Position, format string, args ...any) *pos.Error {
	e := pos.Errorf(at, format, args...)
	b.errs = append(b.errs, e)
	return e
}

// Warnf records a warning at position at (see MLN.Warnings).
func (b *Builder) Warnf(at pos.Position, format string, args ...any) {
	b.m.Warnings.Add(at, format, args...)
}

// NumErrors returns the number of errors recorded so far.
func (b *Builder) NumErrors() int { return len(b.errs) }

// Finish returns the MLN and, if any error was recorded, a pos.ErrorList
// sorted by position. An unknown predicate that was declared after its
// first use is reported as such.
func (b *Builder) Finish() (*MLN, error) {
	for _, u := range b.unknown {
		if d := b.m.Pred(u.name); d != nil {
			u.err.Msg = fmt.Sprintf("predicate %q is used before its declaration at %s; move the declaration above the first formula that uses it",
				u.name, relPos(u.err.Pos, d.Pos))
		}
	}
	for _, td := range b.m.Types {
		td.constIndex() // built now, so that readers (NewDB) share it without writing
	}
	b.errs.Sort()
	b.m.Warnings.Sort()
	return b.m, b.errs.Err()
}

// DeclareType declares the type name with the constants consts
// ("name = {…}" at position at), or adds them to it: a type may be
// declared again (with a warning), and a type that only an argument
// position named so far becomes declared. Declared constants come before
// those formulas added.
func (b *Builder) DeclareType(name string, at pos.Position, consts []string) {
	td := b.m.Type(name)
	if td == nil {
		td = b.addType(name, at)
	} else if td.Declared {
		b.Warnf(at, "type %q is declared again (first at %s); the constants are added to it", name, relPos(at, td.Pos))
	}
	td.Declared = true
	if td.NumDeclared == len(td.Constants) {
		// No constants from formulas yet (the usual case): the fresh
		// constants go at the end and the index stays valid.
		idx := td.constIndex()
		if len(idx) == 0 {
			idx = make(map[string]int, len(consts))
			td.index = idx
		}
		td.Constants = slices.Grow(td.Constants, len(consts))
		for _, c := range consts {
			if _, ok := idx[c]; !ok {
				idx[c] = len(td.Constants)
				td.Constants = append(td.Constants, c)
			}
		}
		td.NumDeclared = len(td.Constants)
		return
	}
	idx := td.constIndex()
	var fresh []string
	for _, c := range consts {
		if _, ok := idx[c]; !ok {
			idx[c] = -1 // placeholder; positions are rebuilt below
			fresh = append(fresh, c)
		}
	}
	// Declared constants go before those added by formulas.
	cs := make([]string, 0, len(td.Constants)+len(fresh))
	cs = append(cs, td.Constants[:td.NumDeclared]...)
	cs = append(cs, fresh...)
	cs = append(cs, td.Constants[td.NumDeclared:]...)
	td.Constants = cs
	td.NumDeclared += len(fresh)
	td.index = nil
}

func (b *Builder) addType(name string, at pos.Position) *TypeDecl {
	td := &TypeDecl{Name: name, Index: len(b.m.Types), Pos: at}
	b.m.Types = append(b.m.Types, td)
	b.m.types[name] = td.Index
	return td
}

// typeIndex returns the index of the named type, creating an open type.
func (b *Builder) typeIndex(name string, at pos.Position) int {
	if i, ok := b.m.types[name]; ok {
		return i
	}
	return b.addType(name, at).Index
}

// DeclarePred adds the predicate d, whose Name, ArgTypes, MutexArgs,
// ClosedWorld and Pos are set; argAt[i] is where ArgTypes[i] is written.
// DeclarePred sets Index, TypeIdx and MutexArg; an argument type not
// declared yet becomes an open type (see TypeDecl). A name that is already
// a predicate or function is an error.
func (b *Builder) DeclarePred(d *PredDecl, argAt []pos.Position) {
	if b.declared(d.Name, d.Pos) {
		return
	}
	d.Index = len(b.m.Preds)
	d.MutexArg = -1
	if len(d.MutexArgs) > 0 {
		d.MutexArg = d.MutexArgs[0]
	}
	d.TypeIdx = nil
	for i, t := range d.ArgTypes {
		d.TypeIdx = append(d.TypeIdx, b.typeIndex(t, argAt[i]))
	}
	b.m.Preds = append(b.m.Preds, d)
	b.m.preds[d.Name] = d.Index
}

// DeclareFunc adds the function d, whose Name, RetType, ArgTypes and Pos
// (the position of RetType) are set; argAt[i] is where ArgTypes[i] is
// written. DeclareFunc sets Index, RetIdx and TypeIdx, creating open types
// as DeclarePred does. A name that is already a predicate or function is
// an error.
func (b *Builder) DeclareFunc(d *FuncDecl, argAt []pos.Position) {
	if b.declared(d.Name, d.Pos) {
		return
	}
	d.Index = len(b.m.Funcs)
	d.RetIdx = b.typeIndex(d.RetType, d.Pos)
	d.TypeIdx = nil
	for i, t := range d.ArgTypes {
		d.TypeIdx = append(d.TypeIdx, b.typeIndex(t, argAt[i]))
	}
	b.m.Funcs = append(b.m.Funcs, d)
	b.m.funcs[d.Name] = d.Index
}

// declared reports (as an error at at) a name that is already declared.
func (b *Builder) declared(name string, at pos.Position) bool {
	switch {
	case b.m.Func(name) != nil:
		b.Errorf(at, "function %q is already declared at %s", name, relPos(at, b.m.Func(name).Pos))
	case b.m.Pred(name) != nil:
		b.Errorf(at, "predicate %q is already declared at %s", name, relPos(at, b.m.Pred(name).Pos))
	default:
		return false
	}
	return true
}

// AddFormula type-checks f against the declarations so far and appends it
// to the MLN. f.Expr is the formula as written (terms untyped, quantified
// variables without types); checking fills in Term.Type, the types of the
// quantified variables and f.Vars, and adds the constants f mentions to
// the domains of their types. Problems are recorded as errors; the formula
// is added in any case.
func (b *Builder) AddFormula(f *Formula) {
	b.checkFormula(f)
	b.m.Formulas = append(b.m.Formulas, f)
}

// relPos prints at relative to from: "7:3" in the same file, else in full.
func relPos(from, at pos.Position) string {
	if at.File == from.File && at.Line > 0 {
		return fmt.Sprintf("%d:%d", at.Line, at.Col)
	}
	return at.String()
}

// ConstIndex returns the position of constant c in d.Constants, or -1.
func (d *TypeDecl) ConstIndex(c string) int {
	if i, ok := d.constIndex()[c]; ok {
		return i
	}
	return -1
}
