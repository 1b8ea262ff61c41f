package lift

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"time"

	"github.com/lifted-dev/lifted/fg"
)

// Mode selects how colour passing tells the positions of a factor apart.
type Mode int

const (
	// Positional distinguishes every position of every factor (the paper's
	// default; always correct), taking positions in the canonical order of
	// the factor's table and comparing the positions that the table cannot
	// tell apart as a sorted list.
	Positional Mode = iota
	// Symmetric ignores positions in factors whose table is declared
	// symmetric (Options.Symmetric); other factors stay positional.
	Symmetric
	// CNF treats factors whose table is a clause (binary variables, one zero
	// entry, all other entries 1) as clauses: only a literal's sign and its
	// variable's colour matter, and clauses with the same sign pattern share
	// their initial colour. Other factors stay positional.
	CNF
)

// String returns the mode's name.
func (m Mode) String() string {
	switch m {
	case Positional:
		return "positional"
	case Symmetric:
		return "symmetric"
	case CNF:
		return "cnf"
	}
	return fmt.Sprintf("Mode(%d)", int(m))
}

// Options configure colour passing.
type Options struct {
	Mode Mode
	// Symmetric[t] declares table t invariant under any permutation of its
	// positions (used in Symmetric mode; nil means none).
	Symmetric []bool
	// MaxIter bounds the refinement rounds; 0 means until stable.
	MaxIter int
	// CountTolerance ε > 0 makes colour passing approximate: variables
	// that meet the same factor colours with counts within a factor 1+ε
	// of each other are not told apart (see approx.go); the counted
	// graph then carries rounded mean counts and is marked Approximate.
	// 0 is exact colour passing.
	CountTolerance float64
	// Progress, if set, is called after every round with the numbers of
	// variable and factor colours.
	Progress func(round, varColors, factorColors int)
}

// Stats describe one compression.
type Stats struct {
	Iterations int
	Seconds    float64
}

// Colouring is a stable partition of a graph's variables and factors, plus the
// slot key of every ground edge. Refiners produce it; Compress turns it into a
// counted graph.
type Colouring struct {
	VarColor    []int32 // dense, numbered by first appearance
	NumVarColor int
	FactorColor []int32 // dense, numbered by first appearance
	NumFacColor int
	EdgeKey     []int32 // per ground edge: canonical position, 0, or literal sign
	Iterations  int
	// Approximate: the variables were refined with a count tolerance
	// (Options.CountTolerance), so the colouring is stable only up to
	// the counts.
	Approximate bool
}

// Refiner computes the coarsest stable colouring of a graph. ColourPassing is
// the paper's algorithm; faster refinements can implement the same interface.
type Refiner interface {
	Refine(ctx context.Context, g *fg.Graph, ev fg.Evidence, opt Options) (*Colouring, error)
}

// Compress runs colour passing on g with evidence ev and returns the counted
// graph.
func Compress(ctx context.Context, g *fg.Graph, ev fg.Evidence, opt Options) (*Compressed, Stats, error) {
	return CompressWith(ctx, ColourPassing{}, g, ev, opt)
}

// CompressWith is Compress with a chosen refiner.
func CompressWith(ctx context.Context, r Refiner, g *fg.Graph, ev fg.Evidence, opt Options) (*Compressed, Stats, error) {
	start := time.Now()
	if err := g.CheckEvidence(ev); err != nil {
		return nil, Stats{}, err
	}
	col, err := r.Refine(ctx, g, ev, opt)
	if err != nil {
		return nil, Stats{}, err
	}
	c, err := build(ctx, g, ev, col.VarColor, col.NumVarColor, col.FactorColor, col.NumFacColor, col.EdgeKey, col.Approximate)
	if err != nil {
		return nil, Stats{}, err
	}
	return c, Stats{Iterations: col.Iterations, Seconds: time.Since(start).Seconds()}, nil
}

