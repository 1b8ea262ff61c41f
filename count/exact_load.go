package count

import (
	"context"
	"slices"

	"github.com/lifted-dev/lifted/cnf"
)

// newCounter loads c, propagates its unit clauses at level 0 and sets up
// the component structure. It sets k.unsat for a trivially unsatisfiable
// formula. Only the variables that occur in a clause enter the search,
// renumbered densely; the others are counted in k.unused. Clauses that
// repeat another and clauses of three or more literals that contain a binary
// clause are left out (as sharpSAT's preprocessing does): they have the
// same models without them, and each would cost propagation and component
// analysis on every step. A variable that occurs only in such clauses stays
// in the search, free.
func newCounter(ctx context.Context, c *cnf.CNF, opts Options) *counter {
	return loadCounter(ctx, c, nil, nil, opts)
}

// loadCounter is newCounter for c restricted by a partial assignment, as
// Condition restricts it: assign[v-1] is +1 (true), -1 (false) or 0 for
// variable v, or assign is nil. Clauses satisfied by assign are left out
// and its false literals dropped, so that the counter is the one newCounter
// would build from Condition(c, assign).CNF (the same variables in the same
// order, the same clauses), without building that formula; k.used then
// gives c's variable numbers. old, if not nil, is a counter no longer
// needed (presolve's, of c, before the reload) whose arrays the new one
// reuses.
func loadCounter(ctx context.Context, c *cnf.CNF, assign []int8, old *counter, opts Options) *counter {
	used, dense, open := usedVars(c, assign)
	nv := len(used)
	var olds *solver
	var oldAct []float64
	var oldOK []bool
	if old != nil {
		olds, oldAct, oldOK = old.solver, old.litAct, old.candOK
	}
	s := newSolverOver(nv, olds)
	k := &counter{solver: s, ctx: ctx, opts: opts, src: c, used: used, litAct: reuse(oldAct, 2*nv), candOK: reuse(oldOK, 2*nv)}
	k.cache = newCompCache(opts.cacheBytes())
	k.unused = open - nv
	// Bounds on what the clauses take, from their sizes as given: the
	// long clauses go straight into the pool, the binary ones to pairs.
	longWords, npairs := 0, 0
	for _, cl := range c.Clauses {
		if len(cl) > 2 {
			longWords += len(cl) + hdrSize
		} else if len(cl) == 2 {
			npairs += 2
		}
	}
	if olds != nil {
		s.pool, s.scratch, s.watchBacking = olds.pool[:0], olds.scratch, olds.watchBacking
	}
	s.pool = slices.Grow(s.pool, longWords)
	pairs := slices.Grow(s.scratch[:0], npairs)
	var units, buf []lit
	nlong, longLits := 0, 0
	for _, cl := range c.Clauses {
		var skip bool
		buf, skip = normalize(cl, dense, assign, buf[:0])
		switch {
		case skip:
		case len(buf) == 0:
			k.unsat = true
		case len(buf) == 1:
			units = append(units, buf[0])
			k.litAct[buf[0]]++
		case len(buf) == 2:
			pairs = append(pairs, buf[0], buf[1])
		default:
			s.pool = append(s.pool, lit(len(buf)), 0, 0) // size, flags, activity 0
			s.pool = append(s.pool, buf...)
			nlong++
			longLits += len(buf)
		}
	}
	k.binA, k.binB = s.loadBinaries(pairs)
	s.scratch = pairs
	s.loadLong(nlong, longLits)
	s.origEnd = uint32(len(s.pool))
	for l := range s.bin {
		k.litAct[l^1] += float64(len(s.bin[l]))
	}
	for c := uint32(0); c < s.origEnd; c += uint32(s.pool[c]) + hdrSize {
		for _, l := range s.clauseLits(c) {
			k.litAct[l]++
		}
	}
	for _, u := range units {
		switch s.val[u] {
		case isFalse:
			k.unsat = true
		case unknown:
			s.assign(u, noReason)
		}
	}
	if !k.unsat && !s.propagate() {
		k.unsat = true
	}
	return k
}

// loadBinaries stores the binary clauses pairs[2i] ∨ pairs[2i+1], each
// once, in the implication lists (in input order, in one backing array) and returns
// their variables, one entry per distinct clause.
func (s *solver) loadBinaries(pairs []lit) (binA, binB []int32) {
	n := make([]int32, 2*s.nv)
	for _, l := range pairs {
		n[l^1]++
	}
	backing := make([]lit, len(pairs))
	off := int32(0)
	for l := range s.bin {
		s.bin[l] = backing[off : off : off+n[l]]
		off += n[l]
	}
	for i := 0; i < len(pairs); i += 2 {
		a, b := pairs[i], pairs[i+1]
		s.bin[a^1] = append(s.bin[a^1], b)
		s.bin[b^1] = append(s.bin[b^1], a)
	}
	// Drop repeated clauses, keeping the input's order (the order
	// propagation visits them in).
	mark := n // reused: mark[q] = l+1 once q is in bin[l]
	clear(mark)
	distinct := 0
	for l, imp := range s.bin {
		j := 0
		for _, q := range imp {
			if mark[q] != int32(l)+1 {
				mark[q] = int32(l) + 1
				imp[j] = q
				j++
			}
		}
		s.bin[l] = imp[:j]
		distinct += j
	}
	binA = make([]int32, 0, distinct/2)
	binB = make([]int32, 0, distinct/2)
	for p := range s.bin {
		a := lit(p) ^ 1 // bin[p] holds b for each clause (a ∨ b)
		for _, b := range s.bin[p] {
			if a < b {
				binA = append(binA, a.variable())
				binB = append(binB, b.variable())
			}
		}
	}
	return binA, binB
}

