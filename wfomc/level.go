package wfomc

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"
)

// level is a compiled constant-free problem: independent components (no
// predicate in common, so log Z is the sum of theirs) and the formulas that
// simplified to a constant.
type level struct {
	pb      *problem
	sh      *shatterResult // how pb was obtained from parent
	parent  *problem       // nil at the top (free atoms are counted by Model)
	comps   []component
	offsets []offset
	blocks  map[int][]blockInfo // top level only: evidence blocks per type
}

// offset is a formula whose body is constant: it contributes e^(θ·G) (or
// forbids every world, if hard and false) for its G groundings.
type offset struct {
	f     *formula
	value bool
}

// component computes log Z of a part of the model and adds ∂log Z/∂θ to
// grad.
type component interface {
	eval(ctx context.Context, theta []float64, n []int64, grad []float64) (logZ, digitsLost float64, err error)
}

func (lv *level) eval(ctx context.Context, theta []float64, n []int64, grad []float64) (float64, float64, error) {
	logZ, digits := 0.0, 0.0
	for _, o := range lv.offsets {
		g := 1.0
		for _, v := range o.f.free {
			g *= float64(lv.pb.size(o.f.vars[v].typ, n))
		}
		switch {
		case g == 0:
		case o.f.param < 0 && !o.value:
			return 0, 0, &zeroError{fmt.Sprintf("%s can never hold: the model has no world at these domain sizes", o.f.text)}
		case o.f.param >= 0 && o.value:
			logZ += theta[o.f.param] * g
			grad[o.f.param] += g
		}
	}
	for _, c := range lv.comps {
		if err := ctx.Err(); err != nil {
			return 0, 0, err
		}
		l, d, err := c.eval(ctx, theta, n, grad)
		if err != nil {
			return 0, 0, err
		}
		logZ += l
		digits = math.Max(digits, d)
	}
	if lv.parent != nil {
		logZ += lv.sh.freeAtoms(lv.parent, n) * math.Ln2
	}
	return logZ, digits, nil
}

// compileLevel splits pb into components and compiles each.
func (c *compiler) compileLevel(pb *problem, blocks map[int][]blockInfo, depth int) (*level, error) {
	lv := &level{pb: pb, blocks: blocks}
	// Union-find over predicates.
	uf := newUnionFind(len(pb.preds))
	find := uf.find
	var live []*formula
	for _, f := range pb.formulas {
		c.pl.poll()
		if isConst(f.body) {
			lv.offsets = append(lv.offsets, offset{f: f, value: f.body.k == nTrue})
			continue
		}
		live = append(live, f)
		set := map[int]bool{}
		predsOf(f.body, set)
		first := -1
		for p := range set {
			if first < 0 {
				first = p
			} else {
				uf.union(p, first)
			}
		}
	}
	// The predicates of one type's linear order share it: one component
	// (with evidence the orders' sums do not factor).
	ordOf := map[int]int{}
	for i, p := range pb.preds {
		if p.ord != ordNone {
			if j, ok := ordOf[p.types[0]]; ok {
				uf.union(i, j)
			} else {
				ordOf[p.types[0]] = i
			}
		}
	}
	groups := map[int][]*formula{}
	var keys []int
	noPred := 0
	for _, f := range live {
		c.pl.poll()
		set := map[int]bool{}
		predsOf(f.body, set)
		k := -1 - noPred
		for p := range set {
			k = find(p)
			break
		}
		if len(set) == 0 {
			noPred++
		}
		if _, ok := groups[k]; !ok {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], f)
	}
	sort.Ints(keys)
	for _, k := range keys {
		comp, err := c.compileComponent(pb, groups[k], blocks, depth)
		if err != nil {
			return nil, err
		}
		lv.comps = append(lv.comps, comp)
	}
	return lv, nil
}

