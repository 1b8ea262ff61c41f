package wfomc

import (
	"fmt"
	"slices"
	"sort"
)

// The cell algorithm for one FO2 component (Beame et al. 2015; van Bremen
// and Kuželka 2021). A cell of type t is an assignment to the unary atoms
// P(x) and reflexive atoms R(x,x) of one element x of t; its weight is the
// product of the factors of all groundings that involve x alone. The pair
// weight r_ij sums, over the binary atoms between two distinct elements in
// cells i and j, the factors of all groundings that involve both. With k_i
// elements in cell i,
//
//	Z = Σ_k Π_types multinomial(n; k) · Π_i w_i^k_i · Π_i r_ii^C(k_i,2) · Π_{i<j} r_ij^(k_i·k_j).
//
// Weighted formulas are not Tseitin-encoded with a fresh predicate: the
// fresh atom A ⇔ φ with weights (e^w, 1) is summed out on the spot, which
// leaves the factor e^(w·[φ]); the polys record these factors exactly.

// maxCellAtoms bounds the unary and reflexive atoms of one type in one
// component (cells are enumerated explicitly).
const maxCellAtoms = 22

// maxPairSlots bounds the binary atoms between two elements.
const maxPairSlots = 20

// blockSpec describes a group of elements of one type with the same
// evidence: size fixed (+ the rest of the type when rest is set), and the
// values of the evidence-fixed unary predicates (component indices).
type blockSpec struct {
	fixed int64
	rest  bool
	ev    map[int]bool
}

// cgroup is an evidence block of a compiled component.
type cgroup struct {
	typ   int
	fixed int64
	rest  bool
}

// cellCase is the compiled cell structure shared by one or more
// assignments of the component's interface nullary atoms (nullary.go).
type cellCase struct {
	weight    int   // poly: Σ over its assignments of the ground factors (nullary.go)
	cellGroup []int // per cell
	cellPoly  []int // per cell
	pair      [][]int
	plan      plan
	proj      []uint64  // per cell: its projection (the atoms pair factors read)
	cond      *condPlan // the conditioned summation (condition.go), nil if none
}

// fo2Comp is a compiled FO2 component.
type fo2Comp struct {
	pb        *problem
	params    []int // global parameter index of each local dimension
	polys     []poly
	groups    []cgroup
	restFixed map[int]int64 // per type: elements in fixed-size blocks
	cases     []*cellCase
	// emptyOnly, when set, says why the cases hold only for sizes at which
	// every group is empty (nullary.go, emptyRestOnly).
	emptyOnly error
	maxTerms  float64 // Options.MaxTerms (0: DefaultMaxTerms)
}

type cellBuilder struct {
	pl       *poller
	pb       *problem
	dim      int
	types    []int
	cellBit  map[int]int    // pred → bit in its type's cell (unary, or reflexive binary)
	cellPred map[int][]int  // type → preds by bit
	mask     map[int]uint64 // type → cell bits read by pair factors
	polyIdx  map[string]int
	polys    []poly
	groups   []cgroup
	groupEv  []map[int]bool
	groupsOf map[int][]int // type → group indices
	// tooWide: an element has too many atoms for cells (see compileFO2).
	tooWide error
	// cond: try conditioning on projection counts (condition.go);
	// condChecks counts the pairs of cells its checks took.
	cond       bool
	condChecks int64
}

// compileFO2 builds the cell structures of a normalized FO2 problem (one
// component). blocks gives the evidence blocks of each type (nil: one block
// with the whole type).
func compileFO2(pl *poller, pb *problem, dim int, blocks map[int][]blockSpec, restFixed map[int]int64) (*fo2Comp, error) {
	b := &cellBuilder{pl: pl, pb: pb, dim: dim, cellBit: map[int]int{}, cellPred: map[int][]int{}, mask: map[int]uint64{},
		polyIdx: map[string]int{}, groupsOf: map[int][]int{}, cond: true}
	if err := b.layout(blocks); err != nil {
		return nil, err
	}
	var nullary []int
	for pi, p := range pb.preds {
		if len(p.types) == 0 {
			nullary = append(nullary, pi)
		}
	}
	comp := &fo2Comp{pb: pb, groups: b.groups, restFixed: restFixed, maxTerms: pl.maxTerms}
	if b.tooWide != nil {
		// Too many atoms per element for cells: the component is computed
		// where it has no anonymous element (all named), and refused
		// elsewhere.
		if err := b.emptyRestOnly(comp, nullary, b.tooWide); err != nil {
			return nil, err
		}
	} else if err := b.buildCases(comp, nullary); err != nil {
		return nil, err
	}
	b.finish(comp)
	return comp, nil
}

