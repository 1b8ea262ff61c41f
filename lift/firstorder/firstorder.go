package firstorder

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strings"
	"time"

	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/ground"
	"github.com/lifted-dev/lifted/lift"
	"github.com/lifted-dev/lifted/mln"
)

// ErrNotApplicable reports an MLN (or an option) that the first-order
// construction does not handle; the caller grounds instead. The error's
// text says why.
var ErrNotApplicable = errors.New("first-order construction does not apply")

// MaxLogZBindings bounds the bindings of the reduced model that
// Options.LogZ enumerates.
const MaxLogZBindings = 1e7

// Options configure Build.
type Options struct {
	// Ground holds the grounding options the construction must agree with
	// (query predicates and atoms, world assumption, default weight,
	// MaxArity, AlchemyCNF, ExactMax). Restrict and MergeDuplicates must be
	// unset.
	Ground ground.Options
	// Colour configures the colour passing it reproduces (Positional or
	// CNF mode; Symmetric names ground table ids and is refused).
	Colour lift.Options
	// OnlyIfSmaller refuses (ErrNotApplicable) a model where the reduced
	// model keeps more than half of the constants: the evidence tells
	// most constants apart, the reduced model is nearly the full one, and
	// grounding directly is faster.
	OnlyIfSmaller bool
	// LogZ computes Network.LogZOffset, the grounding's evidence offset of
	// log Z for the full model; it makes the reduced grounding visit every
	// binding of every formula, and is skipped (LogZOffset NaN) when those
	// are more than MaxLogZBindings.
	LogZ bool
}

// Network is the counted graph of an MLN built without grounding it:
// the Compressed that grounding (ground.Ground) followed by colour passing
// (Compress, no evidence vector) gives, up to the numbering of
// clusternodes and clusterfactors.
//
// Its Ground graph is not the ground graph but the grounding of a reduced
// model (see Build), and NodeOf and FactorOf cover that graph's
// variables and factors only; NodeSize, FactorSize and EdgeCount are the
// counts of the full ground graph. Node finds the clusternode of any ground
// atom of the full model.
type Network struct {
	*lift.Compressed
	// Reduced is the grounding of the reduced model.
	Reduced *ground.Grounding
	// Atoms and Factors are the numbers of ground atoms (variables) and
	// ground factors represented: the sums of NodeSize and FactorSize.
	Atoms, Factors int64
	// Classes is the number of classes of interchangeable constants over
	// all types, Kept the number of constants grounded.
	Classes, Kept int
	// AtomOrbits and FactorOrbits are the sizes of the network colour
	// passing ran on (atom patterns and binding patterns).
	AtomOrbits, FactorOrbits int
	// LogZOffset is, with Options.LogZ, ground.Grounding.LogZOffset of
	// the full model: log Z of the MLN given the evidence is log Z of the
	// counted graph plus LogZOffset (NaN without Options.LogZ).
	LogZOffset float64
	// Iterations of colour passing on that network; Seconds in all.
	Iterations int
	Seconds    float64

	m       *mln.MLN
	db      *mln.DB
	classOf [][]int32 // per type: constant → class
	classes []foClass
	keepIdx [][]int32 // per type: constant → index in the reduced domain, or -1
	keep    [][]int   // per type: reduced index → constant
}

// foClass is a class of interchangeable constants of one type.
type foClass struct {
	typ     int
	size    int64
	kept    []int // full-domain indices of the representatives grounded
	reduced bool  // fewer representatives than members
}

