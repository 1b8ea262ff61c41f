package gibbs

import "math"

// The running state of an MC-SAT chain (see Chain.MCSAT): per factor its
// current table index (cur, for the world curX), and per binary
// unobserved variable the number of its coupling factors whose entry its
// flip would lower (dec: 0 means the flip keeps every threshold), the log
// odds of its conditional over the factors finite at both its states
// (lodds) and the numbers of factors zero at its state 0 and 1 (z0, z1),
// and the log-score of the world (score). A move updates them from the
// factors of the moved variable and their other variables, so that a
// step costs what its moves touch, not the size of the graph.

// keeps reports whether variable v in state s keeps every coupling factor
// of v that the change lowers at its threshold (drawing the thresholds it
// reads; a factor that does not decrease stays above its threshold).
func (ch *Chain) keeps(v, s int32) bool {
	c := ch.c
	g := c.g
	d := s - c.x[v]
	lo, hi := c.factors(v)
	for i := lo; i < hi; i++ {
		f := c.edgeF[i]
		if !ch.coupling[f] {
			continue
		}
		vals := g.Tables[g.FactorTable[f]].Values
		now, next := vals[ch.cur[f]], vals[ch.cur[f]+d*c.edgeSt[i]]
		if next < now && ch.threshold(f) && next < ch.thr[f] {
			return false
		}
	}
	return true
}

// move sets variable v to state s and updates the running state; within
// a step (thresholds), it first draws the threshold of every coupling
// factor of v not drawn yet, at its entry before the move.
func (ch *Chain) move(v, s int32, thresholds bool) {
	c := ch.c
	g := c.g
	d := s - c.x[v]
	if d == 0 {
		return
	}
	lo, hi := c.factors(v)
	for i := lo; i < hi; i++ {
		f := c.edgeF[i]
		if thresholds && ch.coupling[f] {
			ch.threshold(f)
		}
		old := ch.cur[f]
		next := old + d*c.edgeSt[i]
		lt := c.logT[g.FactorTable[f]]
		ch.addScore(lt[old], -1)
		ch.addScore(lt[next], +1)
		if ch.coupling[f] {
			ch.others(f, v, old, -1)
			ch.cur[f] = next
			ch.others(f, v, next, +1)
		} else {
			ch.cur[f] = next
		}
	}
	c.x[v] = s
	ch.curX[v] = s
	if g.Card[v] == 2 {
		ch.dec[v] = 0
		for i := lo; i < hi; i++ {
			f := c.edgeF[i]
			if ch.coupling[f] && ch.lowers(f, ch.cur[f], c.edgeSt[i], s) {
				ch.dec[v]++
			}
		}
	}
}

// lowers reports whether flipping a binary variable of factor f, of
// stride st and state x, lowers f's entry from index j.
func (ch *Chain) lowers(f, j, st, x int32) bool {
	g := ch.c.g
	vals := g.Tables[g.FactorTable[f]].Values
	return vals[j+(1-2*x)*st] < vals[j]
}

// others adds (sign +1) or removes (−1) coupling factor f's share, at
// table index j, of the running state of its binary unobserved variables
// other than v.
func (ch *Chain) others(f int32, v int32, j int32, sign int) {
	c := ch.c
	g := c.g
	t := g.FactorTable[f]
	st := c.stride[t]
	lt := c.logT[t]
	for p, w := range g.Scope(int(f)) {
		if w == v || g.Card[w] != 2 || c.observed(w) {
			continue
		}
		sw := int32(st[p])
		xw := c.x[w]
		if ch.lowers(f, j, sw, xw) {
			ch.dec[w] += int32(sign)
		}
		b := j - xw*sw
		l0, l1 := lt[b], lt[b+sw]
		switch {
		case math.IsInf(l0, -1) || math.IsInf(l1, -1):
			if math.IsInf(l0, -1) {
				ch.z0[w] += int32(sign)
			}
			if math.IsInf(l1, -1) {
				ch.z1[w] += int32(sign)
			}
		default:
			ch.lodds[w] += float64(sign) * (l1 - l0)
		}
	}
}

// recompute sets the running state from the world x exactly.
func (ch *Chain) recompute() {
	c := ch.c
	g := c.g
	n := g.NumVars()
	if ch.cur == nil {
		ch.cur = make([]int32, g.NumFactors())
		ch.dec = make([]int32, n)
		ch.z0, ch.z1 = make([]int32, n), make([]int32, n)
		ch.lodds = make([]float64, n)
		ch.curX = make([]int32, n)
	}
	copy(ch.curX, c.x)
	ch.score, ch.zeros = 0, 0
	for f := range ch.cur {
		ch.cur[f] = int32(c.entry(f, -1, 0))
		ch.addScore(c.logT[g.FactorTable[f]][ch.cur[f]], +1)
	}
	clear(ch.dec)
	clear(ch.z0)
	clear(ch.z1)
	clear(ch.lodds)
	for v := range n {
		u := int32(v)
		if g.Card[v] != 2 || c.observed(u) {
			continue
		}
		lo, hi := c.factors(u)
		for i := lo; i < hi; i++ {
			f := c.edgeF[i]
			st := c.edgeSt[i]
			j := ch.cur[f]
			if ch.coupling[f] && ch.lowers(f, j, st, c.x[v]) {
				ch.dec[v]++
			}
			lt := c.logT[g.FactorTable[f]]
			b := j - c.x[v]*st
			l0, l1 := lt[b], lt[b+st]
			switch {
			case math.IsInf(l0, -1) || math.IsInf(l1, -1):
				if math.IsInf(l0, -1) {
					ch.z0[v]++
				}
				if math.IsInf(l1, -1) {
					ch.z1[v]++
				}
			default:
				ch.lodds[v] += l1 - l0
			}
		}
	}
}

// syncEntries brings the running state (made for the world curX) to the
// world x, which the caller may have changed between steps: one move per
// changed variable, or a recomputation when many changed.
func (ch *Chain) syncEntries() {
	c := ch.c
	ch.changed = ch.changed[:0]
	for v, s := range c.x {
		if s != ch.curX[v] {
			ch.changed = append(ch.changed, int32(v))
		}
	}
	if len(ch.changed) == 0 {
		return
	}
	if 8*len(ch.changed) > len(c.x) {
		ch.recompute()
		return
	}
	for _, v := range ch.changed {
		ch.newX = append(ch.newX, c.x[v])
		c.x[v] = ch.curX[v]
	}
	for i, v := range ch.changed {
		ch.move(v, ch.newX[i], false)
	}
	ch.newX = ch.newX[:0]
}

// syncBlock applies a block move's new states (set in x by setBlock, the
// running state still at curX) as moves, drawing the thresholds of the
// factors they change.
func (ch *Chain) syncBlock() {
	c := ch.c
	ch.newX = ch.newX[:0]
	for _, u := range ch.free {
		ch.newX = append(ch.newX, c.x[u])
		c.x[u] = ch.curX[u]
	}
	for i, u := range ch.free {
		ch.move(u, ch.newX[i], true)
	}
	ch.newX = ch.newX[:0]
}

// addScore adds (sign +1) or removes (−1) a factor's log entry l from the
// log-score, kept as the number of zero entries and the sum of the others
// (a block move's variables move one at a time, through worlds that may
// be zero).
func (ch *Chain) addScore(l float64, sign int) {
	if math.IsInf(l, -1) {
		ch.zeros += sign
		return
	}
	ch.score += float64(sign) * l
}
