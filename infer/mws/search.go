package mws

import (
	"math"
	"math/rand/v2"
)

// change sets variable v to state st; a move is one change, or two for a
// block move (one atom of the block false, another true).
type change struct{ v, st int32 }

// solver is the search state over a problem.
type solver struct {
	*problem
	x   []int32
	val []int32 // per factor: table entry (table factor) or true literals (count factor)
	// broken hard and soft factors: lists with positions (-1: not in).
	hardL, softL     []int32
	hardPos, softPos []int32
	soft             float64 // current soft cost
	blockTrue        []int32 // per block: its true member

	// scratch of moveDelta
	stamp   uint32
	mark    []uint32
	acc     []int32
	touched []int32
	cand    []change // candidate moves (pairs for block moves)
	candN   []int32  // changes per candidate (1, 2 for a block move, more for clearMove)
}

func newSolver(p *problem) *solver {
	nF := p.numFactors()
	s := &solver{problem: p, x: make([]int32, p.g.NumVars()), val: make([]int32, nF),
		hardPos: make([]int32, nF), softPos: make([]int32, nF),
		blockTrue: make([]int32, len(p.blockStart)-1), mark: make([]uint32, nF), acc: make([]int32, nF)}
	for v := range s.x {
		if p.ev[v] >= 0 {
			s.x[v] = p.ev[v]
		}
	}
	return s
}

// randomise draws a uniformly random world: random states for free
// variables outside blocks, one random true member per block (inert
// variables take state 0).
func (s *solver) randomise(rng *rand.Rand) {
	for v := range s.x {
		if s.searchable[v] && s.blockOf[v] < 0 {
			if s.inert[v] {
				s.x[v] = 0
			} else {
				s.x[v] = int32(rng.IntN(int(s.g.Card[v])))
			}
		}
	}
	for b := range s.blockTrue {
		m := s.blockVar[s.blockStart[b]:s.blockStart[b+1]]
		for _, v := range m {
			s.x[v] = 0
		}
		t := m[rng.IntN(len(m))]
		s.x[t] = 1
		s.blockTrue[b] = t
	}
}

// load sets the world to x (a world that keeps every block exactly one).
func (s *solver) load(x []int32) {
	copy(s.x, x)
	for b := range s.blockTrue {
		for _, v := range s.blockVar[s.blockStart[b]:s.blockStart[b+1]] {
			if s.x[v] == 1 {
				s.blockTrue[b] = v
			}
		}
	}
}

// costAt returns factor f's hardness and cost at value k.
func (s *solver) costAt(f int, k int32) (bool, float64) {
	if f >= s.nT && k > 2 {
		k = 2
	}
	i := s.off[f] + k
	return s.hard[i], s.cost[i]
}

// reset recomputes the values and broken lists from s.x.
func (s *solver) reset() {
	s.hardL, s.softL = s.hardL[:0], s.softL[:0]
	s.soft = 0
	g := s.g
	for f := range s.val {
		s.hardPos[f], s.softPos[f] = -1, -1
		if f < s.nT {
			gf := int(s.tfg[f])
			t := g.Table(gf)
			k := 0
			for q, v := range g.Scope(gf) {
				k = k*int(t.Dims[q]) + int(s.x[v])
			}
			s.val[f] = int32(k)
		} else {
			c := f - s.nT
			n := int32(0)
			for i := s.litStart[c]; i < s.litStart[c+1]; i++ {
				if s.x[s.litVar[i]] == s.litWant[i] {
					n++
				}
			}
			s.val[f] = n
		}
		if s.freeStart[f+1] > s.freeStart[f] {
			s.track(f)
		}
	}
}

func (s *solver) track(f int) {
	h, c := s.costAt(f, s.val[f])
	switch {
	case h:
		s.hardPos[f] = int32(len(s.hardL))
		s.hardL = append(s.hardL, int32(f))
	case c > 0:
		s.softPos[f] = int32(len(s.softL))
		s.softL = append(s.softL, int32(f))
		s.soft += c
	}
}

