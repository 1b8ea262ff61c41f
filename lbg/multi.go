package lbg

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
)

// multi is the lifted rule for a cluster of first-order atoms A (the
// pivot) and B (or several B's, a star around A, no formula mentioning two
// of them; every B shares formulas with A, the joint formulas), e.g. the
// paper's {R,S} of R(x,y) v S(y,z), S(y,z) v T(z,u). For each B:
//
//   - Power rule on a separator. In every joint formula A's atom has
//     distinct variables, the one at argument pa (the separator y) is B's
//     argument pb, and A's other variables (x) occur in no other atom of
//     the formula. Given the atoms outside the cluster, the ground atoms
//     then split into independent sub-problems, one per constant c of the
//     separator: A's atoms with argument pa = c and B's with pb = c.
//   - Atom counting on A inside a sub-problem. As A's private variables
//     occur nowhere else, the weight of a joint ground formula depends on
//     its A atom only through that atom's value, so given the number k1 of
//     true (k0 of false) A atoms of the sub-problem, B's atoms are
//     independent: B atom z has log weight
//     L_z(b) = U_z(b) + k1·W_z(1,b) + k0·W_z(0,b), U_z from B's other
//     formulas, W_z(a,b) the joint formulas' count messages (Theorem 2)
//     with A's value a and z's value b (−∞ where a hard formula is
//     violated). The number k of true unknown A atoms has the generalised
//     binomial distribution
//     P(k) ∝ e_k · Π_z Σ_b e^{L_z(b)},
//     e_k the sum over the ways to make k unknown A atoms true of their
//     own weight: the convolution over A's exchangeable classes (equal
//     messages) of C(m_i,k_i)·e^{k_i·ℓ_i}, in log space; B's atoms with
//     equal (U, W, evidence) are one class, so the product is over classes
//     with exponents m_B.
//
// A draw: k from P(k), the split of k over A's classes backwards through
// the convolution, which atoms of each class uniformly, then B's classes
// as independent binomials given k. Cost per sweep: the messages plus,
// per distinct sub-problem, O(mA·classes(B) + mA·mA), and a pass over the
// atoms — on R,S,T n identical sub-problems of n R atoms and n S atoms.
type multi struct {
	a, pa int   // pivot A and the separator's argument of A
	bs    []int // the other predicates B_1, B_2, ... (a star around A)
	pbs   []int // the separator's argument of each B
	ua    []plan
	ub    []plan // the B's own formulas; ubOf[k]: of which B
	ubOf  []int
	pair  []plan // fixed = {A's occurrence, B's}, keep = B's variables
	pairB []int  // of which B
	boff  []int  // offset of each B among the concatenated B atoms

	once sync.Once
	subA [][]int32 // per separator constant, atoms (offsets in A)
	subB [][]int32 // per separator constant, B atoms (concatenated offsets)
	bAbs []int32   // concatenated B offset → state atom
}

