package wfomc

import (
	"context"
	"fmt"
	"math"
	"math/bits"
	"runtime"
	"slices"
	"sync"
)

// Conditioning on projection counts: a second way to sum over the cell
// counts of one case, for models whose pair weight splits into factors that
// each read only some of the cell atoms of one of the two elements.
//
// The pair weight between cells i and j is a product over the connected
// components of its binary atoms (formulas that share a binary atom between
// the two elements are in one component, a formula without one is a
// component of its own): r_ij = Π_C φ_C(i, j). A component reads some cell
// atoms of the first element and some of the second. Pick, per type, a set S
// of cell atoms such that every component reads only atoms of S on at least
// one side, and call the projection of a cell onto S its class. Then
//
//	r_ij = ψ(i, [j]) · ψ(j, [i]) · κ([i], [j])
//
// where ψ(i, u) is the product of the components that read only S-atoms of
// the second element (evaluated with i first and any cell of class u
// second), and κ the product of those that read only S-atoms on both sides.
// With c_u elements in class u, every element a in cell i of class v has
// the pair factors Π_u ψ(i,u)^(c_u − [u = v]) with all other elements, so
// given the class counts the elements choose their cells independently:
//
//	Z = Σ_c Π_groups multinomial(n_g; c) · Π_v κ(v,v)^C(c_v,2) · Π_{v<u} κ(v,u)^(c_v·c_u)
//	      · Π_v H_v(c)^c_v,   H_v(c) = Σ_{i ∈ v} w_i · ψ(i,v)^(c_v−1) · Π_{u≠v} ψ(i,u)^c_u.
//
// The sum runs over the class counts only: with S smaller than the atoms the
// pair weights read, far fewer terms than over the cell counts. The model
// with five unary and two binary predicates whose formulas read A, C, E of
// one element and B, D, A of the other (F) and B, D and C, E (G) has 32
// cells, but S = {A, B, D} has 8 classes: C(n+7, 7) terms instead of
// C(n+31, 31). The split is checked symbolically: the product
// ψ·ψ·κ must equal the pair poly of every pair of cells, or the case keeps
// the plain plan. Evaluate uses whichever of the two has fewer terms.

// condMaxCells bounds the cells of a case for which conditioning is tried
// (its check multiplies polys for every pair of cells).
const condMaxCells = 128

// condMaxComps bounds the pair-factor components whose sides are
// searched for the sets S (2^condMaxComps choices).
const condMaxComps = 12

// condMaxChecks bounds the pairs of cells whose split is checked in one
// compilation of a component, over all its cases.
const condMaxChecks = 1 << 18

// condMode: 0 picks the plan with fewer terms; 1 uses conditioning whenever
// a case has it; −1 never (tests compare the two).
var condMode = 0

// condPlan is the conditioned summation of one case.
type condPlan struct {
	classGrp    []int    // per class: its group (classes sorted by group)
	lastOfGroup []bool   // per class: the last class of its group
	members     [][]int  // per class: its members (indices into weight and psi)
	weight      []int    // per member: poly of its weight (cells with equal ψ rows merged)
	psi         [][]int  // per member, per class: poly ψ(member, class)
	kappa       [][]int  // per class pair (symmetric): poly κ
	classOf     []int    // per member: its class
	perGroup    []int    // per group: number of classes
	bits        []uint64 // per type of the case: the chosen S
}

// pairComp is a connected component of the pair factors of a pairFactors.
type pairComp struct {
	facs         []int
	slots        uint64 // slot positions (absolute bit positions)
	readA, readB uint64 // cell bits of a and of b it reads
}

func (pf *pairFactors) components() []pairComp {
	n := len(pf.facs)
	uf := newUnionFind(n)
	find := uf.find
	slotMask := ^uint64(0) << pf.base
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			if pf.reads[i]&pf.reads[j]&slotMask != 0 {
				uf.union(i, j)
			}
		}
	}
	idx := map[int]int{}
	var out []pairComp
	for i := 0; i < n; i++ {
		r := find(i)
		k, ok := idx[r]
		if !ok {
			k = len(out)
			idx[r] = k
			out = append(out, pairComp{})
		}
		c := &out[k]
		c.facs = append(c.facs, i)
		c.slots |= pf.reads[i] & slotMask
		c.readA |= pf.reads[i] & (1<<pf.ma - 1)
		c.readB |= pf.reads[i] >> pf.ma & (1<<pf.mb - 1)
	}
	return out
}

