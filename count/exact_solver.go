package count

import (
	"cmp"
	"math"
	"slices"
)

// lit is a literal: 2*v for variable v (0-based) true, 2*v+1 for v false.
type lit uint32

const litUndef lit = math.MaxUint32

func (l lit) variable() int32 { return int32(l >> 1) }
func (l lit) not() lit        { return l ^ 1 }

// Truth values of literals.
const (
	unknown int8 = 0
	isTrue  int8 = 1
	isFalse int8 = -1
)

// Reasons. A reason is noReason (a decision, or the flipped literal of a
// second branch), unitReason (a learned unit clause: the literal is implied
// by the formula alone), binFlag|other for a binary clause (l ∨ other), or
// the pool offset of a long clause whose first literal is the implied one.
const (
	noReason   uint32 = math.MaxUint32
	unitReason uint32 = math.MaxUint32 - 1
	binFlag    uint32 = 1 << 31
)

// isFact reports whether variable v's value holds in every model: assigned
// at level 0 or by a learned unit clause. Conflict analysis leaves facts out
// of learned clauses.
func (s *solver) isFact(v int32) bool { return s.level[v] == 0 || s.reason[v] == unitReason }

// Clause layout in the pool: size, flags, activity (float32 bits), literals.
// Clause references must stay below binFlag; maxPoolSize leaves room for
// learned clauses.
const (
	hdrSize     = 3
	flagLearnt  = 1
	flagDead    = 2
	lbdShift    = 2 // the flags word holds the LBD above the flag bits
	maxPoolSize = 1 << 30
)

// watch is an entry of a watch list: a long clause and a blocking literal
// whose truth makes visiting the clause unnecessary.
type watch struct {
	cref    uint32
	blocker lit
}

// solver holds the clause database and the assignment shared by the CDCL
// satisfiability check and the counting search.
type solver struct {
	nv     int
	val    []int8   // per literal
	level  []int32  // per variable
	reason []uint32 // per variable
	trail  []lit
	qhead  int
	lim    []int32 // trail length at the start of each decision level

	pool    []lit     // clause headers and literals; see hdrSize
	origEnd uint32    // clause refs below origEnd are original clauses
	watches [][]watch // watches[l]: long clauses watching literal l
	bin     [][]lit   // bin[p]: literals implied when p becomes true
	learnts []uint32  // learned long clauses
	scratch []lit     // the loader's temporary arrays (see scratchLits), until the search
	// watchBacking is the array the watch lists were cut from at load,
	// for a reload.
	watchBacking []watch

	conflict uint32 // ref of the falsified clause, or binFlag
	conflBin [2]lit // the falsified binary clause when conflict == binFlag

	// conflict analysis scratch
	seen      []bool
	learnt    []lit
	toClear   []int32
	minStack  []lit
	minBuf    []lit
	clauseInc float32
	levelSeen []uint32 // per level: lbdStamp when seen
	lbdStamp  uint32

	// bump is called for each variable met in conflict analysis.
	bump func(l lit)
	// bumpClause is called for each learned clause used in an analysis.
	bumpClause func(cref uint32)

	propagations int64
	conflicts    int64
}

func newSolver(nv int) *solver { return newSolverOver(nv, nil) }

// newSolverOver is newSolver reusing the arrays of old (nil: none), a
// solver of at least nv variables no longer needed.
func newSolverOver(nv int, old *solver) *solver {
	if old == nil {
		old = &solver{}
	}
	return &solver{
		nv:        nv,
		val:       reuse(old.val, 2*nv),
		level:     reuse(old.level, nv),
		reason:    reuse(old.reason, nv),
		trail:     reuse(old.trail, nv)[:0],
		watches:   reuse(old.watches, 2*nv),
		bin:       reuse(old.bin, 2*nv),
		seen:      reuse(old.seen, nv),
		clauseInc: 1,
	}
}

// reuse returns n zeroed elements of s's array, or new ones when it is too
// small.
func reuse[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	s = s[:n]
	clear(s)
	return s
}

func (s *solver) decisionLevel() int { return len(s.lim) }

// assign makes l true at the current level.
func (s *solver) assign(l lit, reason uint32) {
	s.val[l] = isTrue
	s.val[l^1] = isFalse
	v := l.variable()
	s.level[v] = int32(len(s.lim))
	s.reason[v] = reason
	s.trail = append(s.trail, l)
}