// ColourPassing is Algorithm 1 (CFG) of the paper: variables start coloured by
// cardinality and evidence, factors by canonical table (see canonicalOrder
// and swapBlocks); then, until the colours stop
// changing, every factor takes a new colour from its own colour and the
// colours of its variables (by slot key), and every variable a new colour
// from its own colour and the sorted multiset of (factor colour, slot key)
// over its factors.
//
// It computes the same partition as the paper's algorithm, round by round,
// but incrementally: colour classes keep their ids across rounds, and only
// the nodes next to a node that changed class are given new signatures.
// Within a class, members that were not re-signed keep the class id (their
// signatures cannot have changed); re-signed members are grouped by
// signature, and every group gets a fresh id unless it is the whole class.
// A node that changed class has a fresh id that no unchanged signature can
// contain, so grouping stays exact. A round costs time proportional to the
// edges at the changed nodes, not to the whole graph: colour passing on a
// grid with one observed corner touches only the advancing frontier. The
// first round signs every variable but only the factors next to a
// variable outside the commonest initial colour: the other factors of a
// class have equal signatures (see firstFactorSources).
// Signatures are integer sequences grouped through an open-addressing table
// keyed by their 64-bit hash and verified against the stored signature, so
// grouping is exact; nodes alone in their class are never re-signed.
type ColourPassing struct{}

// ErrCancelled wraps a context cancellation during colour passing.
var ErrCancelled = errors.New("colour passing cancelled") // errors.Is also finds the context error

// refiner holds the state of one incremental refinement of one node kind
// (variables or factors).
type refiner struct {
	colour    []int32 // class id per node
	classSize []int32 // members per class id
	stamp     []int32 // per node: step in which it was last marked dirty (made by mark)
	dirty     []int32 // nodes to re-sign in this step
	changed   []int32 // nodes whose class id changed in the last step

	// The map: the signatures of the dirty nodes, signed in chunks of
	// chunk consecutive dirty nodes, chunk c into arenas[c] (on its own
	// goroutine when there are several): dirty node k's signature ends at
	// sigEnd[k] in its chunk's arena and hashes to hash[k].
	workers  int
	minChunk int
	words    int // expected words per signature
	chunk    int
	arenas   [][]uint64
	sigEnd   []int
	hash     []uint64

	// The reduce: signature groups of this step in an open-addressing
	// table of group ids keyed by the signature's 64-bit hash, each group
	// verified against the signature of its first member (the dirty node
	// grpFirst[g]), so grouping is exact.
	table    []int32 // group+1 per slot, 0 empty
	grpFirst []int32
	group    []int32 // per dirty node (parallel to dirty): signature group
	grpClass []int32
	grpSize  []int32
	grpID    []int32
	dirtyIn  []int32 // per class: dirty members this step
	keeper   []int32 // per class: the group that keeps the class id, or -1
	touched  []int32 // classes with dirtyIn > 0
	signed   int     // nodes re-signed so far

	// The nodes claimed in this step (claim, claimShared), as a bitset,
	// and the state of parallel steps (parStep).
	inStep []uint64
	par    *parState
	pool   *pool
	// own[i]…own[i+1]-1 are node i's edges (its degree), when known:
	// parallel steps cut their work by it.
	own []int64
}

// signFunc appends the signature of node i (own class first) to buf. It
// only reads the colours, so chunks of nodes may be signed at once.
type signFunc func(i int32, buf []uint64) []uint64

func newRefiner(colour []int32, n int) *refiner {
	// Class ids stay below the number of nodes: the per-class arrays are
	// allocated once at that capacity (reduce appends to classSize).
	// The work lists grow with the steps that run on this goroutine (on
	// large graphs with several workers, only the small ones do).
	r := &refiner{colour: colour, classSize: make([]int32, n, max(n, len(colour))),
		workers: 1, minChunk: DefaultMinChunk, words: 4}
	for _, c := range colour {
		r.classSize[c]++
	}
	return r
}

// recount restarts the class sizes after the colours were replaced by ids
// below n (work lists and stamps are kept).
func (r *refiner) recount(n int) {
	r.classSize = make([]int32, n)
	for _, c := range r.colour {
		r.classSize[c]++
	}
	r.changed = r.changed[:0]
}

func (r *refiner) numClasses() int { return len(r.classSize) }

