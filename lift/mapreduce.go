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
// all-cores refiner (Parallel) and the Apache Beam pipeline (module beam/)
// both run exactly these steps, so they cannot drift apart.
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
	FactorStart  []int32
	FactorVar    []int32
	FactorKey    []int32
	FactorSorted []bool
	// Owned variables: Vars[i]'s edges are VarFactor/VarKey
	// [VarStart[i]:VarStart[i+1]].
	Vars      []int32
	VarStart  []int32
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
	for q := range p.K {
		parts[q] = p.part(g, q, facs[q], vars[q], keys, sorted)
	}
	return parts
}

func (p *Partition) part(g *fg.Graph, q int, facs, vars []int32, keys []int32, sorted []bool) *Part {
	pt := &Part{Index: q, Factors: facs, Vars: vars,
		FactorStart: make([]int32, 1, len(facs)+1), FactorSorted: make([]bool, len(facs)),
		VarStart: make([]int32, 1, len(vars)+1)}
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
		pt.FactorStart = append(pt.FactorStart, int32(len(pt.FactorVar)))
		pt.FactorSorted[i] = sorted[f]
	}
	copyF := map[int32]bool{}
	for _, v := range vars {
		for _, e := range g.VarEdges[g.VarStart[v]:g.VarStart[v+1]] {
			f := int32(g.EdgeFactor(e))
			pt.VarFactor = append(pt.VarFactor, f)
			pt.VarKey = append(pt.VarKey, keys[e])
			if p.FactorPart[f] != int32(q) && !copyF[f] {
				copyF[f] = true
				pt.CopyFactors = append(pt.CopyFactors, f)
			}
		}
		pt.VarStart = append(pt.VarStart, int32(len(pt.VarFactor)))
	}
	slices.Sort(pt.CopyVars)
	slices.Sort(pt.CopyFactors)
	return pt
}

// Signer holds the scratch space of the map step; one per goroutine.
type Signer struct {
	pairs []uint64
	buf   []byte
}

// SignFactors is the map step for the part's factors: it calls emit with
// the signature and id of every owned factor, given the current colour of
// every factor and variable (own and copies; looked up by global id). The
// signature is the factor's own colour, then the (slot key, variable colour)
// pair of every position, sorted when the factor's positions are compared
// as a list. emit must copy sig to keep it.
func (s *Signer) SignFactors(pt *Part, factorColour, varColour func(int32) int32, emit func(sig []byte, id int32)) {
	for i, f := range pt.Factors {
		s.pairs = s.pairs[:0]
		for e := pt.FactorStart[i]; e < pt.FactorStart[i+1]; e++ {
			s.pairs = append(s.pairs, uint64(uint32(pt.FactorKey[e]))<<32|uint64(uint32(varColour(pt.FactorVar[e]))))
		}
		if pt.FactorSorted[i] {
			slices.Sort(s.pairs)
		}
		s.buf = appendSignature(s.buf[:0], factorColour(f), s.pairs)
		emit(s.buf, f)
	}
}

// SignVars is the map step for the part's variables: own colour, then the
// sorted multiset of (factor colour, slot key) over the variable's edges.
func (s *Signer) SignVars(pt *Part, varColour, factorColour func(int32) int32, emit func(sig []byte, id int32)) {
	for i, v := range pt.Vars {
		s.pairs = s.pairs[:0]
		for e := pt.VarStart[i]; e < pt.VarStart[i+1]; e++ {
			s.pairs = append(s.pairs, uint64(uint32(factorColour(pt.VarFactor[e])))<<32|uint64(uint32(pt.VarKey[e])))
		}
		slices.Sort(s.pairs)
		s.buf = appendSignature(s.buf[:0], varColour(v), s.pairs)
		emit(s.buf, v)
	}
}

func appendSignature(buf []byte, own int32, pairs []uint64) []byte {
	buf = binary.LittleEndian.AppendUint32(buf, uint32(own))
	for _, p := range pairs {
		buf = binary.LittleEndian.AppendUint64(buf, p)
	}
	return buf
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
