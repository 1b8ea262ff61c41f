package bp

import (
	"fmt"

	"github.com/lifted-dev/lifted/lift"
)

// frontierOrder lists the lifted edges in the order of one iteration of the
// forwards–backwards protocol (see ForwardBackward): a forward pass over the
// steps, then a backward one. A slot is placed by the step of its
// representative variable; a clusterfactor by the steps its representative
// links.
func frontierOrder(c *lift.Compressed, slice []int32) ([]int32, error) {
	g := c.Ground
	if len(slice) != g.NumVars() {
		return nil, fmt.Errorf("bp: the forwards-backwards schedule needs the time step of each of the %d variables, got %d", g.NumVars(), len(slice))
	}
	type slot struct {
		s      int32
		lo, hi int32 // steps the clusterfactor links (-1: none)
		at     int32 // step of the slot's variable
	}
	var slots []slot
	maxT := int32(-1)
	for F := 0; F < c.NumFactors(); F++ {
		scope := g.Scope(int(c.FactorRep[F]))
		lo, hi := int32(-1), int32(-1)
		for _, v := range scope {
			t := slice[v]
			if t < 0 {
				continue
			}
			if lo < 0 || t < lo {
				lo = t
			}
			hi = max(hi, t)
		}
		if hi-lo > 1 {
			return nil, fmt.Errorf("bp: factor %d links time steps %d and %d; the forwards-backwards schedule needs factors within one step or between consecutive steps", c.FactorRep[F], lo, hi)
		}
		maxT = max(maxT, hi)
		for q, s := range c.Positions(F) {
			if int(c.EdgePos[s]) == q {
				at := slice[scope[q]]
				if at < 0 {
					at = lo
				}
				slots = append(slots, slot{s: s, lo: lo, hi: hi, at: at})
			}
		}
	}
	// Bucket the slots: fwd[t] (inter-step into t, then within t),
	// bwd[t] (inter-step from t+1 into t, then within t).
	n := int(maxT) + 2 // index 0: no step
	inFromLeft := make([][]int32, n)
	inFromRight := make([][]int32, n)
	within := make([][]int32, n)
	for _, x := range slots {
		switch {
		case x.lo == x.hi:
			within[x.lo+1] = append(within[x.lo+1], x.s)
		case x.at == x.hi:
			inFromLeft[x.at+1] = append(inFromLeft[x.at+1], x.s)
		default:
			inFromRight[x.at+1] = append(inFromRight[x.at+1], x.s)
		}
	}
	order := make([]int32, 0, 4*len(slots))
	local := func(w []int32) {
		order = append(order, w...)
		for i := len(w) - 1; i >= 0; i-- {
			order = append(order, w[i])
		}
	}
	for t := 0; t < n; t++ {
		order = append(order, inFromLeft[t]...)
		local(within[t])
	}
	for t := n - 1; t >= 0; t-- {
		order = append(order, inFromRight[t]...)
		local(within[t])
	}
	return order, nil
}