// mark adds node i to this step's dirty list once. A node alone in its
// class is never marked: no signature can split a singleton.
func (r *refiner) mark(i int32, step int32) {
	if r.stamp == nil {
		r.stamp = make([]int32, len(r.colour))
		for i := range r.stamp {
			r.stamp[i] = -1
		}
	}
	if r.stamp[i] != step && r.classSize[r.colour[i]] > 1 {
		r.stamp[i] = step
		r.dirty = append(r.dirty, i)
	}
}

// mix64 is the finaliser of SplitMix64.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// hashSig hashes a signature (order matters).
func hashSig(s []uint64) uint64 {
	h := uint64(len(s))
	for _, x := range s {
		h = (h ^ x) * 0x9E3779B97F4A7C15
		h ^= h >> 32
	}
	return mix64(h)
}

// DefaultMinChunk sets lift.Parallel's smallest parallel step (2·1024
// sources) and the fewest dirty nodes a goroutine of a map signs: smaller
// steps (small graphs, the late rounds of colour passing) run on the
// calling goroutine, where more goroutines would cost more than they save
// (measured in experiments/mapreduce and experiments/colourpassing).
const DefaultMinChunk = 1024

// sign is the map step: it signs the dirty nodes in chunks of at least
// r.minChunk consecutive nodes, up to 4 per worker, that the calling
// goroutine and up to r.workers-1 helpers claim one by one. The caller
// waits only for chunks a helper claimed and has not finished, never for a
// helper to start: on a loaded machine a helper that is not run soon costs
// nothing but its start, and it finds every chunk claimed when it runs.
func (r *refiner) sign(sign signFunc) {
	n := len(r.dirty)
	r.sigEnd = slices.Grow(r.sigEnd[:0], n)[:n]
	r.hash = slices.Grow(r.hash[:0], n)[:n]
	chunks := 1
	if r.workers > 1 {
		chunks = max(1, min(4*r.workers, n/max(1, r.minChunk)))
	}
	r.chunk = max(1, (n+chunks-1)/chunks)
	chunks = max(1, (n+r.chunk-1)/r.chunk)
	if len(r.arenas) < chunks {
		r.arenas = append(r.arenas, make([][]uint64, chunks-len(r.arenas))...)
	}
	if chunks == 1 {
		r.signChunk(sign, 0, 0, n)
		return
	}
	// The state of this step's claims, fresh per step, so that a helper
	// that starts late sees only this step's exhausted counter.
	st := &signStep{finished: make(chan struct{})}
	work := func() {
		for c := int(st.next.Add(1) - 1); c < chunks; c = int(st.next.Add(1) - 1) {
			r.signChunk(sign, c, c*r.chunk, min(n, (c+1)*r.chunk))
			if int(st.done.Add(1)) == chunks {
				close(st.finished)
			}
		}
	}
	for range min(r.workers, chunks) - 1 {
		go work()
	}
	work()
	<-st.finished
}

// signStep counts the claimed and the finished chunks of one map step.
type signStep struct {
	next, done atomic.Int32
	finished   chan struct{}
}

// signChunk signs dirty nodes lo…hi-1 into arena c.
func (r *refiner) signChunk(sign signFunc, c, lo, hi int) {
	a := slices.Grow(r.arenas[c][:0], (hi-lo)*r.words)
	for k := lo; k < hi; k++ {
		start := len(a)
		a = sign(r.dirty[k], a)
		r.hash[k] = hashSig(a[start:])
		r.sigEnd[k] = len(a)
	}
	r.arenas[c] = a
}

// sig is the signature of dirty node k.
func (r *refiner) sig(k int32) []uint64 {
	c := int(k) / r.chunk
	lo := 0
	if int(k) > c*r.chunk {
		lo = r.sigEnd[k-1]
	}
	return r.arenas[c][lo:r.sigEnd[k]]
}

