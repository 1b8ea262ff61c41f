package wfomc

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"sync"
)

// plan says how the sum over cell counts of one case is computed.
//
// First, a group (a type, or an evidence block) with a single cell has all
// its m elements in that cell: its count is fixed, so its pair weights with
// any other cell i are absorbed into i's weight, w_i·r_ic^m. Cells of one
// group whose remaining rows are identical (r_ii = r_jj = r_ij, r_ik = r_jk
// for every other remaining k) are then interchangeable and merge into one
// class with weight Σ w_i (the multinomial theorem); this is what makes a
// person's unary atoms that only matter for its pairs with single-cell types
// free.
//
// Then, in each group one set of classes is collapsed: classes whose mutual
// pair weights (the diagonal included) are one and the same poly c, and
// whose pair weights with the collapsed classes of every other group are one
// poly too. Given the counts of the other classes, every element of the
// collapsed set picks its class independently, so they contribute
// (Σ_i w_i·Π_l r_il^k_l)^m · c^C(m,2) for the m elements they hold: the sum
// runs only over the counts of the remaining, explicit classes.
// Friends-and-smokers has two classes, one collapsed and one explicit: n + 1
// terms.
type plan struct {
	fixed    []int   // cells alone in their group
	fixedGrp []bool  // per group: its only cell is in fixed
	classes  [][]int // merged classes of the other cells
	classGrp []int
	rep      []int // a representative cell of each class

	explicit    []int   // classes enumerated, grouped by evidence group
	lastOfGroup []bool  // explicit[t] is the last explicit class of its group
	collapsed   [][]int // per group: classes
	inner       []int   // per group: poly of the pair weight inside the collapsed set
	cross       [][]int // per pair of groups: poly between their collapsed sets (−1: none)
}

// pairOf is the pair poly between two classes.
func (p *plan) pairOf(cs *cellCase, a, b int) int { return cs.pair[p.rep[a]][p.rep[b]] }

func makePlan(c *fo2Comp, cs *cellCase) plan {
	ng := len(c.groups)
	p := plan{collapsed: make([][]int, ng), inner: make([]int, ng), cross: make([][]int, ng)}
	cellsOf := make([][]int, ng)
	for i, g := range cs.cellGroup {
		cellsOf[g] = append(cellsOf[g], i)
	}
	var rest []int
	p.fixedGrp = make([]bool, ng)
	for g := 0; g < ng; g++ {
		if len(cellsOf[g]) == 1 {
			p.fixedGrp[g] = true
			p.fixed = append(p.fixed, cellsOf[g][0])
		} else {
			rest = append(rest, cellsOf[g]...)
		}
	}
	// Merge classes among the remaining cells.
	r := cs.pair
	assigned := map[int]bool{}
	for _, i := range rest {
		if assigned[i] {
			continue
		}
		class := []int{i}
		assigned[i] = true
		for _, j := range rest {
			if assigned[j] || cs.cellGroup[j] != cs.cellGroup[i] {
				continue
			}
			if r[i][i] != r[j][j] || r[i][i] != r[i][j] {
				continue
			}
			same := true
			for _, k := range rest {
				if k != i && k != j && r[i][k] != r[j][k] {
					same = false
					break
				}
			}
			if same {
				class = append(class, j)
				assigned[j] = true
			}
		}
		p.classes = append(p.classes, class)
		p.classGrp = append(p.classGrp, cs.cellGroup[i])
		p.rep = append(p.rep, i)
	}
	for g := range p.cross {
		p.cross[g] = make([]int, ng)
		for h := range p.cross[g] {
			p.cross[g][h] = -1
		}
		p.inner[g] = -1
	}
	byGroup := make([][]int, ng)
	for k, g := range p.classGrp {
		byGroup[g] = append(byGroup[g], k)
	}
	pair := func(a, b int) int { return p.pairOf(cs, a, b) }
	for g := 0; g < ng; g++ {
		var best []int
		var bestCross []int
		for _, s := range byGroup[g] {
			// Compatibility of the seed with the collapsed sets chosen so far.
			cross := make([]int, ng)
			ok := true
			for h := 0; h < g && ok; h++ {
				cross[h] = -1
				if len(p.collapsed[h]) == 0 {
					continue
				}
				cross[h] = pair(s, p.collapsed[h][0])
				for _, k := range p.collapsed[h] {
					if pair(s, k) != cross[h] {
						ok = false
					}
				}
			}
			if !ok {
				continue
			}
			set := []int{s}
			cin := pair(s, s)
			for _, j := range byGroup[g] {
				if j == s || pair(j, j) != cin {
					continue
				}
				fits := true
				for _, i := range set {
					if pair(i, j) != cin {
						fits = false
						break
					}
				}
				for h := 0; h < g && fits; h++ {
					for _, k := range p.collapsed[h] {
						if pair(j, k) != cross[h] {
							fits = false
							break
						}
					}
				}
				if fits {
					set = append(set, j)
				}
			}
			if len(set) > len(best) {
				best, bestCross = set, cross
			}
		}
		p.collapsed[g] = best
		if len(best) > 0 {
			p.inner[g] = pair(best[0], best[0])
			for h := 0; h < g; h++ {
				if len(p.collapsed[h]) > 0 {
					p.cross[g][h], p.cross[h][g] = bestCross[h], bestCross[h]
				}
			}
		}
	}
	in := map[int]bool{}
	for _, set := range p.collapsed {
		for _, k := range set {
			in[k] = true
		}
	}
	for g := 0; g < ng; g++ {
		for _, k := range byGroup[g] {
			if !in[k] {
				p.explicit = append(p.explicit, k)
				p.lastOfGroup = append(p.lastOfGroup, false)
			}
		}
		if n := len(p.explicit); n > 0 && p.classGrp[p.explicit[n-1]] == g {
			p.lastOfGroup[n-1] = true
		}
	}
	return p
}

