package wfomc

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/lifted-dev/lifted/mln"
)

type compiler struct {
	m   *mln.MLN
	opt *Options
	mod *Model

	specials [][]string        // per MLN type, in order of first appearance
	special  []map[string]bool // per MLN type
	// unary evidence on anonymous constants: type → constant → pred → value
	unaryEv []map[string]map[int]bool
	members map[[2]int]int // (type, class) → membership predicate in p0
	blocks  map[int][]blockInfo
	classOf []map[string]int // per type: constant → block class
	// atom counting (atomcount.go): candidates compiled so far, and > 0
	// while one is being compiled (no ground fallback inside).
	acTries, liftOnly int
	pl                *poller // polled in the long loops of compilation
}

// poller polls a context every ctxEvery calls of poll; once the context is
// done, poll panics with a cancelled, which CompileContext recovers.
// Compilation runs on one goroutine, so ticks needs no synchronization.
type poller struct {
	ctx      context.Context
	ticks    uint64
	pairs    int64   // cell-pair weights computed so far (spendPairs)
	maxPairs int64   // Options.MaxCellPairs (0: DefaultMaxCellPairs)
	maxTerms float64 // Options.MaxTerms (0: DefaultMaxTerms)
	meter    *meter
	work     *Work // WithWorkLimit's count: ticks and pair weights
}

// DefaultMaxCellPairs, the default Options.MaxCellPairs, bounds the pair weights the cell algorithm computes
// in one compilation, over all its cases and attempts (atom counting tries
// up to maxAtomCountTries models), unless Options.MaxCellPairs says
// otherwise: each takes microseconds and a word of the case's pair table,
// so a model whose cells number in the thousands would otherwise run for
// hours and exhaust memory. The models of the tests and benchmarks need at
// most 2.8·10^5.
const DefaultMaxCellPairs = 1 << 22

// pairsError refuses a compilation whose cell algorithm would compute
// more pair weights than the limit.
type pairsError struct {
	pairs int64
	cells int
	limit int64
}

func (e *pairsError) Error() string {
	return fmt.Sprintf("the cell algorithm needs %d pair weights (%d cells in one case), more than the %d allowed in one model (Options.MaxCellPairs, --max-cell-pairs; about a microsecond and 8 bytes each); fewer unary predicates or named constants in formulas with two variables would lower it", e.pairs, e.cells, e.limit)
}

// spendPairs counts n more pair weights, or says why they are refused.
func (p *poller) spendPairs(n int64, cells int) error {
	p.pairs += n
	p.meter.add(n)
	p.work.spend(n * PairUnits)
	limit := p.maxPairs
	if limit <= 0 {
		limit = DefaultMaxCellPairs
	}
	if p.pairs > limit {
		return &pairsError{p.pairs, cells, limit}
	}
	return nil
}

// cancelled is the panic value of a poll that found its context done.
type cancelled struct{ err error }

func (p *poller) poll() {
	p.ticks++
	if p.ticks%ctxEvery == 0 {
		p.work.spend(ctxEvery * TickUnits)
		if err := p.ctx.Err(); err != nil {
			panic(cancelled{err})
		}
		p.meter.add(0)
	}
}

// blockInfo is an evidence block of the top-level problem.
type blockInfo struct {
	fixed int64
	rest  bool
	class int          // 0: the anonymous elements
	ev    map[int]bool // p0 predicate → value
}

