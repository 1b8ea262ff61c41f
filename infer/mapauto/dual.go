package mapauto

import (
	"cmp"
	"encoding/binary"
	"errors"
	"math"
	"slices"

	"github.com/lifted-dev/lifted/fg"
)

// dual is the dual of the LOCAL LP relaxation of MAP on a factor graph
// without evidence (a conditioned component), decreased by block
// coordinate descent: MPLP's factor update (Globerson and Jaakkola 2007;
// Sontag, Globerson and Jaakkola 2011).
//
// With θ_f = ln φ_f and messages λ_fv(x_v) on every edge, the
// reparametrised factors θ_f(x_f) − Σ_{v∈f} λ_fv(x_v) and the variable
// terms S_v(x_v) = Σ_{f∋v} λ_fv(x_v) sum, in every world, to the world's
// log score; so U(λ) = Σ_f max θ'_f + Σ_v max S_v is at least the log score
// of every world, whatever λ is: an upper bound at every iterate, which is
// what makes the method anytime. The update of factor f sets its messages
// so that U is least over them: with μ_v = S_v − λ_fv and M_v(x_v) the
// max-marginal of θ_f + Σ_{u∈f} μ_u, λ_fv = M_v/|f| − μ_v (U can only
// decrease). Zero entries are −∞ and never a maximum; a state that every
// world holding it scores −∞ in (M_v is −∞ there) is dead and left out of
// every maximum, which keeps the bound valid and the messages finite.
//
// The relaxation is that of the graph it is given: clustered (see
// cluster) it is tighter, each cluster's factor being exact over the
// cluster's joint states.
type dual struct {
	g      *fg.Graph
	logT   [][]float64 // per table: ln of its entries
	stateK [][]int32   // per table: the state of position q at entry k, [k*arity+q]
	lamOff []int32     // per edge: offset of its messages in lam
	lam    []float64
	sOff   []int32 // per variable: offset of S_v in s
	s      []float64
	dead   []bool // parallel to s
	mu, m  []float64
}

func newDual(g *fg.Graph) *dual {
	d := &dual{g: g}
	d.logT = make([][]float64, len(g.Tables))
	d.stateK = make([][]int32, len(g.Tables))
	for t := range g.Tables {
		tb := &g.Tables[t]
		d.logT[t] = make([]float64, len(tb.Values))
		for k, v := range tb.Values {
			d.logT[t][k] = math.Log(v)
		}
		ar := len(tb.Dims)
		st := tb.Strides()
		d.stateK[t] = make([]int32, len(tb.Values)*ar)
		for k := range tb.Values {
			for q := range ar {
				d.stateK[t][k*ar+q] = int32(k / st[q] % int(tb.Dims[q]))
			}
		}
	}
	d.lamOff = make([]int32, g.NumEdges())
	n := 0
	for e, v := range g.EdgeVar {
		d.lamOff[e] = int32(n)
		n += int(g.Card[v])
	}
	d.lam = make([]float64, n)
	d.sOff = make([]int32, g.NumVars())
	n = 0
	for v, c := range g.Card {
		d.sOff[v] = int32(n)
		n += int(c)
	}
	d.s = make([]float64, n)
	d.dead = make([]bool, n)
	return d
}

var errDead = errors.New("mapauto: every state of a variable is ruled out by the hard constraints")