// newLevel opens a decision level.
func (s *solver) newLevel() { s.lim = append(s.lim, int32(len(s.trail))) }

// undoTo unassigns every literal from trail position n on.
func (s *solver) undoTo(n int) {
	for i := len(s.trail) - 1; i >= n; i-- {
		l := s.trail[i]
		s.val[l] = unknown
		s.val[l^1] = unknown
	}
	s.trail = s.trail[:n]
	if s.qhead > n {
		s.qhead = n
	}
}

// backtrack undoes all levels above lvl.
func (s *solver) backtrack(lvl int) {
	if len(s.lim) > lvl {
		s.undoTo(int(s.lim[lvl]))
		s.lim = s.lim[:lvl]
	}
}

func (s *solver) clauseLits(cref uint32) []lit {
	n := uint32(s.pool[cref])
	return s.pool[cref+hdrSize : cref+hdrSize+n]
}

// addBinary records the clause (a ∨ b).
func (s *solver) addBinary(a, b lit) {
	s.bin[a^1] = append(s.bin[a^1], b)
	s.bin[b^1] = append(s.bin[b^1], a)
}

// addLong stores a clause of three or more literals and watches its first
// two, which the caller has ordered (non-false literals first, or for a
// learned clause the asserting literal and then one of the highest level).
func (s *solver) addLong(lits []lit, learnt bool) uint32 {
	cref := uint32(len(s.pool))
	var flags lit
	if learnt {
		flags = flagLearnt
	}
	s.pool = reserve(s.pool, hdrSize+len(lits))
	s.pool = append(s.pool, lit(len(lits)), flags, lit(math.Float32bits(0)))
	s.pool = append(s.pool, lits...)
	s.watches[lits[0]] = append(s.watches[lits[0]], watch{cref, lits[1]})
	s.watches[lits[1]] = append(s.watches[lits[1]], watch{cref, lits[0]})
	if learnt {
		s.learnts = append(s.learnts, cref)
	}
	return cref
}

// propagate runs unit propagation over the trail from qhead. It returns
// false on a conflict, recorded in s.conflict (and s.conflBin).
func (s *solver) propagate() bool {
	val := s.val
	for s.qhead < len(s.trail) {
		p := s.trail[s.qhead]
		s.qhead++
		s.propagations++
		for _, q := range s.bin[p] {
			switch val[q] {
			case isTrue:
			case isFalse:
				s.conflict = binFlag
				s.conflBin = [2]lit{q, p ^ 1}
				return false
			default:
				s.assign(q, binFlag|uint32(p^1))
			}
		}
		if !s.propagateLong(p ^ 1) {
			return false
		}
	}
	return true
}

// propagateLong visits the long clauses watching the now false literal f.
func (s *solver) propagateLong(f lit) bool {
	val := s.val
	ws := s.watches[f]
	pool := s.pool
	i, j := 0, 0
	for i < len(ws) {
		w := ws[i]
		i++
		if val[w.blocker] == isTrue {
			ws[j] = w
			j++
			continue
		}
		c := w.cref
		n := uint32(pool[c])
		lits := pool[c+hdrSize : c+hdrSize+n]
		if lits[0] == f {
			lits[0], lits[1] = lits[1], f
		}
		first := lits[0]
		if first != w.blocker && val[first] == isTrue {
			ws[j] = watch{c, first}
			j++
			continue
		}
		moved := false
		for k := 2; k < len(lits); k++ {
			if val[lits[k]] != isFalse {
				nl := lits[k]
				lits[1], lits[k] = lits[k], f
				s.watches[nl] = append(s.watches[nl], watch{c, first})
				moved = true
				break
			}
		}
		if moved {
			continue
		}
		ws[j] = watch{c, first}
		j++
		if val[first] == isFalse {
			for i < len(ws) {
				ws[j] = ws[i]
				i++
				j++
			}
			s.watches[f] = ws[:j]
			s.conflict = c
			return false
		}
		s.assign(first, c)
	}
	s.watches[f] = ws[:j]
	return true
}

// conflictLits returns the literals of the falsified clause.
func (s *solver) conflictLits() []lit {
	if s.conflict == binFlag {
		return s.conflBin[:]
	}
	return s.clauseLits(s.conflict)
}