// maxTerms bounds the number of terms of one sum whatever Options.MaxTerms
// says (a guard against plans that are polynomial of too high a degree for
// the domain sizes).
const maxTerms = 2e10

// countTerms estimates the number of leaves of the summation.
func countTerms(c *fo2Comp, cs *cellCase, sizes []int64) float64 {
	total := 1.0
	for g := range c.groups {
		d := 0
		for _, k := range cs.plan.explicit {
			if cs.plan.classGrp[k] == g {
				d++
			}
		}
		if len(cs.plan.collapsed[g]) == 0 && d > 0 {
			d--
		}
		// Compositions of at most n into d parts: C(n+d, d).
		n := float64(sizes[g])
		t := 1.0
		for i := 1; i <= d; i++ {
			t *= (n + float64(i)) / float64(i)
		}
		total *= t
	}
	return total
}

// sumState is the working memory of one summation over class counts.
type sumState struct {
	c    *fo2Comp
	cs   *cellCase
	p    *plan
	vals []lnum
	lf   []float64
	rem  []int64
	lw   [][]lnum // per level: current weights of all classes
	term []lnum   // per level: the partial term
	leaf lnum
	w    lnum
	wacc *acc
	acc  *acc
	sumTicker
}

// sumTicker counts the steps and terms of a summation: ctx is polled every
// ctxEvery steps (ticks counts them); err is its error once it is done, and
// stops the summation.
type sumTicker struct {
	ctx   context.Context
	ticks uint64
	err   error
	// leaves counts the terms added since the last report to the meter.
	leaves int64
	meter  *meter
	// spent is the ticks already counted in work (WithWorkLimit).
	spent uint64
	work  *Work
}

func newSumTicker(ctx context.Context) sumTicker {
	return sumTicker{ctx: ctx, meter: meterOf(ctx), work: workOf(ctx)}
}

// flush reports the terms summed and the steps taken since the last flush.
func (s *sumTicker) flush() {
	if s.leaves > 0 {
		s.meter.add(s.leaves)
		s.leaves = 0
	}
	s.work.spend(int64(s.ticks-s.spent) * StepUnits)
	s.spent = s.ticks
}

