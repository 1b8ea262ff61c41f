package fg_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/lifted-dev/lifted/fg"
)

func TestTableInterning(t *testing.T) {
	b := fg.NewBuilder()
	b.AddVars(3, 2)
	f0, _ := b.AddFactor([]int32{0, 1}, []float64{1, 2, 3, 4})
	f1, _ := b.AddFactor([]int32{1, 2}, []float64{1, 2, 3, 4})
	f2, _ := b.AddFactor([]int32{0, 2}, []float64{1, 2, 3, 5})
	f3, _ := b.AddFactor([]int32{0}, []float64{1, 2})
	g := b.Build()
	if g.FactorTable[f0] != g.FactorTable[f1] {
		t.Error("identical tables got different ids")
	}
	if g.FactorTable[f0] == g.FactorTable[f2] || g.FactorTable[f0] == g.FactorTable[f3] {
		t.Error("different tables share an id")
	}
	if len(g.Tables) != 3 {
		t.Errorf("%d tables, want 3", len(g.Tables))
	}
	if err := g.Validate(); err != nil {
		t.Fatal(err)
	}
}

func TestAdjacency(t *testing.T) {
	b := fg.NewBuilder()
	b.AddVars(3, 2)
	b.AddFactor([]int32{2, 0}, []float64{1, 1, 1, 1})
	b.AddFactor([]int32{1}, []float64{1, 1})
	b.AddFactor([]int32{0, 1, 2}, []float64{1, 1, 1, 1, 1, 1, 1, 1})
	g := b.Build()
	if g.NumEdges() != 6 || g.Degree(0) != 2 || g.Degree(1) != 2 || g.Degree(2) != 2 {
		t.Fatalf("edges %d degrees %d %d %d", g.NumEdges(), g.Degree(0), g.Degree(1), g.Degree(2))
	}
	// Each variable's edges point back at it, in increasing factor order.
	for v := 0; v < g.NumVars(); v++ {
		last := -1
		for _, e := range g.VarEdges[g.VarStart[v]:g.VarStart[v+1]] {
			if g.EdgeVar[e] != int32(v) {
				t.Fatalf("edge %d of variable %d belongs to %d", e, v, g.EdgeVar[e])
			}
			f := g.EdgeFactor(e)
			if f <= last {
				t.Fatalf("variable %d: factors out of order", v)
			}
			last = f
		}
	}
}

func TestBuilderErrors(t *testing.T) {
	b := fg.NewBuilder()
	b.AddVars(2, 2)
	b.AddVar(3)
	cases := []struct {
		scope  []int32
		values []float64
		want   string
	}{
		{[]int32{0, 1}, []float64{1, 2, 3}, "entries"},
		{[]int32{0}, []float64{1, -1}, "non-negative"},
		{[]int32{0}, []float64{1, math.NaN()}, "non-negative"},
		{[]int32{0}, []float64{1, math.Inf(1)}, "non-negative"},
		{[]int32{5}, []float64{1, 1}, "out of range"},
		{[]int32{0, 0}, []float64{1, 1, 1, 1}, "twice"},
	}
	for _, c := range cases {
		_, err := b.AddFactor(c.scope, c.values)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("AddFactor(%v, %v) = %v, want error with %q", c.scope, c.values, err, c.want)
		}
	}
	_, err := b.AddFactor([]int32{0, 0}, []float64{1, 1, 1, 1})
	if !errors.Is(err, fg.ErrDuplicateVar) {
		t.Errorf("duplicate variable: %v", err)
	}
}

func TestCheckEvidence(t *testing.T) {
	b := fg.NewBuilder()
	b.AddVars(2, 2)
	b.AddFactor([]int32{0, 1}, []float64{1, 0, 0, 1}) // x0 = x1
	g := b.Build()
	if err := g.CheckEvidence(fg.Evidence{0, 0}); err != nil {
		t.Errorf("consistent evidence rejected: %v", err)
	}
	if err := g.CheckEvidence(fg.Evidence{0, 1}); !errors.Is(err, fg.ErrContradiction) {
		t.Errorf("contradiction not found: %v", err)
	}
	if err := g.CheckEvidence(fg.Evidence{0, 2}); err == nil {
		t.Error("out-of-range evidence accepted")
	}
	if err := g.CheckEvidence(fg.Evidence{0}); err == nil {
		t.Error("short evidence accepted")
	}
}
