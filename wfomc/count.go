package wfomc

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
)

// Counting quantifiers of C2. A hard formula ∀x ∃=k y ψ(x,y) (also ∃≤k,
// ∃≥k; normalize takes it out of the formulas) is a counting constraint on
// the binary predicate A ⇔ ψ (ψ itself when it is an atom): every element
// x has k (at most k, at least k) elements y with A(x,y), y = x included.
// The functionality pattern P(x,y) ^ P(x,z) => y = z (hard) is ∀x ∃≤1 y
// P(x,y).
//
// A component with such constraints is summed by dynamic programming over
// the elements of its type instead of the closed-form cell sum: elements
// are added one at a time, and the state is how many of the elements so
// far are in each group (cell, counts so far of every constraint, capped
// at its bound). Adding an element b in cell j multiplies by w_j and, for
// every group of c elements, sums over how they split among the classes of
// the pair weight r_ij (the pair weight restricted to the values of the
// counted atoms between a and b: pairPolys) — the multinomial c!/Π n_l!
// times Π r_l^n_l — moving each element to the group of its new count and
// adding to b's own. A state is kept only while no count exceeds a bound
// "=" or "<=" forbids; at the end only states whose every element meets
// its bound count. Cell weights, pair weights and the terms are those of
// the cell algorithm (polys in e^θ, evaluated in log space with signs and
// the gradient carried along), so expected counts and queries come from
// the same pass. No inclusion–exclusion is involved: on models without
// Skolem predicates every term is positive, so the perfect matchings of
// 1,000 elements are summed without cancellation (the reduction to
// cardinality constraints of Kuželka 2021 cancels e^n between terms
// there).
//
// The number of states is a polynomial in n whose degree is the number of
// groups (cells × Π(k_q+1)); Evaluate refuses more than Options.MaxTerms
// transitions. Supported: one type, no evidence and no named constants in
// the component (otherwise Compile says so and the component is grounded
// where allowed).

// countCons is a counting constraint: for every element x of the type,
// the number of y with pred(x,y) (dir 0) or pred(y,x) (dir 1) is cmp k.
type countCons struct {
	pred int
	dir  int
	// global: a cardinality constraint |pred| cmp k on the number of true
	// atoms of pred (unary or binary), not a count per element.
	global bool
	cmp    string // "=", "<=", ">="
	k      int
	text   string
}

// counting handles a hard ∃=k (≤k, ≥k) under universal quantifiers.
func (nz *normalizer) counting(f *formula, n *node, free []int) error {
	fv := usedFree(n, free)
	y := n.qv
	if len(fv) != 1 {
		return nz.beyond(f, fmt.Sprintf("a counting quantifier (EXIST%s%d over %s) needs exactly one other variable in its scope, not %d", n.cmp, n.cnt, f.vars[y].name, len(fv)))
	}
	x := fv[0]
	if f.vars[x].typ != f.vars[y].typ {
		return nz.beyond(f, fmt.Sprintf("a counting quantifier over %s counts elements of another type than %s's", f.vars[y].name, f.vars[x].name))
	}
	psi, err := nz.exact(f, n.kids[0])
	if err != nil {
		return err
	}
	p, dir := -1, 0
	if psi.k == nAtom && len(psi.args) == 2 && psi.args[0].isVar() && psi.args[1].isVar() {
		switch a0, a1 := psi.args[0].v, psi.args[1].v; {
		case a0 == x && a1 == y:
			p = psi.pred
		case a0 == y && a1 == x:
			p, dir = psi.pred, 1
		}
	}
	if p < 0 {
		p = nz.newPred(f, pAux, "count", []int{x, y})
		nz.emit(f, -1, &node{k: nIff, kids: []*node{atomOf(p, []int{x, y}), psi}}, []int{x, y})
	}
	nz.pb.counts = append(nz.pb.counts, countCons{pred: p, dir: dir, cmp: n.cmp, k: n.cnt, text: f.text})
	return nil
}

