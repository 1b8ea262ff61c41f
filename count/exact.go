package count

import (
	"context"
	"fmt"
	"math/big"
	"runtime/debug"
	"time"

	"github.com/lifted-dev/lifted/cnf"
)

// Options tunes Exact. The zero value gives the defaults.
type Options struct {
	// MaxCacheBytes bounds the memory of the component cache, measured in
	// bytes as an upper estimate of what its entries, their index and
	// their undo log occupy; when it is exceeded the least recently used
	// half is evicted. Zero means DefaultCacheBytes. Without LimitHeap the
	// process's resident memory can reach about twice the bound, because
	// the garbage collector lets the heap grow to twice its live size.
	MaxCacheBytes int64
	// LimitHeap sets the Go runtime's soft memory limit
	// (runtime/debug.SetMemoryLimit) to MaxCacheBytes + HeapSlack for the
	// duration of the run, unless a lower limit is already set, so that
	// the process's resident memory stays near the bound. The limit is
	// process-wide: for commands that run one count at a time.
	LimitHeap bool
	// Progress, if set, is called about every ProgressInterval with the
	// search statistics, from the counting goroutine.
	Progress func(Stats)
	// ProgressInterval is the least time between Progress calls; zero
	// means one second.
	ProgressInterval time.Duration
	// NoSATCheck skips the satisfiability check that precedes counting.
	NoSATCheck bool

	noProbe bool // disable failed-literal tests (for experiments)
	// learntWords, when positive, replaces the counting search's bound on
	// the pool words of its learned clauses (tests: 1 halves them at
	// almost every conflict).
	learntWords int
}

// DefaultCacheBytes is the default bound on the component cache.
const DefaultCacheBytes = 512 << 20

// HeapSlack is what LimitHeap allows beyond the cache bound: the formula,
// the learned clauses, the search's stacks and garbage not yet collected.
const HeapSlack = 64 << 20

func (o *Options) cacheBytes() int64 {
	if o.MaxCacheBytes > 0 {
		return o.MaxCacheBytes
	}
	return DefaultCacheBytes
}

func (o *Options) progressInterval() time.Duration {
	if o.ProgressInterval > 0 {
		return o.ProgressInterval
	}
	return time.Second
}

// Stats describes a counting run.
type Stats struct {
	Decisions int64 // branching decisions of the counting search
	Conflicts int64 // conflicts, in the satisfiability check and the search
	// FailedLiterals counts the literals found failed (their propagation
	// fails) by the tests at the root and after each decision; each is
	// also one of Conflicts. sharpSAT reports them apart from its
	// conflicts.
	FailedLiterals int64
	Propagations   int64 // literals propagated
	Learned        int   // learned clauses of three or more literals kept
	CacheEntries   int   // components in the cache
	CacheBytes     int64 // estimated cache memory
	CacheHits      int64 // components found in the cache
	CacheMisses    int64 // components looked up and not found
	CacheEvicted   int64 // entries evicted to respect MaxCacheBytes
	Elapsed        time.Duration
}

// Exact returns the number of models of c: the assignments to its
// variables 1..c.NumVars that satisfy every clause. Variables that occur in
// no clause double the count. An empty clause gives 0, a formula without
// clauses 2^NumVars.
//
// Cancelling ctx stops the search soon (ctx is checked every 16 decisions
// and every 64 conflicts) with an error wrapping ctx.Err().
func Exact(ctx context.Context, c *cnf.CNF) (*big.Int, error) {
	n, _, err := ExactWithOptions(ctx, c, Options{})
	return n, err
}

// ExactWithOptions is Exact with options; it also returns statistics of
// the run.
func ExactWithOptions(ctx context.Context, c *cnf.CNF, opts Options) (*big.Int, Stats, error) {
	if err := c.Validate(); err != nil {
		return nil, Stats{}, err
	}
	if err := ctx.Err(); err != nil {
		return nil, Stats{}, err
	}
	size := 0
	for _, cl := range c.Clauses {
		size += len(cl) + hdrSize
	}
	if size > maxPoolSize {
		return nil, Stats{}, fmt.Errorf("count: formula too large: %d clause words, at most %d", size, maxPoolSize)
	}
	if opts.LimitHeap {
		want := opts.cacheBytes() + HeapSlack
		if old := debug.SetMemoryLimit(-1); want < old {
			debug.SetMemoryLimit(want)
			defer debug.SetMemoryLimit(old)
		}
	}
	k, n, err := newCounter(ctx, c, opts).run()
	return n, k.stats(), err
}
