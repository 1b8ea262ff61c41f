package mcmc

import (
	"math"
	"math/rand/v2"

	"github.com/lifted-dev/lifted/fg"
)

// moves holds what the cluster moves read of a graph: per factor its table's
// log entries and strides, per variable its factors, which variables are
// free binary ones (unobserved, two states: the ones cluster moves flip),
// and, per factor, its Ising coupling when it is one (two free binary
// variables, every entry positive): J with log φ(a, b) = J·sₐ·s_b + (terms
// of a alone and of b alone), s = 2x − 1.
type moves struct {
	g      *fg.Graph
	logT   [][]float64
	stride [][]int
	fOf    []int32 // per edge: its factor
	free   []bool  // per variable: unobserved and binary
	ising  []bool  // per factor: an Ising coupling of two free binary variables
	coup   []float64
	// scratch
	mark    []uint32 // per variable: the stamp of the cluster holding it
	fmark   []uint32 // per factor: the stamp of the last sum over it
	stamp   uint32
	stack   []int32
	cluster []int32
	facs    []int32
	// swap moves: factors with a zero entry, the free binary variables in
	// them (per variable and as a list)
	hardFac, hardVar []bool
	hardList         []int32
	// Swendsen–Wang scratch: union-find over variables and per root its
	// cluster's members
	parent []int32
	root   []int32
	memb   [][]int32
}

func newMoves(g *fg.Graph, ev fg.Evidence) *moves {
	m := &moves{g: g, logT: make([][]float64, len(g.Tables)), stride: make([][]int, len(g.Tables)),
		fOf: g.EdgeFactors(), free: make([]bool, g.NumVars()), ising: make([]bool, g.NumFactors()),
		coup: make([]float64, g.NumFactors()), mark: make([]uint32, g.NumVars()), fmark: make([]uint32, g.NumFactors())}
	for t, tb := range g.Tables {
		m.stride[t] = tb.Strides()
		m.logT[t] = make([]float64, len(tb.Values))
		for i, v := range tb.Values {
			m.logT[t][i] = math.Log(v)
		}
	}
	for v := range m.free {
		m.free[v] = g.Card[v] == 2 && (ev == nil || ev[v] < 0)
	}
	for f := range g.NumFactors() {
		sc := g.Scope(f)
		if len(sc) != 2 || sc[0] == sc[1] || !m.free[sc[0]] || !m.free[sc[1]] {
			continue
		}
		l := m.logT[g.FactorTable[f]]
		if math.IsInf(l[0], -1) || math.IsInf(l[1], -1) || math.IsInf(l[2], -1) || math.IsInf(l[3], -1) {
			continue
		}
		m.ising[f] = true
		m.coup[f] = (l[0] + l[3] - l[1] - l[2]) / 4
	}
	return m
}

// hasFree reports whether some variable is free binary.
func (m *moves) hasFree() bool {
	for _, b := range m.free {
		if b {
			return true
		}
	}
	return false
}

// entry returns factor f's log entry at world x.
func (m *moves) entry(f int32, x []int32) float64 {
	t := m.g.FactorTable[f]
	st := m.stride[t]
	j := 0
	for p, u := range m.g.Scope(int(f)) {
		j += st[p] * int(x[u])
	}
	return m.logT[t][j]
}

// next starts a new stamp for mark and fmark.
func (m *moves) next() {
	m.stamp++
	if m.stamp == 0 {
		clear(m.mark)
		clear(m.fmark)
		m.stamp = 1
	}
}

// touching collects into m.facs the factors of the variables of m.cluster
// (each once).
func (m *moves) touching() {
	m.facs = m.facs[:0]
	g := m.g
	for _, v := range m.cluster {
		for i := g.VarStart[v]; i < g.VarStart[v+1]; i++ {
			f := m.fOf[g.VarEdges[i]]
			if m.fmark[f] != m.stamp {
				m.fmark[f] = m.stamp
				m.facs = append(m.facs, f)
			}
		}
	}
}

