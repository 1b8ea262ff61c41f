//go:build linux

package count

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// memBound is the cache bound of TestExactMemoryBound: far below the
// default 512 MB, so that wff.3.100.150 fills the cache and evicts it
// several times (memEvictions entries, about 4 halvings) in a few seconds;
// memRun bounds the child's run on a slow machine (the instance takes far
// longer to count).
const (
	memBound     = 32 << 20
	memEvictions = 250000
	memRun       = 90 * time.Second
	// memSlack is the fixed allowance beyond the bound: HeapSlack (the
	// soft memory limit is bound + HeapSlack), which also covers the
	// runtime and the test binary's text (the run peaks near 56 MiB).
	memSlack = HeapSlack
	memEnv   = "LIFTED_COUNT_MEMORY_CHILD"
)

// TestExactMemoryBound counts wff.3.100.150 with a 32 MiB cache bound and
// LimitHeap in a child process until 250000 entries have been evicted, and
// checks that the child's peak
// resident memory (getrusage's maxrss) stays below the bound plus a fixed
// slack, and that the cache was full (evicted entries), so that the bound
// was tested. Before the cache measured its undo log and its index, the
// same run's resident memory grew without bound (4.09 GB on the whole
// instance with the default 512 MB bound).
func TestExactMemoryBound(t *testing.T) {
	if os.Getenv(memEnv) != "" {
		exactMemoryChild(t)
		return
	}
	if testing.Short() {
		t.Skip("runs the counter for 10-30 s; skipped with -short")
	}
	readShared(t, "wff.3.100.150.cnf") // skips when ../shared is absent
	cmd := exec.Command(os.Args[0], "-test.run=^TestExactMemoryBound$", "-test.v")
	cmd.Env = append(os.Environ(), memEnv+"=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		t.Skip("no rusage on this system")
	}
	peak := int64(ru.Maxrss) << 10 // kilobytes on Linux
	var entries, evicted, cacheBytes int64
	for _, line := range strings.Split(string(out), "\n") {
		if i := strings.Index(line, "memory-child:"); i >= 0 {
			if _, err := fmt.Sscanf(line[i:], "memory-child: %d entries %d evicted %d bytes", &entries, &evicted, &cacheBytes); err != nil {
				t.Fatalf("child's report %q: %v", line, err)
			}
		}
	}
	t.Logf("bound %d MiB: peak resident %d MiB, cache %d entries (%d MiB estimated), %d evicted",
		memBound>>20, peak>>20, entries, cacheBytes>>20, evicted)
	if evicted == 0 {
		t.Fatalf("the cache never reached its bound (%d entries); the test tests nothing\n%s", entries, out)
	}
	if cacheBytes > memBound {
		t.Errorf("cache estimate %d above the bound %d", cacheBytes, memBound)
	}
	if peak > memBound+memSlack {
		t.Errorf("peak resident memory %d MiB, above the bound %d MiB plus slack %d MiB", peak>>20, memBound>>20, memSlack>>20)
	}
}

func exactMemoryChild(t *testing.T) {
	c := readShared(t, "wff.3.100.150.cnf")
	ctx, cancel := context.WithTimeout(context.Background(), memRun)
	defer cancel()
	_, st, err := ExactWithOptions(ctx, c, Options{MaxCacheBytes: memBound, LimitHeap: true,
		ProgressInterval: 50 * time.Millisecond, Progress: func(s Stats) {
			if s.CacheEvicted >= memEvictions {
				cancel()
			}
		}})
	if err == nil || !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("counted wff.3.100.150 before the cache was evicted (%v); choose a longer instance", err)
	}
	fmt.Println("memory-child: " + strconv.FormatInt(int64(st.CacheEntries), 10) + " entries " +
		strconv.FormatInt(st.CacheEvicted, 10) + " evicted " + strconv.FormatInt(st.CacheBytes, 10) + " bytes")
}

