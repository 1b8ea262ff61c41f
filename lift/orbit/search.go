package orbit

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"
)

// DefaultMaxNodes is the search-tree node budget when Options.MaxNodes is 0.
const DefaultMaxNodes = 2_000_000

// ErrBudget is wrapped by the error returned when the search visits more
// nodes than Options.MaxNodes allows.
var ErrBudget = errors.New("orbit: search-tree node budget exceeded")

// Options control the search.
type Options struct {
	// MaxNodes bounds the number of search-tree nodes (each one a partition
	// refinement); past it the search stops with an error wrapping ErrBudget
	// instead of running on. 0 means DefaultMaxNodes.
	MaxNodes int64
	// Engine is "" or "go" for the pure-Go search, "nauty" for nauty through
	// cgo (only in binaries built with -tags nauty; otherwise an error).
	Engine string
}

// Stats describe one search.
type Stats struct {
	Engine     string
	Nodes      int64 // search-tree nodes (refinements), the root included
	Leaves     int64 // discrete partitions tested as automorphisms
	Generators int
	Depth      int // length of the first path (individualised vertices)
	// GroupSize is the order of the group (the product over the first
	// path's levels of the orbit length of the level's vertex under the
	// stabiliser of the levels above), as a float64 (+Inf past its range).
	GroupSize float64
	Seconds   float64
}

// GraphResult is the outcome of Automorphisms.
type GraphResult struct {
	Orbit      []int32 // orbit id of each vertex, numbered 0.. by first occurrence
	NumOrbits  int
	Generators [][]int32 // each a permutation of the vertices (p[v] = image of v)
	Stats      Stats
}

// Automorphisms computes the orbits of the automorphism group of g, or of its
// subgroup that fixes each vertex of fixed, and a generating set of that
// group. The pure-Go engine is individualisation–refinement: equitable
// refinement of the coloured partition, a first path to a discrete leaf, and
// for each level from the deepest up a search, under every vertex of the
// level's target cell that is not yet known to be in the orbit of the first
// path's vertex, for a leaf that the first leaf maps to by an automorphism;
// nodes whose refinement trace differs from the first path's are pruned. The
// generators found at levels ≥ k generate the stabiliser of the first k path
// vertices (Schreier–Sims), so the orbits by union-find over all of them are
// exactly the group's orbits.
func Automorphisms(ctx context.Context, g *Graph, fixed []int32, opt Options) (*GraphResult, error) {
	switch opt.Engine {
	case "", "go":
	case "nauty":
		return nautyAutomorphisms(ctx, g, fixed, opt)
	default:
		return nil, fmt.Errorf("orbit: unknown engine %q (want go or nauty)", opt.Engine)
	}
	start := time.Now()
	n := g.N()
	if len(g.Start) != n+1 {
		return nil, errors.New("orbit: graph Start has the wrong length")
	}
	rank, err := fixedRank(n, fixed)
	if err != nil {
		return nil, err
	}
	s := newSearcher(ctx, g, opt)
	s.initial(rank)
	if err := s.run(); err != nil {
		return nil, err
	}
	res := &GraphResult{Generators: s.gens}
	res.Orbit, res.NumOrbits = s.orbits()
	res.Stats = Stats{Engine: "go", Nodes: s.nodes, Leaves: s.leaves, Generators: len(s.gens),
		Depth: len(s.path), GroupSize: s.group, Seconds: time.Since(start).Seconds()}
	return res, nil
}

// fixedRank gives fixed vertex i rank i+1 and every other vertex 0.
func fixedRank(n int, fixed []int32) ([]int32, error) {
	rank := make([]int32, n)
	for i, v := range fixed {
		if v < 0 || int(v) >= n {
			return nil, fmt.Errorf("orbit: fixed vertex %d out of range (%d vertices)", v, n)
		}
		if rank[v] != 0 {
			return nil, fmt.Errorf("orbit: vertex %d fixed twice", v)
		}
		rank[v] = int32(i + 1)
	}
	return rank, nil
}

const noBound = math.MaxInt32

// searcher holds an ordered partition (nauty's lab/ptn representation: the
// boundary after position i was made at level ptn[i], so the partition of
// any ancestor is restored by dropping younger boundaries) and the search
// state.
type searcher struct {
	ctx      context.Context
	g        *Graph
	n        int
	maxNodes int64

	lab, pos, cellOf, cellLen, ptn []int32
	numCells                       int

	cnt     []int32
	touched []int32
	queue   []int32
	inQ     []bool

	record bool     // append events to trace (first path)
	trace  []uint64 // events being recorded
	cmp    []uint64 // reference events when comparing
	cmpAt  int

	ref      [][]uint64 // trace of each first-path level (0: root)
	path     []int32    // first-path vertex individualised at each level
	targets  [][]int32  // first-path target cell at each level
	firstLab []int32
	firstPtn []int32   // ptn at the first leaf: the first path's partition at every level
	buf      [][]int32 // per-level candidate buffers in dive

	uf      []int32
	size    []int32
	group   float64
	gens    [][]int32
	gamma   []int32
	support []int32
	mark    []int32
	nodes   int64
	leaves  int64
	err     error
}

