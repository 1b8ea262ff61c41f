package lift

import (
	"encoding/binary"
	"slices"

	"github.com/lifted-dev/lifted/fg"
)

// This file holds the map/reduce steps of colour passing (Section 5 of
// Ahmadi et al., "Exploiting symmetries for scaling loopy belief propagation
// and relational training", 2013): the graph is split once into parts with
// copy nodes at the borders (Partition, Part); every round, each part signs
// its own nodes given the current colours (Part.SignFactors, Part.SignVars:
// the map), equal signatures are grouped (the shuffle), and every group takes
// its smallest member id as its new colour (NewColour: the reduce). The
// Apache Beam pipeline (module beam/) runs exactly these steps; the
// in-process refiners (ColourPassing, Parallel, the Recolourer) sign with the
// same code (appendFactorSig, appendVarSig) on the graph as one part,
// restricted to the nodes next to a change.
//
// Colours in these steps are node ids (a class is named by its smallest
// member), so no coordination is needed to name a new class; the final
// colouring is renumbered densely by first appearance, as ColourPassing's.

// Partition is a split of a graph into K parts, made once before colour
// passing and used in every round. Variables are split into K contiguous
// ranges holding about the same number of edges; a factor belongs to the
// part of the first variable of its scope. A part signs the nodes it owns;
// the neighbours of its nodes owned by other parts are its copy nodes.
type Partition struct {
	K          int
	VarPart    []int32 // owning part of every variable
	FactorPart []int32 // owning part of every factor
	// CutEdges is the number of ground edges whose factor and variable lie
	// in different parts: the colours sent across part borders per round.
	CutEdges int64
	// CopyVars and CopyFactors count the copy nodes over all parts (a node
	// copied into three parts counts three times).
	CopyVars, CopyFactors int64
}

// NewPartition splits g into k ≥ 1 parts by variable ranges (see
// Partition).
func NewPartition(g *fg.Graph, k int) *Partition {
	nv, nf := g.NumVars(), g.NumFactors()
	k = max(1, min(k, max(nv, 1)))
	p := &Partition{K: k, VarPart: make([]int32, nv), FactorPart: make([]int32, nf)}
	total := g.VarStart[nv]
	part := 0
	for v := range nv {
		// Move to the next part when this one holds its share of edges
		// (and enough variables remain for the parts still to come).
		for part < k-1 && (g.VarStart[v]*int64(k) >= total*int64(part+1) && total > 0 || nv-v <= k-1-part) {
			part++
		}
		p.VarPart[v] = int32(part)
	}
	for f := range nf {
		s := g.Scope(f)
		if len(s) > 0 {
			p.FactorPart[f] = p.VarPart[s[0]]
		}
	}
	// Count cut edges and copy nodes (each copy once per part).
	var seenV, seenF []int32
	seenV = make([]int32, nv)
	seenF = make([]int32, nf)
	for i := range seenV {
		seenV[i] = -1
	}
	for i := range seenF {
		seenF[i] = -1
	}
	for f := range nf {
		fp := p.FactorPart[f]
		for _, v := range g.Scope(f) {
			if p.VarPart[v] != fp {
				p.CutEdges++
			}
		}
	}
	// Copy variables of part q: variables outside q in the scopes of q's
	// factors; copy factors of q: factors outside q at q's variables.
	byPart := partMembers(p.FactorPart, k)
	for q := range k {
		for _, f := range byPart[q] {
			for _, v := range g.Scope(int(f)) {
				if p.VarPart[v] != int32(q) && seenV[v] != int32(q) {
					seenV[v] = int32(q)
					p.CopyVars++
				}
			}
		}
	}
	byPartV := partMembers(p.VarPart, k)
	for q := range k {
		for _, v := range byPartV[q] {
			for _, e := range g.VarEdges[g.VarStart[v]:g.VarStart[v+1]] {
				f := g.EdgeFactor(e)
				if p.FactorPart[f] != int32(q) && seenF[f] != int32(q) {
					seenF[f] = int32(q)
					p.CopyFactors++
				}
			}
		}
	}
	return p
}

