package exact

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/infer"
	"github.com/lifted-dev/lifted/lift"
)

// DefaultMaxStates is the largest joint state space that "enumerate" (and
// auto's use of it) visits by default: about a second of work.
const DefaultMaxStates = 1 << 20

// Enumerate is the method "enumerate": exact marginals and log Z of a small
// ground factor graph by visiting every joint state of its unobserved
// variables (in log space, zeros as exclusions, so hard constraints and
// large weights are exact). It needs the ground graph (the trivial
// compression) and refuses, naming the size, more than MaxStates states.
type Enumerate struct {
	MaxStates float64
}

// States returns the number of joint states of g's variables that ev
// leaves open (+Inf past 2^1023).
func States(g *fg.Graph, ev fg.Evidence) float64 {
	s := 1.0
	for v, c := range g.Card {
		if ev == nil || ev[v] < 0 {
			s *= float64(c)
		}
	}
	return s
}

// ErrNoState says that every joint state has probability zero.
var ErrNoState = errors.New("enumerate: every state has probability zero (the hard constraints contradict each other or the evidence)")

// Run enumerates c.Ground with c's evidence.
func (e Enumerate) Run(ctx context.Context, c *lift.Compressed, q infer.Query) (*infer.Answer, error) {
	g := c.Ground
	if c.NumNodes() != g.NumVars() {
		return nil, errors.New("enumerate: needs the ground graph (the trivial compression), not a lifted one")
	}
	if q.Task == infer.MAP {
		return nil, errors.New("enumerate: answers marginals and log Z, not MAP queries")
	}
	ev := make(fg.Evidence, g.NumVars())
	for v := range ev {
		ev[v] = c.NodeEvidence[c.NodeOf[v]]
	}
	limit := e.MaxStates
	if limit <= 0 {
		limit = DefaultMaxStates
	}
	if s := States(g, ev); s > limit {
		return nil, fmt.Errorf("enumerate: %.3g joint states, more than the limit of %.3g (raise it with the property max-states: --prop max-states=N)", s, limit)
	}
	n := g.NumVars()
	x := make([]int32, n)
	var free []int32
	for v := range n {
		if ev[v] >= 0 {
			x[v] = ev[v]
		} else {
			free = append(free, int32(v))
		}
	}
	// Log tables; a factor's current log value and the number of factors
	// at a zero entry are updated only for the factors of a changed
	// variable.
	logs := make([][]float64, len(g.Tables))
	for t := range g.Tables {
		logs[t] = make([]float64, len(g.Tables[t].Values))
		for i, p := range g.Tables[t].Values {
			logs[t][i] = math.Log(p) // -Inf for a zero
		}
	}
	edgeFactor := make([]int32, g.NumEdges())
	for f := range g.NumFactors() {
		for e := g.FactorStart[f]; e < g.FactorStart[f+1]; e++ {
			edgeFactor[e] = int32(f)
		}
	}
	cur := make([]float64, g.NumFactors())
	total, zeros := 0.0, 0
	entry := func(f int) float64 {
		k := 0
		for _, v := range g.Scope(f) {
			k = k*int(g.Card[v]) + int(x[v])
		}
		return logs[g.FactorTable[f]][k]
	}
	set := func(f int, val float64) {
		if math.IsInf(cur[f], -1) {
			zeros--
		} else {
			total -= cur[f]
		}
		cur[f] = val
		if math.IsInf(val, -1) {
			zeros++
		} else {
			total += val
		}
	}
	for f := range cur {
		cur[f] = entry(f)
		if math.IsInf(cur[f], -1) {
			zeros++
		} else {
			total += cur[f]
		}
	}
	off := make([]int, n+1) // marginal accumulators per variable
	for v := range n {
		off[v+1] = off[v] + int(g.Card[v])
	}
	acc := make([]float64, off[n])
	shift, z := math.Inf(-1), 0.0
	visited := 0
	for {
		if zeros == 0 {
			if total > shift { // rescale what was summed relative to the new shift
				r := math.Exp(shift - total)
				z *= r
				for i := range acc {
					acc[i] *= r
				}
				shift = total
			}
			w := math.Exp(total - shift)
			z += w
			for _, v := range free {
				acc[off[v]+int(x[v])] += w
			}
		}
		if visited++; visited&0xffff == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		// Next state: odometer over the free variables, last fastest.
		i := len(free) - 1
		for ; i >= 0; i-- {
			v := free[i]
			x[v]++
			if x[v] == g.Card[v] {
				x[v] = 0
			}
			for _, e := range g.VarEdges[g.VarStart[v]:g.VarStart[v+1]] {
				f := int(edgeFactor[e])
				set(f, entry(f))
			}
			if x[v] != 0 {
				break
			}
		}
		if i < 0 {
			break
		}
	}
	if z == 0 {
		return nil, ErrNoState
	}
	ans := &infer.Answer{
		Graph: c, Task: q.Task, NodeOff: make([]int, c.NumNodes()+1),
		LogZ: shift + math.Log(z), LogZKind: infer.Exact, Converged: true,
		Stats: infer.Stats{Converged: true},
	}
	for v, X := range c.NodeOf {
		ans.NodeOff[X+1] = int(g.Card[v])
	}
	for X := range c.NumNodes() {
		ans.NodeOff[X+1] += ans.NodeOff[X]
	}
	ans.Belief = make([]float64, ans.NodeOff[c.NumNodes()])
	for v, X := range c.NodeOf {
		b := ans.NodeBelief(int(X))
		if ev[v] >= 0 {
			b[ev[v]] = 1
			continue
		}
		for s := range b {
			b[s] = acc[off[v]+s] / z
		}
	}
	return ans, nil
}

func init() {
	infer.Register(infer.Method{
		Name:    "enumerate",
		Summary: "exact marginals and log Z by visiting every joint state (small ground models)",
		Tasks:   []infer.Task{infer.Marginals, infer.PartitionFunction},
		Props:   []infer.Property{{Name: "max-states", Default: "1048576", Help: "refuse models with more joint states than this"}},
		New: func(p infer.Properties) (infer.Algorithm, error) {
			m, _ := infer.Lookup("enumerate")
			ms, err := p.Float(m, "max-states")
			if err != nil {
				return nil, err
			}
			if !(ms >= 1) {
				return nil, &infer.PropertyError{Method: "enumerate", Name: "max-states", Msg: "must be at least 1, got " + p.String(m, "max-states")}
			}
			return Enumerate{MaxStates: ms}, nil
		},
	})
}
