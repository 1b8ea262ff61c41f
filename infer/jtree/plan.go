package jtree

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/internal/memlimit"
)

// Plan is an elimination order of the unobserved variables of a graph and
// the junction tree (elimination tree) it induces: clique i is Order[i]
// with its neighbours at the time it is eliminated, its table has the
// neighbours first and Order[i] last, and its parent is the clique of the
// neighbour eliminated first (-1 for a root: one root per connected
// component).
type Plan struct {
	Order      []int32 // unobserved variables in elimination order
	Pos        []int32 // per variable: its index in Order, -1 when observed
	CliqueOff  []int32 // clique i is CliqueVars[CliqueOff[i]:CliqueOff[i+1]]
	CliqueVars []int32
	Parent     []int32

	// Treewidth is the largest clique's size less one (-1 with no
	// unobserved variable); Largest and Total are the entries of the
	// largest clique table and of all of them together. When Complete is
	// false the order stopped at the first clique over the limit it was
	// made with: then these are lower bounds (Largest is that clique's).
	Treewidth int
	Largest   float64
	Total     float64
	Complete  bool
	// OutOfWork is set when the order stopped because it used up the
	// work it was allowed (NewPlanWithin): the sizes are then unknown.
	OutOfWork bool

	work int64 // adjacency steps the planning took
}

// Clique returns the variables of clique i (eliminated variable last).
func (p *Plan) Clique(i int) []int32 { return p.CliqueVars[p.CliqueOff[i]:p.CliqueOff[i+1]] }

// Describe phrases the plan's size: treewidth, largest table and memory.
func (p *Plan) Describe() string {
	atLeast := ""
	if p.OutOfWork {
		return fmt.Sprintf("no elimination order found within the work allowed (%d of %d variables eliminated, treewidth at least %d so far)", len(p.Order), len(p.Pos), p.Treewidth)
	}
	if !p.Complete {
		atLeast = "at least "
	}
	return fmt.Sprintf("treewidth %s%d, largest table %s%s entries (%s), all tables %s%s",
		atLeast, p.Treewidth, atLeast, Count(p.Largest), Bytes(8*p.Largest), atLeast, Bytes(8*p.Total))
}

// Count prints a number of table entries: exact below 10^7, else as a
// power of two.
func Count(n float64) string {
	if n < 1e7 {
		return fmt.Sprintf("%.0f", n)
	}
	return fmt.Sprintf("2^%.1f", math.Log2(n))
}

// Bytes prints a size in bytes with a binary unit (memlimit.Bytes).
func Bytes(b float64) string { return memlimit.Bytes(b) }

// NewPlan finds a min-fill elimination order (ties by min-weight: the
// smallest clique table, then the lowest variable id) of the variables
// that ev leaves unobserved (ev may be nil), observed variables removed
// first. It stops, with Complete false, at the first clique of more than
// limit entries (limit <= 0: no limit), since a greedy order only picks
// such a clique when every remaining choice is at least as large. The
// cost is about Σ over eliminations of the squared clique sizes.
func NewPlan(ctx context.Context, g *fg.Graph, ev fg.Evidence, limit float64) (*Plan, error) {
	return NewPlanWithin(ctx, g, ev, limit, 0)
}

// NewPlanWithin is NewPlan that gives up, with Complete false and
// OutOfWork set, after about work steps of adjacency scanning (work <= 0:
// no bound); a caller that only decides whether to run jtree (auto) bounds
// its cost so on graphs of millions of variables.
//
// Greedy min-fill is sensitive to how ties are broken (on Pedigree_11 the
// smallest-table tie-break gives treewidth 24, the lowest-id one 21), so
// several orders are tried and the plan with the smaller largest table
// (then the smaller total) is kept: min-fill with ties by the smallest
// table and by the lowest id, weighted min-fill (a fill edge costs the
// product of its ends' cardinalities), then min-fill with ties broken by
// a fixed pseudo-random rank (seeds 1, 2, ...; the same plan on every
// run) while the planning work spent stays below the best plan's total
// entries and under planRestarts tries. A restart stops at its first
// clique larger than the best plan's largest, so a losing one is cheap.
// On the UAI 2014 models the restarts shrink the largest table by 2–8
// times (Promedus_14: 2^27 entries with either deterministic tie-break,
// 2^24 after the restarts).
func NewPlanWithin(ctx context.Context, g *fg.Graph, ev fg.Evidence, limit float64, work int64) (*Plan, error) {
	return planWithin(ctx, g, ev, limit, work, nil)
}