func (c *compiler) compile() error {
	m := c.m
	nt := len(m.Types)
	c.special = make([]map[string]bool, nt)
	c.specials = make([][]string, nt)
	c.unaryEv = make([]map[string]map[int]bool, nt)
	c.classOf = make([]map[string]int, nt)
	c.mod.named = make([]map[string]bool, nt)
	c.mod.declared = make([]int64, nt)
	for i, t := range m.Types {
		c.special[i] = map[string]bool{}
		c.unaryEv[i] = map[string]map[int]bool{}
		c.classOf[i] = map[string]int{}
		c.mod.named[i] = map[string]bool{}
		for _, k := range t.Constants {
			c.mod.named[i][k] = true
		}
	}
	for _, p := range m.Preds {
		if len(p.MutexArgs) > 0 {
			return fmt.Errorf("predicate %s declares a mutually exclusive argument (!), which wfomc does not support; write the constraint as formulas over named values", p.Name)
		}
	}
	if len(m.Funcs) > 0 {
		return fmt.Errorf("function %s: Alchemy functions are not supported by wfomc", m.Funcs[0].Name)
	}
	p0 := &problem{}
	for i, t := range m.Types {
		p0.types = append(p0.types, ptype{name: t.Name, base: i})
	}
	for _, p := range m.Preds {
		p0.preds = append(p0.preds, pred{name: p.Name, types: p.TypeIdx, kind: pUser, parent: -1})
	}
	if err := markOrder(p0); err != nil {
		return err
	}
	c.mod.p0 = p0
	for j, f := range m.Formulas {
		pf, err := c.formulaOf(f, j)
		if err != nil {
			return fmt.Errorf("formula %d (%s): %w", j+1, f.Text, err)
		}
		p0.formulas = append(p0.formulas, pf)
		c.collectSpecials(pf.body, pf)
	}
	if err := c.evidence(); err != nil {
		return err
	}
	if err := c.queries(); err != nil {
		return err
	}
	for i := range m.Types {
		c.mod.declared[i] = int64(len(c.mod.named[i]))
	}
	// Query constants are named too (the domain must hold them), but they
	// do not extend the default domain.
	for _, q := range c.opt.Queries {
		mln.Inspect(q.expr, func(e mln.Expr) bool {
			if a, ok := e.(*mln.Atom); ok {
				for i, t := range a.Args {
					if !t.IsVar {
						c.mod.named[m.Preds[m.PredIndex(a.Pred)].TypeIdx[i]][t.Name] = true
					}
				}
			}
			return true
		})
	}
	if err := c.countEvidence(); err != nil {
		return err
	}
	for _, f := range p0.formulas {
		var bad error
		var walk func(n *node)
		walk = func(n *node) {
			var ts []int
			switch {
			case n.k == nExists && n.cmp != "":
				ts = []int{f.vars[n.qv].typ}
			case n.k == nCard:
				ts = p0.preds[n.kids[0].pred].types
			case n.k == nLin:
				for _, a := range n.kids {
					ts = append(ts, p0.preds[a.pred].types...)
				}
			}
			for _, t := range ts {
				if len(c.specials[t]) > 0 && bad == nil {
					bad = fmt.Errorf("formula %d (%s): a counting quantifier or cardinality constraint over type %s, whose constant %s is named (in a formula or evidence): not supported by wfomc", f.src+1, f.text, m.Types[t].Name, c.specials[t][0])
				}
			}
			for _, k := range n.kids {
				walk(k)
			}
		}
		walk(f.body)
		if bad != nil {
			return bad
		}
	}
	ordered, err := c.orderedTypes(p0)
	if err != nil {
		return err
	}
	c.mod.ordered = ordered
	sh := shatter(c.pl, p0, c.specials)
	lv, err := c.compileLevel(sh.pb, c.blockSpecsTop(sh), 0)
	if err != nil {
		return err
	}
	lv.sh = sh
	c.mod.top = lv
	c.mod.nParams = len(m.Formulas) + len(c.mod.queries)
	c.fixedUncovered(sh)
	return nil
}

// formulaOf converts MLN formula j.
func (c *compiler) formulaOf(f *mln.Formula, j int) (*formula, error) {
	pf := &formula{src: j, param: j, text: f.Text}
	if f.Hard {
		pf.param = -1
	}
	vars := map[string]int{}
	for i, v := range f.Vars {
		if v.PerConstant {
			return nil, fmt.Errorf("per-constant weights (+%s) are not supported", v.Name)
		}
		ti := c.m.TypeIndex(v.Type)
		if ti < 0 {
			return nil, fmt.Errorf("variable %s has no type", v.Name)
		}
		vars[v.Name] = i
		pf.vars = append(pf.vars, fvar{name: v.Name, typ: ti})
		pf.free = append(pf.free, i)
	}
	body, err := fromMLN(c.m, f.Expr, pf, vars)
	if err != nil {
		return nil, err
	}
	pf.body = body
	return pf, nil
}

