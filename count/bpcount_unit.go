package count

import (
	"github.com/lifted-dev/lifted/cnf"
)

// unitState is a CNF formula under a partial assignment with unit
// propagation, for BPCount. Literals are 2v (positive) and 2v+1 (negated)
// for 0-based variables v. Every clause keeps the numbers of its true and
// of its unassigned literals, so that an assignment and its undo cost the
// occurrences of the variable.
type unitState struct {
	nv      int
	clauses [][]int32 // normalised: distinct variables, no tautologies
	occ     [][]int32 // literal → clauses containing it
	val     []int8    // per variable: -1 unassigned, 0 false, 1 true
	nTrue   []int32   // per clause: literals currently true
	nFree   []int32   // per clause: literals currently unassigned
	trail   []int32   // assigned variables in order
	queue   []int32   // literals to make true
	empty   bool      // the formula has an empty clause
}

// newUnitState loads c: duplicate literals are merged and tautologies dropped
// (as cnf.ToGraph does), an empty clause marks the formula unsatisfiable.
func newUnitState(c *cnf.CNF) *unitState {
	s := &unitState{nv: c.NumVars}
	s.occ = make([][]int32, 2*c.NumVars)
	s.val = make([]int8, c.NumVars)
	for i := range s.val {
		s.val[i] = -1
	}
	for _, cl := range c.Clauses {
		var lits []int32
		taut := false
		for _, l := range cl {
			x := bpLit(l)
			dup := false
			for _, y := range lits {
				if y == x {
					dup = true
					break
				}
				if y == x^1 {
					taut = true
				}
			}
			if !dup {
				lits = append(lits, x)
			}
		}
		if taut {
			continue
		}
		if len(lits) == 0 {
			s.empty = true
			continue
		}
		ci := int32(len(s.clauses))
		s.clauses = append(s.clauses, lits)
		for _, x := range lits {
			s.occ[x] = append(s.occ[x], ci)
		}
	}
	s.nTrue = make([]int32, len(s.clauses))
	s.nFree = make([]int32, len(s.clauses))
	for ci, cl := range s.clauses {
		s.nFree[ci] = int32(len(cl))
	}
	return s
}

// bpLit converts a DIMACS literal to the internal encoding.
func bpLit(l int32) int32 {
	if l < 0 {
		return 2*(-l-1) + 1
	}
	return 2 * (l - 1)
}

// litTrue reports whether literal x is true under the assignment.
func (s *unitState) litTrue(x int32) bool {
	v := s.val[x>>1]
	return v >= 0 && (v == 1) == (x&1 == 0)
}

// set assigns variable v the value x (0 or 1) and propagates. It returns
// false on a conflict; the assignments made stay on the trail either way, so
// that undo restores the state.
func (s *unitState) set(v int32, x int8) bool {
	l := 2 * v
	if x == 0 {
		l++
	}
	s.queue = append(s.queue[:0], l)
	return s.propagate()
}

// propagate makes the queued literals true, with unit propagation.
func (s *unitState) propagate() bool {
	ok := true
	for len(s.queue) > 0 {
		l := s.queue[len(s.queue)-1]
		s.queue = s.queue[:len(s.queue)-1]
		v := l >> 1
		if s.val[v] >= 0 {
			if !s.litTrue(l) {
				ok = false
				break
			}
			continue
		}
		if l&1 == 0 {
			s.val[v] = 1
		} else {
			s.val[v] = 0
		}
		s.trail = append(s.trail, v)
		for _, ci := range s.occ[l] {
			s.nTrue[ci]++
			s.nFree[ci]--
		}
		for _, ci := range s.occ[l^1] {
			s.nFree[ci]--
			if s.nTrue[ci] > 0 {
				continue
			}
			switch s.nFree[ci] {
			case 0:
				ok = false
			case 1:
				for _, y := range s.clauses[ci] {
					if s.val[y>>1] < 0 {
						s.queue = append(s.queue, y)
						break
					}
				}
			}
		}
		if !ok {
			break
		}
	}
	s.queue = s.queue[:0]
	return ok
}

// mark returns the trail position, for undo.
func (s *unitState) mark() int { return len(s.trail) }

// undo unassigns every variable assigned since mark m.
func (s *unitState) undo(m int) {
	for len(s.trail) > m {
		v := s.trail[len(s.trail)-1]
		s.trail = s.trail[:len(s.trail)-1]
		l := 2 * v
		if s.val[v] == 0 {
			l++
		}
		for _, ci := range s.occ[l] {
			s.nTrue[ci]--
			s.nFree[ci]++
		}
		for _, ci := range s.occ[l^1] {
			s.nFree[ci]++
		}
		s.val[v] = -1
	}
}

// initial propagates the unit clauses of the formula; false on a conflict
// or an empty clause.
func (s *unitState) initial() bool {
	if s.empty {
		return false
	}
	for ci, cl := range s.clauses {
		if len(cl) == 1 && s.nTrue[ci] == 0 {
			s.queue = append(s.queue[:0], cl[0])
			if !s.propagate() {
				return false
			}
		}
	}
	return true
}

// free marks, in dst (len nv), the unassigned variables that occur in a
// clause not yet satisfied, and returns their number.
func (s *unitState) free(dst []bool) int {
	clear(dst)
	n := 0
	for ci, cl := range s.clauses {
		if s.nTrue[ci] > 0 {
			continue
		}
		for _, x := range cl {
			v := x >> 1
			if s.val[v] < 0 && !dst[v] {
				dst[v] = true
				n++
			}
		}
	}
	return n
}

// residual returns the formula left by the assignment: the clauses not yet
// satisfied, without their false literals, over the unassigned variables
// renumbered 1..m in order (unassigned variables in no such clause remain
// variables, each doubling the count). id[v] is the new number of variable
// v, 0 for assigned variables; from[k] is the index (in s.clauses) of
// residual clause k.
func (s *unitState) residual() (out *cnf.CNF, id, from []int32) {
	id = make([]int32, s.nv)
	m := int32(0)
	for v := range s.nv {
		if s.val[v] < 0 {
			m++
			id[v] = m
		}
	}
	out = &cnf.CNF{NumVars: int(m)}
	for ci, cl := range s.clauses {
		if s.nTrue[ci] > 0 {
			continue
		}
		r := make([]int32, 0, s.nFree[ci])
		for _, x := range cl {
			if s.val[x>>1] < 0 {
				y := id[x>>1]
				if x&1 == 1 {
					y = -y
				}
				r = append(r, y)
			}
		}
		out.Clauses = append(out.Clauses, r)
		from = append(from, int32(ci))
	}
	return out, id, from
}

// evidence writes the assignment as factor-graph evidence (-1 unassigned).
func (s *unitState) evidence(dst []int32) {
	for v, x := range s.val {
		dst[v] = int32(x)
	}
}
