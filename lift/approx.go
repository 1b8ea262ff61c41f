package lift

import (
	"fmt"
	"math"
	"slices"

	"github.com/lifted-dev/lifted/fg"
)

// Approximate colour passing (Options.CountTolerance > 0) is colour passing
// that stops telling variables apart by how often they meet a factor colour
// once those counts are within a factor 1+ε of each other: a variable's
// signature is its own colour and, for every (factor colour, slot key) it
// meets, that word and the bucket ⌊ln(count)/ln(1+ε)⌋ of its count instead
// of the word repeated count times. Counts 1 and 2 stay apart for ε < 1,
// and a variable that does not meet a factor colour at all is never merged
// with one that does; so the approximation only ever pools variables whose
// neighbourhoods have the same kinds of factors in nearly the same numbers
// (Singla, Nath and Domingos's approximate lifting, AAAI 2014, with a count
// tolerance in place of their early stop). Factors are refined exactly, so
// every factor of a clusterfactor sees the same clusternodes at the same
// slots.
//
// The partition is then stable up to the counts: the ground variables of a
// clusternode meet a slot's factors a varying number of times. The counted
// graph gives each lifted edge the rounded mean count (at least 1), and
// Compressed.Approximate says that some count was rounded; lifted BP on it
// is then an approximation of ground BP whose error bp.EstimateError
// estimates from a few ground iterations warm-started at the lifted
// messages. ε = 0 is exact colour passing, unchanged.

// countBuckets returns the bucket function of count tolerance eps: counts
// whose logarithms fall in one interval of width ln(1+eps) share a bucket.
func countBuckets(eps float64) func(c int64) uint64 {
	inv := 1 / math.Log1p(eps)
	return func(c int64) uint64 {
		return uint64(math.Floor(math.Log(float64(c)) * inv))
	}
}

// signVarApprox appends variable v's approximate signature: its own
// colour, then for every distinct (factor colour, slot key) word over its
// edges, in sorted order, the word and the bucket of its multiplicity.
func (a *adjacency) signVarApprox(v int32, vc, fc []int32, buf []uint64, bucket func(int64) uint64) []uint64 {
	buf = a.signVar(v, vc, fc, buf)
	// Run-length encode the sorted words after the own colour: the runs
	// go after them, then move down over them.
	n := int(a.vStart[v+1] - a.vStart[v])
	start := len(buf) - n
	end := len(buf)
	for i := start; i < end; {
		j := i + 1
		for j < end && buf[j] == buf[i] {
			j++
		}
		buf = append(buf, buf[i], 1<<63|bucket(int64(j-i)))
		i = j
	}
	m := copy(buf[start:], buf[end:])
	return buf[:start+m]
}

// roundedCount is the count of a lifted edge with tot ground edges over n
// variables when the colouring is stable only up to counts: the mean,
// rounded, and at least 1 (every variable of the clusternode meets the
// slot at least once).
func roundedCount(tot, n int64) int64 {
	return max(1, (tot+n/2)/n)
}

// groundSlots maps every ground edge of c.Ground to the lifted edge it
// belongs to: the slot of its factor's clusterfactor with the edge's slot
// key and its variable's clusternode.
func (c *Compressed) groundSlots(edgeKey []int32) ([]int32, error) {
	g := c.Ground
	out := make([]int32, g.NumEdges())
	var slots []int32
	for f := 0; f < g.NumFactors(); f++ {
		F := c.FactorOf[f]
		r := c.FactorRep[F]
		rbase := g.FactorStart[r]
		slots = slices.Grow(slots[:0], int(c.FactorPosStart[F+1]-c.FactorPosStart[F]))
		slots = append(slots, c.Positions(int(F))...)
		for e := g.FactorStart[f]; e < g.FactorStart[f+1]; e++ {
			X := c.NodeOf[g.EdgeVar[e]]
			k := edgeKey[e]
			s := int32(-1)
			for _, t := range slots {
				if c.EdgeNode[t] == X && edgeKey[rbase+int64(c.EdgePos[t])] == k {
					s = t
					break
				}
			}
			if s < 0 {
				return nil, fmt.Errorf("lift: ground factor %d has no slot of clusterfactor %d for its edge %d", f, F, e-g.FactorStart[f])
			}
			out[e] = s
		}
	}
	return out, nil
}

