package ground

import (
	"fmt"

	"github.com/lifted-dev/lifted/mln"
	"github.com/lifted-dev/lifted/pos"
)

// A compiled formula is a flat program over "occurrences": the distinct atoms
// of the formula after quantifiers are expanded over their domains, with
// arguments that are free-variable slots or constants. Grounding binds the
// slots; each occurrence then names one ground atom.

// cterm is a compiled term: a free-variable slot (>= 0) or constant c
// encoded as -(c+1).
type cterm = int32

func constTerm(c int) cterm { return cterm(-c - 1) }
func isConst(t cterm) bool  { return t < 0 }
func constOf(t cterm) int32 { return -t - 1 }
func bindOf(t cterm, bind []int32) int32 {
	if t < 0 {
		return -t - 1
	}
	return bind[t]
}

// Node operations.
const (
	opAtom uint8 = iota
	opEq
	opNot
	opAnd
	opOr
	opIff
	opTrue
	opFalse
)

// Three-valued truth.
const (
	vFalse uint8 = 0
	vTrue  uint8 = 1
	vUnk   uint8 = 2
)

type node struct {
	op   uint8
	ref  int32   // occurrence or equality index
	kids []int32 // child nodes (earlier in the program)
}

type occurrence struct {
	pred int32
	args []cterm
}

// program is a formula as a list of nodes, children before parents, the
// root last.
type program struct {
	nodes []node
	occs  []occurrence
	eqs   [][2]cterm
}

// eval computes the three-valued value of the program given the values of
// its occurrences and equalities; vals is scratch of len(nodes).
func (p *program) eval(occVal, eqVal, vals []uint8) uint8 {
	for i := range p.nodes {
		n := &p.nodes[i]
		var v uint8
		switch n.op {
		case opAtom:
			v = occVal[n.ref]
		case opEq:
			v = eqVal[n.ref]
		case opNot:
			v = vals[n.kids[0]]
			if v != vUnk {
				v ^= 1
			}
		case opAnd:
			v = vTrue
			for _, k := range n.kids {
				if x := vals[k]; x == vFalse {
					v = vFalse
					break
				} else if x == vUnk {
					v = vUnk
				}
			}
		case opOr:
			v = vFalse
			for _, k := range n.kids {
				if x := vals[k]; x == vTrue {
					v = vTrue
					break
				} else if x == vUnk {
					v = vUnk
				}
			}
		case opIff:
			a, b := vals[n.kids[0]], vals[n.kids[1]]
			if a == vUnk || b == vUnk {
				v = vUnk
			} else if a == b {
				v = vTrue
			} else {
				v = vFalse
			}
		case opTrue:
			v = vTrue
		case opFalse:
			v = vFalse
		}
		vals[i] = v
	}
	return vals[len(vals)-1]
}

// constValue returns the value of a program whose root is a constant.
func (p *program) constValue() (uint8, bool) {
	switch p.nodes[len(p.nodes)-1].op {
	case opTrue:
		return vTrue, true
	case opFalse:
		return vFalse, true
	}
	return vUnk, false
}

// formula is one compiled piece of an MLN formula: the formula itself, one
// sign combination of its "*" atoms, one conjunct of a hard formula, or (with
// Alchemy's CNF weighting) one clause.
type formula struct {
	index  int // in MLN.Formulas
	src    *mln.Formula
	weight float64
	hard   bool
	prog   program
	// slots are the free variables the program binds, then one slot per
	// distinct function term (fresh), named by the term, which holds its
	// value: the program is the formula guarded as !ReturnValueOf_f(r,
	// args) v F[r/f(args)] (see funcTerm).
	slotName []string
	slotType []int   // type index
	slotDom  []int64 // domain size
	fresh    []bool
	// total is the number of groundings, the product of slotDom, and
	// bindings the number of bindings of the formula's own variables (the
	// product over the slots that are not fresh): the guarded formula has
	// total groundings, the formula itself bindings, and the difference
	// consists of groundings made true by a false guard.
	total, bindings float64
}

