package lbg

import "slices"

// A plan computes, for one formula and one occurrence o of a lifted
// cluster's predicate A in it, the count message of Theorem 2: for every
// grounding of o's variables (the shared terms), the number of groundings
// of the formula that are true (or false) with o's atom set to v, given
// the other atoms' current values. The count is a sum over the other
// variables of a product of indicators, one per other atom occurrence
// (a row of the formula's truth table fixes each occurrence's value):
//
//	N_v(X) = Σ_rows Σ_{y} Π_{i≠o} [atom_i(X, y) = row_i],
//
// computed by variable elimination on the formula's variables, never by
// visiting its groundings: on R(x,y) v S(y,z) the message to S is the
// number of false R(·,y) per y, O(n²) work, where the ground formulas
// are n³.
//
// A plan may fix several occurrences (a lifted cluster of several predicates
// fixes both of a formula that mentions them, newPlanFixed): the message
// is then indexed by their joint value v (bit i the value of fixed[i]).
type plan struct {
	form, occ int   // occ is fixed[0]
	fixed     []int // the occurrences whose values index the message
	keep      []int // the variables the message is over, in order
	others    []int // the other occurrences
	ovars     [][]int
	steps     []step
	target    bool // count true (else false) groundings
	// rows[v] lists the truth-table rows with the fixed occurrences'
	// values v whose value is target.
	rows     [][]int
	minterms int
	// schematic cost of one evaluation (one row) and its largest table
	time, space float64
}

// step eliminates variable v: the tensors at the given indices of the
// working list are multiplied and v summed out; the result, over out, is
// appended and the inputs removed.
type step struct {
	in  []int
	u   []int // union of the inputs' variables
	out []int
}

// distinctVars lists an occurrence's variables without repeats.
func distinctVars(o occurrence) []int {
	var vs []int
	for _, a := range o.args {
		if a >= 0 && !slices.Contains(vs, a) {
			vs = append(vs, a)
		}
	}
	return vs
}

func newPlan(md *Model, j, o int) plan {
	return newPlanFixed(md, j, []int{o}, distinctVars(md.forms[j].occs[o]))
}

// newPlanFixed is the plan of formula j's count message indexed by the
// values of the occurrences fixed, over the variables keep.
func newPlanFixed(md *Model, j int, fixed, keep []int) plan {
	f := &md.forms[j]
	pl := plan{form: j, occ: fixed[0], fixed: fixed, keep: keep}
	for i := range f.occs {
		if !slices.Contains(fixed, i) {
			pl.others = append(pl.others, i)
			pl.ovars = append(pl.ovars, distinctVars(f.occs[i]))
		}
	}
	// choose what to count
	nt := 0
	for _, t := range f.truth {
		if t {
			nt++
		}
	}
	pl.target = !f.hard && nt <= len(f.truth)-nt
	pl.rows = make([][]int, 1<<len(fixed))
	for mask, t := range f.truth {
		if t == pl.target {
			v := 0
			for i, o := range fixed {
				v |= (mask >> o & 1) << i
			}
			pl.rows[v] = append(pl.rows[v], mask)
		}
	}
	for _, r := range pl.rows {
		pl.minterms = max(pl.minterms, len(r))
	}
	size := func(vs []int) float64 {
		s := 1.0
		for _, v := range vs {
			s *= float64(f.dom[v])
		}
		return s
	}
	work := slices.Clone(pl.ovars)
	for _, vs := range work {
		pl.time += size(vs)
		pl.space = max(pl.space, size(vs))
	}
	for {
		// variables still to sum out
		best, bv := -1.0, -1
		for _, vs := range work {
			for _, v := range vs {
				if slices.Contains(pl.keep, v) {
					continue
				}
				var u []int
				for _, ws := range work {
					if slices.Contains(ws, v) {
						u = union(u, ws)
					}
				}
				if s := size(u); bv < 0 || s < best {
					best, bv = s, v
				}
			}
		}
		if bv < 0 {
			break
		}
		var st step
		var rest [][]int
		for k, ws := range work {
			if slices.Contains(ws, bv) {
				st.in = append(st.in, k)
				st.u = union(st.u, ws)
			} else {
				rest = append(rest, ws)
			}
		}
		for _, v := range st.u {
			if v != bv {
				st.out = append(st.out, v)
			}
		}
		pl.time += size(st.u)
		pl.space = max(pl.space, size(st.out))
		pl.steps = append(pl.steps, st)
		work = append(rest, st.out)
	}
	pl.time += size(pl.keep) * float64(len(work)+1)
	pl.space = max(pl.space, size(pl.keep))
	return pl
}

