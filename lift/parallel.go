package lift

import (
	"context"
	"runtime"
	"slices"
	"sync/atomic"
	"time"

	"github.com/lifted-dev/lifted/fg"
)

// Parallel is colour passing on all cores of one machine: the incremental
// refinement of ColourPassing (a round re-signs only the nodes next to a
// node that changed class), every step of which runs on Workers goroutines
// when it is large enough (at least 2·MinChunk nodes), in up to 4·Workers
// contiguous chunks claimed one by one: marking the nodes next to a change
// (markFrom: an atomic minimum keeps every node's first mark, so the dirty
// list is the serial one), signing them (the map step signFactor and
// signVar of the map/reduce steps, on the graph as one part in shared
// memory), grouping equal signatures (shards of the signature hash, each
// taking its nodes in dirty order) and naming the classes (groups numbered
// by first member and fresh ids in that order, by prefix sums over the
// chunks: resignParallel). The helper goroutines live for the whole run
// (workPool: they spin briefly between phases, then park). Every step
// computes what the single goroutine computes, so the partition after every round, the number of rounds, the
// class ids (before and after the final renumbering) and Progress are
// those of ColourPassing, bit for bit.
//
// The distributed runner (module beam/) runs the paper's synchronous
// rounds over a Partition with copy nodes instead, re-signing every node
// every round with the same map step (Signer).
type Parallel struct {
	// Workers is the number of goroutines (≤ 0: GOMAXPROCS).
	Workers int
	// MinChunk is the fewest nodes a goroutine takes in one step (≤ 0:
	// DefaultMinChunk); a step with fewer than twice as many runs on the
	// calling goroutine. The result does not depend on it.
	MinChunk int
}

// Refine implements Refiner.
func (r Parallel) Refine(ctx context.Context, g *fg.Graph, ev fg.Evidence, opt Options) (*Colouring, error) {
	w := r.Workers
	if w <= 0 {
		w = runtime.GOMAXPROCS(0)
	}
	c := r.MinChunk
	if c <= 0 {
		c = DefaultMinChunk
	}
	return refine(ctx, g, ev, opt, w, c)
}

// The parallel steps of the incremental refinement. Every step of the
// refinement (marking the nodes next to a change, signing them, grouping
// equal signatures, naming the new classes) runs on up to r.workers
// goroutines when it is large enough, and computes exactly what the
// single-goroutine code computes: the dirty nodes in the order of their
// first mark, the signature groups numbered by their first member in that
// order, the same kept and fresh class ids, the changed nodes in dirty
// order.

// parScratch holds the buffers of the parallel steps, allocated once per
// refiner and reused.
type parScratch struct {
	lists   [][]int32 // per chunk: marked nodes, or changed nodes
	buckets [][]int32 // per (sign chunk, shard): dirty indices, in order
	shards  []shard
	firstOf []int32 // per dirty index: the dirty index of its group's first member
	sizeAt  []int32 // per first member: its group's size
	gnum    []int32 // per first member: its group's number
	count   []int   // per chunk: first members, or groups that take a fresh id
	// per (shard, chunk): first members
	shardCount []int
	keepKey    []uint64 // per class: the largest group's (size, ^number)
}

// shard is one shard of the grouping: the signatures whose hash falls in
// it, grouped in an open-addressing table of local groups.
type shard struct {
	table []int32 // local group+1 per slot, 0 empty
	first []int32 // per local group: dirty index of its first member
	size  []int32 // per local group: members
}

// runTasks runs fn(0), …, fn(tasks-1) on the calling goroutine and up to
// workers-1 helpers, which claim tasks one by one: the helpers of pool p
// when there is one (pool.go), else goroutines started for this call. The
// caller waits only for tasks a helper claimed and has not finished, never
// for a helper to start: on a loaded machine a helper that is not run soon
// costs nothing but its start, and it finds every task claimed when it
// runs.
func runTasks(p *workPool, workers, tasks int, fn func(t int)) {
	if tasks <= 1 || workers <= 1 {
		for t := range tasks {
			fn(t)
		}
		return
	}
	// The state of the claims, fresh per call, so that a helper that
	// starts late sees only this call's exhausted counter.
	st := &taskState{tasks: int32(tasks), finished: make(chan struct{})}
	st.work = func() {
		for t := st.next.Add(1) - 1; t < st.tasks; t = st.next.Add(1) - 1 {
			fn(int(t))
			if st.done.Add(1) == st.tasks {
				close(st.finished)
			}
		}
	}
	if p != nil {
		p.submit(st)
		st.work()
		st.wait(true)
		return
	}
	for range min(workers, tasks) - 1 {
		go st.work()
	}
	st.work()
	st.wait(false)
}

