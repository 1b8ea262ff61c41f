package ground

import (
	"context"
	"fmt"
	"strings"

	"github.com/lifted-dev/lifted/fg"
)

// grounder enumerates the groundings of the compiled formulas and emits
// their factors.
//
// Enumeration is a backtracking join over the free variables of a formula.
// At every step the formula is evaluated in three-valued logic with the atoms
// bound so far (an atom not yet fully bound, or not fixed by evidence, is
// unknown); when the value is already fixed, the whole subtree of bindings
// vanishes at once. Otherwise the grounder looks for a "driver": an atom of a
// closed-world predicate, not yet fully bound, such that the formula's value
// is fixed whenever that atom is false. Only bindings that make the driver
// true or unknown can then yield factors, and those are read off the index of
// the predicate's evidence; all others vanish together. Without a driver the
// next variable ranges over its domain.
type grounder struct {
	ctx context.Context
	p   *prepared
	at  *atomTable
	b   *fg.Builder
	fs  *factors
	res *Grounding

	naive bool // reference mode: no pruning, every binding visited

	// progress
	done, total float64
	ticks       int
	fi          int

	// trueN counts the groundings of the current formula that the evidence
	// makes true.
	trueN float64

	// per formula
	f         *formula
	st        *FormulaStats
	bind      []int32
	nUnbound  int
	occVal    []uint8
	occState  []int32
	occLeft   []int32   // unbound argument slots per occurrence
	slotOccs  [][]int32 // occurrences per slot (once per argument)
	slotEqs   [][]int32
	eqVal     []uint8
	vals      []uint8
	argBuf    []int32
	cache     map[string]*entry
	sig       []byte
	scope     []int32
	scopeCode []int32 // per occurrence: -1, or index into scope

	forced map[int32]forcing // atoms fixed by hard unit ground formulas

	// Lazy grounding (Options.Lazy): per world w, occValX[w*len(occs)+o]
	// is occurrence o's value with the world's values for unknown atoms;
	// atMax is the current formula's value at its maximum.
	occValX []uint8
	atMax   uint8

	staticDriver []uint8         // per occurrence; see findStaticDrivers
	scopeIndex   map[int32]int32 // variable → scope position, for large formulas
}

func newGrounder(ctx context.Context, p *prepared) *grounder {
	g := &grounder{ctx: ctx, p: p, at: p.at, b: fg.NewBuilder(), naive: p.opt.naive}
	g.res = &Grounding{MLN: p.m, DB: p.db, Closed: p.closed, WorldRule: p.m.Dialect.Dialect.WorldRule(), at: p.at}
	g.b.AddVars(len(p.at.varPred), 2)
	g.fs = newFactors(g.b, p.opt.MergeDuplicates)
	g.res.NumAtoms = len(p.at.varPred)
	g.res.LogZOffset = p.at.logUnused
	for _, f := range p.formulas {
		g.total += f.total
		g.res.compiled = append(g.res.compiled, f.index)
	}
	for i := range p.at.preds {
		if s := &p.at.preds[i]; len(s.decl.MutexArgs) > 0 {
			g.total += float64(s.n) / float64(blockSize(s))
		}
	}
	return g
}

func (g *grounder) run() error {
	byIndex := map[int]int{}
	for i, f := range g.p.formulas {
		si, ok := byIndex[f.index]
		if !ok {
			si = len(g.res.Formulas)
			byIndex[f.index] = si
			g.res.Formulas = append(g.res.Formulas, FormulaStats{Formula: f.index, Text: f.src.Text})
		}
		g.fi = i
		g.st = &g.res.Formulas[si]
		if err := g.groundFormula(f); err != nil {
			return err
		}
	}
	if err := g.mutex(); err != nil {
		return err
	}
	g.report()
	g.res.LogZOffset += g.fs.logOffset
	g.res.Merged = g.fs.merged
	return g.fs.build(g.ctx)
}

