package colourpass_test

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"

	"github.com/lifted-dev/lifted/beam/colourpass"
	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/format"
	"github.com/lifted-dev/lifted/internal/shareddata"
	"github.com/lifted-dev/lifted/lift"
)

func TestMain(m *testing.M) { ptest.MainWithDefault(m, "prism") }

func run(_ context.Context, p *beam.Pipeline) error { return ptest.Run(p) }

type graph struct {
	name string
	g    *fg.Graph
	ev   fg.Evidence
	opt  lift.Options
}

// ring of n binary variables with one shared pairwise table, evidence on
// variable 0 when observe.
func ring(n int, observe bool) graph {
	b := fg.NewBuilder()
	b.AddVars(n, 2)
	t, _ := b.Table([]int32{2, 2}, []float64{2, 1, 1, 3})
	for v := range n {
		b.AddFactorTable([]int32{int32(v), int32((v + 1) % n)}, t)
	}
	g := b.Build()
	ev := fg.NoEvidence(n)
	if observe {
		ev[0] = 1
	}
	return graph{fmt.Sprintf("ring%d", n), g, ev, lift.Options{}}
}

// grid of w×h binary variables, one pairwise table, unary on every
// variable, corner observed.
func grid(w, h int) graph {
	b := fg.NewBuilder()
	b.AddVars(w*h, 2)
	pair, _ := b.Table([]int32{2, 2}, []float64{2, 1, 1, 2})
	un, _ := b.Table([]int32{2}, []float64{1, 1.5})
	for y := range h {
		for x := range w {
			v := int32(y*w + x)
			b.AddFactorTable([]int32{v}, un)
			if x+1 < w {
				b.AddFactorTable([]int32{v, v + 1}, pair)
			}
			if y+1 < h {
				b.AddFactorTable([]int32{v, v + int32(w)}, pair)
			}
		}
	}
	ev := fg.NoEvidence(w * h)
	ev[0] = 0
	return graph{fmt.Sprintf("grid%dx%d", w, h), b.Build(), ev, lift.Options{}}
}

// random draws k copies of a random piece (tables from a small pool, so
// factors share tables), variables interleaved across copies, with some
// evidence: symmetry planted, and broken where observed.
func random(r *rand.Rand, i int) graph {
	n, m, k := 3+r.IntN(5), 2+r.IntN(6), 2+r.IntN(4)
	b := fg.NewBuilder()
	b.AddVars(n*k, 2)
	var pool []int32
	for range 3 {
		t, _ := b.Table([]int32{2, 2}, []float64{1 + r.Float64(), 1, 1, 1 + r.Float64()})
		pool = append(pool, t)
	}
	u, _ := b.Table([]int32{2}, []float64{1, 2})
	type fac struct{ a, c, t int }
	var fs []fac
	for range m {
		a, c := r.IntN(n), r.IntN(n)
		if a == c {
			c = (a + 1) % n
		}
		fs = append(fs, fac{a, c, r.IntN(len(pool))})
	}
	for c := range k {
		for _, f := range fs {
			b.AddFactorTable([]int32{int32(f.a*k + c), int32(f.c*k + c)}, pool[f.t])
		}
		b.AddFactorTable([]int32{int32(c)}, u)
	}
	ev := fg.NoEvidence(n * k)
	if r.IntN(2) == 0 {
		ev[r.IntN(n*k)] = int32(r.IntN(2))
	}
	return graph{fmt.Sprintf("random%d", i), b.Build(), ev, lift.Options{}}
}

func graphs(t *testing.T) []graph {
	r := rand.New(rand.NewPCG(1, 2))
	gs := []graph{ring(8, false), ring(9, true), grid(5, 4)}
	for i := range 3 {
		gs = append(gs, random(r, i))
	}
	sym := ring(6, true)
	sym.name, sym.opt = "symmetric-ring", lift.Options{Mode: lift.Symmetric, Symmetric: []bool{true}}
	gs = append(gs, sym)
	for _, f := range []struct {
		path string
		mode lift.Mode
	}{
		{"../../cmd/lifted/testdata/tiny.cnf", lift.CNF},
		{"../../cmd/lifted/testdata/twofactors.fg", lift.Positional},
		{shareddata.Path("fg", "horus_smokers27.fg"), lift.Positional},
	} {
		if _, err := os.Stat(f.path); err != nil {
			t.Logf("skipping %s: not present (../shared/data is the project's shared data)", f.path)
			continue
		}
		m, err := format.Load(f.path, format.Options{})
		if err != nil {
			t.Fatal(err)
		}
		gs = append(gs, graph{filepath.Base(f.path), m.Graph, nil, lift.Options{Mode: f.mode}})
	}
	return gs
}

// The Beam pipeline on Prism gives ColourPassing's colouring exactly: the
// same class ids, slot keys and number of rounds, and the same per-round
// class counts.
func TestBeamEqualsColourPassing(t *testing.T) {
	ctx := context.Background()
	for i, gr := range graphs(t) {
		type prog struct{ r, v, f int }
		var want, got []prog
		opt := gr.opt
		if i == 2 {
			opt.MaxIter = 2 // cut short: the same partial refinement
		}
		opt.Progress = func(r, v, f int) { want = append(want, prog{r, v, f}) }
		ref, err := lift.ColourPassing{}.Refine(ctx, gr.g, gr.ev, opt)
		if err != nil {
			t.Fatal(err)
		}
		opt.Progress = func(r, v, f int) { got = append(got, prog{r, v, f}) }
		var st colourpass.Stats
		col, err := colourpass.Refiner{Parts: 1 + i%3, RoundsPerJob: 3, Run: run, Stats: &st}.Refine(ctx, gr.g, gr.ev, opt)
		if err != nil {
			t.Fatalf("%s: %v", gr.name, err)
		}
		if !reflect.DeepEqual(col, ref) {
			t.Fatalf("%s: Beam colouring differs: %d/%d classes in %d rounds, want %d/%d in %d\n got %v %v\nwant %v %v",
				gr.name, col.NumVarColor, col.NumFacColor, col.Iterations, ref.NumVarColor, ref.NumFacColor, ref.Iterations,
				col.VarColor, col.FactorColor, ref.VarColor, ref.FactorColor)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: progress %v, want %v", gr.name, got, want)
		}
		t.Logf("%s: %d vars, %d factors → %d/%d classes, %d rounds, %d parts, cut %d, %d jobs",
			gr.name, gr.g.NumVars(), gr.g.NumFactors(), col.NumVarColor, col.NumFacColor, col.Iterations, st.Parts, st.CutEdges, st.Jobs)
	}
}