// functional recognises the hard formula P(x,y) ^ P(x,z) => y = z (in any
// form with the same truth table) as ∀x ∃≤1 y P(x,y); likewise
// P(y,x) ^ P(z,x) => y = z as ∀x ∃≤1 y P(y,x).
func functional(pb *problem, f *formula) (countCons, bool) {
	if f.param >= 0 || len(f.free) != 3 {
		return countCons{}, false
	}
	var atoms, eqs []*node
	ok := true
	var walk func(n *node)
	walk = func(n *node) {
		switch n.k {
		case nAtom:
			atoms = append(atoms, n)
		case nEq:
			eqs = append(eqs, n)
		case nAnd, nOr, nNot, nIff, nTrue, nFalse:
		default:
			ok = false
		}
		for _, k := range n.kids {
			walk(k)
		}
	}
	walk(f.body)
	if !ok || len(atoms) != 2 || len(eqs) != 1 || atoms[0].pred != atoms[1].pred || len(atoms[0].args) != 2 {
		return countCons{}, false
	}
	a, b, e := atoms[0].args, atoms[1].args, eqs[0].args
	for _, t := range []term{a[0], a[1], b[0], b[1], e[0], e[1]} {
		if !t.isVar() {
			return countCons{}, false
		}
	}
	var x, y, z, dir int
	switch {
	case a[0].v == b[0].v && a[1].v != b[1].v:
		x, y, z = a[0].v, a[1].v, b[1].v
	case a[1].v == b[1].v && a[0].v != b[0].v:
		x, y, z, dir = a[1].v, a[0].v, b[0].v, 1
	default:
		return countCons{}, false
	}
	if x == y || x == z || !(e[0].v == y && e[1].v == z || e[0].v == z && e[1].v == y) {
		return countCons{}, false
	}
	p := atoms[0].pred
	if ts := pb.preds[p].types; len(ts) != 2 || ts[0] != ts[1] {
		return countCons{}, false
	}
	for v := 0; v < 8; v++ {
		va, vb, ve := v&1 == 1, v&2 == 2, v&4 == 4
		var eval func(n *node) bool
		eval = func(n *node) bool {
			switch n.k {
			case nTrue:
				return true
			case nFalse:
				return false
			case nAtom:
				if n == atoms[0] {
					return va
				}
				return vb
			case nEq:
				return ve
			case nNot:
				return !eval(n.kids[0])
			case nIff:
				return eval(n.kids[0]) == eval(n.kids[1])
			}
			and := n.k == nAnd
			for _, k := range n.kids {
				if eval(k) != and {
					return !and
				}
			}
			return and
		}
		if eval(f.body) != (!(va && vb) || ve) {
			return countCons{}, false
		}
	}
	return countCons{pred: p, dir: dir, cmp: "<=", k: 1, text: f.text}, true
}

// countComp is a compiled component with counting constraints.
type countComp struct {
	pb       *problem
	typ      int
	params   []int
	polys    []poly // restricted to params
	cellPoly []int
	cellCnt  [][]int   // per cell: the counts its reflexive atoms give, per constraint
	pair     [][][]int // [i][j][class]: poly of the pair (a in i, b in j), −1 when zero
	cons     []countCons
	maxTerms float64
}