// houdayer is one cluster exchange between two worlds xa, xb of the same
// distribution p(x) ∝ Π_f φ_f(x)^β (Houdayer 2001): a free binary variable
// on which they differ is drawn uniformly, its cluster is the connected
// set (through shared factors) of free binary variables on which they
// differ, and the two worlds exchange their states there, accepted with
// probability min(1, p(xa')p(xb')/(p(xa)p(xb))). The set of differing
// variables and the cluster are the same after the exchange, so the
// proposal is symmetric and p×p is invariant. For Ising factors and unit
// factors the ratio is exactly 1 (on the cluster xa = 1 − xb, and its
// neighbours agree), so the move is always accepted there; other factors
// are weighed. It reports whether the worlds changed.
func (m *moves) houdayer(rng *rand.Rand, xa, xb []int32, beta float64) bool {
	// draw a differing variable uniformly by a reservoir over the free ones
	seed, n := int32(-1), 0
	for v, f := range m.free {
		if f && xa[v] != xb[v] {
			n++
			if rng.IntN(n) == 0 {
				seed = int32(v)
			}
		}
	}
	if seed < 0 {
		return false
	}
	g := m.g
	m.next()
	m.cluster = append(m.cluster[:0], seed)
	m.mark[seed] = m.stamp
	m.stack = append(m.stack[:0], seed)
	for len(m.stack) > 0 {
		v := m.stack[len(m.stack)-1]
		m.stack = m.stack[:len(m.stack)-1]
		for i := g.VarStart[v]; i < g.VarStart[v+1]; i++ {
			for _, u := range g.Scope(int(m.fOf[g.VarEdges[i]])) {
				if m.free[u] && m.mark[u] != m.stamp && xa[u] != xb[u] {
					m.mark[u] = m.stamp
					m.cluster = append(m.cluster, u)
					m.stack = append(m.stack, u)
				}
			}
		}
	}
	m.touching()
	before := 0.0
	for _, f := range m.facs {
		if !m.ising[f] {
			before += m.entry(f, xa) + m.entry(f, xb)
		}
	}
	for _, v := range m.cluster {
		xa[v], xb[v] = xb[v], xa[v]
	}
	after := 0.0
	for _, f := range m.facs {
		if !m.ising[f] {
			after += m.entry(f, xa) + m.entry(f, xb)
		}
	}
	a := beta * (after - before)
	if a >= 0 || rng.Float64() < math.Exp(a) {
		return true
	}
	for _, v := range m.cluster {
		xa[v], xb[v] = xb[v], xa[v]
	}
	return false
}

func (m *moves) find(v int32) int32 {
	for m.parent[v] != v {
		m.parent[v] = m.parent[m.parent[v]]
		v = m.parent[v]
	}
	return v
}

// swendsenWang is one Swendsen–Wang step (Swendsen and Wang 1987, in the
// Fortuin–Kasteleyn form, generalised to any sign of coupling and to any
// other factors) on x for p(x) ∝ Π_f φ_f(x)^β: every Ising factor whose
// coupling J the current state satisfies (J > 0 and equal states, J < 0
// and different ones) is bonded with probability 1 − exp(−2β|J|); the
// free binary variables that bonds join are clusters; then each cluster,
// in turn, is flipped as a whole by a heat-bath draw on the rest of the
// model: every factor that is not an Ising coupling, and of each Ising
// factor its unit terms only (log φ − J·sₐ·s_b). Given the bonds the
// state is uniform over the worlds that keep every bond satisfied times
// that rest, so the cluster draws are Gibbs steps of the joint
// distribution of states and bonds, whose marginal on states is p.
// It returns the number of clusters.
func (m *moves) swendsenWang(rng *rand.Rand, x []int32, beta float64) int {
	g := m.g
	nv := g.NumVars()
	if m.parent == nil {
		m.parent = make([]int32, nv)
		m.root = make([]int32, nv)
	}
	for v := range m.parent {
		m.parent[v] = int32(v)
	}
	for f := range m.ising {
		if !m.ising[f] {
			continue
		}
		sc := g.Scope(f)
		j := m.coup[f]
		same := x[sc[0]] == x[sc[1]]
		if j == 0 || (j > 0) != same {
			continue
		}
		if rng.Float64() < -math.Expm1(-2*beta*math.Abs(j)) {
			a, b := m.find(sc[0]), m.find(sc[1])
			if a != b {
				m.parent[a] = b
			}
		}
	}
	// clusters in order of their first variable
	for v := range m.root {
		m.root[v] = -1
	}
	m.memb = m.memb[:0]
	for v := range nv {
		if !m.free[v] {
			continue
		}
		r := m.find(int32(v))
		if m.root[r] < 0 {
			m.root[r] = int32(len(m.memb))
			if len(m.memb) < cap(m.memb) {
				m.memb = m.memb[:len(m.memb)+1]
				m.memb[len(m.memb)-1] = m.memb[len(m.memb)-1][:0]
			} else {
				m.memb = append(m.memb, nil)
			}
		}
		k := m.root[r]
		m.memb[k] = append(m.memb[k], int32(v))
	}
	for _, cl := range m.memb {
		m.next()
		m.cluster = cl
		m.touching()
		now := m.rest(x)
		for _, v := range cl {
			x[v] = 1 - x[v]
		}
		flipped := m.rest(x)
		// heat bath: flip with probability σ(β(flipped − now))
		d := beta * (flipped - now)
		var pf float64
		switch {
		case math.IsNaN(d) || math.IsInf(d, -1):
			pf = 0
		case math.IsInf(d, 1):
			pf = 1
		default:
			pf = 1 / (1 + math.Exp(-d))
		}
		if rng.Float64() >= pf {
			for _, v := range cl {
				x[v] = 1 - x[v]
			}
		}
	}
	m.cluster = nil
	return len(m.memb)
}

