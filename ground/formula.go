package ground

import (
	"errors"
	"fmt"

	"github.com/lifted-dev/lifted/mln"
	"github.com/lifted-dev/lifted/pos"
)

// Formula is one MLN formula compiled for evaluation: its quantifiers
// expanded over the domains (EXIST into a disjunction, FORALL into a
// conjunction; false and true over an empty domain), so that what is left is
// a Boolean function of the formula's atom occurrences and equalities, whose
// arguments are free variables or constants. It is the evaluator the
// grounder uses, for packages that evaluate ground formulas themselves (the
// online learners' model, PLL counting).
//
// The free variables are numbered as in mln.Formula.Vars; a binding gives
// each a constant index into its type's domain.
type Formula struct {
	cf *formula
}

// Term is an argument of an occurrence: a free variable or a constant.
type Term int32

// Var returns the free variable of t, and false for a constant.
func (t Term) Var() (int, bool) { return int(t), t >= 0 }

// Const returns the constant index of t, and false for a variable.
func (t Term) Const() (int, bool) { return int(constOf(cterm(t))), t < 0 }

// ErrFunction reports a formula with a function term, which Compile does
// not support (the grounder rewrites such formulas with guard atoms).
var ErrFunction = errors.New("function terms are not supported")

// Domains returns the constants of every type of m (by type index), extended
// by those of db (nil for none): the domains Ground uses.
func Domains(m *mln.MLN, db *mln.DB) [][]string { return domainsOf(m, db) }

// CompileOptions configure Compile.
type CompileOptions struct {
	// KeepOccurrences keeps the atom occurrences whose value cannot matter
	// (under a subformula that constants make true or false, such as
	// "P(x) ^ x != x"), so that the occurrences are exactly the distinct
	// atoms written in the expanded formula, in order of first appearance.
	// By default they are left out.
	KeepOccurrences bool
}

// Compile compiles formula fi of m over domains (the constants of each type,
// by type index; see Domains) into a Formula over its free variables. The
// formula must be expanded: per-constant variables ("+x") and starred atoms
// are read as plain variables and atoms. Function terms are an error
// wrapping ErrFunction. Errors name the position in the MLN source.
func Compile(m *mln.MLN, domains [][]string, fi int, opt CompileOptions) (*Formula, error) {
	f := m.Formulas[fi]
	var fn *mln.Term
	mln.Inspect(f.Expr, func(e mln.Expr) bool {
		var ts []mln.Term
		switch x := e.(type) {
		case *mln.Atom:
			ts = x.Args
		case *mln.Equal:
			ts = []mln.Term{x.L, x.R}
		}
		for i := range ts {
			if ts[i].Func && fn == nil {
				fn = &ts[i]
			}
		}
		return fn == nil
	})
	if fn != nil {
		return nil, fmt.Errorf("%s: %w (%s)", fn.Pos, ErrFunction, fn.String())
	}
	c := newCompiler(m, domains)
	c.f = f
	c.keepOccs = opt.KeepOccurrences
	c.star = map[*mln.Atom]int{}
	cf, err := c.compileExpr(fi, f.Expr, f.Weight, f.Hard)
	if err != nil {
		return nil, err
	}
	return &Formula{cf: cf}, nil
}

// NumVars returns the number of free variables.
func (f *Formula) NumVars() int { return len(f.cf.slotDom) }

// VarDomain returns the size of free variable i's domain.
func (f *Formula) VarDomain(i int) int { return int(f.cf.slotDom[i]) }

// VarType returns the type index of free variable i.
func (f *Formula) VarType(i int) int { return f.cf.slotType[i] }

// NumOccs returns the number of distinct atom occurrences. With
// CompileOptions.KeepOccurrences they are all the atoms written in the
// expanded formula, in order of first appearance; otherwise those whose
// value can matter, in order of first appearance outside the subformulas
// that constants decide.
func (f *Formula) NumOccs() int { return len(f.cf.prog.occs) }

// Occ returns the predicate and argument terms of occurrence o; the slice
// aliases internal storage.
func (f *Formula) Occ(o int) (pred int, args []Term) {
	oc := &f.cf.prog.occs[o]
	return int(oc.pred), termsOf(oc.args)
}

func termsOf(ts []cterm) []Term {
	// cterm and Term have the same representation.
	out := make([]Term, len(ts))
	for i, t := range ts {
		out[i] = Term(t)
	}
	return out
}

// NumEqs returns the number of distinct equalities between terms.
func (f *Formula) NumEqs() int { return len(f.cf.prog.eqs) }

// Eq returns the two terms of equality i.
func (f *Formula) Eq(i int) (Term, Term) {
	e := f.cf.prog.eqs[i]
	return Term(e[0]), Term(e[1])
}

