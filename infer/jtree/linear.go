package jtree

import (
	"cmp"
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"slices"

	"github.com/lifted-dev/lifted/fg"
)

// maxRange is the largest dynamic range, ln(max/min) over the nonzero
// entries, that a table of the linear solver may be built with: e^-700
// is well above the smallest normal float64 (e^-708), so no nonzero entry
// of such a table flushes to zero.
const maxRange = 690

// node is a maximal clique of the junction tree of the linear solver: the
// elimination cliques Order[bottom..top] that it absorbed (each a subset
// of the one before) make one table over vars, its separator with the
// parent first (in the order those variables have in the parent's table),
// then the variables it eliminates (the last-eliminated first, so the
// first-eliminated is the fastest).
type node struct {
	vars   []int32
	nsep   int
	parent int32 // node index, -1 for a root
	off    int   // the table is tab[off : off+size]
	size   int
	sepLen int // entries of the separator table
	// scale is ln of the factor the table's entries are to be multiplied
	// by; rng bounds ln(max/min) over the table's nonzero entries.
	scale, rng float64
}

// nodes groups the elimination cliques of p into maximal cliques: clique
// i absorbs its parent when the parent's clique is i's separator (then it
// is a subset of i's clique). nodeOf maps each clique to its node; the
// nodes come children first (by their last clique), and each node's
// eliminated variables are Order[j] for the cliques j mapped to it.
func (p *Plan) nodes() (top []int32, nodeOf []int32) {
	nc := len(p.Order)
	nodeOf = make([]int32, nc)
	for i := range nodeOf {
		nodeOf[i] = -1
	}
	bottom := []int32{}
	for i := range nc {
		k := nodeOf[i]
		if k < 0 {
			k = int32(len(bottom))
			bottom = append(bottom, int32(i))
			top = append(top, int32(i))
			nodeOf[i] = k
		}
		top[k] = int32(i)
		par := p.Parent[i]
		if par >= 0 && nodeOf[par] < 0 && p.CliqueOff[par+1]-p.CliqueOff[par] == p.CliqueOff[i+1]-p.CliqueOff[i]-1 {
			nodeOf[par] = k
		}
	}
	// Renumber the nodes by their top clique: a parent's top is later.
	idx := make([]int32, len(top))
	for k := range idx {
		idx[k] = int32(k)
	}
	slices.SortFunc(idx, func(a, b int32) int { return cmp.Compare(top[a], top[b]) })
	rank := make([]int32, len(top))
	sorted := make([]int32, len(top))
	for r, k := range idx {
		rank[k] = int32(r)
		sorted[r] = top[k]
	}
	for i := range nodeOf {
		nodeOf[i] = rank[nodeOf[i]]
	}
	return sorted, nodeOf
}

// maximalTotal returns the entries of the maximal cliques' tables (the
// linear solver's tables) and of their separators.
func (p *Plan) maximalTotal(card []int32) float64 {
	if len(p.Parent) != len(p.Order) {
		return p.Total
	}
	_, nodeOf := p.nodes()
	seen := make([]bool, len(p.Order)+1)
	total := 0.0
	for i := range p.Order {
		k := nodeOf[i]
		if seen[k] {
			continue
		}
		seen[k] = true // the first clique of a node is its largest
		w := 1.0
		for _, v := range p.Clique(i) {
			w *= float64(card[v])
		}
		total += w
	}
	return total
}

// errLinearRange says that a table of the linear solver would have a
// dynamic range beyond maxRange: solve (log space) answers instead.
var errLinearRange = fmt.Errorf("jtree: a table's dynamic range is beyond the linear domain")