// rest sums over m.facs the log entries at x of the factors that are not
// Ising couplings and, of the Ising ones, their unit terms (log φ − J·s·s):
// −Inf when some factor is zero.
func (m *moves) rest(x []int32) float64 {
	s := 0.0
	for _, f := range m.facs {
		l := m.entry(f, x)
		if m.ising[f] {
			sc := m.g.Scope(int(f))
			if x[sc[0]] == x[sc[1]] {
				l -= m.coup[f]
			} else {
				l += m.coup[f]
			}
		}
		s += l
	}
	return s
}

// prepareSwaps marks the variables the swap move may flip: free binary
// variables in some factor with a zero entry (a hard constraint).
func (m *moves) prepareSwaps() {
	if m.hardVar != nil {
		return
	}
	g := m.g
	m.hardFac = make([]bool, g.NumFactors())
	m.hardVar = make([]bool, g.NumVars())
	for f := range g.NumFactors() {
		for _, v := range g.Table(f).Values {
			if v == 0 {
				m.hardFac[f] = true
				break
			}
		}
		if m.hardFac[f] {
			for _, v := range g.Scope(f) {
				if m.free[v] {
					m.hardVar[v] = true
				}
			}
		}
	}
	for v, h := range m.hardVar {
		if h {
			m.hardList = append(m.hardList, int32(v))
		}
	}
}

// partners collects into m.stack the variables of hard factors shared by
// u and w that are in state 0 and may be swapped (u, w excluded).
func (m *moves) partners(x []int32, u, w int32) {
	g := m.g
	if m.stamp >= math.MaxUint32-4 {
		clear(m.mark)
		clear(m.fmark)
		m.stamp = 0
	}
	m.stamp++
	for i := g.VarStart[u]; i < g.VarStart[u+1]; i++ {
		f := m.fOf[g.VarEdges[i]]
		if m.hardFac[f] {
			for _, v := range g.Scope(int(f)) {
				m.mark[v] = m.stamp
			}
		}
	}
	m.stamp++ // a second stamp: added already
	m.stack = m.stack[:0]
	for i := g.VarStart[w]; i < g.VarStart[w+1]; i++ {
		f := m.fOf[g.VarEdges[i]]
		if !m.hardFac[f] {
			continue
		}
		for _, v := range g.Scope(int(f)) {
			if m.mark[v] == m.stamp-1 && v != u && v != w && m.hardVar[v] && x[v] == 0 {
				m.mark[v] = m.stamp
				m.stack = append(m.stack, v)
			}
		}
	}
	m.stamp++
}

// swap is one Metropolis–Hastings partner swap for hard constraints of the
// assignment kind (exactly one per row and per column; matchings whose
// units are single atoms), which single flips can never leave: two true
// constrained variables a, b are drawn, then two false ones c, d among
// those that share a hard factor with both (p(r₁,c₂) and p(r₂,c₁) for a
// = p(r₁,c₁), b = p(r₂,c₂)), and the four flip together, accepted with
// probability min(1, p(x')/p(x) · C(|S|,2)/C(|S'|,2)), S and S' the
// candidate sets before and after (the Hastings correction of the
// reverse draw, which picks c, d and then a, b). It reports whether the
// world changed.
func (m *moves) swap(rng *rand.Rand, x []int32, beta float64) bool {
	m.prepareSwaps()
	m.cluster = m.cluster[:0]
	for _, v := range m.hardList {
		if x[v] == 1 {
			m.cluster = append(m.cluster, v)
		}
	}
	T := len(m.cluster)
	if T < 2 {
		return false
	}
	i := rng.IntN(T)
	j := rng.IntN(T - 1)
	if j >= i {
		j++
	}
	a, b := m.cluster[i], m.cluster[j]
	m.partners(x, a, b)
	S := len(m.stack)
	if S < 2 {
		return false
	}
	k := rng.IntN(S)
	l := rng.IntN(S - 1)
	if l >= k {
		l++
	}
	c, d := m.stack[k], m.stack[l]
	quad := [4]int32{a, b, c, d}
	m.cluster = append(m.cluster[:0], quad[:]...)
	m.next()
	m.touching()
	before := 0.0
	for _, f := range m.facs {
		before += m.entry(f, x)
	}
	for _, v := range quad {
		x[v] = 1 - x[v]
	}
	after := 0.0
	for _, f := range m.facs {
		after += m.entry(f, x)
	}
	if math.IsInf(after, -1) {
		for _, v := range quad {
			x[v] = 1 - x[v]
		}
		return false
	}
	m.partners(x, c, d)
	S2 := len(m.stack)
	a0 := beta*(after-before) + math.Log(float64(S*(S-1))) - math.Log(float64(S2*(S2-1)))
	if a0 >= 0 || rng.Float64() < math.Exp(a0) {
		return true
	}
	for _, v := range quad {
		x[v] = 1 - x[v]
	}
	return false
}