// subsumeBudget bounds the implication-list entries loadLong scans, per
// literal of the long clauses, so that loading stays linear in the input.
const subsumeBudget = 16

// loadLong keeps, of the n long clauses (sorted, distinct literals; lits
// literals in all) that the pool holds, those that neither equal an earlier
// one nor contain a binary clause (already loaded), moving them down over
// the others, and watches the first two literals of each. The first pass
// marks the clauses left out dead, so that each is compared with the
// earlier ones as given. The second test scans, for each literal l of a
// clause, the literals that ¬l implies; it stops when the scans have cost
// subsumeBudget entries per literal loaded (the remaining clauses are then
// kept, which is also exact).
func (s *solver) loadLong(n, lits int) {
	size := 4
	for size < 2*n {
		size *= 2
	}
	table := s.scratchLits(size) // 0 empty, else a clause's ref + 1
	mask := uint64(size - 1)
	mark := make([]uint32, 2*s.nv)
	stamp := uint32(0)
	budget := subsumeBudget*lits + 1024
	pool := s.pool
	for r := uint32(0); r < uint32(len(pool)); r += uint32(pool[r]) + hdrSize {
		cl := pool[r+hdrSize : r+hdrSize+uint32(pool[r])]
		h := uint64(len(cl)) * 0x9e3779b97f4a7c15
		for _, l := range cl {
			h = (h ^ uint64(l)) * 0xbf58476d1ce4e5b9
			h ^= h >> 29
		}
		dup := false
		for j := h & mask; ; j = (j + 1) & mask {
			if table[j] == 0 {
				table[j] = lit(r + 1)
				break
			}
			if slices.Equal(s.clauseLits(uint32(table[j])-1), cl) {
				dup = true
				break
			}
		}
		if dup {
			pool[r+1] = flagDead
			continue
		}
		if budget > 0 {
			stamp++
			for _, l := range cl {
				mark[l] = stamp
			}
			for _, l := range cl {
				imp := s.bin[l^1]
				budget -= len(imp)
				for _, q := range imp {
					if mark[q] == stamp {
						pool[r+1] = flagDead
						break
					}
				}
				if pool[r+1] == flagDead {
					break
				}
			}
		}
	}
	// Move the kept clauses down over the others.
	w := uint32(0)
	for r := uint32(0); r < uint32(len(pool)); {
		next := r + uint32(pool[r]) + hdrSize
		if pool[r+1] != flagDead {
			w += uint32(copy(pool[w:], pool[r:next]))
		}
		r = next
	}
	s.pool = pool[:w]
	// The watch lists, with room for twice their clauses, in one backing
	// array (a reload's over the old one).
	count := make([]int32, 2*s.nv)
	for c := uint32(0); c < w; c += uint32(pool[c]) + hdrSize {
		count[pool[c+hdrSize]]++
		count[pool[c+hdrSize+1]]++
	}
	total := 0
	for _, c := range count {
		total += watchRoom(int(c))
	}
	backing := s.watchBacking[:0]
	if cap(backing) < total {
		backing = make([]watch, 0, total)
	}
	s.watchBacking = backing[:0:total]
	for l := range s.watches {
		room := watchRoom(int(count[l]))
		s.watches[l] = backing[len(backing) : len(backing) : len(backing)+room]
		backing = backing[:len(backing)+room]
	}
	for c := uint32(0); c < w; c += uint32(pool[c]) + hdrSize {
		a, b := pool[c+hdrSize], pool[c+hdrSize+1]
		s.watches[a] = append(s.watches[a], watch{c, b})
		s.watches[b] = append(s.watches[b], watch{c, a})
	}
}

// scratchLits returns n zeroed entries of s.scratch, reallocated when it
// is too small: the loader's temporary arrays, one at a time, kept for a
// reload (presolve's).
func (s *solver) scratchLits(n int) []lit {
	if cap(s.scratch) < n {
		s.scratch = make([]lit, n)
	}
	b := s.scratch[:n]
	clear(b)
	return b
}

// watchRoom is the room a watch list of n original clauses gets at load:
// the search moves watches between lists and adds those of learned
// clauses, and each list that outgrows its room is copied (twice the size)
// and its room left behind.
func watchRoom(n int) int { return 2*n + 2 }