// Build computes the counted graph of m given db without
// grounding m: the colour-passing fixpoint on the first-order structure.
//
// The constants of each type are split into classes of interchangeable
// ones: a constant that a formula names, or that appears in an evidence
// atom of two or more arguments, is a class of its own; the others are
// grouped by their unary evidence (predicate and truth value), so that
// any permutation within a class maps the evidence and the formulas onto
// themselves. A class of m constants keeps k = min(m, K) representatives,
// K the largest number of variables of its type in a formula or arguments
// in a predicate, and the reduced model over the representatives is
// grounded by package ground, with every simplification of the grounding
// of the full model. A ground atom of the full model is then described by
// its predicate and, per argument, the constant (for a class not reduced)
// or the class and the pattern of equalities among the arguments in that
// class; a ground formula likewise by its formula and binding pattern. Each
// pattern is realised in the reduced model, and stands for
// Π (m_c)_{j_c} ground atoms or formulas of the full model (a falling
// factorial per class, j_c the number of distinct constants of class c in
// the pattern). The patterns form an equitable partition of the full
// ground graph (the orbits of the permutations within classes), so colour
// passing on the network of patterns, with each position's count
// (formulas of the pattern) / (atoms of the pattern), finds the same
// stable colouring as colour passing on the ground graph: the time depends
// on the number of classes and the formulas, not on the domain sizes.
//
// It returns an error wrapping ErrNotApplicable when the model has
// quantifiers over a type with interchangeable constants, functions, mutually exclusive arguments, formulas that need
// auxiliary variables or counts beyond int64, and one wrapping
// ground.ErrTooLarge too, with the predicted size and the flag that raises
// the limit, when the reduced model's grounding is predicted to exceed
// Options.Ground.MaxGround (0: sized to the memory budget, as a grounding
// of the full model; -1: no limit), before it is built.
func Build(ctx context.Context, m *mln.MLN, db *mln.DB, opt Options) (*Network, error) {
	start := time.Now()
	if ctx == nil {
		ctx = context.Background()
	}
	if err := firstOrderApplies(m, opt); err != nil {
		return nil, err
	}
	fo := &Network{m: m, db: db}
	keep := fo.shatter(m, db)
	fo.keep = keep
	if err := fo.checkQuantifiers(m); err != nil {
		return nil, err
	}
	if opt.OnlyIfSmaller {
		var total int64
		for _, c := range fo.classes {
			total += c.size
		}
		if 2*int64(fo.Kept) > total {
			return nil, fmt.Errorf("%w: the evidence and the formulas tell most constants apart (the reduced model keeps %d of %d constants)", ErrNotApplicable, fo.Kept, total)
		}
	}

	// Ground the reduced model, recording each factor's binding pattern.
	type orbit struct {
		rep  int32
		size uint64
	}
	var forb []orbit
	forbID := map[string]int32{}
	factorOrbit := []int32{}
	var key []byte
	overflow := false
	var aux bool
	gopt := opt.Ground
	if q := opt.Ground.QueryAtoms; q != nil {
		gopt.Query = append(slices.Clip(gopt.Query), q.Preds()...)
		gopt.QueryAtoms = nil
	}
	gopt.Progress = nil
	// The reduced model is checked against the caller's limit (by default
	// the memory budget) before it is grounded: where the evidence tells
	// most constants apart it is nearly the full model.
	var labels []int32
	gopt.Restrict = &ground.Restriction{Keep: keep, OnFactor: func(formula int, slotTypes []int, binding []int32, f int32) {
		if f < 0 {
			aux = true
			return
		}
		key = binary.LittleEndian.AppendUint32(key[:0], uint32(formula))
		var n uint64
		key, labels, n, overflow = fo.pattern(key, labels, slotTypes, binding, overflow)
		id, ok := forbID[string(key)]
		if !ok {
			id = int32(len(forb))
			forbID[string(key)] = id
			forb = append(forb, orbit{rep: f, size: n})
		}
		for int(f) >= len(factorOrbit) {
			factorOrbit = append(factorOrbit, -1)
		}
		factorOrbit[f] = id
	}}
	offKeys := map[string]bool{}
	var offset float64
	if opt.LogZ {
		var total float64
		for _, f := range m.Formulas {
			n := 1.0
			for _, v := range f.Vars {
				if ti := m.TypeIndex(v.Type); ti >= 0 {
					n *= float64(len(keep[ti]))
				}
			}
			total += n
		}
		opt.LogZ = total <= MaxLogZBindings
	}
	if opt.LogZ {
		var okey []byte
		var olabels []int32
		gopt.Restrict.OnOffset = func(formula int, slotTypes []int, binding []int32, logZ float64) {
			if binding == nil {
				n := 1.0
				for _, ti := range slotTypes {
					n *= float64(len(fo.classOf[ti]))
				}
				offset += logZ * n
				return
			}
			okey = binary.LittleEndian.AppendUint32(okey[:0], uint32(formula))
			okey = binary.LittleEndian.AppendUint64(okey, math.Float64bits(logZ))
			var n uint64
			okey, olabels, n, overflow = fo.pattern(okey, olabels, slotTypes, binding, overflow)
			if !offKeys[string(okey)] {
				offKeys[string(okey)] = true
				offset += logZ * float64(n)
			}
		}
	}
	gr, err := ground.Ground(ctx, m, db, gopt)
	if err != nil {
		if errors.Is(err, ground.ErrContradiction) || ctx.Err() != nil {
			return nil, err
		}
		return nil, fmt.Errorf("%w: grounding the reduced model: %w", ErrNotApplicable, err)
	}
	if aux {
		return nil, fmt.Errorf("%w: a ground formula needs an auxiliary variable", ErrNotApplicable)
	}
	g := gr.Graph
	if g.NumVars() != gr.NumAtoms {
		return nil, fmt.Errorf("%w: the grounding has auxiliary variables", ErrNotApplicable)
	}
	if len(factorOrbit) != g.NumFactors() || slices.Contains(factorOrbit, -1) {
		return nil, fmt.Errorf("%w: a factor without a binding", ErrNotApplicable)
	}
	fo.Reduced = gr
	fo.LogZOffset = math.NaN()
	if opt.LogZ {
		fo.LogZOffset = offset + fo.logUnused(m, db, gr, gopt)
	}

	// Atom patterns.
	var aorb []orbit
	aorbID := map[string]int32{}
	atomOrbit := make([]int32, gr.NumAtoms)
	for v := range int32(gr.NumAtoms) {
		pred, args, _ := gr.Atom(v)
		d := m.Preds[pred]
		key = binary.LittleEndian.AppendUint32(key[:0], uint32(pred))
		bind := labels[:0]
		for _, a := range args {
			bind = append(bind, int32(a))
		}
		var n uint64
		key, labels, n, overflow = fo.pattern(key, bind, d.TypeIdx, bind, overflow)
		id, ok := aorbID[string(key)]
		if !ok {
			id = int32(len(aorb))
			aorbID[string(key)] = id
			aorb = append(aorb, orbit{rep: v, size: n})
		}
		atomOrbit[v] = id
	}
	if overflow {
		return nil, fmt.Errorf("%w: a count exceeds 2^63", ErrNotApplicable)
	}
	fo.AtomOrbits, fo.FactorOrbits = len(aorb), len(forb)

	// The network of patterns.
	keys, sorted, initF := lift.EdgeKeys(g, opt.Colour)
	type inc struct {
		F   int32
		key int32
		cnt uint64
	}
	incs := make([][]inc, len(aorb))
	for F, o := range forb {
		f := int(o.rep)
		for p, v := range g.Scope(f) {
			X := atomOrbit[v]
			nx := aorb[X].size
			if o.size%nx != 0 {
				return nil, fmt.Errorf("firstorder: counts are not equitable (pattern %d of %d formulas at a pattern of %d atoms)", F, o.size, nx)
			}
			incs[X] = append(incs[X], inc{F: int32(F), key: keys[g.FactorStart[f]+int64(p)], cnt: o.size / nx})
		}
	}
	fcol := make([]int32, len(forb))
	initKey := make([]uint64, len(forb))
	for F, o := range forb {
		initKey[F] = initF[o.rep]
	}
	nfc := dense(initKey, fcol)
	vcol := make([]int32, len(aorb)) // all binary and unobserved: one colour
	nvc := 1
	if len(aorb) == 0 {
		nvc = 0
	}
	in := newInterner()
	var buf []byte
	var pairs []uint64
	type agg struct {
		k   uint64
		cnt uint64
	}
	var aggs []agg
	newF := make([]int32, len(forb))
	newV := make([]int32, len(aorb))
	for {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("%w: %w", lift.ErrCancelled, err)
		}
		fo.Iterations++
		in.reset()
		for F, o := range forb {
			f := int(o.rep)
			pairs = pairs[:0]
			for e := g.FactorStart[f]; e < g.FactorStart[f+1]; e++ {
				pairs = append(pairs, uint64(uint32(keys[e]))<<32|uint64(uint32(vcol[atomOrbit[g.EdgeVar[e]]])))
			}
			if sorted[f] {
				slices.Sort(pairs)
			}
			buf = sig(buf[:0], fcol[F], pairs)
			newF[F] = in.intern(buf)
		}
		nf2 := in.n
		in.reset()
		for X := range aorb {
			aggs = aggs[:0]
			for _, c := range incs[X] {
				aggs = append(aggs, agg{k: uint64(uint32(newF[c.F]))<<32 | uint64(uint32(c.key)), cnt: c.cnt})
			}
			slices.SortFunc(aggs, func(a, b agg) int {
				if a.k < b.k {
					return -1
				}
				if a.k > b.k {
					return 1
				}
				return 0
			})
			buf = binary.LittleEndian.AppendUint32(buf[:0], uint32(vcol[X]))
			for i := 0; i < len(aggs); {
				j, c := i, uint64(0)
				for ; j < len(aggs) && aggs[j].k == aggs[i].k; j++ {
					c += aggs[j].cnt
				}
				buf = binary.LittleEndian.AppendUint64(buf, aggs[i].k)
				buf = binary.LittleEndian.AppendUint64(buf, c)
				i = j
			}
			newV[X] = in.intern(buf)
		}
		nv2 := in.n
		copy(fcol, newF)
		copy(vcol, newV)
		if nf2 == nfc && nv2 == nvc {
			break
		}
		nfc, nvc = nf2, nv2
	}

	// The counted graph over the reduced graph's variables and factors.
	varColor := make([]int32, g.NumVars())
	for v := range varColor {
		varColor[v] = vcol[atomOrbit[v]]
	}
	nvc = renumber(varColor)
	factorColor := make([]int32, g.NumFactors())
	for f := range factorColor {
		factorColor[f] = fcol[factorOrbit[f]]
	}
	nfc = renumber(factorColor)
	nodeSize := make([]uint64, nvc)
	for _, o := range aorb {
		c := varColor[o.rep]
		nodeSize[c], overflow = addChecked(nodeSize[c], o.size, overflow)
	}
	factorSize := make([]uint64, nfc)
	for _, o := range forb {
		c := factorColor[o.rep]
		factorSize[c], overflow = addChecked(factorSize[c], o.size, overflow)
	}
	if overflow {
		return nil, fmt.Errorf("%w: a count exceeds 2^63", ErrNotApplicable)
	}
	c, err := buildCounted(g, varColor, nvc, nodeSize, factorColor, nfc, factorSize, keys)
	if err != nil {
		return nil, err
	}
	fo.Compressed = c
	for _, n := range c.NodeSize {
		fo.Atoms += n
	}
	for _, n := range c.FactorSize {
		fo.Factors += n
	}
	fo.Seconds = time.Since(start).Seconds()
	return fo, nil
}

