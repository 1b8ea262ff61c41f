package mcmc

import (
	"container/heap"
	"context"

	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/infer/jtree"
)

// DefaultBlockTable bounds the largest junction-tree table of a block of
// blocked Gibbs sampling with junction-tree blocks (Config.BlockTable):
// 2^10 entries, treewidth 9 on binary variables (strips of 9 rows of a
// grid however wide).
const DefaultBlockTable = 1 << 10

// maxCovers bounds the covers of jtBlocks.
const maxCovers = 6

// The growth orders of a block (newJTBlocks): the lowest-numbered
// variable adjacent to the block first (growUp), the highest (growDown),
// the nearest to the seed, lowest-numbered on ties (nearUp), or highest
// (nearDown).
const (
	growUp = iota
	growDown
	nearUp
	nearDown
)

// partitions are the growth orders of the covers that partition the
// variables (each block seeded by the first variable in no block of the
// cover, in the order's direction); the covers after them grow from the
// factors still split.
var partitions = []int{growUp, growDown, nearUp, nearDown}

// jtBlocks are the blocks of blocked Gibbs sampling with junction-tree
// blocks (Jensen, Kong and Kjærulff 1995; the bounded-complexity blocks
// of Venugopal and Gogate's lifted blocked Gibbs sampling): sets of
// unobserved variables whose junction tree's largest table stays within a
// budget, each drawn exactly from its joint conditional given the rest by
// forward filtering and backward sampling (jtree.Block). The blocks come
// in covers: the first four partition the unobserved variables, each
// with its own growth order (partitions), so that their blocks' borders
// cross; each next one is grown from the factors that no block so far
// holds whole (their variables split between blocks), so that, where the
// budget allows, every factor lies inside some block and the sweep over
// all covers moves every coupling jointly.
type jtBlocks struct {
	blocks []*jtree.Block
	covers int
	// split counts the factors over two or more unobserved variables that
	// no block holds whole (their scope alone over the budget, or still
	// split after maxCovers covers).
	split int
}