// guard is a function term f(args) = r of a formula: r is its fresh slot.
type guard struct {
	fn   int
	slot cterm
	args []cterm
}

// maxNodes bounds the size of a formula after quantifier expansion.
const maxNodes = 1 << 20

// compiler turns one mln.Formula into programs.
type compiler struct {
	m       *mln.MLN
	domains [][]string
	consts  []map[string]int // per type: constant → index
	f       *mln.Formula

	progBuilder
	slot     map[string]int32 // free variable → slot
	env      map[string]int32 // quantified variable → constant
	funcSlot map[string]int32 // function and argument terms → fresh slot
	guards   []guard
	star     map[*mln.Atom]int
	mask     uint64 // sign combination of starred atoms
	keepOccs bool   // see CompileOptions.KeepOccurrences
}

// progBuilder builds a program node by node, children first, folding
// constants and sharing equal occurrences and equalities.
type progBuilder struct {
	prog     *program
	occIndex map[string]int32
	eqIndex  map[[2]cterm]int32
	err      error
	at       pos.Position // of the formula, for errors
	keyBuf   []byte
}

func (c *progBuilder) reset(at pos.Position) {
	c.prog = &program{}
	c.occIndex = map[string]int32{}
	c.eqIndex = map[[2]cterm]int32{}
	c.err = nil
	c.at = at
}

func newCompiler(m *mln.MLN, domains [][]string) *compiler {
	c := &compiler{m: m, domains: domains, consts: make([]map[string]int, len(domains))}
	for i, d := range domains {
		c.consts[i] = make(map[string]int, len(d))
		for j, s := range d {
			c.consts[i][s] = j
		}
	}
	return c
}

// compileFormula compiles formula fi of the MLN with weight w into one or
// more programs (one per sign combination of starred atoms; a hard formula
// is split into its top-level conjuncts).
func (c *compiler) compileFormula(fi int, w float64, hard bool) ([]*formula, error) {
	f := c.m.Formulas[fi]
	c.f = f
	c.star = map[*mln.Atom]int{}
	mln.Inspect(f.Expr, func(e mln.Expr) bool {
		if a, ok := e.(*mln.Atom); ok && a.Star {
			if _, seen := c.star[a]; !seen {
				c.star[a] = len(c.star)
			}
		}
		return true
	})
	if len(c.star) > 10 {
		return nil, pos.Errorf(f.Pos, "formula has %d starred atoms; at most 10 are supported (2^10 sign combinations)", len(c.star))
	}
	var parts []mln.Expr
	if hard {
		parts = conjuncts(f.Expr, nil)
	} else {
		parts = []mln.Expr{f.Expr}
	}
	var out []*formula
	for mask := uint64(0); mask < 1<<len(c.star); mask++ {
		c.mask = mask
		for _, e := range parts {
			cf, err := c.compileExpr(fi, e, w, hard)
			if err != nil {
				return nil, err
			}
			if hard {
				cf.compact()
			}
			out = append(out, cf)
		}
	}
	return out, nil
}

// conjuncts splits e at top-level conjunctions (through negations of
// disjunctions and implications), which is exact for hard formulas.
func conjuncts(e mln.Expr, out []mln.Expr) []mln.Expr {
	switch x := e.(type) {
	case *mln.And:
		return conjuncts(x.R, conjuncts(x.L, out))
	case *mln.Not:
		switch y := x.X.(type) {
		case *mln.Not:
			return conjuncts(y.X, out)
		case *mln.Or:
			out = conjuncts(&mln.Not{X: y.L, Pos: x.Pos}, out)
			return conjuncts(&mln.Not{X: y.R, Pos: x.Pos}, out)
		case *mln.Implies:
			out = conjuncts(y.L, out)
			return conjuncts(&mln.Not{X: y.R, Pos: x.Pos}, out)
		}
	}
	return append(out, e)
}