func compileCount(pl *poller, pb *problem, dim int, blocks map[int][]blockSpec, restFixed map[int]int64) (*countComp, error) {
	unsupported := func(why string) error {
		return fmt.Errorf("counting quantifier (%s): %s is not supported with it", pb.counts[0].text, why)
	}
	t := pb.preds[pb.counts[0].pred].types[0]
	for _, p := range pb.preds {
		if len(p.types) == 0 {
			return nil, unsupported("a named constant")
		}
		for _, u := range p.types {
			if u != t {
				return nil, unsupported("a second type (" + pb.types[u].name + ")")
			}
		}
	}
	if specs := blocks[t]; len(specs) > 1 || len(specs) == 1 && (specs[0].fixed != 0 || !specs[0].rest || len(specs[0].ev) > 0) || restFixed[t] != 0 {
		return nil, unsupported("evidence on its type")
	}
	b := &cellBuilder{pl: pl, pb: pb, dim: dim, cellBit: map[int]int{}, cellPred: map[int][]int{}, mask: map[int]uint64{},
		polyIdx: map[string]int{}, groupsOf: map[int][]int{}}
	if err := b.layout(blocks); err != nil {
		return nil, err
	}
	if b.tooWide != nil {
		return nil, b.tooWide
	}
	for _, cc := range pb.counts {
		b.mask[t] |= 1 << b.cellBit[cc.pred]
	}
	bodies := make([]*node, len(pb.formulas))
	var two []ff
	for i, f := range pb.formulas {
		bodies[i] = f.body
		if len(f.free) == 2 {
			two = append(two, ff{f, f.body})
		}
	}
	cs, err := b.buildCase(bodies)
	if err != nil {
		return nil, err
	}
	u := len(cs.cellPoly)
	if err := pl.spendPairs(int64(u)*int64(u)<<(2*len(pb.counts)), u); err != nil {
		return nil, err
	}
	c := &countComp{pb: pb, typ: t, cellPoly: cs.cellPoly, cons: pb.counts, maxTerms: pl.maxTerms}
	for i := 0; i < u; i++ {
		cnt := make([]int, len(pb.counts))
		for q, cc := range pb.counts {
			cnt[q] = int(cs.proj[i] >> b.cellBit[cc.pred] & 1)
		}
		c.cellCnt = append(c.cellCnt, cnt)
	}
	c.pair = make([][][]int, u)
	for i := 0; i < u; i++ {
		c.pair[i] = make([][]int, u)
		for j := 0; j < u; j++ {
			ps, err := b.pairPolys(t, cs.proj[i], t, cs.proj[j], two, pb.counts)
			if err != nil {
				return nil, err
			}
			ids := make([]int, len(ps))
			for l, p := range ps {
				ids[l] = -1
				if len(p) > 0 {
					ids[l] = b.intern(p)
				}
			}
			c.pair[i][j] = ids
		}
	}
	c.params = usedParams(b.polys, dim)
	for _, p := range b.polys {
		c.polys = append(c.polys, p.restrict(c.params))
	}
	return c, nil
}

// paramList is the global index of each local parameter.
func (c *countComp) paramList() []int { return c.params }

// countState is a state of the dynamic program: the number of elements in
// every group, and its weight.
type countState struct {
	sizes []int32
	a     *acc
}

