package count

import (
	"encoding/binary"
	"math/bits"
	"slices"
)

// structure is the static shape of the original formula that component
// decomposition walks: for each variable its partners in binary clauses and
// the long clauses it occurs in. Learned clauses are not part of it.
type structure struct {
	binStart []int32 // binNbr[binStart[v]:binStart[v+1]]
	binNbr   []int32
	occStart []int32 // occ[occStart[v]:occStart[v+1]]: long clause ids
	occ      []int32
	clStart  []int32 // clLits[clStart[i]:clStart[i+1]]: long clause i
	clLits   []lit
	litStart []int32 // litOcc[litStart[l]:litStart[l+1]]: long clauses with l
	litOcc   []int32
}

// clause returns the literals of long clause c.
func (st *structure) clause(c int32) []lit { return st.clLits[st.clStart[c]:st.clStart[c+1]] }

// component is a set of unassigned variables closed under the unsatisfied
// original clauses, with those of its clauses that are long and its cache
// key.
type component struct {
	vars   span  // variables, sorted: in compVars
	cls    span  // long clauses unsatisfied when it was found: in compCls
	ks, ke int32 // cache key: keys[ks:ke]
}

func (c component) size() int32 { return c.vars.e - c.vars.s }

// span locates a list of a chunkStack: chunks[ch][s:e].
type span struct{ ch, s, e int32 }

// chunkStack is a stack of int32 lists (the components' variables and
// clauses) held in chunks of at least min entries, a longer list in a chunk
// of its own. Growing leaves no copy behind (an array grown by append left
// several times its size as garbage, resident until a collection), and the
// chunks that release empties are kept for reuse.
type chunkStack struct {
	chunks [][]int32
	top    int32 // the chunk in use
	min    int
}

// stackMark is a position of a chunkStack, to release back to.
type stackMark struct{ top, n int32 }

func (st *chunkStack) list(r span) []int32 { return st.chunks[r.ch][r.s:r.e] }

// alloc reserves n entries at the top and returns their span.
func (st *chunkStack) alloc(n int) span {
	if len(st.chunks) == 0 {
		st.chunks = append(st.chunks, make([]int32, 0, max(st.min, n)))
	}
	c := st.chunks[st.top]
	if len(c)+n > cap(c) {
		st.top++
		if int(st.top) == len(st.chunks) {
			st.chunks = append(st.chunks, nil)
		}
		if cap(st.chunks[st.top]) < n {
			st.chunks[st.top] = make([]int32, 0, max(st.min, n))
		}
		c = st.chunks[st.top]
	}
	at := int32(len(c))
	st.chunks[st.top] = c[:int(at)+n]
	return span{st.top, at, at + int32(n)}
}

func (st *chunkStack) mark() stackMark {
	if len(st.chunks) == 0 {
		return stackMark{}
	}
	return stackMark{st.top, int32(len(st.chunks[st.top]))}
}

// release drops the lists allocated since mark m.
func (st *chunkStack) release(m stackMark) {
	for ; st.top > m.top; st.top-- {
		st.chunks[st.top] = st.chunks[st.top][:0]
	}
	if len(st.chunks) > 0 {
		st.chunks[st.top] = st.chunks[st.top][:m.n]
	}
}

// decomposer finds the components of the residual formula.
type decomposer struct {
	st       *structure
	value    []int8
	varStamp []uint32
	clStamp  []uint32
	stamp    uint32
	freq     []int32 // occurrences in unsatisfied clauses, per variable
	compOf   []int32 // component index in the current decomposition, -1 free

	compVars chunkStack // component variable lists
	compCls  chunkStack // component long-clause lists
	comps    []component
	keys     []byte // arena of cache keys

	// scratch of one decomposition
	queue []int32    // variables of all components found, in search order
	clBuf []int32    // partially assigned clauses of all components
	clAll []int32    // unsatisfied long clauses of all components
	found []foundRec // per component: ranges in queue, clBuf and clAll
}

type foundRec struct{ qs, qe, cs, ce, as, ae int32 }

func newDecomposer(st *structure, val []int8, nv int) *decomposer {
	return &decomposer{
		st:       st,
		value:    val,
		varStamp: make([]uint32, nv),
		clStamp:  make([]uint32, len(st.clStart)-1),
		freq:     make([]int32, nv),
		compOf:   make([]int32, nv),
		compVars: chunkStack{min: max(4*nv, 1024)},
		compCls:  chunkStack{min: max(4*(len(st.clStart)-1), 1024)},
	}
}

// nextStamp starts a decomposition: variables seen are marked d.stamp,
// the parent's clauses 2·d.stamp and the clauses visited 2·d.stamp+1.
func (d *decomposer) nextStamp() {
	d.stamp++
	if d.stamp >= 1<<31-1 {
		clear(d.varStamp)
		clear(d.clStamp)
		d.stamp = 1
	}
}