// firstOrderApplies checks the model and the options.
func firstOrderApplies(m *mln.MLN, opt Options) error {
	if m == nil {
		return errors.New("firstorder: no MLN")
	}
	switch {
	case opt.Ground.Restrict != nil:
		return fmt.Errorf("%w: a restricted grounding", ErrNotApplicable)
	case opt.Ground.MergeDuplicates:
		return fmt.Errorf("%w: merged duplicate ground formulas", ErrNotApplicable)
	case opt.Colour.Mode == lift.Symmetric:
		return fmt.Errorf("%w: symmetric colour-passing mode", ErrNotApplicable)
	case opt.Colour.MaxIter != 0:
		return fmt.Errorf("%w: a bound on colour-passing rounds", ErrNotApplicable)
	case len(m.Funcs) > 0:
		return fmt.Errorf("%w: the MLN has functions", ErrNotApplicable)
	}
	for _, d := range m.Preds {
		if len(d.MutexArgs) > 0 {
			return fmt.Errorf("%w: predicate %s has mutually exclusive arguments", ErrNotApplicable, d.Name)
		}
	}
	return nil
}

// checkQuantifiers refuses a formula that quantifies over a type with a
// reduced class: its ground formulas expand the quantifier over the whole
// domain, which the reduced model does not have. Over a type whose
// constants are all told apart (no class reduced) the reduced domain is
// the full one and the expansion is the same.
func (fo *Network) checkQuantifiers(m *mln.MLN) error {
	reduced := make([]bool, len(m.Types))
	for _, c := range fo.classes {
		if c.reduced {
			reduced[c.typ] = true
		}
	}
	for i, f := range m.Formulas {
		var bad string
		mln.Inspect(f.Expr, func(e mln.Expr) bool {
			var vars []*mln.Var
			switch q := e.(type) {
			case *mln.Exists:
				vars = q.Vars
			case *mln.Forall:
				vars = q.Vars
			}
			for _, v := range vars {
				if ti := m.TypeIndex(v.Type); ti < 0 || reduced[ti] {
					bad = v.Type
				}
			}
			return bad == ""
		})
		if bad != "" {
			return fmt.Errorf("%w: formula %d quantifies over type %s, whose constants are not all told apart", ErrNotApplicable, i+1, bad)
		}
	}
	return nil
}