// Constant returns the formula's value when it does not depend on its
// occurrences and equalities at all.
func (f *Formula) Constant() (value, ok bool) {
	v, ok := f.cf.prog.constValue()
	return v == vTrue, ok
}

// Groundings returns the number of bindings of the free variables.
func (f *Formula) Groundings() float64 { return f.cf.bindings }

// EachBinding calls fn for every binding of the free variables, in
// lexicographic order (the last variable fastest), until fn returns an
// error, which it returns. The slice is reused between calls. A formula
// with a variable over an empty domain has no bindings.
func (f *Formula) EachBinding(fn func(bind []int32) error) error {
	dom := f.cf.slotDom
	for _, d := range dom {
		if d == 0 {
			return nil
		}
	}
	bind := make([]int32, len(dom))
	for {
		if err := fn(bind); err != nil {
			return err
		}
		if !advance(bind, dom) {
			return nil
		}
	}
}

// Eval evaluates a Formula at one binding. Bind fixes the binding and
// computes the ground arguments of every occurrence and the value of every
// equality; the caller sets the occurrences' values (Set) and reads Value.
// An Eval is not safe for concurrent use.
type Eval struct {
	f      *Formula
	bind   []int32
	args   [][]int32 // per occurrence
	occVal []uint8
	eqVal  []uint8
	vals   []uint8
	// Truth's state: the occurrences' values cached for the current call
	truth     func(pred int, args []int32) bool
	stamp     uint32
	occStamp  []uint32
	occTruth  []bool
	countBind []int32
}

// NewEval returns an evaluator of f.
func (f *Formula) NewEval() *Eval {
	p := &f.cf.prog
	e := &Eval{f: f, args: make([][]int32, len(p.occs)), occVal: make([]uint8, len(p.occs)),
		eqVal: make([]uint8, len(p.eqs)), vals: make([]uint8, len(p.nodes)),
		occStamp: make([]uint32, len(p.occs)), occTruth: make([]bool, len(p.occs))}
	for o := range p.occs {
		e.args[o] = make([]int32, len(p.occs[o].args))
		e.occVal[o] = vUnk
	}
	return e
}

// Bind fixes the binding of the free variables (constant indices, one per
// variable); the occurrences' values become unknown.
func (e *Eval) Bind(bind []int32) {
	p := &e.f.cf.prog
	e.bind = bind
	for o := range p.occs {
		for j, t := range p.occs[o].args {
			e.args[o][j] = bindOf(t, bind)
		}
		e.occVal[o] = vUnk
	}
	for i, q := range p.eqs {
		if bindOf(q[0], bind) == bindOf(q[1], bind) {
			e.eqVal[i] = vTrue
		} else {
			e.eqVal[i] = vFalse
		}
	}
}

// Args returns the ground arguments of occurrence o under the binding; the
// slice aliases internal storage.
func (e *Eval) Args(o int) []int32 { return e.args[o] }

// Set gives occurrence o a value.
func (e *Eval) Set(o int, v bool) {
	if v {
		e.occVal[o] = vTrue
	} else {
		e.occVal[o] = vFalse
	}
}

// SetEq overrides the value of equality i (Bind computes it).
func (e *Eval) SetEq(i int, v bool) {
	if v {
		e.eqVal[i] = vTrue
	} else {
		e.eqVal[i] = vFalse
	}
}

// Value evaluates the formula in three-valued logic: known is false when
// the value depends on an occurrence not Set since Bind.
func (e *Eval) Value() (value, known bool) {
	v := e.f.cf.prog.eval(e.occVal, e.eqVal, e.vals)
	return v == vTrue, v != vUnk
}

// Truth evaluates the formula at binding bind, reading the value of an
// occurrence from truth (given the occurrence's predicate and ground
// arguments) when the value is needed: connectives are evaluated left to
// right and stop as soon as their value is known.
func (e *Eval) Truth(bind []int32, truth func(pred int, args []int32) bool) bool {
	p := &e.f.cf.prog
	e.bind = bind
	e.truth = truth
	e.stamp++
	if e.stamp == 0 { // wrapped: forget every cached value
		clear(e.occStamp)
		e.stamp = 1
	}
	v := e.lazy(p, int32(len(p.nodes)-1))
	e.truth = nil
	return v
}

// Count returns the number of bindings at which the formula is true (see
// Truth).
func (e *Eval) Count(truth func(pred int, args []int32) bool) int64 {
	dom := e.f.cf.slotDom
	for _, d := range dom {
		if d == 0 {
			return 0
		}
	}
	bind := resize(e.countBind, len(dom))
	e.countBind = bind
	clear(bind)
	var n int64
	for {
		if e.Truth(bind, truth) {
			n++
		}
		if !advance(bind, dom) {
			return n
		}
	}
}

