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
	// default; always correct).
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
	EdgeKey     []int32 // per ground edge: position, 0, or literal sign
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
// cardinality and evidence, factors by table; then, until the numbers of
// colours stop changing, every factor takes a new colour from its own colour
// and the colours of its variables (by slot key), and every variable a new
// colour from its own colour and the sorted multiset of (factor colour, slot
// key) over its factors. Each round is O(m log d) for m edges and maximum
// degree d: signatures are interned through a hash map keyed by their bytes.
type ColourPassing struct{}

// ErrCancelled wraps a context cancellation during colour passing.
var ErrCancelled = errors.New("colour passing cancelled")

// Refine implements Refiner.
func (ColourPassing) Refine(ctx context.Context, g *fg.Graph, ev fg.Evidence, opt Options) (*Colouring, error) {
	nv, nf := g.NumVars(), g.NumFactors()
	keys, sorted, initF := edgeKeys(g, opt)

	vc := make([]int32, nv)
	nvc := initialVarColours(g, ev, vc)
	fc := make([]int32, nf)
	nfc := dense(initF, fc)

	edgeFactor := make([]int32, g.NumEdges())
	for f := 0; f < nf; f++ {
		for e := g.FactorStart[f]; e < g.FactorStart[f+1]; e++ {
			edgeFactor[e] = int32(f)
		}
	}
	var in interner
	var buf []byte
	var pairs []uint64
	newF := make([]int32, nf)
	newV := make([]int32, nv)
	rounds := 0
	for opt.MaxIter == 0 || rounds < opt.MaxIter {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrCancelled, err)
		}
		rounds++
		// Factors: own colour, then (key, variable colour) pairs.
		in.reset()
		for f := 0; f < nf; f++ {
			lo, hi := g.FactorStart[f], g.FactorStart[f+1]
			pairs = pairs[:0]
			for e := lo; e < hi; e++ {
				pairs = append(pairs, uint64(uint32(keys[e]))<<32|uint64(uint32(vc[g.EdgeVar[e]])))
			}
			if sorted[f] {
				slices.Sort(pairs)
			}
			buf = sig(buf[:0], fc[f], pairs)
			newF[f] = in.intern(buf)
		}
		nfc2 := in.n
		// Variables: own colour, then sorted (new factor colour, key) pairs.
		in.reset()
		for v := 0; v < nv; v++ {
			pairs = pairs[:0]
			for _, e := range g.VarEdges[g.VarStart[v]:g.VarStart[v+1]] {
				pairs = append(pairs, uint64(uint32(newF[edgeFactor[e]]))<<32|uint64(uint32(keys[e])))
			}
			slices.Sort(pairs)
			buf = sig(buf[:0], vc[v], pairs)
			newV[v] = in.intern(buf)
		}
		nvc2 := in.n
		vc, newV = newV, vc
		fc, newF = newF, fc
		changed := nvc2 != nvc || nfc2 != nfc
		nvc, nfc = nvc2, nfc2
		if opt.Progress != nil {
			opt.Progress(rounds, nvc, nfc)
		}
		if !changed {
			break
		}
	}
	return &Colouring{VarColor: vc, NumVarColor: nvc, FactorColor: fc, NumFacColor: nfc, EdgeKey: keys, Iterations: rounds}, nil
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
	for f := 0; f < nf; f++ {
		t := g.FactorTable[f]
		lo, hi := g.FactorStart[f], g.FactorStart[f+1]
		initF[f] = uint64(uint32(t))
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
				neg, ok = ClauseSigns(&g.Tables[t])
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
		for e := lo; e < hi; e++ {
			keys[e] = int32(e - lo)
		}
	}
	return keys, sorted, initF
}

// ClauseSigns reports whether t is a clause table (all dimensions 2, exactly
// one zero entry, every other entry 1) and, if so, which positions are
// negated literals: a clause is false only when every literal is, so the zero
// entry has state 1 exactly at the negated positions.
func ClauseSigns(t *fg.Table) (neg []bool, ok bool) {
	zero := -1
	for i, x := range t.Values {
		switch x {
		case 0:
			if zero >= 0 {
				return nil, false
			}
			zero = i
		case 1:
		default:
			return nil, false
		}
	}
	if zero < 0 {
		return nil, false
	}
	for _, d := range t.Dims {
		if d != 2 {
			return nil, false
		}
	}
	neg = make([]bool, len(t.Dims))
	for p := len(t.Dims) - 1; p >= 0; p-- {
		neg[p] = zero&1 == 1
		zero >>= 1
	}
	return neg, true
}