// partMembers lists the members of every part in increasing id order.
func partMembers(owner []int32, k int) [][]int32 {
	count := make([]int, k)
	for _, q := range owner {
		count[q]++
	}
	out := make([][]int32, k)
	for q := range out {
		out[q] = make([]int32, 0, count[q])
	}
	for i, q := range owner {
		out[q] = append(out[q], int32(i))
	}
	return out
}

// Part is one part of a partitioned graph as a map task sees it: the
// factors and variables it owns, with their edges to their neighbours (owned
// or copies) by global id, and the slot key of every edge. It is
// self-contained, so a distributed runner can ship it to a worker once.
type Part struct {
	Index int
	// Owned factors: Factors[i]'s edges are FactorVar/FactorKey
	// [FactorStart[i]:FactorStart[i+1]], in scope order; FactorSorted[i]
	// tells whether its signature is compared as a sorted list.
	Factors      []int32
	FactorStart  []int64
	FactorVar    []int32
	FactorKey    []int32
	FactorSorted []bool
	// Owned variables: Vars[i]'s edges are VarFactor/VarKey
	// [VarStart[i]:VarStart[i+1]].
	Vars      []int32
	VarStart  []int64
	VarFactor []int32
	VarKey    []int32
	// CopyVars and CopyFactors are the border nodes owned by other parts
	// whose colours this part reads.
	CopyVars    []int32
	CopyFactors []int32
}

// SlotKeys returns, per the colouring mode, the slot key of every edge, and
// for every factor whether its signature is compared sorted and its initial
// colour; and the initial colour of every variable. Colours are dense ids;
// they are the start of colour passing for every engine.
func SlotKeys(g *fg.Graph, ev fg.Evidence, opt Options) (keys []int32, sorted []bool, varColour, factorColour []int32) {
	keys, sorted, initF := edgeKeys(g, opt)
	varColour = make([]int32, g.NumVars())
	initialVarColours(g, ev, varColour)
	factorColour = make([]int32, g.NumFactors())
	dense(initF, factorColour)
	return keys, sorted, varColour, factorColour
}

// Parts builds the K parts of partition p of g, with slot keys and sorted
// flags as SlotKeys returns them.
func (p *Partition) Parts(g *fg.Graph, keys []int32, sorted []bool) []*Part {
	facs := partMembers(p.FactorPart, p.K)
	vars := partMembers(p.VarPart, p.K)
	parts := make([]*Part, p.K)
	ef := edgeFactors(g)
	for q := range p.K {
		parts[q] = p.part(g, q, facs[q], vars[q], keys, sorted, ef)
	}
	return parts
}

// edgeFactors returns the factor of every edge.
func edgeFactors(g *fg.Graph) []int32 {
	ef := make([]int32, g.NumEdges())
	for f := range int32(g.NumFactors()) {
		for e := g.FactorStart[f]; e < g.FactorStart[f+1]; e++ {
			ef[e] = f
		}
	}
	return ef
}