// solveLinear is solve in the linear domain: the tables of the maximal
// cliques hold entries scaled by their maximum, with the scale's log
// kept beside them, so no entry costs an exp or a log. A factor table's
// range and each message's are known, so each clique table's range is
// bounded before it is built; beyond maxRange (where an entry could
// flush to zero) it returns errLinearRange and the caller uses solve.
//
// Upward, each clique's table is the product of its factors and of its
// children's messages (children with the same separator multiplied
// together first, then broadcast once), and its message the sum (max)
// over the contiguous rows of its eliminated variables. Downward (Hugin),
// a child's table gains the parent's separator marginal over its old
// message (one pass over the parent per distinct separator). A variable's
// marginal comes from the clique that eliminates it: the table summed
// onto its eliminated block, then halved recursively.
func solveLinear(ctx context.Context, g *fg.Graph, ev fg.Evidence, p *Plan, maxProduct bool) (*result, error) {
	n := g.NumVars()
	top, nodeOf := p.nodes()
	nn := len(top)
	nodes := make([]node, nn)
	for k := range nodes {
		nodes[k].parent = -1
	}
	for k, t := range top {
		if par := p.Parent[t]; par >= 0 {
			nodes[k].parent = nodeOf[par]
		}
	}
	// Variables per node, roots first so that a parent's order is known.
	pos := make([]int32, n) // position of a variable in the current node's parent, -1 if absent
	for v := range pos {
		pos[v] = -1
	}
	elim := make([][]int32, nn)
	for j := len(p.Order) - 1; j >= 0; j-- {
		k := nodeOf[j]
		elim[k] = append(elim[k], p.Order[j]) // last-eliminated first
	}
	first := make([]int32, nn) // the node's bottom clique: its largest
	for j := len(p.Order) - 1; j >= 0; j-- {
		first[nodeOf[j]] = int32(j)
	}
	for k := nn - 1; k >= 0; k-- {
		nd := &nodes[k]
		sep := p.Clique(int(top[k]))
		sep = sep[:len(sep)-1]
		vars := make([]int32, 0, len(sep)+len(elim[k]))
		vars = append(vars, sep...)
		if nd.parent >= 0 {
			for q, v := range nodes[nd.parent].vars {
				pos[v] = int32(q)
			}
			slices.SortFunc(vars, func(a, b int32) int { return cmp.Compare(pos[a], pos[b]) })
			for _, v := range nodes[nd.parent].vars {
				pos[v] = -1
			}
		}
		nd.nsep = len(vars)
		vars = append(vars, elim[k]...)
		nd.vars = vars
		if len(vars) != int(p.CliqueOff[first[k]+1]-p.CliqueOff[first[k]]) {
			return nil, fmt.Errorf("jtree: internal error: clique %d has %d variables, its node %d", first[k], p.CliqueOff[first[k]+1]-p.CliqueOff[first[k]], len(vars))
		}
	}
	total, sepTotal := 0, 0
	for k := range nodes {
		nd := &nodes[k]
		nd.off = total
		nd.size, nd.sepLen = 1, 1
		for q, v := range nd.vars {
			nd.size *= int(g.Card[v])
			if q < nd.nsep {
				nd.sepLen *= int(g.Card[v])
			}
		}
		total += nd.size
		sepTotal += nd.sepLen
	}
	tab := make([]float64, total)
	items := make([][]item, nn) // what each node's table is the product of
	dims := func(nd *node) []int32 {
		d := make([]int32, len(nd.vars))
		for q, v := range nd.vars {
			d[q] = g.Card[v]
		}
		return d
	}
	ndims := make([][]int32, nn)
	for k := range nodes {
		ndims[k] = dims(&nodes[k])
	}
	// Factor tables scaled by their maximum, once per table id: values,
	// ln max, and ln(max/min nonzero).
	type scaled struct {
		vals     []float64
		logMax   float64
		rng      float64
		allZeros bool
	}
	sc := make([]*scaled, len(g.Tables))
	scaledOf := func(t int32) *scaled {
		if sc[t] != nil {
			return sc[t]
		}
		vals := g.Tables[t].Values
		mx, mn := 0.0, math.Inf(1)
		for _, x := range vals {
			if x > 0 {
				mx = max(mx, x)
				mn = min(mn, x)
			}
		}
		s := &scaled{}
		if mx == 0 {
			s.allZeros = true
			s.vals = vals
		} else {
			s.logMax = math.Log(mx)
			s.rng = math.Log(mx) - math.Log(mn)
			s.vals = make([]float64, len(vals))
			for i, x := range vals {
				s.vals[i] = x / mx
			}
		}
		sc[t] = s
		return s
	}
	// Potentials: as in solve, each factor into the node of its first-
	// eliminated unobserved variable; factors over the same free variables
	// of a node much larger than them are first combined into one small
	// table (in log space: one exp per entry of that small table).
	constant := 0.0
	varPos := make([]int32, n)
	for v := range varPos {
		varPos[v] = -1
	}
	type pot struct {
		k    int
		vars []int32
		tab  []float64 // log
	}
	var pots []pot
	potOf := make(map[string]int)
	var key []byte
	var fv []free
	var cnt []int32
	for f := range g.NumFactors() {
		t := g.Table(f)
		var base int
		var firstV int32
		base, firstV, fv = clampScope(g, f, ev, p.Pos, fv)
		s := scaledOf(g.FactorTable[f])
		if firstV < 0 {
			if t.Values[base] == 0 {
				return nil, ErrNoWorld
			}
			constant += math.Log(t.Values[base])
			continue
		}
		if s.allZeros {
			return nil, ErrNoWorld
		}
		k := int(nodeOf[p.Pos[firstV]])
		nd := &nodes[k]
		size := 1
		for _, x := range fv {
			size *= int(g.Card[x.v])
		}
		if nd.size <= 8*size {
			for q, v := range nd.vars {
				varPos[v] = int32(q)
			}
			strides := make([]int, len(nd.vars))
			for _, x := range fv {
				strides[varPos[x.v]] = x.stride
			}
			for _, v := range nd.vars {
				varPos[v] = -1
			}
			items[k] = append(items[k], item{src: s.vals, base: base, str: strides})
			nd.scale += s.logMax
			nd.rng += s.rng
			continue
		}
		slices.SortFunc(fv, func(a, b free) int { return cmp.Compare(a.v, b.v) })
		key = binary.LittleEndian.AppendUint32(key[:0], uint32(k))
		for _, x := range fv {
			key = binary.LittleEndian.AppendUint32(key, uint32(x.v))
		}
		pi, ok := potOf[string(key)]
		if !ok {
			pi = len(pots)
			potOf[string(key)] = pi
			vars := make([]int32, len(fv))
			for i, x := range fv {
				vars[i] = x.v
			}
			pots = append(pots, pot{k: k, vars: vars, tab: make([]float64, size)})
		}
		cnt = addEntries(pots[pi].tab, g.Card, fv, base, cnt, func(j int) float64 { return math.Log(t.Values[j]) })
	}
	for _, pt := range pots {
		nd := &nodes[pt.k]
		mx := math.Inf(-1)
		for _, x := range pt.tab {
			mx = max(mx, x)
		}
		if math.IsInf(mx, -1) {
			return nil, ErrNoWorld
		}
		mn := mx
		for i, x := range pt.tab {
			if !math.IsInf(x, -1) {
				mn = min(mn, x)
			}
			pt.tab[i] = math.Exp(x - mx)
		}
		nd.scale += mx
		nd.rng += mx - mn
		for q, v := range nd.vars {
			varPos[v] = int32(q)
		}
		strides := make([]int, len(nd.vars))
		st := 1
		for q := len(pt.vars) - 1; q >= 0; q-- {
			v := pt.vars[q]
			strides[varPos[v]] = st
			st *= int(g.Card[v])
		}
		for _, v := range nd.vars {
			varPos[v] = -1
		}
		items[pt.k] = append(items[pt.k], item{src: pt.tab, str: strides})
	}
	// Children per node, grouped by separator: a group's messages are
	// multiplied together, then into the parent once.
	children := make([][]int32, nn)
	for k := range nodes {
		if par := nodes[k].parent; par >= 0 {
			children[par] = append(children[par], int32(k))
		}
	}
	sameSep := func(a, b *node) bool {
		return a.nsep == b.nsep && slices.Equal(a.vars[:a.nsep], b.vars[:b.nsep])
	}
	sepOff := make([]int, nn+1)
	for k := range nodes {
		sepOff[k+1] = sepOff[k] + nodes[k].sepLen
	}
	sep := make([]float64, sepTotal)
	msgScale := make([]float64, nn)
	sstr := make([]int, 0, 64)
	logZ := constant
	// Upward pass.
	for k := range nodes {
		if k&63 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		nd := &nodes[k]
		t := tab[nd.off : nd.off+nd.size]
		// Multiply in the children's messages (all computed: children
		// come first), one broadcast per distinct separator.
		ch := children[k]
		done := make([]bool, len(ch))
		for a, c := range ch {
			if done[a] {
				continue
			}
			cn := &nodes[c]
			msg := sep[sepOff[c]:sepOff[c+1]]
			groupBuf := slices.Clone(msg)
			nd.scale += msgScale[c]
			nd.rng += rangeOf(msg)
			for b := a + 1; b < len(ch); b++ {
				if done[b] || !sameSep(cn, &nodes[ch[b]]) {
					continue
				}
				done[b] = true
				m2 := sep[sepOff[ch[b]]:sepOff[ch[b]+1]]
				for i := range groupBuf {
					groupBuf[i] *= m2[i]
				}
				nd.scale += msgScale[ch[b]]
				nd.rng += rangeOf(m2)
			}
			items[k] = append(items[k], item{src: groupBuf, str: sepStrides(make([]int, len(nd.vars)), cn.vars[:cn.nsep], nd.vars, ndims[c], varPos)})
		}
		if nd.rng > maxRange {
			return nil, errLinearRange
		}
		product(t, ndims[k], items[k])
		items[k] = nil
		s := sep[sepOff[k]:sepOff[k+1]]
		reduceRows(t, s, nd.size/nd.sepLen, maxProduct)
		mx := 0.0
		for _, x := range s {
			mx = max(mx, x)
		}
		if mx == 0 {
			return nil, ErrNoWorld
		}
		if nd.parent < 0 {
			logZ += nd.scale + math.Log(mx) // one entry
			continue
		}
		inv := 1 / mx
		for i := range s {
			s[i] *= inv
		}
		msgScale[k] = nd.scale + math.Log(mx)
	}
	if math.IsInf(logZ, -1) {
		return nil, ErrNoWorld
	}
	if math.IsNaN(logZ) || math.IsInf(logZ, 1) {
		return nil, fmt.Errorf("jtree: log Z is %v (a numerical failure; please report it)", logZ)
	}
	r := &result{logZ: logZ, off: make([]int, n+1)}
	if maxProduct {
		// Decode roots first from the upward tables: given the separator's
		// values, the best row entry assigns the eliminated variables.
		r.assign = make([]int32, n)
		for v := range n {
			if ev[v] >= 0 {
				r.assign[v] = ev[v]
			}
		}
		for k := nn - 1; k >= 0; k-- {
			nd := &nodes[k]
			d := ndims[k]
			idx := 0
			for q, v := range nd.vars[:nd.nsep] {
				idx = idx*int(d[q]) + int(r.assign[v])
			}
			rl := nd.size / nd.sepLen
			row := tab[nd.off+idx*rl : nd.off+(idx+1)*rl]
			best := 0
			for e := 1; e < rl; e++ {
				if row[e] > row[best] {
					best = e
				}
			}
			for q := len(nd.vars) - 1; q >= nd.nsep; q-- {
				r.assign[nd.vars[q]] = int32(best % int(d[q]))
				best /= int(d[q])
			}
		}
	}
	// Downward pass (Hugin), roots first; children of a node with the
	// same separator share one reduction of the parent's table.
	var newSep []float64
	for k := nn - 1; k >= 0; k-- {
		if k&63 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		nd := &nodes[k]
		pt := tab[nd.off : nd.off+nd.size]
		ch := children[k]
		done := make([]bool, len(ch))
		for a, c := range ch {
			if done[a] {
				continue
			}
			cn := &nodes[c]
			newSep = append(newSep[:0], make([]float64, cn.sepLen)...)
			sstr = sepStrides(sstr, cn.vars[:cn.nsep], nd.vars, ndims[c], varPos)
			reduceInto(pt, ndims[k], sstr, newSep, maxProduct)
			mx := 0.0
			for _, x := range newSep {
				mx = max(mx, x)
			}
			if mx == 0 {
				return nil, ErrNoWorld
			}
			inv := 1 / mx
			for i := range newSep {
				newSep[i] *= inv
			}
			for b := a; b < len(ch); b++ {
				if done[b] || (b > a && !sameSep(cn, &nodes[ch[b]])) {
					continue
				}
				done[b] = true
				c2 := &nodes[ch[b]]
				old := sep[sepOff[ch[b]]:sepOff[ch[b]+1]]
				t := tab[c2.off : c2.off+c2.size]
				rl := c2.size / c2.sepLen
				for i, o := range old {
					row := t[i*rl : (i+1)*rl]
					if o == 0 {
						continue // 0/0 = 0: the row is zero already
					}
					f := newSep[i] / o
					for e := range row {
						row[e] *= f
					}
				}
			}
		}
	}
	// Marginals of each node's eliminated variables.
	for v := range n {
		r.off[v+1] = r.off[v] + int(g.Card[v])
	}
	r.marg = make([]float64, r.off[n])
	for v := range n {
		if ev[v] >= 0 {
			r.marg[r.off[v]+int(ev[v])] = 1
		}
	}
	var block []float64
	out := make([][]float64, 0, 64)
	for k := range nodes {
		nd := &nodes[k]
		t := tab[nd.off : nd.off+nd.size]
		rl := nd.size / nd.sepLen
		block = append(block[:0], t[:rl]...)
		for i := rl; i < len(t); i += rl {
			row := t[i : i+rl]
			if maxProduct {
				for e, x := range row {
					block[e] = max(block[e], x)
				}
			} else {
				for e, x := range row {
					block[e] += x
				}
			}
		}
		out = out[:0]
		for _, v := range nd.vars[nd.nsep:] {
			out = append(out, r.marg[r.off[v]:r.off[v+1]])
		}
		marginalsOf(block, ndims[k][nd.nsep:], out, maxProduct)
		for _, m := range out {
			sum := 0.0
			for _, x := range m {
				sum += x
			}
			if !(sum > 0) || math.IsInf(sum, 1) {
				return nil, ErrNoWorld
			}
			for s := range m {
				m[s] /= sum
			}
		}
	}
	return r, nil
}