// lookup returns the group of dirty node k's signature, adding a group if
// it is new.
func (r *refiner) lookup(k int32, class int32) int32 {
	h := r.hash[k]
	mask := uint64(len(r.table) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		g := r.table[i] - 1
		if g < 0 {
			g = int32(len(r.grpSize))
			r.table[i] = g + 1
			r.grpFirst = append(r.grpFirst, k)
			r.grpSize = append(r.grpSize, 0)
			r.grpClass = append(r.grpClass, class)
			return g
		}
		if f := r.grpFirst[g]; r.hash[f] == h && slices.Equal(r.sig(f), r.sig(k)) {
			return g
		}
	}
}

// resign signs the dirty nodes (the map), groups them by signature in
// dirty order and gives new class ids (the reduce); it fills r.changed.
func (r *refiner) resign(sign signFunc) {
	r.sign(sign)
	r.reduce()
}

// reduce groups the signed dirty nodes by signature in
// dirty order, gives new class ids and fills r.changed.
func (r *refiner) reduce() {
	nc := r.numClasses()
	if cap(r.dirtyIn) < nc {
		r.dirtyIn = make([]int32, nc, max(nc, len(r.colour)))
		r.keeper = make([]int32, nc, max(nc, len(r.colour)))
	}
	r.dirtyIn, r.keeper = r.dirtyIn[:nc], r.keeper[:nc]
	size := 16
	for size < 2*len(r.dirty) {
		size *= 2
	}
	if cap(r.table) < size {
		r.table = make([]int32, size)
	} else {
		r.table = r.table[:size]
		clear(r.table)
	}
	r.grpFirst = r.grpFirst[:0]
	r.group, r.grpClass, r.grpSize = slices.Grow(r.group[:0], len(r.dirty)), r.grpClass[:0], r.grpSize[:0]
	r.touched = r.touched[:0]
	for k, i := range r.dirty {
		c := r.colour[i]
		g := r.lookup(int32(k), c)
		r.grpSize[g]++
		r.group = append(r.group, g)
		if r.dirtyIn[c] == 0 {
			r.touched = append(r.touched, c)
			r.keeper[c] = -1
		}
		r.dirtyIn[c]++
	}
	// The class keeps its id for its unchanged members or, when every
	// member was re-signed, for its largest group (the first on ties).
	for g, c := range r.grpClass {
		if r.dirtyIn[c] < r.classSize[c] {
			continue
		}
		if k := r.keeper[c]; k < 0 || r.grpSize[g] > r.grpSize[k] {
			r.keeper[c] = int32(g)
		}
	}
	r.grpID = r.grpID[:0]
	for g, c := range r.grpClass {
		if r.dirtyIn[c] == r.classSize[c] && r.keeper[c] == int32(g) {
			r.grpID = append(r.grpID, c)
			continue
		}
		r.grpID = append(r.grpID, int32(len(r.classSize)))
		r.classSize = append(r.classSize, 0)
	}
	r.changed = r.changed[:0]
	for k, i := range r.dirty {
		id := r.grpID[r.group[k]]
		if id != r.colour[i] {
			r.classSize[r.colour[i]]--
			r.classSize[id]++
			r.colour[i] = id
			r.changed = append(r.changed, i)
		}
	}
	for _, c := range r.touched {
		r.dirtyIn[c] = 0
	}
	if len(r.inStep) > 0 {
		for _, i := range r.dirty {
			r.inStep[i>>6] &^= 1 << (i & 63)
		}
	}
	r.signed += len(r.dirty)
	r.dirty = r.dirty[:0]
}

// Refine implements Refiner.
func (ColourPassing) Refine(ctx context.Context, g *fg.Graph, ev fg.Evidence, opt Options) (*Colouring, error) {
	return refine(ctx, g, ev, opt, 1, DefaultMinChunk, false)
}