// compPoly computes the product of the components listed (a's projection
// pa, b's pb), summing over their slots.
func (b *cellBuilder) compPoly(pf *pairFactors, comps []pairComp, which []int, pa, pbits uint64) poly {
	out := poly{mono{c: 1, e: make([]int32, b.dim)}}
	fixed := pa | pbits<<pf.ma
	e := make([]int32, b.dim)
	for _, k := range which {
		c := comps[k]
		var pos []uint
		for m := c.slots; m != 0; m &= m - 1 {
			pos = append(pos, uint(bits.TrailingZeros64(m)))
		}
		pbd := newPolyBuilder(b.dim)
		for s := uint64(0); s < 1<<len(pos); s++ {
			x := fixed
			for q, p := range pos {
				x |= (s >> q & 1) << p
			}
			if evalFactors(pf.facs, c.facs, x, e) {
				pbd.add(1, e)
			}
		}
		out = mulPoly(b.dim, out, pbd.poly())
	}
	return out
}

// conditionCase builds cs.cond when some choice of S has fewer classes
// than the case has cells and the split checks out.
func (b *cellBuilder) conditionCase(cs *cellCase, two []ff) {
	u := len(cs.cellGroup)
	if u < 3 || u > condMaxCells || b.condChecks+int64(u)*int64(u+1)/2 > condMaxChecks {
		return
	}
	// Types of the case, their pair computations and components.
	var types []int
	tIdx := map[int]int{}
	for _, g := range cs.cellGroup {
		t := b.groups[g].typ
		if _, ok := tIdx[t]; !ok {
			tIdx[t] = len(types)
			types = append(types, t)
		}
	}
	nt := len(types)
	pfs := make([][]*pairFactors, nt)
	comps := make([][][]pairComp, nt)
	for x, ta := range types {
		pfs[x] = make([]*pairFactors, nt)
		comps[x] = make([][]pairComp, nt)
		for y, tb := range types {
			pf, err := b.pairSetup(ta, tb, two)
			if err != nil {
				return
			}
			pfs[x][y] = pf
			comps[x][y] = pf.components()
		}
	}
	// The candidate sets S: every component reads only S-atoms on one of
	// its sides, so S is the union, over the components, of the side each
	// is given (a superset only adds classes).
	type compSides struct {
		x, y         int
		readA, readB uint64
	}
	var all []compSides
	for x := range types {
		for y := range types {
			for _, c := range comps[x][y] {
				all = append(all, compSides{x, y, c.readA, c.readB})
			}
		}
	}
	if len(all) > condMaxComps {
		return
	}
	ng := len(b.groups)
	cellsIn := make([]int, ng)
	for _, g := range cs.cellGroup {
		cellsIn[g]++
	}
	plain := 0
	for _, n := range cellsIn {
		plain += max(n-1, 0)
	}
	best, bestCost := []uint64(nil), plain
	tried := map[string]bool{}
	seen := map[[2]uint64]bool{}
	S := make([]uint64, nt)
	for code := 0; code < 1<<len(all); code++ {
		b.pl.poll()
		clear(S)
		for q, c := range all {
			if code>>q&1 == 0 {
				S[c.x] |= c.readA
			} else {
				S[c.y] |= c.readB
			}
		}
		key := fmt.Sprint(S)
		if tried[key] {
			continue
		}
		tried[key] = true
		clear(seen)
		cost := 0
		for i, g := range cs.cellGroup {
			k := [2]uint64{uint64(g), cs.proj[i] & S[tIdx[b.groups[g].typ]]}
			if !seen[k] {
				seen[k] = true
				cost++
			}
		}
		for _, n := range cellsIn {
			if n > 0 {
				cost--
			}
		}
		if cost < bestCost {
			best, bestCost = slices.Clone(S), cost
		}
	}
	if best == nil {
		return
	}
	S = best
	// Classes: (group, projection onto S), in the order of the cells
	// (sorted by group).
	type classKey struct {
		g    int
		proj uint64
	}
	p := &condPlan{perGroup: make([]int, ng), bits: S}
	classIdx := map[classKey]int{}
	cellClass := make([]int, u)
	var rep []int // per class: a representative cell
	for i, g := range cs.cellGroup {
		k := classKey{g, cs.proj[i] & S[tIdx[b.groups[g].typ]]}
		ci, ok := classIdx[k]
		if !ok {
			ci = len(p.classGrp)
			classIdx[k] = ci
			p.classGrp = append(p.classGrp, g)
			rep = append(rep, i)
			p.perGroup[g]++
		}
		cellClass[i] = ci
	}
	nc := len(p.classGrp)
	for ci := range p.classGrp {
		p.lastOfGroup = append(p.lastOfGroup, ci == nc-1 || p.classGrp[ci+1] != p.classGrp[ci])
	}
	// The sides of every component.
	type sides struct{ a, both []int }
	side := make([][]sides, nt)
	for x := range types {
		side[x] = make([]sides, nt)
		for y := range types {
			for k, c := range comps[x][y] {
				inA, inB := c.readA&^S[x] == 0, c.readB&^S[y] == 0
				switch {
				case inA && inB:
					side[x][y].both = append(side[x][y].both, k)
				case inB:
					side[x][y].a = append(side[x][y].a, k)
				}
			}
		}
	}
	typeOf := func(cell int) int { return tIdx[b.groups[cs.cellGroup[cell]].typ] }
	// ψ per cell and class, κ per pair of classes.
	psi := make([][]int, u)
	for i := 0; i < u; i++ {
		psi[i] = make([]int, nc)
		x := typeOf(i)
		for v := 0; v < nc; v++ {
			y := typeOf(rep[v])
			psi[i][v] = b.intern(b.compPoly(pfs[x][y], comps[x][y], side[x][y].a, cs.proj[i], cs.proj[rep[v]]))
		}
	}
	p.kappa = make([][]int, nc)
	for v := range p.kappa {
		p.kappa[v] = make([]int, nc)
	}
	for v := 0; v < nc; v++ {
		x := typeOf(rep[v])
		for w := v; w < nc; w++ {
			y := typeOf(rep[w])
			k := b.intern(b.compPoly(pfs[x][y], comps[x][y], side[x][y].both, cs.proj[rep[v]], cs.proj[rep[w]]))
			p.kappa[v][w], p.kappa[w][v] = k, k
		}
	}
	// The check: r_ij = ψ(i,[j])·ψ(j,[i])·κ([i],[j]) for every pair of
	// cells (two elements in one cell included).
	b.condChecks += int64(u) * int64(u+1) / 2
	for i := 0; i < u; i++ {
		for j := i; j < u; j++ {
			b.pl.poll()
			ci, cj := cellClass[i], cellClass[j]
			prod := mulPoly(b.dim, mulPoly(b.dim, b.polys[psi[i][cj]], b.polys[psi[j][ci]]), b.polys[p.kappa[ci][cj]])
			if prod.key() != b.polys[cs.pair[i][j]].key() {
				return
			}
		}
	}
	// Members: cells of a class with the same ψ row act as one cell whose
	// weight is the sum of theirs.
	p.members = make([][]int, nc)
	rowKey := func(i int) string {
		var k []byte
		for _, id := range psi[i] {
			k = append(k, byte(id), byte(id>>8), byte(id>>16), byte(id>>24))
		}
		return string(k)
	}
	type memberKey struct {
		class int
		row   string
	}
	var wb []*polyBuilder
	memberOf := map[memberKey]int{}
	for i := 0; i < u; i++ {
		key := memberKey{cellClass[i], rowKey(i)}
		m, ok := memberOf[key]
		if !ok {
			m = len(wb)
			memberOf[key] = m
			wb = append(wb, newPolyBuilder(b.dim))
			p.psi = append(p.psi, psi[i])
			p.classOf = append(p.classOf, cellClass[i])
			p.members[cellClass[i]] = append(p.members[cellClass[i]], m)
		}
		wb[m].addPoly(1, b.polys[cs.cellPoly[i]])
	}
	for _, pbd := range wb {
		p.weight = append(p.weight, b.intern(pbd.poly()))
	}
	cs.cond = p
}