// reasonLits appends to buf the literals of the reason of v other than v's
// own literal.
func (s *solver) reasonLits(v int32, buf []lit) []lit {
	r := s.reason[v]
	switch {
	case r >= unitReason:
	case r&binFlag != 0:
		buf = append(buf, lit(r&^binFlag))
	default:
		buf = append(buf, s.clauseLits(r)[1:]...)
	}
	return buf
}

// analyze derives the first-UIP clause of the current conflict into
// s.learnt (asserting literal first, then a literal of the highest remaining
// level) and returns that level. If no literal of the conflict at the
// current level is other than a fact (which can happen in the counting
// search, see unitReason), it returns -1 and leaves s.learnt empty.
func (s *solver) analyze() int {
	s.conflicts++
	cur := int32(len(s.lim))
	s.learnt = append(s.learnt[:0], litUndef)
	pathC := 0
	idx := len(s.trail) - 1
	var p lit = litUndef
	var reasonBuf [2]lit
	cl := s.conflictLits()
	if s.conflict != binFlag {
		s.touchClause(s.conflict)
	}
	for {
		for _, q := range cl {
			if q == p {
				continue
			}
			v := q.variable()
			if s.seen[v] || s.isFact(v) {
				continue
			}
			s.seen[v] = true
			s.bump(q)
			if s.level[v] >= cur {
				pathC++
			} else {
				s.learnt = append(s.learnt, q)
			}
		}
		if pathC == 0 {
			// Only facts at the current level: the conflict is among
			// lower levels and no clause asserting here exists.
			for _, l := range s.learnt[1:] {
				s.seen[l.variable()] = false
			}
			s.learnt = s.learnt[:0]
			return -1
		}
		for !s.seen[s.trail[idx].variable()] {
			idx--
		}
		p = s.trail[idx]
		idx--
		v := p.variable()
		s.seen[v] = false
		pathC--
		if pathC == 0 {
			break
		}
		r := s.reason[v]
		switch {
		case r&binFlag != 0:
			reasonBuf[0] = p
			reasonBuf[1] = lit(r &^ binFlag)
			cl = reasonBuf[:]
		default:
			s.touchClause(r)
			cl = s.clauseLits(r)
		}
	}
	s.learnt[0] = p.not()
	s.minimize()
	// Put a literal of the highest level second.
	bt := 0
	for i := 1; i < len(s.learnt); i++ {
		if lv := int(s.level[s.learnt[i].variable()]); lv > bt {
			bt = lv
			s.learnt[1], s.learnt[i] = s.learnt[i], s.learnt[1]
		}
	}
	return bt
}

// touchClause bumps a learned clause used in conflict analysis.
func (s *solver) touchClause(cref uint32) {
	if s.pool[cref+1]&flagLearnt != 0 && s.bumpClause != nil {
		s.bumpClause(cref)
	}
}

// minimize removes from s.learnt the literals implied by the others
// (recursive minimization), then clears the seen marks.
func (s *solver) minimize() {
	s.toClear = s.toClear[:0]
	for _, l := range s.learnt[1:] {
		s.seen[l.variable()] = true
		s.toClear = append(s.toClear, l.variable())
	}
	j := 1
	for i := 1; i < len(s.learnt); i++ {
		l := s.learnt[i]
		if s.reason[l.variable()] == noReason || !s.redundant(l) {
			s.learnt[j] = l
			j++
		}
	}
	s.learnt = s.learnt[:j]
	for _, v := range s.toClear {
		s.seen[v] = false
	}
}

// redundant reports whether l's reason chain bottoms out in seen literals
// or level-0 facts; newly proven literals are marked seen.
func (s *solver) redundant(l lit) bool {
	stack := append(s.minStack[:0], l)
	defer func() { s.minStack = stack[:0] }()
	top := len(s.toClear)
	buf := s.minBuf[:0]
	defer func() { s.minBuf = buf[:0] }()
	for len(stack) > 0 {
		p := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		buf = s.reasonLits(p.variable(), buf[:0])
		for _, q := range buf {
			v := q.variable()
			if s.seen[v] || s.isFact(v) {
				continue
			}
			if s.reason[v] == noReason {
				for _, u := range s.toClear[top:] {
					s.seen[u] = false
				}
				s.toClear = s.toClear[:top]
				return false
			}
			s.seen[v] = true
			s.toClear = append(s.toClear, v)
			stack = append(stack, q)
		}
	}
	return true
}

