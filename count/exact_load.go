package count

import (
	"context"
	"slices"

	"github.com/lifted-dev/lifted/cnf"
)

// newCounter loads c, propagates its unit clauses at level 0 and sets up
// the component structure. It sets k.unsat for a trivially unsatisfiable
// formula. Only the variables that occur in a clause enter the search,
// renumbered densely; the others are counted in k.unused.
func newCounter(ctx context.Context, c *cnf.CNF, opts Options) *counter {
	used, dense := usedVars(c)
	nv := len(used)
	s := newSolver(nv)
	k := &counter{solver: s, ctx: ctx, opts: opts, src: c, used: used, litAct: make([]float64, 2*nv), candOK: make([]bool, 2*nv)}
	k.cache = newCompCache(opts.cacheBytes())
	k.unused = c.NumVars - nv
	var units, buf []lit
	var binA, binB []int32
	for _, cl := range c.Clauses {
		var taut bool
		buf, taut = normalize(cl, dense, buf[:0])
		switch {
		case taut:
		case len(buf) == 0:
			k.unsat = true
		case len(buf) == 1:
			units = append(units, buf[0])
		case len(buf) == 2:
			s.addBinary(buf[0], buf[1])
			binA = append(binA, buf[0].variable())
			binB = append(binB, buf[1].variable())
		default:
			s.addLong(buf, false)
		}
		for _, l := range buf {
			k.litAct[l]++
		}
	}
	s.origEnd = uint32(len(s.pool))
	k.binA, k.binB = binA, binB
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
	st.clStart = []int32{0}
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