// layout assigns cell bits and evidence groups.
func (b *cellBuilder) layout(blocks map[int][]blockSpec) error {
	tset := map[int]bool{}
	for _, p := range b.pb.preds {
		for _, t := range p.types {
			tset[t] = true
		}
	}
	for _, f := range b.pb.formulas {
		for _, v := range f.free {
			tset[f.vars[v].typ] = true
		}
	}
	for t := range tset {
		b.types = append(b.types, t)
	}
	sort.Ints(b.types)
	for pi, p := range b.pb.preds {
		var t int
		switch {
		case len(p.types) == 1:
			t = p.types[0]
		case len(p.types) == 2 && p.types[0] == p.types[1]:
			t = p.types[0]
		default:
			continue
		}
		b.cellBit[pi] = len(b.cellPred[t])
		b.cellPred[t] = append(b.cellPred[t], pi)
	}
	for _, t := range b.types {
		if n := len(b.cellPred[t]); n > maxCellAtoms && b.tooWide == nil {
			b.tooWide = fmt.Errorf("type %s has %d unary and reflexive atoms in one component; at most %d are supported",
				b.pb.types[t].name, n, maxCellAtoms)
		}
		specs := blocks[t]
		if len(specs) == 0 {
			specs = []blockSpec{{rest: true}}
		}
		for _, s := range specs {
			b.groupsOf[t] = append(b.groupsOf[t], len(b.groups))
			b.groups = append(b.groups, cgroup{typ: t, fixed: s.fixed, rest: s.rest})
			b.groupEv = append(b.groupEv, s.ev)
		}
	}
	// Cell bits read by pair factors.
	for _, f := range b.pb.formulas {
		if len(f.free) != 2 {
			continue
		}
		walkAtoms(f.body, func(n *node) {
			if bit, ok := b.cellBit[n.pred]; ok {
				if len(n.args) == 1 || n.args[0].v == n.args[1].v {
					t := f.vars[n.args[0].v].typ
					b.mask[t] |= 1 << bit
				}
			}
		})
	}
	return nil
}

func walkAtoms(n *node, fn func(*node)) {
	if n.k == nAtom {
		fn(n)
	}
	for _, k := range n.kids {
		walkAtoms(k, fn)
	}
}

// evalFn evaluates a compiled quantifier-free formula on a bit vector.
type evalFn func(bits uint64) bool

// compileEval compiles n; slot maps an atom to its bit, eq decides an
// equality between two variables.
func compileEval(n *node, slot func(*node) int, eq func(u, v int) bool) evalFn {
	switch n.k {
	case nTrue:
		return func(uint64) bool { return true }
	case nFalse:
		return func(uint64) bool { return false }
	case nAtom:
		s := uint(slot(n))
		return func(x uint64) bool { return x>>s&1 == 1 }
	case nEq:
		r := eq(n.args[0].v, n.args[1].v)
		return func(uint64) bool { return r }
	case nNot:
		k := compileEval(n.kids[0], slot, eq)
		return func(x uint64) bool { return !k(x) }
	case nIff:
		a, c := compileEval(n.kids[0], slot, eq), compileEval(n.kids[1], slot, eq)
		return func(x uint64) bool { return a(x) == c(x) }
	case nAnd, nOr:
		ks := make([]evalFn, len(n.kids))
		for i, k := range n.kids {
			ks[i] = compileEval(k, slot, eq)
		}
		want := n.k == nOr
		return func(x uint64) bool {
			for _, k := range ks {
				if k(x) == want {
					return want
				}
			}
			return !want
		}
	}
	panic("wfomc: quantifier in a normalized formula")
}

