package ground

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/lifted-dev/lifted/mln"
)

// Atom states, as stored per ground atom: a variable id (>= 0) or one of
// these evidence values.
const (
	stFalse int32 = -1 // false by evidence or by the closed world
	stTrue  int32 = -2 // true by evidence
)

// denseLimit is the largest number of ground atoms of a closed-world
// predicate kept in a flat array; larger ones are kept sparsely.
const denseLimit = 1 << 22

// predStore holds the ground atoms of one predicate: their states and, for
// closed-world predicates, an index of the atoms that are not false.
type predStore struct {
	decl    *mln.PredDecl
	dims    []int64 // domain size per argument
	strides []int64 // mixed radix, last argument fastest
	n       int64   // number of ground atoms
	closed  bool
	used    bool // some formula or constraint refers to it (or it is queried)
	query   bool

	dense  []int32         // state per local index, when not nil
	sparse map[int64]int32 // states other than def, when dense is nil
	def    int32           // state of atoms missing from sparse

	// nonFalse lists, in increasing order, the local indices of the atoms
	// that are not false (closed-world predicates only; in a lazy
	// grounding, for a used open-world predicate (lazyDrive), the atoms
	// true by evidence or in some lazy world).
	nonFalse  []int64
	lazyDrive bool
	// byMask indexes nonFalse by the values of a subset of the arguments
	// (a bit mask of positions): key (the partial local index) → atoms.
	byMask map[uint64]map[int64][]int64

	// For the size estimate of an open-world predicate with evidence:
	// its atoms that are not false (unknown or true), built on demand,
	// and per argument mask the size-biased mean of the number of such
	// atoms that share a key (Σ n_key² / Σ n_key).
	estNonFalse []int64
	estBuilt    bool
	estPerKey   map[uint64]float64
}

// openNonFalse returns the atoms of an open-world predicate that are not
// false by evidence (nil when none is: then no atom prunes).
func (s *predStore) openNonFalse() []int64 {
	if s.estBuilt {
		return s.estNonFalse
	}
	s.estBuilt = true
	anyFalse := false
	for i := range s.n {
		if s.state(i) == stFalse {
			anyFalse = true
			continue
		}
		s.estNonFalse = append(s.estNonFalse, i)
	}
	if !anyFalse {
		s.estNonFalse = nil
	}
	return s.estNonFalse
}

// openPerKey returns, over the atoms of openNonFalse, the mean number of
// them that share an atom's key for mask (each atom weighs one, so a key
// with many atoms counts as often as it has atoms: on a query predicate
// whose unknown atoms gather on a few keys, the plain mean per key
// would miss most of a self-join).
func (s *predStore) openPerKey(mask uint64) float64 {
	if n, ok := s.estPerKey[mask]; ok {
		return n
	}
	if s.estPerKey == nil {
		s.estPerKey = map[uint64]float64{}
	}
	count := map[int64]float64{}
	nf := s.openNonFalse()
	for _, a := range nf {
		count[s.maskKey(a, mask)]++
	}
	sq := 0.0
	for _, n := range count {
		sq += n * n
	}
	m := 0.0
	if len(nf) > 0 {
		m = sq / float64(len(nf))
	}
	s.estPerKey[mask] = m
	return m
}

// state returns the state of the atom with local index i.
func (s *predStore) state(i int64) int32 {
	if s.dense != nil {
		return s.dense[i]
	}
	if v, ok := s.sparse[i]; ok {
		return v
	}
	return s.def
}

// local returns the local index of the atom with the given argument
// constants.
func (s *predStore) local(args []int32) int64 {
	var i int64
	for p, a := range args {
		i += int64(a) * s.strides[p]
	}
	return i
}

// decode writes the argument constants of local index i into args.
func (s *predStore) decode(i int64, args []int32) {
	for p := range s.dims {
		args[p] = int32(i / s.strides[p])
		i %= s.strides[p]
	}
}

// lookupMask returns the non-false atoms whose arguments at the positions in
// mask equal those of key (a partial local index over those positions).
func (s *predStore) lookupMask(mask uint64, key int64) []int64 {
	if mask == 0 {
		return s.nonFalse
	}
	if s.byMask == nil {
		s.byMask = map[uint64]map[int64][]int64{}
	}
	idx, ok := s.byMask[mask]
	if !ok {
		idx = map[int64][]int64{}
		for _, a := range s.nonFalse {
			k := s.maskKey(a, mask)
			idx[k] = append(idx[k], a)
		}
		s.byMask[mask] = idx
	}
	return idx[key]
}

