package maplp

import (
	"context"
	"errors"
	"fmt"

	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/ground"
	"github.com/lifted-dev/lifted/infer"
	"github.com/lifted-dev/lifted/lift/orbit"
)

// Orbits is the orbit partition of the automorphism group of the factor
// graph with its evidence (package lift/orbit: individualisation–refinement
// search, or nauty in builds with -tags nauty). Valid for LOCAL and CYCLE.
type Orbits struct{ Options orbit.Options }

// Group partitions the variables and factors of g given ev by the Orbits symmetry.
func (o Orbits) Group(ctx context.Context, g *fg.Graph, ev fg.Evidence) (*Partition, error) {
	r, err := orbit.FactorGraph(ctx, g, ev, o.Options)
	if err != nil {
		return nil, err
	}
	return fromOrbit(r), nil
}

// Renaming is the orbit partition of the renaming group of a ground MLN
// (lift/orbit.Renaming: permutations of the constants that no formula and
// no evidence names, read off the MLN without search). Grounding must be
// the grounding the LP's graph came from; the lp and ilp methods set it
// when they run on an MLN (RunModel).
type Renaming struct{ Grounding *ground.Grounding }

// ErrRenamingNeedsMLN is returned by Renaming on a bare factor graph.
var ErrRenamingNeedsMLN = errors.New("maplp: symmetry renaming is read off a Markov logic network's constants; on a factor graph use orbits")

// Group partitions the variables and factors of g given ev by the Renaming symmetry.
func (r Renaming) Group(ctx context.Context, g *fg.Graph, _ fg.Evidence) (*Partition, error) {
	if r.Grounding == nil {
		return nil, ErrRenamingNeedsMLN
	}
	if r.Grounding.Graph != g {
		return nil, fmt.Errorf("maplp: symmetry renaming: the graph is not the grounding's")
	}
	res, err := orbit.Renaming(ctx, r.Grounding)
	if err != nil {
		return nil, err
	}
	return fromOrbit(res), nil
}

func fromOrbit(r *orbit.Result) *Partition {
	p := &Partition{VarClass: r.VarOrbit, FactorClass: r.FactorOrbit,
		NumVarClasses: r.NumVarOrbits, NumFactorClasses: r.NumFactorOrbits, Orbits: true}
	for _, q := range r.Generators {
		p.Generators = append(p.Generators, Perm{Var: q.Var, Factor: q.Factor})
	}
	return p
}

func init() {
	RegisterSymmetry("orbits", func() Symmetry { return Orbits{} })
	RegisterSymmetry("renaming", func() Symmetry { return Renaming{} })
}

// RunModel solves the MAP LP of an MLN's grounding. It is Run on m.Graph,
// except that symmetry renaming is given the grounding it reads the
// constants from.
func (a Algorithm) RunModel(ctx context.Context, m *infer.Model, q infer.Query) (*infer.Answer, error) {
	if r, ok := a.Config.Symmetry.(Renaming); ok && r.Grounding == nil {
		gr, ok := m.Grounding.(*ground.Grounding)
		if !ok || gr.Graph != m.Graph {
			return nil, fmt.Errorf("symmetry renaming: the model carries no grounding to read its constants from")
		}
		a.Config.Symmetry = Renaming{Grounding: gr}
	}
	ans, err := infer.Run(ctx, a, m.Graph, nil, infer.Options{Query: q})
	var nc *infer.NotConvergedError
	if errors.As(err, &nc) {
		return nc.Answer, err
	}
	return ans, err
}