// tick counts a step; it returns false once ctx is done.
func (s *sumTicker) tick() bool {
	if s.ticks++; s.ticks%ctxEvery == 0 {
		s.flush()
		if s.err = s.ctx.Err(); s.err != nil {
			return false
		}
	}
	return true
}

// ctxEvery is how many steps of a long loop (terms of a sum, ground worlds)
// go between two polls of the context: a step costs tens of nanoseconds or
// more, so a poll per ctxEvery steps is free and a cancellation is seen
// within microseconds.
const ctxEvery = 1 << 10

// caseStart computes, for one case at the given group sizes, the weight of
// every class (member cells' weights, with the fixed cells' pair weights
// absorbed) and the constant factor: the case weight times everything among
// the fixed cells.
func caseStart(c *fo2Comp, cs *cellCase, vals []lnum, sizes []int64) (start lnum, classW []lnum) {
	dim := len(c.params)
	p := &cs.plan
	start = newLnum(dim)
	start.copyFrom(&vals[cs.weight])
	for a, ca := range p.fixed {
		ma := sizes[cs.cellGroup[ca]]
		start.mulPow(&vals[cs.cellPoly[ca]], ma)
		start.mulPow(&vals[cs.pair[ca][ca]], ma*(ma-1)/2)
		for _, cb := range p.fixed[:a] {
			start.mulPow(&vals[cs.pair[ca][cb]], ma*sizes[cs.cellGroup[cb]])
		}
	}
	classW = make([]lnum, len(p.classes))
	a := newAcc(dim)
	x := newLnum(dim)
	for k, members := range p.classes {
		classW[k] = newLnum(dim)
		a.reset()
		for _, i := range members {
			x.copyFrom(&vals[cs.cellPoly[i]])
			for _, cf := range p.fixed {
				x.mulPow(&vals[cs.pair[i][cf]], sizes[cs.cellGroup[cf]])
			}
			if len(members) == 1 {
				classW[k].copyFrom(&x)
			} else {
				a.add(&x)
			}
		}
		if len(members) > 1 {
			a.result(&classW[k])
		}
	}
	return start, classW
}

func newSumState(ctx context.Context, c *fo2Comp, cs *cellCase, vals []lnum, lf []float64, rem []int64, start lnum, classW []lnum) *sumState {
	dim := len(c.params)
	p := &cs.plan
	depth := len(p.explicit)
	u := len(p.classes)
	s := &sumState{sumTicker: newSumTicker(ctx), c: c, cs: cs, p: p, vals: vals, lf: lf, rem: append([]int64(nil), rem...),
		lw: make([][]lnum, depth+1), term: make([]lnum, depth+1),
		leaf: newLnum(dim), w: newLnum(dim), wacc: newAcc(dim), acc: newAcc(dim)}
	for t := range s.lw {
		s.lw[t] = make([]lnum, u)
		for i := range s.lw[t] {
			s.lw[t][i] = newLnum(dim)
		}
		s.term[t] = newLnum(dim)
	}
	for k := range classW {
		s.lw[0][k].copyFrom(&classW[k])
	}
	s.term[0].copyFrom(&start)
	return s
}

// level sums over the count of explicit class t, for k in [lo, hi] (clipped).
func (s *sumState) level(t int, lo, hi int64) {
	p := s.p
	if t == len(p.explicit) {
		s.leafTerm()
		return
	}
	c := p.explicit[t]
	g := p.classGrp[c]
	R := s.rem[g]
	kmin := int64(0)
	if p.lastOfGroup[t] && len(p.collapsed[g]) == 0 {
		kmin = R
	}
	lo, hi = max(lo, kmin), min(hi, R)
	cur, next := &s.term[t], &s.term[t+1]
	diag := &s.vals[p.pairOf(s.cs, c, c)]
	for k := lo; k <= hi; k++ {
		if !s.tick() {
			return
		}
		next.copyFrom(cur)
		next.addLog(logBinom(s.lf, R, k))
		next.mulPow(&s.lw[t][c], k)
		next.mulPow(diag, k*(k-1)/2)
		if next.isExactZero() {
			continue
		}
		for j := range s.lw[t] {
			if j == c {
				continue
			}
			x := &s.lw[t+1][j]
			x.copyFrom(&s.lw[t][j])
			x.mulPow(&s.vals[p.pairOf(s.cs, c, j)], k)
		}
		s.rem[g] = R - k
		s.level(t+1, 0, math.MaxInt64)
		s.rem[g] = R
		if s.err != nil {
			return
		}
	}
}