func (c *compiler) compileExpr(fi int, e mln.Expr, w float64, hard bool) (*formula, error) {
	f := c.f
	c.reset(f.Pos)
	c.slot = map[string]int32{}
	c.env = map[string]int32{}
	c.funcSlot = map[string]int32{}
	c.guards = c.guards[:0]
	cf := &formula{index: fi, src: f, weight: w, hard: hard}
	for i, v := range f.Vars {
		ti := c.m.TypeIndex(v.Type)
		if ti < 0 {
			return nil, pos.Errorf(v.Pos, "variable %q has no type", v.Name)
		}
		c.slot[v.Name] = int32(i)
		cf.slotName = append(cf.slotName, v.Name)
		cf.slotType = append(cf.slotType, ti)
		cf.slotDom = append(cf.slotDom, int64(len(c.domains[ti])))
		cf.fresh = append(cf.fresh, false)
	}
	// The function terms of the whole formula, not only of e: the conjuncts
	// of a split hard formula are all true where one of its function terms
	// is undefined.
	c.funcTerms(f.Expr, cf)
	root := c.expr(e)
	if len(c.guards) > 0 {
		kids := make([]int32, 0, len(c.guards)+1)
		for _, g := range c.guards {
			args := append([]cterm{g.slot}, g.args...)
			kids = append(kids, c.mkNot(c.occNode(funcPred(c.m, g.fn), args)))
		}
		root = c.mkJunction(false, append(kids, root))
	}
	if c.err != nil {
		return nil, c.err
	}
	cf.prog = c.prog.collectKeep(root, c.keepOccs)
	cf.setTotal()
	return cf, nil
}

func (cf *formula) setTotal() {
	cf.total, cf.bindings = 1, 1
	for s, d := range cf.slotDom {
		cf.total *= float64(d)
		if !cf.fresh[s] {
			cf.bindings *= float64(d)
		}
	}
}

// compact drops the slots the program does not use (for hard formulas,
// where repeating a ground formula changes nothing).
func (cf *formula) compact() {
	used := make([]bool, len(cf.slotDom))
	mark := func(t cterm) {
		if !isConst(t) {
			used[t] = true
		}
	}
	for _, o := range cf.prog.occs {
		for _, a := range o.args {
			mark(a)
		}
	}
	for _, e := range cf.prog.eqs {
		mark(e[0])
		mark(e[1])
	}
	remap := make([]int32, len(used))
	var name []string
	var typ []int
	var dom []int64
	var fresh []bool
	for s, u := range used {
		if u {
			remap[s] = int32(len(name))
			name = append(name, cf.slotName[s])
			typ = append(typ, cf.slotType[s])
			dom = append(dom, cf.slotDom[s])
			fresh = append(fresh, cf.fresh[s])
		}
	}
	re := func(t cterm) cterm {
		if isConst(t) {
			return t
		}
		return remap[t]
	}
	for i := range cf.prog.occs {
		for j, a := range cf.prog.occs[i].args {
			cf.prog.occs[i].args[j] = re(a)
		}
	}
	for i, e := range cf.prog.eqs {
		cf.prog.eqs[i] = [2]cterm{re(e[0]), re(e[1])}
	}
	cf.slotName, cf.slotType, cf.slotDom, cf.fresh = name, typ, dom, fresh
	cf.setTotal()
}

func (c *compiler) fail(at pos.Position, format string, args ...any) int32 {
	if c.err == nil {
		c.err = pos.Errorf(at, format, args...)
	}
	return c.add(node{op: opFalse})
}

func (c *progBuilder) add(n node) int32 {
	if len(c.prog.nodes) >= maxNodes && c.err == nil {
		c.err = pos.Errorf(c.at, "formula is too large after expanding its quantifiers over their domains (more than %d nodes)", maxNodes)
	}
	c.prog.nodes = append(c.prog.nodes, n)
	return int32(len(c.prog.nodes) - 1)
}

func (c *progBuilder) isConstNode(k int32) (bool, bool) {
	switch c.prog.nodes[k].op {
	case opTrue:
		return true, true
	case opFalse:
		return false, true
	}
	return false, false
}

func (c *progBuilder) constNode(v bool) int32 {
	if v {
		return c.add(node{op: opTrue})
	}
	return c.add(node{op: opFalse})
}