// shatter splits every type's constants into classes and returns the
// constants to keep per type.
func (fo *Network) shatter(m *mln.MLN, db *mln.DB) [][]int {
	nt := len(m.Types)
	doms := make([][]string, nt)
	for i, t := range m.Types {
		if db != nil {
			doms[i] = db.Domain(t.Name)
		} else {
			doms[i] = t.Constants
		}
	}
	keys := classKeys(m, db, doms)
	// K per type.
	kOf := make([]int, nt)
	for i := range kOf {
		kOf[i] = 1
	}
	for _, d := range m.Preds {
		cnt := make([]int, nt)
		for _, ti := range d.TypeIdx {
			cnt[ti]++
			kOf[ti] = max(kOf[ti], cnt[ti])
		}
	}
	for _, f := range m.Formulas {
		cnt := make([]int, nt)
		for _, v := range f.Vars {
			if ti := m.TypeIndex(v.Type); ti >= 0 {
				cnt[ti]++
				kOf[ti] = max(kOf[ti], cnt[ti])
			}
		}
	}
	keep := make([][]int, nt)
	fo.classOf = make([][]int32, nt)
	fo.keepIdx = make([][]int32, nt)
	for ti, dom := range doms {
		co := make([]int32, len(dom))
		byKey := map[string]int32{}
		anon := int32(-1) // the class of constants with no evidence, named by no formula
		for c := range dom {
			k := keys[ti][c]
			if k == "" && anon >= 0 {
				cl := &fo.classes[anon]
				cl.size++
				if len(cl.kept) < kOf[ti] {
					cl.kept = append(cl.kept, c)
					keep[ti] = append(keep[ti], c)
				}
				co[c] = anon
				continue
			}
			id, ok := byKey[k]
			if !ok {
				id = int32(len(fo.classes))
				byKey[k] = id
				fo.classes = append(fo.classes, foClass{typ: ti})
				if k == "" {
					anon = id
				}
			}
			cl := &fo.classes[id]
			cl.size++
			if len(cl.kept) < kOf[ti] {
				cl.kept = append(cl.kept, c)
				keep[ti] = append(keep[ti], c)
			}
			co[c] = id
		}
		fo.classOf[ti] = co
		slices.Sort(keep[ti])
		if keep[ti] == nil {
			keep[ti] = []int{}
		}
		ki := make([]int32, len(dom))
		for i := range ki {
			ki[i] = -1
		}
		for r, c := range keep[ti] {
			ki[c] = int32(r)
		}
		fo.keepIdx[ti] = ki
		fo.Kept += len(keep[ti])
	}
	for i := range fo.classes {
		fo.classes[i].reduced = int64(len(fo.classes[i].kept)) < fo.classes[i].size
	}
	fo.Classes = len(fo.classes)
	return keep
}