// multiRule returns the lifted rule for cluster c of two or more
// predicates, or why there is none: a pivot A and an argument of A that
// separates A from each other predicate B of the cluster (separate), and
// no formula mentioning two of the B's (given A's count they are then
// independent).
func (md *Model) multiRule(c *Cluster) (*multi, string) {
	for _, p := range c.Preds {
		if why := md.liftable(p); why != "" {
			return nil, why
		}
	}
	for _, j := range md.clusterForms(c) {
		n := 0
		for _, p := range c.Preds {
			if occOf(&md.forms[j], p) >= 0 {
				n++
			}
		}
		if n > 2 {
			return nil, fmt.Sprintf("formula %d mentions %d of the cluster's first-order atoms (the lifted rules here join two)", j, n)
		}
	}
	var best *multi
	bestT := math.Inf(1)
	why := ""
	for _, a := range c.Preds {
		for pa := range md.preds[a].dims {
			m := &multi{a: a, pa: pa}
			na := float64(md.preds[a].dims[pa])
			mb := 0.0
			for _, b := range c.Preds {
				if b == a {
					continue
				}
				pb, w := md.separate(md.joint(a, b), a, b, pa)
				if pb < 0 {
					m = nil
					if why == "" {
						why = w
					}
					break
				}
				m.bs, m.pbs = append(m.bs, b), append(m.pbs, pb)
				mb += float64(md.preds[b].size) / na
			}
			if m == nil {
				continue
			}
			ma := float64(md.preds[a].size) / na
			if t := na * ((ma+1)*mb + ma*ma); t < bestT {
				best, bestT = m, t
			}
		}
	}
	if best == nil {
		if why == "" {
			why = "no first-order atom has an argument"
		}
		return nil, "no separator variable (power rule): " + why
	}
	m := best
	var joint []int
	for i, b := range m.bs {
		for _, j := range md.joint(m.a, b) {
			f := &md.forms[j]
			oa, ob := occOf(f, m.a), occOf(f, b)
			m.pair = append(m.pair, newPlanFixed(md, j, []int{oa, ob}, distinctVars(f.occs[ob])))
			m.pairB = append(m.pairB, i)
			joint = append(joint, j)
		}
	}
	for _, j := range md.preds[m.a].forms {
		if !slices.Contains(joint, j) {
			m.ua = append(m.ua, md.occPlans(j, m.a)...)
		}
	}
	off := 0
	for i, b := range m.bs {
		m.boff = append(m.boff, off)
		off += md.preds[b].size
		for _, j := range md.preds[b].forms {
			if !slices.Contains(joint, j) {
				ps := md.occPlans(j, b)
				m.ub = append(m.ub, ps...)
				for range ps {
					m.ubOf = append(m.ubOf, i)
				}
			}
		}
	}
	return m, ""
}

// joint lists the formulas that mention both predicates.
func (md *Model) joint(a, b int) []int {
	var out []int
	for _, j := range md.preds[a].forms {
		if slices.Contains(md.preds[b].forms, j) {
			out = append(out, j)
		}
	}
	return out
}

// clusterForms lists the formulas that mention a predicate of c.
func (md *Model) clusterForms(c *Cluster) []int {
	var out []int
	for _, p := range c.Preds {
		for _, j := range md.preds[p].forms {
			if !slices.Contains(out, j) {
				out = append(out, j)
			}
		}
	}
	return out
}

// occPlans is the plan of each occurrence of predicate p in formula j.
func (md *Model) occPlans(j, p int) []plan {
	var out []plan
	for o := range md.forms[j].occs {
		if md.forms[j].occs[o].pred == p {
			out = append(out, newPlan(md, j, o))
		}
	}
	return out
}

// occOf is the (only) occurrence of predicate p in f.
func occOf(f *formula, p int) int {
	for o := range f.occs {
		if f.occs[o].pred == p {
			return o
		}
	}
	return -1
}

// separate checks that argument pa of A separates A and B in every joint
// formula (see multi) and returns B's argument at the separator, or −1 and
// why not.
func (md *Model) separate(joint []int, a, b, pa int) (int, string) {
	an, bn := md.preds[a].name, md.preds[b].name
	if len(joint) == 0 {
		return -1, fmt.Sprintf("no formula mentions both %s and %s", an, bn)
	}
	pb := -1
	for _, j := range joint {
		f := &md.forms[j]
		oa, ob := f.occs[occOf(f, a)], f.occs[occOf(f, b)]
		if len(distinctVars(oa)) != len(oa.args) {
			return -1, fmt.Sprintf("%s has a constant or a repeated variable in formula %d", an, j)
		}
		y := oa.args[pa]
		if pb < 0 {
			pb = slices.Index(ob.args, y)
			if pb < 0 {
				return -1, fmt.Sprintf("%s's argument %d is not an argument of %s in formula %d", an, pa, bn, j)
			}
		}
		if ob.args[pb] != y {
			return -1, fmt.Sprintf("%s's argument %d is not %s's argument %d in formula %d", an, pa, bn, pb, j)
		}
		for k, v := range oa.args {
			if k == pa {
				continue
			}
			for i, o := range f.occs {
				if o.pred != a && slices.Contains(o.args, v) {
					return -1, fmt.Sprintf("%s's variable %d is shared with atom %d in formula %d", an, k, i, j)
				}
			}
		}
	}
	return pb, ""
}