// wait returns when every task is finished; with spin it first spins for
// up to poolSpin (the helpers' last tasks are usually about to end).
func (st *taskState) wait(spin bool) {
	var deadline time.Time
	for i := 0; spin && st.done.Load() < st.tasks; i++ {
		if i&255 == 255 {
			if deadline.IsZero() {
				deadline = time.Now().Add(poolSpin)
			} else if time.Now().After(deadline) {
				break
			}
		}
	}
	<-st.finished
}

// taskState counts the claimed and the finished tasks of one runTasks.
type taskState struct {
	next, done atomic.Int32
	tasks      int32
	work       func()
	finished   chan struct{}
}

// parStep·minChunk is the fewest nodes of a step whose marking, grouping
// and naming run in parallel (resignParallel, markAll, markFrom; signing
// is parallel from 2·minChunk). These take five to seven barriers a step
// where signing alone takes one. On a 1000×1000 grid the profiles put the
// serial fraction at 0.09 with parStep 2 and 0.39 with parStep 64 (steps
// of 8000–16 000 nodes then group on one goroutine); wall-clock times on
// the loaded development machine could not tell the two apart
// (experiments/colourpassing/RESULTS.md).
const parStep = 2

// parRange runs fn(lo, hi) over 0…n-1 in up to 4·workers ranges of at
// least 1<<16 items (one range below that), on up to workers goroutines:
// the fills of colour passing's set-up.
func parRange(workers, n int, fn func(lo, hi int)) {
	chunks := max(1, min(4*workers, n>>16))
	size := (n + chunks - 1) / chunks
	runTasks(nil, workers, chunks, func(c int) { fn(c*size, min(n, (c+1)*size)) })
}

// chunking splits n items into chunks of at least r.minChunk consecutive
// items, up to 4 per worker (one chunk with one worker): it returns the
// chunk size and the number of chunks.
func (r *refiner) chunking(n int) (size, chunks int) {
	chunks = 1
	if r.workers > 1 {
		chunks = max(1, min(4*r.workers, n/max(1, r.minChunk)))
	}
	size = max(1, (n+chunks-1)/chunks)
	return size, max(1, (n+size-1)/size)
}

// forChunks runs fn(c, lo, hi) on every chunk c = [lo, hi) of 0…n-1 (see
// chunking), on up to r.workers goroutines.
func (r *refiner) forChunks(n int, fn func(c, lo, hi int)) {
	size, chunks := r.chunking(n)
	runTasks(r.pool, r.workers, chunks, func(c int) { fn(c, c*size, min(n, (c+1)*size)) })
}

// growLists makes r.par.lists hold at least k lists.
func (r *refiner) growLists(k int) [][]int32 {
	if len(r.par.lists) < k {
		r.par.lists = append(r.par.lists, make([][]int32, k-len(r.par.lists))...)
	}
	return r.par.lists[:k]
}

// concat appends the lists to dst in order.
func concat(dst []int32, lists [][]int32) []int32 {
	n := len(dst)
	for _, l := range lists {
		n += len(l)
	}
	dst = slices.Grow(dst, n-len(dst))
	for _, l := range lists {
		dst = append(dst, l...)
	}
	return dst
}

// markAll marks every node (as mark does, node by node in id order).
func (r *refiner) markAll(step int32) {
	n := len(r.colour)
	_, chunks := r.chunking(n)
	if chunks == 1 || n < parStep*r.minChunk {
		for i := range int32(n) {
			r.mark(i, step)
		}
		return
	}
	lists := r.growLists(chunks)
	key := stampKey(step, 0)
	r.forChunks(n, func(c, lo, hi int) {
		l := lists[c][:0]
		for i := lo; i < hi; i++ {
			if r.stamp[i]>>32 != stampStep(step) && r.classSize[r.colour[i]] > 1 {
				r.stamp[i] = key
				l = append(l, int32(i))
			}
		}
		lists[c] = l
	})
	r.dirty = concat(r.dirty, lists)
}

