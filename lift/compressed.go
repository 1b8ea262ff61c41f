package lift

import (
	"context"
	"fmt"
	"math"
	"math/big"
	"math/bits"

	"github.com/lifted-dev/lifted/fg"
)

// Compressed is a counted factor graph: the result of compressing a ground
// graph, or the ground graph itself with all counts 1.
type Compressed struct {
	// Ground is the graph this compresses; its tables are shared.
	Ground *fg.Graph

	// Clusternodes.
	NodeCard     []int32 // states of the clusternode's variables
	NodeSize     []int64 // number of ground variables in the clusternode
	NodeEvidence []int32 // observed state, or -1
	NodeOf       []int32 // ground variable → clusternode
	// NodeEdgeStart[X]..NodeEdgeStart[X+1] indexes NodeEdges, the lifted
	// edges at clusternode X.
	NodeEdgeStart []int32
	NodeEdges     []int32

	// Clusterfactors.
	FactorRep  []int32 // a representative ground factor
	FactorSize []int64 // number of ground factors in the clusterfactor
	FactorOf   []int32 // ground factor → clusterfactor
	// PosEdge[FactorPosStart[F]+p] is the lifted edge of position p of the
	// representative of F.
	FactorPosStart []int32
	PosEdge        []int32

	// Lifted edges (slots).
	EdgeFactor []int32 // clusterfactor
	EdgeNode   []int32 // clusternode
	EdgePos    []int32 // a position of the representative in this slot
	EdgeMult   []int32 // number of the representative's positions in this slot
	// EdgeCount[s] is c(F, X, s): the number of ground edges of slot s at each
	// ground variable of X.
	EdgeCount []int64

	// Approximate says that the colouring was stable only up to counts
	// (approximate colour passing, lift.Options.CountTolerance): some
	// EdgeCount is a rounded mean, and BP on this graph approximates
	// ground BP rather than equalling it. GroundSlot then maps every
	// ground edge of Ground to its lifted edge (nil otherwise).
	Approximate bool
	GroundSlot  []int32
}

// NumNodes returns the number of clusternodes.
func (c *Compressed) NumNodes() int { return len(c.NodeCard) }

// NumFactors returns the number of clusterfactors.
func (c *Compressed) NumFactors() int { return len(c.FactorRep) }

// NumEdges returns the number of lifted edges.
func (c *Compressed) NumEdges() int { return len(c.EdgeNode) }

// Table returns the table of clusterfactor F (its representative's).
func (c *Compressed) Table(F int) *fg.Table { return c.Ground.Table(int(c.FactorRep[F])) }

// Positions returns, for each position of F's representative, its lifted
// edge. The slice aliases internal storage.
func (c *Compressed) Positions(F int) []int32 {
	return c.PosEdge[c.FactorPosStart[F]:c.FactorPosStart[F+1]]
}

// Degree returns the number of ground factors at each variable of X.
func (c *Compressed) Degree(X int) int64 {
	var d int64
	for _, s := range c.NodeEdges[c.NodeEdgeStart[X]:c.NodeEdgeStart[X+1]] {
		d += c.EdgeCount[s]
	}
	return d
}

// Ground returns g as a counted graph with every count 1.
func Ground(g *fg.Graph, ev fg.Evidence) (*Compressed, error) {
	return GroundContext(context.Background(), g, ev)
}

