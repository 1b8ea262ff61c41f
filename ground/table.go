package ground

import (
	"encoding/binary"
	"fmt"
	"math"
)

// A ground formula that survives evidence simplification becomes a factor
// over its distinct unknown atoms, in the order of their first occurrence in
// the formula. Its table depends only on the formula and on the "signature"
// of the grounding: the evidence value of each occurrence, which occurrences
// name the same unknown atom, and the values of the equalities. Entries are
// cached per signature, so all ground formulas of one formula with the same
// simplified shape share one table (and the Builder interns equal tables
// across formulas).

type entryKind uint8

const (
	entTable   entryKind = iota // a table over some positions of the scope
	entConst                    // the formula's value does not depend on the unknown atoms
	entStar                     // an auxiliary variable with pairwise factors
	entCircuit                  // Tseitin auxiliary variables (see tseitin.go)
)

type entry struct {
	kind  entryKind
	table int32
	pos   []int32 // scope positions of the factor's variables
	// logConst is, for entConst, log of the factor value; for entTable and
	// entStar, the log of the scale taken out of the table.
	logConst float64
	hardFail bool  // a hard formula false whatever the unknown atoms are
	val      uint8 // entConst: the formula's value
	star     *starPlan
	circuit  *circuitPlan
}

// starPlan represents a ground formula over many atoms exactly by one
// auxiliary variable a: φ(x) = Σ_a g(a) Π_i h_i(a, x_i).
type starPlan struct {
	auxCard int
	unary   int32   // table of g, or -1 when g is constant 1
	pair    []int32 // table of h_i over (a, x_i)
	pos     []int32 // scope position of x_i
}

// emit turns the fully bound current grounding into a factor.
func (g *grounder) emit() error {
	f := g.f
	g.scope = g.scope[:0]
	sig := g.sig[:0]
	for o := range f.prog.occs {
		st := g.occState[o]
		code := int32(-1)
		var c uint64
		switch {
		case st == stFalse:
			c = 0
		case st == stTrue:
			c = 1
		default:
			code = g.scopePos(st)
			c = uint64(code) + 2
		}
		g.scopeCode[o] = code
		sig = binary.AppendUvarint(sig, c)
	}
	sig = append(sig, g.eqVal...)
	g.sig = sig
	ent := g.cache[string(sig)]
	if ent == nil {
		var err error
		if ent, err = g.build(); err != nil {
			return err
		}
		if len(g.cache) > 1<<16 {
			g.cache = map[string]*entry{}
		}
		g.cache[string(sig)] = ent
	}
	return g.apply(ent)
}

// scopePos returns the position of variable v in the scope of the current
// grounding, adding it (a linear scan for small formulas, a map for large
// ones).
func (g *grounder) scopePos(v int32) int32 {
	if len(g.f.prog.occs) <= 32 {
		for j, u := range g.scope {
			if u == v {
				return int32(j)
			}
		}
	} else {
		if len(g.scope) == 0 {
			if g.scopeIndex == nil {
				g.scopeIndex = map[int32]int32{}
			}
			clear(g.scopeIndex)
		}
		if j, ok := g.scopeIndex[v]; ok {
			return j
		}
		g.scopeIndex[v] = int32(len(g.scope))
	}
	g.scope = append(g.scope, v)
	return int32(len(g.scope) - 1)
}

