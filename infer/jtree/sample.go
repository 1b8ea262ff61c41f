package jtree

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/lifted-dev/lifted/fg"
)

// Block is a set of variables of a graph drawn jointly and exactly from
// their conditional distribution given the rest of a world (blocked Gibbs
// sampling with junction-tree blocks: Jensen, Kong and Kjærulff 1995):
// forward filtering is the upward pass of the log-space junction tree of
// the block (the variables outside it read as evidence, only the factors
// that hold a variable of the block loaded), backward sampling draws each
// variable in reverse elimination order from its clique's row given the
// variables drawn before it — the decoding of MAP with a draw in place of
// the maximum. A Block is read-only and may be shared by goroutines, each
// drawing with its own BlockDrawer.
type Block struct {
	g       *fg.Graph
	vars    []int32
	plan    *Plan
	factors []int32
	logT    [][]float64
}

// NewBlock plans the junction tree of the variables vars of g (distinct,
// each with at least one state) given every other variable. It fails with
// a *TooLargeError when the plan's largest clique table has more than
// maxTable entries (maxTable <= 0: no limit). The elimination order is
// NewPlan's or the order of vars, whichever fits the limit with fewer
// table entries in all.
func NewBlock(ctx context.Context, g *fg.Graph, vars []int32, maxTable float64) (*Block, error) {
	n := g.NumVars()
	mask := make(fg.Evidence, n) // the block unobserved, the rest observed (at any state)
	for _, v := range vars {
		if v < 0 || int(v) >= n {
			return nil, fmt.Errorf("jtree: block variable %d out of range [0, %d)", v, n)
		}
		if mask[v] < 0 {
			return nil, fmt.Errorf("jtree: block variable %d listed twice", v)
		}
		mask[v] = -1
	}
	p, err := NewPlan(ctx, g, mask, maxTable)
	if err != nil {
		return nil, err
	}
	// The caller's order as an elimination order too: a block grown row
	// by row on a grid, eliminated in that order, has the grid's width as
	// its treewidth, where min-fill's is larger (13 instead of 10 on a
	// 10×10 grid).
	rankOf := make([]float64, n)
	for i, v := range vars {
		rankOf[v] = float64(i)
	}
	q, err := newPlan(ctx, g, mask, limitOrInf(maxTable), 0, givenOrder, 0, rankOf)
	if err != nil {
		return nil, err
	}
	// Both within the limit: the fewer entries in all (a draw's work).
	if q.Complete && (!p.Complete || q.Total < p.Total) {
		p = q
	}
	if !p.Complete {
		return nil, &TooLargeError{Plan: p, What: "a block's largest table", Limit: maxTable, Prop: "max-table"}
	}
	b := &Block{g: g, vars: append([]int32(nil), vars...), plan: p, factors: []int32{}, logT: make([][]float64, len(g.Tables))}
	fOf := g.EdgeFactors()
	seen := map[int32]bool{}
	for _, v := range vars {
		for e := g.VarStart[v]; e < g.VarStart[v+1]; e++ {
			f := fOf[g.VarEdges[e]]
			if !seen[f] {
				seen[f] = true
				b.factors = append(b.factors, f)
				logTable(g, b.logT, int(f))
			}
		}
	}
	return b, nil
}

// Vars returns the block's variables (not to be modified).
func (b *Block) Vars() []int32 { return b.vars }

// Plan returns the block's junction-tree plan (not to be modified).
func (b *Block) Plan() *Plan { return b.plan }

// Work is the number of clique-table entries one draw fills and reduces.
func (b *Block) Work() int {
	w := 0
	for i := range b.plan.Order {
		s := 1
		for _, v := range b.plan.Clique(i) {
			s *= int(b.g.Card[v])
		}
		w += s
	}
	return w
}

// BlockDrawer draws a Block; it holds the scratch of one goroutine.
type BlockDrawer struct {
	b  *Block
	lt *logTree
	w  []float64
}

// Drawer returns a drawer of b with its own scratch.
func (b *Block) Drawer() *BlockDrawer {
	return &BlockDrawer{b: b, lt: newLogTree(b.g, b.plan)}
}

// Draw replaces the block's variables in x (a state of every variable of
// the graph) by a draw from their joint conditional distribution given
// the others' states in x, under p(x) ∝ Π_f φ_f(x). It returns the log of
// the conditional's normaliser (the log of the total weight of the
// block's factors over the block's states), and ErrNoWorld, leaving x
// unchanged, when every state of the block has weight zero.
func (d *BlockDrawer) Draw(rng *rand.Rand, x []int32) (float64, error) {
	b := d.b
	saved := d.w[:0]
	for _, v := range b.vars {
		saved = append(saved, float64(x[v]))
		x[v] = -1 // the evidence is x, the block unobserved
	}
	logZ, err := d.lt.upward(context.Background(), b.g, fg.Evidence(x), b.logT, b.factors, false)
	if err != nil {
		for i, v := range b.vars {
			x[v] = int32(saved[i])
		}
		d.w = saved
		return 0, err
	}
	d.w = saved
	d.lt.decode(b.g, x, func(row []float64) int { return drawLogRow(rng, row) })
	return logZ, nil
}

// drawLogRow draws s with probability ∝ exp(row[s]) (row is not
// modified): one uniform, two passes.
func drawLogRow(rng *rand.Rand, row []float64) int {
	mx := math.Inf(-1)
	for _, l := range row {
		mx = max(mx, l)
	}
	if len(row) == 1 || math.IsInf(mx, -1) || math.IsNaN(mx) {
		return 0
	}
	t := 0.0
	for _, l := range row {
		t += math.Exp(l - mx)
	}
	u := rng.Float64() * t
	for s, l := range row {
		if u -= math.Exp(l - mx); u < 0 {
			return s
		}
	}
	// rounding: the last state of positive weight
	for s := len(row) - 1; s >= 0; s-- {
		if !math.IsInf(row[s], -1) {
			return s
		}
	}
	return 0
}