// maskKey keeps the positions in mask of local index i.
func (s *predStore) maskKey(i int64, mask uint64) int64 {
	var k int64
	for p := range s.dims {
		a := i / s.strides[p]
		i %= s.strides[p]
		if mask&(1<<p) != 0 {
			k += a * s.strides[p]
		}
	}
	return k
}

// atomTable is the set of all ground atoms of an MLN under one evidence
// database: the domains, the state of every atom and the variables.
//
// preds has one entry per predicate of the MLN, then one per function f:
// the closed-world predicate ReturnValueOf_f(r, a1..an), true exactly when
// the evidence says f(a1..an) = r, that guards the formulas using f (see
// funcPred).
type atomTable struct {
	m       *mln.MLN
	domains [][]string // per type index
	preds   []predStore
	// varPred and varLocal map a variable to its atom.
	varPred  []int32
	varLocal []int64
	// keep maps, per type, a constant of the full domain to its index in
	// the restricted one, or -1 (nil without Options.Restrict).
	keep [][]int32
	// logUnused is log 2 times the number of open-world atoms of predicates
	// that no formula mentions and that are not queried: they are left out
	// of the graph and only double Z each.
	logUnused float64
}

// domainsOf returns the constants of every type of m, extended by db.
func domainsOf(m *mln.MLN, db *mln.DB) [][]string {
	out := make([][]string, len(m.Types))
	for i, t := range m.Types {
		if db != nil {
			out[i] = db.Domain(t.Name)
		} else {
			out[i] = t.Constants
		}
	}
	return out
}

// newAtomTable sizes every predicate and records the evidence; variables
// are assigned later by assignVars, once it is known which predicates are
// used.
func newAtomTable(m *mln.MLN, db *mln.DB, closed map[string]bool, query map[int]bool, r *Restriction) (*atomTable, error) {
	t := &atomTable{m: m, domains: domainsOf(m, db), preds: make([]predStore, len(m.Preds)+len(m.Funcs))}
	if err := t.restrict(r); err != nil {
		return nil, err
	}
	for i := range t.preds {
		s := &t.preds[i]
		var d *mln.PredDecl
		if i < len(m.Preds) {
			d = m.Preds[i]
			s.closed = closed[d.Name]
			s.query = query[i]
		} else {
			d = returnValueDecl(m, i-len(m.Preds))
			s.closed = true
		}
		s.decl = d
		if len(d.TypeIdx) > 60 {
			return nil, fmt.Errorf("predicate %s has %d arguments; at most 60 are supported", d.Name, len(d.TypeIdx))
		}
		s.dims = make([]int64, len(d.TypeIdx))
		s.strides = make([]int64, len(d.TypeIdx))
		n := 1.0
		for p, ti := range d.TypeIdx {
			s.dims[p] = int64(len(t.domains[ti]))
			n *= float64(s.dims[p])
		}
		if n > 1<<50 {
			return nil, fmt.Errorf("predicate %s has %.3g ground atoms; that is too many to ground", d.Name, n)
		}
		s.n = 1
		for p := len(s.dims) - 1; p >= 0; p-- {
			s.strides[p] = s.n
			s.n *= s.dims[p]
		}
	}
	return t, nil
}

// load records the evidence of db and assigns variable ids: open-world
// atoms of used predicates that the evidence does not fix, and atoms
// explicitly unknown ("?") in closed-world predicates.
func (t *atomTable) load(db *mln.DB) {
	ev := make([][]mln.GroundAtom, len(t.preds))
	if db != nil {
		for _, a := range db.Atoms {
			if t.keep != nil {
				var ok bool
				if a, ok = t.restrictAtom(a); !ok {
					continue
				}
			}
			ev[a.Pred] = append(ev[a.Pred], a)
		}
		for _, fv := range db.Funcs {
			pi := funcPred(t.m, fv.Func)
			args := append([]int{fv.Value}, fv.Args...)
			ev[pi] = append(ev[pi], mln.GroundAtom{Pred: pi, Args: args, Truth: mln.True, Pos: fv.Pos})
		}
	}
	args := make([]int32, 0, 8)
	for i := range t.preds {
		s := &t.preds[i]
		if s.closed {
			t.loadClosed(s, ev[i], args)
		} else {
			t.loadOpen(s, i, ev[i], args)
		}
	}
}

func localOf(s *predStore, a mln.GroundAtom, args []int32) int64 {
	args = args[:0]
	for _, x := range a.Args {
		args = append(args, int32(x))
	}
	return s.local(args)
}

