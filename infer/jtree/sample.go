package jtree

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

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
//
// A block keeps its own small graph: its variables (numbered from 0 in
// ascending order of their ids in the caller's graph), then the other
// variables of its factors (its Markov blanket), and the factors that
// hold a variable of the block. Building, planning and drawing a block
// so cost in proportion to the block and its factors, not to the whole
// graph, and the plan is the one the whole graph would give (the
// numbering keeps the variables' order, so every tie breaks alike).
type Block struct {
	g    *fg.Graph // the block's graph: its variables, then its blanket
	glob []int32   // per variable of g, its variable in the caller's graph
	vars []int32   // the caller's variables, in the caller's order
	plan *Plan     // over g
	logT [][]float64
}

// NewBlock plans the junction tree of the variables vars of g (distinct,
// each with at least one state) given every other variable. It fails with
// a *TooLargeError when the plan's largest clique table has more than
// maxTable entries (maxTable <= 0: no limit). The elimination order is
// NewPlan's or the order of vars, whichever fits the limit with fewer
// table entries in all. Its cost is that of the block's own factors (a
// binary search per edge to find them), whatever the size of g.
func NewBlock(ctx context.Context, g *fg.Graph, vars []int32, maxTable float64) (*Block, error) {
	lg, glob, err := blockGraph(g, vars)
	if err != nil {
		return nil, err
	}
	mask, rankOf := blockMask(glob, vars)
	p, err := planWithin(ctx, lg, mask, maxTable, 0, glob)
	if err != nil {
		return nil, err
	}
	// The caller's order as an elimination order too: a block grown row
	// by row on a grid, eliminated in that order, has the grid's width as
	// its treewidth, where min-fill's is larger (13 instead of 10 on a
	// 10×10 grid).
	q, err := newPlan(ctx, lg, mask, limitOrInf(maxTable), 0, givenOrder, 0, rankOf, nil, nil)
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
	b := &Block{g: lg, glob: glob, vars: slices.Clone(vars), plan: p, logT: make([][]float64, len(lg.Tables))}
	for f := range lg.NumFactors() {
		logTable(lg, b.logT, f)
	}
	return b, nil
}

// BlockFits reports whether NewBlock(ctx, g, vars, maxTable) would make a
// block (rather than fail with a *TooLargeError) at less cost: the order
// of vars is tried first, and only when it does not fit NewPlan's orders
// (a caller that grows blocks tries many candidates; NewBlock plans the
// one kept).
func BlockFits(ctx context.Context, g *fg.Graph, vars []int32, maxTable float64) (bool, error) {
	lg, glob, err := blockGraph(g, vars)
	if err != nil {
		return false, err
	}
	mask, rankOf := blockMask(glob, vars)
	q, err := newPlan(ctx, lg, mask, limitOrInf(maxTable), 0, givenOrder, 0, rankOf, nil, nil)
	if err != nil || q.Complete {
		return err == nil, err
	}
	p, err := planWithin(ctx, lg, mask, maxTable, 0, glob)
	if err != nil {
		return false, err
	}
	return p.Complete, nil
}

// blockMask is the evidence of a block's graph (its variables, the first
// len(vars), unobserved; its blanket observed) and the rank of each of
// its variables in the caller's order vars.
func blockMask(glob, vars []int32) (fg.Evidence, []float64) {
	k := len(vars)
	mask := make(fg.Evidence, len(glob))
	rankOf := make([]float64, len(glob))
	for i, v := range vars {
		j, _ := slices.BinarySearch(glob[:k], v) // the block's variables ascend
		mask[j] = -1
		rankOf[j] = float64(i)
	}
	return mask, rankOf
}