// eval computes log Z of the component with its gradient into z and
// returns the digits lost to cancellation.
func (c *countComp) eval(ctx context.Context, theta []float64, n []int64, z *lnum) (float64, error) {
	dim := len(c.params)
	vals := evalPolys(c.polys, c.params, theta)
	N := c.pb.size(c.typ, n)
	nq := len(c.cons)
	caps := make([]int, nq)     // bound of the count (per element) or total (global)
	groupCap := make([]int, nq) // count kept per element: 0 for a global constraint
	stride := make([]int, nq)
	ncnt := 1
	for q, cc := range c.cons {
		caps[q] = cc.k
		if !cc.global {
			groupCap[q] = cc.k
		}
		stride[q] = ncnt
		ncnt *= groupCap[q] + 1
	}
	u := len(c.cellPoly)
	G := u * ncnt
	// The state is the group sizes, then the totals of the global
	// constraints.
	gIdx := make([]int, nq)
	S := G
	for q, cc := range c.cons {
		if cc.global {
			gIdx[q] = S
			S++
		}
	}
	// step applies an increment to a count: −1 when a bound forbids it.
	step := func(q, cnt, inc int) int {
		cnt += inc
		if cnt > caps[q] {
			if c.cons[q].cmp == ">=" {
				return caps[q]
			}
			return -1
		}
		return cnt
	}
	decode := func(g int) (cell int, cnt []int) {
		cell = g / ncnt
		r := g % ncnt
		cnt = make([]int, nq)
		for q := range cnt {
			cnt[q] = r / stride[q] % (groupCap[q] + 1)
		}
		return
	}
	encode := func(cell int, cnt []int) int {
		g := cell * ncnt
		for q, x := range cnt {
			if !c.cons[q].global {
				g += x * stride[q]
			}
		}
		return g
	}
	// Per group and new element's cell: the classes an element of the
	// group may take, with the group its count moves it to.
	moves := make([][][]move, G)
	for g := 0; g < G; g++ {
		cell, cnt := decode(g)
		moves[g] = make([][]move, u)
		for j := 0; j < u; j++ {
			for cl, id := range c.pair[cell][j] {
				if id < 0 || vals[id].isExactZero() {
					continue
				}
				nc := make([]int, nq)
				inc := make([]int, nq)
				okc := true
				for q := range nq {
					if c.cons[q].global {
						inc[q] = cl>>(2*q)&1 + cl>>(2*q+1)&1 // P(a,b) and P(b,a)
						continue
					}
					nc[q] = step(q, cnt[q], cl>>(2*q)&1)
					inc[q] = cl >> (2*q + 1) & 1
					okc = okc && nc[q] >= 0
				}
				if okc {
					moves[g][j] = append(moves[g][j], move{val: &vals[id], to: encode(cell, nc), bInc: inc, class: cl})
				}
			}
		}
	}
	ensureLogFact(N + 1)
	lf := logFactTable()
	limit := c.maxTerms
	if limit <= 0 {
		limit = DefaultMaxTerms
	}
	if est, reach := c.estimate(N, moves, u, ncnt, caps, step0s(c, u)); est > limit {
		return 0, &TermsError{Terms: est, Limit: limit, Classes: reach}
	}
	m := meterOf(ctx)
	m.addTotal(N)
	cur := map[string]*countState{}
	start := &countState{sizes: make([]int32, S), a: newAcc(dim)}
	one := newLnum(dim)
	one.setOne()
	start.a.add(&one)
	cur[""] = start
	digits := 0.0
	terms := 0.0
	val := newLnum(dim)
	depth := 2
	for g := range moves {
		most := 0
		for j := range moves[g] {
			most = max(most, len(moves[g][j]))
		}
		depth += most + 1
	}
	lnums := make([]lnum, depth)
	ints := make([][]int, depth)
	for i := range lnums {
		lnums[i] = newLnum(dim)
		ints[i] = make([]int, nq)
	}
	ns := make([]int32, S)
	kbuf := make([]byte, 4*S)
	for step := int64(0); step < N; step++ {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		next := map[string]*countState{}
		for _, s := range cur {
			digits = math.Max(digits, s.a.result(&val))
			if val.isExactZero() {
				continue
			}
			for j := 0; j < u; j++ {
				wj := &vals[c.cellPoly[j]]
				if wj.isExactZero() {
					continue
				}
				bc := make([]int, nq)
				okb := true
				for q := range nq {
					x := c.cellCnt[j][q]
					if c.cons[q].global {
						x += int(s.sizes[gIdx[q]])
					}
					bc[q] = step0(c.cons[q], x)
					okb = okb && bc[q] >= 0
				}
				if !okb {
					continue
				}
				// Scratch per recursion depth (one level per group and
				// per move), so that the enumeration allocates nothing.
				coef := &lnums[0]
				coef.copyFrom(&val)
				coef.mulPow(wj, 1)
				var rec func(g, d int, coef *lnum, bc []int)
				var split func(g, mi, d int, left int32, coef *lnum, bc []int)
				rec = func(g, d int, coef *lnum, bc []int) {
					for g < G && s.sizes[g] == 0 {
						g++
					}
					if g == G {
						terms++
						bg := encode(j, bc)
						ns[bg]++
						for q, cc := range c.cons {
							if cc.global {
								ns[gIdx[q]] = int32(bc[q])
							}
						}
						for i, x := range ns {
							binary.LittleEndian.PutUint32(kbuf[4*i:], uint32(x))
						}
						t, ok := next[string(kbuf)]
						if !ok {
							t = &countState{sizes: append([]int32(nil), ns...), a: newAcc(dim)}
							next[string(kbuf)] = t
						}
						t.a.add(coef)
						ns[bg]--
						return
					}
					x := &lnums[d]
					x.copyFrom(coef)
					x.addLog(lf[s.sizes[g]])
					split(g, 0, d+1, s.sizes[g], x, bc)
				}
				// split distributes the left elements of group g among its
				// moves mi, mi+1, … (the last takes all that are left).
				split = func(g, mi, d int, left int32, coef *lnum, bc []int) {
					mv := moves[g][j]
					if left == 0 {
						rec(g+1, d, coef, bc)
						return
					}
					if mi == len(mv) {
						return
					}
					lo, hi := int32(0), left
					if mi == len(mv)-1 {
						lo = left
					}
					for q := range nq {
						if inc := mv[mi].bInc[q]; inc > 0 && c.cons[q].cmp != ">=" {
							hi = min(hi, int32((caps[q]-bc[q])/inc))
						}
					}
					nb := ints[d]
					x := &lnums[d]
					for k := lo; k <= hi; k++ {
						for q := range nq {
							nb[q] = min(bc[q]+int(k)*mv[mi].bInc[q], caps[q])
						}
						x.copyFrom(coef)
						x.mulPow(mv[mi].val, int64(k))
						x.addLog(-lf[k])
						ns[mv[mi].to] += k
						split(g, mi+1, d+1, left-k, x, nb)
						ns[mv[mi].to] -= k
					}
				}
				rec(0, 1, coef, bc)
				if terms > limit {
					return 0, &TermsError{Terms: terms, Limit: limit, Classes: G}
				}
			}
		}
		cur = next
		m.add(1)
	}
	total := newAcc(dim)
	for _, s := range cur {
		accept := true
		for q, cc := range c.cons {
			if cc.global && cc.cmp != "<=" && int(s.sizes[gIdx[q]]) != cc.k {
				accept = false
			}
		}
		for g, sz := range s.sizes[:G] {
			if sz == 0 {
				continue
			}
			_, cnt := decode(g)
			for q, cc := range c.cons {
				if !cc.global && cc.cmp != "<=" && cnt[q] != cc.k {
					accept = false
				}
			}
		}
		if !accept {
			continue
		}
		d := s.a.result(&val)
		digits = math.Max(digits, d)
		total.add(&val)
	}
	d := total.result(z)
	return math.Max(digits, d), nil
}

