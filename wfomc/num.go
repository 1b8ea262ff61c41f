package wfomc

import (
	"math"
	"sync"
)

// lnum is a signed real number together with its gradient with respect to
// the weight parameters, kept in log space so that numbers such as e^(10^12)
// are representable.
//
// For s != 0 the value is s·e^(l+lo) and its gradient is value·g, so g is
// the gradient of log|value|. For s == 0 the value is exactly zero but its
// gradient may not be (a weight polynomial such as e^w − 1 at w = 0): the
// gradient is e^(l+lo)·g. l = −Inf with s == 0 is an exact zero with zero
// gradient.
//
// The log is a double-double l + lo: a term of a sum at n = 10^6 has a log
// of about 10^12, and k·log r with k ≈ 10^11 would otherwise carry an
// absolute rounding error of 10^−4, which the ratio of two terms (a
// probability) would inherit. With exact products (FMA) the only error left
// is that of the logs of the weights themselves, one ulp: the result is
// exact for weights perturbed by one ulp.
type lnum struct {
	s  int8
	l  float64
	lo float64
	g  []float64
}

// twoSum returns s + e = a + b exactly (Knuth).
func twoSum(a, b float64) (float64, float64) {
	s := a + b
	bb := s - a
	return s, (a - (s - bb)) + (b - bb)
}

// ddAdd returns the double-double (ah + al) + (bh + bl).
func ddAdd(ah, al, bh, bl float64) (float64, float64) {
	s, e := twoSum(ah, bh)
	return twoSum(s, e+al+bl)
}

// addLog2 adds hi + lo to the log of a number that is not an exact zero.
func (x *lnum) addLog2(hi, lo float64) {
	s, e := twoSum(x.l, hi)
	x.l, x.lo = twoSum(s, e+lo+x.lo)
}

func newLnum(dim int) lnum { return lnum{s: 1, g: make([]float64, dim)} }

// setOne sets x to 1 (zero gradient).
func (x *lnum) setOne() {
	x.s, x.l, x.lo = 1, 0, 0
	clear(x.g)
}

// setZero sets x to an exact zero.
func (x *lnum) setZero() {
	x.s, x.l, x.lo = 0, math.Inf(-1), 0
	clear(x.g)
}

func (x *lnum) isExactZero() bool { return x.s == 0 && math.IsInf(x.l, -1) }

func (x *lnum) copyFrom(y *lnum) {
	x.s, x.l, x.lo = y.s, y.l, y.lo
	copy(x.g, y.g)
}

// logValue returns log|x| (or, for a zero with a gradient, the log of the
// gradient's scale) as one float64.
func (x *lnum) logValue() float64 { return x.l + x.lo }

// mulPow multiplies x by y^k (k ≥ 0), gradients included.
func (x *lnum) mulPow(y *lnum, k int64) {
	if k == 0 || x.isExactZero() {
		return
	}
	if y.s == 0 {
		// y is zero: y^k is zero for k ≥ 2 (with zero gradient); for k = 1
		// the product is zero with gradient x·∇y when x ≠ 0.
		if k >= 2 || x.s == 0 || math.IsInf(y.l, -1) {
			x.setZero()
			return
		}
		x.addLog2(y.l, y.lo)
		for i := range x.g {
			x.g[i] = float64(x.s) * y.g[i]
		}
		x.s = 0
		return
	}
	fk := float64(k) // exact: k < 2^53
	p := fk * y.l
	x.addLog2(p, math.FMA(fk, y.l, -p)+fk*y.lo)
	neg := y.s < 0 && k&1 == 1
	if x.s != 0 {
		for i, v := range y.g {
			x.g[i] += fk * v
		}
		if neg {
			x.s = -x.s
		}
		return
	}
	// x is zero with a gradient: ∇(x·y^k) = ∇x·y^k.
	if neg {
		for i := range x.g {
			x.g[i] = -x.g[i]
		}
	}
}

// addLog multiplies x by the positive constant e^c.
func (x *lnum) addLog(c float64) {
	if !x.isExactZero() {
		x.addLog2(c, 0)
	}
}

// part is a sum of positive numbers (and the gradients belonging to them)
// kept relative to its running maximum m + mlo (a double-double, as lnum's
// logs): value = e^(m+mlo)·s, gradient = e^(m+mlo)·g.
type part struct {
	m, mlo, s float64
	g         []float64
}

func (p *part) reset() {
	p.m, p.mlo, p.s = math.Inf(-1), 0, 0
	clear(p.g)
}

func (p *part) empty() bool { return math.IsInf(p.m, -1) }

// add adds e^(l+lo)·v to the value and e^(l+lo)·grad to the gradient.
func (p *part) add(l, lo, v float64, grad []float64) {
	if p.empty() || (l-p.m)+(lo-p.mlo) > 0 {
		f := 0.0
		if !p.empty() {
			f = math.Exp((p.m - l) + (p.mlo - lo))
		}
		p.s *= f
		for i := range p.g {
			p.g[i] *= f
		}
		p.m, p.mlo = l, lo
	}
	f := math.Exp((l - p.m) + (lo - p.mlo))
	p.s += f * v
	for i, x := range grad {
		p.g[i] += f * x
	}
}

// logSum returns log(e^(m+mlo)·s) as a double-double.
func (p *part) logSum() (float64, float64) {
	return twoSum(p.m, p.mlo+math.Log(p.s))
}

// acc sums lnum terms: positive and negative terms are accumulated
// separately, each relative to its own running maximum, and subtracted once
// at the end with expm1, so a sum with cancellation loses only the digits
// that the cancellation itself costs, and acc reports how many.
type acc struct {
	pos, neg, zero part // zero: gradients of terms whose value is exactly 0
	terms          int64
}