// refine runs colour passing from scratch with the map step on up to
// workers goroutines, each signing at least minChunk nodes.
//
// With parSteps set and workers > 1, steps with at least 2·minChunk
// sources run on all workers (parStep); otherwise only the signing of a
// step's dirty nodes does.
func refine(ctx context.Context, g *fg.Graph, ev fg.Evidence, opt Options, workers, minChunk int, parSteps bool) (*Colouring, error) {
	p := newPassing(g, ev, opt, workers)
	p.vr.workers, p.fr.workers = workers, workers
	p.vr.minChunk, p.fr.minChunk = minChunk, minChunk
	if workers > 1 && parSteps {
		// The helpers of parallel steps start with the first such step.
		pl := &pool{w: workers}
		defer pl.close()
		p.vr.pool, p.fr.pool = pl, pl
	}
	rounds, err := p.run(ctx, true)
	if err != nil {
		return nil, err
	}
	if p.bucket != nil && len(p.vr.changed) > 0 {
		// Approximate colour passing stopped by MaxIter: the factors
		// follow the last variable step, so that every factor of a
		// clusterfactor sees the same clusternodes.
		p.fr.stepFrom(false, g.NumFactors(), p.vr.changed, p.adj.vStart, p.adj.vAdj, true, p.signFactor)
	}
	// The two renumberings are independent: on large graphs with several
	// workers, at once.
	var nvc, nfc int
	if workers > 1 && len(p.vc) >= 1<<16 {
		done := make(chan struct{})
		go func() {
			nvc = renumber(p.vc, p.vr.numClasses())
			close(done)
		}()
		nfc = renumber(p.fc, p.fr.numClasses())
		<-done
	} else {
		nvc = renumber(p.vc, p.vr.numClasses())
		nfc = renumber(p.fc, p.fr.numClasses())
	}
	return &Colouring{VarColor: p.vc, NumVarColor: nvc, FactorColor: p.fc, NumFacColor: nfc, EdgeKey: p.keys, Iterations: rounds,
		Approximate: opt.CountTolerance > 0}, nil
}

// passing is the state of colour passing on one graph: slot keys, the
// graph as one part (its variables' edges in sequence), and the refiners of
// variables and factors.
type passing struct {
	g      *fg.Graph
	opt    Options
	keys   []int32
	sorted []bool
	initF  []uint64
	adj    *adjacency
	vc, fc []int32
	vr, fr *refiner
	step   int32 // stamps for marking; grows across runs
	// bucket, when set, is the count bucket of approximate colour
	// passing (Options.CountTolerance).
	bucket func(int64) uint64
}

// newPassing prepares colour passing on g from the initial colours of
// evidence ev, on up to workers goroutines.
func newPassing(g *fg.Graph, ev fg.Evidence, opt Options, workers int) *passing {
	nv, nf := g.NumVars(), g.NumFactors()
	p := &passing{g: g, opt: opt}
	if opt.CountTolerance > 0 {
		p.bucket = countBuckets(opt.CountTolerance)
	}
	p.keys, p.sorted, p.initF = edgeKeys(g, opt)
	p.adj = newAdjacency(g.FactorStart, g.VarStart, g.EdgeVar, g.VarEdges, p.keys, p.sorted, workers)
	p.vc = make([]int32, nv)
	p.vr = newRefiner(p.vc, initialVarColours(g, ev, p.vc))
	p.fc = make([]int32, nf)
	p.fr = newRefiner(p.fc, dense(p.initF, p.fc))
	p.vr.own, p.fr.own = p.adj.vStart, p.adj.fStart
	// A signature has a word per edge and one for the own colour.
	p.vr.words = 2 + g.NumEdges()/max(nv, 1)
	p.fr.words = 2 + g.NumEdges()/max(nf, 1)
	return p
}

// signFactor and signVar are the map step on the whole graph.
func (p *passing) signFactor(f int32, buf []uint64) []uint64 {
	return p.adj.signFactor(f, p.fc, p.vc, buf)
}

func (p *passing) signVar(v int32, buf []uint64) []uint64 {
	if p.bucket != nil {
		return p.adj.signVarApprox(v, p.vc, p.fc, buf, p.bucket)
	}
	return p.adj.signVar(v, p.vc, p.fc, buf)
}

