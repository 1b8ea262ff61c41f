package lift

// This file keeps the colour passing of commit 0485910 (byte signatures
// interned through a hash map) as a test-only reference: the randomized
// equivalence tests compare the current ColourPassing against it class id
// for class id and round for round.

import (
	"context"
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"slices"

	"github.com/lifted-dev/lifted/fg"
)

// refColourPassing is the reference refiner.
type refColourPassing struct{}

// oldRefiner holds the state of one incremental refinement of one node kind
// (variables or factors).
type oldRefiner struct {
	colour    []int32 // class id per node
	classSize []int32 // members per class id
	stamp     []int32 // per node: step in which it was last marked dirty
	dirty     []int32 // nodes to re-sign in this step
	changed   []int32 // nodes whose class id changed in the last step

	in       oldInterner
	group    []int32 // per dirty node (parallel to dirty): signature group
	grpClass []int32
	grpSize  []int32
	grpID    []int32
	dirtyIn  []int32 // per class: dirty members this step
	touched  []int32 // classes with dirtyIn > 0
}

func newOldRefiner(colour []int32, n int) *oldRefiner {
	r := &oldRefiner{colour: colour, classSize: make([]int32, n), stamp: make([]int32, len(colour))}
	for _, c := range colour {
		r.classSize[c]++
	}
	for i := range r.stamp {
		r.stamp[i] = -1
	}
	return r
}

func (r *oldRefiner) numClasses() int { return len(r.classSize) }

// mark adds node i to this step's dirty list once.
func (r *oldRefiner) mark(i int32, step int32) {
	if r.stamp[i] != step {
		r.stamp[i] = step
		r.dirty = append(r.dirty, i)
	}
}

// resign groups the dirty nodes by signature (sign writes node i's
// signature, own class first) and gives new class ids; it fills r.changed.
func (r *oldRefiner) resign(sign func(i int32, buf []byte) []byte, buf []byte) []byte {
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
func (refColourPassing) Refine(ctx context.Context, g *fg.Graph, ev fg.Evidence, opt Options) (*Colouring, error) {
	nv, nf := g.NumVars(), g.NumFactors()
	keys, sorted, initF := edgeKeys(g, opt)
	edgeFactor := make([]int32, g.NumEdges())
	for f := 0; f < nf; f++ {
		for e := g.FactorStart[f]; e < g.FactorStart[f+1]; e++ {
			edgeFactor[e] = int32(f)
		}
	}
	vc := make([]int32, nv)
	vr := newOldRefiner(vc, initialVarColours(g, ev, vc))
	fc := make([]int32, nf)
	fr := newOldRefiner(fc, dense(initF, fc))

	var pairs []uint64
	signFactor := func(f int32, buf []byte) []byte {
		pairs = pairs[:0]
		for e := g.FactorStart[f]; e < g.FactorStart[f+1]; e++ {
			pairs = append(pairs, uint64(uint32(keys[e]))<<32|uint64(uint32(vc[g.EdgeVar[e]])))
		}
		if sorted[f] {
			slices.Sort(pairs)
		}
		return oldSig(buf, fc[f], pairs)
	}
	signVar := func(v int32, buf []byte) []byte {
		pairs = pairs[:0]
		for _, e := range g.VarEdges[g.VarStart[v]:g.VarStart[v+1]] {
			pairs = append(pairs, uint64(uint32(fc[edgeFactor[e]]))<<32|uint64(uint32(keys[e])))
		}
		slices.Sort(pairs)
		return oldSig(buf, vc[v], pairs)
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
	nvc := oldRenumber(vc)
	nfc := oldRenumber(fc)
	return &Colouring{VarColor: vc, NumVarColor: nvc, FactorColor: fc, NumFacColor: nfc, EdgeKey: keys, Iterations: rounds}, nil
}

// renumber makes class ids dense in order of first appearance.
func oldRenumber(c []int32) int {
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

func oldSig(buf []byte, own int32, pairs []uint64) []byte {
	buf = binary.LittleEndian.AppendUint32(buf, uint32(own))
	for _, p := range pairs {
		buf = binary.LittleEndian.AppendUint64(buf, p)
	}
	return buf
}

// oldInterner numbers byte strings densely in order of first appearance. It
// keys a map by a 64-bit hash and keeps every string in one arena to verify
// hits, probing further on the (rare) collision, so it is exact.
type oldInterner struct {
	m     map[uint64]int32
	seed  maphash.Seed
	arena []byte
	start []int // string of id i is arena[start[i]:start[i+1]]
	n     int
}

func (in *oldInterner) reset() {
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

func (in *oldInterner) intern(b []byte) int32 {
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