func (c *progBuilder) mkNot(k int32) int32 {
	if v, ok := c.isConstNode(k); ok {
		return c.constNode(!v)
	}
	if n := c.prog.nodes[k]; n.op == opNot {
		return n.kids[0]
	}
	return c.add(node{op: opNot, kids: []int32{k}})
}

// mkJunction builds an n-ary And (and=true) or Or, folding constants and
// flattening nested junctions of the same kind.
func (c *progBuilder) mkJunction(and bool, kids []int32) int32 {
	op := opOr
	if and {
		op = opAnd
	}
	var keep []int32
	for _, k := range kids {
		if v, ok := c.isConstNode(k); ok {
			if v != and { // absorbing element
				return c.constNode(v)
			}
			continue
		}
		if c.prog.nodes[k].op == op {
			keep = append(keep, c.prog.nodes[k].kids...)
		} else {
			keep = append(keep, k)
		}
	}
	switch len(keep) {
	case 0:
		return c.constNode(and)
	case 1:
		return keep[0]
	}
	return c.add(node{op: op, kids: keep})
}

func (c *progBuilder) mkIff(a, b int32) int32 {
	va, ca := c.isConstNode(a)
	vb, cb := c.isConstNode(b)
	switch {
	case ca && cb:
		return c.constNode(va == vb)
	case ca:
		if va {
			return b
		}
		return c.mkNot(b)
	case cb:
		if vb {
			return a
		}
		return c.mkNot(a)
	}
	return c.add(node{op: opIff, kids: []int32{a, b}})
}

func (c *compiler) expr(e mln.Expr) int32 {
	if c.err != nil {
		return c.add(node{op: opFalse})
	}
	switch x := e.(type) {
	case *mln.Atom:
		return c.atom(x)
	case *mln.Equal:
		return c.equal(x)
	case *mln.Not:
		return c.mkNot(c.expr(x.X))
	case *mln.And:
		return c.mkJunction(true, []int32{c.expr(x.L), c.expr(x.R)})
	case *mln.Or:
		return c.mkJunction(false, []int32{c.expr(x.L), c.expr(x.R)})
	case *mln.Implies:
		l := c.mkNot(c.expr(x.L))
		return c.mkJunction(false, []int32{l, c.expr(x.R)})
	case *mln.Iff:
		return c.mkIff(c.expr(x.L), c.expr(x.R))
	case *mln.Exists:
		if x.Cmp != "" {
			return c.quantifiedWith(x.Vars, x.Body, func(kids []int32) int32 { return c.mkCount(kids, x.Cmp, x.K) })
		}
		return c.quantified(x.Vars, x.Body, false)
	case *mln.Forall:
		return c.quantified(x.Vars, x.Body, true)
	}
	return c.fail(e.Position(), "unsupported formula node %T", e)
}

// quantified expands FORALL (and=true) or EXIST over the domains of vars.
func (c *compiler) quantified(vars []*mln.Var, body mln.Expr, and bool) int32 {
	return c.quantifiedWith(vars, body, func(kids []int32) int32 { return c.mkJunction(and, kids) })
}

// mkCount builds a C2 counting quantifier (cmp "=", "<=" or ">=" k) over
// the groundings kids of its body from "at least j of kids[i:]" nodes,
// shared: at most (len(kids)+1)·(k+2) of them.
func (c *progBuilder) mkCount(kids []int32, cmp string, k int) int32 {
	m := len(kids)
	memo := map[[2]int]int32{}
	var atLeast func(i, j int) int32
	atLeast = func(i, j int) int32 {
		if j <= 0 {
			return c.constNode(true)
		}
		if m-i < j {
			return c.constNode(false)
		}
		if v, ok := memo[[2]int{i, j}]; ok {
			return v
		}
		take := c.mkJunction(true, []int32{kids[i], atLeast(i+1, j-1)})
		v := c.mkJunction(false, []int32{take, atLeast(i+1, j)})
		memo[[2]int{i, j}] = v
		return v
	}
	switch cmp {
	case "=":
		return c.mkJunction(true, []int32{atLeast(0, k), c.mkNot(atLeast(0, k+1))})
	case "<=":
		return c.mkNot(atLeast(0, k+1))
	}
	return atLeast(0, k)
}