// part builds part q, owning factors facs and variables vars; ef is the
// factor of every edge.
func (p *Partition) part(g *fg.Graph, q int, facs, vars []int32, keys []int32, sorted []bool, ef []int32) *Part {
	var nfe, nve int64
	for _, f := range facs {
		nfe += g.FactorStart[f+1] - g.FactorStart[f]
	}
	for _, v := range vars {
		nve += g.VarStart[v+1] - g.VarStart[v]
	}
	pt := &Part{Index: q, Factors: facs, Vars: vars,
		FactorStart: make([]int64, 1, len(facs)+1), FactorSorted: make([]bool, len(facs)),
		FactorVar: make([]int32, 0, nfe), FactorKey: make([]int32, 0, nfe),
		VarStart: make([]int64, 1, len(vars)+1), VarFactor: make([]int32, 0, nve), VarKey: make([]int32, 0, nve)}
	copyV := map[int32]bool{}
	for i, f := range facs {
		for e := g.FactorStart[f]; e < g.FactorStart[f+1]; e++ {
			v := g.EdgeVar[e]
			pt.FactorVar = append(pt.FactorVar, v)
			pt.FactorKey = append(pt.FactorKey, keys[e])
			if p.VarPart[v] != int32(q) && !copyV[v] {
				copyV[v] = true
				pt.CopyVars = append(pt.CopyVars, v)
			}
		}
		pt.FactorStart = append(pt.FactorStart, int64(len(pt.FactorVar)))
		pt.FactorSorted[i] = sorted[f]
	}
	copyF := map[int32]bool{}
	for _, v := range vars {
		for _, e := range g.VarEdges[g.VarStart[v]:g.VarStart[v+1]] {
			f := ef[e]
			pt.VarFactor = append(pt.VarFactor, f)
			pt.VarKey = append(pt.VarKey, keys[e])
			if p.FactorPart[f] != int32(q) && !copyF[f] {
				copyF[f] = true
				pt.CopyFactors = append(pt.CopyFactors, f)
			}
		}
		pt.VarStart = append(pt.VarStart, int64(len(pt.VarFactor)))
	}
	slices.Sort(pt.CopyVars)
	slices.Sort(pt.CopyFactors)
	return pt
}

func iota32(n int) []int32 {
	s := make([]int32, n)
	for i := range s {
		s[i] = int32(i)
	}
	return s
}

// appendFactorSig is the map step for one factor, the one signing code of
// every engine: it appends to buf the factor's own colour, then the (slot
// key, colour of the variable) pair of each of its edges e = lo…hi-1,
// sorted when its positions are compared as a list. The variable of edge e
// has colour col[nbr[e]].
func appendFactorSig(buf []uint64, own int32, lo, hi int64, nbr, key, col []int32, sorted bool) []uint64 {
	buf = append(buf, uint64(uint32(own)))
	start := len(buf)
	for e := lo; e < hi; e++ {
		buf = append(buf, uint64(uint32(key[e]))<<32|uint64(uint32(col[nbr[e]])))
	}
	if sorted {
		slices.Sort(buf[start:])
	}
	return buf
}

// appendVarSig is the map step for one variable: its own colour, then the
// sorted multiset of (colour of the factor, slot key) over its edges
// e = lo…hi-1, the factor of edge e having colour col[nbr[e]].
func appendVarSig(buf []uint64, own int32, lo, hi int64, nbr, key, col []int32) []uint64 {
	buf = append(buf, uint64(uint32(own)))
	start := len(buf)
	for e := lo; e < hi; e++ {
		buf = append(buf, uint64(uint32(col[nbr[e]]))<<32|uint64(uint32(key[e])))
	}
	slices.Sort(buf[start:])
	return buf
}

// signFactor appends the signature of the part's factor at local index i,
// given the colours of all factors and variables by global id.
func (pt *Part) signFactor(i int32, fc, vc []int32, buf []uint64) []uint64 {
	return appendFactorSig(buf, fc[pt.Factors[i]], pt.FactorStart[i], pt.FactorStart[i+1], pt.FactorVar, pt.FactorKey, vc, pt.FactorSorted[i])
}

// signVar appends the signature of the part's variable at local index i.
func (pt *Part) signVar(i int32, vc, fc []int32, buf []uint64) []uint64 {
	return appendVarSig(buf, vc[pt.Vars[i]], pt.VarStart[i], pt.VarStart[i+1], pt.VarFactor, pt.VarKey, fc)
}

// Signer holds the scratch space of the map step; one per goroutine. It
// signs a part whose colours it reads through functions (a runner holding
// only the colours of the part's own and copy nodes, Beam's): the
// neighbours of the part's edges are numbered locally once (per Part
// pointer: a part must not be changed while a Signer signs it), and every
// round reads each neighbour's colour once into a local table.
type Signer struct {
	pt           *Part
	fvar, vfac   []int32 // per edge: local index of its neighbour
	varID, facID []int32 // global id per local index
	col          []int32
	sig          []uint64
	buf          []byte
}