// free is an unobserved variable of a factor and its stride in the
// factor's table (summed over the positions where it occurs).
type free struct {
	v      int32
	stride int
}

// clampScope reads factor f's scope under ev: the table offset of the
// observed variables' states, the distinct unobserved variables (into
// fv) and the one of them eliminated first by pos (-1: none).
func clampScope(g *fg.Graph, f int, ev fg.Evidence, pos []int32, fv []free) (base int, first int32, out []free) {
	fs := g.Table(f).Strides()
	first = -1
	fv = fv[:0]
scan:
	for q, v := range g.Scope(f) {
		if ev[v] >= 0 {
			base += int(ev[v]) * fs[q]
			continue
		}
		if first < 0 || pos[v] < pos[first] {
			first = v
		}
		for i := range fv {
			if fv[i].v == v {
				fv[i].stride += fs[q]
				continue scan
			}
		}
		fv = append(fv, free{v, fs[q]})
	}
	return base, first, fv
}

// addEntries adds entry(j) to dst[e] for each state e of the variables fv
// (an odometer, the last fastest), j the factor-table index from base;
// cnt is scratch, returned for reuse.
func addEntries(dst []float64, card []int32, fv []free, base int, cnt []int32, entry func(j int) float64) []int32 {
	cnt = append(cnt[:0], make([]int32, len(fv))...)
	j := base
	for e := range dst {
		dst[e] += entry(j)
		for q := len(fv) - 1; q >= 0; q-- {
			cnt[q]++
			j += fv[q].stride
			if cnt[q] < card[fv[q].v] {
				break
			}
			j -= fv[q].stride * int(card[fv[q].v])
			cnt[q] = 0
		}
	}
	return cnt
}