// costMulti sets the schematic time and space of a lifted cluster of two
// or more predicates: its messages, one pass over its atoms, and per
// distinct sub-problem the convolution over A and the product over the
// B's for every k (at most as many classes as atoms). The sub-problems
// are identical — one computation serves all, the power rule — when no
// predicate of the cluster has evidence and no atom outside the cluster
// has the separator variable; otherwise each counts.
func (md *Model) costMulti(c *Cluster, m *multi) {
	A := &md.preds[m.a]
	na := float64(A.dims[m.pa])
	sizes := float64(A.size)
	for _, b := range m.bs {
		sizes += float64(md.preds[b].size)
	}
	ma := float64(A.size) / na
	mb := (sizes - float64(A.size)) / na
	nd := na
	if md.identicalSubs(m) {
		nd = 1
	}
	c.Time = sizes + nd*((ma+1)*mb+ma*ma)
	c.Space = max(sizes, (ma+1)*(ma+1))
	for _, ps := range [][]plan{m.ua, m.ub, m.pair} {
		for _, pl := range ps {
			c.Time += float64(len(pl.rows)*pl.minterms) * pl.time
			c.Space = max(c.Space, pl.space)
		}
	}
}

// identicalSubs reports whether m's sub-problems are identical up to a
// renaming of the separator's constant (see costMulti).
func (md *Model) identicalSubs(m *multi) bool {
	preds := append([]int{m.a}, m.bs...)
	pos := append([]int{m.pa}, m.pbs...)
	for i, p := range preds {
		q := &md.preds[p]
		for _, v := range md.ev[q.off : q.off+q.size] {
			if v >= 0 {
				return false
			}
		}
		for _, j := range q.forms {
			f := &md.forms[j]
			y := f.occs[occOf(f, p)].args[pos[i]]
			if y < 0 {
				return false
			}
			for _, o := range f.occs {
				if !slices.Contains(preds, o.pred) && slices.Contains(o.args, y) {
					return false
				}
			}
		}
	}
	return true
}

// subs fills the sub-problems' atom lists (once per model).
func (m *multi) subs(md *Model) {
	m.once.Do(func() {
		A := &md.preds[m.a]
		m.subA = make([][]int32, A.dims[m.pa])
		for j := range A.size {
			c := j / A.stride[m.pa] % A.dims[m.pa]
			m.subA[c] = append(m.subA[c], int32(j))
		}
		m.subB = make([][]int32, A.dims[m.pa])
		for i, b := range m.bs {
			B := &md.preds[b]
			for j := range B.size {
				c := j / B.stride[m.pbs[i]] % B.dims[m.pbs[i]]
				m.subB[c] = append(m.subB[c], int32(m.boff[i]+j))
				m.bAbs = append(m.bAbs, int32(B.off+j))
			}
		}
	})
}

// bKey is a class of B atoms of one sub-problem: unary log-odds and hard
// violations, joint messages W(a,b) at index a|b<<1, and evidence.
type bKey struct {
	lo         float64
	bad0, bad1 bool
	w          [4]float64
	h          [4]bool
	ev         int8
}

// logw is L(b) of a B atom of the class given k1 true and k0 false A
// atoms.
func (k *bKey) logw(b, k1, k0 int) float64 {
	if (b == 0 && k.bad0) || (b == 1 && k.bad1) {
		return math.Inf(-1)
	}
	s := 0.0
	if b == 1 {
		s = k.lo
	}
	if k1 > 0 {
		if k.h[1|b<<1] {
			return math.Inf(-1)
		}
		s += float64(k1) * k.w[1|b<<1]
	}
	if k0 > 0 {
		if k.h[b<<1] {
			return math.Inf(-1)
		}
		s += float64(k0) * k.w[b<<1]
	}
	return s
}

