package wfomc

import (
	"container/heap"
	"math"
)

// Certified window summation of the outermost cell count (issue 26).
//
// When a plan has a single explicit class c (friends-and-smokers and most
// FO2 models after merging and collapsing), the sum is Σ_{k=0}^{R} T(k) with
//
//	T(k) = start·C(R,k)·w_c^k·d^C(k,2)·Π_h W_h(k)^m_h·i_h^C(m_h,2)·Π x_hh'^(m_h·m_h')
//
// where m_h = R − k for c's group and the group size otherwise, and
// W_h(k) = Σ_{i in h's collapsed set} a_i·b_i^k. At large R the mass of this
// sum sits in a few terms (or O(√R) of them): log T is dominated by a
// quadratic in k. Summing only those terms is exact to double precision if
// the rest is certified negligible, which is what this file does.
//
// The bound. Let T̂(k) ≥ |T(k)| be T(k) with every number replaced by its
// absolute value and W_h by Ŵ_h(k) = Σ|a_i|·|b_i|^k (equal to |T| when no
// W_h mixes signs). On an interval [a, b] of k, with h = b − a and j = k − a:
//   - log C(R,k) is concave on the integers (its forward difference
//     D(k) = log((R−k)/(k+1)) decreases), so log C(R,k) ≤ log C(R,a) + j·D(a)
//     and ≤ log C(R,b) − (b−k)·D(b−1) for every k;
//   - V_h(k) = log Ŵ_h(k) is a log-sum-exp of affine functions of k, hence
//     convex, so V_h(k) ≤ its chord between a and b; it is multiplied by
//     m_h ≥ 0;
//   - everything else is an exact polynomial of degree ≤ 2 in k.
//
// So log T̂(a+j) ≤ log T̂(a) + α·j + β·j² (and the mirror image from b), with
// β = (log|d| + log|i_c|)/2 − (V_c(b) − V_c(a))/h and α fixed by the values
// at a and b, and Σ_j e^(αj+βj²) has closed-form upper bounds (geometric
// series, chord of a convex exponent, or (h+1)·max). Interval bounds are
// refined best-first (the interval with the largest bound is split, or
// summed exactly when short) until the bounds of all intervals left out add
// up to at most ε·Σ|T| of the terms summed, ε = 2^-60/(1+G), where G bounds
// the gradient of log T̂ (products of exponents ≤ (R+M+1)² and the weights'
// gradients), so that the expected counts, ∇Z/Z, are as certified as Z
// (an absolute error below 2^-60 relative to Σ|T|). The logs are carried in
// double-double as the terms are, and every bound carries a margin of
// 0.01 plus 1e-12 of its magnitude for the rounding of log-factorials (Lgamma
// beyond the table) and of the bound's own arithmetic.
//
// This is a proof for every shape of the terms, unimodal or not: a second
// mode is simply an interval whose bound stays large and gets refined. When
// the refinement would touch more than a fraction of the terms (flat or
// many-modal sums), or a number involved is zero (hard constraints make
// terms vanish and zero-valued weights carry gradients the bound does not
// see), the plain sum over all terms runs instead.

// windowMinTerms is the smallest outermost range (R+1 values) summed by the
// certified window; below it the plain sum is as fast. A variable so that
// tests can run the window on small domains.
var windowMinTerms int64 = 1 << 13

// windowMaxDiv: the window gives up (and the plain sum runs) once it has
// summed more than R/windowMaxDiv terms (a flat or many-modal sum).
var windowMaxDiv int64 = 4

// windowLeaf is the length of an interval summed term by term.
const windowLeaf = 64

// dd is a double-double log.
type dd struct{ hi, lo float64 }

// sub returns x − y as one float64.
func (x dd) sub(y dd) float64 { return (x.hi - y.hi) + (x.lo - y.lo) }

// windowModel evaluates T̂ for one case with a single explicit class.
type windowModel struct {
	s      *sumState
	c, g0  int
	R      int64
	sizes  []int64
	start  lnum // |start|, no gradient
	wc, dg lnum // |w_c|, |d|
	logB   float64
	logI   float64 // log|d|, log|i_c|
	// per group with a collapsed set that can be non-empty
	grp []windowGroup
	wac *acc
	tmp lnum
	x   lnum
	wv  lnum
	// logEps is log ε (relative tail allowed).
	logEps float64
}

type windowGroup struct {
	g     int
	a, b  []lnum // |lw0_i|, |pair(c,i)|
	inner lnum
	cross []windowCross
}

type windowCross struct {
	h int
	x lnum
}

func absNoGrad(y *lnum) lnum { return lnum{s: 1, l: y.l, lo: y.lo} }