// quantifiedWith expands a quantifier over the domains of vars and joins
// the groundings of its body with combine.
func (c *compiler) quantifiedWith(vars []*mln.Var, body mln.Expr, combine func([]int32) int32) int32 {
	doms := make([]int, len(vars))
	total := 1.0
	for i, v := range vars {
		ti := c.m.TypeIndex(v.Type)
		if ti < 0 {
			return c.fail(v.Pos, "variable %q has no type", v.Name)
		}
		doms[i] = len(c.domains[ti])
		total *= float64(doms[i])
	}
	if total > maxNodes {
		return c.fail(vars[0].Pos, "quantifier over %.3g combinations of constants is too large to expand", total)
	}
	var kids []int32
	idx := make([]int, len(vars))
	for n := 0; n < int(total); n++ {
		for i, v := range vars {
			c.env[v.Name] = int32(idx[i])
		}
		kids = append(kids, c.expr(body))
		if c.err != nil {
			break
		}
		for i := len(idx) - 1; i >= 0; i-- {
			idx[i]++
			if idx[i] < doms[i] {
				break
			}
			idx[i] = 0
		}
	}
	for _, v := range vars {
		delete(c.env, v.Name)
	}
	return combine(kids)
}

// funcTerms gives every function term of e a fresh slot (see funcTerm).
func (c *compiler) funcTerms(e mln.Expr, cf *formula) {
	terms := func(ts []mln.Term) {
		for i := range ts {
			if ts[i].Func {
				c.funcTerm(&ts[i], cf)
			}
		}
	}
	mln.Inspect(e, func(x mln.Expr) bool {
		switch n := x.(type) {
		case *mln.Atom:
			terms(n.Args)
		case *mln.Equal:
			terms([]mln.Term{n.L, n.R})
		}
		return c.err == nil
	})
}

// funcTerm returns the fresh slot r holding the value of function term t,
// adding it and its guard ReturnValueOf_f(r, args) on first use. This is
// LoMRF's rewrite of F into !ReturnValueOf_f(r, args) v F[r/t]: the guard
// is a closed-world evidence atom, true only for the value the evidence
// gives f(args), so a binding where f(args) is defined has one grounding
// that can matter, with t replaced by its value, and one where it is not
// has none. Arguments are compiled first, so a nested term g(f(x)) guards
// f(x) before g(r). Arguments must be free variables or constants: the
// value of a term over a quantified variable would have to be looked up
// inside the expansion of the quantifier, for which the guard has no place.
func (c *compiler) funcTerm(t *mln.Term, cf *formula) (cterm, bool) {
	fd := c.m.Func(t.Name)
	if fd == nil {
		c.fail(t.Pos, "unknown function %q", t.Name)
		return 0, false
	}
	if len(t.Args) != len(fd.ArgTypes) {
		c.fail(t.Pos, "function term %s: %s takes %d arguments", t.String(), fd.Name, len(fd.ArgTypes))
		return 0, false
	}
	args := make([]cterm, len(t.Args))
	for i := range t.Args {
		a := &t.Args[i]
		var ok bool
		switch {
		case a.Func:
			args[i], ok = c.funcTerm(a, cf)
		case a.IsVar:
			var s int32
			if s, ok = c.slot[a.Name]; ok {
				args[i] = s
			} else {
				c.fail(a.Pos, "function term %s: %s is a quantified variable; function terms may use only the formula's free variables and constants", t.String(), a.Name)
			}
		default:
			args[i], ok = c.term(a)
		}
		if !ok {
			return 0, false
		}
	}
	key := c.funcKey(fd.Index, args)
	if s, ok := c.funcSlot[key]; ok {
		return s, true
	}
	s := int32(len(cf.slotName))
	c.funcSlot[key] = s
	cf.slotName = append(cf.slotName, t.String())
	cf.slotType = append(cf.slotType, fd.RetIdx)
	cf.slotDom = append(cf.slotDom, int64(len(c.domains[fd.RetIdx])))
	cf.fresh = append(cf.fresh, true)
	c.guards = append(c.guards, guard{fn: fd.Index, slot: s, args: args})
	return s, true
}