func (s *sumState) leafTerm() {
	p := s.p
	lw := s.lw[len(p.explicit)]
	s.leaves++
	x := &s.leaf
	x.copyFrom(&s.term[len(p.explicit)])
	for g, set := range p.collapsed {
		m := s.rem[g]
		if m == 0 || p.fixedGrp[g] {
			continue
		}
		if len(set) == 0 {
			return // elements left over with no class to go to
		}
		w := &lw[set[0]]
		if len(set) > 1 {
			s.wacc.reset()
			for _, i := range set {
				s.wacc.add(&lw[i])
			}
			s.wacc.result(&s.w)
			w = &s.w
		}
		x.mulPow(w, m)
		x.mulPow(&s.vals[p.inner[g]], m*(m-1)/2)
		for h := 0; h < g; h++ {
			if mh := s.rem[h]; mh > 0 && p.cross[g][h] >= 0 {
				x.mulPow(&s.vals[p.cross[g][h]], m*mh)
			}
		}
	}
	s.acc.add(x)
}

// chunk is the number of values of the outermost count summed by one task;
// fixed, so that results do not depend on the number of processors.
const chunk = 1 << 12

// sumCase adds the terms of one case to a, by its plan or by conditioning
// (condition.go), whichever has fewer terms; it returns the log of a bound
// on the error of the terms themselves from cancellation inside
// conditioning's class sums (units of 2^-53; −Inf: none). It returns ctx's
// error if ctx is done before the sum is.
func sumCase(ctx context.Context, c *fo2Comp, cs *cellCase, vals []lnum, lf []float64, sizes []int64, a *acc) (float64, error) {
	// A group with elements but no cell has no world.
	for g := range c.groups {
		if sizes[g] == 0 {
			continue
		}
		has := false
		for _, cg := range cs.cellGroup {
			if cg == g {
				has = true
				break
			}
		}
		if !has {
			return math.Inf(-1), nil
		}
	}
	if useCond(c, cs, sizes) {
		return sumCondCase(ctx, c, cs, vals, lf, sizes, a)
	}
	return math.Inf(-1), sumPlan(ctx, c, cs, vals, lf, sizes, a)
}

// sumPlan adds the terms of one case to a by its plan.
func sumPlan(ctx context.Context, c *fo2Comp, cs *cellCase, vals []lnum, lf []float64, sizes []int64, a *acc) error {
	terms := countTerms(c, cs, sizes)
	if terms > maxTerms {
		return &TermsError{Terms: terms, Limit: maxTerms, Classes: len(cs.plan.explicit)}
	}
	p := &cs.plan
	start, classW := caseStart(c, cs, vals, sizes)
	if start.isExactZero() {
		return nil
	}
	if len(p.explicit) == 0 {
		s := newSumState(ctx, c, cs, vals, lf, sizes, start, classW)
		s.level(0, 0, 0)
		s.flush()
		a.merge(s.acc)
		return nil
	}
	top := sizes[p.classGrp[p.explicit[0]]]
	if top+1 >= windowMinTerms && !windowOff {
		s := newSumState(ctx, c, cs, vals, lf, sizes, start, classW)
		m := newWindowModel(s, start, classW, sizes)
		var st windowStats
		ok := false
		if m != nil {
			if windowModelHook != nil {
				windowModelHook(m)
			}
			ok = m.sumWindow(&st)
			s.work.spend(int64(s.ticks-s.spent) * StepUnits) // the steps the window took
			s.spent = s.ticks
			if s.err != nil {
				return s.err
			}
		}
		if windowHook != nil {
			windowHook(st)
		}
		if ok {
			s.meter.add(int64(min(countTerms(c, cs, sizes), maxTerms))) // the window certified the rest
			a.merge(s.acc)
			return nil
		}
	}
	// The terms are summed one by one: refused at once beyond the budget.
	limit := c.maxTerms
	if limit <= 0 {
		limit = DefaultMaxTerms
	}
	if terms > limit {
		return &TermsError{Terms: terms, Limit: limit, Classes: len(cs.plan.explicit)}
	}
	nchunks := int(top/chunk) + 1
	if nchunks == 1 {
		s := newSumState(ctx, c, cs, vals, lf, sizes, start, classW)
		s.level(0, 0, top)
		s.flush()
		if s.err != nil {
			return s.err
		}
		a.merge(s.acc)
		return nil
	}
	results := make([]*acc, nchunks)
	workers := min(runtime.GOMAXPROCS(0), nchunks)
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := newSumState(ctx, c, cs, vals, lf, sizes, start, classW)
			for i := range next {
				if s.err != nil || ctx.Err() != nil {
					continue // cancelled: drain the tasks already handed out
				}
				s.acc = newAcc(len(c.params))
				lo := int64(i) * chunk
				s.level(0, lo, lo+chunk-1)
				s.flush()
				results[i] = s.acc
			}
		}()
	}
	for i := 0; i < nchunks; i++ {
		if ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return err
	}
	for _, r := range results {
		a.merge(r)
	}
	return nil
}