// ClassKeys returns, for every type of m (in m.Types order) and every
// constant of its domain in db (nil: the MLN's constants), the key of the
// constant's class of interchangeable constants: "" for a constant that no
// formula names and no evidence atom mentions; a key of its own for one
// that a formula names or that an evidence atom of two or more arguments
// mentions; otherwise a key of its unary evidence. Constants of a type with
// equal keys are interchangeable: a permutation of them maps the MLN and
// the evidence (and the closed world) to themselves, so ground atoms that
// it maps to each other have the same marginal. Functions are not looked
// at (the construction does not apply to them).
func ClassKeys(m *mln.MLN, db *mln.DB) [][]string {
	doms := make([][]string, len(m.Types))
	for i, t := range m.Types {
		if db != nil {
			doms[i] = db.Domain(t.Name)
		} else {
			doms[i] = t.Constants
		}
	}
	return classKeys(m, db, doms)
}

func classKeys(m *mln.MLN, db *mln.DB, doms [][]string) [][]string {
	nt := len(m.Types)
	single := make([][]bool, nt)
	sigs := make([][]string, nt)
	for i := range doms {
		single[i] = make([]bool, len(doms[i]))
	}
	// Constants that formulas name.
	for _, f := range m.Formulas {
		mln.Inspect(f.Expr, func(e mln.Expr) bool {
			if a, ok := e.(*mln.Atom); ok {
				d := m.Pred(a.Pred)
				for p, t := range a.Args {
					if !t.IsVar && d != nil && p < len(d.TypeIdx) {
						if c := indexIn(doms[d.TypeIdx[p]], t.Name); c >= 0 {
							single[d.TypeIdx[p]][c] = true
						}
					}
				}
			}
			if eq, ok := e.(*mln.Equal); ok {
				for _, t := range []mln.Term{eq.L, eq.R} {
					if !t.IsVar && t.Type != "" {
						if ti := m.TypeIndex(t.Type); ti >= 0 {
							if c := indexIn(doms[ti], t.Name); c >= 0 {
								single[ti][c] = true
							}
						}
					}
				}
			}
			return true
		})
	}
	// Evidence.
	if db != nil {
		for _, a := range db.Atoms {
			d := m.Preds[a.Pred]
			if len(a.Args) == 1 {
				ti := d.TypeIdx[0]
				if sigs[ti] == nil {
					sigs[ti] = make([]string, len(doms[ti]))
				}
				sigs[ti][a.Args[0]] += fmt.Sprintf("%d:%d;", a.Pred, a.Truth)
				continue
			}
			for p, c := range a.Args {
				single[d.TypeIdx[p]][c] = true
			}
		}
	}
	keys := make([][]string, nt)
	for ti, dom := range doms {
		keys[ti] = make([]string, len(dom))
		for c := range dom {
			switch {
			case single[ti][c]:
				keys[ti][c] = fmt.Sprintf("=%d", c)
			case sigs[ti] != nil && sigs[ti][c] != "":
				parts := strings.Split(sigs[ti][c], ";")
				slices.Sort(parts)
				keys[ti][c] = strings.Join(slices.Compact(parts), ";")
			}
		}
	}
	return keys
}

