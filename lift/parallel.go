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
// goroutines from start to end (on graphs of at least ParallelStepNodes
// nodes, or with MinChunk set): the workers claim the nodes next to their
// share of the sources and sign them (the map), group them by signature
// in shards of the signature hashes and name the groups (the reduce); see
// parstep.go. Other steps run as in ColourPassing, with the signing
// of at least 2·MinChunk dirty nodes on Workers goroutines. Helper goroutines
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

// ParallelStepNodes is the fewest nodes (variables and factors) of a graph
// whose large steps Parallel runs on all workers by default: on smaller
// graphs the steps are short and the helpers' coordination costs more than
// the second core gives (experiments/colourpassing/PARALLEL.md, session 10:
// on 2 cores, whole steps 0.80–1.05× at 316×316 (4·10^5 nodes) against
// 0.98–1.0× signing only; 1.16–1.22× against 1.05–1.11× at 577×577
// (1.3·10^6); 1.46–1.52× against 1.14–1.16× at 1000×1000); there only the
// signing runs on all workers.
const ParallelStepNodes = 1 << 20

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
	// Whole steps in parallel where they were measured to pay: graphs of
	// ParallelStepNodes nodes and more, or any graph when MinChunk is set.
	steps := r.MinChunk > 0 || g.NumVars()+g.NumFactors() >= ParallelStepNodes
	return refine(ctx, g, ev, opt, w, c, steps)
}