// rangeOf returns ln(max/min) over the nonzero entries of m (0 when none).
func rangeOf(m []float64) float64 {
	mx, mn := 0.0, math.Inf(1)
	for _, x := range m {
		if x > 0 {
			mx = max(mx, x)
			mn = min(mn, x)
		}
	}
	if mx == 0 {
		return 0
	}
	return math.Log(mx / mn)
}

// marginalsOf writes into out[q] the sum (max) of t, a table with
// dimensions dims (last fastest), over all dimensions but q: the table
// is split into its first and second halves of dimensions and each half
// marginal recursed on, so a table of d dimensions costs about two
// passes over it instead of d.
func marginalsOf(t []float64, dims []int32, out [][]float64, maxProduct bool) {
	if len(dims) == 1 {
		copy(out[0], t)
		return
	}
	h := len(dims) / 2
	nl := 1
	for _, d := range dims[:h] {
		nl *= int(d)
	}
	nr := len(t) / nl
	left := make([]float64, nl)
	right := make([]float64, nr)
	copy(right, t[:nr])
	for i := range nl {
		row := t[i*nr : (i+1)*nr]
		if maxProduct {
			m := row[0]
			for _, x := range row {
				m = max(m, x)
			}
			left[i] = m
			if i > 0 {
				for e, x := range row {
					right[e] = max(right[e], x)
				}
			}
			continue
		}
		s := 0.0
		for _, x := range row {
			s += x
		}
		left[i] = s
		if i > 0 {
			for e, x := range row {
				right[e] += x
			}
		}
	}
	marginalsOf(left, dims[:h], out[:h], maxProduct)
	marginalsOf(right, dims[h:], out[h:], maxProduct)
}