func (s *solver) untrack(f int) {
	if i := s.hardPos[f]; i >= 0 {
		last := s.hardL[len(s.hardL)-1]
		s.hardL[i], s.hardPos[last] = last, i
		s.hardL = s.hardL[:len(s.hardL)-1]
		s.hardPos[f] = -1
	}
	if i := s.softPos[f]; i >= 0 {
		last := s.softL[len(s.softL)-1]
		s.softL[i], s.softPos[last] = last, i
		s.softL = s.softL[:len(s.softL)-1]
		s.softPos[f] = -1
		_, c := s.costAt(f, s.val[f])
		s.soft -= c
	}
}

// dval is the change of factor f's value (adjacency entry e) when its
// variable v goes from state old to st.
func (s *solver) dval(f int, k, old, st int32) int32 {
	if f < s.nT {
		return (st - old) * k
	}
	var d int32
	if st == k {
		d++
	}
	if old == k {
		d--
	}
	return d
}

// delta returns the change in broken hard factors and soft cost of a move.
func (s *solver) delta(m []change) (int, float64) {
	dh, ds := 0, 0.0
	if len(m) == 1 {
		v, st := m[0].v, m[0].st
		old := s.x[v]
		for e := s.adjStart[v]; e < s.adjStart[v+1]; e++ {
			f := int(s.adjF[e])
			d := s.dval(f, s.adjK[e], old, st)
			if d == 0 {
				continue
			}
			h0, c0 := s.costAt(f, s.val[f])
			h1, c1 := s.costAt(f, s.val[f]+d)
			if h1 {
				dh++
			}
			if h0 {
				dh--
			}
			ds += c1 - c0
		}
		return dh, ds
	}
	s.stamp++
	if s.stamp == 0 {
		clear(s.mark)
		s.stamp = 1
	}
	s.touched = s.touched[:0]
	for _, ch := range m {
		old := s.x[ch.v]
		for e := s.adjStart[ch.v]; e < s.adjStart[ch.v+1]; e++ {
			f := s.adjF[e]
			if s.mark[f] != s.stamp {
				s.mark[f], s.acc[f] = s.stamp, 0
				s.touched = append(s.touched, f)
			}
			s.acc[f] += s.dval(int(f), s.adjK[e], old, ch.st)
		}
	}
	for _, f := range s.touched {
		d := s.acc[f]
		if d == 0 {
			continue
		}
		h0, c0 := s.costAt(int(f), s.val[f])
		h1, c1 := s.costAt(int(f), s.val[f]+d)
		if h1 {
			dh++
		}
		if h0 {
			dh--
		}
		ds += c1 - c0
	}
	return dh, ds
}

// apply makes a move.
func (s *solver) apply(m []change) {
	for _, ch := range m {
		v, st := ch.v, ch.st
		old := s.x[v]
		if old == st {
			continue
		}
		s.x[v] = st
		for e := s.adjStart[v]; e < s.adjStart[v+1]; e++ {
			f := int(s.adjF[e])
			d := s.dval(f, s.adjK[e], old, st)
			if d == 0 {
				continue
			}
			s.untrack(f)
			s.val[f] += d
			s.track(f)
		}
		if b := s.blockOf[v]; b >= 0 && st == 1 {
			s.blockTrue[b] = v
		}
	}
}

// moves appends the moves of variable v to s.cand/s.candN: every other
// state, or for a block member the block moves that involve it.
func (s *solver) moves(v int32) {
	if b := s.blockOf[v]; b >= 0 {
		if s.x[v] == 0 {
			s.cand = append(s.cand, change{v, 1}, change{s.blockTrue[b], 0})
			s.candN = append(s.candN, 2)
			return
		}
		for _, u := range s.blockVar[s.blockStart[b]:s.blockStart[b+1]] {
			if u != v {
				s.cand = append(s.cand, change{v, 0}, change{u, 1})
				s.candN = append(s.candN, 2)
			}
		}
		return
	}
	for st := range s.g.Card[v] {
		if st != s.x[v] {
			s.cand = append(s.cand, change{v, st})
			s.candN = append(s.candN, 1)
		}
	}
}