// extract builds the problem of one component: its formulas and the
// predicates they use (renumbered); pmap maps old to new predicate indices.
func extract(pl *poller, pb *problem, fs []*formula) (*problem, map[int]int) {
	set := map[int]bool{}
	for _, f := range fs {
		pl.poll()
		predsOf(f.body, set)
	}
	var ps []int
	for p := range set {
		ps = append(ps, p)
	}
	sort.Ints(ps)
	pmap := map[int]int{}
	sub := &problem{types: pb.types}
	for _, p := range ps {
		pmap[p] = len(sub.preds)
		sub.preds = append(sub.preds, pb.preds[p])
	}
	for _, f := range fs {
		pl.poll()
		body := mapNode(f.body, func(n *node) *node {
			if n.k == nAtom {
				c := *n
				c.pred = pmap[n.pred]
				return &c
			}
			return n
		})
		g := *f
		g.body = body
		sub.formulas = append(sub.formulas, &g)
	}
	return sub, pmap
}

func (c *compiler) compileComponent(pb *problem, fs []*formula, blocks map[int][]blockInfo, depth int) (component, error) {
	sub, pmap := extract(c.pl, pb, fs)
	specs, restFixed, single := componentBlocks(sub, pmap, blocks)
	norm, err := normalize(c.pl, sub)
	ordered := hasOrder(sub)
	if err == nil && (len(norm.counts) > 0 || ordered) {
		comp, err := compileCount(c.pl, norm, c.numParamsSoFar(), specs, restFixed)
		if err == nil {
			return &countWrap{comp, c.partName(fs)}, nil
		}
		// The ground computation knows no linear order.
		if !c.opt.AllowGround || c.liftOnly > 0 || ordered {
			return nil, fmt.Errorf("%s: %w", c.describe(fs[0]), err)
		}
		return c.groundComponent(sub, specs, restFixed)
	}
	if err != nil && ordered {
		return nil, fmt.Errorf("%s: %w (with the linear order axiom only FO2 with counting quantifiers and cardinality constraints is supported)", c.describe(fs[0]), err)
	}
	if err == nil {
		comp, err := compileFO2(c.pl, norm, c.numParamsSoFar(), specs, restFixed)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", c.describe(fs[0]), err)
		}
		return &fo2Wrap{comp, c.partName(fs)}, nil
	}
	var beyond *errBeyondFO2
	if !errors.As(err, &beyond) {
		return nil, err
	}
	var acErr error // why atom counting stopped, when not for want of a rule
	counting := false
	for _, f := range sub.formulas {
		counting = counting || hasCounting(f.body)
	}
	if single && depth < 8 && !counting {
		pc, perr := c.powerRule(sub, depth)
		if perr == nil {
			return pc, nil
		}
		ac, aerr := c.atomCounting(sub, depth)
		if aerr == nil {
			return ac, nil
		}
		if !errors.Is(aerr, errNoRule) {
			acErr = aerr
		}
		if !errors.Is(perr, errNoRule) {
			return nil, perr
		}
	}
	if c.opt.AllowGround && c.liftOnly == 0 {
		return c.groundComponent(sub, specs, restFixed)
	}
	why := "no variable occurs in every atom at a fixed argument position (independent partial grounding), counting the true atoms of a unary predicate (atom counting) does not make the rest liftable, and the formulas do not split into independent parts"
	if !single {
		why = "evidence splits the domain, which the power rule and atom counting do not handle"
	}
	if acErr != nil {
		return nil, fmt.Errorf("%s is beyond FO2: %s; no variable occurs in every atom at a fixed argument position (independent partial grounding), and atom counting stopped: %w; allow ground computation (lifted wfomc --allow-ground) for an exact answer on small domains",
			c.describe(beyond.f), beyond.reason, acErr)
	}
	return nil, fmt.Errorf("%s is beyond FO2: %s; %s; allow ground computation (lifted wfomc --allow-ground) for an exact answer on small domains",
		c.describe(beyond.f), beyond.reason, why)
}

// partName describes a component by its formulas, for messages.
func (c *compiler) partName(fs []*formula) string {
	seen := map[string]bool{}
	var names []string
	for _, f := range fs {
		d := c.describe(f)
		if !seen[d] {
			seen[d] = true
			names = append(names, d)
		}
	}
	if len(names) > 3 {
		names = append(names[:3], fmt.Sprintf("and %d more", len(names)-3))
	}
	return "the part of the model with " + strings.Join(names, ", ")
}