// newJTBlocks builds the covers of g given ev (deterministic). A block
// grows from its seed (a variable for the partitions, a split factor's
// variables for the covers after them) by the variable adjacent to it and
// in no block of the cover yet that comes first in the cover's growth
// order — the lowest-numbered first on a grid numbered row by row makes a
// strip of whole rows, nearest-first from a corner a diagonal band — and
// keeps the longest prefix of that order whose
// junction tree (jtree.NewBlock, min-fill) has no table over maxTable
// entries, found by doubling then bisection. A seed over the budget is a
// block on its own when it is one variable (drawn as single-site Gibbs
// would) and is skipped when it is a factor.
func newJTBlocks(ctx context.Context, g *fg.Graph, ev fg.Evidence, maxTable float64) (*jtBlocks, error) {
	n := g.NumVars()
	nf := g.NumFactors()
	free := func(v int32) bool { return ev[v] < 0 && g.Card[v] > 1 }
	fOf := g.EdgeFactors()
	whole := make([]bool, nf) // inside some block
	hopeless := make([]bool, nf)
	multi := make([]bool, nf) // two or more unobserved variables
	for f := range nf {
		k := 0
		for _, v := range g.Scope(f) {
			if free(v) {
				k++
			}
		}
		multi[f] = k >= 2
	}
	taken := make([]int32, n)   // the last cover (from 1) that has the variable in a block
	blockOf := make([]int32, n) // the index of its block there
	inOrder := make([]int32, n)
	stamp := int32(0)
	jb := &jtBlocks{}
	split := func() int {
		k := 0
		for f := range nf {
			if multi[f] && !whole[f] {
				k++
			}
		}
		return k
	}
	// grow returns the block grown from seed: the longest prefix of the
	// growth order that fits.
	grow := func(cover int32, mode int, seed []int32) (*jtree.Block, error) {
		stamp++
		order := append([]int32(nil), seed...)
		for _, v := range seed {
			inOrder[v] = stamp
		}
		h := &keyHeap{}
		push := func(v int32, d int64) {
			for e := g.VarStart[v]; e < g.VarStart[v+1]; e++ {
				for _, u := range g.Scope(int(fOf[g.VarEdges[e]])) {
					if free(u) && inOrder[u] != stamp && taken[u] != cover {
						inOrder[u] = stamp
						var key int64
						switch mode {
						case growUp:
							key = int64(u)
						case growDown:
							key = -int64(u)
						case nearUp:
							key = (d+1)*int64(n) + int64(u)
						default: // nearDown
							key = (d+1)*int64(n) + int64(n-1) - int64(u)
						}
						heap.Push(h, keyed{key, d + 1, u})
					}
				}
			}
		}
		for _, v := range seed {
			push(v, 0)
		}
		extend := func(k int) bool { // the order at least k long, if it can be
			for len(order) < k && h.Len() > 0 {
				x := heap.Pop(h).(keyed)
				order = append(order, x.v)
				push(x.v, x.d)
			}
			return len(order) >= k
		}
		// fits: whether the prefix of k variables makes a block within
		// the budget (jtree.BlockFits: the cheap test; the block kept is
		// planned once, at the end).
		fits := func(k int) (bool, error) { return jtree.BlockFits(ctx, g, order[:k], maxTable) }
		ok, err := fits(len(seed))
		if err != nil {
			return nil, err
		}
		if !ok {
			if len(seed) == 1 {
				return jtree.NewBlock(ctx, g, seed, 0)
			}
			return nil, nil
		}
		lo, hi := len(seed), -1 // lo fits; hi (when ≥ 0) does not
		for k := 2 * len(seed); ; k *= 2 {
			if !extend(k) {
				k = len(order)
				if k == lo {
					break
				}
			}
			ok, err := fits(k)
			if err != nil {
				return nil, err
			}
			if !ok {
				hi = k
				break
			}
			lo = k
			if k == len(order) && h.Len() == 0 {
				break
			}
		}
		for hi >= 0 && hi-lo > 1 {
			mid := (lo + hi) / 2
			ok, err := fits(mid)
			if err != nil {
				return nil, err
			}
			if ok {
				lo = mid
			} else {
				hi = mid
			}
		}
		return jtree.NewBlock(ctx, g, order[:lo], maxTable)
	}
	accept := func(cover int32, b *jtree.Block) {
		id := int32(len(jb.blocks))
		jb.blocks = append(jb.blocks, b)
		for _, v := range b.Vars() {
			taken[v], blockOf[v] = cover, id
		}
		for _, v := range b.Vars() {
			for e := g.VarStart[v]; e < g.VarStart[v+1]; e++ {
				f := fOf[g.VarEdges[e]]
				if whole[f] || !multi[f] {
					continue
				}
				in := true
				for _, u := range g.Scope(int(f)) {
					in = in && (!free(u) || taken[u] == cover && blockOf[u] == id)
				}
				whole[f] = in
			}
		}
	}
	for c := range maxCovers {
		cover := int32(c + 1)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if c < len(partitions) {
			if c == 1 && split() == 0 {
				break
			}
			mode := partitions[c]
			for i := range int32(n) {
				v := i
				if mode == growDown || mode == nearDown {
					v = int32(n) - 1 - i
				}
				if !free(v) || taken[v] == cover {
					continue
				}
				b, err := grow(cover, mode, []int32{v})
				if err != nil {
					return nil, err
				}
				accept(cover, b)
			}
			jb.covers = c + 1
			continue
		}
		added := false
		var seed []int32
		for f := range nf {
			if whole[f] || hopeless[f] || !multi[f] {
				continue
			}
			seed = seed[:0]
			clash := false
			for _, v := range g.Scope(f) {
				if !free(v) {
					continue
				}
				clash = clash || taken[v] == cover
				if !containsVar(seed, v) {
					seed = append(seed, v)
				}
			}
			if clash {
				continue // split in this cover too: the next one
			}
			b, err := grow(cover, nearUp, seed)
			if err != nil {
				return nil, err
			}
			if b == nil {
				hopeless[f] = true // its scope alone is over the budget
				continue
			}
			accept(cover, b)
			added = true
		}
		if !added {
			break
		}
		jb.covers = c + 1
	}
	jb.split = split()
	return jb, nil
}

func containsVar(s []int32, v int32) bool {
	for _, u := range s {
		if u == v {
			return true
		}
	}
	return false
}

// keyed is a variable of a block's growth order: its key (lowest first)
// and its distance from the seed.
type keyed struct {
	key, d int64
	v      int32
}

// keyHeap is a min-heap of keyed variables.
type keyHeap []keyed

func (h keyHeap) Len() int           { return len(h) }
func (h keyHeap) Less(i, j int) bool { return h[i].key < h[j].key }
func (h keyHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *keyHeap) Push(x any)        { *h = append(*h, x.(keyed)) }
func (h *keyHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
