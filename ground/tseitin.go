package ground

import (
	"slices"
)

// A ground formula over more than MaxArity unknown atoms that is neither a
// clause nor a conjunction of literals (an equivalence with an EXIST over a
// large domain, typically) is split with Tseitin's auxiliary variables: a
// subformula s of the ground formula is replaced by a new binary variable
// y, and a hard factor y ⇔ s is added. Since y is a function of the atoms,
// summing (or maximising) it out gives the original formula's value back:
// the distribution over the atoms, log Z and MAP are unchanged. The
// subformulas are chosen bottom-up until every factor (the formula's own
// table and each definition) is over at most max(MaxArity, 3) variables; a
// long conjunction or disjunction of literals is cut into chunks, each
// defined by its own auxiliary variable.

// Gate kinds of a simplified ground formula.
const (
	gLit uint8 = iota
	gAnd
	gOr
	gIff
)

// gate is a node of the simplified ground formula. Variables are numbered
// 0..k-1 for the scope positions and k, k+1, … for auxiliary variables.
type gate struct {
	op   uint8
	v    int32 // gLit: the variable
	neg  bool  // the node's value is negated
	kids []*gate
	supp []int32 // sorted distinct variables
}

// circuitPlan is a cache entry's recipe: the definitions of the auxiliary
// variables, in order, then the formula's table.
type circuitPlan struct {
	nAux int
	defs []circuitFactor // hard: aux ⇔ subformula
	root circuitFactor
}

// circuitFactor is one factor: a table over variables given as refs, ref ≥ 0
// a scope position and ref < 0 auxiliary variable -ref-1.
type circuitFactor struct {
	table int32
	refs  []int32
}

// circuitGate builds the gate of the current ground formula; ok is false
// when it is a constant (val).
func (g *grounder) circuitGate() (root *gate, val uint8, ok bool) {
	p := &g.f.prog
	type cv struct {
		g   *gate
		val uint8
	}
	nodes := make([]cv, len(p.nodes))
	for i := range p.nodes {
		n := &p.nodes[i]
		switch n.op {
		case opAtom:
			if c := g.scopeCode[n.ref]; c >= 0 {
				nodes[i] = cv{g: &gate{op: gLit, v: c, supp: []int32{c}}}
			} else {
				nodes[i] = cv{val: g.occVal[n.ref]}
			}
		case opEq:
			nodes[i] = cv{val: g.eqVal[n.ref]}
		case opTrue:
			nodes[i] = cv{val: vTrue}
		case opFalse:
			nodes[i] = cv{val: vFalse}
		case opNot:
			k := nodes[n.kids[0]]
			if k.g == nil {
				nodes[i] = cv{val: k.val ^ 1}
			} else {
				nodes[i] = cv{g: negGate(k.g)}
			}
		case opAnd, opOr:
			and := n.op == opAnd
			absorb := boolVal(!and)
			var kids []*gate
			done := false
			for _, k := range n.kids {
				c := nodes[k]
				if c.g == nil {
					if c.val == absorb {
						nodes[i] = cv{val: absorb}
						done = true
						break
					}
					continue
				}
				kids = append(kids, c.g)
			}
			if done {
				continue
			}
			switch len(kids) {
			case 0:
				nodes[i] = cv{val: absorb ^ 1}
			case 1:
				nodes[i] = cv{g: kids[0]}
			default:
				op := gOr
				if and {
					op = gAnd
				}
				nodes[i] = cv{g: newGate(op, kids)}
			}
		case opIff:
			a, b := nodes[n.kids[0]], nodes[n.kids[1]]
			switch {
			case a.g == nil && b.g == nil:
				nodes[i] = cv{val: boolVal(a.val == b.val)}
			case a.g == nil && a.val == vTrue:
				nodes[i] = b
			case a.g == nil:
				nodes[i] = cv{g: negGate(b.g)}
			case b.g == nil && b.val == vTrue:
				nodes[i] = a
			case b.g == nil:
				nodes[i] = cv{g: negGate(a.g)}
			default:
				nodes[i] = cv{g: newGate(gIff, []*gate{a.g, b.g})}
			}
		}
	}
	r := nodes[len(nodes)-1]
	return r.g, r.val, r.g != nil
}

func negGate(x *gate) *gate {
	y := *x
	y.neg = !y.neg
	return &y
}

func newGate(op uint8, kids []*gate) *gate {
	x := &gate{op: op, kids: kids}
	x.setSupp()
	return x
}

func (x *gate) setSupp() {
	var s []int32
	for _, k := range x.kids {
		s = append(s, k.supp...)
	}
	slices.Sort(s)
	x.supp = slices.Compact(s)
}

// eval evaluates the gate; val holds the value (0/1) of every variable.
func (x *gate) eval(val []uint8) bool {
	var r bool
	switch x.op {
	case gLit:
		r = val[x.v] == 1
	case gAnd:
		r = true
		for _, k := range x.kids {
			if !k.eval(val) {
				r = false
				break
			}
		}
	case gOr:
		for _, k := range x.kids {
			if k.eval(val) {
				r = true
				break
			}
		}
	case gIff:
		r = x.kids[0].eval(val) == x.kids[1].eval(val)
	}
	return r != x.neg
}