// apply adds the factors of an entry for the current scope.
func (g *grounder) apply(ent *entry) error {
	g.done++
	switch ent.kind {
	case entConst:
		if ent.hardFail {
			return fmt.Errorf("%w: hard %s is false for %s whatever the values of its unknown atoms", ErrContradiction, describe(g.f), g.bindingText())
		}
		g.res.LogZOffset += ent.logConst
		if r := g.p.opt.Restrict; r != nil && r.OnOffset != nil && ent.logConst != 0 {
			r.OnOffset(g.fi, g.f.slotType, g.bind, ent.logConst)
		}
		if ent.val == vTrue {
			g.st.TrueByEv++
		} else {
			g.st.FalseByEv++
		}
		return g.tick()
	case entTable:
		vars := g.argBuf[:0]
		for _, p := range ent.pos {
			vars = append(vars, g.scope[p])
		}
		g.argBuf = vars
		if g.f.hard && len(vars) == 1 {
			if err := g.force(vars[0], ent.table); err != nil {
				return err
			}
		}
		if err := g.fs.add(vars, ent.table, true); err != nil {
			return err
		}
		if r := g.p.opt.Restrict; r != nil && r.OnFactor != nil {
			r.OnFactor(g.fi, g.f.slotType, g.bind, int32(len(g.fs.table)-1))
		}
	case entStar:
		if r := g.p.opt.Restrict; r != nil && r.OnFactor != nil {
			r.OnFactor(g.fi, g.f.slotType, g.bind, -1)
		}
		sp := ent.star
		aux := g.b.AddVar(sp.auxCard)
		if sp.unary >= 0 {
			if err := g.fs.add([]int32{aux}, sp.unary, false); err != nil {
				return err
			}
		}
		for i, p := range sp.pos {
			if err := g.fs.add([]int32{aux, g.scope[p]}, sp.pair[i], false); err != nil {
				return err
			}
		}
	case entCircuit:
		if r := g.p.opt.Restrict; r != nil && r.OnFactor != nil {
			r.OnFactor(g.fi, g.f.slotType, g.bind, -1)
		}
		if err := g.applyCircuit(ent.circuit); err != nil {
			return err
		}
	}
	g.res.LogZOffset += ent.logConst
	if r := g.p.opt.Restrict; r != nil && r.OnOffset != nil && ent.logConst != 0 {
		r.OnOffset(g.fi, g.f.slotType, g.bind, ent.logConst)
	}
	g.res.NumFormulas++
	g.st.Kept++
	if g.p.maxGr > 0 && g.res.NumFormulas > g.p.maxGr {
		return sizeErrorf("grounding has passed %d ground formulas (at %s) and would create more; %s",
			g.p.maxGr, describe(g.f), g.p.raiseText())
	}
	return g.tick()
}

// forcing records which hard ground formula first fixed an atom's value.
type forcing struct {
	value   int8
	formula string
	binding string
}

// force records that a hard unit ground formula with table t fixes the
// value of variable v, and reports a contradiction with an earlier one that
// fixed the opposite value (one step of unit propagation).
func (g *grounder) force(v int32, t int32) error {
	vals := g.fs.tvals[t]
	val := int8(1)
	if vals[0] > 0 {
		val = 0
	}
	if g.forced == nil {
		g.forced = map[int32]forcing{}
	}
	old, ok := g.forced[v]
	switch {
	case !ok:
		g.forced[v] = forcing{value: val, formula: describe(g.f), binding: g.bindingText()}
	case old.value != val:
		return fmt.Errorf("%w: hard %s requires %s to be %v for %s, but hard %s requires it %v for %s",
			ErrContradiction, old.formula, g.res.AtomName(v), old.value == 1, old.binding, describe(g.f), val == 1, g.bindingText())
	}
	return nil
}

// values returns the factor value of a true and of a false ground formula,
// scaled so that the larger is 1, and the log of the scale taken out.
func (f *formula) values() (tv, fv, logScale float64) {
	if f.hard {
		return 1, 0, 0
	}
	if f.weight >= 0 {
		return 1, math.Exp(-f.weight), f.weight
	}
	return math.Exp(f.weight), 1, 0
}

// build makes the cache entry for the current signature.
func (g *grounder) build() (*entry, error) {
	k := len(g.scope)
	if k > g.p.maxArity {
		return g.buildStar()
	}
	f := g.f
	n := 1 << k
	full := make([]uint8, n)
	for a := 0; a < n; a++ {
		for o := range f.prog.occs {
			if c := g.scopeCode[o]; c >= 0 {
				g.occVal[o] = uint8(a>>(k-1-int(c))) & 1
			}
		}
		full[a] = f.prog.eval(g.occVal, g.eqVal, g.vals)
	}
	for o := range f.prog.occs {
		if g.scopeCode[o] >= 0 {
			g.occVal[o] = vUnk
		}
	}
	var kept []int32
	for j := 0; j < k; j++ {
		bit := 1 << (k - 1 - j)
		for a := 0; a < n; a++ {
			if full[a] != full[a^bit] {
				kept = append(kept, int32(j))
				break
			}
		}
	}
	tv, fv, logScale := f.values()
	if len(kept) == 0 {
		return g.constEntry(full[0]), nil
	}
	m := len(kept)
	dims := make([]int32, m)
	vals := make([]float64, 1<<m)
	for i := range dims {
		dims[i] = 2
	}
	for r := range vals {
		a := 0
		for i, j := range kept {
			if r>>(m-1-i)&1 == 1 {
				a |= 1 << (k - 1 - int(j))
			}
		}
		if full[a] == vTrue {
			vals[r] = tv
		} else {
			vals[r] = fv
		}
	}
	id, err := g.fs.tableID(dims, vals)
	if err != nil {
		return nil, err
	}
	return &entry{kind: entTable, table: id, pos: kept, logConst: logScale}, nil
}