// TestCacheLogBounded fills a small cache far beyond its bound inside one
// open branch (a mark that is never rolled back nor forgotten, as in a
// search below the root) and checks that the undo log never outgrows the
// cache (it used to keep one entry per insertion for the whole run: the
// unbounded growth of exact counting's resident memory), that the
// estimate stays within the bound, and that rollbacks after evictions
// still withdraw exactly the entries inserted since their mark.
func TestCacheLogBounded(t *testing.T) {
	const limit = 64 << 10
	c := newCompCache(limit)
	key := func(i int) []byte { return []byte(fmt.Sprintf("component-%08d", i)) }
	outer := c.mark()
	for i := range 20000 {
		c.put(key(i), numOf(big.NewInt(int64(i+1))))
		if len(c.log) > c.len() {
			t.Fatalf("after %d insertions: log %d entries, cache %d", i+1, len(c.log), c.len())
		}
		if c.bytes > limit {
			t.Fatalf("after %d insertions: %d bytes, bound %d", i+1, c.bytes, limit)
		}
	}
	if c.evictions == 0 {
		t.Fatal("no evictions: the test tests nothing")
	}
	// A nested branch whose insertions are evicted in part, then withdrawn.
	before := c.keySet()
	inner := c.mark()
	for i := 20000; i < 20000+len(before); i++ {
		c.put(key(i), numOf(big.NewInt(int64(i+1))))
	}
	survivors := 0
	for k := range before {
		if _, ok := c.get([]byte(k)); ok {
			survivors++
		}
	}
	c.rollback(inner)
	for k := range c.keySet() {
		if !before[k] {
			t.Fatalf("%s, inserted after the inner mark, survived its rollback", k)
		}
	}
	if c.len() != survivors {
		t.Errorf("%d entries after the rollback, want the %d older ones that were not evicted", c.len(), survivors)
	}
	for k := range c.keySet() {
		if _, ok := c.get([]byte(k)); !ok {
			t.Fatalf("%s is cached but not found", k)
		}
	}
	c.rollback(outer)
	if c.len() != 0 || len(c.log) != 0 || c.bytes != 0 {
		t.Errorf("after the outer rollback: %d entries, %d logged, %d bytes", c.len(), len(c.log), c.bytes)
	}
}

// TestCacheAgainstMap runs random insertions, lookups, marks and rollbacks
// on the cache and on a map: without evictions the two hold the same
// entries with the same counts (inline and big), and with a small bound
// every count found is the one inserted.
func TestCacheAgainstMap(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, limit := range []int64{1 << 40, 16 << 10} {
		c := newCompCache(limit)
		model := map[string]*big.Int{}
		type put struct {
			key string
			n   int64
		}
		var puts []put
		var marks []int64
		for step := range 40000 {
			key := fmt.Sprintf("k%d", r.IntN(3000))
			if r.IntN(3) == 0 {
				key += strings.Repeat("x", r.IntN(40))
			}
			switch op := r.IntN(20); {
			case op < 8:
				n := new(big.Int).SetUint64(r.Uint64())
				if r.IntN(2) == 0 {
					n.Lsh(n, uint(r.IntN(200)))
				}
				if _, ok := model[key]; !ok || limit < 1<<40 {
					if _, ok := c.get([]byte(key)); !ok {
						model[key] = n
						puts = append(puts, put{key, c.mark()})
					}
				}
				c.put([]byte(key), numOf(n))
			case op < 17:
				n, found := c.get([]byte(key))
				want, ok := model[key]
				if !found && ok && limit == 1<<40 {
					t.Fatalf("step %d: %s not found", step, key)
				}
				if got := n.toBig(); found && (!ok || got.Cmp(want) != 0) {
					t.Fatalf("step %d: %s = %v, want %v", step, key, got, want)
				}
			case op < 19:
				marks = append(marks, c.mark())
			default:
				if len(marks) == 0 {
					continue
				}
				m := marks[len(marks)-1]
				marks = marks[:len(marks)-1]
				c.rollback(m)
				for len(puts) > 0 && puts[len(puts)-1].n >= m {
					delete(model, puts[len(puts)-1].key)
					puts = puts[:len(puts)-1]
				}
			}
			if limit == 1<<40 && c.len() != len(model) {
				t.Fatalf("step %d: %d entries, model %d", step, c.len(), len(model))
			}
			if c.bytes > limit {
				t.Fatalf("step %d: %d bytes above the bound %d", step, c.bytes, limit)
			}
		}
		if limit < 1<<40 && c.evictions == 0 {
			t.Fatal("no evictions: the small bound tests nothing")
		}
	}
}