// update is the MPLP update of factor f's messages.
func (d *dual) update(f int) error {
	g := d.g
	t := int(g.FactorTable[f])
	ar := len(g.Tables[t].Dims)
	if ar == 0 {
		return nil
	}
	sc := g.Scope(f)
	base := g.FactorStart[f]
	// μ_v = S_v − λ_fv, and the max-marginals M_v, laid out per position.
	off := make([]int, ar+1)
	for q, v := range sc {
		off[q+1] = off[q] + int(g.Card[v])
	}
	d.mu = d.mu[:0]
	d.m = d.m[:0]
	for q, v := range sc {
		so, lo := int(d.sOff[v]), int(d.lamOff[base+int64(q)])
		for a := range int(g.Card[v]) {
			if d.dead[so+a] {
				d.mu = append(d.mu, math.Inf(-1))
			} else {
				d.mu = append(d.mu, d.s[so+a]-d.lam[lo+a])
			}
			d.m = append(d.m, math.Inf(-1))
		}
	}
	lt, sk := d.logT[t], d.stateK[t]
	for k, x := range lt {
		if math.IsInf(x, -1) {
			continue
		}
		for q := range ar {
			x += d.mu[off[q]+int(sk[k*ar+q])]
		}
		if math.IsInf(x, -1) {
			continue
		}
		for q := range ar {
			i := off[q] + int(sk[k*ar+q])
			d.m[i] = max(d.m[i], x)
		}
	}
	inv := 1 / float64(ar)
	for q, v := range sc {
		so, lo := int(d.sOff[v]), int(d.lamOff[base+int64(q)])
		alive := false
		for a := range int(g.Card[v]) {
			i := off[q] + a
			if math.IsInf(d.m[i], -1) {
				d.dead[so+a] = true
			}
			if d.dead[so+a] {
				d.s[so+a] -= d.lam[lo+a]
				d.lam[lo+a] = 0
				continue
			}
			alive = true
			nl := d.m[i]*inv - d.mu[i]
			d.s[so+a] += nl - d.lam[lo+a]
			d.lam[lo+a] = nl
		}
		if !alive {
			return errDead
		}
	}
	return nil
}

// bound returns U(λ) and writes into x the world that gives each variable
// its best live state of S_v. S_v is recomputed from the messages first
// (so rounding does not accumulate).
func (d *dual) bound(x []int32) float64 {
	g := d.g
	clear(d.s)
	for e, v := range g.EdgeVar {
		so, lo := int(d.sOff[v]), int(d.lamOff[e])
		for a := range int(g.Card[v]) {
			d.s[so+a] += d.lam[lo+a]
		}
	}
	u := 0.0
	for f := range g.NumFactors() {
		t := int(g.FactorTable[f])
		ar := len(g.Tables[t].Dims)
		lt, sk := d.logT[t], d.stateK[t]
		base := g.FactorStart[f]
		m := math.Inf(-1)
	entries:
		for k, val := range lt {
			if math.IsInf(val, -1) {
				continue
			}
			for q := range ar {
				e := base + int64(q)
				a := int(sk[k*ar+q])
				if d.dead[int(d.sOff[g.EdgeVar[e]])+a] {
					continue entries
				}
				val -= d.lam[int(d.lamOff[e])+a]
			}
			m = max(m, val)
		}
		u += m
	}
	for v := range g.NumVars() {
		so := int(d.sOff[v])
		best, bs := math.Inf(-1), int32(0)
		for a := range g.Card[v] {
			if !d.dead[so+int(a)] && d.s[so+int(a)] > best {
				best, bs = d.s[so+int(a)], a
			}
		}
		u += best
		x[v] = bs
	}
	return u
}

// sweep updates every factor once, in order.
func (d *dual) sweep() error {
	for f := range d.g.NumFactors() {
		if err := d.update(f); err != nil {
			return err
		}
	}
	return nil
}