func newSearcher(ctx context.Context, g *Graph, opt Options) *searcher {
	n := g.N()
	s := &searcher{ctx: ctx, g: g, n: n, maxNodes: opt.MaxNodes}
	if s.maxNodes <= 0 {
		s.maxNodes = DefaultMaxNodes
	}
	s.lab = make([]int32, n)
	s.pos = make([]int32, n)
	s.cellOf = make([]int32, n)
	s.cellLen = make([]int32, n)
	s.ptn = make([]int32, n)
	s.cnt = make([]int32, n)
	s.inQ = make([]bool, n)
	s.uf = make([]int32, n)
	s.size = make([]int32, n)
	s.gamma = make([]int32, n)
	s.mark = make([]int32, n)
	for i := range n {
		s.uf[i] = int32(i)
		s.size[i] = 1
		s.mark[i] = -1
	}
	return s
}

// initial sets the partition to the cells of equal (colour, fixed rank),
// ordered by colour then rank, all in the refinement queue.
func (s *searcher) initial(rank []int32) {
	for i := range s.lab {
		s.lab[i] = int32(i)
	}
	col := s.g.Colour
	slices.SortFunc(s.lab, func(a, b int32) int {
		if c := cmp.Compare(col[a], col[b]); c != 0 {
			return c
		}
		return cmp.Compare(rank[a], rank[b])
	})
	for i, v := range s.lab {
		s.pos[v] = int32(i)
		s.ptn[i] = noBound
		if i+1 == s.n || col[s.lab[i+1]] != col[v] || rank[s.lab[i+1]] != rank[v] {
			s.ptn[i] = 0
		}
	}
	s.rebuild()
	for c := 0; c < s.n; c += int(s.cellLen[c]) {
		s.queue = append(s.queue, int32(c))
		s.inQ[c] = true
	}
}

// rebuild recomputes cellOf, cellLen and numCells from ptn.
func (s *searcher) rebuild() {
	start := 0
	s.numCells = 0
	for i := 0; i < s.n; i++ {
		s.cellOf[s.lab[i]] = int32(start)
		if s.ptn[i] != noBound {
			s.cellLen[start] = int32(i - start + 1)
			start = i + 1
			s.numCells++
		}
	}
}

// restore returns the partition to the one at level k.
func (s *searcher) restore(k int32) {
	for i, l := range s.ptn {
		if l != noBound && l > k {
			s.ptn[i] = noBound
		}
	}
	s.rebuild()
}

func (s *searcher) swap(i, j int32) {
	a, b := s.lab[i], s.lab[j]
	s.lab[i], s.lab[j] = b, a
	s.pos[a], s.pos[b] = j, i
}

// individualise splits v off its cell (v first) at level lev and queues {v}.
func (s *searcher) individualise(v int32, lev int32) {
	c := s.cellOf[v]
	l := s.cellLen[c]
	s.swap(s.pos[v], c)
	s.ptn[c] = lev
	s.cellLen[c] = 1
	s.cellLen[c+1] = l - 1
	for i := c + 1; i < c+l; i++ {
		s.cellOf[s.lab[i]] = c + 1
	}
	s.numCells++
	s.queue = append(s.queue[:0], c)
	s.inQ[c] = true
}

func mix(h, x uint64) uint64 {
	h ^= x + 0x9e3779b97f4a7c15 + (h << 6) + (h >> 2)
	h *= 0xff51afd7ed558ccd
	return h ^ (h >> 33)
}

// event records or compares one trace event; false means a mismatch.
func (s *searcher) event(ev uint64) bool {
	if s.record {
		s.trace = append(s.trace, ev)
		return true
	}
	if s.cmpAt >= len(s.cmp) || s.cmp[s.cmpAt] != ev {
		return false
	}
	s.cmpAt++
	return true
}

type frag struct{ start, len, count int32 }

