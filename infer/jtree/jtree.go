package jtree

import (
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/infer"
	"github.com/lifted-dev/lifted/lift"
)

// DefaultMaxTable is the largest clique table (entries) a run allocates by
// default: 2^24 entries, 128 MiB.
const DefaultMaxTable = 1 << 24

// DefaultMaxTotal is the default limit on the entries of all clique tables
// together: 2^27 entries, 1 GiB.
const DefaultMaxTotal = 1 << 27

// JTree is the method "jtree": exact inference by a junction tree over a
// min-fill elimination order of the unobserved variables. It answers
// marginals of every variable and the exact log Z (sum-product), or a
// most probable assignment with the max-marginals (max-product), with
// scaled linear tables (log space where a table's range demands it). It
// needs the ground graph (the trivial compression) and refuses,
// naming the predicted sizes, a plan whose largest clique table has more
// than MaxTable entries or whose tables together have more than MaxTotal.
type JTree struct {
	MaxTable float64 // <= 0: DefaultMaxTable
	MaxTotal float64 // <= 0: DefaultMaxTotal
}

// ErrNoWorld says that every joint state has weight zero.
var ErrNoWorld = errors.New("jtree: no world of positive weight (the hard constraints or zero entries contradict each other or the evidence)")

// TooLargeError is a refused plan: its predicted size and the limit.
type TooLargeError struct {
	Plan  *Plan
	What  string  // "largest table" or "all tables"
	Limit float64 // entries
	Prop  string  // the property that raises the limit
}

// Error returns the message of the TooLargeError.
func (e *TooLargeError) Error() string {
	return fmt.Sprintf("jtree: the min-fill elimination order has %s: the %s exceeds the limit of %s entries (%s); raise it with --prop %s=N, or use an approximate method (bp, gibbs, mcsat)",
		e.Plan.Describe(), e.What, Count(e.Limit), Bytes(8*e.Limit), e.Prop)
}

func (j JTree) limits() (float64, float64) {
	mt, tt := j.MaxTable, j.MaxTotal
	if mt <= 0 {
		mt = DefaultMaxTable
	}
	if tt <= 0 {
		tt = DefaultMaxTotal
	}
	return mt, tt
}

// Check plans g under ev and returns the plan, or a *TooLargeError when it
// exceeds j's limits.
func (j JTree) Check(ctx context.Context, g *fg.Graph, ev fg.Evidence) (*Plan, error) {
	return j.CheckWithin(ctx, g, ev, 0)
}

// CheckWithin is Check with a bound on the planning work (NewPlanWithin).
func (j JTree) CheckWithin(ctx context.Context, g *fg.Graph, ev fg.Evidence, work int64) (*Plan, error) {
	mt, tt := j.limits()
	p, err := NewPlanWithin(ctx, g, ev, mt, work)
	if err != nil {
		return nil, err
	}
	switch {
	case p.OutOfWork:
		return p, &TooLargeError{Plan: p, What: "planning work", Limit: mt, Prop: "max-table"}
	case !p.Complete || p.Largest > mt:
		return p, &TooLargeError{Plan: p, What: "largest table", Limit: mt, Prop: "max-table"}
	case p.Total > tt:
		return p, &TooLargeError{Plan: p, What: "all tables", Limit: tt, Prop: "max-total"}
	}
	return p, nil
}