// constEntry is the entry of a ground formula whose value v does not
// depend on its unknown atoms.
func (g *grounder) constEntry(v uint8) *entry {
	f := g.f
	switch {
	case f.hard:
		return &entry{kind: entConst, val: v, hardFail: v != vTrue}
	case v == vTrue:
		return &entry{kind: entConst, val: v, logConst: f.weight}
	}
	return &entry{kind: entConst, val: v}
}

// Shapes of a simplified ground formula, for formulas over too many atoms
// for a table.
const (
	shConst uint8 = iota
	shList        // a clause (or) or a conjunction (and) of literals
	shComplex
)

type lit struct {
	j   int32 // scope position
	neg bool
}

type shape struct {
	kind uint8
	val  uint8 // shConst
	and  bool  // shList: conjunction (a single literal is both)
	lits []lit
}

// shapeOf analyses the current ground formula structurally.
func (g *grounder) shapeOf() shape {
	p := &g.f.prog
	sh := make([]shape, len(p.nodes))
	for i := range p.nodes {
		n := &p.nodes[i]
		switch n.op {
		case opAtom:
			if c := g.scopeCode[n.ref]; c >= 0 {
				sh[i] = shape{kind: shList, lits: []lit{{j: c}}}
			} else {
				sh[i] = shape{kind: shConst, val: g.occVal[n.ref]}
			}
		case opEq:
			sh[i] = shape{kind: shConst, val: g.eqVal[n.ref]}
		case opTrue:
			sh[i] = shape{kind: shConst, val: vTrue}
		case opFalse:
			sh[i] = shape{kind: shConst, val: vFalse}
		case opNot:
			sh[i] = negShape(sh[n.kids[0]])
		case opAnd, opOr:
			sh[i] = junctionShape(n.op == opAnd, n.kids, sh)
		case opIff:
			a, b := sh[n.kids[0]], sh[n.kids[1]]
			switch {
			case a.kind == shConst && b.kind == shConst:
				sh[i] = shape{kind: shConst, val: boolVal(a.val == b.val)}
			case a.kind == shConst && a.val == vTrue:
				sh[i] = b
			case a.kind == shConst:
				sh[i] = negShape(b)
			case b.kind == shConst && b.val == vTrue:
				sh[i] = a
			case b.kind == shConst:
				sh[i] = negShape(a)
			default:
				sh[i] = shape{kind: shComplex}
			}
		}
	}
	return sh[len(sh)-1]
}

func boolVal(b bool) uint8 {
	if b {
		return vTrue
	}
	return vFalse
}

func negShape(s shape) shape {
	switch s.kind {
	case shConst:
		return shape{kind: shConst, val: s.val ^ 1}
	case shList:
		out := shape{kind: shList, and: !s.and, lits: make([]lit, len(s.lits))}
		for i, l := range s.lits {
			out.lits[i] = lit{j: l.j, neg: !l.neg}
		}
		return out
	}
	return s
}

