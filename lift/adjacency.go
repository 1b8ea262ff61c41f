package lift

import (
	"slices"
	"sync"
)

// adjacency is a graph as colour passing reads it: per edge one word that
// holds both the neighbour and the slot key, so that a node's signature and
// the marking of its neighbours read one array of edges instead of two or
// three (on large graphs every array read on a round's frontier is a cache
// miss). Factor f's edges are fAdj[fStart[f]:fStart[f+1]], each
// key<<32 | variable; variable v's edges are vAdj[vStart[v]:vStart[v+1]]
// (in the graph's VarEdges order), each factor<<32 | key. fSorted is a
// bitset of the factors whose signature is compared sorted.
type adjacency struct {
	fStart, vStart []int64
	fAdj, vAdj     []uint64
	fSorted        []uint64
}

// newAdjacency packs g's edges with slot keys keys and sorted flags
// sorted, on up to workers goroutines.
func newAdjacency(fStart, vStart []int64, edgeVar []int32, varEdges []int64, keys []int32, sorted []bool, workers int) *adjacency {
	a := &adjacency{fStart: fStart, vStart: vStart, fAdj: make([]uint64, len(edgeVar)),
		vAdj: make([]uint64, len(varEdges)), fSorted: make([]uint64, (len(sorted)+63)/64)}
	ef := make([]int32, len(edgeVar))
	// Factors in runs of whole words of fSorted, so that no two
	// goroutines write one word.
	inChunks(len(fStart)-1, 64, workers, func(lo, hi int) {
		for f := lo; f < hi; f++ {
			for e := fStart[f]; e < fStart[f+1]; e++ {
				ef[e] = int32(f)
				a.fAdj[e] = uint64(uint32(keys[e]))<<32 | uint64(uint32(edgeVar[e]))
			}
			if sorted[f] {
				a.fSorted[f>>6] |= 1 << (f & 63)
			}
		}
	})
	inChunks(len(varEdges), 1, workers, func(lo, hi int) {
		for k, e := range varEdges[lo:hi] {
			a.vAdj[lo+k] = uint64(uint32(ef[e]))<<32 | uint64(uint32(keys[e]))
		}
	})
	return a
}

// inChunks calls f on the ranges of 0…n-1 cut into up to workers pieces
// whose bounds are multiples of align, at once on their own goroutines
// when there are several (and the pieces are worth one: 1<<16 items).
func inChunks(n, align, workers int, f func(lo, hi int)) {
	size := (n + workers - 1) / max(1, workers)
	size = (size + align - 1) / align * align
	if workers <= 1 || size < 1<<16 {
		f(0, n)
		return
	}
	var wg sync.WaitGroup
	for lo := size; lo < n; lo += size {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f(lo, min(n, lo+size))
		}()
	}
	f(0, min(n, size))
	wg.Wait()
}

// varFactor and varKey decode variable edge k.
func (a *adjacency) varFactor(k int64) int32 { return int32(a.vAdj[k] >> 32) }
func (a *adjacency) varKey(k int64) int32    { return int32(uint32(a.vAdj[k])) }

// signFactor appends factor f's signature: its own colour, then the (slot
// key, colour of the variable) pair of each edge, sorted when its positions
// are compared as a list — the words of appendFactorSig.
func (a *adjacency) signFactor(f int32, fc, vc []int32, buf []uint64) []uint64 {
	buf = append(buf, uint64(uint32(fc[f])))
	start := len(buf)
	for _, w := range a.fAdj[a.fStart[f]:a.fStart[f+1]] {
		buf = append(buf, w&^0xffffffff|uint64(uint32(vc[uint32(w)])))
	}
	if a.fSorted[f>>6]&(1<<(f&63)) != 0 {
		slices.Sort(buf[start:])
	}
	return buf
}

// signVar appends variable v's signature: its own colour, then the sorted
// multiset of (colour of the factor, slot key) over its edges — the words
// of appendVarSig.
func (a *adjacency) signVar(v int32, vc, fc []int32, buf []uint64) []uint64 {
	buf = append(buf, uint64(uint32(vc[v])))
	start := len(buf)
	for _, w := range a.vAdj[a.vStart[v]:a.vStart[v+1]] {
		buf = append(buf, uint64(uint32(fc[w>>32]))<<32|w&0xffffffff)
	}
	slices.Sort(buf[start:])
	return buf
}

// claim adds node i to this step's dirty nodes unless it is alone in its
// class or was added before in this step: mark with the step's nodes kept
// in a bitset (r.inStep, cleared by reduce), which stays in the cache where
// the per-node stamps of mark would not.
func (r *refiner) claim(i int32) {
	if r.inStep == nil {
		r.inStep = make([]uint64, (len(r.colour)+63)/64)
	}
	word, bit := &r.inStep[i>>6], uint64(1)<<(i&63)
	if *word&bit == 0 && r.classSize[r.colour[i]] > 1 {
		*word |= bit
		r.dirty = append(r.dirty, i)
	}
}

// stepFrom runs one step of colour passing for r's nodes: in the first
// round (first set) every one of its n nodes, otherwise the neighbours of
// the nodes src that changed, source s's neighbours being the high (high
// set) or low halves of the words adj[start[s]:start[s+1]]. It claims
// them, signs them with sign and groups them, on all workers (parStep)
// when the step is large enough, else on the calling goroutine.
func (r *refiner) stepFrom(first bool, n int, src []int32, start []int64, adj []uint64, high bool, sign signFunc) {
	nbr := func(w uint64) int32 {
		if high {
			return int32(w >> 32)
		}
		return int32(uint32(w))
	}
	if first {
		if r.parallel(n) {
			r.parStep(n, nil, nil, nil, false, sign)
			return
		}
		r.dirty = slices.Grow(r.dirty[:0], n)
		for i := range int32(n) {
			r.claim(i)
		}
		r.resign(sign)
		return
	}
	if r.parallel(len(src)) {
		r.parStep(len(src), src, start, adj, high, sign)
		return
	}
	for _, s := range src {
		for _, w := range adj[start[s]:start[s+1]] {
			r.claim(nbr(w))
		}
	}
	r.resign(sign)
}