// usedVars returns the sorted distinct variables that occur in a clause
// of c that assign (see loadCounter) does not satisfy and that assign
// leaves open, for each variable of c its index in used (-1 if none), and
// the number of variables assign leaves open.
func usedVars(c *cnf.CNF, assign []int8) (used, dense []int32, open int) {
	dense = make([]int32, c.NumVars+1)
	for i := range dense {
		dense[i] = -1
	}
	n := int32(0)
	for _, cl := range c.Clauses {
		if assign != nil && satisfied(cl, assign) {
			continue
		}
		for _, x := range cl {
			if v := max(x, -x); dense[v] < 0 && (assign == nil || assign[v-1] == 0) {
				dense[v] = 0
				n++
			}
		}
	}
	used = make([]int32, 0, n)
	for v, d := range dense {
		if d >= 0 {
			dense[v] = int32(len(used))
			used = append(used, int32(v))
		}
	}
	open = c.NumVars
	for _, a := range assign {
		if a != 0 {
			open--
		}
	}
	return used, dense, open
}

// satisfied reports whether assign makes a literal of cl true.
func satisfied(cl []int32, assign []int8) bool {
	for _, x := range cl {
		if a := assign[max(x, -x)-1]; a != 0 && (a > 0) == (x > 0) {
			return true
		}
	}
	return false
}

// buildSearch sets up what the counting search alone needs, once the
// formula is final: the structure of the original clauses and the
// decomposer.
func (k *counter) buildSearch() {
	k.scratch = nil
	k.st = buildStructure(k.solver, k.nv, k.binA, k.binB)
	k.binA, k.binB = nil, nil
	k.decomposer = newDecomposer(&k.st, k.val, k.nv)
}

// normalize converts a DIMACS clause to sorted distinct literals over the
// dense numbering dense, leaving out the literals assign (nil: none; see
// loadCounter) makes false; skip reports a clause with complementary
// literals or one that assign satisfies.
func normalize(cl []int32, dense []int32, assign []int8, buf []lit) ([]lit, bool) {
	for _, x := range cl {
		v := max(x, -x)
		if assign != nil {
			if a := assign[v-1]; a != 0 {
				if (a > 0) == (x > 0) {
					return buf, true
				}
				continue
			}
		}
		l := lit(dense[v]) << 1
		if x < 0 {
			l |= 1
		}
		buf = append(buf, l)
	}
	sortLits(buf)
	j := 0
	for i, l := range buf {
		if i > 0 && l == buf[j-1] {
			continue
		}
		if i > 0 && l == buf[j-1]^1 {
			return buf, true
		}
		buf[j] = l
		j++
	}
	return buf[:j], false
}

func sortLits(a []lit) {
	if len(a) > 16 {
		slices.Sort(a)
		return
	}
	for i := 1; i < len(a); i++ { // clauses are short: insertion sort
		for j := i; j > 0 && a[j] < a[j-1]; j-- {
			a[j], a[j-1] = a[j-1], a[j]
		}
	}
}

// buildStructure collects the binary partners and long-clause occurrences
// of each variable from the original clauses in s.pool.
func buildStructure(s *solver, nv int, binA, binB []int32) structure {
	var st structure
	st.binStart = make([]int32, nv+1)
	for i := range binA {
		st.binStart[binA[i]+1]++
		st.binStart[binB[i]+1]++
	}
	for v := range nv {
		st.binStart[v+1] += st.binStart[v]
	}
	st.binNbr = make([]int32, st.binStart[nv])
	next := make([]int32, nv)
	copy(next, st.binStart[:nv])
	for i := range binA {
		a, b := binA[i], binB[i]
		st.binNbr[next[a]] = b
		next[a]++
		st.binNbr[next[b]] = a
		next[b]++
	}
	nc, nl := 0, 0
	for c := uint32(0); c < s.origEnd; c += uint32(s.pool[c]) + hdrSize {
		nc++
		nl += int(s.pool[c])
	}
	st.clStart = make([]int32, 1, nc+1)
	st.clLits = make([]lit, 0, nl)
	st.occStart = make([]int32, nv+1)
	for c := uint32(0); c < s.origEnd; c += uint32(s.pool[c]) + hdrSize {
		for _, l := range s.clauseLits(c) {
			st.clLits = append(st.clLits, l)
			st.occStart[l.variable()+1]++
		}
		st.clStart = append(st.clStart, int32(len(st.clLits)))
	}
	for v := range nv {
		st.occStart[v+1] += st.occStart[v]
	}
	st.occ = make([]int32, st.occStart[nv])
	copy(next, st.occStart[:nv])
	st.litStart = make([]int32, 2*nv+1)
	for _, l := range st.clLits {
		st.litStart[l+1]++
	}
	for l := range 2 * nv {
		st.litStart[l+1] += st.litStart[l]
	}
	st.litOcc = make([]int32, len(st.clLits))
	nextLit := slices.Clone(st.litStart[:2*nv])
	for i := 0; i+1 < len(st.clStart); i++ {
		for _, l := range st.clause(int32(i)) {
			v := l.variable()
			st.occ[next[v]] = int32(i)
			next[v]++
			st.litOcc[nextLit[l]] = int32(i)
			nextLit[l]++
		}
	}
	return st
}