// newWindowModel returns nil when the certificate's preconditions do not
// hold (then the plain sum runs).
func newWindowModel(s *sumState, start lnum, classW []lnum, sizes []int64) *windowModel {
	p := s.p
	if len(p.explicit) != 1 {
		return nil
	}
	c := p.explicit[0]
	g0 := p.classGrp[c]
	if len(p.collapsed[g0]) == 0 || p.fixedGrp[g0] {
		return nil
	}
	var norm float64 // Σ of the gradients' L1 norms of every number used
	ok := true
	use := func(y *lnum) lnum {
		if y.s == 0 {
			ok = false
		}
		for _, v := range y.g {
			norm += math.Abs(v)
		}
		return absNoGrad(y)
	}
	m := &windowModel{s: s, c: c, g0: g0, R: sizes[g0], sizes: sizes, wac: newAcc(0)}
	m.start = use(&start)
	m.wc = use(&classW[c])
	m.dg = use(&s.vals[p.pairOf(s.cs, c, c)])
	occ := 3.0
	for g, set := range p.collapsed {
		if p.fixedGrp[g] || (g != g0 && sizes[g] == 0) {
			continue
		}
		if len(set) == 0 {
			return nil // elements with no class: every term is zero
		}
		wg := windowGroup{g: g}
		for _, i := range set {
			wg.a = append(wg.a, use(&classW[i]))
			wg.b = append(wg.b, use(&s.vals[p.pairOf(s.cs, c, i)]))
			occ += 2
		}
		wg.inner = use(&s.vals[p.inner[g]])
		occ++
		for _, h := range m.grp {
			if p.cross[g][h.g] >= 0 {
				wg.cross = append(wg.cross, windowCross{h: h.g, x: use(&s.vals[p.cross[g][h.g]])})
				occ++
			}
		}
		m.grp = append(m.grp, wg)
	}
	if !ok {
		return nil
	}
	m.logB = m.dg.logValue()
	for _, wg := range m.grp {
		if wg.g == g0 {
			m.logI = wg.inner.logValue()
		}
	}
	tot := float64(m.R) + 1
	for _, sz := range sizes {
		tot += float64(sz)
	}
	// |∇T| ≤ T̂·G with G ≤ occ·norm·tot² (every exponent is at most tot²).
	m.logEps = -60*math.Ln2 - math.Log1p(occ*norm*tot*tot)
	m.tmp, m.x, m.wv = lnum{}, lnum{}, lnum{}
	return m
}

func (m *windowModel) rem(g int, k int64) int64 {
	if g == m.g0 {
		return m.R - k
	}
	return m.sizes[g]
}

// hat returns log T̂(k) and V_c(k) = log Ŵ_c(k), both double-double.
func (m *windowModel) hat(k int64) (f, v dd) {
	x := &m.x
	x.copyFrom(&m.start)
	x.addLog(logBinom(m.s.lf, m.R, k))
	x.mulPow(&m.wc, k)
	x.mulPow(&m.dg, k*(k-1)/2)
	for _, wg := range m.grp {
		mm := m.rem(wg.g, k)
		m.wac.reset()
		for i := range wg.a {
			m.tmp.copyFrom(&wg.a[i])
			m.tmp.mulPow(&wg.b[i], k)
			m.wac.add(&m.tmp)
		}
		m.wac.result(&m.wv)
		if wg.g == m.g0 {
			v = dd{m.wv.l, m.wv.lo}
		}
		if mm == 0 {
			continue
		}
		x.mulPow(&m.wv, mm)
		x.mulPow(&wg.inner, mm*(mm-1)/2)
		for _, cr := range wg.cross {
			if mh := m.rem(cr.h, k); mh > 0 {
				x.mulPow(&cr.x, mm*mh)
			}
		}
	}
	return dd{x.l, x.lo}, v
}

// interval is a range of k left to sum, with T̂ and V_c at its ends and the
// log of an upper bound of Σ_{k=a}^{b} T̂(k).
type interval struct {
	a, b   int64
	fa, fb dd
	va, vb dd
	bound  dd
}

// geoBound returns the log of an upper bound of Σ_{j=0}^{h} e^(α·j + β·j²).
func geoBound(alpha, beta float64, h int64) float64 {
	fh := float64(h)
	end := alpha*fh + beta*fh*fh
	mx := math.Max(0, end)
	if beta < 0 {
		if v := -alpha / (2 * beta); v > 0 && v < fh {
			mx = math.Max(mx, -alpha*alpha/(4*beta))
		}
	}
	best := math.Log(fh+1) + mx
	// A convex exponent (β ≥ 0) lies below its chord γ·j, γ = α + β·h; a
	// concave one (β ≤ 0) below its tangent α·j at 0.
	gamma := alpha
	if beta >= 0 {
		gamma = alpha + beta*fh
	}
	switch {
	case gamma < 0:
		best = math.Min(best, -math.Log(-math.Expm1(gamma)))
	case gamma > 0:
		best = math.Min(best, gamma*fh-math.Log(-math.Expm1(-gamma)))
	}
	return best
}