// GroundContext is Ground under a context: on a graph of millions of
// factors it takes seconds, and it polls ctx and returns its error once
// it has ended (Ctrl-C between the grounding and inference).
func GroundContext(ctx context.Context, g *fg.Graph, ev fg.Evidence) (*Compressed, error) {
	if err := g.CheckEvidence(ev); err != nil {
		return nil, err
	}
	nv, nf := g.NumVars(), g.NumFactors()
	vc := make([]int32, nv)
	for i := range vc {
		vc[i] = int32(i)
	}
	fcol := make([]int32, nf)
	for i := range fcol {
		fcol[i] = int32(i)
	}
	keys := make([]int32, g.NumEdges())
	for f := 0; f < nf; f++ {
		if f%pollEvery == pollEvery-1 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		for e := g.FactorStart[f]; e < g.FactorStart[f+1]; e++ {
			keys[e] = int32(e - g.FactorStart[f])
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return build(ctx, g, ev, vc, nv, fcol, nf, keys, false)
}

// build assembles the counted graph from a stable colouring: varColor and
// factorColor dense in 0..nvc-1 and 0..nfc-1, numbered by first appearance;
// edgeKey the slot key of each ground edge; approx when the colouring
// is stable only up to counts (approximate colour passing).
func build(ctx context.Context, g *fg.Graph, ev fg.Evidence, varColor []int32, nvc int, factorColor []int32, nfc int, edgeKey []int32, approx bool) (*Compressed, error) {
	c := &Compressed{
		Ground:       g,
		NodeCard:     make([]int32, nvc),
		NodeSize:     make([]int64, nvc),
		NodeEvidence: make([]int32, nvc),
		NodeOf:       varColor,
		FactorRep:    make([]int32, nfc),
		FactorSize:   make([]int64, nfc),
		FactorOf:     factorColor,
	}
	for i := range c.NodeEvidence {
		c.NodeEvidence[i] = -2
	}
	for v, X := range varColor {
		c.NodeSize[X]++
		e := int32(-1)
		if ev != nil {
			e = ev[v]
		}
		if c.NodeEvidence[X] == -2 {
			c.NodeEvidence[X] = e
			c.NodeCard[X] = g.Card[v]
		} else if c.NodeEvidence[X] != e || c.NodeCard[X] != g.Card[v] {
			return nil, fmt.Errorf("lift: clusternode %d mixes evidence or cardinalities (variable %d)", X, v)
		}
	}
	for i := range c.FactorRep {
		c.FactorRep[i] = -1
	}
	for f, F := range factorColor {
		if f%pollEvery == pollEvery-1 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		c.FactorSize[F]++
		if c.FactorRep[F] < 0 {
			c.FactorRep[F] = int32(f)
		}
	}
	if err := c.finishSlots(ctx, edgeKey, approx); err != nil {
		return nil, err
	}
	if approx {
		s, err := c.groundSlots(edgeKey)
		if err != nil {
			return nil, err
		}
		c.GroundSlot = s
	}
	return c, nil
}

// pollEvery is how many factors build goes through between two polls of
// its context (tens of nanoseconds each).
const pollEvery = 1 << 14

// FinishSlots completes a counted graph whose Ground, NodeOf, NodeSize,
// FactorRep and FactorSize are set: it groups the positions of each
// representative factor into slots by (slot key, clusternode) — edgeKey
// holds each ground edge's key, as EdgeKeys returns them — and computes
// each slot's count and the node → edge index. Colour passing and the
// first-order construction (package lift/firstorder) both end with it.
// A slot whose ground edges do not divide evenly over its clusternode's
// variables means the colouring was not stable: an error.
func (c *Compressed) FinishSlots(edgeKey []int32) error {
	return c.finishSlots(context.Background(), edgeKey, false)
}

// finishSlots is FinishSlots; with approx, a slot whose ground edges do
// not divide evenly gets the rounded mean count (roundedCount) and marks
// the graph Approximate. It polls ctx every pollEvery factors.
func (c *Compressed) finishSlots(ctx context.Context, edgeKey []int32, approx bool) error {
	g := c.Ground
	nvc, nfc := len(c.NodeSize), len(c.FactorSize)
	c.FactorPosStart = make([]int32, nfc+1)
	for F := 0; F < nfc; F++ {
		r := int(c.FactorRep[F])
		c.FactorPosStart[F+1] = c.FactorPosStart[F] + int32(g.FactorStart[r+1]-g.FactorStart[r])
	}
	c.PosEdge = make([]int32, c.FactorPosStart[nfc])
	// at most a slot per position: allocated once (the trivial
	// compression of a grounding has exactly one per position, and growing
	// by appends held up to a quarter more, and the garbage of each growth)
	np := len(c.PosEdge)
	c.EdgeFactor, c.EdgeNode, c.EdgePos, c.EdgeMult = make([]int32, 0, np), make([]int32, 0, np), make([]int32, 0, np), make([]int32, 0, np)
	for F := 0; F < nfc; F++ {
		if F%pollEvery == pollEvery-1 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		r := int(c.FactorRep[F])
		base := g.FactorStart[r]
		first := int32(len(c.EdgeNode))
		for p, v := range g.Scope(r) {
			X := c.NodeOf[v]
			k := edgeKey[base+int64(p)]
			s := int32(-1)
			for t := first; t < int32(len(c.EdgeNode)); t++ {
				if c.EdgeNode[t] == X && edgeKey[base+int64(c.EdgePos[t])] == k {
					s = t
					break
				}
			}
			if s < 0 {
				s = int32(len(c.EdgeNode))
				c.EdgeFactor = append(c.EdgeFactor, int32(F))
				c.EdgeNode = append(c.EdgeNode, X)
				c.EdgePos = append(c.EdgePos, int32(p))
				c.EdgeMult = append(c.EdgeMult, 0)
			}
			c.EdgeMult[s]++
			c.PosEdge[c.FactorPosStart[F]+int32(p)] = s
		}
	}
	ne := len(c.EdgeNode)
	c.EdgeCount = make([]int64, ne)
	for s := 0; s < ne; s++ {
		n := c.NodeSize[c.EdgeNode[s]]
		// Ground edges of the slot: factors × positions, which for a
		// first-order construction can pass 2^63 before the division.
		hi, lo := bits.Mul64(uint64(c.FactorSize[c.EdgeFactor[s]]), uint64(c.EdgeMult[s]))
		if hi == 0 && lo <= math.MaxInt64 {
			tot := int64(lo)
			if tot%n != 0 && approx {
				c.EdgeCount[s] = roundedCount(tot, n)
				c.Approximate = true
				continue
			}
			if tot%n != 0 {
				return fmt.Errorf("lift: colouring is not stable: slot %d has %d ground edges over %d variables", s, tot, n)
			}
			c.EdgeCount[s] = tot / n
			continue
		}
		var tot, q, r big.Int
		tot.SetInt64(c.FactorSize[c.EdgeFactor[s]])
		tot.Mul(&tot, big.NewInt(int64(c.EdgeMult[s])))
		q.QuoRem(&tot, big.NewInt(n), &r)
		if r.Sign() != 0 || !q.IsInt64() {
			return fmt.Errorf("lift: colouring is not stable: slot %d has %v ground edges over %d variables", s, &tot, n)
		}
		c.EdgeCount[s] = q.Int64()
	}
	// Node → edge CSR.
	c.NodeEdgeStart = make([]int32, nvc+1)
	for _, X := range c.EdgeNode {
		c.NodeEdgeStart[X+1]++
	}
	for X := 0; X < nvc; X++ {
		c.NodeEdgeStart[X+1] += c.NodeEdgeStart[X]
	}
	c.NodeEdges = make([]int32, ne)
	next := make([]int32, nvc)
	copy(next, c.NodeEdgeStart[:nvc])
	for s, X := range c.EdgeNode {
		c.NodeEdges[next[X]] = int32(s)
		next[X]++
	}
	return nil
}
