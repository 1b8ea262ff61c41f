package wfomc

// Cell weights by variable elimination. A cell's weight is needed only per
// projection onto the atoms that pair weights read (b.mask); the other
// unary and reflexive atoms of the element are summed into it. Enumerating
// all 2^n assignments of an element's n atoms costs 2^n per cell structure,
// which a component with many named constants (each giving its binary
// predicates unary pieces) pays for every assignment of its interface
// nullary atoms. Instead, the formulas over one element are factors over
// its atoms (nullary.go's gfactor), the atoms outside the projection are
// summed out in a greedy order, and only the projection is enumerated. The
// polys are the same as enumeration gives (sums of the same monomials with
// integer coefficients, exact in float64).

// cellVEMin is the number of atoms per element above which cells are
// computed by elimination rather than enumeration.
const cellVEMin = 10

// cellVEMaxWidth bounds the atoms of one elimination table; wider plans
// enumerate.
const cellVEMaxWidth = 14

type cellWeight struct {
	group int
	proj  uint64
	p     poly
}

// cellsByElimination returns the nonzero weight of every (group,
// projection) of type t, or ok = false when elimination would not be
// cheaper than enumeration.
func (b *cellBuilder) cellsByElimination(t int, fs []ff) (out []cellWeight, ok bool) {
	preds := b.cellPred[t]
	dim := b.dim
	one := onePoly(dim)
	var base []*gfactor
	for _, x := range fs {
		set := map[int]bool{}
		walkAtoms(x.body, func(n *node) { set[b.cellBit[n.pred]] = true })
		scope := sortedKeys(set)
		if len(scope) > cellVEMaxWidth {
			return nil, false
		}
		pos := map[int]int{}
		for i, bit := range scope {
			pos[bit] = i
		}
		eval := compileEval(x.body, func(n *node) int { return pos[b.cellBit[n.pred]] }, func(u, v int) bool { return true })
		var on poly
		if x.f.param >= 0 {
			e := make([]int32, dim)
			e[x.f.param] = 1
			on = poly{{c: 1, e: e}}
		}
		g := &gfactor{scope: scope, table: make([]poly, 1<<len(scope))}
		for a := range g.table {
			switch v := eval(uint64(a)); {
			case x.f.param < 0 && v:
				g.table[a] = one
			case x.f.param < 0:
				g.table[a] = nil
			case v:
				g.table[a] = on
			default:
				g.table[a] = one
			}
		}
		base = append(base, g)
	}
	for i, p := range preds {
		if w := b.pb.preds[p].negWeight(); w != 1 {
			base = append(base, &gfactor{scope: []int{i}, table: []poly{{{c: w, e: make([]int32, dim)}}, one}})
		}
	}
	mask := b.mask[t]
	var elim, keep []int
	for i := range preds {
		if mask>>i&1 == 1 {
			keep = append(keep, i)
		} else {
			elim = append(elim, i)
		}
	}
	scopes := make([][]int, len(base))
	for i, f := range base {
		scopes[i] = f.scope
	}
	order, width := eliminationOrder(b.pl, scopes, elim, cellVEMaxWidth)
	if width > cellVEMaxWidth || width+2 >= len(preds) {
		return nil, false
	}
	for _, g := range b.groupsOf[t] {
		fs := append([]*gfactor(nil), base...)
		for p, v := range b.groupEv[g] {
			bit, in := b.cellBit[p]
			if !in || b.pb.preds[p].types[0] != t {
				continue
			}
			u := &gfactor{scope: []int{bit}, table: make([]poly, 2)}
			if v {
				u.table[1] = one
			} else {
				u.table[0] = one
			}
			fs = append(fs, u)
		}
		for _, v := range order {
			fs = eliminate(b.pl, fs, v, dim)
		}
		// Enumerate the projection: bit i of a is the value of keep[i].
		for a := uint64(0); a < 1<<len(keep); a++ {
			var proj uint64
			for i, bit := range keep {
				proj |= (a >> i & 1) << bit
			}
			prod := one
			for _, f := range fs {
				idx := 0
				for i, bit := range f.scope {
					idx |= int(proj>>bit&1) << i
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
			if len(prod) > 0 {
				out = append(out, cellWeight{group: g, proj: proj, p: prod})
			}
		}
	}
	return out, true
}

// cellCost estimates the work of computing the cells of type t in one cell
// structure: 2^n by enumeration, or the tables of elimination (from the
// formulas before nullary atoms are substituted, which only shrinks them).
func (b *cellBuilder) cellCost(t int) float64 {
	n := len(b.cellPred[t])
	full := float64(uint64(1) << n)
	if n <= cellVEMin {
		return full
	}
	var scopes [][]int
	for _, f := range b.pb.formulas {
		on := false
		switch len(f.free) {
		case 1:
			on = f.vars[f.free[0]].typ == t
		case 2:
			on = f.vars[f.free[0]].typ == t && f.vars[f.free[1]].typ == t
		}
		if !on {
			continue
		}
		set := map[int]bool{}
		walkAtoms(f.body, func(nd *node) {
			if bit, ok := b.cellBit[nd.pred]; ok {
				set[bit] = true
			}
		})
		if len(set) > cellVEMaxWidth {
			return full
		}
		scopes = append(scopes, sortedKeys(set))
	}
	var elim []int
	keep := 0
	for i := 0; i < n; i++ {
		if b.mask[t]>>i&1 == 1 {
			keep++
		} else {
			elim = append(elim, i)
		}
	}
	order, width := eliminationOrder(b.pl, scopes, elim, cellVEMaxWidth)
	if width > cellVEMaxWidth || width+2 >= n {
		return full
	}
	return float64(len(b.groupsOf[t])) * (float64(uint64(1)<<keep) + float64(len(order))*float64(uint64(1)<<width))
}