// evalFactors evaluates the factors (those listed in which, or all when
// which is nil) on x: false when a hard one is violated, else e counts the
// true groundings per parameter.
func evalFactors(facs []factor, which []int, x uint64, e []int32) bool {
	clear(e)
	n := len(facs)
	if which != nil {
		n = len(which)
	}
	for q := 0; q < n; q++ {
		fc := &facs[q]
		if which != nil {
			fc = &facs[which[q]]
		}
		v := fc.eval(x)
		if fc.param < 0 {
			if !v {
				return false
			}
		} else if v {
			e[fc.param]++
		}
	}
	return true
}

// unionFind is a disjoint-set forest over 0..n−1.
type unionFind []int

func newUnionFind(n int) unionFind {
	u := make(unionFind, n)
	for i := range u {
		u[i] = i
	}
	return u
}

func (u unionFind) find(i int) int {
	for u[i] != i {
		u[i] = u[u[i]]
		i = u[i]
	}
	return i
}

func (u unionFind) union(i, j int) { u[u.find(i)] = u.find(j) }

// ff is a formula with its body after the nullary atoms are substituted.
type ff struct {
	f    *formula
	body *node
}

// factor is a formula compiled for one way of evaluating it.
type factor struct {
	param int // global parameter, −1 for hard
	eval  evalFn
}

// substNullary replaces nullary atoms by their values and simplifies.
func substNullary(pb *problem, n *node, val map[int]bool) *node {
	return simplify(mapNode(n, func(n *node) *node {
		if n.k == nAtom && len(pb.preds[n.pred].types) == 0 {
			return boolNode(val[n.pred])
		}
		return n
	}))
}

func (b *cellBuilder) intern(p poly) int {
	b.pl.poll()
	k := p.key()
	if i, ok := b.polyIdx[k]; ok {
		return i
	}
	b.polyIdx[k] = len(b.polys)
	b.polys = append(b.polys, p)
	return len(b.polys) - 1
}

