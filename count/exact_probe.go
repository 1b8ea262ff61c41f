package count

import "slices"

// assertUnits sets the unit clauses learned so far at the current level.
// It returns false if one of them is already false.
func (k *counter) assertUnits() bool {
	for _, u := range k.units {
		switch k.val[u] {
		case isFalse:
			return false
		case unknown:
			k.assign(u, unitReason)
		}
	}
	return true
}

// probe runs failed-literal tests after propagation at the current level
// (sharpSAT's implicit BCP): for the literals set at this level it tries
// the most active literals that would shorten a clause they falsified, and
// when one fails it learns the conflict and asserts its negation here. It
// returns false on a conflict at the current level, left for analyze.
func (k *counter) probe() bool {
	start := int(k.lim[len(k.lim)-1])
	for start < len(k.trail) {
		k.collectCandidates(start)
		numCur := len(k.trail) - start
		start = len(k.trail)
		threshold := k.threshold(10 + numCur/20)
		for _, t := range k.cands {
			if k.val[t] != unknown || k.litAct[t] < threshold {
				continue
			}
			if !k.failed(t) {
				continue
			}
			if !k.propagate() {
				return false
			}
		}
	}
	return true
}

// collectCandidates gathers, for each literal set from trail position
// start on, the negations of the free literals of the unsatisfied clauses
// it falsified.
func (k *counter) collectCandidates(start int) {
	k.cands = k.cands[:0]
	st := &k.st
	for _, p := range k.trail[start:] {
		f := p.not()
	clauses:
		for _, c := range st.litOcc[st.litStart[f]:st.litStart[f+1]] {
			lits := st.clause(c)
			for _, l := range lits {
				if k.val[l] == isTrue {
					continue clauses
				}
			}
			for _, l := range lits {
				if k.val[l] == unknown && !k.candOK[l^1] {
					k.candOK[l^1] = true
					k.cands = append(k.cands, l^1)
				}
			}
		}
	}
	for _, t := range k.cands {
		k.candOK[t] = false
	}
}

// threshold returns the activity of the n-th most active candidate, or 0
// if there are at most n.
func (k *counter) threshold(n int) float64 {
	if len(k.cands) <= n {
		return 0
	}
	k.scores = k.scores[:0]
	for _, t := range k.cands {
		k.scores = append(k.scores, k.litAct[t])
	}
	return nthSmallest(k.scores, len(k.scores)-n)
}

// nthSmallest returns the value that would be a[i] if a were sorted
// (quickselect; it reorders a). The values are activities: no NaN.
func nthSmallest(a []float64, i int) float64 {
	lo, hi := 0, len(a)-1
	for hi-lo > 16 {
		// Median of three as the pivot, then a Hoare partition.
		m := lo + (hi-lo)/2
		if a[m] < a[lo] {
			a[m], a[lo] = a[lo], a[m]
		}
		if a[hi] < a[lo] {
			a[hi], a[lo] = a[lo], a[hi]
		}
		if a[hi] < a[m] {
			a[hi], a[m] = a[m], a[hi]
		}
		p := a[m]
		l, r := lo, hi
		for l <= r {
			for a[l] < p {
				l++
			}
			for a[r] > p {
				r--
			}
			if l <= r {
				a[l], a[r] = a[r], a[l]
				l++
				r--
			}
		}
		switch {
		case i <= r:
			hi = r
		case i >= l:
			lo = l
		default:
			return a[i] // between r and l: equal to the pivot
		}
	}
	slices.Sort(a[lo : hi+1])
	return a[i]
}

// failed tests literal t on a temporary level. If propagation fails, it
// learns the conflict, undoes the test and sets the learned clause's
// asserting literal at the current level (not yet propagated); it reports
// whether that happened.
func (k *counter) failed(t lit) bool {
	lvl := k.decisionLevel()
	k.newLevel()
	k.assign(t, noReason)
	if k.propagate() {
		k.backtrack(lvl)
		return false
	}
	bt := k.analyze()
	k.backtrack(lvl)
	k.failedLits++
	switch {
	case bt < 0:
		return false
	case len(k.learnt) == 1:
		k.units = append(k.units, k.learnt[0])
		k.assign(k.learnt[0], unitReason)
	default:
		k.maybeReduce()
		k.assign(k.learnt[0], k.learn())
	}
	return true
}

// presolve simplifies the formula at the root, as sharpSAT's preprocessing
// does: it tests every unassigned literal (failed literals: a literal whose
// propagation fails is false in every model), repeating until a round
// finds nothing, and then, if any variable is assigned at the root, loads
// the residual formula — satisfied clauses and assigned variables gone,
// false literals removed — into a fresh counter, so that the search never
// walks them again. It returns that counter, k itself when nothing was
// assigned, or nil when the formula has no models.
func (k *counter) presolve() (*counter, error) {
	k.presolved = true
	for changed := true; changed; {
		changed = false
		for v := range int32(k.nv) {
			if v&63 == 0 {
				if err := k.checkpoint(); err != nil {
					return nil, err
				}
			}
			for _, t := range [2]lit{lit(2 * v), lit(2*v + 1)} {
				if k.val[t] != unknown {
					break
				}
				k.newLevel()
				k.assign(t, noReason)
				ok := k.propagate()
				k.backtrack(0)
				if ok {
					continue
				}
				k.conflicts++
				k.failedLits++
				changed = true
				k.assign(t.not(), noReason)
				if !k.propagate() {
					return nil, nil
				}
			}
		}
	}
	if len(k.trail) == 0 {
		return k, nil
	}
	assign := make([]int8, k.src.NumVars)
	for _, l := range k.trail {
		a := int8(1)
		if l&1 == 1 {
			a = -1
		}
		assign[k.used[l.variable()]-1] = a
	}
	// The reduced formula, loaded from the source over this counter's
	// arrays (it is no longer needed).
	r := loadCounter(k.ctx, k.src, assign, k, k.opts)
	r.presolved = true
	r.start, r.lastTick = k.start, k.lastTick
	r.decisions, r.conflicts, r.propagations, r.failedLits = k.decisions, k.conflicts, k.propagations, k.failedLits
	if r.unsat { // not expected: propagation would have failed
		return nil, nil
	}
	return r, nil
}