// blockGraph is the graph of the block vars of g: vars in ascending order
// of id, then the other variables of their factors in the order met; the
// factors that hold a variable of vars, in the order met (vars in the
// caller's order, each one's factors ascending), with their tables.
// glob maps its variables to g's.
func blockGraph(g *fg.Graph, vars []int32) (*fg.Graph, []int32, error) {
	n := g.NumVars()
	local := make(map[int32]int32, 4*len(vars))
	glob := slices.Clone(vars)
	for _, v := range vars {
		if v < 0 || int(v) >= n {
			return nil, nil, fmt.Errorf("jtree: block variable %d out of range [0, %d)", v, n)
		}
		if _, ok := local[v]; ok {
			return nil, nil, fmt.Errorf("jtree: block variable %d listed twice", v)
		}
		local[v] = -1
	}
	slices.Sort(glob)
	for i, v := range glob {
		local[v] = int32(i)
	}
	var factors []int32
	seen := make(map[int32]bool)
	for _, v := range vars {
		for e := g.VarStart[v]; e < g.VarStart[v+1]; e++ {
			f := int32(g.EdgeFactor(g.VarEdges[e]))
			if seen[f] {
				continue
			}
			seen[f] = true
			factors = append(factors, f)
			for _, u := range g.Scope(int(f)) {
				if _, ok := local[u]; !ok {
					local[u] = int32(len(glob))
					glob = append(glob, u)
				}
			}
		}
	}
	bd := fg.NewBuilder()
	for _, v := range glob {
		bd.AddVar(int(g.Card[v]))
	}
	tabOf := make(map[int32]int32)
	var scope []int32
	for _, f := range factors {
		t := g.FactorTable[f]
		id, ok := tabOf[t]
		if !ok {
			var err error
			if id, err = bd.Table(g.Tables[t].Dims, g.Tables[t].Values); err != nil {
				return nil, nil, err
			}
			tabOf[t] = id
		}
		scope = scope[:0]
		for _, u := range g.Scope(int(f)) {
			scope = append(scope, local[u])
		}
		if _, err := bd.AddFactorTable(scope, id); err != nil {
			return nil, nil, err
		}
	}
	return bd.Build(), glob, nil
}

// Vars returns the block's variables (not to be modified).
func (b *Block) Vars() []int32 { return b.vars }

// Plan returns the block's junction-tree plan (not to be modified). It
// is over the block's own graph: variable i of the plan is the block's
// i-th variable in ascending order of id (Order returns the elimination
// order in the caller's numbering).
func (b *Block) Plan() *Plan { return b.plan }

// Order returns the block's elimination order in the caller's numbering.
func (b *Block) Order() []int32 {
	o := make([]int32, len(b.plan.Order))
	for i, v := range b.plan.Order {
		o[i] = b.glob[v]
	}
	return o
}

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
	x  []int32 // the state of the block's graph
}

// Drawer returns a drawer of b with its own scratch.
func (b *Block) Drawer() *BlockDrawer {
	return &BlockDrawer{b: b, lt: newLogTree(b.g, b.plan), x: make([]int32, len(b.glob))}
}

// Draw replaces the block's variables in x (a state of every variable of
// the graph) by a draw from their joint conditional distribution given
// the others' states in x, under p(x) ∝ Π_f φ_f(x). It returns the log of
// the conditional's normaliser (the log of the total weight of the
// block's factors over the block's states), and ErrNoWorld, leaving x
// unchanged, when every state of the block has weight zero.
func (d *BlockDrawer) Draw(rng *rand.Rand, x []int32) (float64, error) {
	b := d.b
	k := len(b.vars)
	lx := d.x
	for i := range k {
		lx[i] = -1 // the block unobserved
	}
	for i := k; i < len(lx); i++ {
		lx[i] = x[b.glob[i]] // the blanket: the evidence
	}
	logZ, err := d.lt.upward(context.Background(), b.g, fg.Evidence(lx), b.logT, nil, false)
	if err != nil {
		return 0, err
	}
	d.lt.decode(b.g, lx, func(row []float64) int { return drawLogRow(rng, row) })
	for i := range k {
		x[b.glob[i]] = lx[i]
	}
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