// planWithin is NewPlanWithin whose pseudo-random tie-breaks rank
// variable v as ids[v] (nil: as v): a block's graph numbers its variables
// apart from the graph they come from (NewBlock).
func planWithin(ctx context.Context, g *fg.Graph, ev fg.Evidence, limit float64, work int64, ids []int32) (*Plan, error) {
	var best *Plan
	var spent int64
	adj := adjacency(g, ev) // one sort for every try (UW-CSE's refusal: 0.9 CPU s, half of it sorting)
	try := func(h heuristic, seed uint64, lim float64) error {
		w := work
		if work > 0 {
			w = work - spent
			if w <= 0 {
				w = 1
			}
		}
		p, err := newPlan(ctx, g, ev, lim, w, h, seed, nil, ids, adj)
		if err != nil {
			return err
		}
		spent += p.work
		if best == nil || better(p, best) {
			best = p
		}
		return nil
	}
	for _, h := range []heuristic{minFillByWeight, minFillByID, weightedMinFill} {
		if err := try(h, 0, limit); err != nil {
			return nil, err
		}
	}
	for seed := uint64(1); seed <= planRestarts && !best.OutOfWork; seed++ {
		// The budget: the best plan's tables (or, while no plan fits,
		// the limit's), in adjacency steps.
		budget := best.Total
		if !best.Complete {
			budget = limitOrInf(limit)
		}
		if float64(spent) > budget || (work > 0 && spent >= work) {
			break
		}
		// A restart whose clique is larger than the best's largest
		// cannot win: it stops there.
		lim := limitOrInf(limit)
		if best.Complete {
			lim = min(lim, best.Largest)
		}
		if err := try(minFillByID, seed, lim); err != nil {
			return nil, err
		}
	}
	return best, nil
}

// better reports whether plan p is preferable to q.
func better(p, q *Plan) bool {
	if p.Complete != q.Complete {
		return p.Complete
	}
	if !p.Complete { // both stopped: the smaller clique it stopped at, then the one that got further
		if p.OutOfWork != q.OutOfWork {
			return !p.OutOfWork
		}
		if p.Largest != q.Largest && !p.OutOfWork {
			return p.Largest < q.Largest
		}
		return len(p.Order) > len(q.Order)
	}
	if p.Largest != q.Largest {
		return p.Largest < q.Largest
	}
	return p.Total < q.Total
}

// planRestarts bounds the pseudo-random tie-break restarts of
// NewPlanWithin.
const planRestarts = 48

func limitOrInf(limit float64) float64 {
	if limit <= 0 {
		return math.Inf(1)
	}
	return limit
}

// heuristic is a greedy elimination cost with its tie-break.
type heuristic int

const (
	minFillByWeight heuristic = iota // fill edges; ties by the smallest table
	minFillByID                      // fill edges; ties by the lowest id (or a seeded rank)
	weightedMinFill                  // Σ card(a)·card(b) over fill edges; ties by the smallest table
	givenOrder                       // the lowest rank first (a caller's order), fill ignored
)

// rank is a fixed pseudo-random tie-break of variable v under seed.
func rank(v int32, seed uint64) float64 {
	x := uint64(v)*0x9E3779B97F4A7C15 ^ seed*0xD1B54A32D192ED03
	x ^= x >> 31
	x *= 0xBF58476D1CE4E5B9
	x ^= x >> 29
	return float64(x >> 11)
}