func (c *compiler) funcKey(fn int, args []cterm) string {
	key := append(c.keyBuf[:0], byte(fn), byte(fn>>8), byte(fn>>16))
	for _, t := range args {
		key = append(key, byte(t), byte(t>>8), byte(t>>16), byte(t>>24))
	}
	c.keyBuf = key
	return string(key)
}

// term resolves a term to a slot or a constant; a function term to the
// slot funcTerms gave it.
func (c *compiler) term(t *mln.Term) (cterm, bool) {
	if t.Func {
		fd := c.m.Func(t.Name)
		if fd == nil {
			c.fail(t.Pos, "unknown function %q", t.Name)
			return 0, false
		}
		args := make([]cterm, len(t.Args))
		for i := range t.Args {
			a, ok := c.term(&t.Args[i])
			if !ok {
				return 0, false
			}
			args[i] = a
		}
		if s, ok := c.funcSlot[c.funcKey(fd.Index, args)]; ok {
			return s, true
		}
		c.fail(t.Pos, "function term %s: %s is a quantified variable; function terms may use only the formula's free variables and constants", t.String(), quantifiedIn(t, c.slot))
		return 0, false
	}
	if t.IsVar {
		if k, ok := c.env[t.Name]; ok {
			return constTerm(int(k)), true
		}
		if s, ok := c.slot[t.Name]; ok {
			return s, true
		}
		c.fail(t.Pos, "variable %q is not bound", t.Name)
		return 0, false
	}
	ti := c.m.TypeIndex(t.Type)
	if ti < 0 {
		c.fail(t.Pos, "constant %s has no type", t.Name)
		return 0, false
	}
	k, ok := c.consts[ti][t.Name]
	if !ok {
		c.fail(t.Pos, "constant %s is not in the domain of type %s", t.Name, t.Type)
		return 0, false
	}
	return constTerm(k), true
}

func (c *compiler) atom(a *mln.Atom) int32 {
	d := c.m.Pred(a.Pred)
	if d == nil {
		return c.fail(a.Pos, "unknown predicate %q", a.Pred)
	}
	args := make([]cterm, len(a.Args))
	for i := range a.Args {
		t, ok := c.term(&a.Args[i])
		if !ok {
			return c.add(node{op: opFalse})
		}
		args[i] = t
	}
	k := c.occNode(d.Index, args)
	if si, ok := c.star[a]; ok && c.mask&(1<<si) != 0 {
		k = c.mkNot(k)
	}
	return k
}

// occNode returns a node for the occurrence pred(args), shared with equal
// occurrences of the program.
func (c *progBuilder) occNode(pred int, args []cterm) int32 {
	key := append(c.keyBuf[:0], byte(pred), byte(pred>>8), byte(pred>>16))
	for _, t := range args {
		key = append(key, byte(t), byte(t>>8), byte(t>>16), byte(t>>24))
	}
	c.keyBuf = key
	oi, ok := c.occIndex[string(key)]
	if !ok {
		oi = int32(len(c.prog.occs))
		c.occIndex[string(key)] = oi
		c.prog.occs = append(c.prog.occs, occurrence{pred: int32(pred), args: args})
	}
	return c.add(node{op: opAtom, ref: oi})
}

// quantifiedIn names the first variable of function term t that is not a
// free variable of the formula.
func quantifiedIn(t *mln.Term, free map[string]int32) string {
	for i := range t.Args {
		a := &t.Args[i]
		if a.Func {
			if n := quantifiedIn(a, free); n != "" {
				return n
			}
		} else if _, ok := free[a.Name]; a.IsVar && !ok {
			return a.Name
		}
	}
	return ""
}

func (c *compiler) equal(e *mln.Equal) int32 {
	l, ok1 := c.term(&e.L)
	r, ok2 := c.term(&e.R)
	if !ok1 || !ok2 {
		return c.add(node{op: opFalse})
	}
	return c.eqNode(l, r)
}

