package count

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"math"
	"math/big"
	"math/bits"
	"slices"
)

// compCache maps component keys to model counts. It is a flat hash table
// (open addressing with linear probing) over a slice of entries whose keys
// live in one byte arena and whose counts are held inline when they fit in
// 64 bits, so that an entry costs no allocation of its own. Its estimated
// memory use is kept below a limit by evicting the least recently used half
// when the limit is exceeded. Insertions are logged so that the entries made
// while exploring a branch that turned out unsatisfiable can be withdrawn
// (their counts may be wrong, see counter.countComp).
//
// The entries, the slot table, the arena and the log hold no pointers (the
// rare counts beyond 64 bits live apart, in bigs), so that the garbage
// collector never scans them. The entries and the arena grow by chunks
// of fixed size rather than by doubling, so that growing leaves no copies
// behind for the collector (they made the heap peak at about twice the
// cache).
type compCache struct {
	// slots: 0 for an empty slot, else the key's tag (the high 32 bits of
	// its hash, whose low bits also give the home slot) above the entry
	// index + 1.
	slots   []uint64
	mask    uint64
	live    int            // entries cached
	entries [][]cacheEntry // chunks of entryChunk entries
	nent    int            // entries allocated (live or free)
	arena   [][]byte       // the keys of the entries, and holes left by removed ones, in chunks
	spare   [][]byte       // chunks emptied by compactArena, for appendKey
	alen    int            // bytes of arena used
	holes   int            // bytes of arena that no live entry uses
	free    []int32
	bigs    []*big.Int // counts beyond 64 bits, indexed by their entries' small
	bigFree []int32    // free indices of bigs
	log     []logEntry // insertions that can still be rolled back, oldest first
	puts    int64      // insertions so far (log positions are numbered by it)
	bytes   int64
	limit   int64
	clock   uint32 // renumbered (halved) before it overflows

	hits, misses, evictions int64
}

type cacheEntry struct {
	koff  uint32 // key: arena[koff>>arenaShift][koff&arenaMask:][:klen]
	klen  int32  // -1 for a free slot
	gen   uint32 // generation (incremented whenever the slot is freed) | bigFlag
	used  uint32 // clock at the last insertion or hit
	small uint64 // the count, or with bigFlag its index in bigs
}

// bigFlag marks, in cacheEntry.gen, an entry whose count is in bigs.
const bigFlag = 1 << 31

// The entries come in chunks of entryChunk; the keys in chunks of
// 1<<arenaShift bytes, a key longer than that in a chunk of its own, so
// that a key's offset is its chunk's index above its offset in the chunk.
// maxChunks bounds the arena's chunks so that the offsets fit in 32 bits;
// reaching it evicts (only with a cache bound of gigabytes).
const (
	entryShift = 12
	entryChunk = 1 << entryShift
	arenaShift = 16
	arenaMask  = 1<<arenaShift - 1
	maxChunks  = 1 << (32 - arenaShift)
)

// ent returns entry i.
func (c *compCache) ent(i int32) *cacheEntry {
	return &c.entries[i>>entryShift][i&(entryChunk-1)]
}

// appendKey stores key in the arena and returns its offset, or false when
// the arena has no room left.
func (c *compCache) appendKey(key []byte) (uint32, bool) {
	n := len(c.arena)
	if n == 0 || len(c.arena[n-1])+len(key) > cap(c.arena[n-1]) {
		if n == maxChunks {
			return 0, false
		}
		var ch []byte
		if k := len(c.spare); k > 0 && len(key) <= 1<<arenaShift {
			ch, c.spare = c.spare[k-1], c.spare[:k-1]
		} else {
			ch = make([]byte, 0, max(1<<arenaShift, len(key)))
		}
		c.arena = append(c.arena, ch)
		n++
	}
	ch := &c.arena[n-1]
	off := uint32(n-1)<<arenaShift | uint32(len(*ch))
	*ch = append(*ch, key...) // a longer key fills its chunk exactly
	c.alen += len(key)
	return off, true
}