// run refines until stable (or opt.MaxIter rounds) and returns the number
// of rounds. With all set, the first round re-signs every variable and
// the factors that firstFactorSources leaves (colour passing from
// scratch); otherwise it starts next to the variables in p.vr.changed.
func (p *passing) run(ctx context.Context, all bool) (int, error) {
	g, vr, fr, a := p.g, p.vr, p.fr, p.adj
	nv, nf := g.NumVars(), g.NumFactors()
	signFactor, signVar := p.signFactor, p.signVar
	rounds := 0
	for ; p.opt.MaxIter == 0 || rounds < p.opt.MaxIter; p.step++ {
		if err := ctx.Err(); err != nil {
			return rounds, fmt.Errorf("%w: %w", ErrCancelled, err)
		}
		rounds++
		// Factors next to variables that changed (all in the first
		// round), then variables next to factors that changed.
		first := all && rounds == 1
		if src, ok := p.firstFactorSources(first); ok {
			// Only the factors next to a variable outside the commonest
			// initial colour can split in the first round.
			fr.stepFrom(false, nf, src, a.vStart, a.vAdj, true, signFactor)
		} else {
			fr.stepFrom(first, nf, vr.changed, a.vStart, a.vAdj, true, signFactor)
		}
		vr.stepFrom(first, nv, fr.changed, a.fStart, a.fAdj, false, signVar)
		if p.opt.Progress != nil {
			p.opt.Progress(rounds, vr.numClasses(), fr.numClasses())
		}
		if len(fr.changed) == 0 && len(vr.changed) == 0 {
			p.step++
			break
		}
	}
	return rounds, nil
}

// firstFactorSources decides how the first round's factor step runs (first
// set): when the factors of every initial class have the same slot keys,
// in the order their signatures compare them (uniformKeys), two factors of
// one class whose variables all have the commonest initial colour L have
// equal signatures, so only the factors next to a variable of another
// colour need signing: they are the factors next to the returned sources,
// the variables not coloured L, as if those had just changed colour (the
// incremental rule of ColourPassing). On a graph without evidence that is
// none; with evidence on a few variables, the factors around them. It
// returns false when every factor must be signed.
func (p *passing) firstFactorSources(first bool) ([]int32, bool) {
	if !first || !uniformKeys(p.g, p.keys, p.sorted, p.fc, p.fr.numClasses()) {
		return nil, false
	}
	common := int32(0)
	for c, n := range p.vr.classSize {
		if n > p.vr.classSize[common] {
			common = int32(c)
		}
	}
	var src []int32
	for v, c := range p.vc {
		if c != common {
			src = append(src, int32(v))
		}
	}
	return src, true
}

// uniformKeys reports whether, within every class of the colouring fc of
// g's factors, all factors have the same slot keys (keys, per edge) in the
// order in which their signatures are compared: in position order, or
// sorted where sorted[f] is set. Factors of one table always do (the keys
// and the flag depend on the table only); others are compared. (The keys
// of edgeKeys always are: a class is a canonical table, and its factors'
// keys are canonical positions; this guards the first round against other
// keys.)
func uniformKeys(g *fg.Graph, keys []int32, sorted []bool, fc []int32, classes int) bool {
	first := make([]int32, classes)
	for i := range first {
		first[i] = -1
	}
	var a, b []int32
	for f, c := range fc {
		r := first[c]
		if r < 0 {
			first[c] = int32(f)
			continue
		}
		if g.FactorTable[f] == g.FactorTable[r] {
			continue
		}
		// With one colour on every variable a signature's words are
		// its keys in this order (sorting them sorts by key).
		a = append(a[:0], keys[g.FactorStart[r]:g.FactorStart[r+1]]...)
		b = append(b[:0], keys[g.FactorStart[f]:g.FactorStart[f+1]]...)
		if sorted[r] {
			slices.Sort(a)
		}
		if sorted[f] {
			slices.Sort(b)
		}
		if !slices.Equal(a, b) {
			return false
		}
	}
	return true
}

// renumber makes class ids (below n) dense in order of first appearance.
func renumber(c []int32, n int) int {
	m := make([]int32, n)
	for i := range m {
		m[i] = -1
	}
	k := int32(0)
	for i, x := range c {
		if m[x] < 0 {
			m[x] = k
			k++
		}
		c[i] = m[x]
	}
	return int(k)
}