// eqNode returns a node for the equality of two terms: a constant for equal
// terms or two constants, otherwise shared with equal equalities of the
// program.
func (c *progBuilder) eqNode(l, r cterm) int32 {
	switch {
	case l == r:
		return c.constNode(true)
	case isConst(l) && isConst(r):
		return c.constNode(false)
	}
	if l > r {
		l, r = r, l
	}
	key := [2]cterm{l, r}
	ei, ok := c.eqIndex[key]
	if !ok {
		ei = int32(len(c.prog.eqs))
		c.eqIndex[key] = ei
		c.prog.eqs = append(c.prog.eqs, key)
	}
	return c.add(node{op: opEq, ref: ei})
}

// collect returns the program reachable from root, with unused nodes,
// occurrences and equalities dropped; root becomes the last node.
func (p *program) collect(root int32) program { return p.collectKeep(root, false) }

// collectKeep is collect; with keepOccs, every occurrence is kept, in the
// order of creation, reachable or not.
func (p *program) collectKeep(root int32, keepOccs bool) program {
	reach := make([]bool, root+1)
	reach[root] = true
	for i := root; i >= 0; i-- {
		if reach[i] {
			for _, k := range p.nodes[i].kids {
				reach[k] = true
			}
		}
	}
	out := program{}
	nodeMap := make([]int32, root+1)
	occMap := make([]int32, len(p.occs))
	eqMap := make([]int32, len(p.eqs))
	for i := range occMap {
		occMap[i] = -1
		if keepOccs {
			occMap[i] = int32(i)
			o := p.occs[i]
			o.args = append([]cterm(nil), o.args...)
			out.occs = append(out.occs, o)
		}
	}
	for i := range eqMap {
		eqMap[i] = -1
	}
	for i := int32(0); i <= root; i++ {
		if !reach[i] {
			continue
		}
		n := p.nodes[i]
		switch n.op {
		case opAtom:
			if occMap[n.ref] < 0 {
				occMap[n.ref] = int32(len(out.occs))
				o := p.occs[n.ref]
				o.args = append([]cterm(nil), o.args...)
				out.occs = append(out.occs, o)
			}
			n.ref = occMap[n.ref]
		case opEq:
			if eqMap[n.ref] < 0 {
				eqMap[n.ref] = int32(len(out.eqs))
				out.eqs = append(out.eqs, p.eqs[n.ref])
			}
			n.ref = eqMap[n.ref]
		}
		kids := make([]int32, len(n.kids))
		for j, k := range n.kids {
			kids[j] = nodeMap[k]
		}
		n.kids = kids
		nodeMap[i] = int32(len(out.nodes))
		out.nodes = append(out.nodes, n)
	}
	return out
}

// describe names formula fi for messages: its number (from 1), its text and
// position.
func describe(f *formula) string {
	return fmt.Sprintf("formula %d %q (%s)", f.index+1, f.src.Text, f.src.Pos)
}

// maxClauses bounds the CNF of one formula under AlchemyCNF.
const maxClauses = 4096

// compileCNF compiles formula fi the way Alchemy weighs it: the formula is
// converted to clauses (quantifiers expanded) and each clause becomes a
// formula of its own, ground over its own variables, with an equal share of
// the weight. A formula whose negation is a single clause (a conjunction of
// literals) is kept whole as that clause with the negated weight, which is
// exact, as Alchemy does.
func (c *compiler) compileCNF(fi int, w float64, hard bool) ([]*formula, error) {
	whole, err := c.compileFormula(fi, w, false)
	if err != nil {
		return nil, err
	}
	var out []*formula
	for _, cf := range whole {
		p := &cf.prog
		root := int32(len(p.nodes) - 1)
		cls, ok := p.cnf(root, false)
		if !ok {
			return nil, pos.Errorf(cf.src.Pos, "--alchemy-cnf: the clausal form of the formula has more than %d clauses", maxClauses)
		}
		weight := w
		if len(cls) > 1 && !hard {
			if neg, ok := p.cnf(root, true); ok && len(neg) == 1 {
				cls, weight = neg, -w
			}
		}
		for _, cl := range cls {
			part := &formula{index: cf.index, src: cf.src, hard: hard, weight: weight / float64(len(cls)),
				slotName: append([]string(nil), cf.slotName...), slotType: append([]int(nil), cf.slotType...), slotDom: append([]int64(nil), cf.slotDom...),
				fresh: append([]bool(nil), cf.fresh...)}
			part.prog = p.clauseProgram(cl)
			part.compact()
			out = append(out, part)
		}
	}
	return out, nil
}