func (c *compiler) addSpecial(t int, name string) {
	if !c.special[t][name] {
		c.special[t][name] = true
		c.specials[t] = append(c.specials[t], name)
	}
	c.mod.named[t][name] = true
}

// collectSpecials names the constants of a formula.
func (c *compiler) collectSpecials(n *node, f *formula) {
	switch n.k {
	case nAtom:
		for i, a := range n.args {
			if !a.isVar() {
				c.addSpecial(c.mod.p0.preds[n.pred].types[i], a.c)
			}
		}
	case nEq:
		l, r := n.args[0], n.args[1]
		for _, pair := range [][2]term{{l, r}, {r, l}} {
			if !pair[0].isVar() {
				t := -1
				if pair[1].isVar() {
					t = f.vars[pair[1].v].typ
				} else {
					t = c.constType(pair[0].c)
				}
				if t >= 0 {
					c.addSpecial(t, pair[0].c)
				}
			}
		}
	}
	for _, k := range n.kids {
		c.collectSpecials(k, f)
	}
}

// constType finds the type of a constant from the declarations.
func (c *compiler) constType(name string) int {
	for i, t := range c.m.Types {
		for _, k := range t.Constants {
			if k == name {
				return i
			}
		}
	}
	return -1
}

// evidence sorts evidence into hard unit formulas (atoms over named
// constants) and unary evidence on anonymous constants.
func (c *compiler) evidence() error {
	m := c.m
	// Constants of higher-arity evidence are named.
	for _, l := range c.opt.Evidence {
		c.pl.poll()
		p := m.Pred(l.Pred)
		if p == nil {
			return fmt.Errorf("evidence: unknown predicate %s", l.Pred)
		}
		if len(l.Args) != p.Arity() {
			return fmt.Errorf("evidence: %s takes %d arguments, got %d", l.Pred, p.Arity(), len(l.Args))
		}
		if len(l.Args) >= 2 {
			for i, a := range l.Args {
				c.addSpecial(p.TypeIdx[i], a)
			}
		}
	}
	seen := map[string]bool{}
	for _, l := range c.opt.Evidence {
		c.pl.poll()
		p := m.Pred(l.Pred)
		key := l.Pred + "(" + strings.Join(l.Args, ",") + ")"
		if v, ok := seen[key]; ok {
			if v != l.Value {
				return fmt.Errorf("evidence: %s is given both true and false", key)
			}
			continue
		}
		seen[key] = l.Value
		for i, a := range l.Args {
			c.mod.named[p.TypeIdx[i]][a] = true
		}
		if len(l.Args) == 1 && !c.special[p.TypeIdx[0]][l.Args[0]] {
			t := p.TypeIdx[0]
			ev := c.unaryEv[t][l.Args[0]]
			if ev == nil {
				ev = map[int]bool{}
				c.unaryEv[t][l.Args[0]] = ev
			}
			ev[p.Index] = l.Value
			continue
		}
		args := make([]term, len(l.Args))
		for i, a := range l.Args {
			args[i] = term{v: -1, c: a}
		}
		var body *node = &node{k: nAtom, pred: p.Index, args: args}
		if !l.Value {
			body = not(body)
		}
		c.mod.p0.formulas = append(c.mod.p0.formulas, &formula{src: -1, param: -1, body: body, text: "evidence " + key})
	}
	return nil
}

// makeBlocks groups the anonymous constants of each type with evidence by their
// evidence, after the queries have named what they need. Class 0 is the
// anonymous rest.
func (c *compiler) makeBlocks() {
	c.blocks = map[int][]blockInfo{}
	for t := range c.m.Types {
		var consts []string
		for k := range c.unaryEv[t] {
			if !c.special[t][k] {
				consts = append(consts, k)
			}
		}
		if len(consts) == 0 {
			continue
		}
		sort.Strings(consts)
		byKey := map[string]int{}
		var bl []blockInfo
		for _, k := range consts {
			ev := c.unaryEv[t][k]
			key := evKey(ev)
			i, ok := byKey[key]
			if !ok {
				i = len(bl)
				byKey[key] = i
				bl = append(bl, blockInfo{class: i + 1, ev: ev})
			}
			bl[i].fixed++
			c.classOf[t][k] = bl[i].class
		}
		c.blocks[t] = append(bl, blockInfo{rest: true, class: 0, ev: map[int]bool{}})
	}
}

