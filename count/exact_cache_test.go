package count

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestCompCacheModel runs random insertions, lookups, marks, rollbacks and
// log resets on the cache, with counts inline and beyond 64 bits, against a
// map: without a bound every cached key must give back its count; with a
// small bound (evictions) a key found must give back its count, and the
// estimate must stay within the bound. The clock starts near its overflow,
// so that its renumbering is exercised too.
// Keys span several arena and entry chunks.
func TestCompCacheModel(t *testing.T) {
	for _, limit := range []int64{math.MaxInt64, 2 << 20} {
		rng := rand.New(rand.NewPCG(1, uint64(limit)))
		c := newCompCache(limit)
		c.clock = math.MaxUint32 - 500
		model := map[string]*big.Int{}
		type mk struct {
			m    int64
			keys []string // keys first inserted since the mark
		}
		var marks []mk
		var evicted bool
		for op := 0; op < 60000; op++ {
			// Keys of 2 to 300 bytes and a few longer than an arena
			// chunk; more keys than an entry chunk holds.
			id := rng.IntN(10000)
			key := fmt.Sprintf("k%d", id) + strings.Repeat("x", id%300)
			if id%500 == 0 {
				key += strings.Repeat("y", 1<<arenaShift+id)
			}
			switch r := rng.IntN(20); {
			case r < 8:
				if _, ok := model[key]; ok {
					break
				}
				want := new(big.Int).SetUint64(rng.Uint64())
				if rng.IntN(3) == 0 {
					want.Lsh(want, uint(1+rng.IntN(200)))
				}
				model[key] = want
				c.put([]byte(key), numOf(want))
				if len(marks) > 0 {
					marks[len(marks)-1].keys = append(marks[len(marks)-1].keys, key)
				}
			case r < 17:
				got, ok := c.get([]byte(key))
				want, in := model[key]
				if ok && !in {
					t.Fatalf("limit %d: %q found, never inserted or rolled back", limit, key)
				}
				if limit == math.MaxInt64 && ok != in {
					t.Fatalf("limit %d: %q found %v, want %v", limit, key, ok, in)
				}
				if ok && got.toBig().Cmp(want) != 0 {
					t.Fatalf("limit %d: %q = %v, want %v", limit, key, got.toBig(), want)
				}
			case r < 18:
				marks = append(marks, mk{m: c.mark()})
			case r < 19 && len(marks) > 0:
				top := marks[len(marks)-1]
				marks = marks[:len(marks)-1]
				c.rollback(top.m)
				for _, k := range top.keys {
					delete(model, k)
				}
			case r == 19 && rng.IntN(10) == 0:
				c.forgetLog()
				marks = marks[:0]
			}
			evicted = evicted || c.evictions > 0
			if c.bytes > limit {
				t.Fatalf("limit %d: estimate %d", limit, c.bytes)
			}
		}
		if limit != math.MaxInt64 && !evicted {
			t.Errorf("limit %d: no evictions", limit)
		}
		if c.clock >= math.MaxUint32-500 {
			t.Errorf("clock %d never renumbered", c.clock)
		}
	}
}

// unpack decodes one sequence appendPacked wrote at the start of b and
// returns it with the rest of b.
func unpack(t *testing.T, b []byte) ([]int32, []byte) {
	n, k := binary.Uvarint(b)
	if k <= 0 {
		t.Fatalf("bad count in %v", b)
	}
	b = b[k:]
	if n == 0 {
		return []int32{}, b
	}
	first, k := binary.Uvarint(b)
	if k <= 0 {
		t.Fatalf("bad first id in %v", b)
	}
	b = b[k:]
	ids := []int32{int32(first)}
	if n == 1 {
		return ids, b
	}
	w := uint(b[0])
	b = b[1:]
	var acc uint64
	var have uint
	for len(ids) < int(n) {
		for have < w {
			acc |= uint64(b[0]) << have
			b = b[1:]
			have += 8
		}
		gap := int32(acc & (1<<w - 1))
		acc >>= w
		have -= w
		ids = append(ids, ids[len(ids)-1]+gap+1)
	}
	return ids, b
}

// TestAppendPacked decodes cache keys of two random increasing sequences
// (empty, single, consecutive, sparse, up to 31-bit gaps) and checks that
// they give back both sequences: the encoding is one to one.
func TestAppendPacked(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	seq := func() []int32 {
		ids := []int32{}
		x := int32(rng.IntN(1000))
		if rng.IntN(8) == 0 {
			x = int32(rng.Uint32() >> 2)
		}
		maxGap := []int32{1, 2, 5, 300, 1 << 20, 1 << 30}[rng.IntN(6)]
		for n := rng.IntN(40); n > 0 && x >= 0; n-- {
			ids = append(ids, x)
			x += 1 + rng.Int32N(maxGap)
		}
		return ids
	}
	for range 20000 {
		a, b := seq(), seq()
		key := appendPacked(appendPacked([]byte{7}, a), b)
		gotA, rest := unpack(t, key[1:])
		gotB, rest := unpack(t, rest)
		if !slices.Equal(gotA, a) || !slices.Equal(gotB, b) || len(rest) != 0 {
			t.Fatalf("%v %v: key %v decodes to %v %v, %d bytes left", a, b, key, gotA, gotB, len(rest))
		}
	}
}