// junctionShape combines the shapes of the children of an And or an Or.
func junctionShape(and bool, kids []int32, sh []shape) shape {
	absorb := boolVal(!and) // false absorbs a conjunction, true a disjunction
	out := shape{kind: shList, and: and}
	for _, k := range kids {
		s := sh[k]
		switch {
		case s.kind == shComplex:
			return s
		case s.kind == shConst:
			if s.val == absorb {
				return s
			}
			continue
		case len(s.lits) > 1 && s.and != and:
			return shape{kind: shComplex}
		}
		for _, l := range s.lits {
			dup := false
			for _, m := range out.lits {
				if m.j == l.j {
					if m.neg != l.neg {
						return shape{kind: shConst, val: absorb}
					}
					dup = true
				}
			}
			if !dup {
				out.lits = append(out.lits, l)
			}
		}
	}
	if len(out.lits) == 0 {
		return shape{kind: shConst, val: absorb ^ 1}
	}
	return out
}

// buildStar represents a ground clause or conjunction over more than
// MaxArity unknown atoms with an auxiliary variable, and any other ground
// formula that large with Tseitin auxiliary variables (buildCircuit).
func (g *grounder) buildStar() (*entry, error) {
	s := g.shapeOf()
	switch s.kind {
	case shConst:
		return g.constEntry(s.val), nil
	case shComplex:
		return g.buildCircuit()
	}
	// The formula equals b exactly when every literal l' is false, where
	// l' = l and b = false for a clause, l' = !l and b = true for a
	// conjunction.
	b := s.and
	tv, fv, logScale := g.f.values()
	cAll, cOther := fv, tv
	if b {
		cAll, cOther = tv, fv
	}
	k := len(s.lits)
	falseVal := make([]int, k)
	pos := make([]int32, k)
	for i, l := range s.lits {
		neg := l.neg
		if b {
			neg = !neg
		}
		if neg {
			falseVal[i] = 1
		}
		pos[i] = l.j
	}
	var sp *starPlan
	var err error
	if cAll >= cOther && !g.p.opt.ExactMax {
		sp, err = g.symmetricStar(cAll, cOther, falseVal)
	} else {
		sp, err = g.firstTrueStar(cAll, cOther, falseVal)
	}
	if err != nil {
		return nil, err
	}
	sp.pos = pos
	return &entry{kind: entStar, star: sp, logConst: logScale}, nil
}

// symmetricStar: φ = cOther + (cAll-cOther)·[all l' false], a mixture of
// two product terms: a = 0 weighs cOther, a = 1 weighs cAll-cOther and
// requires every l' false. All pairwise tables are equal per literal sign,
// so colour passing keeps the atoms together.
func (g *grounder) symmetricStar(cAll, cOther float64, falseVal []int) (*starPlan, error) {
	sp := &starPlan{auxCard: 2}
	var err error
	if sp.unary, err = g.fs.tableID([]int32{2}, []float64{cOther, cAll - cOther}); err != nil {
		return nil, err
	}
	for _, fvl := range falseVal {
		vals := []float64{1, 1, 0, 0}
		vals[2+fvl] = 1
		id, err := g.fs.tableID([]int32{2, 2}, vals)
		if err != nil {
			return nil, err
		}
		sp.pair = append(sp.pair, id)
	}
	return sp, nil
}

// firstTrueStar: a ranges over 0..k; a = 0 means every l' is false (weight
// cAll), a = j means l'_j is the first true one (weight cOther).
func (g *grounder) firstTrueStar(cAll, cOther float64, falseVal []int) (*starPlan, error) {
	k := len(falseVal)
	sp := &starPlan{auxCard: k + 1}
	un := make([]float64, k+1)
	un[0] = cAll
	for j := 1; j <= k; j++ {
		un[j] = cOther
	}
	var err error
	if sp.unary, err = g.fs.tableID([]int32{int32(k + 1)}, un); err != nil {
		return nil, err
	}
	for i, fvl := range falseVal {
		vals := make([]float64, 2*(k+1))
		for a := 0; a <= k; a++ {
			for x := 0; x < 2; x++ {
				var ok bool
				switch {
				case a == 0 || i < a-1:
					ok = x == fvl
				case i == a-1:
					ok = x != fvl
				default:
					ok = true
				}
				if ok {
					vals[2*a+x] = 1
				}
			}
		}
		id, err := g.fs.tableID([]int32{int32(k + 1), 2}, vals)
		if err != nil {
			return nil, err
		}
		sp.pair = append(sp.pair, id)
	}
	return sp, nil
}
