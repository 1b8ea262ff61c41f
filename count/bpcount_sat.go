package count

// Satisfiability checks for BPCount: before a value is drawn, each value of
// the chosen variable is checked for a model. A value without models gets
// probability 0 (the other value is taken with probability 1), which keeps
// the estimate unbiased and avoids estimates of 0, each of which would make
// the lower bound 0. The check is a small DPLL search with unit propagation
// and a budget of decisions (it answers most checks, often from a
// remembered model); when that budget runs out, the residual formula goes
// to the exact counter's complete CDCL solver (clause learning, restarts)
// with a budget of conflicts. Both are deterministic; only when both
// budgets run out is the answer "unknown", and both values stay possible.
// An "unknown" never biases the estimate, it only risks an estimate of 0.

import (
	"context"
	"errors"
)

// satResult is the outcome of a bounded satisfiability check.
type satResult int8

const (
	satUnknown satResult = iota
	satYes
	satNo
)

// satChecker remembers recent models to answer most checks without search.
type satChecker struct {
	ctx       context.Context
	budget    int      // DPLL decisions per check
	conflicts int64    // CDCL conflicts per check (0: no CDCL stage)
	models    [][]int8 // recent models, newest last

	// Statistics: checks answered by the CDCL stage, and those it could
	// not decide within its budget.
	cdclRuns, cdclUnknown int
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
	var phase []int8 // the newest model guides the search
	if len(k.models) > 0 {
		phase = k.models[len(k.models)-1]
	}
	switch s.dpll(&left, phase) {
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
	if k.conflicts <= 0 {
		return satUnknown
	}
	k.cdclRuns++
	r := cdclCheck(k.ctx, s, k.conflicts)
	if r == satUnknown {
		k.cdclUnknown++
	}
	return r
}

// errSATBudget stops a CDCL check that used up its conflicts.
var errSATBudget = errors.New("count: satisfiability check budget exhausted")

// cdclCheck decides whether s under its assignment has a model with the
// exact counter's CDCL solver, within maxConflicts conflicts (and ctx).
func cdclCheck(ctx context.Context, s *unitState, maxConflicts int64) satResult {
	res, _, _ := s.residual()
	k := newCounter(ctx, res, Options{})
	if k.unsat {
		return satNo
	}
	sat, err := k.satisfiable(func() error {
		if k.conflicts >= maxConflicts {
			return errSATBudget
		}
		return ctx.Err()
	})
	switch {
	case err != nil:
		return satUnknown
	case sat:
		return satYes
	}
	return satNo
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
// literal of a shortest open clause (one true in phase, a model of a
// nearby assignment, when there is one: the search then mostly repairs
// that model), and spends one unit of *left per decision. On satYes the
// model is left assigned (the caller undoes it).
func (s *unitState) dpll(left *int, phase []int8) satResult {
	best, bestFree := -1, int32(1<<30)
	for ci := range s.clauses {
		if s.nTrue[ci] == 0 && s.nFree[ci] < bestFree {
			best, bestFree = ci, s.nFree[ci]
		}
	}
	if best < 0 {
		return satYes // every clause satisfied
	}
	l := int32(-1)
	for _, y := range s.clauses[best] {
		if s.val[y>>1] < 0 {
			if phase == nil || phase[y>>1] == int8(1-y&1) {
				l = y
				break
			}
			if l < 0 {
				l = y
			}
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
			switch s.dpll(left, phase) {
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