// lazy evaluates node i of p under e.bind (a program is a tree: every node
// but the root has one parent, so nothing is evaluated twice but the
// occurrences, which are cached for the binding).
func (e *Eval) lazy(p *program, i int32) bool {
	n := &p.nodes[i]
	switch n.op {
	case opAtom:
		o := n.ref
		if e.occStamp[o] != e.stamp {
			args := e.args[o]
			for j, t := range p.occs[o].args {
				args[j] = bindOf(t, e.bind)
			}
			e.occTruth[o] = e.truth(int(p.occs[o].pred), args)
			e.occStamp[o] = e.stamp
		}
		return e.occTruth[o]
	case opEq:
		q := p.eqs[n.ref]
		return bindOf(q[0], e.bind) == bindOf(q[1], e.bind)
	case opNot:
		return !e.lazy(p, n.kids[0])
	case opAnd:
		for _, k := range n.kids {
			if !e.lazy(p, k) {
				return false
			}
		}
		return true
	case opOr:
		for _, k := range n.kids {
			if e.lazy(p, k) {
				return true
			}
		}
		return false
	case opIff:
		return e.lazy(p, n.kids[0]) == e.lazy(p, n.kids[1])
	case opTrue:
		return true
	}
	return false
}

// VarTerm returns the term of free variable i.
func VarTerm(i int) Term { return Term(i) }

// ConstTerm returns the term of constant c.
func ConstTerm(c int) Term { return Term(constTerm(c)) }

// Builder builds a Formula directly, for formulas that are not an MLN's
// (the WFOMC compiler's ground fallback): the caller expands quantifiers
// and combines atom occurrences and equalities with the connectives, which
// fold constants. Nodes must be built before the nodes that use them.
type Builder struct {
	pb  progBuilder
	dom []int64
}

// Node is a node of a formula being built.
type Node int32

// NewBuilder starts a formula whose free variables range over domains of
// the given sizes.
func NewBuilder(varDom []int64) *Builder {
	b := &Builder{dom: append([]int64(nil), varDom...)}
	b.pb.reset(pos.Position{})
	return b
}

func (b *Builder) nodes(ns []Node) []int32 {
	out := make([]int32, len(ns))
	for i, n := range ns {
		out[i] = int32(n)
	}
	return out
}

// Atom returns the occurrence pred(args...); pred is the caller's numbering
// of predicates.
func (b *Builder) Atom(pred int, args []Term) Node {
	ts := make([]cterm, len(args))
	for i, a := range args {
		ts[i] = cterm(a)
	}
	return Node(b.pb.occNode(pred, ts))
}

// Eq returns the equality l = r.
func (b *Builder) Eq(l, r Term) Node { return Node(b.pb.eqNode(cterm(l), cterm(r))) }

// Const returns true or false.
func (b *Builder) Const(v bool) Node { return Node(b.pb.constNode(v)) }

// Not returns the negation of n.
func (b *Builder) Not(n Node) Node { return Node(b.pb.mkNot(int32(n))) }

// And returns the conjunction of kids (true for none).
func (b *Builder) And(kids ...Node) Node { return Node(b.pb.mkJunction(true, b.nodes(kids))) }

// Or returns the disjunction of kids (false for none).
func (b *Builder) Or(kids ...Node) Node { return Node(b.pb.mkJunction(false, b.nodes(kids))) }

// Iff returns x <=> y.
func (b *Builder) Iff(x, y Node) Node { return Node(b.pb.mkIff(int32(x), int32(y))) }

// Count is true when the number of true kids is cmp ("=", "<=", ">=") k:
// a counting quantifier of C2 over the groundings kids of its body.
func (b *Builder) Count(cmp string, k int, kids ...Node) Node {
	return Node(b.pb.mkCount(b.nodes(kids), cmp, k))
}

// Formula finishes the formula with root; the Builder must not be used
// afterwards. It fails when the formula grew too large.
func (b *Builder) Formula(root Node) (*Formula, error) {
	if b.pb.err != nil {
		return nil, b.pb.err
	}
	cf := &formula{index: -1, slotDom: b.dom, slotType: make([]int, len(b.dom)), slotName: make([]string, len(b.dom)), fresh: make([]bool, len(b.dom))}
	for i := range cf.slotType {
		cf.slotType[i] = -1
	}
	cf.prog = b.pb.prog.collect(int32(root))
	cf.setTotal()
	return &Formula{cf: cf}, nil
}

// advance steps bind to the next binding in odometer order (the last
// variable fastest) and reports false after the last one, when bind is
// back to all zeros.
func advance(bind []int32, dom []int64) bool {
	for i := len(bind) - 1; i >= 0; i-- {
		if bind[i]++; int64(bind[i]) < dom[i] {
			return true
		}
		bind[i] = 0
	}
	return false
}