// local numbers the neighbours of pt's edges (once per part).
func (s *Signer) local(pt *Part) {
	if s.pt == pt {
		return
	}
	s.pt = pt
	number := func(nbr []int32) (loc, ids []int32) {
		idx := map[int32]int32{}
		loc = make([]int32, len(nbr))
		for e, x := range nbr {
			j, ok := idx[x]
			if !ok {
				j = int32(len(ids))
				idx[x] = j
				ids = append(ids, x)
			}
			loc[e] = j
		}
		return loc, ids
	}
	s.fvar, s.varID = number(pt.FactorVar)
	s.vfac, s.facID = number(pt.VarFactor)
}

// readColours fills s.col with the colour of every node in ids.
func (s *Signer) readColours(ids []int32, colour func(int32) int32) {
	s.col = slices.Grow(s.col[:0], len(ids))[:len(ids)]
	for j, x := range ids {
		s.col[j] = colour(x)
	}
}

// SignFactors is the map step for the part's factors: it calls emit with
// the signature and id of every owned factor, given the current colour of
// every factor and variable (own and copies; looked up by global id). The
// signature is the factor's own colour, then the (slot key, variable colour)
// pair of every position, sorted when the factor's positions are compared
// as a list. emit must copy sig to keep it.
func (s *Signer) SignFactors(pt *Part, factorColour, varColour func(int32) int32, emit func(sig []byte, id int32)) {
	s.local(pt)
	s.readColours(s.varID, varColour)
	for i, f := range pt.Factors {
		s.sig = appendFactorSig(s.sig[:0], factorColour(f), pt.FactorStart[i], pt.FactorStart[i+1], s.fvar, pt.FactorKey, s.col, pt.FactorSorted[i])
		emit(s.bytes(), f)
	}
}

// SignVars is the map step for the part's variables: own colour, then the
// sorted multiset of (factor colour, slot key) over the variable's edges.
func (s *Signer) SignVars(pt *Part, varColour, factorColour func(int32) int32, emit func(sig []byte, id int32)) {
	s.local(pt)
	s.readColours(s.facID, factorColour)
	for i, v := range pt.Vars {
		s.sig = appendVarSig(s.sig[:0], varColour(v), pt.VarStart[i], pt.VarStart[i+1], s.vfac, pt.VarKey, s.col)
		emit(s.bytes(), v)
	}
}

// bytes encodes the signature in s.sig: the own colour in 4 bytes, then
// every pair in 8.
func (s *Signer) bytes() []byte {
	s.buf = binary.LittleEndian.AppendUint32(s.buf[:0], uint32(s.sig[0]))
	for _, p := range s.sig[1:] {
		s.buf = binary.LittleEndian.AppendUint64(s.buf, p)
	}
	return s.buf
}

// NewColour is the reduce step: the new colour of a group of nodes with
// equal signatures is its smallest member id.
func NewColour(members []int32) int32 { return slices.Min(members) }

// IdentityColours returns the colouring in which every node's colour is the
// smallest id of a node with its colour in c (the naming the map/reduce
// steps use), so that colours from SlotKeys can enter the first round.
func IdentityColours(c []int32) []int32 {
	first := map[int32]int32{}
	out := make([]int32, len(c))
	for i, x := range c {
		id, ok := first[x]
		if !ok {
			id = int32(i)
			first[x] = id
		}
		out[i] = id
	}
	return out
}

// FinishColouring renumbers map/reduce colours densely by first appearance
// (as ColourPassing numbers its classes) and returns the Colouring.
func FinishColouring(varColour, factorColour, keys []int32, rounds int) *Colouring {
	nvc := renumber(varColour, maxPlusOne(varColour))
	nfc := renumber(factorColour, maxPlusOne(factorColour))
	return &Colouring{VarColor: varColour, NumVarColor: nvc, FactorColor: factorColour, NumFacColor: nfc, EdgeKey: keys, Iterations: rounds}
}

// maxPlusOne is one more than the largest of c (0 for none).
func maxPlusOne(c []int32) int {
	n := int32(-1)
	for _, x := range c {
		n = max(n, x)
	}
	return int(n) + 1
}
