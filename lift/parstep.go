package lift

import (
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// A parallel step of colour passing (lift.Parallel with several workers on
// a step with at least 2·minChunk sources): every part of the step runs on
// all workers, so that nothing but the bookkeeping between the phases is
// serial.
//
//  1. Claim and sign: worker k takes the k-th w-th of the sources (the
//     nodes that changed, or every node in the first round), counted in
//     edges (shares.go), claims their neighbours (an atomic or on the step's bitset: each node goes to one
//     worker), signs what it claimed into its own arena and groups its own
//     signatures (a table of its own, verified against the signature), so
//     that equal signatures of one worker cross to another at most once.
//  2. Group: worker s merges the local groups whose signature hash falls
//     in its shard s (an open-addressing table per shard, verified against
//     the signature), so equal signatures meet in one shard; each group
//     adds its size to its class's dirty count and offers itself as the
//     class's keeper (an atomic maximum of size, then group).
//  3. Count: a group keeps its class's id when the whole class was
//     re-signed and it is the keeper (the serial rule: the largest group);
//     the others need fresh ids, counted per shard. The keeper notes how
//     many of the class's members leave it.
//  4. Name: fresh ids follow per shard (a prefix sum, serial); the keeper
//     alone settles its class's size and clears its counts (no other
//     worker touches them then). Then every worker moves the nodes it
//     claimed that change id and lists them, in the order it claimed them.
//
// The partition after every step is the serial one (the coarsest
// refinement of the previous partition by signatures); which node is
// claimed by which worker, and so the order of the dirty nodes, the keeper
// among groups of equal size and the ids, may differ from run to run: the
// colouring, made dense in the graph's order at the end, does not.

// parSeg is one worker's share of a parallel step.
type parSeg struct {
	dirty []int32
	hash  []uint64
	end   []int // signature k ends at end[k] in arena
	arena []uint64
	// The worker's own grouping of its signatures: dirty node k is in
	// local group lgroup[k], whose first member is lgFirst and whose
	// members number lgSize; lgGlobal is its group in its shard;
	// byShard lists the local groups whose hash falls in each shard.
	table    []int32 // local group+1 per slot, 0 empty
	lgroup   []int32
	lgFirst  []int32
	lgSize   []int32
	lgGlobal []int32
	byShard  [][]int32
	_        [64]byte // the workers' headers on separate cache lines
}

// parShard is the grouping state of one shard of a parallel step.
type parShard struct {
	table    []int32 // group+1 per slot, 0 empty
	grpFirst []int32 // global dirty index of the group's first member
	grpSize  []int32
	grpClass []int32
	grpID    []int32 // new class id, or -1-j for the shard's j-th fresh id
	leave    []int32 // for a class's largest group: members that leave the class; else -1
	fresh    int32
	changed  []int32 // the changed nodes of segment s (not shard s)
	_        [64]byte
}

// parState is a refiner's state for parallel steps (allocated once).
type parState struct {
	seg      []parSeg
	shard    []parShard
	off      []int   // global dirty index of each segment's first node
	dirtyIn  []int32 // per class: dirty members this step
	keeperAt []uint64
	cut      shareSet
}

// pool runs the phases of parallel steps on w-1 helper goroutines that
// stay running between phases: a helper waits for the next phase by
// spinning on an epoch counter for up to spinFor, then parks on a
// channel. Starting a goroutine per phase instead costs the wake-up of an
// idle processor, which on a virtual machine is longer than a phase of a
// late round: the caller would run its own share and then the helper's.
type pool struct {
	w     int
	epoch atomic.Int64
	f     func(k int)
	done  atomic.Int32
	wake  []chan struct{}
	slept []atomic.Bool
	quit  atomic.Bool
	spin  bool // helpers run (w ≤ GOMAXPROCS)

	started bool
}

const spinFor = 200 * time.Microsecond

// start starts the helpers (once), when w ≤ GOMAXPROCS.
func (p *pool) start() {
	if p.started {
		return
	}
	p.started = true
	p.spin = p.w <= runtime.GOMAXPROCS(0)
	if !p.spin {
		return
	}
	p.wake, p.slept = make([]chan struct{}, p.w), make([]atomic.Bool, p.w)
	for k := 1; k < p.w; k++ {
		p.wake[k] = make(chan struct{}, 1)
		go p.helper(k)
	}
}

func (p *pool) helper(k int) {
	seen := int64(0)
	for {
		t0 := time.Now()
		for spins := 0; p.epoch.Load() == seen; spins++ {
			if spins&1023 != 1023 {
				continue
			}
			// Let other goroutines have the processor now and then
			// (the program may run other work beside this pool).
			runtime.Gosched()
			if time.Since(t0) > spinFor {
				p.slept[k].Store(true)
				if p.epoch.Load() == seen {
					<-p.wake[k]
				}
				p.slept[k].Store(false)
				t0 = time.Now()
			}
		}
		if p.quit.Load() {
			return
		}
		seen = p.epoch.Load()
		p.f(k)
		p.done.Add(1)
	}
}

// run runs f(0), …, f(w-1), f(0) on the caller, and waits for all.
// Without helpers (more workers than processors, where spinning helpers
// would take the processors of the ones working) it starts a goroutine
// per share.
func (p *pool) run(f func(k int)) {
	p.start()
	if !p.spin {
		var wg sync.WaitGroup
		wg.Add(p.w - 1)
		for k := 1; k < p.w; k++ {
			go func() {
				defer wg.Done()
				f(k)
			}()
		}
		f(0)
		wg.Wait()
		return
	}
	p.f = f
	p.done.Store(0)
	p.epoch.Add(1)
	for k := 1; k < p.w; k++ {
		if p.slept[k].Load() {
			select {
			case p.wake[k] <- struct{}{}:
			default:
			}
		}
	}
	f(0)
	for spins := 1; p.done.Load() != int32(p.w-1); spins++ {
		if spins&255 == 0 {
			// A helper waiting for a processor gets this one.
			runtime.Gosched()
		}
	}
}

// close stops the helpers.
func (p *pool) close() {
	if !p.spin || p.quit.Load() {
		return
	}
	p.quit.Store(true)
	p.epoch.Add(1)
	for k := 1; k < p.w; k++ {
		select {
		case p.wake[k] <- struct{}{}:
		default:
		}
	}
}

// parallel reports whether a step with n sources runs on several
// goroutines (parStep).
func (r *refiner) parallel(n int) bool {
	return r.pool != nil && r.workers > 1 && n >= 2*max(1, r.minChunk)
}

// claimShared is claim when several workers claim at once: an atomic or
// decides which of them adds node i (to d).
func (r *refiner) claimShared(i int32, d []int32) []int32 {
	word, bit := &r.inStep[i>>6], uint64(1)<<(i&63)
	if atomic.LoadUint64(word)&bit != 0 || r.classSize[r.colour[i]] <= 1 {
		return d
	}
	if atomic.OrUint64(word, bit)&bit == 0 {
		d = append(d, i)
	}
	return d
}

// segStart is where signature k starts in an arena whose signatures end
// at end.
func segStart(end []int, k int) int {
	if k == 0 {
		return 0
	}
	return end[k-1]
}

// parSig is the signature of global dirty index k.
func (ps *parState) sig(k int32) []uint64 {
	w := 0
	for w+1 < len(ps.off) && int(k) >= ps.off[w+1] {
		w++
	}
	s := &ps.seg[w]
	j := int(k) - ps.off[w]
	lo := 0
	if j > 0 {
		lo = s.end[j-1]
	}
	return s.arena[lo:s.end[j]]
}

// hashOf is the signature hash of global dirty index k.
func (ps *parState) hashOf(k int32) uint64 {
	w := 0
	for w+1 < len(ps.off) && int(k) >= ps.off[w+1] {
		w++
	}
	return ps.seg[w].hash[int(k)-ps.off[w]]
}

// parStep runs one step on r.workers goroutines: the nodes next to the
// sources src (source s's neighbours being the high, with high set, or low
// halves of the words adj[start[s]:start[s+1]]) are claimed by
// r.claimShared or, with src nil, the step is the first round of the
// nodes 0…n-1 themselves; the claimed nodes are signed with sign, grouped
// and named; it fills r.changed.
func (r *refiner) parStep(n int, src []int32, start []int64, adj []uint64, high bool, sign signFunc) {
	if len(r.inStep) == 0 {
		r.inStep = make([]uint64, (len(r.colour)+63)/64)
	}
	w, pl := r.workers, r.pool
	ps := r.par
	if ps == nil {
		ps = &parState{seg: make([]parSeg, w), shard: make([]parShard, w), off: make([]int, w+1)}
		r.par = ps
	}
	// A signature's shard: the high half of its hash scaled to w (the
	// low bits place it in the shard's table).
	shardOf := func(h uint64) int { return int((h >> 32) * uint64(w) >> 32) }
	// 1. Claim and sign: worker k takes the k-th w-th of the step's work,
	// counted in edges (a node's or source's degree), not in nodes: on
	// friends-and-smokers the few Smokes variables hold half the edges,
	// and shares by count gave one worker all of a step (shares.go).
	// The sources are the nodes that changed in the last step, listed
	// worker by worker, so a worker goes on where it left off: the
	// colours and edges it reads are those it wrote and read last, in its
	// own cache, not the other workers'. (Taking chunks from a shared
	// counter, or from the ends of the others' shares when one's own are
	// gone, balanced the workers but made each one's work 1.4× dearer,
	// measured at 1000×1000.)
	sh := ps.shares(r, n, src, start)
	pl.run(func(k int) {
		// Local slices: appending to the shared headers would bounce
		// their cache line between the workers.
		s := &ps.seg[k]
		d := s.dirty[:0]
		if src == nil {
			// Every node is its own source, visited once: no claims.
			lo, hi := sh.nodes(k)
			d = slices.Grow(d, hi-lo)
			for j := lo; j < hi; j++ {
				if r.classSize[r.colour[j]] > 1 {
					d = append(d, int32(j))
				}
			}
		} else {
			d = sh.visit(k, d, r, src, start, adj, high)
		}
		// Room for the step's signatures at once (the first round's
		// would otherwise grow by copying, several times).
		hs, ends, a := slices.Grow(s.hash[:0], len(d)), slices.Grow(s.end[:0], len(d)), slices.Grow(s.arena[:0], r.sigWords(d))
		if len(s.byShard) != w {
			s.byShard = make([][]int32, w)
		}
		for t := range s.byShard {
			s.byShard[t] = s.byShard[t][:0]
		}
		tsize := 16
		for tsize < 2*len(d) {
			tsize *= 2
		}
		table := s.table
		if cap(table) < tsize {
			table = make([]int32, tsize)
		} else {
			table = table[:tsize]
			clear(table)
		}
		mask := uint64(tsize - 1)
		lgroup, lgFirst, lgSize := slices.Grow(s.lgroup[:0], len(d)), s.lgFirst[:0], s.lgSize[:0]
		for j, i := range d {
			start := len(a)
			a = sign(i, a)
			sig := a[start:]
			h := hashSig(sig)
			hs = append(hs, h)
			ends = append(ends, len(a))
			// The local group of the signature (verified, so exact).
			var g int32
			for t := h & mask; ; t = (t + 1) & mask {
				g = table[t] - 1
				if g < 0 {
					g = int32(len(lgSize))
					table[t] = g + 1
					lgFirst = append(lgFirst, int32(j))
					lgSize = append(lgSize, 0)
					sh := shardOf(h)
					s.byShard[sh] = append(s.byShard[sh], g)
					break
				}
				if f := lgFirst[g]; hs[f] == h && slices.Equal(a[segStart(ends, int(f)):ends[f]], sig) {
					break
				}
			}
			lgSize[g]++
			lgroup = append(lgroup, g)
		}
		s.dirty, s.hash, s.end, s.arena = d, hs, ends, a
		s.table, s.lgroup, s.lgFirst, s.lgSize = table, lgroup, lgFirst, lgSize
		s.lgGlobal = slices.Grow(s.lgGlobal[:0], len(lgSize))[:len(lgSize)]
	})
	total := 0
	for k := range w {
		ps.off[k] = total
		total += len(ps.seg[k].dirty)
	}
	ps.off[w] = total
	nc := r.numClasses()
	if len(ps.dirtyIn) < len(r.colour) {
		ps.dirtyIn = make([]int32, max(nc, len(r.colour)))
		ps.keeperAt = make([]uint64, max(nc, len(r.colour)))
	}
	if len(ps.dirtyIn) < nc {
		ps.dirtyIn = append(ps.dirtyIn, make([]int32, nc-len(ps.dirtyIn))...)
		ps.keeperAt = append(ps.keeperAt, make([]uint64, nc-len(ps.keeperAt))...)
	}
	// 2. Group.
	pl.run(func(s int) {
		sh := &ps.shard[s]
		grpFirst, grpSize, grpClass := sh.grpFirst[:0], sh.grpSize[:0], sh.grpClass[:0]
		sh.grpID = sh.grpID[:0]
		groups := 0
		for k := range w {
			groups += len(ps.seg[k].byShard[s])
		}
		tsize := 16
		for tsize < 2*groups {
			tsize *= 2
		}
		table := sh.table
		if cap(table) < tsize {
			table = make([]int32, tsize)
		} else {
			table = table[:tsize]
			clear(table)
		}
		sh.table = table
		mask := uint64(tsize - 1)
		for k := range w {
			seg := &ps.seg[k]
			for _, lg := range seg.byShard[s] {
				j := int(seg.lgFirst[lg])
				h := seg.hash[j]
				gk := int32(ps.off[k] + j)
				sig := seg.arena[segStart(seg.end, j):seg.end[j]]
				var g int32
				for t := h & mask; ; t = (t + 1) & mask {
					g = table[t] - 1
					if g < 0 {
						g = int32(len(grpSize))
						table[t] = g + 1
						grpFirst = append(grpFirst, gk)
						grpSize = append(grpSize, 0)
						grpClass = append(grpClass, int32(sig[0]))
						break
					}
					if f := grpFirst[g]; ps.hashOf(f) == h && slices.Equal(ps.sig(f), sig) {
						break
					}
				}
				grpSize[g] += seg.lgSize[lg]
				seg.lgGlobal[lg] = g
			}
		}
		sh.grpFirst, sh.grpSize, sh.grpClass = grpFirst, grpSize, grpClass
		for g, c := range sh.grpClass {
			atomic.AddInt32(&ps.dirtyIn[c], sh.grpSize[g])
			key := uint64(sh.grpSize[g])<<32 | uint64(^uint32(s+w*g))
			for {
				old := atomic.LoadUint64(&ps.keeperAt[c])
				if old >= key || atomic.CompareAndSwapUint64(&ps.keeperAt[c], old, key) {
					break
				}
			}
		}
	})
	// 3. Count the fresh ids. The largest group of a class (one in all
	// shards) will settle the class's count and clear its bookkeeping,
	// alone, in the next phase: it notes the members that leave.
	pl.run(func(s int) {
		sh := &ps.shard[s]
		sh.fresh = 0
		sh.leave = sh.leave[:0]
		for g, c := range sh.grpClass {
			key := uint64(sh.grpSize[g])<<32 | uint64(^uint32(s+w*g))
			largest, all := ps.keeperAt[c] == key, ps.dirtyIn[c] == r.classSize[c]
			if largest && all {
				sh.grpID = append(sh.grpID, c)
			} else {
				sh.grpID = append(sh.grpID, -1-sh.fresh)
				sh.fresh++
			}
			leave := int32(-1)
			if largest {
				leave = ps.dirtyIn[c]
				if all {
					leave -= sh.grpSize[g]
				}
			}
			sh.leave = append(sh.leave, leave)
		}
	})
	base := make([]int32, w)
	next32 := int32(nc)
	for s := range w {
		base[s] = next32
		next32 += ps.shard[s].fresh
	}
	r.classSize = append(r.classSize, make([]int32, int(next32)-nc)...)
	// 4. Name: new ids by shard, then the moves by segment, so that the
	// changed nodes keep the order in which they were claimed (nodes near
	// each other in the graph stay together for the next step).
	pl.run(func(s int) {
		sh := &ps.shard[s]
		for g, id := range sh.grpID {
			if id < 0 {
				id = base[s] - 1 - id
				sh.grpID[g] = id
				r.classSize[id] = sh.grpSize[g]
			}
			// Only the class's largest group writes the class's entries
			// (no other worker reads or writes them in this phase).
			if leave := sh.leave[g]; leave >= 0 {
				c := sh.grpClass[g]
				r.classSize[c] -= leave
				ps.dirtyIn[c] = 0
				ps.keeperAt[c] = 0
			}
		}
	})
	pl.run(func(k int) {
		seg := &ps.seg[k]
		changed := ps.shard[k].changed[:0]
		for j, h := range seg.hash {
			i := seg.dirty[j]
			if id := ps.shard[shardOf(h)].grpID[seg.lgGlobal[seg.lgroup[j]]]; id != r.colour[i] {
				r.colour[i] = id
				changed = append(changed, i)
			}
			// Every bit of the step's bitset is a dirty node's: the
			// word goes to 0 whoever clears it, once.
			if b := &r.inStep[i>>6]; src != nil && atomic.LoadUint64(b) != 0 {
				atomic.StoreUint64(b, 0)
			}
		}
		ps.shard[k].changed = changed
	})
	r.changed = r.changed[:0]
	for s := range w {
		r.changed = append(r.changed, ps.shard[s].changed...)
	}
	r.signed += total
}
