package lift

import (
	"context"
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/lifted-dev/lifted/fg"
)

// Partitioned is a Refiner that does not refine the variables: they keep
// the classes Class gives them (split by cardinality, evidence and the
// tables of their unary factors), and
// the factors take one step of colour passing from their tables and
// their variables' classes, so that every factor of a clusterfactor sees
// the same clusternodes at the same slots. The colouring is stable only
// up to the counts (Colouring.Approximate): the counted graph carries
// rounded mean counts, as approximate colour passing's does.
//
// It is the lifted form of evidence-based clustering (Venugopal and
// Gogate, ECML 2014): where Class puts the ground atoms p(c₁,…,cₖ) whose
// constants fall in the same clusters together, lifted BP on the result
// is BP on the MLN over the reduced domain (one constant per cluster),
// with each clusterfactor counted as often as its ground factors occur
// on average. Class[v] < 0 puts v in one class with every other such
// variable of its cardinality and evidence.
type Partitioned struct {
	Class []int32
}

// Refine implements Refiner.
func (p Partitioned) Refine(ctx context.Context, g *fg.Graph, ev fg.Evidence, opt Options) (*Colouring, error) {
	if len(p.Class) != g.NumVars() {
		return nil, fmt.Errorf("lift: Partitioned has %d classes for %d variables", len(p.Class), g.NumVars())
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrCancelled, err)
	}
	ps := newPassing(g, ev, opt, 1)
	// The variables: (cardinality, evidence) class, Class, and the
	// tables of their unary factors (their local evidence: a class whose
	// members had different ones would carry every one of them, each at
	// a count of at least 1).
	nv := g.NumVars()
	unary := make([][]int32, nv)
	for f := range g.NumFactors() {
		if sc := g.Scope(f); len(sc) == 1 {
			unary[sc[0]] = append(unary[sc[0]], g.FactorTable[f])
		}
	}
	ids := map[string]int32{}
	var key []byte
	for v, c := range ps.vc {
		key = binary.LittleEndian.AppendUint32(key[:0], uint32(c))
		key = binary.LittleEndian.AppendUint32(key, uint32(p.Class[v]))
		slices.Sort(unary[v])
		for _, t := range unary[v] {
			key = binary.LittleEndian.AppendUint32(key, uint32(t))
		}
		id, ok := ids[string(key)]
		if !ok {
			id = int32(len(ids))
			ids[string(key)] = id
		}
		ps.vc[v] = id
	}
	nvc := len(ids)
	ps.vr = newRefiner(ps.vc, nvc)
	ps.fr.stepFrom(true, g.NumFactors(), nil, nil, nil, false, ps.signFactor)
	nfc := renumber(ps.fc, ps.fr.numClasses())
	return &Colouring{VarColor: ps.vc, NumVarColor: nvc, FactorColor: ps.fc, NumFacColor: nfc, EdgeKey: ps.keys, Iterations: 1,
		Approximate: true}, nil
}
