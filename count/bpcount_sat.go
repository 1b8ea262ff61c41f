package count

// Satisfiability checks for BPCount: before a value is drawn, each value of
// the chosen variable is checked for a model. A value without models gets
// probability 0 (the other value is taken with probability 1), which keeps
// the estimate unbiased and avoids estimates of 0, each of which would make
// the lower bound 0. The check is a small DPLL search with unit propagation
// and a budget of decisions, so it is deterministic; when the budget runs
// out the answer is "unknown" and both values stay possible.

// satResult is the outcome of a bounded satisfiability check.
type satResult int8

const (
	satUnknown satResult = iota
	satYes
	satNo
)

// satChecker remembers recent models to answer most checks without search.
type satChecker struct {
	budget int      // decisions per check
	models [][]int8 // recent models, newest last
}

// maxModels is how many models the checker remembers.
const maxModels = 4

// check reports whether s, with variable v set to x and propagated, has a
// model. s is left as it was.
func (k *satChecker) check(s *unitState, v int32, x int8) satResult {
	m := s.mark()
	defer s.undo(m)
	if !s.set(v, x) {
		return satNo
	}
	for i := len(k.models) - 1; i >= 0; i-- {
		if consistent(s, k.models[i]) {
			return satYes
		}
	}
	left := k.budget
	switch s.dpll(&left) {
	case satYes:
		model := make([]int8, s.nv)
		for u, y := range s.val {
			model[u] = max(y, 0) // unconstrained variables: false
		}
		if len(k.models) == maxModels {
			k.models = append(k.models[:0], k.models[1:]...)
		}
		k.models = append(k.models, model)
		return satYes
	case satNo:
		return satNo
	}
	return satUnknown
}

// consistent reports whether model agrees with every assigned variable of s.
func consistent(s *unitState, model []int8) bool {
	for _, v := range s.trail {
		if model[v] != s.val[v] {
			return false
		}
	}
	return true
}

// dpll searches for a model of s under its assignment, branching on a
// literal of a shortest open clause, and spends one unit of *left per
// decision. On satYes the model is left assigned (the caller undoes it).
func (s *unitState) dpll(left *int) satResult {
	best, bestFree := -1, int32(1<<30)
	for ci := range s.clauses {
		if s.nTrue[ci] == 0 && s.nFree[ci] < bestFree {
			best, bestFree = ci, s.nFree[ci]
		}
	}
	if best < 0 {
		return satYes // every clause satisfied
	}
	var l int32
	for _, y := range s.clauses[best] {
		if s.val[y>>1] < 0 {
			l = y
			break
		}
	}
	unknown := false
	for _, y := range []int32{l, l ^ 1} {
		if *left <= 0 {
			return satUnknown
		}
		*left--
		m := s.mark()
		s.queue = append(s.queue[:0], y)
		if s.propagate() {
			switch s.dpll(left) {
			case satYes:
				return satYes
			case satUnknown:
				unknown = true
			}
		}
		s.undo(m)
	}
	if unknown {
		return satUnknown
	}
	return satNo
}
