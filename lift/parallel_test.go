package lift_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/internal/gen"
	"github.com/lifted-dev/lifted/lift"
)

type modeModel struct {
	model
	opt lift.Options
}

// mapReduceModels are the graphs of lift's colour-passing tests (planted
// symmetry, larger grids and copies, CNF and symmetric modes) plus random
// graphs without planted symmetry.
func mapReduceModels() []modeModel {
	var ms []modeModel
	for _, m := range plantedModels(1) {
		ms = append(ms, modeModel{m, lift.Options{}})
	}
	r := rand.New(rand.NewPCG(21, 22))
	for i := range 6 {
		n := 8 + r.IntN(12)
		g := gen.SquareGrid(r, n)
		ev := fg.NoEvidence(n * n)
		for k := 1 + r.IntN(3); k > 0; k-- {
			ev[r.IntN(n*n)] = int32(r.IntN(2))
		}
		ms = append(ms, modeModel{model{fmt.Sprint("grid", n), g, ev}, lift.Options{}})
		piece := gen.Random(r, 6+r.IntN(6), 8+r.IntN(8), 3, 0)
		g, ev = gen.Copies(r, piece, 5+r.IntN(10), 3+r.IntN(5))
		ms = append(ms, modeModel{model{fmt.Sprint("copies", i), g, ev}, lift.Options{}})
	}
	for i := range 30 {
		g := gen.Random(r, 5+r.IntN(40), 3+r.IntN(40), 2+r.IntN(3), 0.2)
		ms = append(ms, modeModel{model{fmt.Sprint("random", i), g, nil}, lift.Options{}})
		piece := gen.RandomCNF(r, 3+r.IntN(4), 2+r.IntN(5))
		g = permutedCopies(r, piece, 2+r.IntN(4))
		ev := fg.NoEvidence(g.NumVars())
		if i%2 == 0 {
			ev[r.IntN(g.NumVars())] = int32(r.IntN(2))
		}
		if g.CheckEvidence(ev) != nil {
			ev = nil
		}
		ms = append(ms, modeModel{model{fmt.Sprint("cnf", i), g, ev}, lift.Options{Mode: lift.CNF}})
	}
	for i := range 10 {
		n := 4 + r.IntN(6)
		b := fg.NewBuilder()
		b.AddVars(n, 2)
		pair, _ := b.Table([]int32{2, 2}, []float64{1, 0.5, 0.5, 1.3})
		for v := range n {
			if v%2 == 0 {
				b.AddFactorTable([]int32{int32(v), int32((v + 1) % n)}, pair)
			} else {
				b.AddFactorTable([]int32{int32((v + 1) % n), int32(v)}, pair)
			}
		}
		ms = append(ms, modeModel{model{fmt.Sprint("symmetric", i), b.Build(), nil},
			lift.Options{Mode: lift.Symmetric, Symmetric: []bool{true}}})
	}
	return ms
}

// The all-cores refinement equals ColourPassing exactly: the same class ids
// for every variable and factor, the same slot keys, the same number of
// rounds and the same per-round class counts, for 1 to 5 workers and with
// MaxIter cutting refinement short; with chunks of 1 and 3 nodes, so that
// every step of these small graphs is signed on several goroutines, and
// with the default chunk (signed on the calling goroutine).
func TestParallelEqualsColourPassing(t *testing.T) {
	ctx := context.Background()
	for _, m := range mapReduceModels() {
		for _, maxIter := range []int{0, 1, 2} {
			type prog struct{ r, v, f int }
			var want, got []prog
			opt := m.opt
			opt.MaxIter = maxIter
			opt.Progress = func(r, v, f int) { want = append(want, prog{r, v, f}) }
			ref, err := lift.ColourPassing{}.Refine(ctx, m.g, m.ev, opt)
			if err != nil {
				t.Fatal(err)
			}
			for _, par := range []lift.Parallel{{Workers: 1}, {Workers: 2}, {Workers: 3, MinChunk: 1}, {Workers: 5, MinChunk: 3}, {Workers: 2, MinChunk: 1}} {
				w := par.Workers
				got = got[:0]
				opt.Progress = func(r, v, f int) { got = append(got, prog{r, v, f}) }
				col, err := par.Refine(ctx, m.g, m.ev, opt)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(col, ref) {
					t.Fatalf("%s, %d workers, chunk %d, MaxIter %d: colouring differs from ColourPassing (%d/%d classes in %d rounds, want %d/%d in %d)",
						m.name, w, par.MinChunk, maxIter, col.NumVarColor, col.NumFacColor, col.Iterations, ref.NumVarColor, ref.NumFacColor, ref.Iterations)
				}
				if !slices.Equal(got, want) {
					t.Fatalf("%s, %d workers: progress %v, want %v", m.name, w, got, want)
				}
			}
		}
	}
}