// multiState is a chain's buffers for lifted clusters of several predicates.
type multiState struct {
	loA, b0A, b1A, loB, b0B, b1B []float64
	w                            [][4]float64
	h                            [][4]float64
	lf                           []float64 // log k!

	aKeys  map[classKey]int
	aMem   [][]int
	aCls   []classKey
	e0, e1 int
	bKeys  map[bKey]int
	bMem   [][]int
	bCls   []bKey
	f      []float64 // forward convolution, (classes+1)×(mA+1)
	logP   []float64

	// the classes (keys and sizes) f and logP were computed for: a
	// sub-problem with the same ones reuses them (the power rule's
	// identical sub-problems: on R,S,T without evidence on R and S, one
	// computation per sweep)
	valid        bool
	margOK       bool      // margB (and margA) are those of f and logP
	margA        float64   // one A class: its atoms' marginal
	margB        []float64 // per B class, its atoms' marginal
	sigA         []classKey
	sigB         []bKey
	sigN         []int
	sigE0, sigE1 int
}

// same reports whether the current sub-problem's classes are those f and
// logP were computed for, and otherwise records them.
func (s *multiState) same() bool {
	eq := s.valid && s.sigE0 == s.e0 && s.sigE1 == s.e1 && slices.Equal(s.sigA, s.aCls) && slices.Equal(s.sigB, s.bCls) && len(s.sigN) == len(s.aMem)+len(s.bMem)
	if eq {
		for i, m := range s.aMem {
			eq = eq && s.sigN[i] == len(m)
		}
		for i, m := range s.bMem {
			eq = eq && s.sigN[len(s.aMem)+i] == len(m)
		}
	}
	if eq {
		return true
	}
	s.valid, s.sigE0, s.sigE1 = true, s.e0, s.e1
	s.sigA = append(s.sigA[:0], s.aCls...)
	s.sigB = append(s.sigB[:0], s.bCls...)
	s.sigN = s.sigN[:0]
	for _, m := range s.aMem {
		s.sigN = append(s.sigN, len(m))
	}
	for _, m := range s.bMem {
		s.sigN = append(s.sigN, len(m))
	}
	return false
}

func logAdd(a, b float64) float64 {
	if a < b {
		a, b = b, a
	}
	if math.IsInf(b, -1) {
		return a
	}
	return a + math.Log1p(math.Exp(b-a))
}

// prepareMulti computes cluster c's messages in the current world.
func (ch *Chain) prepareMulti(m *multi) *multiState {
	md := ch.md
	m.subs(md)
	if ch.ms == nil {
		ch.ms = &multiState{aKeys: map[classKey]int{}, bKeys: map[bKey]int{}}
	}
	s := ch.ms
	s.valid = false
	A := &md.preds[m.a]
	grow := func(b []float64, n int) []float64 {
		if cap(b) < n {
			return make([]float64, n)
		}
		b = b[:n]
		clear(b)
		return b
	}
	s.loA, s.b0A, s.b1A = grow(s.loA, A.size), grow(s.b0A, A.size), grow(s.b1A, A.size)
	nb := len(m.bAbs)
	s.loB, s.b0B, s.b1B = grow(s.loB, nb), grow(s.b0B, nb), grow(s.b1B, nb)
	if cap(s.w) < nb {
		s.w, s.h = make([][4]float64, nb), make([][4]float64, nb)
	}
	s.w, s.h = s.w[:nb], s.h[:nb]
	clear(s.w)
	clear(s.h)
	if n := max(A.size, nb) + 1; len(s.lf) < n {
		s.lf = make([]float64, n)
		for k := 1; k < n; k++ {
			s.lf[k] = s.lf[k-1] + math.Log(float64(k))
		}
	}
	md.unary(m.ua, A, ch.x, s.loA, s.b0A, s.b1A)
	for i, b := range m.bs {
		B := &md.preds[b]
		o, e := m.boff[i], m.boff[i]+B.size
		for k := range m.ub {
			if m.ubOf[k] == i {
				md.unary(m.ub[k:k+1], B, ch.x, s.loB[o:e], s.b0B[o:e], s.b1B[o:e])
			}
		}
	}
	for pi := range m.pair {
		pl := &m.pair[pi]
		f := &md.forms[pl.form]
		o := m.boff[m.pairB[pi]]
		for v := range 4 {
			md.scatter(pl, &md.preds[m.bs[m.pairB[pi]]], f.occs[pl.fixed[1]], md.evalPlan(pl, v, ch.x), func(j int, val float64) {
				switch {
				case f.hard:
					s.h[o+j][v] += val
				case pl.target:
					s.w[o+j][v] += f.w * val
				default:
					s.w[o+j][v] -= f.w * val
				}
			})
		}
	}
	return s
}

