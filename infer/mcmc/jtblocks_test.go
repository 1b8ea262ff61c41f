package mcmc

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/internal/brute"
	"github.com/lifted-dev/lifted/internal/gen"
)

// TestJTBlocksCover: on frustrated grids with and without evidence, the
// first cover of junction-tree blocks partitions the unobserved
// variables, no block's largest table exceeds the budget, no block holds
// an observed variable, and (the budget allowing every factor's scope)
// every factor over two unobserved variables lies inside some block; on
// a 10×10 grid with a budget below its treewidth there are several
// blocks in two covers.
func TestJTBlocksCover(t *testing.T) {
	for _, c := range []struct {
		side   int
		budget float64
		ev     bool
	}{{10, 64, false}, {10, 1024, false}, {10, 1024, true}, {7, 16, true}, {4, 1 << 20, false}} {
		name := fmt.Sprintf("%d×%d budget %g evidence %v", c.side, c.side, c.budget, c.ev)
		r := rand.New(rand.NewPCG(uint64(c.side), 3))
		g := gen.FrustratedGrid(r, c.side, 2, 2.5, 0.5)
		ev := fg.NoEvidence(g.NumVars())
		if c.ev {
			for v := range ev {
				if r.IntN(5) == 0 {
					ev[v] = int32(r.IntN(2))
				}
			}
		}
		jb, err := newJTBlocks(context.Background(), g, ev, c.budget)
		if err != nil {
			t.Fatal(err)
		}
		first := make([]int, g.NumVars())
		inside := make([]bool, g.NumFactors())
		blockOf := make([]int, g.NumVars())
		for bi, b := range jb.blocks {
			if p := b.Plan(); p.Largest > c.budget && len(b.Vars()) > 1 {
				t.Errorf("%s: block %d's largest table %g over the budget", name, bi, p.Largest)
			}
			for v := range blockOf {
				blockOf[v] = -1
			}
			for _, v := range b.Vars() {
				if ev[v] >= 0 {
					t.Fatalf("%s: observed variable %d in block %d", name, v, bi)
				}
				blockOf[v] = bi
			}
			for f := range g.NumFactors() {
				in := true
				for _, v := range g.Scope(f) {
					in = in && (ev[v] >= 0 || blockOf[v] == bi)
				}
				inside[f] = inside[f] || in
			}
		}
		// the first cover: blocks until every unobserved variable is in one
		covered := 0
		free := 0
		for v := range ev {
			if ev[v] < 0 {
				free++
			}
		}
		for _, b := range jb.blocks {
			if covered == free {
				break
			}
			for _, v := range b.Vars() {
				if first[v]++; first[v] > 1 {
					t.Fatalf("%s: variable %d twice in the first cover", name, v)
				}
				covered++
			}
		}
		split := 0
		for f := range g.NumFactors() {
			k := 0
			for _, v := range g.Scope(f) {
				if ev[v] < 0 {
					k++
				}
			}
			if k >= 2 && !inside[f] {
				split++
			}
		}
		if split != jb.split || split != 0 {
			t.Errorf("%s: %d factors split (the blocks say %d)", name, split, jb.split)
		}
		if c.side == 10 && !c.ev && (len(jb.blocks) < 3 || jb.covers < 2) {
			t.Errorf("%s: %d blocks in %d covers", name, len(jb.blocks), jb.covers)
		}
		if c.side == 4 && len(jb.blocks) != 1 {
			t.Errorf("%s: %d blocks, want the whole grid in one", name, len(jb.blocks))
		}
	}
}

// TestJTBlockedGibbsExact: blocked Gibbs with junction-tree blocks of at
// most 8 entries (treewidth 2: several blocks and covers) on a frustrated 4×4 grid with
// evidence answers within 4 standard errors plus 0.01 of enumeration,
// labelled mixed, and the same seed gives the same bytes.
func TestJTBlockedGibbsExact(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 4))
	g := gen.FrustratedGrid(r, 4, 2, 2.5, 0.5)
	ev := fg.NoEvidence(g.NumVars())
	ev[0], ev[15] = 1, 0
	ex := brute.Solve(g, ev)
	cfg := Config{Kernel: BGibbs, Blocks: BlocksJTree, BlockTable: 8, Samples: 3000, BurnIn: 100, Chains: 4, Seed: 9}
	res, err := Sample(context.Background(), g, ev, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.Clusters < 3 || !res.Diag.Mixed {
		t.Fatalf("%d blocks, mixed %v (%s)", res.Clusters, res.Diag.Mixed, res.Diag.Why)
	}
	for v := range g.NumVars() {
		got := res.Mean[res.Off[v]+1]
		want := ex.Marginals[v][1]
		if d := math.Abs(got - want); d > 4*res.StdErr[res.Off[v]+1]+0.01 {
			t.Errorf("variable %d: %.4f, exact %.4f (s.e. %.4f)", v, got, want, res.StdErr[res.Off[v]+1])
		}
	}
	again, err := Sample(context.Background(), g, ev, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(again.Mean) != fmt.Sprint(res.Mean) {
		t.Fatal("the same seed gives other marginals")
	}
	cfg.Seed++
	other, _ := Sample(context.Background(), g, ev, cfg)
	if fmt.Sprint(other.Mean) == fmt.Sprint(res.Mean) {
		t.Fatal("seeds 9 and 10 give the same marginals")
	}
}