func evKey(ev map[int]bool) string {
	var ks []int
	for k := range ev {
		ks = append(ks, k)
	}
	sort.Ints(ks)
	var b strings.Builder
	for _, k := range ks {
		fmt.Fprintf(&b, "%d=%v;", k, ev[k])
	}
	return b.String()
}

// queries turns each query into a formula with its own parameter: its
// anonymous constants become variables ranging over their blocks (distinct
// from one another), so that the expected count of the formula divided by
// the number of such groundings is the query's probability.
func (c *compiler) queries() error {
	m := c.m
	// Queries with more than two anonymous constants would leave FO2: name
	// their constants instead.
	for _, q := range c.opt.Queries {
		anon := c.queryConsts(q)
		if len(anon) > 2 {
			for _, a := range anon {
				c.addSpecial(a.typ, a.name)
			}
		}
	}
	// Unary evidence on constants that became named turns into hard units
	// (in a fixed order, so that compilation is deterministic).
	for t := range c.unaryEv {
		var consts []string
		for k := range c.unaryEv[t] {
			consts = append(consts, k)
		}
		sort.Strings(consts)
		for _, k := range consts {
			ev := c.unaryEv[t][k]
			if !c.special[t][k] {
				continue
			}
			var ps []int
			for p := range ev {
				ps = append(ps, p)
			}
			sort.Ints(ps)
			for _, p := range ps {
				v := ev[p]
				var body *node = &node{k: nAtom, pred: p, args: []term{{v: -1, c: k}}}
				if !v {
					body = not(body)
				}
				c.mod.p0.formulas = append(c.mod.p0.formulas, &formula{src: -1, param: -1, body: body,
					text: "evidence " + m.Preds[p].Name + "(" + k + ")"})
			}
			delete(c.unaryEv[t], k)
		}
	}
	c.makeBlocks()
	c.members = map[[2]int]int{}
	for qi, q := range c.opt.Queries {
		param := len(m.Formulas) + qi
		f := &formula{src: -1, param: param, text: "query " + q.Text}
		vars := map[string]int{}
		anon := c.queryConsts(q)
		info := queryInfo{text: q.Text, param: param}
		var extra []*node
		for _, a := range anon {
			t, k := a.typ, a.name
			v := len(f.vars)
			vars[anonVarName(t, k)] = v
			f.vars = append(f.vars, fvar{name: k, typ: t, anon: true})
			f.free = append(f.free, v)
			class := c.classOf[t][k]
			info.slots = append(info.slots, querySlot{typ: t, class: class})
			if len(c.blocks[t]) > 0 {
				extra = append(extra, &node{k: nAtom, pred: c.member(t, class), args: []term{{v: v}}})
			}
		}
		for i := range anon {
			for j := i + 1; j < len(anon); j++ {
				if anon[i].typ == anon[j].typ {
					extra = append(extra, not(&node{k: nEq, args: []term{{v: i}, {v: j}}}))
				}
			}
		}
		body, err := fromMLN(m, renameConsts(m, q.expr, anon), f, vars)
		if err != nil {
			return fmt.Errorf("query %s: %w", q.Text, err)
		}
		if len(extra) > 0 {
			body = &node{k: nAnd, kids: append(extra, body)}
		}
		f.body = body
		c.mod.p0.formulas = append(c.mod.p0.formulas, f)
		c.collectSpecials(body, f)
		c.mod.queries = append(c.mod.queries, info)
	}
	return nil
}