// sub computes sub-problem c's classes, convolution and P(k) (log,
// unnormalised) in s.
func (ch *Chain) sub(m *multi, s *multiState, c int) error {
	md := ch.md
	A := &md.preds[m.a]
	clear(s.aKeys)
	clear(s.bKeys)
	s.aMem, s.aCls, s.bMem, s.bCls = s.aMem[:0], s.aCls[:0], s.bMem[:0], s.bCls[:0]
	s.e0, s.e1 = 0, 0
	mA := 0
	for _, j := range m.subA[c] {
		a := A.off + int(j)
		switch md.ev[a] {
		case 0:
			s.e0++
			continue
		case 1:
			s.e1++
			continue
		}
		key := classKey{lo: s.loA[j], bad0: s.b0A[j] > 0, bad1: s.b1A[j] > 0}
		if key.bad0 && key.bad1 {
			return fmt.Errorf("lbg: %s is false and true in no world satisfying the hard formulas given the rest", md.Name(a))
		}
		k, ok := s.aKeys[key]
		if !ok {
			k = len(s.aCls)
			s.aKeys[key] = k
			s.aCls = append(s.aCls, key)
			s.aMem = appendMember(s.aMem)
		}
		s.aMem[k] = append(s.aMem[k], a)
		mA++
	}
	for _, j := range m.subB[c] {
		a := int(m.bAbs[j])
		key := bKey{w: s.w[j], ev: md.ev[a]}
		for v := range 4 {
			key.h[v] = s.h[j][v] > 0
		}
		if key.ev < 0 {
			key.lo, key.bad0, key.bad1 = s.loB[j], s.b0B[j] > 0, s.b1B[j] > 0
		}
		k, ok := s.bKeys[key]
		if !ok {
			k = len(s.bCls)
			s.bKeys[key] = k
			s.bCls = append(s.bCls, key)
			s.bMem = appendMember(s.bMem)
		}
		s.bMem[k] = append(s.bMem[k], a)
	}
	if s.same() {
		return nil
	}
	s.margOK = false
	// forward convolution over A's classes
	n := mA + 1
	r := len(s.aCls)
	if cap(s.f) < (r+1)*n {
		s.f = make([]float64, (r+1)*n)
	}
	s.f = s.f[:(r+1)*n]
	for t := range n {
		s.f[t] = math.Inf(-1)
	}
	s.f[0] = 0
	for i := range r {
		prev, next := s.f[i*n:(i+1)*n], s.f[(i+1)*n:(i+2)*n]
		for t := range next {
			next[t] = math.Inf(-1)
		}
		mi := len(s.aMem[i])
		for t := range n {
			if math.IsInf(prev[t], -1) {
				continue
			}
			for j := 0; j <= mi && t+j < n; j++ {
				if lp := s.poly(i, j); !math.IsInf(lp, -1) {
					next[t+j] = logAdd(next[t+j], prev[t]+lp)
				}
			}
		}
	}
	// P(k)
	if cap(s.logP) < n {
		s.logP = make([]float64, n)
	}
	s.logP = s.logP[:n]
	copy(s.logP, s.f[r*n:])
	for k := range n {
		if math.IsInf(s.logP[k], -1) {
			continue
		}
		k1, k0 := s.e1+k, s.e0+mA-k
		for bi := range s.bCls {
			bc := &s.bCls[bi]
			var z float64
			if bc.ev >= 0 {
				z = bc.logw(int(bc.ev), k1, k0)
			} else {
				z = logAdd(bc.logw(0, k1, k0), bc.logw(1, k1, k0))
			}
			if math.IsInf(z, -1) {
				s.logP[k] = z
				break
			}
			s.logP[k] += float64(len(s.bMem[bi])) * z
		}
	}
	return nil
}