// buildCase compiles the cells for one assignment of the interface
// nullary atoms: bodies[i] is formula i's body with their values
// substituted (nil for closed formulas, which nullary.go turns into
// factors). The caller sets the case weight.
func (b *cellBuilder) buildCase(bodies []*node) (*cellCase, error) {
	b.pl.poll()
	var two []ff
	cellF := map[int][]ff{} // type → formulas evaluated on a single element
	for i, f := range b.pb.formulas {
		body := bodies[i]
		switch len(f.free) {
		case 1:
			t := f.vars[f.free[0]].typ
			cellF[t] = append(cellF[t], ff{f, body})
		case 2:
			two = append(two, ff{f, body})
			tx, ty := f.vars[f.free[0]].typ, f.vars[f.free[1]].typ
			if tx == ty {
				cellF[tx] = append(cellF[tx], ff{f, body})
			}
		}
	}
	cs := &cellCase{}

	// Cells: per type, per (group, projection).
	type cellKey struct {
		group int
		proj  uint64
	}
	cellPolys := map[cellKey]*polyBuilder{}
	var cellKeys []cellKey
	for _, t := range b.types {
		preds := b.cellPred[t]
		if len(preds) > cellVEMin {
			if cells, ok := b.cellsByElimination(t, cellF[t]); ok {
				for _, c := range cells {
					k := cellKey{c.group, c.proj}
					pbd, seen := cellPolys[k]
					if !seen {
						pbd = newPolyBuilder(b.dim)
						cellPolys[k] = pbd
						cellKeys = append(cellKeys, k)
					}
					pbd.addPoly(1, c.p)
				}
				continue
			}
		}
		var facs []factor
		for _, x := range cellF[t] {
			facs = append(facs, factor{param: x.f.param, eval: compileEval(x.body,
				func(n *node) int { return b.cellBit[n.pred] },
				func(u, v int) bool { return true })})
		}
		groups := b.groupsOf[t]
		e := make([]int32, b.dim)
		for a := uint64(0); a < 1<<len(preds); a++ {
			w := 1.0
			for i, p := range preds {
				if a>>i&1 == 0 {
					w *= b.pb.preds[p].negWeight()
				}
			}
			if !evalFactors(facs, nil, a, e) {
				continue
			}
			proj := a & b.mask[t]
			for _, g := range groups {
				if !consistent(a, b.groupEv[g], b.cellBit) {
					continue
				}
				k := cellKey{g, proj}
				pbd, seen := cellPolys[k]
				if !seen {
					pbd = newPolyBuilder(b.dim)
					cellPolys[k] = pbd
					cellKeys = append(cellKeys, k)
				}
				pbd.add(w, e)
			}
		}
	}
	slices.SortFunc(cellKeys, func(x, y cellKey) int {
		if x.group != y.group {
			return x.group - y.group
		}
		return int(x.proj) - int(y.proj)
	})
	var cellProj []uint64
	for _, k := range cellKeys {
		if cellPolys[k].isZero() {
			continue
		}
		cs.cellGroup = append(cs.cellGroup, k.group)
		cs.cellPoly = append(cs.cellPoly, b.intern(cellPolys[k].poly()))
		cellProj = append(cellProj, k.proj)
	}
	cs.proj = cellProj

	// Pair weights, memoised per (type, projection) pair.
	u := len(cs.cellGroup)
	if err := b.pl.spendPairs(int64(u)*int64(u+1)/2, u); err != nil {
		return nil, err
	}
	memo := map[[4]uint64]int{}
	cs.pair = make([][]int, u)
	for i := range cs.pair {
		cs.pair[i] = make([]int, u)
	}
	for i := 0; i < u; i++ {
		for j := i; j < u; j++ {
			ti, tj := b.groups[cs.cellGroup[i]].typ, b.groups[cs.cellGroup[j]].typ
			pi, pj := cellProj[i], cellProj[j]
			if ti > tj || (ti == tj && pi > pj) {
				ti, tj, pi, pj = tj, ti, pj, pi
			}
			key := [4]uint64{uint64(ti), pi, uint64(tj), pj}
			id, ok := memo[key]
			if !ok {
				p, err := b.pairPoly(ti, pi, tj, pj, two)
				if err != nil {
					return nil, err
				}
				id = b.intern(p)
				memo[key] = id
			}
			cs.pair[i][j], cs.pair[j][i] = id, id
		}
	}
	if b.cond {
		b.conditionCase(cs, two)
	}
	return cs, nil
}

func consistent(a uint64, ev map[int]bool, cellBit map[int]int) bool {
	for p, v := range ev {
		bit, ok := cellBit[p]
		if !ok {
			continue
		}
		if (a>>bit&1 == 1) != v {
			return false
		}
	}
	return true
}

// pairPoly computes the pair weight between an element a of type ta with
// projected cell pa and a distinct element b of type tb with cell pb.
func (b *cellBuilder) pairPoly(ta int, pa uint64, tb int, pbits uint64, two []ff) (poly, error) {
	ps, err := b.pairPolys(ta, pa, tb, pbits, two, nil, nil)
	if err != nil {
		return nil, err
	}
	return ps[0], nil
}

// pairSlot is a binary atom between two elements a and b: P(a,b) when
// aToB, else P(b,a).
type pairSlot struct {
	pred int
	aToB bool
}

// pairFactors is the pair computation between an element a of type ta and
// a distinct element b of type tb: in a bit vector, positions 0..ma−1 are
// a's cell bits, ma..base−1 b's, and base.. the binary atoms between them
// (slots); facs are the two-variable formulas in every orientation, reads
// the positions each of them reads.
type pairFactors struct {
	ma, mb, base uint
	slots        map[pairSlot]int
	nslots       int
	facs         []factor
	reads        []uint64
}