// member returns the membership predicate of block class of type t.
func (c *compiler) member(t, class int) int {
	k := [2]int{t, class}
	if p, ok := c.members[k]; ok {
		return p
	}
	p0 := c.mod.p0
	p := len(p0.preds)
	p0.preds = append(p0.preds, pred{name: fmt.Sprintf("$in%d", class), types: []int{t}, kind: pMember, parent: -1})
	c.members[k] = p
	return p
}

// queryConsts lists the (type, constant) pairs of a query's constants that
// are not named by formulas or evidence, in order of appearance.
func (c *compiler) queryConsts(q Query) []namedConst {
	var out []namedConst
	seen := map[namedConst]bool{}
	m := c.m
	mln.Inspect(q.expr, func(e mln.Expr) bool {
		if a, ok := e.(*mln.Atom); ok {
			p := m.Pred(a.Pred)
			for i, t := range a.Args {
				if t.IsVar || p == nil {
					continue
				}
				ti := p.TypeIdx[i]
				if c.special[ti][t.Name] {
					continue
				}
				k := namedConst{ti, t.Name}
				if !seen[k] {
					seen[k] = true
					out = append(out, k)
				}
			}
		}
		return true
	})
	return out
}

// anonVarName is the variable that replaces the anonymous constant name of
// MLN type t in a query. The type is part of the name: a constant may name
// elements of several types (integer ranges such as throw = {1,...,20} and
// face = {1,...,6} share 1 to 6), and those are distinct elements.
func anonVarName(t int, name string) string { return "\x00" + itoa(t) + "\x00" + name }

// renameConsts returns e with the listed constants turned into variables
// named by anonVarName. An atom's argument takes the type of its position;
// a side of an equality takes a type in which the other side is listed too
// (else the first type in which it is listed).
func renameConsts(m *mln.MLN, e mln.Expr, anon []namedConst) mln.Expr {
	types := map[string][]int{}
	for _, a := range anon {
		types[a.name] = append(types[a.name], a.typ)
	}
	rename := func(t mln.Term, typ int) mln.Term {
		if !t.IsVar {
			for _, x := range types[t.Name] {
				if x == typ {
					t.IsVar = true
					t.Name = anonVarName(typ, t.Name)
					break
				}
			}
		}
		return t
	}
	var walk func(e mln.Expr) mln.Expr
	walk = func(e mln.Expr) mln.Expr {
		switch e := e.(type) {
		case *mln.Atom:
			c := *e
			p := m.Pred(e.Pred)
			c.Args = make([]mln.Term, len(e.Args))
			for i, t := range e.Args {
				c.Args[i] = t
				if p != nil && i < len(p.TypeIdx) {
					c.Args[i] = rename(t, p.TypeIdx[i])
				}
			}
			return &c
		case *mln.Equal:
			c := *e
			typ := -1
			if !e.L.IsVar && !e.R.IsVar {
				for _, x := range types[e.L.Name] {
					if typ < 0 && slices.Contains(types[e.R.Name], x) {
						typ = x
					}
				}
			}
			pick := func(t mln.Term) int {
				if typ >= 0 || t.IsVar || len(types[t.Name]) == 0 {
					return typ
				}
				return types[t.Name][0]
			}
			c.L, c.R = rename(e.L, pick(e.L)), rename(e.R, pick(e.R))
			return &c
		case *mln.Not:
			return &mln.Not{X: walk(e.X), Pos: e.Pos}
		case *mln.And:
			return &mln.And{L: walk(e.L), R: walk(e.R), OpPos: e.OpPos}
		case *mln.Or:
			return &mln.Or{L: walk(e.L), R: walk(e.R), OpPos: e.OpPos}
		case *mln.Implies:
			return &mln.Implies{L: walk(e.L), R: walk(e.R), OpPos: e.OpPos}
		case *mln.Iff:
			return &mln.Iff{L: walk(e.L), R: walk(e.R), OpPos: e.OpPos}
		case *mln.Exists:
			return &mln.Exists{Vars: e.Vars, Body: walk(e.Body), Pos: e.Pos}
		case *mln.Forall:
			return &mln.Forall{Vars: e.Vars, Body: walk(e.Body), Pos: e.Pos}
		}
		return e
	}
	return walk(e)
}

