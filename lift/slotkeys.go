package lift

import "github.com/lifted-dev/lifted/fg"

// EdgeKeys returns what colour passing under opt starts from, for
// constructions that compute its fixpoint on another representation of
// the same graph (package lift/firstorder): each ground edge's slot key,
// whether each factor's signature is sorted, and each factor's initial
// colour key (equal keys, equal colours).
func EdgeKeys(g *fg.Graph, opt Options) (keys []int32, sorted []bool, initial []uint64) {
	return edgeKeys(g, opt)
}