// clearMove appends, for a count factor whose cost is least with no true
// literal and that has some, the move that makes every literal false at
// once (as changing a first-true star's auxiliary variable to "none" and
// repairing its atoms would): one flip at a time, each step may cost more
// than it gains until the last. Block members are not moved this way.
func (s *solver) clearMove(f int) bool {
	if f < s.nT || s.val[f] == 0 {
		return false
	}
	o := s.off[f]
	cur := min(s.val[f], 2)
	if s.hard[o] || !(s.hard[o+cur] || s.cost[o] < s.cost[o+cur]) {
		return false
	}
	c := f - s.nT
	start := len(s.cand)
	for i := s.litStart[c]; i < s.litStart[c+1]; i++ {
		v := s.litVar[i]
		if s.x[v] != s.litWant[i] {
			continue
		}
		if s.blockOf[v] >= 0 || !s.searchable[v] || s.g.Card[v] != 2 {
			s.cand = s.cand[:start]
			return false
		}
		s.cand = append(s.cand, change{v, 1 - s.litWant[i]})
	}
	if n := len(s.cand) - start; n > 0 {
		s.candN = append(s.candN, int32(n))
		return true
	}
	s.cand = s.cand[:start]
	return false
}

// step repairs one broken factor (a hard one if any): with probability
// noise a random move of one of its variables, else the best move among
// its variables' moves (ties at random).
func (s *solver) step(rng *rand.Rand, noise float64) {
	var f int32
	if len(s.hardL) > 0 {
		f = s.hardL[rng.IntN(len(s.hardL))]
	} else {
		f = s.softL[rng.IntN(len(s.softL))]
	}
	free := s.freeVar[s.freeStart[f]:s.freeStart[f+1]]
	s.cand, s.candN = s.cand[:0], s.candN[:0]
	if rng.Float64() < noise {
		s.moves(free[rng.IntN(len(free))])
		if len(s.candN) == 0 {
			return
		}
		i := rng.IntN(len(s.candN))
		at := 0
		for _, n := range s.candN[:i] {
			at += int(n)
		}
		s.apply(s.cand[at : at+int(s.candN[i])])
		return
	}
	s.clearMove(int(f))
	for _, v := range free {
		s.moves(v)
	}
	best, bestAt := -1, 0
	bh, bs := 0, 0.0
	ties := 0
	at := 0
	for i, n := range s.candN {
		dh, ds := s.delta(s.cand[at : at+int(n)])
		switch {
		case best < 0 || better(dh, ds, bh, bs):
			best, bestAt, bh, bs, ties = i, at, dh, ds, 1
		case !better(bh, bs, dh, ds):
			ties++
			if rng.IntN(ties) == 0 {
				best, bestAt = i, at
			}
		}
		at += int(n)
	}
	if best >= 0 {
		s.apply(s.cand[bestAt : bestAt+int(s.candN[best])])
	}
}

// greedy makes improving one-variable (and block) moves until none
// improves the world: a local optimum.
func (s *solver) greedy() {
	for pass := 0; pass < 100; pass++ {
		improved := false
		for v := range s.x {
			if !s.searchable[v] || s.inert[v] {
				continue
			}
			s.cand, s.candN = s.cand[:0], s.candN[:0]
			s.moves(int32(v))
			at := 0
			bestAt, bestN := -1, int32(0)
			bh, bs := 0, -1e-9
			for _, n := range s.candN {
				if dh, ds := s.delta(s.cand[at : at+int(n)]); better(dh, ds, bh, bs) {
					bestAt, bestN, bh, bs = at, n, dh, ds
				}
				at += int(n)
			}
			if bestAt >= 0 {
				s.apply(s.cand[bestAt : bestAt+int(bestN)])
				improved = true
			}
		}
		if !improved {
			return
		}
	}
}

// costNow is the current (broken hard factors, soft cost).
func (s *solver) costNow() (int, float64) { return len(s.hardL), s.soft }

var _ = math.Inf