func (t *atomTable) loadOpen(s *predStore, pi int, ev []mln.GroundAtom, args []int32) {
	if !s.used {
		unknown := s.n
		for _, a := range ev {
			if a.Truth != mln.Unknown {
				unknown--
			}
		}
		t.logUnused += float64(unknown) * math.Ln2
		return
	}
	s.dense = make([]int32, s.n)
	for i := range s.dense {
		s.dense[i] = -3 // unassigned
	}
	for _, a := range ev {
		switch a.Truth {
		case mln.True:
			s.dense[localOf(s, a, args)] = stTrue
		case mln.False:
			s.dense[localOf(s, a, args)] = stFalse
		}
	}
	for i, v := range s.dense {
		if v == -3 {
			s.dense[i] = t.newVar(pi, int64(i))
		}
	}
}

func (t *atomTable) loadClosed(s *predStore, ev []mln.GroundAtom, args []int32) {
	s.def = stFalse
	var unknown []int64
	for _, a := range ev {
		l := localOf(s, a, args)
		switch a.Truth {
		case mln.True:
			s.nonFalse = append(s.nonFalse, l)
		case mln.Unknown:
			s.nonFalse = append(s.nonFalse, l)
			unknown = append(unknown, l)
		}
	}
	slices.Sort(s.nonFalse)
	slices.Sort(unknown)
	if s.n <= denseLimit || s.n <= 8*int64(len(ev)) {
		s.dense = make([]int32, s.n)
		for i := range s.dense {
			s.dense[i] = stFalse
		}
	} else {
		s.sparse = make(map[int64]int32, len(s.nonFalse))
	}
	set := func(l int64, v int32) {
		if s.dense != nil {
			s.dense[l] = v
		} else {
			s.sparse[l] = v
		}
	}
	for _, a := range ev {
		if a.Truth == mln.True {
			set(localOf(s, a, args), stTrue)
		}
	}
	for _, l := range unknown {
		set(l, t.newVar(s.decl.Index, l))
	}
}

// lazyIndex lists, for every used open-world predicate, the atoms true
// by evidence or in some world of a lazy grounding (its nonFalse), so
// that the join can be driven by them as by a closed-world predicate's.
func (t *atomTable) lazyIndex(worlds [][]bool) {
	for i := range t.preds {
		s := &t.preds[i]
		if s.closed || !s.used || s.dense == nil {
			continue
		}
		s.lazyDrive = true
		s.nonFalse = s.nonFalse[:0]
		for l, st := range s.dense {
			if st == stTrue || (st >= 0 && inSomeWorld(worlds, st)) {
				s.nonFalse = append(s.nonFalse, int64(l))
			}
		}
	}
}

// inSomeWorld tells whether variable v is true in some world.
func inSomeWorld(worlds [][]bool, v int32) bool {
	for _, w := range worlds {
		if int(v) < len(w) && w[v] {
			return true
		}
	}
	return false
}

// funcPred returns the index in atomTable.preds of function fn's
// ReturnValueOf predicate.
func funcPred(m *mln.MLN, fn int) int { return len(m.Preds) + fn }

// returnValueDecl declares function fn's ReturnValueOf predicate, as LoMRF
// names it: the return value first, then the arguments.
func returnValueDecl(m *mln.MLN, fn int) *mln.PredDecl {
	fd := m.Funcs[fn]
	return &mln.PredDecl{
		Name:     "ReturnValueOf" + fd.Name,
		ArgTypes: append([]string{fd.RetType}, fd.ArgTypes...),
		TypeIdx:  append([]int{fd.RetIdx}, fd.TypeIdx...),
		MutexArg: -1,
		Index:    funcPred(m, fn),
		Pos:      fd.Pos,
	}
}

func (t *atomTable) newVar(pred int, local int64) int32 {
	t.varPred = append(t.varPred, int32(pred))
	t.varLocal = append(t.varLocal, local)
	return int32(len(t.varPred) - 1)
}

// name prints the atom pred(local) as "Cancer(Anna)" (a nullary atom as its
// predicate name).
func (t *atomTable) name(pred int32, local int64) string {
	s := &t.preds[pred]
	if len(s.dims) == 0 {
		return s.decl.Name
	}
	var b strings.Builder
	b.WriteString(s.decl.Name)
	b.WriteByte('(')
	for p, ti := range s.decl.TypeIdx {
		if p > 0 {
			b.WriteByte(',')
		}
		a := local / s.strides[p]
		local %= s.strides[p]
		b.WriteString(t.domains[ti][a])
	}
	b.WriteByte(')')
	return b.String()
}