// numParamsSoFar is the number of parameters (formulas + queries).
func (c *compiler) numParamsSoFar() int { return len(c.m.Formulas) + len(c.opt.Queries) }

// componentBlocks restricts the evidence blocks to the component's
// predicates, merging blocks that it cannot tell apart. single reports
// whether every type ends up with one block.
func componentBlocks(sub *problem, pmap map[int]int, blocks map[int][]blockInfo) (map[int][]blockSpec, map[int]int64, bool) {
	specs := map[int][]blockSpec{}
	restFixed := map[int]int64{}
	single := true
	for t, bl := range blocks {
		var total int64
		byKey := map[string]int{}
		var out []blockSpec
		for _, b := range bl {
			total += b.fixed
			ev := map[int]bool{}
			for p, v := range b.ev {
				if q, ok := pmap[p]; ok {
					ev[q] = v
				}
			}
			k := evKey(ev)
			i, ok := byKey[k]
			if !ok {
				i = len(out)
				byKey[k] = i
				out = append(out, blockSpec{ev: ev})
			}
			out[i].fixed += b.fixed
			out[i].rest = out[i].rest || b.rest
		}
		restFixed[t] = total
		specs[t] = out
		if len(out) > 1 {
			single = false
		}
	}
	return specs, restFixed, single
}

// fo2Wrap adapts a compiled FO2 component to the component interface.
type fo2Wrap struct {
	c    *fo2Comp
	name string // for messages: the formulas of the component
}

func (w *fo2Wrap) eval(ctx context.Context, theta []float64, n []int64, grad []float64) (float64, float64, error) {
	z := newLnum(len(w.c.params))
	digits, err := w.c.eval(ctx, theta, n, &z)
	return finishComp(ctx, w.name, w.c.params, theta, grad, &z, digits, err)
}

// countWrap adapts a compiled component with counting quantifiers
// (count.go) to the component interface.
type countWrap struct {
	c    *countComp
	name string
}

func (w *countWrap) eval(ctx context.Context, theta []float64, n []int64, grad []float64) (float64, float64, error) {
	z := newLnum(len(w.c.params))
	digits, err := w.c.eval(ctx, theta, n, &z)
	return finishComp(ctx, w.name, w.c.params, theta, grad, &z, digits, err)
}

// finishComp turns the sum z of a component over params (or the error of
// computing it) into log Z, its gradient added to grad, and the digits lost.
func finishComp(ctx context.Context, name string, params []int, theta, grad []float64, z *lnum, digits float64, err error) (float64, float64, error) {
	if err != nil {
		if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
			return 0, 0, err // cancelled: the context's error, as is
		}
		return 0, 0, fmt.Errorf("%s: %w", name, err)
	}
	switch {
	case z.s == 0 && digits > 15 && maxWeight(params, theta) > 20:
		// Positive and negative terms (Skolem weights) cancelled to the
		// last digit, which large weights do to a non-zero Z as well.
		return 0, 0, &PrecisionError{RelError: math.Inf(1), Reason: fmt.Sprintf("%s: the sum over a quantified formula's Skolem terms cancelled completely at weights this large", name)}
	case z.s < 0 || z.s > 0 && digits > 15:
		return 0, 0, &PrecisionError{RelError: math.Pow(10, digits) * 0x1p-53, Reason: fmt.Sprintf("%s: the weighted model count cancelled to within double precision (%.0f digits lost)", name, digits)}
	case z.s == 0:
		return 0, 0, &zeroError{fmt.Sprintf("%s: the hard formulas and evidence have no model at these domain sizes (Z = 0)", name)}
	}
	for i, p := range params {
		grad[p] += z.g[i]
	}
	return z.logValue(), digits, nil
}

// maxWeight is the largest |θ| of params.
func maxWeight(params []int, theta []float64) float64 {
	m := 0.0
	for _, p := range params {
		m = max(m, math.Abs(theta[p]))
	}
	return m
}