// adjacency is the adjacency of g's unobserved variables: sorted, without
// repeats.
func adjacency(g *fg.Graph, ev fg.Evidence) [][]int32 {
	free := func(v int32) bool { return ev == nil || ev[v] < 0 }
	adj := make([][]int32, g.NumVars())
	var buf []int32
	for f := range g.NumFactors() {
		buf = buf[:0]
		for _, v := range g.Scope(f) {
			if free(v) {
				buf = append(buf, v)
			}
		}
		for i, a := range buf {
			for _, b := range buf[i+1:] {
				adj[a] = append(adj[a], b)
				adj[b] = append(adj[b], a)
			}
		}
	}
	for v := range adj {
		slices.Sort(adj[v])
		adj[v] = slices.Compact(adj[v])
	}
	return adj
}

// newPlan plans one greedy elimination; adj0, when not nil, is
// adjacency(g, ev), built once for several plans (it is not changed).
func newPlan(ctx context.Context, g *fg.Graph, ev fg.Evidence, limit float64, work int64, heur heuristic, seed uint64, rankOf []float64, ids []int32, adj0 [][]int32) (*Plan, error) {
	if work <= 0 {
		work = math.MaxInt64
	}
	var done int64
	if limit <= 0 {
		limit = math.Inf(1)
	}
	n := g.NumVars()
	free := func(v int32) bool { return ev == nil || ev[v] < 0 }
	var adj [][]int32
	if adj0 == nil {
		adj = adjacency(g, ev)
	} else { // the elimination below edits its own copy
		adj = make([][]int32, n)
		for v, a := range adj0 {
			adj[v] = slices.Clone(a)
		}
	}
	p := &Plan{Pos: make([]int32, n), CliqueOff: []int32{0}, Treewidth: -1, Complete: true}
	defer func() { p.work = done }()
	for v := range n {
		p.Pos[v] = -1
	}
	mark := make([]int32, n)
	stamp := int32(0)
	version := make([]int32, n)
	h := &scoreHeap{}
	score := func(v int32) entry {
		w := float64(g.Card[v])
		for _, u := range adj[v] {
			w *= float64(g.Card[u])
		}
		e := entry{v: v, weight: w, version: version[v]}
		switch {
		case heur == givenOrder:
			e.tie = rankOf[v]
		case heur == minFillByID && seed != 0 && ids != nil:
			e.tie = rank(ids[v], seed)
		case heur == minFillByID && seed != 0:
			e.tie = rank(v, seed)
		case heur == minFillByID:
			e.tie = 0
		default:
			e.tie = w
		}
		if w > limit {
			e.fill = math.MaxInt // never chosen before a clique that fits
			return e
		}
		if heur == givenOrder {
			return e
		}
		nb := adj[v]
		for i, a := range nb {
			stamp++
			done += int64(len(adj[a]) + len(nb))
			for _, x := range adj[a] {
				mark[x] = stamp
			}
			for _, b := range nb[i+1:] {
				if mark[b] != stamp {
					if heur == weightedMinFill {
						e.fill += int(g.Card[a]) * int(g.Card[b])
					} else {
						e.fill++
					}
				}
			}
		}
		return e
	}
	for v := range n {
		if free(int32(v)) {
			*h = append(*h, score(int32(v)))
		}
	}
	h.init()
	eliminated := make([]bool, n)
	var affected []int32
	for len(*h) > 0 {
		e := h.pop()
		v := e.v
		if eliminated[v] || e.version != version[v] {
			continue
		}
		if len(p.Order)&1023 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if done > work {
			p.Complete, p.OutOfWork = false, true
			return p, nil
		}
		nb := adj[v]
		size := len(nb) + 1
		p.Treewidth = max(p.Treewidth, size-1)
		p.Largest = max(p.Largest, e.weight)
		p.Total += e.weight
		if e.weight > limit {
			p.Complete = false
			return p, nil
		}
		eliminated[v] = true
		p.Pos[v] = int32(len(p.Order))
		p.Order = append(p.Order, v)
		p.CliqueVars = append(p.CliqueVars, nb...)
		p.CliqueVars = append(p.CliqueVars, v)
		p.CliqueOff = append(p.CliqueOff, int32(len(p.CliqueVars)))
		// Connect the neighbours pairwise and remove v.
		filled := false
		for _, a := range nb {
			a2 := adj[a]
			done += int64(len(nb) + len(a2))
			if i, ok := slices.BinarySearch(a2, v); ok {
				a2 = slices.Delete(a2, i, i+1)
			}
			for _, b := range nb {
				if b == a {
					continue
				}
				if i, ok := slices.BinarySearch(a2, b); !ok {
					a2 = slices.Insert(a2, i, b)
					filled = true
				}
			}
			adj[a] = a2
		}
		adj[v] = nil
		// Scores change for the neighbours (their neighbourhood changed)
		// and, when edges were added, for the neighbours' neighbours.
		affected = append(affected[:0], nb...)
		if filled {
			stamp++
			for _, a := range nb {
				mark[a] = stamp
			}
			for _, a := range nb {
				for _, x := range adj[a] {
					if mark[x] != stamp {
						mark[x] = stamp
						affected = append(affected, x)
					}
				}
			}
		}
		for _, u := range affected {
			version[u]++
			h.push(score(u))
		}
	}
	// Parents: the clique of the first-eliminated neighbour.
	p.Parent = make([]int32, len(p.Order))
	for i := range p.Order {
		par := int32(-1)
		for _, u := range p.Clique(i) {
			if q := p.Pos[u]; q > int32(i) && (par < 0 || q < par) {
				par = q
			}
		}
		p.Parent[i] = par
	}
	// The solver's tables are the maximal cliques (nodes): predict those.
	p.Total = p.maximalTotal(g.Card)
	return p, nil
}