// reduceRows sums (maximises) each row of rl = len(t)/len(s) contiguous
// entries of t into s.
func reduceRows(t, s []float64, rl int, maxProduct bool) {
	if rl == 2 {
		if maxProduct {
			for k := range s {
				s[k] = max(t[2*k], t[2*k+1])
			}
		} else {
			for k := range s {
				s[k] = t[2*k] + t[2*k+1]
			}
		}
		return
	}
	for k := range s {
		row := t[k*rl : (k+1)*rl]
		acc := row[0]
		switch {
		case maxProduct:
			for _, x := range row[1:] {
				acc = max(acc, x)
			}
		case rl > sumBlock:
			acc = blockedSum(row)
		default:
			for _, x := range row[1:] {
				acc += x
			}
		}
		s[k] = acc
	}
}

// sumBlock is the block length of blockedSum.
const sumBlock = 256

// blockedSum sums x in blocks of sumBlock entries, then the blocks' sums:
// the rounding error grows with sumBlock + len(x)/sumBlock instead of
// len(x) (a root's row can have 2^20 entries and more).
func blockedSum(x []float64) float64 {
	total := 0.0
	for len(x) > 0 {
		b := x[:min(sumBlock, len(x))]
		acc := 0.0
		for _, v := range b {
			acc += v
		}
		total += acc
		x = x[len(b):]
	}
	return total
}

