package wfomc

import (
	"context"
	"fmt"

	"github.com/lifted-dev/lifted/ground"
)

// groundComp computes a component exactly by enumerating its ground worlds
// (the --allow-ground fallback for components no lifting rule handles).
// Quantifiers are expanded over the elements (by the grounding package's
// formula evaluator), so no Skolemization is involved.
type groundComp struct {
	pb        *problem
	specs     map[int][]blockSpec
	restFixed map[int]int64
	maxAtoms  int
}

func (c *compiler) groundComponent(sub *problem, specs map[int][]blockSpec, restFixed map[int]int64) (component, error) {
	maxAtoms := c.opt.MaxGroundAtoms
	if maxAtoms <= 0 {
		maxAtoms = 24
	}
	return &groundComp{pb: sub, specs: specs, restFixed: restFixed, maxAtoms: maxAtoms}, nil
}

// groundWorld is the ground model of a component at given sizes.
type groundWorld struct {
	pb      *problem
	sizes   []int64 // per type
	atomOff []int   // per predicate: index of its first atom
	fixed   map[int]bool
	unknown []int // atom indices not fixed by evidence
	val     []bool
}

func (g *groundComp) build(n []int64) (*groundWorld, error) {
	pb := g.pb
	w := &groundWorld{pb: pb, sizes: make([]int64, len(pb.types)), fixed: map[int]bool{}}
	for t := range pb.types {
		w.sizes[t] = pb.size(t, n)
	}
	total := 0
	for _, p := range pb.preds {
		w.atomOff = append(w.atomOff, total)
		c := 1
		for _, t := range p.types {
			c *= int(w.sizes[t])
			if c > 1<<26 {
				return nil, fmt.Errorf("ground fallback: predicate %s has too many ground atoms", p.name)
			}
		}
		total += c
	}
	w.val = make([]bool, total)
	// Evidence blocks: elements of type t are laid out block after block.
	for t, specs := range g.specs {
		start := int64(0)
		for _, s := range specs {
			size := s.fixed
			if s.rest {
				size += w.sizes[t] - g.restFixed[t]
			}
			for e := start; e < start+size; e++ {
				for p, v := range s.ev {
					w.fixed[w.atomOff[p]+int(e)] = v
				}
			}
			start += size
		}
	}
	for i := 0; i < total; i++ {
		if v, ok := w.fixed[i]; ok {
			w.val[i] = v
		} else {
			w.unknown = append(w.unknown, i)
		}
	}
	if len(w.unknown) > g.maxAtoms {
		return nil, fmt.Errorf("ground fallback: %d unknown ground atoms, more than %d; the domains are too large for exact ground computation", len(w.unknown), g.maxAtoms)
	}
	return w, nil
}

func (w *groundWorld) atom(p int, args []int32) bool {
	idx := 0
	for i, t := range w.pb.preds[p].types {
		idx = idx*int(w.sizes[t]) + int(args[i])
	}
	return w.val[w.atomOff[p]+idx]
}