// refine makes the partition equitable, splitting with the queued cells at
// level lev. It returns false as soon as the trace departs from s.cmp (when
// comparing); the partition is then left half refined for restore.
func (s *searcher) refine(lev int32) bool {
	var frags []frag
	ok := true
	qh := 0
	for ; qh < len(s.queue) && ok; qh++ {
		sp := s.queue[qh]
		s.inQ[sp] = false
		if s.numCells == s.n {
			continue
		}
		sl := s.cellLen[sp]
		s.touched = s.touched[:0]
		for i := sp; i < sp+sl; i++ {
			for _, w := range s.g.Neighbours(s.lab[i]) {
				if s.cnt[w] == 0 {
					s.touched = append(s.touched, w)
				}
				s.cnt[w]++
			}
		}
		t := s.touched
		slices.SortFunc(t, func(a, b int32) int {
			if c := cmp.Compare(s.cellOf[a], s.cellOf[b]); c != 0 {
				return c
			}
			return cmp.Compare(s.cnt[a], s.cnt[b])
		})
		for a := 0; a < len(t) && ok; {
			c := s.cellOf[t[a]]
			b := a + 1
			for b < len(t) && s.cellOf[t[b]] == c {
				b++
			}
			grp := t[a:b]
			a = b
			l := s.cellLen[c]
			if l == 1 || (int32(len(grp)) == l && s.cnt[grp[0]] == s.cnt[grp[len(grp)-1]]) {
				continue
			}
			base := c + l - int32(len(grp))
			for i, w := range grp {
				s.swap(s.pos[w], base+int32(i))
			}
			frags = frags[:0]
			if base > c {
				frags = append(frags, frag{c, base - c, 0})
			}
			for i := 0; i < len(grp); {
				j := i + 1
				for j < len(grp) && s.cnt[grp[j]] == s.cnt[grp[i]] {
					j++
				}
				frags = append(frags, frag{base + int32(i), int32(j - i), s.cnt[grp[i]]})
				i = j
			}
			ev := mix(mix(uint64(sp), uint64(c)), uint64(len(frags)))
			big := 0
			for i, f := range frags {
				ev = mix(ev, uint64(f.count)<<32|uint64(f.len))
				if f.len > frags[big].len {
					big = i
				}
				s.cellLen[f.start] = f.len
				if i > 0 {
					for p := f.start; p < f.start+f.len; p++ {
						s.cellOf[s.lab[p]] = f.start
					}
				}
				if i < len(frags)-1 {
					s.ptn[f.start+f.len-1] = lev
				}
			}
			s.numCells += len(frags) - 1
			wasQ := s.inQ[c]
			for i, f := range frags {
				if (wasQ && i > 0) || (!wasQ && i != big) {
					s.queue = append(s.queue, f.start)
					s.inQ[f.start] = true
				}
			}
			ok = s.event(ev)
		}
		for _, w := range s.touched {
			s.cnt[w] = 0
		}
	}
	for ; qh < len(s.queue); qh++ {
		s.inQ[s.queue[qh]] = false
	}
	s.queue = s.queue[:0]
	if !ok {
		return false
	}
	return s.event(mix(0xabcdef, uint64(s.numCells)))
}

// target returns the start of the first smallest non-singleton cell.
func (s *searcher) target() int32 {
	best, bl := int32(-1), int32(math.MaxInt32)
	for c := int32(0); int(c) < s.n; c += s.cellLen[c] {
		if l := s.cellLen[c]; l > 1 && l < bl {
			best, bl = c, l
			if l == 2 {
				break
			}
		}
	}
	return best
}

func (s *searcher) find(x int32) int32 {
	for s.uf[x] != x {
		s.uf[x] = s.uf[s.uf[x]]
		x = s.uf[x]
	}
	return x
}

func (s *searcher) union(a, b int32) {
	ra, rb := s.find(a), s.find(b)
	if ra == rb {
		return
	}
	if ra > rb {
		ra, rb = rb, ra
	}
	s.uf[rb] = ra
	s.size[ra] += s.size[rb]
}

// node counts a node and checks the budget and the context.
func (s *searcher) node() bool {
	s.nodes++
	if s.nodes > s.maxNodes {
		s.err = fmt.Errorf("%w: more than %d nodes on a graph of %d vertices (%d generators found so far); raise Options.MaxNodes or use the nauty engine", ErrBudget, s.maxNodes, s.n, len(s.gens))
		return false
	}
	if s.nodes&63 == 0 {
		if err := s.ctx.Err(); err != nil {
			s.err = fmt.Errorf("orbit: %w", err)
			return false
		}
	}
	return true
}