// cluster returns g with the factors inside clusters of variables merged:
// variables are joined greedily, strongest factors first (the range of
// their log entries; hard ones first), while a cluster's joint states stay
// at most maxStates; every cluster of several variables gets one factor,
// the product of the factors whose variables all lie in it, and the other
// factors are kept. The new graph has the same variables and gives every
// world the same score (up to shift), so the bound of its dual is valid for g, and it is
// tighter: each cluster is exact in the LP (mutual exclusion within a
// cluster, which the local polytope loosens to halves, is kept). A
// cluster's table is scaled to a largest entry of 1: the new graph's log
// score is g's less shift.
//
// maxStates 0 returns g itself (the plain LOCAL relaxation).
func cluster(g *fg.Graph, maxStates int) (cg *fg.Graph, shift float64) {
	if maxStates <= 0 {
		return g, 0
	}
	n := g.NumVars()
	parent := make([]int32, n)
	states := make([]int, n)
	for v := range parent {
		parent[v] = int32(v)
		states[v] = int(g.Card[v])
	}
	find := func(v int32) int32 {
		for parent[v] != v {
			parent[v] = parent[parent[v]]
			v = parent[v]
		}
		return v
	}
	type fs struct {
		f        int
		strength float64
	}
	// Per table: ln of its entries, and its strength.
	logT := make([][]float64, len(g.Tables))
	strength := make([]float64, len(g.Tables))
	for t, tb := range g.Tables {
		logT[t] = make([]float64, len(tb.Values))
		lo, hi := math.Inf(1), 0.0
		for k, v := range tb.Values {
			logT[t][k] = math.Log(v)
			hi = max(hi, v)
			if v > 0 {
				lo = min(lo, v)
			}
		}
		strength[t] = math.Inf(1)
		if !slices.Contains(tb.Values, 0) {
			strength[t] = math.Log(hi) - math.Log(lo)
		}
	}
	var order []fs
	for f := range g.NumFactors() {
		if s := strength[g.FactorTable[f]]; len(g.Scope(f)) >= 2 && s > 0 {
			order = append(order, fs{f, s})
		}
	}
	slices.SortStableFunc(order, func(a, b fs) int { return cmp.Compare(b.strength, a.strength) })
	for _, o := range order {
		roots := []int32{}
		prod := 1
		for _, v := range g.Scope(o.f) {
			r := find(v)
			if !slices.Contains(roots, r) {
				roots = append(roots, r)
				prod *= states[r]
				if prod > maxStates {
					break
				}
			}
		}
		if prod > maxStates || len(roots) < 2 {
			continue
		}
		for _, r := range roots[1:] {
			parent[r] = roots[0]
		}
		states[roots[0]] = prod
	}
	members := map[int32][]int32{}
	for v := range n {
		r := find(int32(v))
		members[r] = append(members[r], int32(v))
	}
	b := fg.NewBuilder()
	for _, c := range g.Card {
		b.AddVar(int(c))
	}
	// Group the factors: those inside a cluster of several variables by
	// the cluster, the others by their set of variables (parallel factors
	// merge, which also tightens the LP).
	groups := map[string][]int{}
	var keys []string
	var key []byte
	var vs []int32
	for f := range g.NumFactors() {
		sc := g.Scope(f)
		if len(sc) == 0 {
			shift += logT[g.FactorTable[f]][0]
			continue
		}
		r := find(sc[0])
		in := len(members[r]) > 1
		for _, v := range sc[1:] {
			in = in && find(v) == r
		}
		key = key[:0]
		if in {
			key = append(key, 'c')
			key = binary.LittleEndian.AppendUint32(key, uint32(r))
		} else {
			key = append(key, 'v')
			vs = append(vs[:0], sc...)
			slices.Sort(vs)
			for _, v := range vs {
				key = binary.LittleEndian.AppendUint32(key, uint32(v))
			}
		}
		k := string(key)
		if _, ok := groups[k]; !ok {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], f)
	}
	for _, k := range keys { // in order of first factor: deterministic
		fs := groups[k]
		if len(fs) == 1 && k[0] != 'c' {
			f := fs[0]
			tid, _ := b.Table(g.Table(f).Dims, g.Table(f).Values)
			b.AddFactorTable(g.Scope(f), tid)
			continue
		}
		var vars []int32
		if k[0] == 'c' {
			vars = members[find(g.Scope(fs[0])[0])] // increasing
		} else {
			vars = slices.Clone(g.Scope(fs[0]))
			slices.Sort(vars)
		}
		dims := make([]int32, len(vars))
		for i, v := range vars {
			dims[i] = g.Card[v]
		}
		// Per factor of the group, per position: the index in vars.
		at := make([][]int, len(fs))
		for j, f := range fs {
			for _, v := range g.Scope(f) {
				at[j] = append(at[j], slices.Index(vars, v))
			}
		}
		size := fg.Size(dims)
		logs := make([]float64, size)
		x := make([]int32, len(vars))
		top := math.Inf(-1)
		for e := range logs {
			rem := e
			for i := len(vars) - 1; i >= 0; i-- {
				x[i] = int32(rem % int(dims[i]))
				rem /= int(dims[i])
			}
			lp := 0.0
			for j, f := range fs {
				t := g.FactorTable[f]
				dm := g.Tables[t].Dims
				k := 0
				for q, i := range at[j] {
					k = k*int(dm[q]) + int(x[i])
				}
				lp += logT[t][k]
			}
			logs[e] = lp
			top = max(top, lp)
		}
		if math.IsInf(top, -1) {
			top = 0
		}
		// The largest entry is 1 (products of many entries could
		// underflow): the score shifts by top.
		shift += top
		for e, lp := range logs {
			logs[e] = math.Exp(lp - top)
		}
		tid, _ := b.Table(dims, logs)
		b.AddFactorTable(vars, tid)
	}
	return b.Build(), shift
}