// initialVarColours colours variables by (cardinality, evidence).
func initialVarColours(g *fg.Graph, ev fg.Evidence, vc []int32) int {
	init := make([]uint64, len(vc))
	for v := range vc {
		e := int32(-1)
		if ev != nil {
			e = ev[v]
		}
		init[v] = uint64(uint32(g.Card[v]))<<32 | uint64(uint32(e))
	}
	return dense(init, vc)
}

// dense renumbers keys densely by first appearance into out. Runs of
// equal keys (the usual case: nodes of one kind, numbered together) skip
// the map.
func dense(keys []uint64, out []int32) int {
	m := make(map[uint64]int32)
	last, lastID := uint64(0), int32(-1)
	for i, k := range keys {
		if k == last && lastID >= 0 {
			out[i] = lastID
			continue
		}
		id, ok := m[k]
		if !ok {
			id = int32(len(m))
			m[k] = id
		}
		out[i] = id
		last, lastID = k, id
	}
	return len(m)
}

// edgeKeys decides, per the mode, each edge's slot key, which factors have
// their signatures sorted, and each factor's initial colour key.
func edgeKeys(g *fg.Graph, opt Options) (keys []int32, sorted []bool, initF []uint64) {
	nf := g.NumFactors()
	keys = make([]int32, g.NumEdges())
	sorted = make([]bool, nf)
	initF = make([]uint64, nf)
	clause := map[int32][]bool{} // table id → literal signs, for CNF mode
	// Per table id: the canonical order of its positions, whether that is
	// the identity, and the id of its canonical table.
	type canon struct {
		key    []int32 // per position: canonical position, or its block's first
		sorted bool    // the keys are not 0, 1, 2, … in position order
		id     uint64
	}
	canons := make([]*canon, len(g.Tables))
	canonID := map[string]uint64{}
	canonOf := func(t int32) *canon {
		if c := canons[t]; c != nil {
			return c
		}
		order, key := canonicalOrder(&g.Tables[t])
		id, ok := canonID[key]
		if !ok {
			id = uint64(len(canonID))
			canonID[key] = id
		}
		c := &canon{key: make([]int32, len(order)), id: id}
		block := swapBlocks(&g.Tables[t])
		for p := range c.key {
			c.key[p] = int32(len(order))
		}
		for q, p := range order {
			b := block[p]
			c.key[b] = min(c.key[b], int32(q))
		}
		for p := range c.key {
			c.key[p] = c.key[block[p]]
			if c.key[p] != int32(p) {
				c.sorted = true
			}
		}
		canons[t] = c
		return c
	}
	for f := 0; f < nf; f++ {
		t := g.FactorTable[f]
		lo, hi := g.FactorStart[f], g.FactorStart[f+1]
		switch {
		case opt.Mode == Symmetric && int(t) < len(opt.Symmetric) && opt.Symmetric[t]:
			// Positions do not count, but the table does: factors of
			// different tables start apart (they shared colour 0 before).
			sorted[f] = true
			for e := lo; e < hi; e++ {
				keys[e] = 0
			}
			initF[f] = canonOf(t).id
			continue
		case opt.Mode == CNF:
			neg, ok := clause[t]
			if !ok {
				neg, ok = fg.ClauseSigns(&g.Tables[t])
				if !ok {
					neg = nil
				}
				clause[t] = neg
			}
			if neg != nil {
				sorted[f] = true
				nneg := 0
				for p, n := range neg {
					k := int32(0)
					if n {
						k = 1
						nneg++
					}
					keys[lo+int64(p)] = k
				}
				// Clauses share a colour by length and sign count; the high
				// bit keeps them apart from table ids.
				initF[f] = 1<<63 | uint64(len(neg))<<32 | uint64(nneg)
				continue
			}
		}
		c := canonOf(t)
		initF[f] = c.id
		// A position's key is its canonical position, shared by the
		// positions the table cannot tell apart; sorting a factor's
		// signature by key compares it in canonical order.
		copy(keys[lo:hi], c.key)
		sorted[f] = c.sorted
	}
	return keys, sorted, initF
}
