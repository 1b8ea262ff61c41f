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
	free    []int32 // unused entry slots
	log     []logEntry
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
}

// entryOverhead estimates the bytes an entry costs beyond its key and
// count words: map bucket share, entry struct, big.Int header, log entry.
const entryOverhead = 120

func newCompCache(limit int64) *compCache {
	return &compCache{index: map[string]int32{}, limit: limit}
}

func entryBytes(key string, c *big.Int) int64 {
	return int64(len(key)) + int64(len(c.Bits()))*8 + entryOverhead
}

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
	c.log = append(c.log, logEntry{slot, e.gen})
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

// mark returns the current log position, for rollback.
func (c *compCache) mark() int { return len(c.log) }

// rollback removes the entries inserted since mark m that are still cached.
func (c *compCache) rollback(m int) {
	for _, le := range c.log[m:] {
		if e := &c.entries[le.slot]; e.count != nil && e.gen == le.gen {
			c.remove(le.slot)
		}
	}
	c.log = c.log[:m]
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
}