// condTerms is the number of terms of the conditioned sum: compositions of
// every group's size into its classes.
func condTerms(c *fo2Comp, p *condPlan, sizes []int64) float64 {
	total := 1.0
	for g := range c.groups {
		n := float64(sizes[g])
		t := 1.0
		for i := 1; i < p.perGroup[g]; i++ {
			t *= (n + float64(i)) / float64(i)
		}
		total *= t
	}
	return total
}

// useCond says whether a case is summed by conditioning (condMode).
func useCond(c *fo2Comp, cs *cellCase, sizes []int64) bool {
	if cs.cond == nil || condMode < 0 {
		return false
	}
	return condMode > 0 || condTerms(c, cs.cond, sizes) < countTerms(c, cs, sizes)
}

// caseTerms is the number of terms of a case's sum, by the plan Evaluate
// uses.
func caseTerms(c *fo2Comp, cs *cellCase, sizes []int64) float64 {
	if useCond(c, cs, sizes) {
		return condTerms(c, cs.cond, sizes)
	}
	return countTerms(c, cs, sizes)
}

// condState is the working memory of one conditioned summation.
type condState struct {
	ctx    context.Context
	p      *condPlan
	vals   []lnum
	lf     []float64
	rem    []int64  // per group: elements not yet placed
	cnt    []int64  // per class: its count
	lw     [][]lnum // per level, per member: its weight with the ψ factors of the classes placed
	kw     [][]lnum // per level, per class: Π κ(class, u)^c_u over the classes u placed
	term   []lnum   // per level: the partial term
	h, x   lnum
	hacc   *acc
	acc    *acc
	errLog float64 // log of the error bound of the terms from cancellation inside the H_v (units of 2^-53; −Inf: none)
	sumTicker
}