// decompose splits the unassigned variables of the parent component p
// into components, appended to d.comps with sorted variable lists, and
// returns how many of the variables are free (in no unsatisfied clause).
// Only p's long clauses are visited: those outside it were satisfied when
// p was found.
func (d *decomposer) decompose(p component) (free int) {
	d.nextStamp()
	inParent := 2 * d.stamp
	for _, c := range d.compCls.list(p.cls) {
		d.clStamp[c] = inParent
	}
	pvars := d.compVars.list(p.vars)
	d.queue, d.clBuf, d.clAll, d.found = d.queue[:0], d.clBuf[:0], d.clAll[:0], d.found[:0]
	for _, v := range pvars {
		if d.value[2*v] != unknown || d.varStamp[v] == d.stamp {
			continue
		}
		qs, cs, as := int32(len(d.queue)), int32(len(d.clBuf)), int32(len(d.clAll))
		id := int32(len(d.found))
		d.add(v, id)
		d.explore(qs, id)
		if int32(len(d.queue)) == qs+1 && d.freq[v] == 0 {
			free++
			d.compOf[v] = -1
			d.queue = d.queue[:qs]
			continue
		}
		d.found = append(d.found, foundRec{qs, int32(len(d.queue)), cs, int32(len(d.clBuf)), as, int32(len(d.clAll))})
	}
	if len(d.found) == 0 {
		return free
	}
	// Lay the components out, each in the parent's (sorted) order, by one
	// pass over the parent's variables.
	first := len(d.comps)
	for _, f := range d.found {
		vars := d.compVars.alloc(int(f.qe - f.qs))
		vars.e = vars.s // filled below
		d.comps = append(reserve(d.comps, 1), component{vars: vars})
	}
	comps := d.comps[first:]
	for _, v := range pvars {
		if d.value[2*v] != unknown {
			continue
		}
		if id := d.compOf[v]; id >= 0 {
			c := &comps[id]
			d.compVars.chunks[c.vars.ch][c.vars.e] = v
			c.vars.e++
		}
	}
	for id, f := range d.found {
		c := &comps[id]
		c.cls = d.compCls.alloc(int(f.ae - f.as))
		copy(d.compCls.list(c.cls), d.clAll[f.as:f.ae])
		c.ks, c.ke = d.encodeKey(*c, d.clBuf[f.cs:f.ce])
	}
	return free
}

func (d *decomposer) add(v, id int32) {
	d.varStamp[v] = d.stamp
	d.freq[v] = 0
	d.compOf[v] = id
	d.queue = append(d.queue, v)
}

// explore grows component id, whose variables start at queue[start], by
// breadth-first search, collecting in clBuf the unsatisfied clauses that
// have an assigned literal (the others are implied by the variable set).
func (d *decomposer) explore(start, id int32) {
	st, val, stamp, freq := d.st, d.value, d.stamp, d.freq
	inParent, visited := 2*stamp, 2*stamp+1
	for q := int(start); q < len(d.queue); q++ {
		u := d.queue[q]
		for _, w := range st.binNbr[st.binStart[u]:st.binStart[u+1]] {
			if val[2*w] != unknown {
				continue
			}
			freq[u]++
			if d.varStamp[w] != stamp {
				d.add(w, id)
			}
		}
	clauses:
		for _, c := range st.occ[st.occStart[u]:st.occStart[u+1]] {
			if d.clStamp[c] != inParent {
				continue // visited, or satisfied before the parent was found
			}
			d.clStamp[c] = visited
			lits := st.clLits[st.clStart[c]:st.clStart[c+1]]
			for _, l := range lits {
				if val[l] == isTrue {
					continue clauses
				}
			}
			d.clAll = append(d.clAll, c)
			partial := false
			for _, l := range lits {
				if val[l] != unknown {
					partial = true
					continue
				}
				w := l.variable()
				if d.varStamp[w] != stamp {
					d.add(w, id)
				}
				freq[w]++
			}
			if partial {
				d.clBuf = append(d.clBuf, c)
			}
		}
	}
}

// encodeKey appends the cache key of c, built from its sorted variables and
// its sorted partially assigned clauses, to the key arena.
func (d *decomposer) encodeKey(c component, clauses []int32) (ks, ke int32) {
	slices.Sort(clauses)
	ks = int32(len(d.keys))
	vars := d.compVars.list(c.vars)
	d.keys = reserve(d.keys, packedBound(len(vars))+packedBound(len(clauses)))
	d.keys = appendPacked(d.keys, vars)
	d.keys = appendPacked(d.keys, clauses)
	return ks, int32(len(d.keys))
}

// appendPacked encodes a strictly increasing sequence of non-negative ids,
// as sharpSAT packs its cache keys: the number of ids and the first as
// uvarints, then, when there are more, the width w of the largest gap
// less one in a byte and the gaps less one in w bits each (LSB first, the
// last byte padded with zeros; no bits at all for consecutive ids). The
// encoding is self-delimiting, so that a key of several sequences is one
// to one.
func appendPacked(b []byte, ids []int32) []byte {
	b = binary.AppendUvarint(b, uint64(len(ids)))
	if len(ids) == 0 {
		return b
	}
	b = binary.AppendUvarint(b, uint64(ids[0]))
	if len(ids) == 1 {
		return b
	}
	var widest uint32
	for i := 1; i < len(ids); i++ {
		widest |= uint32(ids[i] - ids[i-1] - 1)
	}
	w := uint(bits.Len32(widest))
	b = append(b, byte(w))
	if w == 0 {
		return b
	}
	var acc uint64
	var n uint
	for i := 1; i < len(ids); i++ {
		acc |= uint64(ids[i]-ids[i-1]-1) << n
		n += w
		for n >= 8 {
			b = append(b, byte(acc))
			acc >>= 8
			n -= 8
		}
	}
	if n > 0 {
		b = append(b, byte(acc))
	}
	return b
}

// packedBound bounds the bytes appendPacked takes for n ids.
func packedBound(n int) int { return 2*binary.MaxVarintLen32 + 1 + 4*n }

// reserve returns s with room for n more elements, doubling its capacity
// when it has to grow: append grows a large slice by a quarter, which for
// the arenas that grow by small steps over a run (components' variables,
// clauses and keys, the pool, the cache's log) leaves about four times
// their size behind as garbage, resident until a collection.
func reserve[T any](s []T, n int) []T {
	if len(s)+n <= cap(s) {
		return s
	}
	t := make([]T, len(s), max(2*cap(s), len(s)+n, 64))
	copy(t, s)
	return t
}

func (d *decomposer) key(c component) []byte { return d.keys[c.ks:c.ke] }