func (g *grounder) report() {
	if g.p.opt.Progress != nil {
		g.p.opt.Progress(Progress{Formula: g.fi + 1, Formulas: len(g.p.formulas), Groundings: g.done, Total: g.total, Factors: g.res.NumFormulas, Atoms: g.res.NumAtoms})
	}
}

// tick counts work; every so often it reports progress and checks for
// cancellation.
func (g *grounder) tick() error {
	g.ticks++
	if g.ticks&0x3fff != 0 {
		return nil
	}
	g.report()
	return g.ctx.Err()
}

// groundFormula enumerates the groundings of f.
//
// A formula with function terms is ground over its fresh slots too, and all
// but at most one grounding per binding of its own variables are true
// because a guard is false; the statistics and LogZOffset count one
// grounding per binding instead (a binding whose function terms are all
// defined keeps its one grounding, one with an undefined term is a single
// true one), which changes log Z by a constant only and makes it
// independent of the size of the return types' domains. The counts are
// integers summed exactly (below 2^53), so the subtraction is too.
func (g *grounder) groundFormula(f *formula) error {
	g.f = f
	g.st.Groundings += f.bindings
	g.trueN = 0
	if err := g.enumerate(f); err != nil {
		return err
	}
	if !f.hard {
		extra := f.total - f.bindings
		g.st.TrueByEv -= extra
		g.res.LogZOffset += f.weight * (g.trueN - extra)
	}
	return nil
}

func (g *grounder) enumerate(f *formula) error {
	if f.total == 0 {
		return nil
	}
	if v, ok := f.prog.constValue(); ok {
		return g.vanish(v, f.total)
	}
	g.setup(f)
	g.findStaticDrivers()
	return g.rec()
}

// setup prepares the per-formula state, with no slot bound.
func (g *grounder) setup(f *formula) {
	g.f = f
	ns, no, ne := len(f.slotDom), len(f.prog.occs), len(f.prog.eqs)
	g.bind = fill(g.bind, ns, -1)
	g.nUnbound = ns
	g.occVal = resize(g.occVal, no)
	g.occState = resize(g.occState, no)
	g.occLeft = resize(g.occLeft, no)
	g.eqVal = resize(g.eqVal, ne)
	g.vals = resize(g.vals, len(f.prog.nodes))
	g.scopeCode = resize(g.scopeCode, no)
	if g.p.worlds != nil {
		g.occValX = fill8(g.occValX, no*len(g.p.worlds), vUnk)
		g.atMax = vTrue
		if !f.hard && f.weight < 0 {
			g.atMax = vFalse
		}
	}
	g.slotOccs = make([][]int32, ns)
	g.slotEqs = make([][]int32, ns)
	g.cache = map[string]*entry{}
	for i, o := range f.prog.occs {
		n := int32(0)
		for _, a := range o.args {
			if !isConst(a) {
				g.slotOccs[a] = append(g.slotOccs[a], int32(i))
				n++
			}
		}
		g.occLeft[i] = n
		g.occVal[i] = vUnk
		g.occState[i] = -3
		if n == 0 {
			g.settleOcc(int32(i))
		}
	}
	for i, e := range f.prog.eqs {
		g.eqVal[i] = vUnk
		for _, t := range e {
			if !isConst(t) {
				g.slotEqs[t] = append(g.slotEqs[t], int32(i))
			}
		}
	}
}

func fill8(s []uint8, n int, v uint8) []uint8 {
	s = resize(s, n)
	for i := range s {
		s[i] = v
	}
	return s
}

func fill(s []int32, n int, v int32) []int32 {
	s = resize(s, n)
	for i := range s {
		s[i] = v
	}
	return s
}