func newAcc(dim int) *acc {
	a := &acc{pos: part{g: make([]float64, dim)}, neg: part{g: make([]float64, dim)}, zero: part{g: make([]float64, dim)}}
	a.reset()
	return a
}

func (a *acc) reset() {
	a.pos.reset()
	a.neg.reset()
	a.zero.reset()
	a.terms = 0
}

// add adds the term x.
func (a *acc) add(x *lnum) {
	a.terms++
	switch {
	case x.s > 0:
		a.pos.add(x.l, x.lo, 1, x.g)
	case x.s < 0:
		a.neg.add(x.l, x.lo, 1, x.g)
	case !math.IsInf(x.l, -1):
		a.zero.add(x.l, x.lo, 0, x.g)
	}
}

// merge adds everything accumulated in b into a.
func (a *acc) merge(b *acc) {
	a.terms += b.terms
	for _, pp := range [3][2]*part{{&a.pos, &b.pos}, {&a.neg, &b.neg}, {&a.zero, &b.zero}} {
		if !pp[1].empty() {
			pp[0].add(pp[1].m, pp[1].mlo, pp[1].s, pp[1].g)
		}
	}
}

// result writes the sum into x and returns the number of decimal digits
// lost to cancellation between positive and negative terms (0 when all
// terms have one sign, +Inf when they cancel exactly).
func (a *acc) result(x *lnum) (digitsLost float64) {
	hasP, hasN := a.pos.s > 0, a.neg.s > 0
	var ph, pl, nh, nl float64
	if hasP {
		ph, pl = a.pos.logSum()
	}
	if hasN {
		nh, nl = a.neg.logSum()
	}
	switch {
	case hasP && !hasN:
		x.s, x.l, x.lo = 1, ph, pl
	case hasN && !hasP:
		x.s, x.l, x.lo = -1, nh, nl
	case hasP && hasN:
		d := (ph - nh) + (pl - nl) // log P − log N
		switch {
		case d > 0:
			x.s = 1
			x.l, x.lo = twoSum(ph, pl+math.Log(-math.Expm1(-d)))
		case d < 0:
			x.s = -1
			x.l, x.lo = twoSum(nh, nl+math.Log(-math.Expm1(d)))
		default:
			x.s, x.l, x.lo = 0, math.Max(a.pos.m, a.neg.m), 0
		}
	default:
		x.s, x.l, x.lo = 0, a.zero.m, a.zero.mlo
	}
	if x.s == 0 && hasP && hasN && a.zero.m > x.l {
		x.l, x.lo = a.zero.m, a.zero.mlo
	}
	if math.IsInf(x.l, -1) {
		x.setZero()
		return 0
	}
	// ∇value = e^P·pg − e^N·ng + e^Z·zg, relative to e^(l+lo) (and the sign).
	rel := func(p *part) float64 {
		if p.empty() {
			return 0
		}
		return math.Exp((p.m - x.l) + (p.mlo - x.lo))
	}
	fp, fn, fz := rel(&a.pos), rel(&a.neg), rel(&a.zero)
	for i := range x.g {
		v := fp*a.pos.g[i] - fn*a.neg.g[i] + fz*a.zero.g[i]
		if x.s < 0 {
			v = -v
		}
		x.g[i] = v
	}
	if x.s == 0 {
		if !hasNonZero(x.g) {
			x.setZero()
		}
		if hasP && hasN {
			return math.Inf(1)
		}
		return 0
	}
	if hasP && hasN {
		d := math.Abs((ph - nh) + (pl - nl))
		// (P + N)/|P − N| = (1 + e^−d)/(1 − e^−d)
		return math.Log10((1 + math.Exp(-d)) / -math.Expm1(-d))
	}
	return 0
}

func hasNonZero(v []float64) bool {
	for _, x := range v {
		if x != 0 {
			return true
		}
	}
	return false
}

// Log factorials: a table for small arguments, math.Lgamma beyond.

const lfactTableMax = 1 << 21

var (
	lfactMu    sync.RWMutex
	lfactTable []float64
)

// ensureLogFact makes sure the table covers 0..n (up to lfactTableMax).
func ensureLogFact(n int64) {
	if n >= lfactTableMax {
		n = lfactTableMax - 1
	}
	lfactMu.RLock()
	ok := int64(len(lfactTable)) > n
	lfactMu.RUnlock()
	if ok {
		return
	}
	lfactMu.Lock()
	defer lfactMu.Unlock()
	old := int64(len(lfactTable))
	if old > n {
		return
	}
	size := max(n+1, 2*old, 1024)
	if size > lfactTableMax {
		size = lfactTableMax
	}
	t := make([]float64, size)
	copy(t, lfactTable)
	for i := old; i < size; i++ {
		v, _ := math.Lgamma(float64(i) + 1)
		t[i] = v
	}
	lfactTable = t
}

// logFactTable returns the current table; callers ensure its length first.
func logFactTable() []float64 {
	lfactMu.RLock()
	defer lfactMu.RUnlock()
	return lfactTable
}

func logFact(t []float64, n int64) float64 {
	if n < int64(len(t)) {
		return t[n]
	}
	v, _ := math.Lgamma(float64(n) + 1)
	return v
}

// logBinom returns log C(n, k) for 0 ≤ k ≤ n.
func logBinom(t []float64, n, k int64) float64 {
	return logFact(t, n) - logFact(t, k) - logFact(t, n-k)
}
