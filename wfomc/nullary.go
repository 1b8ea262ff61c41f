package wfomc

import (
	"fmt"
	"slices"
	"strings"
)

// Nullary atoms. Shattering turns every ground atom over named constants
// into a nullary atom (P(Guy,Nima) becomes a predicate of arity 0), so a
// model with many named constants — from formulas, evidence on binary atoms
// or queries — has many of them in one component. They form a small ground
// factor graph inside the lifted plan, solved exactly:
//
//   - A nullary atom that occurs in a formula with a free variable is an
//     interface atom: the cells of the anonymous elements depend on its
//     value. The other nullary atoms occur only in closed formulas (no free
//     variable), which are factors of the ground graph over nullary atoms.
//   - The non-interface atoms are summed out by variable elimination with
//     weights kept as polys in e^θ (so structure stays exact), in a greedy
//     order that keeps the largest table small; the order is simulated first
//     and the largest table predicted, and a prediction over maxGroundWidth
//     atoms is refused.
//   - What is left are factors over interface atoms. Their assignments are
//     enumerated depth first, pruned as soon as a factor is zero (evidence,
//     hard formulas); the predicted number of assignments (two per interface
//     atom that no unit factor fixes) must stay within maxInterfaceLeaves.
//     Assignments that give the formulas with free variables the same bodies
//     share one cell structure, whose weight is the sum of theirs.
//
// So Z = Σ_{cell structures} (Σ_{interface assignments a} Π_f f(a)) · Z_cells.

// maxGroundWidth bounds the nullary atoms of one variable-elimination table
// (2^maxGroundWidth entries).
const maxGroundWidth = 18

// maxInterfaceLeaves bounds the predicted assignments of interface atoms,
// and maxCaseWork those assignments times the cells enumerated for each.
const (
	maxInterfaceLeaves = 1 << 16
	maxCaseWork        = 1 << 26
)

// gfactor is a factor of the ground graph over nullary atoms: table[a] is
// the weight when bit i of a is the value of nullary variable scope[i].
type gfactor struct {
	scope []int // nullary variable indices, ascending
	table []poly
}

func onePoly(dim int) poly { return poly{{c: 1, e: make([]int32, dim)}} }

// nullaryFactors builds one factor per closed formula and one per nullary
// atom whose false value weighs other than 1 (Skolem atoms).
func nullaryFactors(pl *poller, pb *problem, dim int, nullary []int) ([]*gfactor, error) {
	vid := map[int]int{}
	for i, p := range nullary {
		vid[p] = i
	}
	var out []*gfactor
	for _, f := range pb.formulas {
		pl.poll()
		if len(f.free) != 0 {
			continue
		}
		set := map[int]bool{}
		walkAtoms(f.body, func(n *node) { set[vid[n.pred]] = true })
		scope := sortedKeys(set)
		if len(scope) > maxGroundWidth {
			return nil, fmt.Errorf("a formula over %d ground atoms of named constants (%s); at most %d are supported in one formula", len(scope), f.text, maxGroundWidth)
		}
		pos := map[int]int{}
		for i, v := range scope {
			pos[nullary[v]] = i
		}
		eval := compileEval(f.body, func(n *node) int { return pos[n.pred] }, func(u, v int) bool { return u == v })
		one := onePoly(dim)
		var on poly
		if f.param >= 0 {
			e := make([]int32, dim)
			e[f.param] = 1
			on = poly{{c: 1, e: e}}
		}
		g := &gfactor{scope: scope, table: make([]poly, 1<<len(scope))}
		for a := range g.table {
			switch t := eval(uint64(a)); {
			case f.param < 0 && t:
				g.table[a] = one
			case f.param < 0:
				g.table[a] = nil
			case t:
				g.table[a] = on
			default:
				g.table[a] = one
			}
		}
		out = append(out, g)
	}
	for i, p := range nullary {
		if w := pb.preds[p].negWeight(); w != 1 {
			out = append(out, &gfactor{scope: []int{i}, table: []poly{{{c: w, e: make([]int32, dim)}}, onePoly(dim)}})
		}
	}
	return out, nil
}