// reduceInto sums (maximises) src, a table with dimensions dims, onto
// dst (zeroed here), whose index is Σ strides[q]·state[q]; neighbouring
// dimensions dst steps through contiguously are merged first.
func reduceInto(src []float64, dims []int32, strides []int, dst []float64, maxProduct bool) {
	clear(dst)
	md, ms := mergeDims(dims, strides)
	nd := len(md)
	last := nd - 1
	dl, sl := md[last], ms[last]
	var cntBuf [32]int
	cnt := cntBuf[:0]
	if nd > len(cntBuf) {
		cnt = make([]int, nd)
	} else {
		cnt = cntBuf[:nd]
	}
	j := 0
	for i := 0; i < len(src); i += dl {
		row := src[i : i+dl]
		switch {
		case sl == 0 && !maxProduct:
			s := 0.0
			for _, x := range row {
				s += x
			}
			dst[j] += s
		case sl == 0:
			m := dst[j]
			for _, x := range row {
				m = max(m, x)
			}
			dst[j] = m
		case sl == 1 && !maxProduct:
			d := dst[j : j+dl]
			for e, x := range row {
				d[e] += x
			}
		default:
			jj := j
			for _, x := range row {
				if maxProduct {
					dst[jj] = max(dst[jj], x)
				} else {
					dst[jj] += x
				}
				jj += sl
			}
		}
		for q := last - 1; q >= 0; q-- {
			cnt[q]++
			j += ms[q]
			if cnt[q] < md[q] {
				break
			}
			j -= ms[q] * md[q]
			cnt[q] = 0
		}
	}
}

// mergeDims merges neighbouring dimensions of a table that a strided
// index steps through contiguously (strides[q] = strides[q+1]·dims[q+1],
// both 0 included).
func mergeDims(dims []int32, strides []int) (md, ms []int) {
	md, ms = make([]int, 0, len(dims)), make([]int, 0, len(dims))
	for q := range dims {
		d, st := int(dims[q]), strides[q]
		if n := len(md); n > 0 && ms[n-1] == st*d {
			md[n-1] *= d
			ms[n-1] = st
			continue
		}
		md, ms = append(md, d), append(ms, st)
	}
	if len(md) == 0 {
		md, ms = append(md, 1), append(ms, 0)
	}
	return md, ms
}

