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
	used, dense := usedVars(c)
	nv := len(used)
	s := newSolver(nv)
	k := &counter{solver: s, ctx: ctx, opts: opts, src: c, used: used, litAct: make([]float64, 2*nv), candOK: make([]bool, 2*nv)}
	k.cache = newCompCache(opts.cacheBytes())
	k.unused = c.NumVars - nv
	nlits := 0
	for _, cl := range c.Clauses {
		nlits += len(cl)
	}
	var units, buf, pairs []lit
	longLits := make([]lit, 0, nlits)
	var longEnd []int32
	for _, cl := range c.Clauses {
		var taut bool
		buf, taut = normalize(cl, dense, buf[:0])
		switch {
		case taut:
		case len(buf) == 0:
			k.unsat = true
		case len(buf) == 1:
			units = append(units, buf[0])
			k.litAct[buf[0]]++
		case len(buf) == 2:
			pairs = append(pairs, buf[0], buf[1])
		default:
			longLits = append(longLits, buf...)
			longEnd = append(longEnd, int32(len(longLits)))
		}
	}
	k.binA, k.binB = s.loadBinaries(pairs)
	s.pool = make([]lit, 0, len(longLits)+hdrSize*len(longEnd))
	s.loadLong(longLits, longEnd)
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

// loadLong stores the long clauses lits[end[i-1]:end[i]] (sorted, distinct
// literals) as original clauses, except those equal to an earlier one and
// those that contain a binary clause (already loaded). The second test
// scans, for each literal l of a clause, the literals that ¬l implies; it
// stops when the scans have cost subsumeBudget entries per literal loaded
// (the remaining clauses are then kept, which is also exact).
func (s *solver) loadLong(lits []lit, end []int32) {
	size := 4
	for size < 2*len(end) {
		size *= 2
	}
	table := make([]int32, size) // 0 empty, else clause index + 1
	mask := uint64(size - 1)
	mark := make([]uint32, 2*s.nv)
	stamp := uint32(0)
	budget := subsumeBudget*len(lits) + 1024
	clause := func(i int32) []lit {
		if i == 0 {
			return lits[:end[0]]
		}
		return lits[end[i-1]:end[i]]
	}
	for i := range int32(len(end)) {
		cl := clause(i)
		h := uint64(len(cl)) * 0x9e3779b97f4a7c15
		for _, l := range cl {
			h = (h ^ uint64(l)) * 0xbf58476d1ce4e5b9
			h ^= h >> 29
		}
		dup := false
		for j := h & mask; ; j = (j + 1) & mask {
			if table[j] == 0 {
				table[j] = i + 1
				break
			}
			if slices.Equal(clause(table[j]-1), cl) {
				dup = true
				break
			}
		}
		if dup {
			continue
		}
		if budget > 0 {
			stamp++
			for _, l := range cl {
				mark[l] = stamp
			}
			subsumed := false
			for _, l := range cl {
				imp := s.bin[l^1]
				budget -= len(imp)
				for _, q := range imp {
					if mark[q] == stamp {
						subsumed = true
						break
					}
				}
				if subsumed {
					break
				}
			}
			if subsumed {
				continue
			}
		}
		s.addLong(cl, false)
	}
}

// usedVars returns the sorted distinct variables that occur in c, and
// for each variable of c its index in used (-1 if it occurs in no clause).
func usedVars(c *cnf.CNF) (used, dense []int32) {
	dense = make([]int32, c.NumVars+1)
	for i := range dense {
		dense[i] = -1
	}
	n := int32(0)
	for _, cl := range c.Clauses {
		for _, x := range cl {
			if v := max(x, -x); dense[v] < 0 {
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
	return used, dense
}

// buildSearch sets up what the counting search alone needs, once the
// formula is final: the structure of the original clauses and the
// decomposer.
func (k *counter) buildSearch() {
	k.st = buildStructure(k.solver, k.nv, k.binA, k.binB)
	k.binA, k.binB = nil, nil
	k.decomposer = newDecomposer(&k.st, k.val, k.nv)
}

// normalize converts a DIMACS clause to sorted distinct literals over the
// dense numbering dense; taut reports a clause with complementary
// literals.
func normalize(cl []int32, dense []int32, buf []lit) ([]lit, bool) {
	for _, x := range cl {
		l := lit(dense[max(x, -x)]) << 1
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
