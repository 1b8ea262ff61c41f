package lift

import (
	"os"
	"sync/atomic"

	"github.com/lifted-dev/lifted/fg"
)

// Gathering ahead. On a large graph the nodes that one round of colour
// passing re-signs lie far apart in memory (on an n×n grid the frontier's
// nodes are a row apart), so nearly every array read of signing or marking
// a node misses the caches, and the reads of one node depend on each other
// (the node's edge range, then its neighbours, then their colours): one
// node at a time, the misses are paid one after the other. The loops here
// walk a block of gatherBlock nodes level by level before the block is
// processed — first every node's own entries, then every node's edges,
// then its neighbours' colours — so that the loads of one level are
// independent and the processor keeps many misses in flight; the block's
// processing then finds its data in the cache. They only load (the sum of
// what they read goes to sink, so that the compiler keeps the loads); the
// results do not depend on them.

// gatherBlock is the number of nodes gathered ahead at once.
const gatherBlock = 32

// gatherMin is the fewest nodes (variables plus factors) for which colour
// passing gathers ahead: below it the graph stays in the caches.
const gatherMin = 1 << 16

// gatherOn reports whether colour passing on g gathers ahead: on graphs of
// gatherMin nodes and more, unless LIFTED_GATHER=0 is in the environment.
func gatherOn(g *fg.Graph) bool {
	return g.NumVars()+g.NumFactors() >= gatherMin && os.Getenv("LIFTED_GATHER") != "0"
}

var sinkCount atomic.Int64

// sink keeps x alive (the comparison is true for about one x in 2^64).
func sink(x uint64) {
	if x == 0x9E3779B97F4A7C15 {
		sinkCount.Add(1)
	}
}

// warmVars loads what signVar reads for the variables vs.
func (p *passing) warmVars(vs []int32) uint64 {
	pt := p.part
	var s uint64
	for _, v := range vs {
		s += uint64(p.vc[v]) + uint64(pt.VarStart[v+1])
	}
	for _, v := range vs {
		lo, hi := pt.VarStart[v], pt.VarStart[v+1]
		if lo < hi {
			s += uint64(pt.VarFactor[lo]) + uint64(pt.VarKey[lo]) + uint64(pt.VarFactor[hi-1]) + uint64(pt.VarKey[hi-1])
		}
	}
	for _, v := range vs {
		for _, f := range pt.VarFactor[pt.VarStart[v]:pt.VarStart[v+1]] {
			s += uint64(p.fc[f])
		}
	}
	return s
}

// warmFactors loads what signFactor reads for the factors fs.
func (p *passing) warmFactors(fs []int32) uint64 {
	pt := p.part
	var s uint64
	for _, f := range fs {
		s += uint64(p.fc[f]) + uint64(pt.FactorStart[f+1])
		if pt.FactorSorted[f] {
			s++
		}
	}
	for _, f := range fs {
		lo, hi := pt.FactorStart[f], pt.FactorStart[f+1]
		if lo < hi {
			s += uint64(pt.FactorVar[lo]) + uint64(pt.FactorKey[lo]) + uint64(pt.FactorVar[hi-1]) + uint64(pt.FactorKey[hi-1])
		}
	}
	for _, f := range fs {
		for _, v := range pt.FactorVar[pt.FactorStart[f]:pt.FactorStart[f+1]] {
			s += uint64(p.vc[v])
		}
	}
	return s
}

// warmMark loads what marking the neighbours of the changed nodes xs
// reads (markFrom): their edge ranges, then every neighbour's stamp and
// colour, then the size of its class.
func (r *refiner) warmMark(xs []int32, start []int64, nbr []int32) uint64 {
	var s uint64
	for _, x := range xs {
		s += uint64(start[x+1])
	}
	for _, x := range xs {
		lo, hi := start[x], start[x+1]
		if lo < hi {
			s += uint64(nbr[lo]) + uint64(nbr[hi-1])
		}
	}
	for _, x := range xs {
		for _, i := range nbr[start[x]:start[x+1]] {
			s += uint64(atomic.LoadInt64(&r.stamp[i])) + uint64(r.colour[i])
		}
	}
	for _, x := range xs {
		for _, i := range nbr[start[x]:start[x+1]] {
			s += uint64(r.classSize[r.colour[i]])
		}
	}
	return s
}