// Run answers q on c.Ground with c's evidence.
func (j JTree) Run(ctx context.Context, c *lift.Compressed, q infer.Query) (*infer.Answer, error) {
	start := time.Now()
	g := c.Ground
	if c.NumNodes() != g.NumVars() {
		return nil, errors.New("jtree: needs the ground graph (the trivial compression), not a lifted one")
	}
	ev := make(fg.Evidence, g.NumVars())
	for v := range ev {
		ev[v] = c.NodeEvidence[c.NodeOf[v]]
	}
	p, err := j.Check(ctx, g, ev)
	if err != nil {
		return nil, err
	}
	r, err := j.solveAny(ctx, g, ev, p, q.Task == infer.MAP)
	if err != nil {
		return nil, err
	}
	ans := &infer.Answer{
		Graph: c, Task: q.Task, NodeOff: make([]int, c.NumNodes()+1),
		Converged: true,
		Stats: infer.Stats{Converged: true, Treewidth: p.Treewidth, LargestTable: int64(p.Largest),
			Seconds: time.Since(start).Seconds()},
	}
	for v, X := range c.NodeOf {
		ans.NodeOff[X+1] = int(g.Card[v])
	}
	for X := range c.NumNodes() {
		ans.NodeOff[X+1] += ans.NodeOff[X]
	}
	ans.Belief = make([]float64, ans.NodeOff[c.NumNodes()])
	for v, X := range c.NodeOf {
		copy(ans.NodeBelief(int(X)), r.marg[r.off[v]:r.off[v+1]])
	}
	if q.Task == infer.MAP {
		ans.Assignment = r.assign
		obj := r.logZ
		ans.Stats.Objective = &obj
	} else {
		ans.LogZ, ans.LogZKind = r.logZ, infer.Exact
	}
	return ans, nil
}

// MAP returns a most probable world of g given ev (nil: no evidence) by
// max-product on the junction tree, exact: every variable's value, the
// observed ones their evidence. The plan's adjacency scanning is bounded
// by work (<= 0: no bound). It fails with a *TooLargeError beyond j's
// limits and with ErrNoWorld when every world has weight zero.
func (j JTree) MAP(ctx context.Context, g *fg.Graph, ev fg.Evidence, work int64) ([]int32, error) {
	if ev == nil {
		ev = fg.NoEvidence(g.NumVars())
	}
	p, err := j.CheckWithin(ctx, g, ev, work)
	if err != nil {
		return nil, err
	}
	r, err := j.solveAny(ctx, g, ev, p, true)
	if err != nil {
		return nil, err
	}
	return r.assign, nil
}

// solveAny answers with solveLinear, or with solve (log space) where a
// table's dynamic range is too wide for the linear domain. solve's
// tables are the elimination cliques, more than the plan's Total (the
// maximal cliques): beyond MaxTotal it is refused with that size.
func (j JTree) solveAny(ctx context.Context, g *fg.Graph, ev fg.Evidence, p *Plan, maxProduct bool) (*result, error) {
	r, err := solveLinear(ctx, g, ev, p, maxProduct)
	if !errors.Is(err, errLinearRange) {
		return r, err
	}
	_, tt := j.limits()
	need := 0.0
	for i := range p.Order {
		w := 1.0
		for _, v := range p.Clique(i) {
			w *= float64(g.Card[v])
		}
		need += w
	}
	if need > tt {
		q := *p
		q.Total = need
		return nil, &TooLargeError{Plan: &q, What: "all tables in log space (the model's weights span more than e^690 in one table)", Limit: tt, Prop: "max-total"}
	}
	return solve(ctx, g, ev, p, maxProduct)
}

// result is what solve computes: per-variable normalised (max-)marginals
// at marg[off[v]:off[v+1]], log Z (or the log score of the MAP world) and,
// for max-product, the decoded assignment.
type result struct {
	marg   []float64
	off    []int
	logZ   float64
	assign []int32
}