// groupSizes returns the number of elements of every evidence group.
func (c *fo2Comp) groupSizes(n []int64) ([]int64, error) {
	out := make([]int64, len(c.groups))
	for g, gr := range c.groups {
		s := gr.fixed
		if gr.rest {
			r := c.pb.size(gr.typ, n) - c.restFixed[gr.typ]
			if r < 0 {
				return nil, fmt.Errorf("domain %s has %d elements, fewer than the constants it must hold", c.pb.types[gr.typ].name, c.pb.size(gr.typ, n)+c.pb.types[gr.typ].off)
			}
			s += r
		}
		out[g] = s
	}
	return out, nil
}

// evalPolys evaluates polys (over the parameters params) at θ.
func evalPolys(polys []poly, params []int, theta []float64) []lnum {
	dim := len(params)
	local := make([]float64, dim)
	for i, p := range params {
		local[i] = theta[p]
	}
	vals := make([]lnum, len(polys))
	pa := newAcc(dim)
	tmp := newLnum(dim)
	for i, p := range polys {
		vals[i] = newLnum(dim)
		p.eval(local, &vals[i], pa, &tmp)
	}
	return vals
}

// eval computes log Z of the component and its gradient (over c.params)
// into z, and the digits lost to cancellation.
func (c *fo2Comp) eval(ctx context.Context, theta []float64, n []int64, z *lnum) (float64, error) {
	dim := len(c.params)
	vals := evalPolys(c.polys, c.params, theta)
	sizes, err := c.groupSizes(n)
	if err != nil {
		return 0, err
	}
	if c.emptyOnly != nil {
		for g, s := range sizes {
			if s > 0 {
				return 0, fmt.Errorf("%w; only domain sizes without anonymous elements are supported for it, and type %s has %d", c.emptyOnly, c.pb.types[c.groups[g].typ].name, s)
			}
		}
	}
	maxN := int64(0)
	for _, s := range sizes {
		maxN = max(maxN, s)
	}
	ensureLogFact(maxN)
	lf := logFactTable()
	a := newAcc(dim)
	if m := meterOf(ctx); m != nil {
		for _, cs := range c.cases {
			m.addTotal(int64(min(caseTerms(c, cs, sizes), maxTerms)))
		}
	}
	errLog := math.Inf(-1)
	for _, cs := range c.cases {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		e, err := sumCase(ctx, c, cs, vals, lf, sizes, a)
		if err != nil {
			return 0, err
		}
		errLog = logAddExp(errLog, e)
	}
	digits := a.result(z)
	// The terms' own errors (cancellation inside conditioning's class
	// sums), relative to the sum.
	if !math.IsInf(errLog, -1) {
		if z.s == 0 {
			return math.Inf(1), nil
		}
		digits = max(digits, (errLog-z.logValue())/math.Ln10)
	}
	return digits, nil
}