func union(a, b []int) []int {
	out := slices.Clone(a)
	for _, v := range b {
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}

// tensor is a dense table over variables (last one fastest).
type tensor struct {
	vars []int
	vals []float64
}

// stridesIn returns, for each variable of u, its stride in t (0 if t does
// not have it).
func stridesIn(t []int, u []int, dom []int) []int {
	st := make([]int, len(u))
	s := 1
	for k := len(t) - 1; k >= 0; k-- {
		if p := slices.Index(u, t[k]); p >= 0 {
			st[p] = s
		}
		s *= dom[t[k]]
	}
	return st
}

// combine multiplies ts over the variables u and sums out those not in
// out.
func combine(ts []*tensor, u, out []int, dom []int) *tensor {
	n := 1
	for _, v := range out {
		n *= dom[v]
	}
	res := &tensor{vars: out, vals: make([]float64, n)}
	rs := stridesIn(out, u, dom)
	st := make([][]int, len(ts))
	for k, t := range ts {
		st[k] = stridesIn(t.vars, u, dom)
	}
	total := 1
	for _, v := range u {
		total *= dom[v]
	}
	idx := make([]int, len(ts))
	cnt := make([]int, len(u))
	ri := 0
	for range total {
		p := 1.0
		for k, t := range ts {
			p *= t.vals[idx[k]]
			if p == 0 {
				break
			}
		}
		res.vals[ri] += p
		for q := len(u) - 1; q >= 0; q-- {
			cnt[q]++
			for k := range ts {
				idx[k] += st[k][q]
			}
			ri += rs[q]
			if cnt[q] < dom[u[q]] {
				break
			}
			for k := range ts {
				idx[k] -= st[k][q] * cnt[q]
			}
			ri -= rs[q] * cnt[q]
			cnt[q] = 0
		}
	}
	return res
}

// indicator is the table over the distinct variables of occurrence o of
// [atom = b] in the world x.
func (md *Model) indicator(f *formula, o occurrence, vs []int, b int8, x []int8) *tensor {
	p := &md.preds[o.pred]
	n := 1
	for _, v := range vs {
		n *= f.dom[v]
	}
	t := &tensor{vars: vs, vals: make([]float64, n)}
	asg := make([]int, len(f.dom))
	cnt := make([]int, len(vs))
	for i := range n {
		j := p.off
		for k, a := range o.args {
			c := -1 - a
			if a >= 0 {
				c = asg[a]
			}
			j += c * p.stride[k]
		}
		if x[j] == b {
			t.vals[i] = 1
		}
		for q := len(vs) - 1; q >= 0; q-- {
			cnt[q]++
			asg[vs[q]] = cnt[q]
			if cnt[q] < f.dom[vs[q]] {
				break
			}
			cnt[q], asg[vs[q]] = 0, 0
		}
	}
	return t
}

// evalPlan returns N_v over pl.keep: the number of groundings of the formula
// with value pl.target when the occurrence's atom is v, per grounding of
// the kept variables, in the world x.
func (md *Model) evalPlan(pl *plan, v int, x []int8) *tensor {
	f := &md.forms[pl.form]
	n := 1
	for _, k := range pl.keep {
		n *= f.dom[k]
	}
	sum := &tensor{vars: pl.keep, vals: make([]float64, n)}
	var ind [2][]*tensor
	for _, row := range pl.rows[v] {
		work := make([]*tensor, len(pl.others))
		for k, i := range pl.others {
			b := row >> i & 1
			if ind[b] == nil {
				ind[b] = make([]*tensor, len(pl.others))
			}
			if ind[b][k] == nil {
				ind[b][k] = md.indicator(f, f.occs[i], pl.ovars[k], int8(b), x)
			}
			work[k] = ind[b][k]
		}
		for _, st := range pl.steps {
			in := make([]*tensor, len(st.in))
			var rest []*tensor
			for k, t := range work {
				if slices.Contains(st.in, k) {
					in[slices.Index(st.in, k)] = t
				} else {
					rest = append(rest, t)
				}
			}
			work = append(rest, combine(in, st.u, st.out, f.dom))
		}
		u := slices.Clone(pl.keep)
		for _, t := range work {
			u = union(u, t.vars)
		}
		r := combine(work, u, pl.keep, f.dom)
		for i, c := range r.vals {
			sum.vals[i] += c
		}
	}
	return sum
}

// scatter calls fn(j, val) for every non-zero entry val of r (a message
// over pl.keep) with j the offset in p of the atom of occurrence o (of
// predicate p, its variables among pl.keep) at that grounding.
func (md *Model) scatter(pl *plan, p *predicate, o occurrence, r *tensor, fn func(j int, val float64)) {
	f := &md.forms[pl.form]
	asg := make([]int, len(f.dom))
	cnt := make([]int, len(pl.keep))
	for _, val := range r.vals {
		if val != 0 {
			j := 0
			for k, a := range o.args {
				cc := -1 - a
				if a >= 0 {
					cc = asg[a]
				}
				j += cc * p.stride[k]
			}
			fn(j, val)
		}
		for q := len(pl.keep) - 1; q >= 0; q-- {
			cnt[q]++
			asg[pl.keep[q]] = cnt[q]
			if cnt[q] < f.dom[pl.keep[q]] {
				break
			}
			cnt[q], asg[pl.keep[q]] = 0, 0
		}
	}
}