func indexIn(dom []string, name string) int {
	for i, s := range dom {
		if s == name {
			return i
		}
	}
	return -1
}

// pattern appends to key the pattern of a binding (constants of the
// reduced domains, one per slot of type types[s]): per slot, the constant
// itself when its class is not reduced, else its class and the rank of its
// first occurrence among the slots in that class. It returns the number of
// bindings of the full model with this pattern, Π (m_c)_{j_c}, setting
// overflow when that exceeds 2^63-1.
func (fo *Network) pattern(key []byte, scratch []int32, types []int, binding []int32, overflow bool) ([]byte, []int32, uint64, bool) {
	// scratch holds, per slot, the full constant (to find first
	// occurrences); it may alias binding, which is read first.
	full := scratch[:0]
	for s, r := range binding {
		full = append(full, int32(fo.keep[types[s]][r]))
	}
	n := uint64(1)
	for s, c := range full {
		ti := types[s]
		cl := fo.classOf[ti][c]
		if !fo.classes[cl].reduced {
			key = append(key, 0)
			key = binary.LittleEndian.AppendUint32(key, uint32(ti))
			key = binary.LittleEndian.AppendUint32(key, uint32(c))
			continue
		}
		// rank among distinct constants of class cl in earlier slots
		rank, first := 0, -1
		for t := 0; t < s && first < 0; t++ {
			if types[t] != ti || fo.classOf[ti][full[t]] != cl {
				continue
			}
			if full[t] == c {
				first = rank
				continue
			}
			dup := false
			for u := 0; u < t; u++ {
				if full[u] == full[t] && types[u] == ti {
					dup = true
					break
				}
			}
			if !dup {
				rank++
			}
		}
		if first < 0 {
			// a new constant of the class: the (rank+1)-th, one more factor
			first = rank
			m := uint64(fo.classes[cl].size) - uint64(rank)
			hi, lo := bits.Mul64(n, m)
			if hi != 0 || lo > 1<<63-1 {
				overflow = true
			}
			n = lo
		}
		key = append(key, 1)
		key = binary.LittleEndian.AppendUint32(key, uint32(cl))
		key = binary.LittleEndian.AppendUint32(key, uint32(first))
	}
	return key, full, n, overflow
}