// learn stores s.learnt (length ≥ 2) and returns the reason it gives its
// first literal.
func (s *solver) learn() uint32 {
	if len(s.learnt) == 2 {
		s.addBinary(s.learnt[0], s.learnt[1])
		return binFlag | uint32(s.learnt[1])
	}
	cref := s.addLong(s.learnt, true)
	s.pool[cref+1] |= lit(min(s.lbd(s.learnt), 1<<20)) << lbdShift
	return cref
}

// lbd returns the number of distinct decision levels among lits (the
// "literal block distance" of Glucose): clauses with few are kept longer.
func (s *solver) lbd(lits []lit) int {
	s.lbdStamp++
	n := 0
	for _, l := range lits {
		lv := int(s.level[l.variable()])
		for lv >= len(s.levelSeen) {
			s.levelSeen = append(s.levelSeen, 0)
		}
		if s.levelSeen[lv] != s.lbdStamp {
			s.levelSeen[lv] = s.lbdStamp
			n++
		}
	}
	return n
}

func (s *solver) clauseLBD(cref uint32) uint32 { return uint32(s.pool[cref+1] >> lbdShift) }

// locked reports whether a clause is the reason of a current assignment.
func (s *solver) locked(cref uint32) bool {
	first := s.pool[cref+hdrSize]
	return s.val[first] == isTrue && s.reason[first.variable()] == cref
}

func (s *solver) clauseActivity(cref uint32) float32 {
	return math.Float32frombits(uint32(s.pool[cref+2]))
}

func (s *solver) bumpClauseActivity(cref uint32) {
	a := s.clauseActivity(cref) + s.clauseInc
	s.pool[cref+2] = lit(math.Float32bits(a))
	if a > 1e20 {
		for _, c := range s.learnts {
			s.pool[c+2] = lit(math.Float32bits(s.clauseActivity(c) * 1e-20))
		}
		s.clauseInc *= 1e-20
	}
}

// reduceLearnts deletes half of the learned long clauses that are neither
// locked nor "glue" (LBD ≤ 2), those with the highest LBD and then the
// lowest activity first, compacts the pool and rebuilds the watch lists.
func (s *solver) reduceLearnts() {
	cands := make([]uint32, 0, len(s.learnts))
	for _, c := range s.learnts {
		if s.clauseLBD(c) > 2 && !s.locked(c) {
			cands = append(cands, c)
		}
	}
	slices.SortFunc(cands, func(a, b uint32) int {
		if c := cmp.Compare(s.clauseLBD(b), s.clauseLBD(a)); c != 0 {
			return c
		}
		return cmp.Compare(s.clauseActivity(a), s.clauseActivity(b))
	})
	for _, c := range cands[:len(cands)/2] {
		s.pool[c+1] |= flagDead
	}
	s.compact()
}

// compact drops dead clauses from the pool, renumbers the learned ones and
// rebuilds the watch lists from each clause's first two literals.
func (s *solver) compact() {
	remap := make(map[uint32]uint32, len(s.learnts))
	out := s.origEnd
	kept := s.learnts[:0]
	for _, c := range s.learnts {
		if s.pool[c+1]&flagDead != 0 {
			continue
		}
		n := uint32(s.pool[c]) + hdrSize
		copy(s.pool[out:out+n], s.pool[c:c+n])
		remap[c] = out
		kept = append(kept, out)
		out += n
	}
	s.learnts = kept
	s.pool = s.pool[:out]
	for _, l := range s.trail {
		v := l.variable()
		if r := s.reason[v]; r&binFlag == 0 && r >= s.origEnd {
			s.reason[v] = remap[r]
		}
	}
	for i := range s.watches {
		s.watches[i] = s.watches[i][:0]
	}
	for c := uint32(0); c < uint32(len(s.pool)); c += uint32(s.pool[c]) + hdrSize {
		if s.pool[c+1]&flagDead != 0 {
			continue
		}
		l0, l1 := s.pool[c+hdrSize], s.pool[c+hdrSize+1]
		s.watches[l0] = append(s.watches[l0], watch{c, l1})
		s.watches[l1] = append(s.watches[l1], watch{c, l0})
	}
}