// clit is a literal of a clause: an occurrence (eq false) or an equality,
// possibly negated.
type clit struct {
	ref int32
	eq  bool
	neg bool
}

// cnf returns the clauses of node k (of its negation if neg), without
// tautologies and repeated literals; false if there would be too many.
func (p *program) cnf(k int32, neg bool) ([][]clit, bool) {
	n := &p.nodes[k]
	switch n.op {
	case opTrue, opFalse:
		if (n.op == opTrue) != neg {
			return nil, true // true: no clauses
		}
		return [][]clit{{}}, true // false: the empty clause
	case opAtom:
		return [][]clit{{{ref: n.ref, neg: neg}}}, true
	case opEq:
		return [][]clit{{{ref: n.ref, eq: true, neg: neg}}}, true
	case opNot:
		return p.cnf(n.kids[0], !neg)
	case opAnd, opOr:
		conj := (n.op == opAnd) != neg
		var out [][]clit
		for i, kid := range n.kids {
			c, ok := p.cnf(kid, neg)
			if !ok {
				return nil, false
			}
			switch {
			case conj:
				out = append(out, c...)
			case i == 0:
				out = c
			default:
				if out, ok = orCNF(out, c); !ok {
					return nil, false
				}
			}
			if len(out) > maxClauses {
				return nil, false
			}
		}
		return out, true
	case opIff:
		a, b := n.kids[0], n.kids[1]
		// a <=> b is (!a v b) ^ (a v !b); its negation (a v b) ^ (!a v !b).
		var out [][]clit
		for _, signs := range [2][2]bool{{true, neg}, {false, !neg}} {
			x, ok1 := p.cnf(a, signs[0])
			y, ok2 := p.cnf(b, signs[1])
			if !ok1 || !ok2 {
				return nil, false
			}
			xy, ok := orCNF(x, y)
			if !ok {
				return nil, false
			}
			out = append(out, xy...)
		}
		return out, len(out) <= maxClauses
	}
	return nil, false
}

// orCNF distributes a disjunction of two CNFs.
func orCNF(a, b [][]clit) ([][]clit, bool) {
	if len(a)*len(b) > maxClauses {
		return nil, false
	}
	var out [][]clit
	for _, x := range a {
	next:
		for _, y := range b {
			cl := append([]clit(nil), x...)
			for _, l := range y {
				dup := false
				for _, m := range cl {
					if m.ref == l.ref && m.eq == l.eq {
						if m.neg != l.neg {
							continue next // tautology
						}
						dup = true
					}
				}
				if !dup {
					cl = append(cl, l)
				}
			}
			out = append(out, cl)
		}
	}
	return out, true
}

// clauseProgram builds the program of one clause over p's occurrences.
func (p *program) clauseProgram(cl []clit) program {
	q := &program{occs: p.occs, eqs: p.eqs}
	var lits []int32
	for _, l := range cl {
		op := opAtom
		if l.eq {
			op = opEq
		}
		q.nodes = append(q.nodes, node{op: op, ref: l.ref})
		k := int32(len(q.nodes) - 1)
		if l.neg {
			q.nodes = append(q.nodes, node{op: opNot, kids: []int32{k}})
			k++
		}
		lits = append(lits, k)
	}
	switch len(lits) {
	case 0:
		q.nodes = append(q.nodes, node{op: opFalse})
	case 1:
	default:
		q.nodes = append(q.nodes, node{op: opOr, kids: lits})
	}
	return q.collect(int32(len(q.nodes) - 1))
}
