package wfomc

import "fmt"

// groundComp computes a component exactly by enumerating its ground worlds
// (the --allow-ground fallback for components no lifting rule handles).
// Quantifiers are evaluated directly, so no Skolemization is involved.
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

func (w *groundWorld) atom(p int, args []int64) bool {
	idx := 0
	for i, t := range w.pb.preds[p].types {
		idx = idx*int(w.sizes[t]) + int(args[i])
	}
	return w.val[w.atomOff[p]+idx]
}

// holds evaluates n under the assignment env (variable → element).
func (w *groundWorld) holds(f *formula, n *node, env []int64) bool {
	switch n.k {
	case nTrue:
		return true
	case nFalse:
		return false
	case nAtom:
		args := make([]int64, len(n.args))
		for i, a := range n.args {
			args[i] = env[a.v]
		}
		return w.atom(n.pred, args)
	case nEq:
		return env[n.args[0].v] == env[n.args[1].v]
	case nNot:
		return !w.holds(f, n.kids[0], env)
	case nAnd:
		for _, k := range n.kids {
			if !w.holds(f, k, env) {
				return false
			}
		}
		return true
	case nOr:
		for _, k := range n.kids {
			if w.holds(f, k, env) {
				return true
			}
		}
		return false
	case nIff:
		return w.holds(f, n.kids[0], env) == w.holds(f, n.kids[1], env)
	case nExists, nForall:
		want := n.k == nExists
		v := n.qv
		for e := int64(0); e < w.sizes[f.vars[v].typ]; e++ {
			env[v] = e
			if w.holds(f, n.kids[0], env) == want {
				return want
			}
		}
		return !want
	}
	panic("wfomc: bad node")
}

// count returns the number of true groundings of f.
func (w *groundWorld) count(f *formula) int64 {
	env := make([]int64, len(f.vars))
	var c int64
	var rec func(i int)
	rec = func(i int) {
		if i == len(f.free) {
			if w.holds(f, f.body, env) {
				c++
			}
			return
		}
		v := f.free[i]
		for e := int64(0); e < w.sizes[f.vars[v].typ]; e++ {
			env[v] = e
			rec(i + 1)
		}
	}
	rec(0)
	return c
}

func (w *groundWorld) groundings(f *formula) int64 {
	g := int64(1)
	for _, v := range f.free {
		g *= w.sizes[f.vars[v].typ]
	}
	return g
}

func (g *groundComp) eval(theta []float64, n []int64, grad []float64) (float64, float64, error) {
	w, err := g.build(n)
	if err != nil {
		return 0, 0, err
	}
	a := newAcc(len(grad))
	x := newLnum(len(grad))
	counts := make([]int64, len(g.pb.formulas))
	for mask := uint64(0); mask < 1<<len(w.unknown); mask++ {
		for i, at := range w.unknown {
			w.val[at] = mask>>i&1 == 1
		}
		ok := true
		for fi, f := range g.pb.formulas {
			counts[fi] = w.count(f)
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
