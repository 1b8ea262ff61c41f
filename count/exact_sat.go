package count

// cdcl is the state of a satisfiability search over a solver's clauses:
// VSIDS variable activity, saved phases, Glucose-style restarts (when the
// recent learned clauses have a worse LBD than the average) and clause
// database reductions.
type cdcl struct {
	*solver
	heap  *varHeap
	inc   float64 // VSIDS increment
	phase []bool  // per variable: last value was false

	// restarts
	recent    ring    // LBDs of the last conflicts
	trailLens ring    // trail lengths at the last conflicts, for blocking
	lbdSum    float64 // sum of all LBDs
	nLBD      float64

	nextReduce, reduceInc int64
}

// ring is a fixed-size queue of recent values with their sum.
type ring struct {
	vals []float64
	next int
	full bool
	sum  float64
}

func newRing(n int) ring { return ring{vals: make([]float64, n)} }

func (r *ring) push(x float64) {
	if r.full {
		r.sum -= r.vals[r.next]
	}
	r.vals[r.next] = x
	r.sum += x
	r.next++
	if r.next == len(r.vals) {
		r.next, r.full = 0, true
	}
}

func (r *ring) mean() float64 { return r.sum / float64(len(r.vals)) }

func (r *ring) clear() { r.next, r.full, r.sum = 0, false, 0 }

// Glucose's restart parameters.
const (
	restartK     = 0.8  // restart when recent LBD mean × K > global mean
	blockR       = 1.4  // block a restart when the trail is this much longer than usual
	lbdWindow    = 50   // conflicts in the recent-LBD window
	trailWindow  = 5000 // conflicts in the trail-length window
	blockMinimum = 10000
)

// satisfiable decides the formula held by s with conflict-driven clause
// learning. It returns at level 0 with the learned clauses kept: they are
// implied by the formula, so the counting search may use them. check is
// called every 64 conflicts and stops the search when it returns an
// error.
func (s *solver) satisfiable(check func() error) (bool, error) {
	c := &cdcl{
		solver:     s,
		heap:       newVarHeap(s.nv),
		inc:        1,
		phase:      make([]bool, s.nv),
		recent:     newRing(lbdWindow),
		trailLens:  newRing(trailWindow),
		nextReduce: s.conflicts + 2000,
		reduceInc:  2000,
	}
	for v := range s.nv {
		c.phase[v] = true
		if s.val[2*v] == unknown {
			c.heap.push(int32(v))
		}
	}
	s.bump = c.bumpVar
	s.bumpClause = s.bumpClauseActivity
	defer func() { s.bump, s.bumpClause = nil, nil }()
	return c.search(check)
}

func (c *cdcl) search(check func() error) (bool, error) {
	for {
		if !c.propagate() {
			if c.decisionLevel() == 0 {
				return false, nil
			}
			c.resolve()
			if c.conflicts%64 == 0 {
				if err := check(); err != nil {
					c.undo(0)
					return false, err
				}
			}
			continue
		}
		if c.recent.full && c.recent.mean()*restartK > c.lbdSum/c.nLBD {
			c.recent.clear()
			c.undo(0)
		}
		if c.conflicts >= c.nextReduce {
			c.reduceLearnts()
			c.reduceInc += 300
			c.nextReduce = c.conflicts + c.reduceInc
		}
		l, ok := c.decide()
		if !ok {
			c.undo(0)
			return true, nil
		}
		c.newLevel()
		c.assign(l, noReason)
	}
}

// resolve learns from the current conflict, backjumps and asserts the
// learned clause.
func (c *cdcl) resolve() {
	trailLen := float64(len(c.trail))
	bt := c.analyze()
	lbd := float64(c.lbd(c.learnt))
	c.undo(bt)
	if len(c.learnt) == 1 {
		c.assign(c.learnt[0], noReason)
	} else {
		c.assign(c.learnt[0], c.learn())
	}
	c.inc /= 0.95
	c.clauseInc /= 0.999

	c.trailLens.push(trailLen)
	if c.conflicts > blockMinimum && c.recent.full && c.trailLens.full && trailLen > blockR*c.trailLens.mean() {
		c.recent.clear() // the search seems close to a model: no restart
	}
	c.recent.push(lbd)
	c.lbdSum += lbd
	c.nLBD++
}

// decide picks the most active unassigned variable with its saved phase.
func (c *cdcl) decide() (lit, bool) {
	for c.heap.len() > 0 {
		v := c.heap.pop()
		if c.val[2*v] == unknown {
			l := lit(2 * v)
			if c.phase[v] {
				l |= 1
			}
			return l, true
		}
	}
	return litUndef, false
}

// undo backtracks to level lvl, saving phases and returning the variables
// to the heap.
func (c *cdcl) undo(lvl int) {
	if len(c.lim) <= lvl {
		return
	}
	for _, l := range c.trail[c.lim[lvl]:] {
		v := l.variable()
		c.phase[v] = l&1 == 1
		c.heap.push(v)
	}
	c.backtrack(lvl)
}

func (c *cdcl) bumpVar(l lit) {
	v := l.variable()
	act := c.heap.act
	act[v] += c.inc
	if act[v] > 1e100 {
		for i := range act {
			act[i] *= 1e-100
		}
		c.inc *= 1e-100
	}
	c.heap.update(v)
}

// varHeap is a binary max-heap of variables ordered by activity.
type varHeap struct {
	act  []float64
	heap []int32
	pos  []int32 // index in heap, -1 if absent
}

func newVarHeap(n int) *varHeap {
	h := &varHeap{act: make([]float64, n), pos: make([]int32, n)}
	for i := range h.pos {
		h.pos[i] = -1
	}
	return h
}

func (h *varHeap) len() int { return len(h.heap) }

func (h *varHeap) less(a, b int32) bool { return h.act[a] > h.act[b] }

func (h *varHeap) push(v int32) {
	if h.pos[v] >= 0 {
		return
	}
	h.pos[v] = int32(len(h.heap))
	h.heap = append(h.heap, v)
	h.up(int(h.pos[v]))
}

func (h *varHeap) pop() int32 {
	v := h.heap[0]
	last := h.heap[len(h.heap)-1]
	h.heap = h.heap[:len(h.heap)-1]
	h.pos[v] = -1
	if len(h.heap) > 0 {
		h.heap[0] = last
		h.pos[last] = 0
		h.down(0)
	}
	return v
}

// update restores the heap after v's activity grew.
func (h *varHeap) update(v int32) {
	if p := h.pos[v]; p >= 0 {
		h.up(int(p))
	}
}

func (h *varHeap) up(i int) {
	v := h.heap[i]
	for i > 0 {
		p := (i - 1) / 2
		if !h.less(v, h.heap[p]) {
			break
		}
		h.heap[i] = h.heap[p]
		h.pos[h.heap[i]] = int32(i)
		i = p
	}
	h.heap[i] = v
	h.pos[v] = int32(i)
}

func (h *varHeap) down(i int) {
	v := h.heap[i]
	n := len(h.heap)
	for {
		c := 2*i + 1
		if c >= n {
			break
		}
		if c+1 < n && h.less(h.heap[c+1], h.heap[c]) {
			c++
		}
		if !h.less(h.heap[c], v) {
			break
		}
		h.heap[i] = h.heap[c]
		h.pos[h.heap[i]] = int32(i)
		i = c
	}
	h.heap[i] = v
	h.pos[v] = int32(i)
}
