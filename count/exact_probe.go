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
	slices.Sort(k.scores)
	return k.scores[len(k.scores)-n]
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