// move is how an element of a group can pair with a new element: the
// class of their pair weight, its value, the group the element moves to
// and what it adds to the new element's counts (and global totals).
type move struct {
	val   *lnum
	to    int
	bInc  []int
	class int
}

// step0s returns the group each cell's elements start in.
func step0s(c *countComp, u int) []int {
	out := make([]int, u)
	for j := range u {
		g := 0
		mult := 1
		for q, cc := range c.cons {
			if cc.global {
				continue
			}
			x := max(step0(cc, c.cellCnt[j][q]), 0)
			g += x * mult
			mult *= cc.k + 1
		}
		out[j] = g
	}
	return out
}

// estimate bounds, before the dynamic program starts, the states it will
// visit: the groups reachable from the cells' starting groups (reach), and
// per step m at most C(m+reach−1, reach−1) states times the totals of the
// global constraints, each tried for every cell.
func (c *countComp) estimate(n int64, moves [][][]move, u, ncnt int, caps []int, start []int) (float64, int) {
	seen := map[int]bool{}
	var stack []int
	for j := range u {
		g := j*ncnt + start[j]
		if !seen[g] {
			seen[g] = true
			stack = append(stack, g)
		}
	}
	for len(stack) > 0 {
		g := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for j := range moves[g] {
			for _, mv := range moves[g][j] {
				if !seen[mv.to] {
					seen[mv.to] = true
					stack = append(stack, mv.to)
				}
			}
		}
	}
	r := len(seen)
	totals := 1.0
	for q, cc := range c.cons {
		if cc.global {
			totals *= float64(caps[q] + 1)
		}
	}
	// Σ_{m<n} C(m+r−1, r−1) = C(n+r−1, r).
	a, _ := math.Lgamma(float64(n) + float64(r))
	b, _ := math.Lgamma(float64(r) + 1)
	d, _ := math.Lgamma(float64(n))
	sum := math.Exp(a - b - d)
	if n == 0 {
		sum = 0
	}
	return sum * totals * float64(u), r
}

// step0 is the count an element starts with (its reflexive atom), or −1
// when that already exceeds a bound "=" or "<=".
func step0(cc countCons, cnt int) int {
	if cnt > cc.k {
		if cc.cmp == ">=" {
			return cc.k
		}
		return -1
	}
	return cnt
}