func sortedKeys(set map[int]bool) []int {
	out := make([]int, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// eliminationOrder chooses, greedily, the variable of elim whose factors
// span the fewest variables, and returns the order and the largest span
// (the number of variables of the largest table). It stops as soon as the
// span exceeds limit (returning that span).
func eliminationOrder(pl *poller, scopes [][]int, elim []int, limit int) (order []int, width int) {
	live := map[int][]int{} // factor id → scope
	byVar := map[int]map[int]bool{}
	next := 0
	addScope := func(s []int) {
		live[next] = s
		for _, x := range s {
			if byVar[x] == nil {
				byVar[x] = map[int]bool{}
			}
			byVar[x][next] = true
		}
		next++
	}
	for _, s := range scopes {
		addScope(s)
	}
	left := map[int]bool{}
	for _, v := range elim {
		left[v] = true
	}
	union := func(v int) map[int]bool {
		u := map[int]bool{v: true}
		for id := range byVar[v] {
			for _, x := range live[id] {
				u[x] = true
			}
		}
		return u
	}
	for len(left) > 0 {
		best, bestSize := -1, 0
		for _, v := range elim {
			if !left[v] {
				continue
			}
			pl.poll()
			if size := len(union(v)); best < 0 || size < bestSize {
				best, bestSize = v, size
			}
		}
		u := union(best)
		order = append(order, best)
		delete(left, best)
		width = max(width, bestSize)
		if width > limit {
			return order, width
		}
		for id := range byVar[best] {
			for _, x := range live[id] {
				if x != best {
					delete(byVar[x], id)
				}
			}
			delete(live, id)
		}
		delete(byVar, best)
		delete(u, best)
		addScope(sortedKeys(u))
	}
	return order, width
}

func containsInt(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// eliminate multiplies the factors that contain v and sums v out.
func eliminate(pl *poller, fs []*gfactor, v, dim int) []*gfactor {
	pl.poll()
	var with, rest []*gfactor
	union := map[int]bool{v: true}
	for _, f := range fs {
		if containsInt(f.scope, v) {
			with = append(with, f)
			for _, x := range f.scope {
				union[x] = true
			}
		} else {
			rest = append(rest, f)
		}
	}
	scope := sortedKeys(union)
	at := map[int]int{}
	for i, x := range scope {
		at[x] = i
	}
	// For every factor, the bit of each of its variables in the union.
	bitsOf := make([][]int, len(with))
	for k, f := range with {
		for _, x := range f.scope {
			bitsOf[k] = append(bitsOf[k], at[x])
		}
	}
	vb := at[v]
	var outScope []int
	for _, x := range scope {
		if x != v {
			outScope = append(outScope, x)
		}
	}
	out := &gfactor{scope: outScope, table: make([]poly, 1<<len(outScope))}
	for a := range out.table {
		// Insert v's bit at position vb.
		low := a & (1<<vb - 1)
		high := (a >> vb) << (vb + 1)
		sum := newPolyBuilder(dim)
		for val := 0; val < 2; val++ {
			full := high | val<<vb | low
			prod := onePoly(dim)
			for k, f := range with {
				idx := 0
				for i, b := range bitsOf[k] {
					idx |= (full >> b & 1) << i
				}
				e := f.table[idx]
				if len(e) == 0 {
					prod = nil
					break
				}
				if !e.isOne() {
					prod = mulPoly(dim, prod, e)
				}
			}
			sum.addPoly(1, prod)
		}
		out.table[a] = sum.poly()
	}
	return append(rest, out)
}

// nodeKey appends a canonical form of n to b.
func nodeKey(b *strings.Builder, n *node) {
	b.WriteByte('0' + byte(n.k))
	switch n.k {
	case nAtom, nEq:
		b.WriteString(itoa(n.pred))
		for _, a := range n.args {
			if a.isVar() {
				b.WriteString(",v" + itoa(a.v))
			} else {
				b.WriteString(",c" + a.c)
			}
		}
	case nExists, nForall, nCard, nLin:
		b.WriteString(itoa(n.qv) + n.cmp + itoa(n.cnt))
		for _, a := range n.coefs {
			b.WriteString("," + itoa(a))
		}
	}
	if len(n.kids) > 0 {
		b.WriteByte('(')
		for _, k := range n.kids {
			nodeKey(b, k)
			b.WriteByte(';')
		}
		b.WriteByte(')')
	}
}

// buildCases compiles the cell structures of a component with nullary
// atoms (see the top of this file).
func (b *cellBuilder) buildCases(comp *fo2Comp, nullary []int) error {
	pb, dim := b.pb, b.dim
	vid := map[int]int{}
	for i, p := range nullary {
		vid[p] = i
	}
	isIface := make([]bool, len(nullary))
	for _, f := range pb.formulas {
		if len(f.free) > 0 {
			walkAtoms(f.body, func(n *node) {
				if len(pb.preds[n.pred].types) == 0 {
					isIface[vid[n.pred]] = true
				}
			})
		}
	}
	var iface, elim []int
	for i, in := range isIface {
		if in {
			iface = append(iface, i)
		} else {
			elim = append(elim, i)
		}
	}
	fs, err := nullaryFactors(b.pl, pb, dim, nullary)
	if err != nil {
		return err
	}
	scopes := make([][]int, len(fs))
	for i, f := range fs {
		scopes[i] = f.scope
	}
	order, width := eliminationOrder(b.pl, scopes, elim, maxGroundWidth)
	if width > maxGroundWidth {
		return fmt.Errorf("%d nullary atoms (ground atoms over named constants) in one component: summing out the %d used only by formulas without variables needs a table over %d of them at once (2^%d entries; at most 2^%d are supported); fewer named constants (in formulas, evidence on binary atoms, queries) or fewer atoms per formula over them would lower it",
			len(nullary), len(elim), width, width, maxGroundWidth)
	}
	for _, v := range order {
		fs = eliminate(b.pl, fs, v, dim)
	}
	// Enumerate the interface atoms. A factor is checked and multiplied in
	// at the depth of its last variable.
	pos := make([]int, len(nullary))
	for d, v := range iface {
		pos[v] = d
	}
	closing := make([][]*gfactor, len(iface)+1) // closing[d+1]: factors whose last variable is iface[d]
	allowed := make([]int, len(iface))
	for i := range allowed {
		allowed[i] = 2
	}
	for _, f := range fs {
		last := -1
		for _, x := range f.scope {
			last = max(last, pos[x])
		}
		closing[last+1] = append(closing[last+1], f)
		if len(f.scope) == 1 {
			for _, e := range f.table {
				if len(e) == 0 {
					allowed[pos[f.scope[0]]]--
				}
			}
		}
	}
	leaves := 1.0
	for _, a := range allowed {
		leaves *= float64(max(a, 0))
	}
	cellWork := 0.0
	for _, t := range b.types {
		cellWork += b.cellCost(t)
	}
	if leaves > maxInterfaceLeaves || leaves*cellWork > maxCaseWork {
		free := 0
		for _, a := range allowed {
			if a == 2 {
				free++
			}
		}
		tooBig := fmt.Errorf("%d nullary atoms (ground atoms over named constants) in one component: %d of them occur in formulas over anonymous elements and %d of those are free, so the cells of the anonymous elements depend on 2^%d of their assignments (%.3g cell evaluations predicted; at most %d assignments and %.3g evaluations are supported); fewer named constants (in formulas, evidence on binary atoms, queries), or evidence on those atoms, would lower it",
			len(nullary), len(iface), free, free, leaves*cellWork, maxInterfaceLeaves, float64(maxCaseWork))
		return b.emptyRestOnly(comp, nullary, tooBig)
	}
	val := map[int]bool{}
	prods := make([]poly, len(iface)+1)
	prods[0] = onePoly(dim)
	for _, f := range closing[0] {
		prods[0] = mulPoly(dim, prods[0], f.table[0])
	}
	type pending struct {
		cs *cellCase
		w  *polyBuilder
	}
	byKey := map[string]*pending{}
	var cases []*pending
	var rec func(d int) error
	rec = func(d int) error {
		if len(prods[d]) == 0 {
			return nil
		}
		if d == len(iface) {
			var key strings.Builder
			bodies := make([]*node, len(pb.formulas))
			for i, f := range pb.formulas {
				if len(f.free) == 0 {
					continue
				}
				bodies[i] = substNullary(pb, f.body, val)
				key.WriteString(itoa(i) + ":")
				nodeKey(&key, bodies[i])
				key.WriteByte('\n')
			}
			p, ok := byKey[key.String()]
			if !ok {
				cs, err := b.buildCase(bodies)
				if err != nil {
					return err
				}
				p = &pending{cs: cs, w: newPolyBuilder(dim)}
				byKey[key.String()] = p
				cases = append(cases, p)
			}
			p.w.addPoly(1, prods[d])
			return nil
		}
		p := nullary[iface[d]]
		for _, v := range []bool{false, true} {
			val[p] = v
			prod := prods[d]
			for _, f := range closing[d+1] {
				idx := 0
				for i, x := range f.scope {
					if val[nullary[x]] {
						idx |= 1 << i
					}
				}
				e := f.table[idx]
				if len(e) == 0 {
					prod = nil
					break
				}
				if !e.isOne() {
					prod = mulPoly(dim, prod, e)
				}
			}
			prods[d+1] = prod
			if err := rec(d + 1); err != nil {
				return err
			}
		}
		delete(val, p)
		return nil
	}
	if err := rec(0); err != nil {
		return err
	}
	for _, p := range cases {
		if p.w.isZero() {
			continue
		}
		p.cs.weight = b.intern(p.w.poly())
		comp.cases = append(comp.cases, p.cs)
	}
	return nil
}

// emptyRestOnly compiles the component for domain sizes at which it has no
// anonymous element — every element is a named constant, as in a model whose
// constants all appear in formulas or evidence — when the general plan is
// too large (tooBig says why): all nullary atoms are then summed out by
// variable elimination, and Evaluate reports tooBig at sizes with anonymous
// elements. Formulas with free variables have no groundings there.
func (b *cellBuilder) emptyRestOnly(comp *fo2Comp, nullary []int, tooBig error) error {
	fs, err := nullaryFactors(b.pl, b.pb, b.dim, nullary)
	if err != nil {
		return err
	}
	scopes := make([][]int, len(fs))
	for i, f := range fs {
		scopes[i] = f.scope
	}
	all := make([]int, len(nullary))
	for i := range all {
		all[i] = i
	}
	order, width := eliminationOrder(b.pl, scopes, all, maxGroundWidth)
	if width > maxGroundWidth {
		return fmt.Errorf("%w; and without anonymous elements, summing out all %d needs a table over %d of them at once (2^%d entries; at most 2^%d are supported)",
			tooBig, len(nullary), width, width, maxGroundWidth)
	}
	for _, v := range order {
		fs = eliminate(b.pl, fs, v, b.dim)
	}
	z := onePoly(b.dim)
	for _, f := range fs {
		z = mulPoly(b.dim, z, f.table[0])
	}
	comp.emptyOnly = tooBig
	if len(z) > 0 {
		comp.cases = append(comp.cases, &cellCase{weight: b.intern(z)})
	}
	return nil
}