// markFrom marks the neighbours of the changed nodes: for k = 0, 1, … the
// nodes nbr[start[x]:start[x+1]] of x = changed[k], in order (as mark
// does). On several goroutines, every chunk of changed nodes lowers the
// stamp of each neighbour to stampKey(step, k) by an atomic minimum, so
// that a node's stamp ends as its first mark in the serial order; then
// every chunk keeps the nodes whose first mark it made, and the chunks'
// lists are joined in order.
func (r *refiner) markFrom(changed []int32, start []int64, nbr []int32, step int32) {
	n := len(changed)
	_, chunks := r.chunking(n)
	if chunks == 1 || n < parStep*r.minChunk/4 { // a changed node marks a few
		warm := r.warm != nil
		for k, x := range changed {
			if warm && k%gatherBlock == 0 {
				sink(r.warmMark(changed[k:min(n, k+gatherBlock)], start, nbr))
			}
			for _, i := range nbr[start[x]:start[x+1]] {
				r.mark(i, step)
			}
		}
		return
	}
	lists := r.growLists(chunks)
	r.forChunks(n, func(c, lo, hi int) {
		// Candidates as (node, k) pairs: marks that lowered the stamp.
		l := lists[c][:0]
		for k := lo; k < hi; k++ {
			if r.warm != nil && (k-lo)%gatherBlock == 0 {
				sink(r.warmMark(changed[k:min(hi, k+gatherBlock)], start, nbr))
			}
			key := stampKey(step, k)
			x := changed[k]
			for _, i := range nbr[start[x]:start[x+1]] {
				if r.classSize[r.colour[i]] <= 1 {
					continue
				}
				for {
					old := atomic.LoadInt64(&r.stamp[i])
					if old <= key {
						break
					}
					if atomic.CompareAndSwapInt64(&r.stamp[i], old, key) {
						l = append(l, i, int32(k))
						break
					}
				}
			}
		}
		lists[c] = l
	})
	r.forChunks(n, func(c, lo, hi int) {
		l := lists[c]
		m := 0
		for j := 0; j < len(l); j += 2 {
			if i := l[j]; r.stamp[i] == stampKey(step, int(l[j+1])) {
				l[m] = i
				m++
			}
		}
		lists[c] = l[:m]
	})
	r.dirty = concat(r.dirty, lists)
}

// growClassArrays sizes the per-class arrays of the reduce to the classes.
func (r *refiner) growClassArrays() {
	nc := r.numClasses()
	if cap(r.dirtyIn) < nc {
		// Between steps they are zero (keeper is only read where set).
		r.dirtyIn = make([]int32, nc, 2*nc)
		r.keeper = make([]int32, nc, 2*nc)
		r.par.keepKey = make([]uint64, nc, 2*nc)
	}
	r.dirtyIn, r.keeper = r.dirtyIn[:nc], r.keeper[:nc]
	if cap(r.par.keepKey) < nc {
		r.par.keepKey = make([]uint64, nc, 2*nc)
	}
	r.par.keepKey = r.par.keepKey[:nc]
}

// grow32 returns s with length n (contents unspecified).
func grow32(s []int32, n int) []int32 { return slices.Grow(s[:0], n)[:n] }

