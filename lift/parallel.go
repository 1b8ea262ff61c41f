package lift

import (
	"context"
	"runtime"

	"github.com/lifted-dev/lifted/fg"
)

// Parallel is colour passing on all cores of one machine: the incremental
// refinement of ColourPassing (a round re-signs only the nodes next to a
// node that changed class), whose steps with at least 2·MinChunk sources
// (nodes that changed, or every node in the first round) run on Workers
// goroutines from start to end: the workers claim the nodes next to their
// share of the sources and sign them (the map), group them by signature
// in shards of the signature hashes and name the groups (the reduce); see
// parstep.go. Smaller steps run as in ColourPassing. Helper goroutines
// stay running between the phases of a step (spinning briefly, then
// parked) while Workers ≤ GOMAXPROCS. The partition after every round,
// the number of rounds, Progress and the colouring (classes numbered by
// first appearance in the graph's order) are those of ColourPassing; which
// worker claims a node first, and so the internal class ids during the
// run, may differ from run to run.
//
// The distributed runner (module beam/) runs the paper's synchronous
// rounds over a Partition with copy nodes instead, re-signing every node
// every round with the same map step (Signer).
type Parallel struct {
	// Workers is the number of goroutines of a parallel step (≤ 0:
	// GOMAXPROCS).
	Workers int
	// MinChunk sets the smallest parallel step (≤ 0: DefaultMinChunk): a
	// step with fewer than 2·MinChunk sources runs on the calling
	// goroutine. The result does not depend on it.
	MinChunk int
}

// Refine implements Refiner.
func (r Parallel) Refine(ctx context.Context, g *fg.Graph, ev fg.Evidence, opt Options) (*Colouring, error) {
	w := r.Workers
	if w <= 0 {
		w = runtime.GOMAXPROCS(0)
	}
	c := r.MinChunk
	if c <= 0 {
		c = DefaultMinChunk
	}
	return refine(ctx, g, ev, opt, w, c)
}
