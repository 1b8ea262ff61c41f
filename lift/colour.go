package lift

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/maphash"
	"slices"
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
	c, err := build(g, ev, col.VarColor, col.NumVarColor, col.FactorColor, col.NumFacColor, col.EdgeKey)
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
// grid with one observed corner touches only the advancing frontier.
// Signatures are interned through a hash map keyed by their bytes.
type ColourPassing struct{}

// ErrCancelled wraps a context cancellation during colour passing.
var ErrCancelled = errors.New("colour passing cancelled") // errors.Is also finds the context error

// refiner holds the state of one incremental refinement of one node kind
// (variables or factors).
type refiner struct {
	colour    []int32 // class id per node
	classSize []int32 // members per class id
	stamp     []int32 // per node: step in which it was last marked dirty
	dirty     []int32 // nodes to re-sign in this step
	changed   []int32 // nodes whose class id changed in the last step

	in       interner
	group    []int32 // per dirty node (parallel to dirty): signature group
	grpClass []int32
	grpSize  []int32
	grpID    []int32
	dirtyIn  []int32 // per class: dirty members this step
	touched  []int32 // classes with dirtyIn > 0
}

func newRefiner(colour []int32, n int) *refiner {
	r := &refiner{colour: colour, classSize: make([]int32, n), stamp: make([]int32, len(colour))}
	for _, c := range colour {
		r.classSize[c]++
	}
	for i := range r.stamp {
		r.stamp[i] = -1
	}
	return r
}

func (r *refiner) numClasses() int { return len(r.classSize) }

// mark adds node i to this step's dirty list once.
func (r *refiner) mark(i int32, step int32) {
	if r.stamp[i] != step {
		r.stamp[i] = step
		r.dirty = append(r.dirty, i)
	}
}

// resign groups the dirty nodes by signature (sign writes node i's
// signature, own class first) and gives new class ids; it fills r.changed.
func (r *refiner) resign(sign func(i int32, buf []byte) []byte, buf []byte) []byte {
	r.in.reset()
	r.group = r.group[:0]
	r.grpClass, r.grpSize = r.grpClass[:0], r.grpSize[:0]
	if cap(r.dirtyIn) < r.numClasses() {
		r.dirtyIn = make([]int32, r.numClasses(), 2*r.numClasses())
	}
	r.dirtyIn = r.dirtyIn[:r.numClasses()]
	r.touched = r.touched[:0]
	for _, i := range r.dirty {
		buf = sign(i, buf[:0])
		g := r.in.intern(buf)
		if int(g) == len(r.grpSize) {
			r.grpSize = append(r.grpSize, 0)
			r.grpClass = append(r.grpClass, r.colour[i])
		}
		r.grpSize[g]++
		r.group = append(r.group, g)
		c := r.colour[i]
		if r.dirtyIn[c] == 0 {
			r.touched = append(r.touched, c)
		}
		r.dirtyIn[c]++
	}
	// The class keeps its id for its unchanged members or, when every
	// member was re-signed, for its largest group (the first on ties).
	r.grpID = r.grpID[:0]
	for g := range r.grpSize {
		r.grpID = append(r.grpID, -1)
		_ = g
	}
	keeper := map[int32]int32{}
	for g, c := range r.grpClass {
		if r.dirtyIn[c] < r.classSize[c] {
			continue
		}
		if k, ok := keeper[c]; !ok || r.grpSize[g] > r.grpSize[k] {
			keeper[c] = int32(g)
		}
	}
	for g, c := range r.grpClass {
		if k, ok := keeper[c]; ok && k == int32(g) {
			r.grpID[g] = c
			continue
		}
		r.grpID[g] = int32(len(r.classSize))
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
	r.dirty = r.dirty[:0]
	return buf
}

// Refine implements Refiner.
func (ColourPassing) Refine(ctx context.Context, g *fg.Graph, ev fg.Evidence, opt Options) (*Colouring, error) {
	nv, nf := g.NumVars(), g.NumFactors()
	keys, sorted, initF := edgeKeys(g, opt)
	edgeFactor := make([]int32, g.NumEdges())
	for f := 0; f < nf; f++ {
		for e := g.FactorStart[f]; e < g.FactorStart[f+1]; e++ {
			edgeFactor[e] = int32(f)
		}
	}
	vc := make([]int32, nv)
	vr := newRefiner(vc, initialVarColours(g, ev, vc))
	fc := make([]int32, nf)
	fr := newRefiner(fc, dense(initF, fc))

	var pairs []uint64
	signFactor := func(f int32, buf []byte) []byte {
		pairs = pairs[:0]
		for e := g.FactorStart[f]; e < g.FactorStart[f+1]; e++ {
			pairs = append(pairs, uint64(uint32(keys[e]))<<32|uint64(uint32(vc[g.EdgeVar[e]])))
		}
		if sorted[f] {
			slices.Sort(pairs)
		}
		return sig(buf, fc[f], pairs)
	}
	signVar := func(v int32, buf []byte) []byte {
		pairs = pairs[:0]
		for _, e := range g.VarEdges[g.VarStart[v]:g.VarStart[v+1]] {
			pairs = append(pairs, uint64(uint32(fc[edgeFactor[e]]))<<32|uint64(uint32(keys[e])))
		}
		slices.Sort(pairs)
		return sig(buf, vc[v], pairs)
	}

	var buf []byte
	rounds := 0
	for step := int32(0); opt.MaxIter == 0 || rounds < opt.MaxIter; step++ {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrCancelled, err)
		}
		rounds++
		// Factors next to variables that changed (all in the first round).
		if rounds == 1 {
			for f := range int32(nf) {
				fr.mark(f, step)
			}
		} else {
			for _, v := range vr.changed {
				for _, e := range g.VarEdges[g.VarStart[v]:g.VarStart[v+1]] {
					fr.mark(edgeFactor[e], step)
				}
			}
		}
		buf = fr.resign(signFactor, buf)
		// Variables next to factors that changed (all in the first round).
		if rounds == 1 {
			for v := range int32(nv) {
				vr.mark(v, step)
			}
		} else {
			for _, f := range fr.changed {
				for _, v := range g.Scope(int(f)) {
					vr.mark(v, step)
				}
			}
		}
		buf = vr.resign(signVar, buf)
		if opt.Progress != nil {
			opt.Progress(rounds, vr.numClasses(), fr.numClasses())
		}
		if len(fr.changed) == 0 && len(vr.changed) == 0 {
			break
		}
	}
	nvc := renumber(vc)
	nfc := renumber(fc)
	return &Colouring{VarColor: vc, NumVarColor: nvc, FactorColor: fc, NumFacColor: nfc, EdgeKey: keys, Iterations: rounds}, nil
}

