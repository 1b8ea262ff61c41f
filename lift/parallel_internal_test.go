package lift

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/internal/gen"
)

// roundState is the internal state of colour passing after a round: the
// class id of every node (before the final renumbering), the class sizes
// (dead ids included), the changed nodes in order and the nodes signed.
type roundState struct {
	vc, fc           []int32
	vSize, fSize     []int32
	vChanged, fChang []int32
	signed           int
}

// roundStates runs colour passing from scratch with the given workers and
// chunk and records the state after every round.
func roundStates(t *testing.T, g *fg.Graph, ev fg.Evidence, opt Options, workers, minChunk int) []roundState {
	t.Helper()
	p := newPassing(g, ev, opt, workers)
	p.vr.workers, p.fr.workers = workers, workers
	p.vr.minChunk, p.fr.minChunk = minChunk, minChunk
	// The helpers' pool as refine makes it (none beyond GOMAXPROCS, so
	// both kinds of helpers run here).
	pool := newWorkPool(workers)
	defer pool.close()
	p.vr.pool, p.fr.pool = pool, pool
	// The reference (one worker) runs without gathering ahead, the others
	// with it on every graph (it only loads; gather.go).
	if workers > 1 {
		p.vr.warm, p.fr.warm = p.warmVars, p.warmFactors
	} else {
		p.vr.warm, p.fr.warm = nil, nil
	}
	var out []roundState
	p.opt.Progress = func(int, int, int) {
		out = append(out, roundState{slices.Clone(p.vc), slices.Clone(p.fc),
			slices.Clone(p.vr.classSize), slices.Clone(p.fr.classSize),
			slices.Clone(p.vr.changed), slices.Clone(p.fr.changed), p.vr.signed + p.fr.signed})
	}
	if _, err := p.run(context.Background(), true); err != nil {
		t.Fatal(err)
	}
	return out
}

// The parallel marking, grouping and naming compute what the serial code
// computes, round by round and id by id (not only up to the final
// renumbering): the same class id for every node, the same class sizes,
// the same changed nodes in the same order, the same number of nodes
// signed. The chunks of 1–3 nodes send every step of these graphs through
// the parallel code.
func TestParallelRoundsIdentical(t *testing.T) {
	r := rand.New(rand.NewPCG(26, 1))
	n := 300
	if testing.Short() {
		n = 60
	}
	type cfg struct{ workers, chunk int }
	cfgs := []cfg{{2, 1}, {3, 1}, {5, 3}, {4, 2}, {2, DefaultMinChunk}}
	for i := range n + 4 {
		var g *fg.Graph
		var ev fg.Evidence
		name := fmt.Sprint("graph ", i)
		if i < n {
			g, ev = equivGraphs(r, i)
		} else {
			// Larger grids: many classes of up to 8 members, split
			// in ties.
			side := []int{30, 41, 60, 25}[i-n]
			g = gen.SquareGrid(r, side)
			if i%2 == 0 {
				ev = fg.NoEvidence(g.NumVars())
				ev[r.IntN(g.NumVars())] = 1
			}
			name = fmt.Sprint("grid ", side)
		}
		opt := Options{Mode: Mode(r.IntN(3)), Symmetric: symmetricTables(g)}
		want := roundStates(t, g, ev, opt, 1, DefaultMinChunk)
		for _, c := range cfgs {
			got := roundStates(t, g, ev, opt, c.workers, c.chunk)
			if len(got) != len(want) {
				t.Fatalf("%s, %v: %d rounds, want %d", name, c, len(got), len(want))
			}
			for k := range got {
				if !reflect.DeepEqual(got[k], want[k]) {
					t.Fatalf("%s (%d vars, %d factors), %d workers, chunk %d: state after round %d differs from one worker's",
						name, g.NumVars(), g.NumFactors(), c.workers, c.chunk, k+1)
				}
			}
		}
	}
}
