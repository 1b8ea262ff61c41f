package wfomc

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"sort"

	"github.com/lifted-dev/lifted/mln"
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
// at its bound), and the totals of the cardinality constraints. Adding an
// element b in cell j multiplies by w_j and, for every group of c
// elements, sums over how they split among the classes of the pair weight
// r_ij (the pair weight restricted to the values of the counted atoms
// between a and b: pairPolys) — the multinomial c!/Π n_l! times
// Π r_l^n_l — moving each element to the group of its new count and adding
// to b's own. The split is not enumerated jointly over the groups (a
// product of multinomials, which made the cost grow like n^10): counts
// only grow, so the groups are redistributed one at a time, largest
// counts first, and within a group one class at a time (a binomial
// each), the states merged after every class; the intermediate states
// are the group sizes, the elements of the current group still to place,
// and b's counts. A state is kept only while no count exceeds a bound "="
// or "<=" forbids and, for a cardinality constraint |P| = k or |P| <= k,
// while its total plus ρ times the count units its elements (and b, and
// the elements still to come) still miss stays within k, ρ the least
// number of P atoms a pair class adds per unit it covers (upperBounds):
// with |F| = n and ∃ y F(x,y) only the functions survive. At the end only
// states whose every element meets its bound count. Cell weights, pair
// weights and the terms are those of the cell algorithm (polys in e^θ,
// evaluated in log space with signs and the gradient carried along), so
// expected counts and queries come from the same pass. No
// inclusion–exclusion is involved: on models without Skolem predicates
// every term is positive, so the perfect matchings of 1,000 elements are
// summed without cancellation (the reduction to cardinality constraints of
// Kuželka 2021 cancels e^n between terms there).
//
// The number of states is a polynomial in n whose degree is the number of
// groups (cells × Π(k_q+1)) plus one per cardinality constraint, and a
// step costs the states times the classes times n; Evaluate refuses more
// than Options.MaxTerms terms, from a bound on the states before it starts
// or, where the cardinality bounds prune, from the growth of the steps so
// far. The WFOMC tool's permutations (|F1| = |F2| = n) take 0.8 CPU s at
// n = 100, its 2-regular graphs (|E| = 2n) 0.9 s at n = 40. Unary
// evidence splits the type into blocks: the state also counts the elements
// added from each block, every sequence of the blocks' elements is summed,
// and Z is divided by their number N!/Π n_b! (each gives the same sum
// without an order; with one, Σ over the orders of the elements is
// Π n_b! times the sum over the sequences, order.go). Supported: one type
// and no named constants in the component (otherwise Compile says so and
// the component is grounded where allowed).

// countCons is a counting constraint: for every element x of the type,
// the number of y with pred(x,y) (dir 0) or pred(y,x) (dir 1) is cmp k.
type countCons struct {
	pred int
	dir  int
	// global: a cardinality constraint |pred| cmp k on the number of true
	// atoms of pred (unary or binary), not a count per element.
	global bool
	cmp    string // "=", "<=", ">="; "free" for a member of a linear constraint
	k      int
	text   string
	// lin, coef: a member of the linear constraint problem.lins[lin−1]
	// (global, cmp "free"), with its coefficient; lin is 0 otherwise.
	lin  int
	coef int
}

// linCons is a linear cardinality constraint Σ coef·|pred| cmp k over the
// counts whose lin is its index + 1.
type linCons struct {
	cmp  string // "=", "<=", ">=", "!="
	k    int
	text string
}

func (l linCons) holds(s int64) bool {
	return (&mln.Cardinality{Cmp: l.cmp, K: l.k}).Holds(s)
}

