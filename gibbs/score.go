package gibbs

import "math"

// scoreCounts keeps a Gibbs chain's log-score, Σ_f log φ_f(x), as counts:
// how many factors sit at each entry of each table. A grounding shares
// its tables among many factors (UW-CSE: 361,162 factors over a few
// hundred table entries), so after a sweep that changed a few variables
// only their factors' counts move, and the score is the sum over the
// entries in use of count × log entry, in table order. It is therefore a
// function of the counts alone: two worlds using the same entries as often
// (the same world revisited, or a symmetric one) get bit for bit the same
// score, as the diagnostics' ties need; a running float sum would drift
// between them. Recomputing the score factor by factor cost 40% of a
// sweep on UW-CSE.
type scoreCounts struct {
	tabOff []int   // per table: where its entries start in count
	count  []int64 // per table entry: the factors at it
	ent    []int32 // per factor: its entry in the world x0
	x0     []int32 // the world the counts are of
	mark   []uint32
	stamp  uint32
}

// useScoreCounts says whether counting pays: the tables' entries are
// fewer than a quarter of the factors.
func useScoreCounts(c *chain) bool {
	n := 0
	for t := range c.g.Tables {
		n += len(c.g.Tables[t].Values)
	}
	return 4*n < c.g.NumFactors()
}

func newScoreCounts(c *chain) *scoreCounts {
	g := c.g
	s := &scoreCounts{tabOff: make([]int, len(g.Tables)+1), ent: make([]int32, g.NumFactors()),
		x0: make([]int32, len(c.x)), mark: make([]uint32, g.NumFactors())}
	for t := range g.Tables {
		s.tabOff[t+1] = s.tabOff[t] + len(g.Tables[t].Values)
	}
	s.count = make([]int64, s.tabOff[len(g.Tables)])
	s.recount(c)
	return s
}

// recount sets the counts from the world c.x, factor by factor.
func (s *scoreCounts) recount(c *chain) {
	clear(s.count)
	for f := range s.ent {
		j := int32(c.entry(f, -1, 0))
		s.ent[f] = j
		s.count[s.tabOff[c.g.FactorTable[f]]+int(j)]++
	}
	copy(s.x0, c.x)
}

// update moves the counts to the world c.x: the factors of the variables
// that changed since the last update, each once; a recount when those
// factors are more than half of all.
func (s *scoreCounts) update(c *chain) {
	g := c.g
	var touched int64
	for v, xv := range c.x {
		if xv != s.x0[v] {
			touched += g.VarStart[v+1] - g.VarStart[v]
		}
	}
	if touched == 0 {
		return
	}
	if 2*touched > int64(len(s.ent)) {
		s.recount(c)
		return
	}
	s.stamp++
	if s.stamp == 0 {
		clear(s.mark)
		s.stamp = 1
	}
	for v, xv := range c.x {
		if xv == s.x0[v] {
			continue
		}
		s.x0[v] = xv
		for i := g.VarStart[v]; i < g.VarStart[v+1]; i++ {
			f := c.edgeF[i]
			if s.mark[f] == s.stamp {
				continue
			}
			s.mark[f] = s.stamp
			j := int32(c.entry(int(f), -1, 0))
			if old := s.ent[f]; j != old {
				base := s.tabOff[g.FactorTable[f]]
				s.count[base+int(old)]--
				s.count[base+int(j)]++
				s.ent[f] = j
			}
		}
	}
}

// score is Σ count × log entry over the entries in use, in table order
// (−Inf when a factor is at a zero entry).
func (s *scoreCounts) score(c *chain) float64 {
	sum := 0.0
	for t, lt := range c.logT {
		cs := s.count[s.tabOff[t]:s.tabOff[t+1]]
		for j, n := range cs {
			if n == 0 {
				continue
			}
			l := lt[j]
			if math.IsInf(l, -1) {
				return math.Inf(-1)
			}
			sum += float64(n) * l
		}
	}
	return sum
}