// countEvidence splits the anonymous rest of a type into the elements that
// satisfy the predicate (a fixed block of Count) and those that do not.
func (c *compiler) countEvidence() error {
	for _, ce := range c.opt.Counts {
		p := c.m.Pred(ce.Pred)
		if p == nil {
			return fmt.Errorf("count evidence: unknown predicate %s", ce.Pred)
		}
		if p.Arity() != 1 {
			return fmt.Errorf("count evidence: %s is not unary", ce.Pred)
		}
		if ce.Count < 0 {
			return fmt.Errorf("count evidence: negative count for %s", ce.Pred)
		}
		t := p.TypeIdx[0]
		if len(c.blocks[t]) > 0 {
			return fmt.Errorf("count evidence on %s: type %s already has evidence or another count; one count per type and no other unary evidence on it are supported", ce.Pred, c.m.Types[t].Name)
		}
		c.blocks[t] = []blockInfo{
			{fixed: ce.Count, class: 0, ev: map[int]bool{p.Index: true}},
			{rest: true, class: 0, ev: map[int]bool{p.Index: false}},
		}
		c.mod.countEv = append(c.mod.countEv, countInfo{typ: t, count: ce.Count})
	}
	return nil
}

// blockSpecsTop translates the blocks into the shattered problem's terms.
func (c *compiler) blockSpecsTop(sh *shatterResult) map[int][]blockInfo {
	out := map[int][]blockInfo{}
	for t, bl := range c.blocks {
		var conv []blockInfo
		for _, b := range bl {
			ev := map[int]bool{}
			for p, v := range b.ev {
				if q, ok := sh.pieces[pieceKey(p, []string{""})]; ok && pieceUsed(sh, p, q) {
					ev[q] = v
				}
			}
			// Membership predicates of this type.
			for k, mp := range c.members {
				if k[0] != t {
					continue
				}
				if q, ok := sh.pieces[pieceKey(mp, []string{""})]; ok {
					ev[q] = k[1] == b.class
				}
			}
			conv = append(conv, blockInfo{fixed: b.fixed, rest: b.rest, class: b.class, ev: ev})
		}
		out[t] = conv
	}
	return out
}

func pieceUsed(sh *shatterResult, parent, q int) bool {
	for _, x := range sh.used[parent] {
		if x == q {
			return true
		}
	}
	return false
}

// fixedUncovered counts evidence atoms on predicates no formula uses: they
// are fixed, not free.
func (c *compiler) fixedUncovered(sh *shatterResult) {
	for t, bl := range c.blocks {
		for _, b := range bl {
			for p := range b.ev {
				q, ok := sh.pieces[pieceKey(p, []string{""})]
				if ok && pieceUsed(sh, p, q) {
					continue
				}
				if b.rest {
					c.mod.fixedUncoveredRests = append(c.mod.fixedUncoveredRests, t)
				} else {
					c.mod.fixedUncovered += b.fixed
				}
			}
		}
	}
}

// restAnon is the number of anonymous elements of MLN type t outside the
// fixed blocks.
func (lv *level) restAnon(t int, n []int64) int64 {
	s := lv.pb.size(t, n)
	for _, b := range lv.blocks[t] {
		s -= b.fixed
	}
	return s
}

// classSize is the number of elements of type t in block class.
func (lv *level) classSize(t, class int, n []int64) int64 {
	bl := lv.blocks[t]
	if len(bl) == 0 {
		return lv.pb.size(t, n)
	}
	s := int64(0)
	for _, b := range bl {
		if b.class != class {
			continue
		}
		if b.rest {
			s += lv.restAnon(t, n)
		} else {
			s += b.fixed
		}
	}
	return s
}

// describe names the MLN formula (or query or evidence) a formula came from.
func (c *compiler) describe(f *formula) string {
	if f.src >= 0 {
		return fmt.Sprintf("formula %d (%s)", f.src+1, c.m.Formulas[f.src].Text)
	}
	return f.text
}

var errNoRule = errors.New("no lifting rule applies")

// namedConst is a constant of an MLN type.
type namedConst struct {
	typ  int
	name string
}