func resize[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// settleOcc computes the state of a fully bound occurrence.
func (g *grounder) settleOcc(o int32) {
	oc := &g.f.prog.occs[o]
	s := &g.at.preds[oc.pred]
	var l int64
	for p, a := range oc.args {
		l += int64(bindOf(a, g.bind)) * s.strides[p]
	}
	st := s.state(l)
	g.occState[o] = st
	switch st {
	case stTrue:
		g.occVal[o] = vTrue
	case stFalse:
		g.occVal[o] = vFalse
	default:
		g.occVal[o] = vUnk
	}
	if g.p.worlds != nil {
		no := int32(len(g.f.prog.occs))
		for w, x := range g.p.worlds {
			v := g.occVal[o]
			if st >= 0 {
				v = vFalse
				if int(st) < len(x) && x[st] {
					v = vTrue
				}
			}
			g.occValX[int32(w)*no+o] = v
		}
	}
}

func (g *grounder) bindSlot(s int32, c int32) {
	g.bind[s] = c
	g.nUnbound--
	for _, o := range g.slotOccs[s] {
		g.occLeft[o]--
		if g.occLeft[o] == 0 {
			g.settleOcc(o)
		}
	}
	for _, e := range g.slotEqs[s] {
		l, r := g.f.prog.eqs[e][0], g.f.prog.eqs[e][1]
		if (isConst(l) || g.bind[l] >= 0) && (isConst(r) || g.bind[r] >= 0) {
			if bindOf(l, g.bind) == bindOf(r, g.bind) {
				g.eqVal[e] = vTrue
			} else {
				g.eqVal[e] = vFalse
			}
		}
	}
}

func (g *grounder) unbindSlot(s int32) {
	for _, o := range g.slotOccs[s] {
		if g.occLeft[o] == 0 {
			g.occVal[o] = vUnk
			g.occState[o] = -3
			if g.p.worlds != nil {
				no := int32(len(g.f.prog.occs))
				for w := range g.p.worlds {
					g.occValX[int32(w)*no+o] = vUnk
				}
			}
		}
		g.occLeft[o]++
	}
	for _, e := range g.slotEqs[s] {
		g.eqVal[e] = vUnk
	}
	g.bind[s] = -1
	g.nUnbound++
}

// subtree returns the number of completions of the current binding.
func (g *grounder) subtree() float64 {
	n := 1.0
	for s, b := range g.bind {
		if b < 0 {
			n *= float64(g.f.slotDom[s])
		}
	}
	return n
}

// rec enumerates the completions of the current binding.
func (g *grounder) rec() error {
	if g.nUnbound == 0 || !g.naive {
		v := g.f.prog.eval(g.occVal, g.eqVal, g.vals)
		if v != vUnk {
			return g.vanish(v, g.subtree())
		}
		if g.p.worlds != nil && g.atMaxInAll(-1) {
			return g.vanish(g.atMax, g.subtree())
		}
		if g.nUnbound == 0 {
			return g.emit()
		}
	}
	if !g.naive {
		if o, v, ok := g.driver(); ok {
			return g.drive(o, v)
		}
	}
	s := g.nextSlot()
	for c := int32(0); c < int32(g.f.slotDom[s]); c++ {
		g.bindSlot(s, c)
		err := g.rec()
		g.unbindSlot(s)
		if err != nil {
			return err
		}
	}
	return nil
}

// nextSlot picks the unbound slot that completes the most nearly bound
// occurrence (fewest unbound arguments), the lowest slot on ties.
func (g *grounder) nextSlot() int32 {
	best, bestLeft := int32(-1), int32(1<<30)
	for s, b := range g.bind {
		if b >= 0 {
			continue
		}
		if best < 0 {
			best = int32(s)
		}
		if g.naive {
			break
		}
		for _, o := range g.slotOccs[s] {
			if g.occLeft[o] < bestLeft {
				best, bestLeft = int32(s), g.occLeft[o]
			}
		}
	}
	return best
}

// driver finds the not fully bound occurrence of a closed-world predicate
// that fixes the formula's value when false and has the fewest candidate
// atoms. It returns the occurrence and the value the formula takes when the
// occurrence is false. In a lazy grounding an occurrence of an open-world
// predicate drives too where its being false puts the formula at its
// maximum in every world (see Lazy); its candidates are the atoms true by
// evidence or in some world, and the value returned the maximum.
func (g *grounder) driver() (int32, uint8, bool) {
	best, bestVal, bestN := int32(-1), vUnk, -1
	for o := range g.f.prog.occs {
		if g.occLeft[o] == 0 {
			continue
		}
		s := &g.at.preds[g.f.prog.occs[o].pred]
		if !s.closed && !s.lazyDrive {
			continue
		}
		n := len(g.candidates(int32(o)))
		if bestN >= 0 && n >= bestN {
			continue
		}
		if !s.closed {
			// lazy: the bindings where the atom is false in every world
			// leave the formula at its maximum in every world
			if len(g.f.prog.occs) <= maxDynamicOccs && g.atMaxInAll(int32(o)) {
				best, bestVal, bestN = int32(o), g.atMax, n
			}
			continue
		}
		v := g.staticDriver[o]
		if v == vUnk && len(g.f.prog.occs) <= maxDynamicOccs {
			g.occVal[o] = vFalse
			v = g.f.prog.eval(g.occVal, g.eqVal, g.vals)
			g.occVal[o] = vUnk
		}
		if v != vUnk {
			best, bestVal, bestN = int32(o), v, n
		}
	}
	return best, bestVal, best >= 0
}

// atMaxInAll tells whether the current formula is at its maximum in
// every world of a lazy grounding given the slots bound so far, with
// occurrence o (if not -1) taken as false.
func (g *grounder) atMaxInAll(o int32) bool {
	no := int32(len(g.f.prog.occs))
	for w := range g.p.worlds {
		x := g.occValX[int32(w)*no : int32(w+1)*no]
		var old uint8
		if o >= 0 {
			old, x[o] = x[o], vFalse
		}
		v := g.f.prog.eval(x, g.eqVal, g.vals)
		if o >= 0 {
			x[o] = old
		}
		if v != g.atMax {
			return false
		}
	}
	return true
}

// maxDynamicOccs bounds the formulas for which drivers are also sought
// given the current bindings (each test evaluates the formula); larger
// formulas use only the drivers found with nothing bound.
const maxDynamicOccs = 64

// findStaticDrivers records, for each occurrence of a closed-world
// predicate, the formula's value when it is false and nothing else is
// known (vUnk if that does not fix it). Such a driver stays one at every
// binding, since three-valued evaluation only gets more definite.
func (g *grounder) findStaticDrivers() {
	f := g.f
	g.staticDriver = resize(g.staticDriver, len(f.prog.occs))
	for o := range f.prog.occs {
		g.staticDriver[o] = vUnk
		if g.occLeft[o] == 0 || !g.at.preds[f.prog.occs[o].pred].closed {
			continue
		}
		g.occVal[o] = vFalse
		g.staticDriver[o] = f.prog.eval(g.occVal, g.eqVal, g.vals)
		g.occVal[o] = vUnk
	}
}

// candidates returns the non-false atoms of occurrence o's predicate that
// agree with its constant and bound arguments.
func (g *grounder) candidates(o int32) []int64 {
	oc := &g.f.prog.occs[o]
	s := &g.at.preds[oc.pred]
	var mask uint64
	var key int64
	for p, a := range oc.args {
		if isConst(a) || g.bind[a] >= 0 {
			mask |= 1 << p
			key += int64(bindOf(a, g.bind)) * s.strides[p]
		}
	}
	return s.lookupMask(mask, key)
}

// drive enumerates the bindings that make occurrence o true or unknown; the
// others give the formula value v and vanish together.
func (g *grounder) drive(o int32, v uint8) error {
	oc := &g.f.prog.occs[o]
	s := &g.at.preds[oc.pred]
	cands := g.candidates(o)
	sub := g.subtree()
	var newSlots []int32
	for _, a := range oc.args {
		if !isConst(a) && g.bind[a] < 0 && !contains(newSlots, a) {
			newSlots = append(newSlots, a)
		}
	}
	per := sub
	for _, sl := range newSlots {
		per /= float64(g.f.slotDom[sl])
	}
	args := make([]int32, len(oc.args))
	matched := 0.0
	var firstMatched [][]int32
	for _, c := range cands {
		s.decode(c, args)
		if !g.unify(oc.args, args) {
			continue
		}
		matched++
		if g.f.hard && v == vFalse && len(firstMatched) < 64 {
			firstMatched = append(firstMatched, g.slotValues(newSlots))
		}
		err := g.rec()
		for _, sl := range newSlots {
			g.unbindSlot(sl)
		}
		if err != nil {
			return err
		}
	}
	rest := sub - matched*per
	if rest > 0 && g.f.hard && v == vFalse {
		g.bindMissing(newSlots, firstMatched)
	}
	return g.vanish(v, rest)
}

func contains(s []int32, x int32) bool {
	for _, y := range s {
		if y == x {
			return true
		}
	}
	return false
}

func (g *grounder) slotValues(slots []int32) []int32 {
	out := make([]int32, len(slots))
	for i, s := range slots {
		out[i] = g.bind[s]
	}
	return out
}

// bindMissing binds slots to the first combination of constants not among
// taken (for an error message; the bindings are not undone).
func (g *grounder) bindMissing(slots []int32, taken [][]int32) {
	vals := make([]int32, len(slots))
	for n := 0; n <= len(taken); n++ {
		found := false
		for _, t := range taken {
			if equal32(t, vals) {
				found = true
				break
			}
		}
		if !found {
			break
		}
		for i := len(vals) - 1; i >= 0; i-- {
			vals[i]++
			if int64(vals[i]) < g.f.slotDom[slots[i]] {
				break
			}
			vals[i] = 0
		}
	}
	for i, s := range slots {
		g.bind[s] = vals[i]
	}
}

func equal32(a, b []int32) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// unify binds the unbound slots among terms to the constants args; it
// fails (undoing its bindings) when a repeated slot would get two values.
func (g *grounder) unify(terms []cterm, args []int32) bool {
	var done [8]int32
	made := done[:0]
	for p, t := range terms {
		if isConst(t) {
			continue
		}
		if b := g.bind[t]; b >= 0 {
			if b != args[p] {
				for i := len(made) - 1; i >= 0; i-- {
					g.unbindSlot(made[i])
				}
				return false
			}
			continue
		}
		g.bindSlot(t, args[p])
		made = append(made, t)
	}
	return true
}

// vanish accounts for n groundings whose value the evidence fixes to v.
func (g *grounder) vanish(v uint8, n float64) error {
	if n == 0 {
		return nil
	}
	g.done += n
	f := g.f
	switch {
	case f.hard && v == vFalse:
		return g.contradiction()
	case f.hard:
	case v == vTrue:
		g.st.TrueByEv += n
		g.trueN += n
		if r := g.p.opt.Restrict; r != nil && r.OnOffset != nil {
			if n == 1 && g.nUnbound == 0 && len(g.bind) == len(f.slotType) {
				r.OnOffset(g.fi, f.slotType, g.bind, f.weight)
			} else {
				r.OnOffset(g.fi, f.slotType, nil, f.weight)
			}
		}
	default:
		g.st.FalseByEv += n
	}
	return g.tick()
}

// contradiction reports a hard formula made false by the evidence at the
// current binding (unbound slots taken as their first constant).
func (g *grounder) contradiction() error {
	return fmt.Errorf("%w: hard %s is false for %s", ErrContradiction, describe(g.f), g.bindingText())
}

// bindingText prints the current binding as "x = Anna, y = Bob".
func (g *grounder) bindingText() string {
	f := g.f
	if len(f.slotName) == 0 {
		return "its only grounding"
	}
	var b strings.Builder
	for s, name := range f.slotName {
		if s > 0 {
			b.WriteString(", ")
		}
		c := g.bind[s]
		if c < 0 {
			c = 0
		}
		fmt.Fprintf(&b, "%s = %s", name, g.at.domains[f.slotType[s]][c])
	}
	return b.String()
}