// hasLin reports whether n has a linear cardinality constraint.
func hasLin(n *node) bool {
	if n.k == nLin {
		return true
	}
	for _, k := range n.kids {
		if hasLin(k) {
			return true
		}
	}
	return false
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

// countComp is a compiled component with counting constraints (or a
// linear order, order.go).
type countComp struct {
	pb       *problem
	typ      int
	params   []int
	polys    []poly // restricted to params
	cellPoly []int
	cellCnt  [][]int   // per cell: the counts its reflexive atoms give, per constraint
	pair     [][][]int // [i][j][class]: poly of the pair (a in i, b in j), −1 when zero
	cons     []countCons
	lins     []linCons
	maxTerms float64
	// The linear order (order.go): dead cells contradict LEQ(x,x) or
	// PREDk(x,x); the pair weights above are those of a before b with no
	// PREDk between them; pairDist[k] those of a exactly k places before b
	// (PREDk(a,b)), circEnd those of a the first and b the last element
	// of a circle (CIRCULAR_PRED(b,a)). maxDist is the largest k, circ
	// says whether the successor is circular.
	dead     []bool
	pairDist [][][][]int
	circEnd  [][][]int
	maxDist  int
	circ     bool
	// Evidence blocks: the elements of each block are added in every
	// order (their counters in the state) and Z divided by the number of
	// sequences; cellBlock is each cell's block.
	blocks    []cgroup
	cellBlock []int
	restFixed int64
}

// blockSizes returns the size of every evidence block at N elements.
func (c *countComp) blockSizes(N int64) ([]int64, error) {
	out := make([]int64, len(c.blocks))
	total := int64(0)
	for k, gr := range c.blocks {
		out[k] = gr.fixed
		if gr.rest {
			r := N - c.restFixed
			if r < 0 {
				return nil, fmt.Errorf("domain %s has %d elements, fewer than the constants it must hold", c.pb.types[c.typ].name, N+c.pb.types[c.typ].off)
			}
			out[k] += r
		}
		total += out[k]
	}
	if total != N {
		return nil, fmt.Errorf("domain %s: its evidence blocks hold %d elements, not %d", c.pb.types[c.typ].name, total, N)
	}
	return out, nil
}

func compileCount(pl *poller, pb *problem, dim int, blocks map[int][]blockSpec, restFixed map[int]int64) (*countComp, error) {
	what := "the linear order axiom"
	t := -1
	if len(pb.counts) > 0 {
		what = "counting quantifier (" + pb.counts[0].text + ")"
		t = pb.preds[pb.counts[0].pred].types[0]
	}
	var ords []int // the order predicates
	for i, p := range pb.preds {
		if p.ord != ordNone {
			ords = append(ords, i)
			if t < 0 {
				t = p.types[0]
			}
		}
	}
	unsupported := func(why string) error {
		return fmt.Errorf("%s: %s is not supported with it", what, why)
	}
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
	for _, p := range ords {
		b.mask[t] |= 1 << b.cellBit[p]
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
	c := &countComp{pb: pb, typ: t, cellPoly: cs.cellPoly, cons: pb.counts, lins: pb.lins, maxTerms: pl.maxTerms, dead: make([]bool, u), restFixed: restFixed[t]}
	blockOf := map[int]int{}
	for k, g := range b.groupsOf[t] {
		blockOf[g] = k
		c.blocks = append(c.blocks, b.groups[g])
	}
	for i := 0; i < u; i++ {
		c.cellBlock = append(c.cellBlock, blockOf[cs.cellGroup[i]])
	}
	for i := 0; i < u; i++ {
		cnt := make([]int, len(pb.counts))
		for q, cc := range pb.counts {
			cnt[q] = int(cs.proj[i] >> b.cellBit[cc.pred] & 1)
		}
		c.cellCnt = append(c.cellCnt, cnt)
		for _, p := range ords {
			refl := cs.proj[i]>>b.cellBit[p]&1 == 1
			if refl != (pb.preds[p].ord == ordLeq) {
				c.dead[i] = true
			}
		}
	}
	nbin := 0 // binary counted atoms: their values classify the pairs
	for _, cc := range pb.counts {
		if len(pb.preds[cc.pred].types) == 2 {
			nbin++
		}
	}
	tables := 1 // pair weight tables: see below
	for _, p := range ords {
		switch pb.preds[p].ord {
		case ordPred:
			tables = max(tables, 1+pb.preds[p].dist)
		case ordCirc:
			tables = 3
		}
	}
	ul := int64(0) // cells that the order leaves alive: only their pairs are computed
	for _, d := range c.dead {
		if !d {
			ul++
		}
	}
	if err := pl.spendPairs(ul*ul*int64(tables)<<(2*nbin), u); err != nil {
		return nil, err
	}
	nq := len(pb.counts)
	for _, p := range ords {
		switch pb.preds[p].ord {
		case ordPred:
			c.maxDist = max(c.maxDist, pb.preds[p].dist)
		case ordCirc:
			c.maxDist = max(c.maxDist, 1)
			c.circ = true
		}
	}
	// sel returns the values of the order atoms of the pair a before b:
	// LEQ(a,b), and PREDk(a,b) for k = dist (0: none), PRED(b,a) of a
	// circle's ends.
	sel := func(dist int, end bool) map[pairSlot]bool {
		x := map[pairSlot]bool{}
		for _, p := range ords {
			pr := pb.preds[p]
			ab := pr.ord == ordLeq || !end && dist > 0 && pr.dist == dist
			x[pairSlot{p, true}] = ab
			x[pairSlot{p, false}] = end && pr.ord == ordCirc
		}
		return x
	}
	c.pair = make([][][]int, u)
	c.pairDist = make([][][][]int, c.maxDist+1)
	for k := 1; k <= c.maxDist; k++ {
		c.pairDist[k] = make([][][]int, u)
	}
	if c.circ {
		c.circEnd = make([][][]int, u)
	}
	for i := 0; i < u; i++ {
		c.pair[i] = make([][]int, u)
		for k := 1; k <= c.maxDist; k++ {
			c.pairDist[k][i] = make([][]int, u)
		}
		if c.circ {
			c.circEnd[i] = make([][]int, u)
		}
		for j := 0; j < u; j++ {
			var err error
			table := func(fix map[pairSlot]bool) []int {
				ps, e := b.pairPolys(t, cs.proj[i], t, cs.proj[j], two, pb.counts, fix)
				if e != nil {
					err = e
					return nil
				}
				ids := make([]int, len(ps))
				for l, p := range ps {
					ids[l] = -1
					if len(p) > 0 {
						ids[l] = b.intern(p)
					}
				}
				return ids
			}
			if c.dead[i] || c.dead[j] {
				// Never used: no element is in a dead cell.
				table = func(map[pairSlot]bool) []int {
					ids := make([]int, 1<<(2*nq))
					for l := range ids {
						ids[l] = -1
					}
					return ids
				}
			}
			c.pair[i][j] = table(sel(0, false))
			for k := 1; k <= c.maxDist; k++ {
				c.pairDist[k][i][j] = table(sel(k, false))
			}
			if c.circ {
				c.circEnd[i][j] = table(sel(0, true))
			}
			if err != nil {
				return nil, err
			}
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

// eval computes log Z of the component with its gradient into z and
// returns the digits lost to cancellation.
func (c *countComp) eval(ctx context.Context, theta []float64, n []int64, z *lnum) (float64, error) {
	dim := len(c.params)
	vals := evalPolys(c.polys, c.params, theta)
	N := c.pb.size(c.typ, n)
	if len(c.lins) > 0 {
		// The members of linear constraints keep their totals up to the
		// number of atoms of their predicate: on a copy, their bound k is
		// that number (never reached as a limit).
		cc := *c
		cc.cons = append([]countCons(nil), c.cons...)
		for q, con := range cc.cons {
			if con.cmp != "free" {
				continue
			}
			atoms := int64(1)
			for range c.pb.preds[con.pred].types {
				atoms *= N
			}
			if atoms >= math.MaxInt32 {
				return 0, fmt.Errorf("%s: %s has %d atoms at this size, more than the counting dynamic program keeps a total of (2^31)", con.text, c.pb.preds[con.pred].name, atoms)
			}
			cc.cons[q].k = int(atoms)
		}
		// A member's total is bounded by the constraint itself, given the
		// most the others can add: with Σ a_i·t_i <= k (or =), a_q > 0,
		// a_q·t_q <= k − Σ_{a_i<0} a_i·max_i (the positive others add at
		// least 0); with >= (or =), a_q < 0, |a_q|·t_q <= Σ_{a_i>0}
		// a_i·max_i − k. A total beyond the bound has no accepted world, so
		// the dynamic program drops it as it drops a count past its k.
		for l, lc := range c.lins {
			neg, pos := int64(0), int64(0)
			for _, con := range cc.cons {
				if con.lin == l+1 {
					if con.coef < 0 {
						neg += int64(-con.coef) * int64(con.k)
					} else {
						pos += int64(con.coef) * int64(con.k)
					}
				}
			}
			for q, con := range cc.cons {
				if con.lin != l+1 {
					continue
				}
				bound := int64(con.k)
				switch {
				case con.coef > 0 && (lc.cmp == "=" || lc.cmp == "<="):
					bound = (int64(lc.k) + neg) / int64(con.coef)
				case con.coef < 0 && (lc.cmp == "=" || lc.cmp == ">="):
					bound = (pos - int64(lc.k)) / int64(-con.coef)
				}
				cc.cons[q].k = int(max(0, min(bound, int64(con.k))))
			}
		}
		c = &cc
	}
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
	movesOf := func(pair [][][]int) [][][]move {
		moves := make([][][]move, G)
		for g := 0; g < G; g++ {
			cell, cnt := decode(g)
			moves[g] = make([][]move, u)
			for j := 0; j < u; j++ {
				for cl, id := range pair[cell][j] {
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
				// The moves that change nothing (the element stays, b's counts
				// and the totals too) last: the last move takes the elements
				// left, and the others, which the bounds keep to a few
				// elements, then leave few distinct numbers pending.
				sort.SliceStable(moves[g][j], func(a, b int) bool {
					return !idle(moves[g][j][a], g) && idle(moves[g][j][b], g)
				})
			}
		}
		return moves
	}
	moves := movesOf(c.pair)
	// The linear order's successors (order.go): the window slots hold the
	// groups of the last maxDist elements added (slot k−1: k places
	// before the new one), kept out of the group sizes; on a circle slot 0
	// holds the first element and slot 1 the last. G: empty.
	nw := c.maxDist
	if c.circ {
		nw = 2
		if N > 0 && N < 3 {
			return 0, fmt.Errorf("CIRCULAR_PRED needs at least 3 elements, not %d", N)
		}
	}
	distMoves := make([][][][]move, c.maxDist+1)
	for k := 1; k <= c.maxDist; k++ {
		distMoves[k] = movesOf(c.pairDist[k])
	}
	var endMoves [][][]move
	if c.circ {
		endMoves = movesOf(c.circEnd)
	}
	// slotMoves is the table of slot w's element with the element added
	// at step s.
	slotMoves := func(w int, s int64) [][][]move {
		switch {
		case !c.circ:
			return distMoves[w+1]
		case w == 1:
			return distMoves[1]
		case s == 1:
			return distMoves[1]
		case s == N-1:
			return endMoves
		}
		return moves
	}
	ensureLogFact(N + 1)
	lf := logFactTable()
	limit := c.maxTerms
	if limit <= 0 {
		limit = DefaultMaxTerms
	}
	m := meterOf(ctx)
	m.addTotal(N)
	tk := newSumTicker(ctx)
	defer tk.flush()
	// Groups in the order their elements are redistributed: counts only
	// grow (and the cell stays), so every move leads to the group itself or
	// to one with a larger sum of counts, which comes earlier. Redistributing
	// group g then only adds to groups already redistributed (or to g's own
	// new elements, kept apart as pending until g is done), and the state
	// never needs the old and the new sizes side by side.
	order := make([]int, G)
	for g := range order {
		order[g] = g
	}
	cntSum := func(g int) int {
		_, cnt := decode(g)
		s := 0
		for _, x := range cnt {
			s += x
		}
		return s
	}
	sort.SliceStable(order, func(a, b int) bool { return cntSum(order[a]) > cntSum(order[b]) })
	// Pruning by the upper bounds of global constraints (|P| = k, |P| <= k)
	// when per-element counts must still grow (∃≥k, ∃=k): every pair class
	// that raises an element's count by one unit raises the total of P by
	// at least ρ = min over classes of (P atoms)/(count units), so a state
	// whose total plus ρ times the units still missing (its elements', the
	// new element's and the minimum of every element still to come)
	// exceeds k has no accepted completion. With |F| = n and ∃≥1 y F(x,y)
	// this keeps exactly the functions, as ∃=1 would.
	def := make([]int64, G)
	for g := range G {
		_, cnt := decode(g)
		for q, cc := range c.cons {
			if !cc.global && cc.cmp != "<=" {
				def[g] += int64(max(0, cc.k-cnt[q]))
			}
		}
	}
	fdef := int64(-1)
	for j := range u {
		if vals[c.cellPoly[j]].isExactZero() || c.dead[j] {
			continue
		}
		d := int64(0)
		for q, cc := range c.cons {
			if !cc.global && cc.cmp != "<=" {
				d += int64(max(0, cc.k-c.cellCnt[j][q]))
			}
		}
		if fdef < 0 || d < fdef {
			fdef = d
		}
	}
	fdef = max(fdef, 0)
	bounds := c.upperBounds(vals)
	// fits says whether a state can still meet the bounds: sizes, the
	// pending elements of group g, the new element's counts bc (nil after
	// the step), the totals, and rem elements still to come.
	fits := func(sizes []int32, win []int32, g int, pend int32, bc []int32, tot func(q int64) int32, rem int64) bool {
		if len(bounds) == 0 {
			return true
		}
		D := rem * fdef
		for g2, sz := range sizes {
			D += int64(sz) * def[g2]
		}
		for _, g2 := range win {
			if int(g2) < G {
				D += def[g2]
			}
		}
		if pend > 0 {
			D += int64(pend) * def[g]
		}
		for q, cc := range c.cons {
			if bc != nil && !cc.global && cc.cmp != "<=" {
				D += int64(max(0, cc.k-int(bc[q])))
			}
		}
		for _, b := range bounds {
			if int64(tot(b.q))*b.den+b.num*D > int64(c.cons[b.q].k)*b.den {
				return false
			}
		}
		return true
	}
	// linFits says whether a state after m elements can still meet the
	// linear constraints: a member's total only grows, by at most the atoms
	// of its predicate not among the first m elements (N^r − m^r), so the
	// sum ends within [Σ a·tot + Σ_{a<0} a·rem, Σ a·tot + Σ_{a>0} a·rem].
	linFits := func(tot func(q int) int64, m int64) bool {
		for l, lc := range c.lins {
			if lc.cmp == "!=" {
				continue
			}
			sum, lo, hi := int64(0), int64(0), int64(0)
			for q, cc := range c.cons {
				if cc.lin != l+1 {
					continue
				}
				a := int64(cc.coef)
				sum += a * tot(q)
				rem, dec := int64(1), int64(1) // N^r − m^r
				for range c.pb.preds[cc.pred].types {
					rem *= N
					dec *= m
				}
				rem -= dec
				if a < 0 {
					lo += a * rem
				} else {
					hi += a * rem
				}
			}
			k := int64(lc.k)
			switch {
			case lc.cmp != ">=" && sum+lo > k, lc.cmp != "<=" && sum+hi < k:
				return false
			}
		}
		return true
	}
	midTot := func(key []int32) func(q int64) int32 {
		return func(q int64) int32 { return key[G+1+int(q)] }
	}
	// Without pruning the states are bounded before starting; with it they
	// are far fewer (the bound would refuse permutations at n = 60 that
	// take a second), so the terms are projected from the growth of the
	// steps so far instead (below).
	live := make([]bool, u)
	nlive := 0
	for j := range u {
		live[j] = !vals[c.cellPoly[j]].isExactZero() && !c.dead[j]
		if live[j] {
			nlive++
		}
	}
	est, reach := c.estimate(N, moves, u, ncnt, caps, step0s(c, u), live)
	est = est / float64(u) * float64(nlive)
	est *= math.Pow(float64(G+1), float64(nw))
	if bs, err := c.blockSizes(N); err == nil && len(bs) > 1 {
		for _, sz := range bs {
			est *= float64(sz + 1)
		}
	}
	// With evidence blocks or a successor's window the bound is far too
	// loose (the blocks' cells and the window's tables leave few states):
	// projected from the steps instead, as with pruning.
	project := len(bounds) > 0 || len(c.blocks) > 1 || nw > 0 || len(c.lins) > 0
	if !project && est > limit {
		return 0, &TermsError{Terms: est, Limit: limit, Classes: reach}
	}
	prevTerms, stepTerms := 0.0, 0.0
	pool := &accPool{dim: dim}
	// cur holds the states between steps: the group sizes, then the totals
	// of the global constraints. A layer (mid) holds the states within a
	// step: the group sizes, the pending elements of the group being
	// redistributed, and the new element's counts (for a global
	// constraint: the new total).
	W := G + 1 + nq
	// The largest value of every key position, so that keys pack into one
	// word where they fit; the window slots come last in both.
	// Evidence blocks (order.go): with more than one, the counters of the
	// elements added from each come after the window slots.
	bsize, err := c.blockSizes(N)
	if err != nil {
		return 0, err
	}
	nb := len(bsize)
	if nb == 1 {
		nb = 0
	}
	MW, SW := W+nw+nb, S+nw+nb
	most := make([]int64, MW)
	for i := range G + 1 {
		most[i] = N
	}
	for q := range nq {
		most[G+1+q] = int64(caps[q])
	}
	mostS := append([]int64(nil), most[:G]...)
	for q, cc := range c.cons {
		if cc.global {
			mostS = append(mostS, int64(caps[q]))
		}
	}
	for w := range nw {
		most[W+w] = int64(G)
		mostS = append(mostS, int64(G))
	}
	for bl := range nb {
		most[W+nw+bl] = bsize[bl]
		mostS = append(mostS, bsize[bl])
	}
	cur := newDPLayer(mostS)
	next := newDPLayer(mostS)
	mid := newDPLayer(most)
	nxt := newDPLayer(most)
	one := newLnum(dim)
	one.setOne()
	init := make([]int32, SW)
	for w := range nw {
		init[S+w] = int32(G)
	}
	cur.add(init, &one, pool)
	digits := 0.0
	terms := 0.0
	val := newLnum(dim)
	x := newLnum(dim)
	key := make([]int32, max(S, W)+nw+nb)
	win := func(k []int32, off int) []int32 { return k[off : off+nw] }
	for step := int64(0); step < N; step++ {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		next.reset(pool)
		for j := 0; j < u; j++ {
			wj := &vals[c.cellPoly[j]]
			if wj.isExactZero() || c.dead[j] {
				continue
			}
			// The new element's own counts, its cell weight.
			mid.reset(pool)
			for s := 0; s < cur.len(); s++ {
				sk := cur.key(s)
				digits = math.Max(digits, cur.vals[s].result(&val))
				if val.isExactZero() {
					continue
				}
				copy(key, sk[:G])
				key[G] = 0
				okb := true
				for q := range nq {
					cnt := c.cellCnt[j][q]
					if c.cons[q].global {
						cnt += int(sk[gIdx[q]])
					}
					b := step0(c.cons[q], cnt)
					okb = okb && b >= 0
					key[G+1+q] = int32(b)
				}
				if !okb {
					continue
				}
				if nb > 0 && int64(sk[S+nw+c.cellBlock[j]]) >= bsize[c.cellBlock[j]] {
					continue // the block is full
				}
				copy(key[W:MW], sk[S:SW])
				if !fits(key[:G], win(key, W), 0, 0, key[G+1:W], midTot(key), N-step-1) {
					continue
				}
				x.copyFrom(&val)
				x.mulPow(wj, 1)
				mid.add(key[:MW], &x, pool)
			}
			// The elements of the window slots, each with its own table.
			for w := range nw {
				mvs := slotMoves(w, step)
				nxt.reset(pool)
				for s := 0; s < mid.len(); s++ {
					sk := mid.key(s)
					digits = math.Max(digits, mid.vals[s].result(&val))
					if val.isExactZero() {
						continue
					}
					g := sk[W+w]
					if int(g) == G {
						nxt.add(sk, &val, pool)
						continue
					}
				moveLoop:
					for _, mv := range mvs[g][j] {
						copy(key, sk)
						for q := range nq {
							v := int(sk[G+1+q]) + mv.bInc[q]
							if v > caps[q] {
								if c.cons[q].cmp != ">=" {
									continue moveLoop
								}
								v = caps[q]
							}
							key[G+1+q] = int32(v)
						}
						key[W+w] = int32(mv.to)
						if !fits(key[:G], win(key, W), 0, 0, key[G+1:W], midTot(key), N-step-1) {
							continue
						}
						if !tk.tick() {
							return 0, tk.err
						}
						terms++
						x.copyFrom(&val)
						x.mulPow(mv.val, 1)
						nxt.add(key[:MW], &x, pool)
					}
				}
				mid, nxt = nxt, mid
			}
			// Redistribute the elements of each group among its moves.
			for _, g := range order {
				mv := moves[g][j]
				any := false
				for s := 0; s < mid.len() && !any; s++ {
					any = mid.key(s)[g] > 0
				}
				if !any {
					continue
				}
				for mi := range mv {
					last := mi == len(mv)-1
					nxt.reset(pool)
					for s := 0; s < mid.len(); s++ {
						sk := mid.key(s)
						digits = math.Max(digits, mid.vals[s].result(&val))
						if val.isExactZero() {
							continue
						}
						copy(key, sk)
						p := key[G]
						if mi == 0 {
							p = key[g]
							key[g] = 0
						}
						lo, hi := int32(0), p
						if last {
							lo = p
						}
						for q := range nq {
							if inc := mv[mi].bInc[q]; inc > 0 && c.cons[q].cmp != ">=" {
								hi = min(hi, int32((caps[q]-int(key[G+1+q]))/inc))
							}
						}
						for k := lo; k <= hi; k++ {
							if !tk.tick() {
								return 0, tk.err
							}
							key[G] = p - k
							key[mv[mi].to] += k
							for q := range nq {
								key[G+1+q] = int32(min(int(sk[G+1+q])+int(k)*mv[mi].bInc[q], caps[q]))
							}
							if !fits(key[:G], win(key, W), g, key[G], key[G+1:W], midTot(key), N-step-1) {
								// Each more element on this move adds at
								// least ρ·(units it covers) to the totals:
								// larger k fits no better.
								key[mv[mi].to] -= k
								break
							}
							if len(c.lins) > 0 && !linFits(func(q int) int64 { return int64(key[G+1+q]) }, step) {
								// The new element's pairs not yet placed are
								// among the atoms still to come after step
								// elements: the bound stays sound.
								key[mv[mi].to] -= k
								continue
							}
							terms++
							x.copyFrom(&val)
							if k > 0 {
								x.mulPow(mv[mi].val, int64(k))
								x.addLog(lf[p] - lf[k] - lf[p-k])
							}
							nxt.add(key[:MW], &x, pool)
							key[mv[mi].to] -= k
						}
					}
					mid, nxt = nxt, mid
				}
				if len(mv) == 0 {
					// No move: a state with elements in g has no world.
					nxt.reset(pool)
					for s := 0; s < mid.len(); s++ {
						if mid.key(s)[g] == 0 {
							mid.vals[s].result(&val)
							nxt.add(mid.key(s), &val, pool)
						}
					}
					mid, nxt = nxt, mid
				}
				if terms > limit {
					return 0, &TermsError{Terms: terms, Limit: limit, Classes: G}
				}
			}
			// Add the new element to its group.
			for s := 0; s < mid.len(); s++ {
				sk := mid.key(s)
				digits = math.Max(digits, mid.vals[s].result(&val))
				if val.isExactZero() {
					continue
				}
				copy(key, sk[:G])
				bc := make([]int, nq)
				for q := range nq {
					bc[q] = int(sk[G+1+q])
					if c.cons[q].global {
						key[gIdx[q]] = sk[G+1+q]
					}
				}
				// The new element joins its group, or the window, whose
				// oldest element joins its group.
				ws := key[S : S+nw]
				copy(key[S:SW], sk[W:MW])
				if nb > 0 {
					key[S+nw+c.cellBlock[j]]++
				}
				switch {
				case nw == 0:
					key[encode(j, bc)]++
				case c.circ && step == 0:
					ws[0] = int32(encode(j, bc))
				case c.circ:
					if int(ws[1]) < G {
						key[ws[1]]++
					}
					ws[1] = int32(encode(j, bc))
				default:
					if int(ws[nw-1]) < G {
						key[ws[nw-1]]++
					}
					copy(ws[1:], ws[:nw-1])
					ws[0] = int32(encode(j, bc))
				}
				if fits(key[:G], ws, 0, 0, nil, func(q int64) int32 { return key[gIdx[q]] }, N-step-1) && linFits(func(q int) int64 { return int64(key[gIdx[q]]) }, step+1) {
					next.add(key[:SW], &val, pool)
				}
			}
		}
		cur, next = next, cur
		m.add(1)
		// Project the terms of the steps left from the growth of the last
		// two (a polynomial in the step of degree d, d measured), and
		// refuse once the projection passes the limit.
		prevTerms, stepTerms = stepTerms, terms-prevTerms-stepTerms
		// A linear constraint prunes more as the atoms still to come run
		// out, so its early steps grow faster than the later ones: projected
		// from the second third of the steps on.
		if project && step >= 8 && (len(c.lins) == 0 || step >= N/3) && terms > 1e5 && prevTerms > 0 && stepTerms > prevTerms {
			d := math.Log(stepTerms/prevTerms) / math.Log(float64(step+1)/float64(step))
			d = min(d, float64(2*G+nq+2))
			proj := terms
			for r := step + 1; r < N && proj <= limit; r++ {
				proj += stepTerms * math.Pow(float64(r+1)/float64(step+1), d)
			}
			if proj > limit {
				return 0, &TermsError{Terms: proj, Limit: limit, Classes: reach}
			}
		}
	}
	total := newAcc(dim)
	for s := 0; s < cur.len(); s++ {
		sk := cur.key(s)
		accept := true
		for q, cc := range c.cons {
			if cc.global && cc.cmp != "<=" && cc.cmp != "free" && int(sk[gIdx[q]]) != cc.k {
				accept = false
			}
		}
		for l, lc := range c.lins {
			sum := int64(0)
			for q, cc := range c.cons {
				if cc.lin == l+1 {
					sum += int64(cc.coef) * int64(sk[gIdx[q]])
				}
			}
			accept = accept && lc.holds(sum)
		}
		for g := range G + nw {
			if g < G && sk[g] == 0 || g >= G && int(sk[S+g-G]) == G {
				continue
			}
			if g >= G {
				g = int(sk[S+g-G])
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
		d := cur.vals[s].result(&val)
		digits = math.Max(digits, d)
		total.add(&val)
	}
	d := total.result(z)
	if nb > 0 {
		// Every sequence of the blocks' elements was summed: divide by
		// their number, N!/Π n_b!.
		lm, _ := math.Lgamma(float64(N) + 1)
		for _, sz := range bsize {
			l, _ := math.Lgamma(float64(sz) + 1)
			lm -= l
		}
		z.addLog(-lm)
	}
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
// global constraints on binary predicates (the cells fix a unary total),
// each tried for every cell.
func (c *countComp) estimate(n int64, moves [][][]move, u, ncnt int, caps []int, start []int, live []bool) (float64, int) {
	seen := map[int]bool{}
	var stack []int
	for j := range u {
		if c.dead[j] || live != nil && !live[j] {
			continue
		}
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
		// The total of a unary predicate is the number of elements in the
		// cells where it holds: the group sizes fix it.
		if cc.global && len(c.pb.preds[cc.pred].types) != 1 {
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

// dpLayer is a set of states of the dynamic program, in the order they were
// first reached (so that sums run in the same order on every run): a key of
// w int32s per state and its weight. Keys whose positions' ranges fit in
// 64 bits are looked up packed into one word, others as strings.
type dpLayer struct {
	w     int
	keys  []int32
	vals  []*acc
	shift []uint // bit offset of every position, nil when they do not fit
	words map[uint64]int32
	idx   map[string]int32
	kbuf  []byte
}

// newDPLayer returns an empty layer whose key position i is in [0, most[i]].
func newDPLayer(most []int64) *dpLayer {
	l := &dpLayer{w: len(most), words: map[uint64]int32{}, idx: map[string]int32{}, kbuf: make([]byte, 4*len(most))}
	off := uint(0)
	shift := make([]uint, len(most))
	for i, m := range most {
		shift[i] = off
		off += uint(bits.Len64(uint64(max(m, 0))))
	}
	if off <= 64 {
		l.shift = shift
	}
	return l
}

func (l *dpLayer) len() int { return len(l.vals) }

func (l *dpLayer) key(s int) []int32 { return l.keys[s*l.w : (s+1)*l.w] }

// reset empties the layer, its accumulators back to the pool.
func (l *dpLayer) reset(p *accPool) {
	p.free = append(p.free, l.vals...)
	l.vals = l.vals[:0]
	l.keys = l.keys[:0]
	clear(l.words)
	clear(l.idx)
}

// add adds x to the weight of the state key.
func (l *dpLayer) add(key []int32, x *lnum, p *accPool) {
	var s int32
	var ok bool
	if l.shift != nil {
		var k uint64
		for i, v := range key {
			k |= uint64(v) << l.shift[i]
		}
		if s, ok = l.words[k]; !ok {
			s = int32(len(l.vals))
			l.words[k] = s
		}
	} else {
		for i, v := range key {
			binary.LittleEndian.PutUint32(l.kbuf[4*i:], uint32(v))
		}
		if s, ok = l.idx[string(l.kbuf)]; !ok {
			s = int32(len(l.vals))
			l.idx[string(l.kbuf)] = s
		}
	}
	if !ok {
		l.keys = append(l.keys, key...)
		l.vals = append(l.vals, p.get())
	}
	l.vals[s].add(x)
}

// accPool recycles the accumulators of the layers.
type accPool struct {
	dim  int
	free []*acc
}

func (p *accPool) get() *acc {
	if n := len(p.free); n > 0 {
		a := p.free[n-1]
		p.free = p.free[:n-1]
		a.reset()
		return a
	}
	return newAcc(p.dim)
}

// ubound is a bound the dynamic program prunes by: the total of global
// constraint q, plus ρ = num/den times the count units still missing,
// is at most its k (total·den + num·missing ≤ k·den).
type ubound struct{ q, num, den int64 }

// upperBounds returns, for every global constraint with an upper bound
// (|P| = k, |P| <= k), ρ = the least number of P atoms per count unit
// (of the per-element constraints ∃≥k, ∃=k) over the pair classes of
// non-zero weight (vals), when it is positive.
func (c *countComp) upperBounds(vals []lnum) []ubound {
	var out []ubound
	u := len(c.cellPoly)
	for q, cc := range c.cons {
		if !cc.global || cc.cmp == ">=" || cc.cmp == "free" {
			continue
		}
		num, den := int64(-1), int64(1)
		for i := range u {
			for j := range u {
				for cl, id := range c.pair[i][j] {
					if id < 0 || vals[id].isExactZero() {
						continue
					}
					units := int64(0)
					for q2, c2 := range c.cons {
						if !c2.global && c2.cmp != "<=" {
							units += int64(cl>>(2*q2)&1 + cl>>(2*q2+1)&1)
						}
					}
					if units == 0 {
						continue
					}
					inc := int64(cl>>(2*q)&1 + cl>>(2*q+1)&1)
					if num < 0 || inc*den < num*units {
						num, den = inc, units
					}
				}
			}
		}
		if num > 0 {
			out = append(out, ubound{int64(q), num, den})
		}
	}
	return out
}

// prunes says whether the dynamic program prunes by a bound at weights
// theta (for tests).
func (c *countComp) prunes(theta []float64) bool {
	return len(c.upperBounds(evalPolys(c.polys, c.params, theta))) > 0
}

// idle says whether mv leaves an element of group g where it is and adds
// nothing to the new element's counts or the totals.
func idle(mv move, g int) bool {
	if mv.to != g {
		return false
	}
	for _, x := range mv.bInc {
		if x != 0 {
			return false
		}
	}
	return true
}