// pairSetup compiles the pair computation between types ta and tb.
func (b *cellBuilder) pairSetup(ta, tb int, two []ff) (*pairFactors, error) {
	ma := uint(len(b.cellPred[ta]))
	mb := uint(len(b.cellPred[tb]))
	// Binary atoms between a and b.
	slots := map[pairSlot]int{}
	var slotPreds []int
	for pi, p := range b.pb.preds {
		if len(p.types) != 2 {
			continue
		}
		if p.types[0] == ta && p.types[1] == tb {
			slots[pairSlot{pi, true}] = len(slotPreds)
			slotPreds = append(slotPreds, pi)
		}
		if p.types[0] == tb && p.types[1] == ta {
			slots[pairSlot{pi, false}] = len(slotPreds)
			slotPreds = append(slotPreds, pi)
		}
	}
	if len(slotPreds) > maxPairSlots || ma+mb+uint(len(slotPreds)) > 64 {
		return nil, fmt.Errorf("too many binary atoms between two elements (%d)", len(slotPreds))
	}
	base := ma + mb
	pf := &pairFactors{ma: ma, mb: mb, base: base, slots: slots, nslots: len(slotPreds)}
	for _, x := range two {
		f := x.f
		tx, ty := f.vars[f.free[0]].typ, f.vars[f.free[1]].typ
		// Orientations: which element each free variable is bound to.
		var orients [][2]int
		if tx == ta && ty == tb {
			orients = append(orients, [2]int{0, 1})
		}
		if tx == tb && ty == ta && (ta != tb) {
			orients = append(orients, [2]int{1, 0})
		}
		if ta == tb && tx == ta && ty == ta {
			orients = append(orients, [2]int{1, 0})
		}
		for _, o := range orients {
			elem := map[int]int{f.free[0]: o[0], f.free[1]: o[1]}
			slot := func(n *node) int {
				if len(n.args) == 1 || n.args[0].v == n.args[1].v {
					e := elem[n.args[0].v]
					if e == 0 {
						return b.cellBit[n.pred]
					}
					return int(ma) + b.cellBit[n.pred]
				}
				e0 := elem[n.args[0].v]
				// The atom P(e0, e1) with e0 ≠ e1: slot "a→b" when e0 is a.
				return int(base) + slots[pairSlot{n.pred, e0 == 0}]
			}
			eq := func(u, v int) bool { return elem[u] == elem[v] }
			var reads uint64
			walkAtoms(x.body, func(n *node) { reads |= 1 << uint(slot(n)) })
			pf.facs = append(pf.facs, factor{param: f.param, eval: compileEval(x.body, slot, eq)})
			pf.reads = append(pf.reads, reads)
		}
	}
	return pf, nil
}

// pairPolys is pairPoly split by the counted atoms of the counting
// constraints cons (count.go): class bit 2q is set when the atom of cons[q]
// counted for a is true (P(a,b), or P(b,a) when the constraint counts the
// first argument), bit 2q+1 when the one counted for b is (both clear for
// a unary P); 4^len(cons) polys, their sum the pair weight.
func (b *cellBuilder) pairPolys(ta int, pa uint64, tb int, pbits uint64, two []ff, cons []countCons, fix map[pairSlot]bool) ([]poly, error) {
	pf, err := b.pairSetup(ta, tb, two)
	if err != nil {
		return nil, err
	}
	ma, base, slots, facs := pf.ma, pf.base, pf.slots, pf.facs
	// The slots of the counted atoms: for a, then for b.
	countSlot := make([][2]uint, len(cons))
	for q, cc := range cons {
		if len(b.pb.preds[cc.pred].types) == 1 {
			countSlot[q] = [2]uint{64, 64} // unary (a cardinality constraint): no atom between a and b
			continue
		}
		sa, okA := slots[pairSlot{cc.pred, cc.dir == 0}]
		sb, okB := slots[pairSlot{cc.pred, cc.dir != 0}]
		if !okA || !okB {
			return nil, fmt.Errorf("counted predicate %s is not binary over one type", b.pb.preds[cc.pred].name)
		}
		countSlot[q] = [2]uint{base + uint(sa), base + uint(sb)}
	}
	// fix: atoms between a and b whose values are given (the linear
	// order's, order.go).
	var fixMask, fixVal uint64
	for sl, v := range fix {
		i, ok := slots[sl]
		if !ok {
			continue
		}
		fixMask |= 1 << (base + uint(i))
		if v {
			fixVal |= 1 << (base + uint(i))
		}
	}
	pbds := make([]*polyBuilder, 1<<(2*len(cons)))
	for i := range pbds {
		pbds[i] = newPolyBuilder(b.dim)
	}
	e := make([]int32, b.dim)
	fixed := pa | pbits<<ma
	for s := uint64(0); s < 1<<pf.nslots; s++ {
		x := fixed | s<<base
		if x&fixMask != fixVal {
			continue
		}
		class := 0
		for q, cs := range countSlot {
			class |= int(x>>cs[0]&1)<<(2*q) | int(x>>cs[1]&1)<<(2*q+1)
		}
		if evalFactors(facs, nil, x, e) {
			pbds[class].add(1, e)
		}
	}
	out := make([]poly, len(pbds))
	for i, pbd := range pbds {
		out[i] = pbd.poly()
	}
	return out, nil
}