// bound sets iv.bound.
func (m *windowModel) bound(iv *interval) {
	h := iv.b - iv.a
	if h == 0 {
		iv.bound = iv.fa
		return
	}
	fh := float64(h)
	lf := m.s.lf
	ca, cb := logBinom(lf, m.R, iv.a), logBinom(lf, m.R, iv.b)
	delta := iv.fb.sub(iv.fa) - (cb - ca)
	slope := iv.vb.sub(iv.va) / fh
	beta := (m.logB+m.logI)/2 - slope
	da := math.Log(float64(m.R-iv.a)) - math.Log(float64(iv.a+1))
	db := math.Log(float64(m.R-iv.b+1)) - math.Log(float64(iv.b))
	alphaA := da + delta/fh - beta*fh
	alphaB := -db - delta/fh - beta*fh
	mag := (math.Abs(da)+math.Abs(db)+math.Abs(beta)*fh*2)*fh + math.Abs(delta) + math.Abs(slope)*fh
	margin := 0.01 + 1e-12*mag
	ba := dd{iv.fa.hi, iv.fa.lo + geoBound(alphaA, beta, h) + margin}
	bb := dd{iv.fb.hi, iv.fb.lo + geoBound(alphaB, beta, h) + margin}
	if bb.sub(ba) < 0 {
		ba = bb
	}
	if math.IsNaN(ba.hi) || math.IsNaN(ba.lo) {
		ba = dd{math.Inf(1), 0}
	}
	iv.bound = ba
}

func (m *windowModel) newInterval(a, b int64, fa, va, fb, vb dd) *interval {
	iv := &interval{a: a, b: b, fa: fa, fb: fb, va: va, vb: vb}
	m.bound(iv)
	return iv
}

type intervalHeap []*interval

func (q intervalHeap) Len() int           { return len(q) }
func (q intervalHeap) Less(i, j int) bool { return q[i].bound.sub(q[j].bound) > 0 }
func (q intervalHeap) Swap(i, j int)      { q[i], q[j] = q[j], q[i] }
func (q *intervalHeap) Push(x any)        { *q = append(*q, x.(*interval)) }
func (q *intervalHeap) Pop() any {
	old := *q
	x := old[len(old)-1]
	*q = old[:len(old)-1]
	return x
}

// absLog returns log(Σ|terms|) of what a holds (positive and negative
// parts; −Inf when empty).
func (a *acc) absLog() dd {
	hasP, hasN := a.pos.s > 0, a.neg.s > 0
	switch {
	case hasP && hasN:
		ph, pl := a.pos.logSum()
		nh, nl := a.neg.logSum()
		d := (ph - nh) + (pl - nl)
		if d >= 0 {
			return dd{ph, pl + math.Log1p(math.Exp(-d))}
		}
		return dd{nh, nl + math.Log1p(math.Exp(d))}
	case hasP:
		h, l := a.pos.logSum()
		return dd{h, l}
	case hasN:
		h, l := a.neg.logSum()
		return dd{h, l}
	}
	return dd{math.Inf(-1), 0}
}

// windowStats records what the last certified window did (tests and
// benchmarks read it).
type windowStats struct {
	tried    bool  // the preconditions held and the window ran
	used     bool  // the window answered (false: plain sum)
	terms    int64 // terms summed exactly
	nodes    int   // intervals bounded
	leftOut  int   // intervals left out at the end
	logRatio float64
}

// sumWindow sums the case's terms into s.acc by the certified window. It
// returns false (s.acc then holds garbage, and the plain sum must run) when
// the certificate is out of reach.
func (m *windowModel) sumWindow(st *windowStats) bool {
	s := m.s
	R := m.R
	f0, v0 := m.hat(0)
	fR, vR := m.hat(R)
	q := &intervalHeap{m.newInterval(0, R, f0, v0, fR, vR)}
	st.tried = true
	maxTerms := max(R/windowMaxDiv, 4*windowLeaf)
	maxNodes := 1 << 16
	nodes := 1
	for q.Len() > 0 {
		top := (*q)[0]
		sum := s.acc.absLog()
		// Everything left out is at most len·max bound.
		if !math.IsInf(sum.hi, -1) {
			if top.bound.sub(sum)+math.Log(float64(q.Len())) <= m.logEps {
				break
			}
		}
		heap.Pop(q)
		if top.b-top.a+1 <= windowLeaf {
			s.level(0, top.a, top.b)
			if s.err != nil {
				return false
			}
			st.terms += top.b - top.a + 1
			if st.terms > maxTerms {
				return false
			}
			continue
		}
		if nodes += 2; nodes > maxNodes {
			return false
		}
		mid := top.a + (top.b-top.a)/2
		fm, vm := m.hat(mid)
		fm1, vm1 := m.hat(mid + 1)
		heap.Push(q, m.newInterval(top.a, mid, top.fa, top.va, fm, vm))
		heap.Push(q, m.newInterval(mid+1, top.b, fm1, vm1, top.fb, top.vb))
	}
	st.used, st.nodes, st.leftOut = true, nodes, q.Len()
	if q.Len() > 0 {
		st.logRatio = (*q)[0].bound.sub(s.acc.absLog()) + math.Log(float64(q.Len()))
	} else {
		st.logRatio = math.Inf(-1)
	}
	return true
}

// windowOff turns the certified window off (tests compare with the plain
// sum); windowHook, when set, receives the statistics of every window tried.
var (
	windowOff       bool
	windowHook      func(windowStats)
	windowModelHook func(*windowModel) // before the window runs (tests of the bound)
)