// renumber makes class ids dense in order of first appearance.
func renumber(c []int32) int {
	m := map[int32]int32{}
	for i, x := range c {
		id, ok := m[x]
		if !ok {
			id = int32(len(m))
			m[x] = id
		}
		c[i] = id
	}
	return len(m)
}

func sig(buf []byte, own int32, pairs []uint64) []byte {
	buf = binary.LittleEndian.AppendUint32(buf, uint32(own))
	for _, p := range pairs {
		buf = binary.LittleEndian.AppendUint64(buf, p)
	}
	return buf
}

// interner numbers byte strings densely in order of first appearance. It
// keys a map by a 64-bit hash and keeps every string in one arena to verify
// hits, probing further on the (rare) collision, so it is exact.
type interner struct {
	m     map[uint64]int32
	seed  maphash.Seed
	arena []byte
	start []int // string of id i is arena[start[i]:start[i+1]]
	n     int
}

func (in *interner) reset() {
	if in.m == nil {
		in.m = make(map[uint64]int32)
		in.seed = maphash.MakeSeed()
	} else {
		clear(in.m)
	}
	in.arena = in.arena[:0]
	in.start = append(in.start[:0], 0)
	in.n = 0
}

func (in *interner) intern(b []byte) int32 {
	h := maphash.Bytes(in.seed, b)
	for {
		id, ok := in.m[h]
		if !ok {
			break
		}
		if string(in.arena[in.start[id]:in.start[id+1]]) == string(b) {
			return id
		}
		h = h*0x9E3779B97F4A7C15 + 1 // collision: probe the next key
	}
	id := int32(in.n)
	in.m[h] = id
	in.arena = append(in.arena, b...)
	in.start = append(in.start, len(in.arena))
	in.n++
	return id
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

// dense renumbers keys densely by first appearance into out.
func dense(keys []uint64, out []int32) int {
	m := make(map[uint64]int32)
	for i, k := range keys {
		id, ok := m[k]
		if !ok {
			id = int32(len(m))
			m[k] = id
		}
		out[i] = id
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
	for f := 0; f < nf; f++ {
		t := g.FactorTable[f]
		lo, hi := g.FactorStart[f], g.FactorStart[f+1]
		switch {
		case opt.Mode == Symmetric && int(t) < len(opt.Symmetric) && opt.Symmetric[t]:
			sorted[f] = true
			for e := lo; e < hi; e++ {
				keys[e] = 0
			}
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
		c := canons[t]
		if c == nil {
			order, key := canonicalOrder(&g.Tables[t])
			id, ok := canonID[key]
			if !ok {
				id = uint64(len(canonID))
				canonID[key] = id
			}
			c = &canon{key: make([]int32, len(order)), id: id}
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
		}
		initF[f] = c.id
		// A position's key is its canonical position, shared by the
		// positions the table cannot tell apart; sorting a factor's
		// signature by key compares it in canonical order.
		copy(keys[lo:hi], c.key)
		sorted[f] = c.sorted
	}
	return keys, sorted, initF
}