type logEntry struct {
	slot int32
	gen  uint32
	put  int64 // the insertion's number
}

// entryOverhead bounds the bytes an entry costs beyond its key, counting
// the slack of the slices that grow by doubling and keep their peak
// capacity after evictions: the entry (24, twice), its log entry (16,
// twice) and its share of the slot table (8 bytes a slot, between a quarter
// and a half full: 32). The key is counted twice (arena growth and the
// holes removals leave until it is compacted).
const entryOverhead = 2*24 + 2*16 + 32

// bigOverhead is what a count held as a big.Int costs beyond its words:
// the header, the allocator's rounding and its place in bigs.
const bigOverhead = 48 + 16

func newCompCache(limit int64) *compCache {
	return &compCache{limit: limit}
}

// entryBytes bounds the memory of an entry with a key of klen bytes and
// count b (nil for a count held inline).
func entryBytes(klen int32, b *big.Int) int64 {
	n := 2*int64(klen) + entryOverhead
	if b != nil {
		n += bigOverhead + roundUp16(int64(cap(b.Bits()))*8)
	}
	return n
}

func roundUp16(n int64) int64 { return (n + 15) &^ 15 }

// hashKey is a fast 64-bit hash of a key (multiply-xorshift over 8-byte
// words); fixed, so that runs are reproducible.
func hashKey(b []byte) uint64 {
	h := uint64(len(b))*0x9e3779b97f4a7c15 + 0x632be59bd9b4e019
	for len(b) >= 8 {
		h = (h ^ binary.LittleEndian.Uint64(b)) * 0xbf58476d1ce4e5b9
		h ^= h >> 31
		b = b[8:]
	}
	var t uint64
	for i, x := range b {
		t |= uint64(x) << (8 * i)
	}
	h = (h ^ t) * 0x94d049bb133111eb
	h ^= h >> 29
	h *= 0xbf58476d1ce4e5b9
	return h ^ h>>32
}

func (c *compCache) key(e *cacheEntry) []byte {
	off := e.koff & arenaMask
	return c.arena[e.koff>>arenaShift][off : off+uint32(e.klen)]
}

// count returns e's count.
func (c *compCache) count(e *cacheEntry) num {
	if e.gen&bigFlag != 0 {
		return num{big: c.bigs[e.small]}
	}
	return num{small: e.small}
}

// bigOf returns e's count held as a big.Int, or nil.
func (c *compCache) bigOf(e *cacheEntry) *big.Int {
	if e.gen&bigFlag != 0 {
		return c.bigs[e.small]
	}
	return nil
}

// tick advances the clock, halving every entry's last use first when the
// clock would overflow (the order of uses is kept, ties aside).
func (c *compCache) tick() uint32 {
	if c.clock == math.MaxUint32 {
		for _, ch := range c.entries {
			for i := range ch {
				ch[i].used >>= 1
			}
		}
		c.clock >>= 1
	}
	c.clock++
	return c.clock
}

// find returns the slot holding key, or -1.
func (c *compCache) find(key []byte, tag uint32) int {
	if c.slots == nil {
		return -1
	}
	for i := uint64(tag) & c.mask; ; i = (i + 1) & c.mask {
		s := c.slots[i]
		if s == 0 {
			return -1
		}
		if uint32(s>>32) == tag {
			e := c.ent(int32(uint32(s) - 1))
			if bytes.Equal(c.key(e), key) {
				return int(i)
			}
		}
	}
}

// len returns the number of cached entries.
func (c *compCache) len() int { return c.live }

// get returns the count cached for key, and whether there is one.
func (c *compCache) get(key []byte) (num, bool) {
	i := c.find(key, uint32(hashKey(key)>>32))
	if i < 0 {
		c.misses++
		return num{}, false
	}
	c.hits++
	e := c.ent(int32(uint32(c.slots[i]) - 1))
	e.used = c.tick()
	return c.count(e), true
}

