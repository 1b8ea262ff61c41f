package infer

import (
	"context"
	"errors"
	"time"

	"github.com/lifted-dev/lifted/lift"
)

// RunCounted runs alg on a counted graph built elsewhere (by
// lift/firstorder, without a ground graph to compress), applying
// opt.Unconverged as Run does. opt.Lifted and opt.Colour are not used;
// the Answer's Stats hold the counted graph's clusternodes,
// clusterfactors and lifted edges, and the caller fills in the ground
// sizes it represents. alg must run on the counted graph alone (a lifted
// method: not a Chooser, not FirstOrder, not one that reads c.Ground's
// variables as ground atoms).
func RunCounted(ctx context.Context, alg Algorithm, c *lift.Compressed, opt Options) (*Answer, error) {
	start := time.Now()
	if _, ok := alg.(Chooser); ok {
		return nil, errors.New("infer: RunCounted needs a method that runs on the counted graph, not one that chooses")
	}
	if _, ok := alg.(FirstOrder); ok {
		return nil, errors.New("infer: RunCounted needs a method that runs on the counted graph, not a first-order one")
	}
	ans, err := runConverging(ctx, alg, c, opt.Query, opt.Unconverged)
	if ans != nil {
		ans.Stats.Clusternodes, ans.Stats.Clusterfactors, ans.Stats.LiftedEdges = c.NumNodes(), c.NumFactors(), c.NumEdges()
		ans.Stats.Seconds = time.Since(start).Seconds()
	}
	return ans, err
}