// compile compiles f at the world's sizes with the grounding package's
// evaluator: the free variables become its variables, the quantifiers are
// expanded over the elements of their types.
func (w *groundWorld) compile(f *formula) (*ground.Formula, error) {
	if hasLin(f.body) {
		return nil, fmt.Errorf("ground fallback: the linear cardinality constraint %s is computed only by the counting dynamic program", f.text)
	}
	slot := make([]int, len(f.vars))
	for i := range slot {
		slot[i] = -1
	}
	dom := make([]int64, len(f.free))
	for i, v := range f.free {
		slot[v] = i
		dom[i] = w.sizes[f.vars[v].typ]
	}
	env := make([]int, len(f.vars)) // quantified variable → element
	b := ground.NewBuilder(dom)
	term := func(t term) ground.Term {
		if !t.isVar() {
			panic("wfomc: constant in the ground fallback")
		}
		if s := slot[t.v]; s >= 0 {
			return ground.VarTerm(s)
		}
		return ground.ConstTerm(env[t.v])
	}
	var walk func(n *node) ground.Node
	walk = func(n *node) ground.Node {
		var kids []ground.Node
		switch n.k {
		case nTrue, nFalse:
			return b.Const(n.k == nTrue)
		case nAtom:
			args := make([]ground.Term, len(n.args))
			for i, a := range n.args {
				args[i] = term(a)
			}
			return b.Atom(n.pred, args)
		case nEq:
			return b.Eq(term(n.args[0]), term(n.args[1]))
		case nNot:
			return b.Not(walk(n.kids[0]))
		case nAnd, nOr:
			for _, k := range n.kids {
				kids = append(kids, walk(k))
			}
			if n.k == nAnd {
				return b.And(kids...)
			}
			return b.Or(kids...)
		case nIff:
			return b.Iff(walk(n.kids[0]), walk(n.kids[1]))
		case nCard:
			a := n.kids[0]
			var rec func(i int)
			rec = func(i int) {
				if i == len(a.args) {
					kids = append(kids, walk(a))
					return
				}
				v := a.args[i].v
				for e := range int(w.sizes[f.vars[v].typ]) {
					env[v] = e
					rec(i + 1)
				}
			}
			rec(0)
			return b.Count(n.cmp, n.cnt, kids...)
		case nExists, nForall:
			for e := range int(w.sizes[f.vars[n.qv].typ]) {
				env[n.qv] = e
				kids = append(kids, walk(n.kids[0]))
			}
			if n.k == nExists && n.cmp != "" {
				return b.Count(n.cmp, n.cnt, kids...)
			}
			if n.k == nExists {
				return b.Or(kids...)
			}
			return b.And(kids...)
		}
		panic("wfomc: bad node")
	}
	cf, err := b.Formula(walk(f.body))
	if err != nil {
		return nil, fmt.Errorf("ground fallback: %w", err)
	}
	return cf, nil
}

func (w *groundWorld) groundings(f *formula) int64 {
	g := int64(1)
	for _, v := range f.free {
		g *= w.sizes[f.vars[v].typ]
	}
	return g
}

func (g *groundComp) eval(ctx context.Context, theta []float64, n []int64, grad []float64) (float64, float64, error) {
	w, err := g.build(n)
	if err != nil {
		return 0, 0, err
	}
	evs := make([]*ground.Eval, len(g.pb.formulas))
	for fi, f := range g.pb.formulas {
		cf, err := w.compile(f)
		if err != nil {
			return 0, 0, err
		}
		evs[fi] = cf.NewEval()
	}
	truth := w.atom
	a := newAcc(len(grad))
	x := newLnum(len(grad))
	counts := make([]int64, len(g.pb.formulas))
	work := workOf(ctx)
	worlds := uint64(1) << len(w.unknown)
	work.spend(int64(worlds%ctxEvery) * WorldUnits) // the rest as the loop polls
	for mask := uint64(0); mask < worlds; mask++ {
		if mask%ctxEvery == ctxEvery-1 {
			work.spend(ctxEvery * WorldUnits)
			if err := ctx.Err(); err != nil {
				return 0, 0, err
			}
		}
		for i, at := range w.unknown {
			w.val[at] = mask>>i&1 == 1
		}
		ok := true
		for fi, f := range g.pb.formulas {
			counts[fi] = evs[fi].Count(truth)
			if f.param < 0 && counts[fi] != w.groundings(f) {
				ok = false
				break
			}
		}
		if !ok {
			continue
		}
		x.setOne()
		for fi, f := range g.pb.formulas {
			if f.param >= 0 {
				x.addLog(theta[f.param] * float64(counts[fi]))
				x.g[f.param] += float64(counts[fi])
			}
		}
		a.add(&x)
	}
	z := newLnum(len(grad))
	a.result(&z)
	if z.s <= 0 {
		return 0, 0, fmt.Errorf("the hard formulas and evidence have no model at these domain sizes (Z = 0)")
	}
	for i, v := range z.g {
		grad[i] += v
	}
	return z.logValue(), 0, nil
}
