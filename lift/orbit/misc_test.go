package orbit

import (
	"context"
	"errors"
	"testing"

	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/lift"
)

func TestBudgetAndContext(t *testing.T) {
	g := grid(12, 12, true)
	_, err := Automorphisms(context.Background(), g, nil, Options{MaxNodes: 3})
	if !errors.Is(err, ErrBudget) {
		t.Fatalf("MaxNodes 3: err = %v, want ErrBudget", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Automorphisms(ctx, g, nil, Options{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled context: err = %v", err)
	}
	if _, err := Automorphisms(context.Background(), g, []int32{500}, Options{}); err == nil {
		t.Fatal("fixed vertex out of range accepted")
	}
	if _, err := Automorphisms(context.Background(), g, nil, Options{Engine: "bliss"}); err == nil {
		t.Fatal("unknown engine accepted")
	}
	if _, err := NewGraph([]int32{0, 0}, [][2]int32{{0, 2}}); err == nil {
		t.Fatal("edge out of range accepted")
	}
	fgr := fruchtFG()
	if _, err := FactorGraph(context.Background(), fgr, fg.Evidence{0}, Options{}); err == nil {
		t.Fatal("short evidence accepted")
	}
}

// fruchtFG is the Frucht graph as a factor graph: a binary variable per
// vertex, one shared symmetric pairwise table per edge.
func fruchtFG() *fg.Graph {
	b := fg.NewBuilder()
	b.AddVars(12, 2)
	tab, _ := b.Table([]int32{2, 2}, []float64{3, 1, 1, 2})
	f := frucht()
	for v := range int32(12) {
		for _, w := range f.Neighbours(v) {
			if v < w {
				b.AddFactorTable([]int32{v, w}, tab)
			}
		}
	}
	return b.Build()
}

// Colour passing puts all of the Frucht graph's variables in one class (it
// is cubic), but its automorphism group is trivial: 12 orbits, which is why
// CYCLE constraints need orbits rather than the equitable partition.
func TestFruchtFactorGraph(t *testing.T) {
	g := fruchtFG()
	c, _, err := lift.Compress(context.Background(), g, nil, lift.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if c.NumNodes() != 1 {
		t.Fatalf("colour passing: %d classes, expected 1", c.NumNodes())
	}
	res, err := FactorGraph(context.Background(), g, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.NumVarOrbits != 12 || res.NumFactorOrbits != 18 || res.Stats.GroupSize != 1 {
		t.Fatalf("orbits %d/%d, group %v; want 12/18 and 1", res.NumVarOrbits, res.NumFactorOrbits, res.Stats.GroupSize)
	}
}