// QuantiseFields returns g with the unary factors of every variable merged
// into one, whose log-potentials are rounded to multiples of delta (after
// subtracting their largest finite value; zeros stay zeros), and dropped
// where they round to a constant; the other factors are g's, in g's order
// and before the unary ones. Every variable keeps its index. BP on the
// result differs from BP on g only through the rounding: each local
// log-potential moves by at most delta/2, each log-odds by at most delta.
// It returns g itself when delta is not positive.
func QuantiseFields(g *fg.Graph, delta float64) (*fg.Graph, error) {
	if !(delta > 0) {
		return g, nil
	}
	nv := g.NumVars()
	field := make([][]float64, nv) // per variable: Σ ln of its unary tables, nil if none
	b := fg.NewBuilder()
	for v := 0; v < nv; v++ {
		b.AddVar(int(g.Card[v]))
	}
	b.Grow(g.NumFactors(), g.NumEdges())
	for f := 0; f < g.NumFactors(); f++ {
		sc := g.Scope(f)
		t := g.Table(f)
		if len(sc) == 1 {
			v := sc[0]
			if field[v] == nil {
				field[v] = make([]float64, g.Card[v])
			}
			for x, p := range t.Values {
				field[v][x] += math.Log(p)
			}
			continue
		}
		id, err := b.Table(t.Dims, t.Values)
		if err != nil {
			return nil, err
		}
		if _, err := b.AddFactorTable(sc, id); err != nil {
			return nil, err
		}
	}
	vals := []float64{}
	for v, l := range field {
		if l == nil {
			continue
		}
		top := math.Inf(-1)
		for _, x := range l {
			if !math.IsInf(x, 0) && !math.IsNaN(x) {
				top = max(top, x)
			}
		}
		vals = vals[:0]
		constant := true
		for _, x := range l {
			p := 0.0
			if !math.IsInf(x, -1) {
				p = math.Exp(delta * math.Round((x-top)/delta))
			}
			if p != 1 {
				constant = false
			}
			vals = append(vals, p)
		}
		if constant {
			continue
		}
		if _, err := b.AddFactor([]int32{int32(v)}, vals); err != nil {
			return nil, err
		}
	}
	return b.Build(), nil
}

// GroundEdgeSlots maps the edges of g to c's lifted edges, where c is an
// approximate compression (GroundSlot set) of g itself or of
// QuantiseFields(g): the edges of g's unary factors that QuantiseFields
// merged away map to -1.
func (c *Compressed) GroundEdgeSlots(g *fg.Graph) ([]int32, error) {
	if c.GroundSlot == nil {
		return nil, fmt.Errorf("lift: the compression has no ground slots (not approximate colour passing)")
	}
	if c.Ground == g {
		return c.GroundSlot, nil
	}
	h := c.Ground
	out := make([]int32, g.NumEdges())
	k := 0 // factor of h
	for f := 0; f < g.NumFactors(); f++ {
		lo, hi := g.FactorStart[f], g.FactorStart[f+1]
		if hi-lo == 1 {
			out[lo] = -1
			continue
		}
		if k >= h.NumFactors() || !slices.Equal(g.Scope(f), h.Scope(k)) {
			return nil, fmt.Errorf("lift: factor %d of the graph is not factor %d of the compressed graph", f, k)
		}
		copy(out[lo:hi], c.GroundSlot[h.FactorStart[k]:h.FactorStart[k+1]])
		k++
	}
	return out, nil
}