// finish restricts the polys to the parameters they use and plans the
// summation of every case.
func (b *cellBuilder) finish(c *fo2Comp) {
	c.params = usedParams(b.polys, b.dim)
	c.polys = make([]poly, len(b.polys))
	for i, p := range b.polys {
		c.polys[i] = p.restrict(c.params)
	}
	for _, cs := range c.cases {
		mergeCells(b, c, cs)
		cs.plan = makePlan(c, cs)
	}
}

// usedParams lists the parameters (of dim) some poly has a non-zero
// exponent of.
func usedParams(polys []poly, dim int) []int {
	used := make([]bool, dim)
	for _, p := range polys {
		for _, m := range p {
			for j, x := range m.e {
				if x != 0 {
					used[j] = true
				}
			}
		}
	}
	var out []int
	for j, u := range used {
		if u {
			out = append(out, j)
		}
	}
	return out
}

// mergeCells merges cells of one group whose rows in the pair matrix are
// identical (r_ii = r_jj = r_ij and r_ik = r_jk for every other k): such
// cells are interchangeable, and by the multinomial theorem they act as one
// cell whose weight is the sum of theirs.
func mergeCells(b *cellBuilder, c *fo2Comp, cs *cellCase) {
	for {
		u := len(cs.cellGroup)
		merged := false
		for i := 0; i < u && !merged; i++ {
			for j := i + 1; j < u && !merged; j++ {
				if cs.cellGroup[i] != cs.cellGroup[j] || !sameRow(cs, i, j) {
					continue
				}
				pb := newPolyBuilder(b.dim)
				pb.addPoly(1, b.polys[cs.cellPoly[i]])
				pb.addPoly(1, b.polys[cs.cellPoly[j]])
				cs.cellPoly[i] = b.internLocal(c, pb.poly())
				removeCell(cs, j)
				merged = true
			}
		}
		if !merged {
			break
		}
	}
	// Drop cells whose (merged) weight is identically zero.
	for i := len(cs.cellGroup) - 1; i >= 0; i-- {
		if len(b.polys[cs.cellPoly[i]]) == 0 {
			removeCell(cs, i)
		}
	}
}

// internLocal interns a poly with global exponents and keeps c.polys (the
// local restriction) in step.
func (b *cellBuilder) internLocal(c *fo2Comp, p poly) int {
	id := b.intern(p)
	for len(c.polys) < len(b.polys) {
		c.polys = append(c.polys, b.polys[len(c.polys)].restrict(c.params))
	}
	return id
}

func sameRow(cs *cellCase, i, j int) bool {
	p := cs.pair
	if p[i][i] != p[j][j] || p[i][i] != p[i][j] {
		return false
	}
	for k := range p {
		if k != i && k != j && p[i][k] != p[j][k] {
			return false
		}
	}
	return true
}

func removeCell(cs *cellCase, j int) {
	cs.cellGroup = slices.Delete(cs.cellGroup, j, j+1)
	cs.cellPoly = slices.Delete(cs.cellPoly, j, j+1)
	cs.pair = slices.Delete(cs.pair, j, j+1)
	for i := range cs.pair {
		cs.pair[i] = slices.Delete(cs.pair[i], j, j+1)
	}
}
