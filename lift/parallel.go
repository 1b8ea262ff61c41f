package lift

import (
	"context"
	"runtime"

	"github.com/lifted-dev/lifted/fg"
)

// Parallel is colour passing with the map step on all cores of one
// machine: the incremental refinement of ColourPassing (a round re-signs
// only the nodes next to a node that changed class), whose dirty nodes are
// signed, whenever there are at least 2·MinChunk of them, in up to 4·Workers
// contiguous chunks on Workers goroutines (the map step signFactor and
// signVar of the map/reduce steps, on the graph as one part in shared
// memory), then grouped by signature in their fixed order and given class
// ids on the calling goroutine (the reduce). The work does not depend on
// Workers, so the partition after every round, the number of rounds, the
// class ids and Progress are those of ColourPassing, bit for bit.
//
// The distributed runner (module beam/) runs the paper's synchronous
// rounds over a Partition with copy nodes instead, re-signing every node
// every round with the same map step (Signer).
type Parallel struct {
	// Workers is the number of goroutines of the map (≤ 0: GOMAXPROCS).
	Workers int
	// MinChunk is the fewest dirty nodes a goroutine signs (≤ 0:
	// DefaultMinChunk); a step with fewer than twice as many is signed on
	// the calling goroutine. The result does not depend on it.
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