func appendMember(m [][]int) [][]int {
	if len(m) < cap(m) {
		m = m[:len(m)+1]
		m[len(m)-1] = m[len(m)-1][:0]
		return m
	}
	return append(m, nil)
}

// poly is the log weight of j true atoms of A's class i: log C(m,j) +
// j·ℓ, or, for a class forced by a hard formula, 0 at its forced count.
func (s *multiState) poly(i, j int) float64 {
	key, mi := s.aCls[i], len(s.aMem[i])
	switch {
	case key.bad0:
		if j == mi {
			return 0
		}
		return math.Inf(-1)
	case key.bad1:
		if j == 0 {
			return 0
		}
		return math.Inf(-1)
	}
	return s.lf[mi] - s.lf[j] - s.lf[mi-j] + float64(j)*key.lo
}

// pick draws an index with probability ∝ exp(lw[i]); −1 when all are −∞.
func pick(rng *rand.Rand, lw []float64) int {
	mx := math.Inf(-1)
	for _, v := range lw {
		mx = max(mx, v)
	}
	if math.IsInf(mx, -1) {
		return -1
	}
	tot := 0.0
	for _, v := range lw {
		tot += math.Exp(v - mx)
	}
	u := rng.Float64() * tot
	last := -1
	for i, v := range lw {
		if math.IsInf(v, -1) {
			continue
		}
		last = i
		if u -= math.Exp(v - mx); u < 0 {
			return i
		}
	}
	return last
}

// bProb is the probability that a B atom of class bc is true given k1
// true and k0 false A atoms.
func bProb(bc *bKey, k1, k0 int) float64 {
	l0, l1 := bc.logw(0, k1, k0), bc.logw(1, k1, k0)
	switch {
	case math.IsInf(l1, -1):
		return 0
	case math.IsInf(l0, -1):
		return 1
	}
	return 1 / (1 + math.Exp(l0-l1))
}

// marginals sets margB, each B class's marginal probability under the
// sub-problem's conditional, Σ_k P(k)·P(true | k), and margA, that of A's
// atoms when A has one class, Σ_k P(k)·k/m.
func (s *multiState) marginals() {
	mA := len(s.logP) - 1
	mx := math.Inf(-1)
	for _, v := range s.logP {
		mx = max(mx, v)
	}
	z := 0.0
	for _, v := range s.logP {
		z += math.Exp(v - mx)
	}
	s.margA = 0
	s.margB = append(s.margB[:0], make([]float64, len(s.bCls))...)
	for k, v := range s.logP {
		pk := math.Exp(v-mx) / z
		if pk == 0 {
			continue
		}
		if mA > 0 {
			s.margA += pk * float64(k) / float64(mA)
		}
		for bi := range s.bCls {
			s.margB[bi] += pk * bProb(&s.bCls[bi], s.e1+k, s.e0+mA-k)
		}
	}
	s.margOK = true
}