// writeShards writes gr as an edge list in k shards under dir and returns
// their glob.
func writeShards(t *testing.T, gr graph, dir string, k int) string {
	t.Helper()
	ws := make([]io.Writer, k)
	files := make([]*os.File, k)
	for i := range k {
		f, err := os.Create(filepath.Join(dir, fmt.Sprintf("edges-%05d.txt", i)))
		if err != nil {
			t.Fatal(err)
		}
		files[i], ws[i] = f, f
	}
	if err := lift.WriteEdgeList(gr.g, gr.ev, gr.opt, ws); err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "edges-*.txt")
}

// readClassLines reads "v|f ID CLASS" lines (in any order) into class ids.
func readClassLines(t *testing.T, path string, nv, nf int) (vc, fc []int32) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	vc, fc = make([]int32, nv), make([]int32, nf)
	n := 0
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var kind string
		var id, c int32
		if _, err := fmt.Sscanf(l, "%s %d %d", &kind, &id, &c); err != nil {
			t.Fatalf("%s: line %q: %v", path, l, err)
		}
		if kind == "v" {
			vc[id] = c
		} else {
			fc[id] = c
		}
		n++
	}
	if n != nv+nf {
		t.Fatalf("%s: %d lines for %d nodes", path, n, nv+nf)
	}
	return vc, fc
}

// Colour passing on an edge list that only the workers read (written in 3
// shards by lift.WriteEdgeList) gives ColourPassing's classes (same ids)
// and rounds, and the compressed graph's sizes (lift.Compress), for graphs
// with evidence, random graphs and the CNF and symmetric modes.
func TestBeamEdgeListEqualsCompress(t *testing.T) {
	ctx := context.Background()
	gs := graphs(t)
	r := rand.New(rand.NewPCG(7, 8))
	for i := range 2 {
		g := random(r, 10+i)
		gs = append(gs, g)
	}
	for i, gr := range gs {
		if gr.name == "horus_smokers27.fg" || gr.name == "twofactors.fg" || gr.name == "ring8" {
			continue // keep the Prism jobs few
		}
		c, st, err := lift.Compress(ctx, gr.g, gr.ev, gr.opt)
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		glob := writeShards(t, gr, dir, 3)
		out := filepath.Join(dir, "classes.txt")
		var bst colourpass.Stats
		res, err := colourpass.Refiner{Parts: 1 + i%3, RoundsPerJob: 4, Run: run, Stats: &bst}.RefineEdgeList(ctx, glob, out, lift.Options{})
		if err != nil {
			t.Fatalf("%s: %v", gr.name, err)
		}
		vc, fc := readClassLines(t, out, gr.g.NumVars(), gr.g.NumFactors())
		if !reflect.DeepEqual(vc, c.NodeOf) || !reflect.DeepEqual(fc, c.FactorOf) {
			t.Fatalf("%s: edge-list classes\n %v %v\nwant %v %v", gr.name, vc, fc, c.NodeOf, c.FactorOf)
		}
		want := colourpass.EdgeListResult{Variables: int64(gr.g.NumVars()), Factors: int64(gr.g.NumFactors()), Edges: int64(gr.g.NumEdges()),
			Clusternodes: int64(c.NumNodes()), Clusterfactors: int64(c.NumFactors()), LiftedEdges: int64(c.NumEdges()), Rounds: st.Iterations}
		if *res != want {
			t.Fatalf("%s: %+v, want %+v", gr.name, *res, want)
		}
		part := lift.NewPartition(gr.g, 1+i%3)
		t.Logf("%s: %d/%d classes, %d rounds, %d parts, cut %d (by variable ranges of equal edge counts: %d), %d jobs",
			gr.name, res.Clusternodes, res.Clusterfactors, res.Rounds, bst.Parts, bst.CutEdges, part.CutEdges, bst.Jobs)
	}
}

// Bad edge lists fail with a message that names the problem.
func TestBeamEdgeListErrors(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct{ lines, want string }{
		{"v 0 0\nv 1 0\nf 0 0 0 0:0 2:1\n", "variable 2 has no v line"},
		{"v 0 0\nv 1 0\nf 0 0 0 0:0 1:1\nf 0 0 0 1:0\n", "2 f lines"},
		{"v 0 0\nv 2 0\n", "ids must be 0, 1, …, n-1"},
		{"v 0 0\nx 1\n", "bad edge-list line"},
	} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "edges-0.txt"), []byte(tc.lines), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := colourpass.Refiner{Parts: 2, Run: run}.RefineEdgeList(ctx, filepath.Join(dir, "edges-*.txt"), filepath.Join(dir, "out.txt"), lift.Options{})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Fatalf("%q: error %v, want %q", tc.lines, err, tc.want)
		}
	}
}