func addChecked(a, b uint64, overflow bool) (uint64, bool) {
	s, c := bits.Add64(a, b, 0)
	return s, overflow || c != 0 || s > 1<<63-1
}

// buildCounted is build with the sizes of the clusternodes and
// clusterfactors given (they count ground atoms and formulas of the full
// model, not the variables and factors of g).
func buildCounted(g *fg.Graph, varColor []int32, nvc int, nodeSize []uint64, factorColor []int32, nfc int, factorSize []uint64, edgeKey []int32) (*lift.Compressed, error) {
	c := &lift.Compressed{
		Ground:       g,
		NodeCard:     make([]int32, nvc),
		NodeSize:     make([]int64, nvc),
		NodeEvidence: make([]int32, nvc),
		NodeOf:       varColor,
		FactorRep:    make([]int32, nfc),
		FactorSize:   make([]int64, nfc),
		FactorOf:     factorColor,
	}
	for X := range nvc {
		c.NodeSize[X] = int64(nodeSize[X])
		c.NodeEvidence[X] = -1
	}
	for v, X := range varColor {
		c.NodeCard[X] = g.Card[v]
	}
	for F := range nfc {
		c.FactorSize[F] = int64(factorSize[F])
		c.FactorRep[F] = -1
	}
	for f, F := range factorColor {
		if c.FactorRep[F] < 0 {
			c.FactorRep[F] = int32(f)
		}
	}
	if err := c.FinishSlots(edgeKey); err != nil {
		return nil, fmt.Errorf("firstorder: %w", err)
	}
	return c, nil
}