// solve runs the junction tree of p on g: clique potentials in log space,
// an upward pass of messages (log-sum-exp, or max, per separator entry,
// so no entry underflows relative to its own group), the root's total,
// then (for MAP) decoding from the upward tables, and a downward pass
// (Hugin: a child's table gains the parent's new separator marginal less
// its own upward message) that leaves every clique table the log of its
// unnormalised marginal.
func solve(ctx context.Context, g *fg.Graph, ev fg.Evidence, p *Plan, maxProduct bool) (*result, error) {
	n := g.NumVars()
	nc := len(p.Order)
	lt := newLogTree(g, p)
	// Log tables, once per table id.
	logT := make([][]float64, len(g.Tables))
	for f := range g.NumFactors() {
		logTable(g, logT, f)
	}
	logZ, err := lt.upward(ctx, g, ev, logT, nil, maxProduct)
	if err != nil {
		return nil, err
	}
	tab, sep, tabOff, sepOff, dims, varPos := lt.tab, lt.sep, lt.tabOff, lt.sepOff, lt.dims, lt.varPos
	sstr := lt.sstr
	r := &result{logZ: logZ, off: make([]int, n+1)}
	if maxProduct {
		// Decode in reverse elimination order from the upward tables: a
		// clique's separator variables are eliminated later, so assigned.
		r.assign = make([]int32, n)
		for v := range n {
			if ev[v] >= 0 {
				r.assign[v] = ev[v]
			}
		}
		lt.decode(g, r.assign, func(t []float64) int {
			best := 0
			for s := 1; s < len(t); s++ {
				if t[s] > t[best] {
					best = s
				}
			}
			return best
		})
	}
	// Downward pass (Hugin).
	var newSep []float64
	for i := nc - 1; i >= 0; i-- {
		if i&63 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		par := p.Parent[i]
		if par < 0 {
			continue
		}
		cv, pv := p.Clique(i), p.Clique(int(par))
		old := sep[sepOff[i]:sepOff[i+1]]
		newSep = append(newSep[:0], make([]float64, len(old))...)
		sstr = sepStrides(sstr, cv[:len(cv)-1], pv, dims[p.CliqueOff[i]:], varPos)
		reduce(tab[tabOff[par]:tabOff[par+1]], dims[p.CliqueOff[par]:p.CliqueOff[par+1]], sstr, newSep, maxProduct)
		for k, o := range old {
			if math.IsInf(o, -1) {
				newSep[k] = math.Inf(-1) // 0/0 = 0: the child's entries are zero already
			} else {
				newSep[k] -= o
			}
		}
		// The separator is the child's leading variables: the update is
		// constant over the child's last variable.
		t := tab[tabOff[i]:tabOff[i+1]]
		dv := int(g.Card[p.Order[i]])
		for k, d := range newSep {
			for s := k * dv; s < (k+1)*dv; s++ {
				t[s] += d
			}
		}
	}
	// Marginals: each variable from its own clique (it is the last, the
	// fastest, variable of that table); observed ones are certain.
	for v := range n {
		r.off[v+1] = r.off[v] + int(g.Card[v])
	}
	r.marg = make([]float64, r.off[n])
	for v := range n {
		m := r.marg[r.off[v]:r.off[v+1]]
		if ev[v] >= 0 {
			m[ev[v]] = 1
			continue
		}
		i := p.Pos[v]
		t := tab[tabOff[i]:tabOff[i+1]]
		dv := len(m)
		mx := math.Inf(-1)
		for _, x := range t {
			mx = max(mx, x)
		}
		if math.IsInf(mx, -1) {
			return nil, ErrNoWorld
		}
		for k := 0; k < len(t); k += dv {
			for s, x := range t[k : k+dv] {
				if maxProduct {
					m[s] = max(m[s], math.Exp(x-mx))
				} else {
					m[s] += math.Exp(x - mx)
				}
			}
		}
		sum := 0.0
		for _, x := range m {
			sum += x
		}
		for s := range m {
			m[s] /= sum
		}
	}
	return r, nil
}

// sepStrides returns, per position of the parent clique pv, the stride of
// that variable in the separator table over sv (dims sd, last fastest),
// 0 for parent variables not in the separator.
func sepStrides(out []int, sv, pv []int32, sd []int32, varPos []int32) []int {
	out = out[:len(pv)]
	clear(out)
	for k, v := range pv {
		varPos[v] = int32(k)
	}
	s := 1
	for k := len(sv) - 1; k >= 0; k-- {
		out[varPos[sv[k]]] = s
		s *= int(sd[k])
	}
	for _, v := range pv {
		varPos[v] = -1
	}
	return out
}