// drawMulti redraws a lifted cluster of several predicates (see multi). With cond
// set, each atom gets its marginal under the cluster's conditional
// (marginals), the Rao-Blackwellised term, except the atoms of A when it
// has several classes in a sub-problem: k_i/m_i, the drawn count of the
// class over its size, their expectation given the drawn counts.
func (ch *Chain) drawMulti(rng *rand.Rand, c *Cluster, cond []float64) error {
	m := c.multi
	s := ch.prepareMulti(m)
	w := make([]float64, 0, 64)
	for sc := range m.subA {
		if err := ch.sub(m, s, sc); err != nil {
			return err
		}
		mA := len(s.logP) - 1
		k := pick(rng, s.logP)
		if k < 0 {
			return fmt.Errorf("lbg: no state of %s given the rest satisfies the hard formulas", c)
		}
		if cond != nil && !s.margOK {
			s.marginals()
		}
		n := mA + 1
		t := k
		for i := len(s.aCls) - 1; i >= 0; i-- {
			mi := len(s.aMem[i])
			w = w[:0]
			for j := 0; j <= mi; j++ {
				if j > t {
					w = append(w, math.Inf(-1))
					continue
				}
				w = append(w, s.f[i*n+t-j]+s.poly(i, j))
			}
			j := pick(rng, w)
			p := float64(j) / float64(mi)
			if len(s.aCls) == 1 {
				p = s.margA
			}
			ch.choose(rng, s.aMem[i], j, p, cond)
			t -= j
		}
		k1, k0 := s.e1+k, s.e0+mA-k
		for bi := range s.bCls {
			bc := &s.bCls[bi]
			if bc.ev >= 0 {
				continue
			}
			p := bProb(bc, k1, k0)
			mem := s.bMem[bi]
			n := binomial(rng, len(mem), p, ch.pmf)
			if cond != nil {
				p = s.margB[bi]
			}
			ch.choose(rng, mem, n, p, cond)
		}
	}
	return nil
}

// choose sets j uniformly chosen atoms of mem true (the first j of a
// uniformly random arrangement) and the others false, writing p to cond.
func (ch *Chain) choose(rng *rand.Rand, mem []int, j int, p float64, cond []float64) {
	for i := range j {
		r := i + rng.IntN(len(mem)-i)
		mem[i], mem[r] = mem[r], mem[i]
	}
	for i, a := range mem {
		v := int8(0)
		if i < j {
			v = 1
		}
		ch.SetAtom(a, v)
		if cond != nil {
			cond[a] = p
		}
	}
}

// multiLogProb is the log probability with which a draw of lifted
// cluster ci of several predicates, from the current world, yields the cluster
// state of y (a world that agrees with the current one outside the
// cluster): the product over sub-problems of P(k), the split of k over
// A's classes, the uniform choice inside them and B's independent atoms.
func (ch *Chain) multiLogProb(ci int, y []int8) (float64, error) {
	c := ch.md.Clusters[ci]
	m := c.multi
	if m == nil {
		return 0, fmt.Errorf("lbg: cluster %s is not a lifted cluster of several first-order atoms", c)
	}
	s := ch.prepareMulti(m)
	lp := 0.0
	for sc := range m.subA {
		if err := ch.sub(m, s, sc); err != nil {
			return 0, err
		}
		mA := len(s.logP) - 1
		n := mA + 1
		k := 0
		ks := make([]int, len(s.aCls))
		for i, mem := range s.aMem {
			for _, a := range mem {
				ks[i] += int(y[a])
			}
			k += ks[i]
		}
		if math.IsInf(s.logP[k], -1) {
			return math.Inf(-1), nil
		}
		z := math.Inf(-1)
		for _, v := range s.logP {
			z = logAdd(z, v)
		}
		lp += s.logP[k] - z
		t := k
		for i := len(s.aCls) - 1; i >= 0; i-- {
			mi := len(s.aMem[i])
			zi := math.Inf(-1)
			for j := 0; j <= min(mi, t); j++ {
				zi = logAdd(zi, s.f[i*n+t-j]+s.poly(i, j))
			}
			j := ks[i]
			lp += s.f[i*n+t-j] + s.poly(i, j) - zi
			lp -= s.lf[mi] - s.lf[j] - s.lf[mi-j]
			t -= j
		}
		k1, k0 := s.e1+k, s.e0+mA-k
		for bi := range s.bCls {
			bc := &s.bCls[bi]
			if bc.ev >= 0 {
				continue
			}
			p := bProb(bc, k1, k0)
			for _, a := range s.bMem[bi] {
				if y[a] == 1 {
					lp += math.Log(p)
				} else {
					lp += math.Log1p(-p)
				}
			}
		}
	}
	return lp, nil
}