func (s *searcher) run() error {
	if err := s.ctx.Err(); err != nil {
		return fmt.Errorf("orbit: %w", err)
	}
	s.nodes = 1
	s.group = 1
	s.record = true
	s.trace = nil
	s.refine(0)
	s.ref = append(s.ref, s.trace)
	for s.numCells < s.n {
		if !s.node() {
			return s.err
		}
		c := s.target()
		cell := slices.Clone(s.lab[c : c+s.cellLen[c]])
		v := cell[0]
		s.targets = append(s.targets, cell)
		s.path = append(s.path, v)
		s.individualise(v, int32(len(s.path)))
		s.trace = nil
		s.refine(int32(len(s.path)))
		s.ref = append(s.ref, s.trace)
	}
	s.record = false
	s.firstLab = slices.Clone(s.lab)
	s.firstPtn = slices.Clone(s.ptn)
	depth := len(s.path)
	s.buf = make([][]int32, depth+1)
	s.group = 1
	for k := depth - 1; k >= 0; k-- {
		v := s.path[k]
		var failed []int32
		for _, w := range s.targets[k] {
			if s.find(w) == s.find(v) {
				continue
			}
			if slices.ContainsFunc(failed, func(f int32) bool { return s.find(f) == s.find(w) }) {
				continue
			}
			if !s.node() {
				return s.err
			}
			s.restore(int32(k))
			s.individualise(w, int32(k+1))
			s.cmp, s.cmpAt = s.ref[k+1], 0
			found := s.refine(int32(k+1)) && s.dive(k+1)
			if s.err != nil {
				return s.err
			}
			if !found {
				failed = append(failed, w)
			}
		}
		s.group *= float64(s.size[s.find(v)])
	}
	return nil
}

// dive searches the subtree of the current node, at level j and equivalent
// so far to the first path, for a leaf that is the image of the first leaf
// under an automorphism; it records the automorphism and reports success.
func (s *searcher) dive(j int) bool {
	if s.numCells == s.n {
		s.leaves++
		s.support = s.support[:0]
		for i, v := range s.firstLab {
			s.gamma[v] = s.lab[i]
			if v != s.lab[i] {
				s.support = append(s.support, v)
			}
		}
		if !s.g.checkSupport(s.gamma, s.support, s.mark) {
			return false
		}
		p := slices.Clone(s.gamma)
		s.gens = append(s.gens, p)
		for v, w := range p {
			s.union(int32(v), w)
		}
		return true
	}
	if s.tryIdentity(int32(j)) {
		return true
	}
	c := s.target()
	s.buf[j] = append(s.buf[j][:0], s.lab[c:c+s.cellLen[c]]...)
	for i := 0; i < len(s.buf[j]); i++ {
		x := s.buf[j][i]
		if !s.node() {
			return false
		}
		if i > 0 {
			s.restore(int32(j))
		}
		s.individualise(x, int32(j+1))
		s.cmp, s.cmpAt = s.ref[j+1], 0
		if s.refine(int32(j+1)) && s.dive(j+1) {
			return true
		}
		if s.err != nil {
			return false
		}
	}
	return false
}

// tryIdentity is a shortcut for the common case of a generator that moves
// few vertices: where the current node's partition (level j, same trace as
// the first path's) has each non-singleton cell equal as a set to the first
// path's cell at the same positions, the permutation that maps the first
// path's singletons to the current ones and fixes every other vertex is
// tested as an automorphism. If it is one, it maps the first path's node at
// level j to this node, which is all the search needs from this subtree.
func (s *searcher) tryIdentity(j int32) bool {
	for c := int32(0); int(c) < s.n; c += s.cellLen[c] {
		l := s.cellLen[c]
		if l == 1 {
			continue
		}
		// The first path's cell at level j starting at c.
		e := c
		for s.firstPtn[e] > j {
			e++
		}
		if e != c+l-1 {
			return false
		}
		for i := c; i < c+l; i++ {
			s.mark[s.firstLab[i]] = c
		}
		ok := true
		for i := c; i < c+l; i++ {
			if s.mark[s.lab[i]] != c {
				ok = false
			}
		}
		for i := c; i < c+l; i++ {
			s.mark[s.firstLab[i]] = -1
		}
		if !ok {
			return false
		}
	}
	for c := int32(0); int(c) < s.n; c += s.cellLen[c] {
		l := s.cellLen[c]
		for i := c; i < c+l; i++ {
			if l == 1 {
				s.gamma[s.firstLab[i]] = s.lab[i]
			} else {
				s.gamma[s.lab[i]] = s.lab[i]
			}
		}
	}
	s.leaves++
	s.support = s.support[:0]
	for c := int32(0); int(c) < s.n; c += s.cellLen[c] {
		if s.cellLen[c] == 1 && s.firstLab[c] != s.lab[c] {
			s.support = append(s.support, s.firstLab[c])
		}
	}
	if !s.g.checkSupport(s.gamma, s.support, s.mark) {
		return false
	}
	p := slices.Clone(s.gamma)
	s.gens = append(s.gens, p)
	for v, w := range p {
		s.union(int32(v), w)
	}
	return true
}

// orbits numbers the union-find classes by first occurrence.
func (s *searcher) orbits() ([]int32, int) {
	return numberClasses(s.n, s.find)
}

func numberClasses(n int, find func(int32) int32) ([]int32, int) {
	id := make(map[int32]int32)
	out := make([]int32, n)
	for v := range int32(n) {
		r := find(v)
		o, ok := id[r]
		if !ok {
			o = int32(len(id))
			id[r] = o
		}
		out[v] = o
	}
	return out, len(id)
}