func newCondState(ctx context.Context, dim int, p *condPlan, vals []lnum, lf []float64, sizes []int64, start *lnum) *condState {
	nc, nm := len(p.classGrp), len(p.weight)
	s := &condState{sumTicker: newSumTicker(ctx), p: p, vals: vals, lf: lf, rem: slices.Clone(sizes), cnt: make([]int64, nc),
		lw: make([][]lnum, nc+1), kw: make([][]lnum, nc+1), term: make([]lnum, nc+1),
		h: newLnum(dim), x: newLnum(dim), hacc: newAcc(dim), acc: newAcc(dim), errLog: math.Inf(-1)}
	for t := 0; t <= nc; t++ {
		s.lw[t] = make([]lnum, nm)
		for m := range s.lw[t] {
			s.lw[t][m] = newLnum(dim)
		}
		s.kw[t] = make([]lnum, nc)
		for v := range s.kw[t] {
			s.kw[t][v] = newLnum(dim)
		}
		s.term[t] = newLnum(dim)
	}
	for m, id := range p.weight {
		s.lw[0][m].copyFrom(&vals[id])
	}
	s.term[0].copyFrom(start)
	return s
}

// level sums over the count of class t, for k in [lo, hi] (clipped).
func (s *condState) level(t int, lo, hi int64) {
	p := s.p
	nc := len(p.classGrp)
	if t == nc {
		s.leaf()
		return
	}
	g := p.classGrp[t]
	R := s.rem[g]
	kmin := int64(0)
	if p.lastOfGroup[t] {
		kmin = R
	}
	lo, hi = max(lo, kmin), min(hi, R)
	cur, next := &s.term[t], &s.term[t+1]
	self := &s.vals[p.kappa[t][t]]
	for k := lo; k <= hi; k++ {
		if !s.tick() {
			return
		}
		next.copyFrom(cur)
		next.addLog(logBinom(s.lf, R, k))
		next.mulPow(&s.kw[t][t], k)
		next.mulPow(self, k*(k-1)/2)
		if next.isExactZero() {
			continue
		}
		for v := t + 1; v < nc; v++ {
			x := &s.kw[t+1][v]
			x.copyFrom(&s.kw[t][v])
			x.mulPow(&s.vals[p.kappa[v][t]], k)
		}
		for m := range p.weight {
			x := &s.lw[t+1][m]
			x.copyFrom(&s.lw[t][m])
			e := k
			if p.classOf[m] == t && k > 0 {
				e = k - 1 // an element's pairs with the others of its class
			}
			x.mulPow(&s.vals[p.psi[m][t]], e)
		}
		s.cnt[t] = k
		s.rem[g] = R - k
		s.level(t+1, 0, math.MaxInt64)
		s.rem[g] = R
		if s.err != nil {
			return
		}
	}
}

