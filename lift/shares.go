package lift

import (
	"slices"
	"sort"
)

// shareSet is how a parallel step's work is cut among its w workers: by
// edges rather than by nodes, so that a few nodes of high degree (the
// Smokes variables of friends-and-smokers, each on 2n factors) do not give
// one worker the whole step.
//
// In the first round worker k signs the nodes bounds[k]…bounds[k+1]-1,
// cut so that each share holds about the same signature words (a node's
// degree plus one). In a later step the sources are first cut by count
// (share k: sources k·n/w…(k+1)·n/w-1), each worker summing its share's
// edges; when no share holds more than 1.1 times the mean, worker k visits
// the sources of its count share whole (the sources a worker listed in the
// last step, whose edges it read last); otherwise worker k visits the
// edges k·E/w…(k+1)·E/w-1 of the sources' edges in sequence, a source's
// edges possibly split between workers.
type shareSet struct {
	w, n    int
	bounds  []int   // first round: node bounds (w+1)
	byCount bool    // later steps: shares by count
	pre     []int64 // per source: edges of its count share before it
	base    []int64 // per count share: edges before it (w+1)
	total   int64   // edges of all sources
}

// shares cuts the step of parStep among the workers: the first round (src
// nil) of n nodes, or the visit of the n sources src with edges start.
func (ps *parState) shares(r *refiner, n int, src []int32, start []int64) *shareSet {
	sh := &ps.cut
	w := len(ps.seg)
	sh.w, sh.n = w, n
	if src == nil {
		sh.bounds = slices.Grow(sh.bounds[:0], w+1)[:w+1]
		own := r.own
		for k := range w {
			if own == nil {
				sh.bounds[k] = k * n / w
				continue
			}
			target := (own[n] - own[0] + int64(n)) * int64(k) / int64(w)
			sh.bounds[k] = sort.Search(n, func(i int) bool { return own[i]-own[0]+int64(i) >= target })
		}
		sh.bounds[w] = n
		return sh
	}
	sh.pre = slices.Grow(sh.pre[:0], n)[:n]
	sh.base = slices.Grow(sh.base[:0], w+1)[:w+1]
	r.pool.run(func(k int) {
		var sum int64
		for j := k * n / w; j < (k+1)*n/w; j++ {
			s := src[j]
			sh.pre[j] = sum
			sum += start[s+1] - start[s]
		}
		sh.base[k+1] = sum
	})
	sh.base[0] = 0
	largest := int64(0)
	for k := range w {
		largest = max(largest, sh.base[k+1])
		sh.base[k+1] += sh.base[k]
	}
	sh.total = sh.base[w]
	sh.byCount = largest*10*int64(w) <= sh.total*11
	return sh
}

// nodes is worker k's share of the first round.
func (sh *shareSet) nodes(k int) (lo, hi int) { return sh.bounds[k], sh.bounds[k+1] }

// at is the position of source j's first edge among all sources' edges
// (j = n: their number).
func (sh *shareSet) at(j int) int64 {
	if j >= sh.n {
		return sh.total
	}
	w, n := sh.w, sh.n
	k := j * w / n
	for k+1 < w && (k+1)*n/w <= j {
		k++
	}
	for k > 0 && k*n/w > j {
		k--
	}
	return sh.base[k] + sh.pre[j]
}

// visit claims worker k's share of the nodes next to the sources (by
// r.claimShared), appending them to d.
func (sh *shareSet) visit(k int, d []int32, r *refiner, src []int32, start []int64, adj []uint64, high bool) []int32 {
	w, n := sh.w, sh.n
	if sh.byCount {
		d = slices.Grow(d, int(min(sh.base[k+1]-sh.base[k], int64(len(r.colour)))))
		for j := k * n / w; j < (k+1)*n/w; j++ {
			s := src[j]
			d = r.claimEdges(adj[start[s]:start[s+1]], high, d)
		}
		return d
	}
	e0, e1 := sh.total*int64(k)/int64(w), sh.total*int64(k+1)/int64(w)
	d = slices.Grow(d, int(min(e1-e0, int64(len(r.colour)))))
	for j := sort.Search(n, func(j int) bool { return sh.at(j+1) > e0 }); j < n; j++ {
		g := sh.at(j)
		if g >= e1 {
			break
		}
		s := src[j]
		d = r.claimEdges(adj[start[s]+max(0, e0-g):start[s]+min(start[s+1]-start[s], e1-g)], high, d)
	}
	return d
}

// claimEdges claims the neighbours at the high (high set) or low halves of
// the words edges, appending the claimed ones to d.
func (r *refiner) claimEdges(edges []uint64, high bool, d []int32) []int32 {
	if high {
		for _, e := range edges {
			d = r.claimShared(int32(e>>32), d)
		}
		return d
	}
	for _, e := range edges {
		d = r.claimShared(int32(uint32(e)), d)
	}
	return d
}

// sigWords is the room the signatures of the nodes d take: a word per
// edge and one for the own colour.
func (r *refiner) sigWords(d []int32) int {
	if r.own == nil {
		return len(d) * r.words
	}
	words := len(d)
	for _, i := range d {
		words += int(r.own[i+1] - r.own[i])
	}
	return words
}
