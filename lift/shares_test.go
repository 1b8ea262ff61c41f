package lift

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// A parallel step's shares cover every edge of its sources once, and cut
// them evenly: on random sources with random degrees (zero, and one hub
// with most of the edges, included), every neighbour is claimed by exactly
// one worker, and where the shares by count are uneven each worker claims
// its w-th of the edges exactly (the neighbours here are one per edge). In
// the first round the nodes' shares hold about equal signature words.
func TestSharesCoverAndBalance(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	for i := range 300 {
		w := 2 + r.IntN(4)
		nsrc := 1 + r.IntN(200)
		deg := make([]int64, nsrc)
		for s := range deg {
			if r.IntN(4) > 0 {
				deg[s] = int64(r.IntN(5))
			}
		}
		if i%2 == 0 {
			deg[r.IntN(nsrc)] = int64(50 + r.IntN(2000)) // a hub
		}
		start := make([]int64, nsrc+1)
		for s, d := range deg {
			start[s+1] = start[s] + d
		}
		edges := int(start[nsrc])
		adj := make([]uint64, edges)
		for e := range adj {
			adj[e] = uint64(e) << 32 // neighbour e in the high half
		}
		src := r.Perm(nsrc)[:1+r.IntN(nsrc)]
		src32 := make([]int32, len(src))
		want := 0
		for j, s := range src {
			src32[j] = int32(s)
			want += int(deg[s])
		}
		colour := make([]int32, max(edges, 1))
		ref := &refiner{colour: colour, classSize: []int32{int32(len(colour)) + 1},
			inStep: make([]uint64, (len(colour)+63)/64), workers: w, pool: &pool{w: w}}
		ps := &parState{seg: make([]parSeg, w)}
		sh := ps.shares(ref, len(src32), src32, start)
		// The shares by count, counted here.
		largest := int64(0)
		for k := range w {
			sum := int64(0)
			for _, s := range src32[k*len(src32)/w : (k+1)*len(src32)/w] {
				sum += deg[s]
			}
			largest = max(largest, sum)
		}
		if even := largest*10*int64(w) <= int64(want)*11; sh.byCount != even {
			t.Fatalf("case %d: shares by count %v, but the largest holds %d of %d edges on %d workers", i, sh.byCount, largest, want, w)
		}
		// The workers in a random order: a share that reaches into
		// another's edges claims them first.
		got := 0
		for _, k := range r.Perm(w) {
			d := sh.visit(k, nil, ref, src32, start, adj, true)
			got += len(d)
			if !sh.byCount {
				if lo, hi := sh.total*int64(k)/int64(w), sh.total*int64(k+1)/int64(w); int64(len(d)) != hi-lo {
					t.Fatalf("case %d, worker %d of %d: claimed %d, want its share %d of %d edges", i, k, w, len(d), hi-lo, sh.total)
				}
			}
		}
		ref.pool.close()
		if got != want || sh.total != int64(want) {
			t.Fatalf("case %d: %d workers claimed %d nodes of %d edges (total %d)", i, w, got, want, sh.total)
		}
		for s := range src32 {
			for e := start[src32[s]]; e < start[src32[s]+1]; e++ {
				if ref.inStep[e>>6]&(1<<(e&63)) == 0 {
					t.Fatalf("case %d: edge %d of source %d not visited", i, e, src32[s])
				}
			}
		}
		// First round: every node in one share, shares of about equal
		// words (within a node's words).
		ref.own = start
		sh = ps.shares(ref, nsrc, nil, nil)
		if sh.bounds[0] != 0 || sh.bounds[w] != nsrc || !slices.IsSorted(sh.bounds) {
			t.Fatalf("case %d: first-round bounds %v of %d nodes", i, sh.bounds, nsrc)
		}
		total := start[nsrc] + int64(nsrc)
		for k := range w {
			lo, hi := sh.nodes(k)
			words := start[hi] - start[lo] + int64(hi-lo)
			if words > total/int64(w)+1+slices.Max(deg)+1 {
				t.Fatalf("case %d: share %d of %d holds %d of %d words", i, k, w, words, total)
			}
		}
	}
}