type entry struct {
	fill    int
	tie     float64 // the tie-break: the weight, or 0 (lowest id)
	weight  float64
	v       int32
	version int32
}

// scoreHeap is a min-heap of entries (by less), with container/heap's
// algorithm typed: planning pops and pushes millions of entries, and the
// interface's boxing cost more than the comparisons.
type scoreHeap []entry

func (h scoreHeap) less(i, j int) bool {
	a, b := &h[i], &h[j]
	if a.fill != b.fill {
		return a.fill < b.fill
	}
	if a.tie != b.tie {
		return a.tie < b.tie
	}
	if a.fill == math.MaxInt && a.weight != b.weight {
		return a.weight < b.weight // over the limit: the smallest first
	}
	return a.v < b.v
}

func (h scoreHeap) init() {
	n := len(h)
	for i := n/2 - 1; i >= 0; i-- {
		h.down(i, n)
	}
}

func (h *scoreHeap) push(e entry) {
	*h = append(*h, e)
	h.up(len(*h) - 1)
}

func (h *scoreHeap) pop() entry {
	old := *h
	n := len(old) - 1
	old[0], old[n] = old[n], old[0]
	old.down(0, n)
	e := old[n]
	*h = old[:n]
	return e
}

func (h scoreHeap) up(j int) {
	for {
		i := (j - 1) / 2 // parent
		if i == j || !h.less(j, i) {
			break
		}
		h[i], h[j] = h[j], h[i]
		j = i
	}
}

func (h scoreHeap) down(i0, n int) {
	i := i0
	for {
		j1 := 2*i + 1
		if j1 >= n || j1 < 0 {
			break
		}
		j := j1 // left child
		if j2 := j1 + 1; j2 < n && h.less(j2, j1) {
			j = j2
		}
		if !h.less(j, i) {
			break
		}
		h[i], h[j] = h[j], h[i]
		i = j
	}
}
