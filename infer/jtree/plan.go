package jtree

import (
	"container/heap"
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/lifted-dev/lifted/fg"
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

// Bytes prints a size in bytes with a binary unit.
func Bytes(b float64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}
	i := 0
	for b >= 1024 && i < len(units)-1 {
		b /= 1024
		i++
	}
	if i == 0 {
		return fmt.Sprintf("%.0f B", b)
	}
	if b >= 1e4 {
		return fmt.Sprintf("%.3g %s", b, units[i])
	}
	return fmt.Sprintf("%.1f %s", b, units[i])
}

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
// both are tried and the plan with the smaller largest table (then the
// smaller total) is kept.
func NewPlanWithin(ctx context.Context, g *fg.Graph, ev fg.Evidence, limit float64, work int64) (*Plan, error) {
	a, err := newPlan(ctx, g, ev, limit, work, true)
	if err != nil {
		return nil, err
	}
	b, err := newPlan(ctx, g, ev, limit, work, false)
	if err != nil {
		return nil, err
	}
	if better(b, a) {
		return b, nil
	}
	return a, nil
}

// better reports whether plan p is preferable to q.
func better(p, q *Plan) bool {
	if p.Complete != q.Complete {
		return p.Complete
	}
	if !p.Complete { // both stopped: the one that got further
		if p.OutOfWork != q.OutOfWork {
			return !p.OutOfWork
		}
		return len(p.Order) > len(q.Order)
	}
	if p.Largest != q.Largest {
		return p.Largest < q.Largest
	}
	return p.Total < q.Total
}

func newPlan(ctx context.Context, g *fg.Graph, ev fg.Evidence, limit float64, work int64, byWeight bool) (*Plan, error) {
	if work <= 0 {
		work = math.MaxInt64
	}
	var done int64
	if limit <= 0 {
		limit = math.Inf(1)
	}
	n := g.NumVars()
	free := func(v int32) bool { return ev == nil || ev[v] < 0 }
	// Adjacency of the unobserved variables: sorted, without repeats.
	adj := make([][]int32, n)
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
	p := &Plan{Pos: make([]int32, n), CliqueOff: []int32{0}, Treewidth: -1, Complete: true}
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
		if !byWeight {
			e.tie = 0
		} else {
			e.tie = w
		}
		if w > limit {
			e.fill = math.MaxInt // never chosen before a clique that fits
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
					e.fill++
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
	heap.Init(h)
	eliminated := make([]bool, n)
	var affected []int32
	for h.Len() > 0 {
		e := heap.Pop(h).(entry)
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
			heap.Push(h, score(u))
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
	return p, nil
}

type entry struct {
	fill    int
	tie     float64 // the tie-break: the weight, or 0 (lowest id)
	weight  float64
	v       int32
	version int32
}

type scoreHeap []entry

func (h scoreHeap) Len() int { return len(h) }
func (h scoreHeap) Less(i, j int) bool {
	a, b := h[i], h[j]
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
func (h scoreHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *scoreHeap) Push(x any)   { *h = append(*h, x.(entry)) }
func (h *scoreHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