// resignParallel is resign on several goroutines, in five parallel
// phases (each a barrier):
//
//  1. the map: every chunk of dirty nodes is signed, and its dirty indices
//     are put in buckets by shard (a few bits of the signature's hash);
//  2. every shard groups its signatures, chunk by chunk, in dirty order,
//     so that the first member it records for a group is the group's
//     first member in dirty order; it counts the first members per chunk;
//  3. groups are numbered by first member (a prefix sum over the chunks),
//     which is the serial order of first appearance; every class counts
//     its dirty members and takes the atomic maximum of (group size,
//     complement of group number) over its groups: its largest group,
//     the first on ties;
//  4. every group learns whether it takes a fresh id (its class was not
//     re-signed in full, or it is not the class's largest group) and its
//     rank among the chunk's fresh groups;
//  5. every dirty node takes its group's id (fresh ids follow group order:
//     a prefix sum over the chunks' fresh counts), the class sizes follow,
//     the per-class counts are reset, and the changed nodes are listed per
//     chunk and joined in order.
func (r *refiner) resignParallel(sign signFunc) {
	n := len(r.dirty)
	ps := &r.par
	_, chunks := r.chunking(n)
	S := 1 // shards: a power of two ≥ 4·workers (a node's shard is a mask of its hash)
	for S < 4*r.workers {
		S *= 2
	}
	r.sigEnd = slices.Grow(r.sigEnd[:0], n)[:n]
	r.hash = slices.Grow(r.hash[:0], n)[:n]
	if len(r.arenas) < chunks {
		r.arenas = append(r.arenas, make([][]uint64, chunks-len(r.arenas))...)
	}
	if len(ps.buckets) < chunks*S {
		ps.buckets = append(ps.buckets, make([][]int32, chunks*S-len(ps.buckets))...)
	}
	if len(ps.shards) < S {
		ps.shards = append(ps.shards, make([]shard, S-len(ps.shards))...)
	}
	ps.firstOf, ps.sizeAt, ps.gnum = grow32(ps.firstOf, n), grow32(ps.sizeAt, n), grow32(ps.gnum, n)
	ps.shardCount = slices.Grow(ps.shardCount[:0], S*chunks)[:S*chunks]
	r.growClassArrays()

	// 1. Sign, and bucket by shard.
	r.forChunks(n, func(c, lo, hi int) {
		r.signChunk(sign, c, lo, hi)
		b := ps.buckets[c*S : (c+1)*S]
		for s := range b {
			b[s] = b[s][:0]
		}
		for k := lo; k < hi; k++ {
			s := (r.hash[k] >> 40) & uint64(S-1)
			b[s] = append(b[s], int32(k))
		}
	})
	// 2. Group within every shard.
	runTasks(r.pool, r.workers, S, func(s int) { r.groupShard(s, S, chunks) })
	// 3. Number the groups by first member; count dirty members and find
	// the largest group per class.
	ps.count = slices.Grow(ps.count[:0], chunks)[:chunks]
	for c := range chunks {
		m := 0
		for s := range S {
			m += ps.shardCount[s*chunks+c]
		}
		ps.count[c] = m
	}
	G := prefixSum(ps.count)
	r.grpSize, r.grpClass, r.grpID = grow32(r.grpSize, G), grow32(r.grpClass, G), grow32(r.grpID, G)
	r.forChunks(n, func(c, lo, hi int) {
		g := int32(ps.count[c])
		for k := lo; k < hi; k++ {
			if ps.firstOf[k] != int32(k) {
				continue
			}
			ps.gnum[k] = g
			sz, cl := ps.sizeAt[k], int32(uint32(r.sig(int32(k))[0])) // its class: the signature's first word
			r.grpSize[g], r.grpClass[g] = sz, cl
			atomic.AddInt32(&r.dirtyIn[cl], sz)
			key := uint64(sz)<<32 | uint64(^uint32(g))
			for {
				old := atomic.LoadUint64(&ps.keepKey[cl])
				if old >= key || atomic.CompareAndSwapUint64(&ps.keepKey[cl], old, key) {
					break
				}
			}
			g++
		}
	})
	// 4. Which groups take fresh ids: grpID is the rank among the chunk's
	// fresh groups, or -1 for a group that keeps its class id.
	// Chunks of 2^gshift groups, so that phase 5 finds a group's chunk by
	// a shift (it looks it up for every dirty node).
	_, gchunks := r.chunking(G)
	gshift := uint(0)
	for 1<<gshift < (G+gchunks-1)/gchunks {
		gshift++
	}
	gchunks = (G + 1<<gshift - 1) >> gshift
	ps.count = slices.Grow(ps.count[:0], gchunks)[:gchunks]
	runTasks(r.pool, r.workers, gchunks, func(c int) {
		lo, hi := c<<gshift, min(G, (c+1)<<gshift)
		m := int32(0)
		for g := lo; g < hi; g++ {
			cl := r.grpClass[g]
			if r.dirtyIn[cl] == r.classSize[cl] && uint32(ps.keepKey[cl]) == ^uint32(g) {
				r.grpID[g] = -1
				continue
			}
			r.grpID[g] = m
			m++
		}
		ps.count[c] = int(m)
	})
	base := int32(len(r.classSize))
	fresh := prefixSum(ps.count)
	r.classSize = slices.Grow(r.classSize, fresh)[:int(base)+fresh] // every fresh id's size is set below
	// 5. New colours and class sizes; the changed nodes in dirty order.
	id := func(g int32) int32 {
		if x := r.grpID[g]; x >= 0 {
			return base + int32(ps.count[g>>gshift]) + x
		}
		return r.grpClass[g]
	}
	lists := r.growLists(chunks)
	r.forChunks(n, func(c, lo, hi int) {
		l := lists[c][:0]
		for k := lo; k < hi; k++ {
			i := r.dirty[k]
			f := ps.firstOf[k]
			g := ps.gnum[f]
			nid := id(g)
			cl := r.grpClass[g] // every member's class (its signature's first word)
			if f == int32(k) {
				if nid != cl {
					r.classSize[nid] = r.grpSize[g]
					atomic.AddInt32(&r.classSize[cl], -r.grpSize[g])
				}
				// The per-class counts are zero again for the next step.
				atomic.StoreInt32(&r.dirtyIn[cl], 0)
				atomic.StoreUint64(&ps.keepKey[cl], 0)
			}
			if nid != cl {
				r.colour[i] = nid
				l = append(l, i)
			}
		}
		lists[c] = l
	})
	r.changed = concat(r.changed[:0], lists)
	r.signed += n
	r.dirty = r.dirty[:0]
}