func (s *condState) leaf() {
	p := s.p
	nc := len(p.classGrp)
	s.leaves++
	lw := s.lw[nc]
	x := &s.x
	x.copyFrom(&s.term[nc])
	// Error bound, in units of 2^-53 and in log: a class sum H_v of terms
	// of both signs has a relative error of ρ_v = (P+N)/|P−N| units, and
	// H_v^c_v c_v times that; one that cancelled to zero is off by up to
	// P+N units (lm then bounds the term's error).
	lm := x.logValue()
	rho := 0.0
	zeroH := false
	for v := 0; v < nc; v++ {
		m := s.cnt[v]
		if m == 0 {
			continue
		}
		mem := p.members[v]
		h := &lw[mem[0]]
		mixed := false
		if len(mem) > 1 {
			s.hacc.reset()
			for _, q := range mem {
				s.hacc.add(&lw[q])
			}
			d := s.hacc.result(&s.h)
			h = &s.h
			if s.hacc.pos.s > 0 && s.hacc.neg.s > 0 {
				mixed = true
				if h.s == 0 {
					ph, _ := s.hacc.pos.logSum()
					nh, _ := s.hacc.neg.logSum()
					zeroH = true
					lm += float64(m)*logAddExp(ph, nh) + float64(m-1)*logUnit
				} else {
					rho += float64(m) * math.Pow(10, d)
					lm += float64(m) * h.logValue()
				}
			}
		}
		if !mixed {
			if h.s == 0 && !zeroH {
				// The class sum is zero without cancellation: so is the
				// term (up to its gradient).
				x.mulPow(h, m)
				if !x.isExactZero() {
					s.acc.add(x)
				}
				return
			}
			lm += float64(m) * h.logValue()
		}
		x.mulPow(h, m)
	}
	switch {
	case zeroH:
		s.errLog = logAddExp(s.errLog, lm)
	case rho > 0 && x.s != 0:
		s.errLog = logAddExp(s.errLog, x.logValue()+math.Log(rho))
	}
	if !x.isExactZero() {
		s.acc.add(x)
	}
}

// logUnit is log 2^-53, the unit of the error bounds.
var logUnit = -53 * math.Ln2

// logAddExp returns log(e^a + e^b).
func logAddExp(a, b float64) float64 {
	if a < b {
		a, b = b, a
	}
	if math.IsInf(b, -1) {
		return a
	}
	return a + math.Log1p(math.Exp(b-a))
}

// condChunks is the number of tasks the outermost count is split into
// (fixed, so that results do not depend on the number of processors).
const condChunks = 64

// sumCondCase adds the conditioned sum of one case to a; it returns the
// log of a bound on the error of the terms from cancellation inside the
// class sums H_v, in units of 2^-53 (−Inf when none cancelled).
func sumCondCase(ctx context.Context, c *fo2Comp, cs *cellCase, vals []lnum, lf []float64, sizes []int64, a *acc) (float64, error) {
	p := cs.cond
	terms := condTerms(c, p, sizes)
	classes := len(p.classGrp)
	for _, n := range p.perGroup {
		if n > 0 {
			classes--
		}
	}
	if terms > maxTerms {
		return 0, &TermsError{Terms: terms, Limit: maxTerms, Classes: classes, Conditioned: true}
	}
	limit := c.maxTerms
	if limit <= 0 {
		limit = DefaultMaxTerms
	}
	if terms > limit {
		return 0, &TermsError{Terms: terms, Limit: limit, Classes: classes, Conditioned: true}
	}
	dim := len(c.params)
	start := newLnum(dim)
	start.copyFrom(&vals[cs.weight])
	if start.isExactZero() {
		return math.Inf(-1), nil
	}
	top := sizes[p.classGrp[0]]
	if p.lastOfGroup[0] {
		top = 0 // the first class takes its whole group: one value
	}
	// Tasks: ranges of the outermost count.
	step := (top + condChunks) / condChunks
	var tasks [][2]int64
	for lo := int64(0); lo <= top; lo += step {
		tasks = append(tasks, [2]int64{lo, min(lo+step-1, top)})
	}
	if p.lastOfGroup[0] {
		tasks = [][2]int64{{0, math.MaxInt64}}
	}
	results := make([]*acc, len(tasks))
	errLogs := make([]float64, len(tasks))
	workers := min(runtime.GOMAXPROCS(0), len(tasks))
	var wg sync.WaitGroup
	var failed error
	var mu sync.Mutex
	next := make(chan int)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := newCondState(ctx, dim, p, vals, lf, sizes, &start)
			for i := range next {
				if s.err != nil || ctx.Err() != nil {
					continue // cancelled: drain the tasks already handed out
				}
				s.acc = newAcc(dim)
				s.errLog = math.Inf(-1)
				s.level(0, tasks[i][0], tasks[i][1])
				s.flush()
				if s.err != nil {
					mu.Lock()
					failed = s.err
					mu.Unlock()
					continue
				}
				results[i], errLogs[i] = s.acc, s.errLog
			}
		}()
	}
	for i := range tasks {
		if ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	if failed != nil {
		return 0, failed
	}
	e := math.Inf(-1)
	for i, r := range results {
		a.merge(r)
		e = logAddExp(e, errLogs[i])
	}
	return e, nil
}