// tseitin splits gates into definitions of auxiliary variables.
type tseitin struct {
	limit int     // most variables per factor
	next  int32   // next auxiliary variable
	defs  []*gate // defs[i] defines variable base+i
	base  int32
	// memo: the reduction of each gate at each limit, so that a gate the
	// formula shares (the counting networks of EXIST=k) is reduced, and
	// its auxiliary variables defined, once.
	memo map[reduceKey]*gate
}

type reduceKey struct {
	x   *gate
	lim int
}

// define replaces x (whose support is at most limit-1) by a new auxiliary
// variable and returns the literal on it.
func (t *tseitin) define(x *gate) *gate {
	v := t.next
	t.next++
	t.defs = append(t.defs, x)
	return &gate{op: gLit, v: v, supp: []int32{v}}
}

// reduce rewrites x so that its support has at most lim variables (lim ≥ 2),
// defining auxiliary variables for subformulas as needed.
func (t *tseitin) reduce(x *gate, lim int) *gate {
	if len(x.supp) <= lim || x.op == gLit {
		return x
	}
	key := reduceKey{x, lim}
	if y, ok := t.memo[key]; ok {
		return y
	}
	if t.memo == nil {
		t.memo = map[reduceKey]*gate{}
	}
	y := t.reduce1(x, lim)
	t.memo[key] = y
	return y
}

func (t *tseitin) reduce1(x *gate, lim int) *gate {
	// Children first: each to at most limit-1 variables, so that it can be
	// defined by a factor of at most limit variables.
	kids := make([]*gate, len(x.kids))
	for i, k := range x.kids {
		kids[i] = t.reduce(k, t.limit-1)
	}
	y := &gate{op: x.op, neg: x.neg, kids: kids}
	y.setSupp()
	if len(y.supp) <= lim {
		return y
	}
	// Replace compound children by auxiliary variables, largest first.
	order := make([]int, len(kids))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return len(kids[b].supp) - len(kids[a].supp) })
	for _, i := range order {
		if kids[i].op == gLit {
			continue
		}
		kids[i] = t.define(kids[i])
		y.setSupp()
		if len(y.supp) <= lim {
			return y
		}
	}
	// Only literals are left (a long conjunction or disjunction; an
	// equivalence of two literals has two variables): cut them into chunks
	// of at most limit-1 literals, each defined by an auxiliary variable of
	// the same connective, until the rest fits.
	for len(y.supp) > lim {
		chunk := t.limit - 1
		var next []*gate
		for i := 0; i < len(y.kids); i += chunk {
			end := min(i+chunk, len(y.kids))
			if end-i == 1 {
				next = append(next, y.kids[i])
				continue
			}
			next = append(next, t.define(newGate(y.op, slices.Clone(y.kids[i:end]))))
		}
		y.kids = next
		y.setSupp()
	}
	return y
}

// buildCircuit represents the current ground formula, which has too many
// unknown atoms for one table and is not a clause or a conjunction, with
// Tseitin auxiliary variables.
func (g *grounder) buildCircuit() (*entry, error) {
	root, val, ok := g.circuitGate()
	if !ok {
		return g.constEntry(val), nil
	}
	k := int32(len(g.scope))
	t := &tseitin{limit: max(g.p.maxArity, 3), next: k, base: k}
	root = t.reduce(root, t.limit)
	plan := &circuitPlan{nAux: len(t.defs)}
	ref := func(v int32) int32 {
		if v < k {
			return v
		}
		return -(v - k) - 1
	}
	vals := make([]uint8, int(k)+len(t.defs))
	// table builds the table over vars (in order) of fn.
	table := func(vars []int32, fn func() float64) (int32, error) {
		n := len(vars)
		dims := make([]int32, n)
		tv := make([]float64, 1<<n)
		for i := range dims {
			dims[i] = 2
		}
		for a := range tv {
			for i, v := range vars {
				vals[v] = uint8(a>>(n-1-i)) & 1
			}
			tv[a] = fn()
		}
		return g.fs.tableID(dims, tv)
	}
	for i, d := range t.defs {
		v := k + int32(i)
		vars := append(slices.Clone(d.supp), v)
		id, err := table(vars, func() float64 {
			if d.eval(vals) == (vals[v] == 1) {
				return 1
			}
			return 0
		})
		if err != nil {
			return nil, err
		}
		cf := circuitFactor{table: id}
		for _, u := range vars {
			cf.refs = append(cf.refs, ref(u))
		}
		plan.defs = append(plan.defs, cf)
	}
	tv, fv, logScale := g.f.values()
	id, err := table(root.supp, func() float64 {
		if root.eval(vals) {
			return tv
		}
		return fv
	})
	if err != nil {
		return nil, err
	}
	plan.root.table = id
	for _, u := range root.supp {
		plan.root.refs = append(plan.root.refs, ref(u))
	}
	return &entry{kind: entCircuit, circuit: plan, logConst: logScale}, nil
}

// applyCircuit adds the auxiliary variables and factors of a circuit entry
// for the current scope.
func (g *grounder) applyCircuit(cp *circuitPlan) error {
	aux := make([]int32, cp.nAux)
	for i := range aux {
		aux[i] = g.b.AddVar(2)
	}
	add := func(cf circuitFactor) error {
		vars := make([]int32, len(cf.refs))
		for i, r := range cf.refs {
			if r >= 0 {
				vars[i] = g.scope[r]
			} else {
				vars[i] = aux[-r-1]
			}
		}
		return g.fs.add(vars, cf.table, false)
	}
	for _, d := range cp.defs {
		if err := add(d); err != nil {
			return err
		}
	}
	return add(cp.root)
}