// item is one table that a clique table is the product of: its entry for
// the clique's state is src[base + Σ str[q]·state[q]].
type item struct {
	src  []float64
	base int
	str  []int
}

// product sets dst, a table with dimensions dims (last fastest), to the
// product of items. A pass over dst per item would cost len(dst) times
// the items; instead the dimensions are split in two where the fewest
// items span the split, the items on each side multiplied recursively
// into a table over that side alone (small), dst set to the outer
// product of the two, and only the spanning items broadcast over dst.
func product(dst []float64, dims []int32, items []item) {
	nd := len(dims)
	if len(items) <= 1 || len(dst) <= 1<<8 || nd < 2 {
		for i := range dst {
			dst[i] = 1
		}
		for _, it := range items {
			mulBroadcast(dst, dims, it.str, it.src, it.base)
		}
		return
	}
	lo := make([]int, len(items))
	hi := make([]int, len(items))
	for i, it := range items {
		lo[i], hi[i] = nd, -1
		for q, s := range it.str {
			if s != 0 {
				lo[i] = min(lo[i], q)
				hi[i] = max(hi[i], q)
			}
		}
	}
	bestH, bestCross, bestBal := -1, len(items), math.Inf(1)
	sizeA := 1.0
	for h := 1; h < nd; h++ {
		sizeA *= float64(dims[h-1])
		cross := 0
		for i := range items {
			if lo[i] < h && hi[i] >= h {
				cross++
			}
		}
		bal := math.Max(sizeA, float64(len(dst))/sizeA)
		if cross < bestCross || (cross == bestCross && bal < bestBal) {
			bestH, bestCross, bestBal = h, cross, bal
		}
	}
	if bestH < 0 || bestCross >= len(items)-1 {
		for i := range dst {
			dst[i] = 1
		}
		for _, it := range items {
			mulBroadcast(dst, dims, it.str, it.src, it.base)
		}
		return
	}
	h := bestH
	na := 1
	for _, d := range dims[:h] {
		na *= int(d)
	}
	nb := len(dst) / na
	var ia, ib, ic []item
	for i, it := range items {
		switch {
		case hi[i] < h: // within A (a constant item too)
			ia = append(ia, item{src: it.src, base: it.base, str: it.str[:h]})
		case lo[i] >= h:
			ib = append(ib, item{src: it.src, base: it.base, str: it.str[h:]})
		default:
			ic = append(ic, it)
		}
	}
	pa := make([]float64, na)
	product(pa, dims[:h], ia)
	pb := make([]float64, nb)
	product(pb, dims[h:], ib)
	for a, x := range pa {
		row := dst[a*nb : (a+1)*nb]
		for b, y := range pb {
			row[b] = x * y
		}
	}
	for _, it := range ic {
		mulBroadcast(dst, dims, it.str, it.src, it.base)
	}
}

// mulBroadcast multiplies every entry of dst, a table with dimensions dims
// (last fastest), by src's entry at base + Σ strides[q]·state[q].
func mulBroadcast(dst []float64, dims []int32, strides []int, src []float64, base int) {
	md, ms := mergeDims(dims, strides)
	nd := len(md)
	var cntBuf [32]int
	cnt := cntBuf[:0]
	if nd > len(cntBuf) {
		cnt = make([]int, nd)
	} else {
		cnt = cntBuf[:nd]
	}
	last := nd - 1
	dl, sl := md[last], ms[last]
	j := base
	for i := 0; i < len(dst); {
		row := dst[i : i+dl]
		if sl == 0 {
			x := src[j]
			if x != 1 {
				for k := range row {
					row[k] *= x
				}
			}
		} else if sl == 1 {
			for k, x := range src[j : j+dl] {
				row[k] *= x
			}
		} else {
			jj := j
			for k := range row {
				row[k] *= src[jj]
				jj += sl
			}
		}
		i += dl
		for q := last - 1; q >= 0; q-- {
			cnt[q]++
			j += ms[q]
			if cnt[q] < md[q] {
				break
			}
			j -= ms[q] * md[q]
			cnt[q] = 0
		}
	}
}