// put caches count under key. A count held in a big.Int is kept by
// reference and must not be modified afterwards.
func (c *compCache) put(key []byte, count num) {
	tag := uint32(hashKey(key) >> 32)
	if c.find(key, tag) >= 0 {
		return
	}
	koff, ok := c.appendKey(key)
	if !ok {
		c.evict()
		if koff, ok = c.appendKey(key); !ok {
			return // an arena of 4 GB: not cached
		}
	}
	if 2*(c.live+1) > len(c.slots) {
		c.rehash(max(16, 2*len(c.slots)))
	}
	e := cacheEntry{koff: koff, klen: int32(len(key)), used: c.tick()}
	e.small = count.small
	if count.big != nil {
		e.gen = bigFlag
		if n := len(c.bigFree); n > 0 {
			e.small = uint64(c.bigFree[n-1])
			c.bigFree = c.bigFree[:n-1]
			c.bigs[e.small] = count.big
		} else {
			e.small = uint64(len(c.bigs))
			c.bigs = append(c.bigs, count.big)
		}
	}
	var slot int32
	if n := len(c.free); n > 0 {
		slot = c.free[n-1]
		c.free = c.free[:n-1]
		e.gen |= c.ent(slot).gen &^ bigFlag
		*c.ent(slot) = e
	} else {
		if c.nent == len(c.entries)<<entryShift {
			c.entries = append(c.entries, make([]cacheEntry, entryChunk))
		}
		slot = int32(c.nent)
		c.nent++
		*c.ent(slot) = e
	}
	c.insertSlot(tag, slot)
	c.live++
	c.log = append(reserve(c.log, 1), logEntry{slot, e.gen &^ bigFlag, c.puts})
	c.puts++
	c.bytes += entryBytes(e.klen, count.big)
	if c.bytes > c.limit {
		c.evict()
	}
}

// insertSlot places entry index slot, whose key has the given tag, in the
// table.
func (c *compCache) insertSlot(tag uint32, slot int32) {
	i := uint64(tag) & c.mask
	for c.slots[i] != 0 {
		i = (i + 1) & c.mask
	}
	c.slots[i] = uint64(tag)<<32 | uint64(slot+1)
}

// rehash rebuilds the table with n slots (a power of two) from the live
// entries.
func (c *compCache) rehash(n int) {
	if n&(n-1) != 0 {
		n = 1 << bits.Len(uint(n))
	}
	if len(c.slots) == n {
		clear(c.slots)
	} else {
		c.slots = make([]uint64, n)
	}
	c.mask = uint64(n - 1)
	for i := range int32(c.nent) {
		if e := c.ent(i); e.klen >= 0 {
			c.insertSlot(uint32(hashKey(c.key(e))>>32), i)
		}
	}
}

// remove frees entry slot, which is cached; table says whether to take it
// out of the slot table (evict rebuilds the table instead).
func (c *compCache) remove(slot int32, table bool) {
	e := c.ent(slot)
	if table {
		key := c.key(e)
		c.deleteSlot(c.find(key, uint32(hashKey(key)>>32)))
	}
	b := c.bigOf(e)
	c.bytes -= entryBytes(e.klen, b)
	c.holes += int(e.klen)
	if b != nil {
		c.bigs[e.small] = nil
		c.bigFree = append(c.bigFree, int32(e.small))
	}
	e.klen, e.small = -1, 0
	e.gen = (e.gen + 1) &^ bigFlag
	c.free = append(c.free, slot)
	c.live--
	if c.holes > 1<<16 && 2*c.holes > c.alen {
		c.compactArena()
	}
}

