package count

import (
	"math"

	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/infer/bp"
	"github.com/lifted-dev/lifted/lift"
)

// warmState keeps, for BPCountOptions.WarmStart, the factor-to-variable
// message of every (clause, literal) of the unitState from the last BP run
// that reached them: msg[2·(off[ci]+j)..+2] is clause ci's message to the
// variable of its j-th literal (NaN: none yet).
type warmState struct {
	off []int32
	msg []float64
}

func newWarmState(s *unitState) *warmState {
	w := &warmState{off: make([]int32, len(s.clauses)+1)}
	for ci, cl := range s.clauses {
		w.off[ci+1] = w.off[ci] + int32(len(cl))
	}
	w.msg = make([]float64, 2*w.off[len(s.clauses)])
	for i := range w.msg {
		w.msg[i] = math.NaN()
	}
	return w
}

// slot returns the offset in msg of position q of factor k of the residual
// graph g (clause from[k]; the residual variable u is inv[u] in s), and
// the sign (literal&1) of that literal.
func (w *warmState) slot(s *unitState, g *fg.Graph, inv, from []int32, k, q int) (int, int32) {
	ci := from[k]
	v := inv[g.Scope(k)[q]]
	for j, x := range s.clauses[ci] {
		if x>>1 == v {
			return 2 * int(w.off[ci]+int32(j)), x & 1
		}
	}
	return -1, 0 // unreachable: the residual clause's variables are the clause's
}

func inverse(id []int32, n int) []int32 {
	inv := make([]int32, n)
	for v, i := range id {
		if i > 0 {
			inv[i-1] = int32(v)
		}
	}
	return inv
}

// initial returns the initial messages of the BP runs on c (the compressed
// residual graph g; variable v is id[v]-1 there, factor k is clause
// from[k]): each lifted edge gets the stored message of its
// representative's (clause, literal), uniform where there is none.
func (w *warmState) initial(s *unitState, g *fg.Graph, c *lift.Compressed, id, from []int32) []float64 {
	inv := inverse(id, g.NumVars())
	init := make([]float64, 2*c.NumEdges())
	any := false
	for e := range c.NumEdges() {
		k := int(c.FactorRep[c.EdgeFactor[e]])
		o, _ := w.slot(s, g, inv, from, k, int(c.EdgePos[e]))
		init[2*e], init[2*e+1] = 0.5, 0.5
		if o >= 0 && !math.IsNaN(w.msg[o]) {
			init[2*e], init[2*e+1] = w.msg[o], w.msg[o+1]
			any = true
		}
	}
	if !any {
		return nil
	}
	return init
}

// store keeps the final messages of res (a run on c) for every ground edge:
// the message of the slot of its clusterfactor's representative at the same
// clusternode with the same literal sign.
func (w *warmState) store(s *unitState, g *fg.Graph, c *lift.Compressed, id, from []int32, res *bp.Result) {
	inv := inverse(id, g.NumVars())
	for k := range g.NumFactors() {
		F := int(c.FactorOf[k])
		rep := int(c.FactorRep[F])
		pos := c.Positions(F)
		for q, u := range g.Scope(k) {
			o, sign := w.slot(s, g, inv, from, k, q)
			if o < 0 {
				continue
			}
			e := int32(-1)
			if rep == k {
				e = pos[q]
			} else {
				X := c.NodeOf[u]
				for p, u2 := range g.Scope(rep) {
					if c.NodeOf[u2] != X {
						continue
					}
					if _, sg := w.slot(s, g, inv, from, rep, p); sg == sign {
						e = pos[p]
						break
					}
				}
			}
			if e < 0 {
				continue
			}
			m := res.F2V[res.EdgeOff[e]:res.EdgeOff[e+1]]
			w.msg[o], w.msg[o+1] = m[0], m[1]
		}
	}
}
