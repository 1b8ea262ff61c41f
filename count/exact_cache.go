package count

import (
	"math/big"
	"slices"
)

// compCache maps component keys to model counts. Its estimated memory use
// is kept below a limit by evicting the least recently used half when the
// limit is exceeded. Insertions are logged so that the entries made while
// exploring a branch that turned out unsatisfiable can be withdrawn (their
// counts may be wrong, see counter.countComp).
type compCache struct {
	index   map[string]int32
	entries []cacheEntry
	free    []int32    // unused entry slots
	log     []logEntry // insertions that can still be rolled back, oldest first
	puts    int64      // insertions so far (log positions are numbered by it)
	bytes   int64
	limit   int64
	clock   uint64

	hits, misses, evictions int64
}

type cacheEntry struct {
	key   string
	count *big.Int // nil for a free slot
	used  uint64   // clock at the last insertion or hit
	gen   uint32   // incremented whenever the slot is freed
}

type logEntry struct {
	slot int32
	gen  uint32
	put  int64 // the insertion's number
}

// entryOverhead bounds the bytes an entry costs beyond its key and count
// words, counting the slack of slices and of the map that grow by doubling
// (which keep their peak capacity after evictions): the big.Int header
// (32), the entry (40, twice for the slice's growth), its log entry (16,
// twice), and the index map's slot (key header and slot number, 24, with
// control byte and load factor 7/8 and doubling about 60). Measured on
// wff.3.100.150 (keys of about 40 bytes, counts of one or two words), the
// live heap grew by 215 to 245 bytes per cached entry while entryBytes
// gave 297.
const entryOverhead = 32 + 2*40 + 2*16 + 60

func newCompCache(limit int64) *compCache {
	return &compCache{index: map[string]int32{}, limit: limit}
}

// entryBytes bounds the memory an entry costs: its key and count words
// rounded up to the allocator's 16-byte granule, plus entryOverhead.
func entryBytes(key string, c *big.Int) int64 {
	return roundUp16(int64(len(key))) + roundUp16(int64(cap(c.Bits()))*8) + entryOverhead
}

func roundUp16(n int64) int64 { return (n + 15) &^ 15 }

// get returns the count cached for key, or nil.
func (c *compCache) get(key []byte) *big.Int {
	slot, ok := c.index[string(key)]
	if !ok {
		c.misses++
		return nil
	}
	c.hits++
	c.clock++
	e := &c.entries[slot]
	e.used = c.clock
	return e.count
}

// put caches count (which must not be modified afterwards) under key.
func (c *compCache) put(key []byte, count *big.Int) {
	if _, ok := c.index[string(key)]; ok {
		return
	}
	c.clock++
	e := cacheEntry{key: string(key), count: count, used: c.clock}
	var slot int32
	if n := len(c.free); n > 0 {
		slot = c.free[n-1]
		c.free = c.free[:n-1]
		e.gen = c.entries[slot].gen
		c.entries[slot] = e
	} else {
		slot = int32(len(c.entries))
		c.entries = append(c.entries, e)
	}
	c.index[e.key] = slot
	c.log = append(c.log, logEntry{slot, e.gen, c.puts})
	c.puts++
	c.bytes += entryBytes(e.key, count)
	if c.bytes > c.limit {
		c.evict()
	}
}

// remove frees a slot.
func (c *compCache) remove(slot int32) {
	e := &c.entries[slot]
	c.bytes -= entryBytes(e.key, e.count)
	delete(c.index, e.key)
	e.key, e.count = "", nil
	e.gen++
	c.free = append(c.free, slot)
}

// mark returns the number of the next insertion, for rollback.
func (c *compCache) mark() int64 { return c.puts }

// rollback removes the entries inserted since mark m that are still cached.
func (c *compCache) rollback(m int64) {
	i := len(c.log)
	for i > 0 && c.log[i-1].put >= m {
		i--
		if le := c.log[i]; c.live(le) {
			c.remove(le.slot)
		}
	}
	c.log = c.log[:i]
}

// live reports whether the insertion le logged is still cached.
func (c *compCache) live(le logEntry) bool {
	e := &c.entries[le.slot]
	return e.count != nil && e.gen == le.gen
}

// forgetLog drops the insertion log; entries made so far can no longer be
// rolled back.
func (c *compCache) forgetLog() { c.log = c.log[:0] }

// evict removes the least recently used half of the entries.
func (c *compCache) evict() {
	used := make([]uint64, 0, len(c.index))
	for i := range c.entries {
		if c.entries[i].count != nil {
			used = append(used, c.entries[i].used)
		}
	}
	if len(used) == 0 {
		return
	}
	slices.Sort(used)
	median := used[len(used)/2]
	for i := range c.entries {
		if e := &c.entries[i]; e.count != nil && e.used <= median {
			c.remove(int32(i))
			c.evictions++
		}
	}
	// Drop the log entries of evicted insertions, keeping the order, so
	// that the log never holds more entries than the cache.
	c.log = slices.DeleteFunc(c.log, func(le logEntry) bool { return !c.live(le) })
}