// Node returns the clusternode of the ground atom pred(args...) of the full
// model (args are constant indices into the full domains), or -1 and the
// atom's truth value when the evidence fixes it or it is no variable (see
// ground.Grounding.Var). It finds the atom's representative in the reduced
// model: the same constants where their class is not reduced, otherwise the
// class's representatives in order of first appearance.
func (fo *Network) Node(pred int, args []int) (int32, mln.Truth) {
	if pred < 0 || pred >= len(fo.m.Preds) {
		return -1, mln.Unknown
	}
	d := fo.m.Preds[pred]
	if len(args) != len(d.TypeIdx) {
		return -1, mln.Unknown
	}
	var tmp [8]int
	red := tmp[:0]
	for p, a := range args {
		ti := d.TypeIdx[p]
		if a < 0 || a >= len(fo.classOf[ti]) {
			return -1, mln.Unknown
		}
		cl := fo.classOf[ti][a]
		if !fo.classes[cl].reduced {
			red = append(red, int(fo.keepIdx[ti][a]))
			continue
		}
		rank, first := 0, -1
		for q := 0; q < p && first < 0; q++ {
			if d.TypeIdx[q] != ti || fo.classOf[ti][args[q]] != cl {
				continue
			}
			dup := false
			for t := 0; t < q; t++ {
				if args[t] == args[q] && d.TypeIdx[t] == ti {
					dup = true
					break
				}
			}
			if args[q] == a {
				first = rank
			} else if !dup {
				rank++
			}
		}
		if first < 0 {
			first = rank
		}
		red = append(red, int(fo.keepIdx[ti][fo.classes[cl].kept[first]]))
	}
	v, tr := fo.Reduced.Var(pred, red)
	if v < 0 {
		if fo.db != nil {
			if t, ok := fo.db.Lookup(pred, args); ok {
				return -1, t
			}
		}
		return -1, tr
	}
	return fo.NodeOf[v], mln.Unknown
}

// interner numbers byte strings densely in order of first appearance.
type interner struct {
	m map[string]int32
	n int
}

func newInterner() *interner { return &interner{m: map[string]int32{}} }

func (in *interner) reset() { clear(in.m); in.n = 0 }

func (in *interner) intern(b []byte) int32 {
	if id, ok := in.m[string(b)]; ok {
		return id
	}
	id := int32(in.n)
	in.m[string(b)] = id
	in.n++
	return id
}

// dense renumbers keys densely by first appearance into out.
func dense(keys []uint64, out []int32) int {
	m := make(map[uint64]int32)
	for i, k := range keys {
		id, ok := m[k]
		if !ok {
			id = int32(len(m))
			m[k] = id
		}
		out[i] = id
	}
	return len(m)
}

// renumber makes class ids dense in order of first appearance.
func renumber(c []int32) int {
	m := map[int32]int32{}
	for i, x := range c {
		id, ok := m[x]
		if !ok {
			id = int32(len(m))
			m[x] = id
		}
		c[i] = id
	}
	return len(m)
}

func sig(buf []byte, own int32, pairs []uint64) []byte {
	buf = binary.LittleEndian.AppendUint32(buf, uint32(own))
	for _, p := range pairs {
		buf = binary.LittleEndian.AppendUint64(buf, p)
	}
	return buf
}

// logUnused is the grounding's log 2 per open-world atom of a predicate
// that no formula mentions and that is not queried, in the full model.
func (fo *Network) logUnused(m *mln.MLN, db *mln.DB, gr *ground.Grounding, gopt ground.Options) float64 {
	used := make([]bool, len(m.Preds))
	for _, q := range gopt.Query {
		name := strings.TrimLeft(strings.TrimSpace(q), "!?*")
		if i := strings.IndexByte(name, '('); i >= 0 {
			name = strings.TrimSpace(name[:i])
		}
		if i := m.PredIndex(name); i >= 0 {
			used[i] = true
		}
	}
	for _, f := range m.Formulas {
		w := f.Weight
		if !f.HasWeight && gopt.UseDefaultWeight {
			w = gopt.DefaultWeight
		}
		if !f.Hard && w == 0 {
			continue // not compiled: a constant factor 1
		}
		mln.Inspect(f.Expr, func(e mln.Expr) bool {
			if a, ok := e.(*mln.Atom); ok {
				if i := m.PredIndex(a.Pred); i >= 0 {
					used[i] = true
				}
			}
			return true
		})
	}
	var sum float64
	for i, d := range m.Preds {
		if used[i] || gr.Closed[d.Name] || len(d.MutexArgs) > 0 {
			continue
		}
		n := 1.0
		for _, ti := range d.TypeIdx {
			n *= float64(len(fo.classOf[ti]))
		}
		if db != nil {
			for _, a := range db.Atoms {
				if a.Pred == i && a.Truth != mln.Unknown {
					n--
				}
			}
		}
		sum += n * math.Ln2
	}
	return sum
}