// deleteSlot empties table slot i, shifting back the entries after it
// that would otherwise no longer be found (linear probing).
func (c *compCache) deleteSlot(i int) {
	m := c.mask
	hole := uint64(i)
	c.slots[hole] = 0
	for j := (hole + 1) & m; c.slots[j] != 0; j = (j + 1) & m {
		home := uint64(uint32(c.slots[j]>>32)) & m
		// Move the entry at j into the hole unless its home lies
		// cyclically in (hole, j].
		if (j-home)&m >= (j-hole)&m {
			c.slots[hole] = c.slots[j]
			c.slots[j] = 0
			hole = j
		}
	}
}

// compactArena rewrites the keys of the live entries without holes, in
// place: taken in the order they lie in the arena, the keys of up to
// 1<<arenaShift bytes are packed into the arena's chunks of that size in
// their order (so that no key is written after where it lies: packing a
// subsequence never gets ahead of packing the whole), a longer key keeps
// its own chunk. The chunks left over are kept for appendKey.
func (c *compCache) compactArena() {
	order := make([]int32, 0, c.live)
	for i := range int32(c.nent) {
		if c.ent(i).klen >= 0 {
			order = append(order, i)
		}
	}
	slices.SortFunc(order, func(a, b int32) int { return cmp.Compare(c.ent(a).koff, c.ent(b).koff) })
	var out [][]byte
	next, cur := 0, -1 // the next chunk to write into, the one being written
	for _, i := range order {
		e := c.ent(i)
		n := int(e.klen)
		src := c.arena[e.koff>>arenaShift]
		off := int(e.koff & arenaMask)
		if n > 1<<arenaShift {
			out = append(out, src)
			e.koff = uint32(len(out)-1) << arenaShift
			continue
		}
		if cur < 0 || len(out[cur])+n > 1<<arenaShift {
			for cap(c.arena[next]) != 1<<arenaShift {
				next++
			}
			out = append(out, c.arena[next][:0])
			cur, next = len(out)-1, next+1
		}
		at := len(out[cur])
		out[cur] = out[cur][:at+n]
		copy(out[cur][at:], src[off:off+n])
		e.koff = uint32(cur)<<arenaShift | uint32(at)
	}
	for _, ch := range c.arena[next:] {
		if cap(ch) == 1<<arenaShift {
			c.spare = append(c.spare, ch[:0])
		}
	}
	c.arena, c.alen, c.holes = out, 0, 0
	for _, ch := range out {
		c.alen += len(ch)
	}
}

// mark returns the number of the next insertion, for rollback.
func (c *compCache) mark() int64 { return c.puts }

// rollback removes the entries inserted since mark m that are still cached.
func (c *compCache) rollback(m int64) {
	i := len(c.log)
	for i > 0 && c.log[i-1].put >= m {
		i--
		if le := c.log[i]; c.logged(le) {
			c.remove(le.slot, true)
		}
	}
	c.log = c.log[:i]
}

// logged reports whether the insertion le logged is still cached.
func (c *compCache) logged(le logEntry) bool {
	e := c.ent(le.slot)
	return e.klen >= 0 && e.gen&^bigFlag == le.gen
}

// forgetLog drops the insertion log; entries made so far can no longer be
// rolled back.
func (c *compCache) forgetLog() { c.log = c.log[:0] }

// evict removes the least recently used half of the entries.
func (c *compCache) evict() {
	used := make([]uint32, 0, c.live)
	for i := range int32(c.nent) {
		if e := c.ent(i); e.klen >= 0 {
			used = append(used, e.used)
		}
	}
	if len(used) == 0 {
		return
	}
	slices.Sort(used)
	median := used[len(used)/2]
	for i := range int32(c.nent) {
		if e := c.ent(i); e.klen >= 0 && e.used <= median {
			c.remove(i, false)
			c.evictions++
		}
	}
	c.compactArena()
	c.rehash(len(c.slots))
	// Drop the log entries of evicted insertions, keeping the order, so
	// that the log never holds more entries than the cache.
	c.log = slices.DeleteFunc(c.log, func(le logEntry) bool { return !c.logged(le) })
}