// groupShard groups the signatures of shard s (of S), taking its buckets
// chunk by chunk: every dirty index gets its group's first member
// (firstOf), every first member its group's size (sizeAt); it counts the
// first members per chunk (shardCount[s*chunks+c]).
func (r *refiner) groupShard(s, S, chunks int) {
	ps := &r.par
	sh := &ps.shards[s]
	cnt := 0
	for c := range chunks {
		cnt += len(ps.buckets[c*S+s])
	}
	sh.table = resetTable(sh.table, cnt)
	sh.first, sh.size = sh.first[:0], sh.size[:0]
	mask := uint64(len(sh.table) - 1)
	for c := range chunks {
		groups := len(sh.first)
		for _, k := range ps.buckets[c*S+s] {
			h := r.hash[k]
			for i := h & mask; ; i = (i + 1) & mask {
				g := sh.table[i] - 1
				if g < 0 {
					g = int32(len(sh.first))
					sh.table[i] = g + 1
					sh.first = append(sh.first, k)
					sh.size = append(sh.size, 1)
					ps.firstOf[k] = k
					if 2*len(sh.first) > len(sh.table) {
						sh.table = rehash(sh.table, sh.first, r.hash)
						mask = uint64(len(sh.table) - 1)
					}
					break
				}
				if f := sh.first[g]; r.hash[f] == h && slices.Equal(r.sig(f), r.sig(k)) {
					sh.size[g]++
					ps.firstOf[k] = f
					break
				}
			}
		}
		ps.shardCount[s*chunks+c] = len(sh.first) - groups
	}
	for g, k := range sh.first {
		ps.sizeAt[k] = sh.size[g]
	}
}

// prefixSum replaces the counts by their exclusive prefix sums and returns
// the total.
func prefixSum(count []int) int {
	t := 0
	for c, m := range count {
		count[c] = t
		t += m
	}
	return t
}

// groupTableMax is the largest size a grouping table starts with: it
// doubles when half full (rehash), so that a step with few distinct
// signatures among many nodes (the first round re-signs every node of the
// graph) groups in a table that stays in the cache.
const groupTableMax = 1 << 12

// resetTable returns an empty grouping table (group+1 per slot, 0 empty)
// for up to n signatures: a power of two, at least 16, at most
// groupTableMax, reusing t's array.
func resetTable(t []int32, n int) []int32 {
	size := 16
	for size < 2*n && size < groupTableMax {
		size *= 2
	}
	if cap(t) < size {
		return make([]int32, size)
	}
	t = t[:size]
	clear(t)
	return t
}

// rehash returns a table of twice t's size holding the groups
// 0…len(first)-1, group g under the hash of its first member first[g]
// (hash is per member), reusing t's array when it is large enough.
func rehash(t []int32, first []int32, hash []uint64) []int32 {
	size := 2 * len(t)
	if cap(t) >= size {
		t = t[:size]
		clear(t)
	} else {
		t = make([]int32, size)
	}
	mask := uint64(size - 1)
	for g, f := range first {
		for i := hash[f] & mask; ; i = (i + 1) & mask {
			if t[i] == 0 {
				t[i] = int32(g) + 1
				break
			}
		}
	}
	return t
}