// The counted graph built from the map/reduce colouring is the one Compress
// builds, field by field.
func TestCompressWithParallel(t *testing.T) {
	ctx := context.Background()
	for _, m := range mapReduceModels()[:80] {
		want, _, err := lift.Compress(ctx, m.g, m.ev, m.opt)
		if err != nil {
			t.Fatal(err)
		}
		got, _, err := lift.CompressWith(ctx, lift.Parallel{Workers: 3, MinChunk: 2}, m.g, m.ev, m.opt)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: counted graph differs", m.name)
		}
	}
}

// On grids large enough for the default chunks to be signed on several
// goroutines, for the edges to be packed and the colours renumbered on
// several (and on a random graph and friends-and-smokers), the all-cores
// colouring is ColourPassing's, with the default steps and with every step
// of at least 2·1024 (or 2·64) sources on all workers.
func TestParallelLargeGraphs(t *testing.T) {
	if testing.Short() {
		t.Skip("large graphs")
	}
	ctx := context.Background()
	r := rand.New(rand.NewPCG(5, 6))
	g := gen.SquareGrid(r, 300)
	ev := fg.NoEvidence(g.NumVars())
	ev[7] = 1
	// Friends-and-smokers: the Smokes variables hold half the edges, so
	// that the steps are cut by edges, a Smokes variable's between workers.
	sm := gen.Smokers(200, 1.5, 1.1)
	smEv := fg.NoEvidence(sm.NumVars())
	for i := range 3 {
		smEv[i] = int32(i % 2)
	}
	graphs := []model{{"grid300", g, nil}, {"grid300+evidence", g, ev},
		{"random", gen.Random(r, 10000, 10000, 3, 0), nil}, {"smokers200", sm, smEv}}
	for _, m := range graphs {
		want, err := lift.ColourPassing{}.Refine(ctx, m.g, m.ev, lift.Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range []lift.Parallel{{Workers: 2}, {Workers: 4}, {Workers: 2, MinChunk: 1024}, {Workers: 3, MinChunk: 1024},
			{Workers: 2, MinChunk: 64}, {Workers: 5, MinChunk: 64}} {
			got, err := p.Refine(ctx, m.g, m.ev, lift.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%s, %+v: colouring differs from ColourPassing (%d/%d classes in %d rounds, want %d/%d in %d)",
					m.name, p, got.NumVarColor, got.NumFacColor, got.Iterations, want.NumVarColor, want.NumFacColor, want.Iterations)
			}
		}
	}
}

// The partition covers every node once; its cut and copy counts are those
// of a direct count over the edges.
func TestPartition(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	g := gen.SquareGrid(r, 10)
	for _, k := range []int{1, 2, 4, 7} {
		p := lift.NewPartition(g, k)
		keys := make([]int32, g.NumEdges())
		parts := p.Parts(g, keys, make([]bool, g.NumFactors()))
		nv, nf, cv, cf := 0, 0, 0, 0
		for _, pt := range parts {
			nv += len(pt.Vars)
			nf += len(pt.Factors)
			cv += len(pt.CopyVars)
			cf += len(pt.CopyFactors)
			if len(pt.Vars) == 0 {
				t.Fatalf("k=%d: part %d is empty", k, pt.Index)
			}
		}
		if nv != g.NumVars() || nf != g.NumFactors() {
			t.Fatalf("k=%d: parts hold %d vars, %d factors; graph has %d, %d", k, nv, nf, g.NumVars(), g.NumFactors())
		}
		if int64(cv) != p.CopyVars || int64(cf) != p.CopyFactors {
			t.Fatalf("k=%d: copies %d/%d, partition says %d/%d", k, cv, cf, p.CopyVars, p.CopyFactors)
		}
		var cut int64
		for f := range g.NumFactors() {
			for _, v := range g.Scope(f) {
				if p.VarPart[v] != p.FactorPart[f] {
					cut++
				}
			}
		}
		if cut != p.CutEdges || (k == 1) != (cut == 0) {
			t.Fatalf("k=%d: cut %d, partition says %d", k, cut, p.CutEdges)
		}
	}
}

func TestParallelCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r := rand.New(rand.NewPCG(1, 2))
	if _, err := (lift.Parallel{Workers: 2}).Refine(ctx, gen.SquareGrid(r, 5), nil, lift.Options{}); err == nil {
		t.Fatal("no error from a cancelled context")
	}
}
