package fg_test

import (
	"runtime"
	"testing"

	"github.com/lifted-dev/lifted/fg"
)

// A graph with 10 million factor–variable edges must fit in well under 2 GB.
func TestTenMillionEdgesMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 10-million-edge graph")
	}
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)

	const nv, nf = 1_000_000, 5_000_000 // pairwise factors: 10M edges
	b := fg.NewBuilder()
	b.AddVars(nv, 2)
	tab, err := b.Table([]int32{2, 2}, []float64{1, 2, 2, 1})
	if err != nil {
		t.Fatal(err)
	}
	x := uint32(12345)
	scope := make([]int32, 2)
	for f := 0; f < nf; f++ {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		scope[0] = int32(f % nv)
		scope[1] = int32((uint32(f%nv) + 1 + x%(nv-1)) % nv)
		if _, err := b.AddFactorTable(scope, tab); err != nil {
			t.Fatal(err)
		}
	}
	g := b.Build()
	runtime.GC()
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	heap := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	t.Logf("%d edges: %.0f MB live heap, %.1f bytes per edge", g.NumEdges(), float64(heap)/1e6, float64(heap)/float64(g.NumEdges()))
	if g.NumEdges() != 2*nf {
		t.Fatalf("%d edges", g.NumEdges())
	}
	if heap > 500<<20 {
		t.Fatalf("graph with 10M edges takes %d MB, want well under 2 GB (budget 500 MB)", heap>>20)
	}
	runtime.KeepAlive(g)
}