// broadcast adds src (indexed from base by strides, one per dimension of
// dst, 0 for a dimension src does not have) to every entry of dst, a table
// with dimensions dims (last fastest).
func broadcast(dst []float64, dims []int32, strides []int, src []float64, base int) {
	nd := len(dims)
	if nd == 0 {
		dst[0] += src[base]
		return
	}
	// Merge neighbouring dimensions that src steps through contiguously
	// (strides[q] = strides[q+1]·dims[q+1], also both 0), so that the
	// inner loop runs over long rows instead of rows of 2.
	var dimBuf [32]int
	var strBuf [32]int
	md, ms := dimBuf[:0], strBuf[:0]
	if nd > len(dimBuf) {
		md, ms = make([]int, 0, nd), make([]int, 0, nd)
	}
	for q := range nd {
		d, st := int(dims[q]), strides[q]
		if n := len(md); n > 0 && ms[n-1] == st*d {
			md[n-1] *= d
			ms[n-1] = st
			continue
		}
		md, ms = append(md, d), append(ms, st)
	}
	var cntBuf [32]int
	cnt := cntBuf[:0]
	if len(md) > len(cntBuf) {
		cnt = make([]int, len(md))
	} else {
		cnt = cntBuf[:len(md)]
	}
	last := len(md) - 1
	dl, sl := md[last], ms[last]
	j := base
	for i := 0; i < len(dst); {
		row := dst[i : i+dl]
		if sl == 0 {
			x := src[j]
			for k := range row {
				row[k] += x
			}
		} else if sl == 1 {
			for k, x := range src[j : j+dl] {
				row[k] += x
			}
		} else {
			jj := j
			for k := range row {
				row[k] += src[jj]
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

// reduceLast sums (log-sum-exp) or maximises t over its last dimension of
// size dv into s (len(t)/dv entries), each entry relative to its own
// group's maximum.
func reduceLast(t, s []float64, dv int, maxProduct bool) {
	if dv == 2 && !maxProduct {
		// Binary variables: log(e^a + e^b) = max + log1p(e^-|a-b|), one
		// Exp and one Log1p per entry instead of two Exps and a Log.
		for k := range s {
			a, b := t[2*k], t[2*k+1]
			m, d := a, b-a
			if b > a {
				m, d = b, a-b
			}
			if math.IsInf(m, -1) {
				s[k] = m
				continue
			}
			s[k] = m + math.Log1p(math.Exp(d))
		}
		return
	}
	for k := range s {
		g := t[k*dv : (k+1)*dv]
		m := g[0]
		for _, x := range g[1:] {
			m = max(m, x)
		}
		if maxProduct || math.IsInf(m, -1) || dv == 1 {
			s[k] = m
			continue
		}
		acc := 0.0
		for _, x := range g {
			acc += math.Exp(x - m)
		}
		s[k] = m + math.Log(acc)
	}
}

// reduce sums (log-sum-exp) or maximises src, a table with dimensions
// dims, onto dst, whose index is Σ strides[q]·state[q]; two passes, the
// sum relative to each output entry's maximum.
func reduce(src []float64, dims []int32, strides []int, dst []float64, maxProduct bool) {
	for k := range dst {
		dst[k] = math.Inf(-1)
	}
	nd := len(dims)
	if nd == 0 {
		dst[0] = src[0]
		return
	}
	cnt := make([]int32, nd)
	last := nd - 1
	dl, sl := int(dims[last]), strides[last]
	// pass 1: maxima
	j := 0
	for i := 0; i < len(src); i += dl {
		row := src[i : i+dl]
		jj := j
		for _, x := range row {
			if x > dst[jj] {
				dst[jj] = x
			}
			jj += sl
		}
		j = carry(cnt, dims, strides, j)
	}
	if maxProduct {
		return
	}
	// pass 2: Σ exp(x − max)
	acc := make([]float64, len(dst))
	clear(cnt)
	j = 0
	for i := 0; i < len(src); i += dl {
		row := src[i : i+dl]
		jj := j
		for _, x := range row {
			if m := dst[jj]; m != math.Inf(-1) {
				acc[jj] += math.Exp(x - m)
			}
			jj += sl
		}
		j = carry(cnt, dims, strides, j)
	}
	for k, a := range acc {
		if a > 0 {
			dst[k] += math.Log(a)
		}
	}
}

// carry advances the odometer cnt over all dimensions but the last,
// returning the index j moved by the strides.
func carry(cnt []int32, dims []int32, strides []int, j int) int {
	for q := len(dims) - 2; q >= 0; q-- {
		cnt[q]++
		j += strides[q]
		if cnt[q] < dims[q] {
			return j
		}
		j -= strides[q] * int(dims[q])
		cnt[q] = 0
	}
	return j
}

// logTree is the log-space junction tree of a plan: per elimination
// clique (Order[i] and its neighbours then, Order[i] last) its table, and
// its upward message over its separator (the clique's first variables).
// Its scratch is reused by each upward pass (BlockDrawer draws many).
type logTree struct {
	p              *Plan
	tabOff, sepOff []int
	dims           []int32
	tab, sep       []float64
	varPos         []int32 // position of a variable in the current clique, -1 if absent

	pots    []pot
	potOf   map[string]int
	key     []byte
	fv      []free
	cnt     []int32
	strides []int
	sstr    []int
}

// pot is the sum of the log tables of the factors over the same
// unobserved variables vars (distinct, ascending) of clique ci.
type pot struct {
	ci   int
	vars []int32
	tab  []float64
}

func newLogTree(g *fg.Graph, p *Plan) *logTree {
	nc := len(p.Order)
	lt := &logTree{p: p, tabOff: make([]int, nc+1), sepOff: make([]int, nc+1), potOf: map[string]int{},
		strides: make([]int, 0, 64), sstr: make([]int, 0, 64)}
	for i := range nc {
		s := 1
		for _, v := range p.Clique(i) {
			s *= int(g.Card[v])
		}
		lt.tabOff[i+1] = lt.tabOff[i] + s
		lt.sepOff[i+1] = lt.sepOff[i] + s/int(g.Card[p.Order[i]])
	}
	lt.tab = make([]float64, lt.tabOff[nc])
	lt.sep = make([]float64, lt.sepOff[nc])
	lt.dims = make([]int32, len(p.CliqueVars))
	for i, v := range p.CliqueVars {
		lt.dims[i] = g.Card[v]
	}
	lt.varPos = make([]int32, g.NumVars())
	for v := range lt.varPos {
		lt.varPos[v] = -1
	}
	return lt
}

// logTable fills logT[t] (the log of table t's values) for factor f's
// table t, once.
func logTable(g *fg.Graph, logT [][]float64, f int) {
	t := g.FactorTable[f]
	if logT[t] == nil {
		vals := g.Tables[t].Values
		l := make([]float64, len(vals))
		for i, x := range vals {
			l[i] = math.Log(x)
		}
		logT[t] = l
	}
}

// upward loads the potentials of the factors (all of g's when factors is
// nil) clamped to ev into the clique tables and runs the upward pass of
// messages (log-sum-exp, or max, per separator entry, so no entry
// underflows relative to its own group); it returns the log of the total
// weight (or of the best world's score), ErrNoWorld when it is zero.
func (lt *logTree) upward(ctx context.Context, g *fg.Graph, ev fg.Evidence, logT [][]float64, factors []int32, maxProduct bool) (float64, error) {
	p := lt.p
	nc := len(p.Order)
	tab, sep, tabOff, sepOff, dims, varPos := lt.tab, lt.sep, lt.tabOff, lt.sepOff, lt.dims, lt.varPos
	clear(tab)
	// Potentials: each factor, clamped to the evidence, into the clique of
	// its first-eliminated unobserved variable; a factor with none is a
	// constant. A factor whose clique table is more than 8 times its own is
	// first summed with the factors over the same unobserved variables into
	// one small table (pots), so that each distinct scope is broadcast over
	// its clique's table once: on MLN groundings many formulas share a
	// scope, and a broadcast walks the whole clique table.
	constant := 0.0
	lt.pots = lt.pots[:0]
	clear(lt.potOf)
	strides := lt.strides
	nf := g.NumFactors()
	if factors != nil {
		nf = len(factors)
	}
	for k := range nf {
		f := k
		if factors != nil {
			f = int(factors[k])
		}
		var base int
		var first int32
		base, first, lt.fv = clampScope(g, f, ev, p.Pos, lt.fv)
		fv := lt.fv
		lf := logT[g.FactorTable[f]]
		if first < 0 {
			constant += lf[base]
			continue
		}
		ci := int(p.Pos[first])
		size := 1
		for _, x := range fv {
			size *= int(g.Card[x.v])
		}
		if tabOff[ci+1]-tabOff[ci] <= 8*size {
			// A clique table not much larger than the factor's: broadcast
			// the factor directly (merging would cost about as much).
			cv := p.Clique(ci)
			for k, v := range cv {
				varPos[v] = int32(k)
			}
			strides = strides[:len(cv)]
			clear(strides)
			for _, x := range fv {
				strides[varPos[x.v]] = x.stride
			}
			for _, v := range cv {
				varPos[v] = -1
			}
			broadcast(tab[tabOff[ci]:tabOff[ci+1]], dims[p.CliqueOff[ci]:p.CliqueOff[ci+1]], strides, lf, base)
			continue
		}
		slices.SortFunc(fv, func(a, b free) int { return cmp.Compare(a.v, b.v) })
		lt.key = binary.LittleEndian.AppendUint32(lt.key[:0], uint32(ci))
		for _, x := range fv {
			lt.key = binary.LittleEndian.AppendUint32(lt.key, uint32(x.v))
		}
		pi, ok := lt.potOf[string(lt.key)]
		if !ok {
			pi = len(lt.pots)
			lt.potOf[string(lt.key)] = pi
			vars := make([]int32, len(fv))
			for i, x := range fv {
				vars[i] = x.v
			}
			lt.pots = append(lt.pots, pot{ci: ci, vars: vars, tab: make([]float64, size)})
		}
		// Add the factor's entries: an odometer over the free variables,
		// the last fastest.
		dst := lt.pots[pi].tab
		lt.cnt = addEntries(dst, g.Card, fv, base, lt.cnt, func(j int) float64 { return lf[j] })
	}
	for _, pt := range lt.pots {
		cv := p.Clique(pt.ci)
		for k, v := range cv {
			varPos[v] = int32(k)
		}
		strides = strides[:len(cv)]
		clear(strides)
		st := 1
		for k := len(pt.vars) - 1; k >= 0; k-- {
			v := pt.vars[k]
			strides[varPos[v]] = st
			st *= int(g.Card[v])
		}
		for _, v := range cv {
			varPos[v] = -1
		}
		broadcast(tab[tabOff[pt.ci]:tabOff[pt.ci+1]], dims[p.CliqueOff[pt.ci]:p.CliqueOff[pt.ci+1]], strides, pt.tab, 0)
	}
	lt.strides = strides
	if math.IsInf(constant, -1) {
		return 0, ErrNoWorld
	}
	// Upward pass.
	logZ := constant
	for i := range nc {
		if i&63 == 0 && ctx.Err() != nil {
			return 0, ctx.Err()
		}
		t := tab[tabOff[i]:tabOff[i+1]]
		s := sep[sepOff[i]:sepOff[i+1]]
		reduceLast(t, s, int(g.Card[p.Order[i]]), maxProduct)
		par := p.Parent[i]
		if par < 0 {
			logZ += s[0] // the separator of a root is empty: one entry
			continue
		}
		// Add the message into the parent's table.
		cv, pv := p.Clique(i), p.Clique(int(par))
		lt.sstr = sepStrides(lt.sstr, cv[:len(cv)-1], pv, dims[p.CliqueOff[i]:], varPos)
		broadcast(tab[tabOff[par]:tabOff[par+1]], dims[p.CliqueOff[par]:p.CliqueOff[par+1]], lt.sstr, s, 0)
	}
	if math.IsInf(logZ, -1) {
		return 0, ErrNoWorld
	}
	if math.IsNaN(logZ) || math.IsInf(logZ, 1) {
		return 0, fmt.Errorf("jtree: log Z is %v (a numerical failure; please report it)", logZ)
	}
	return logZ, nil
}

// decode assigns the unobserved variables in reverse elimination order
// from the upward tables: a clique's separator variables are eliminated
// later, so assigned in x already; its own variable gets pick of its row
// of log weights given them (the best for MAP, a draw for sampling).
func (lt *logTree) decode(g *fg.Graph, x []int32, pick func(row []float64) int) {
	p := lt.p
	for i := len(p.Order) - 1; i >= 0; i-- {
		cv := p.Clique(i)
		d := lt.dims[p.CliqueOff[i]:p.CliqueOff[i+1]]
		idx := 0
		for k, v := range cv[:len(cv)-1] {
			idx = idx*int(d[k]) + int(x[v])
		}
		dv := int(d[len(d)-1])
		x[p.Order[i]] = int32(pick(lt.tab[lt.tabOff[i]+idx*dv : lt.tabOff[i]+(idx+1)*dv]))
	}
}
