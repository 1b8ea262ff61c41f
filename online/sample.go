package online

import (
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/gibbs"
)

// Sample draws one world of the non-evidence atoms from the MLN with
// weights w given the evidence, by Gibbs sampling (package gibbs) on the
// model's factor graph (Graph): a uniformly random start, then burnIn
// sweeps in which every non-evidence atom in turn is redrawn from its
// conditional P(X = 1 | rest) = σ(Σ_c w_c (f_c(X=1) − f_c(X=0))) over the
// soft ground clauses c that contain it. The model's data values are not
// used. It returns the value of every ground atom (evidence atoms keep
// theirs).
//
// Hard formulas are supported: a local search (WalkSAT-style, on the hard
// ground clauses only) first moves the random start to a world that
// satisfies them all, and a redraw never takes a value that would violate
// one (its conditional probability is 0). Finding such a world is NP-hard
// in general; when the search gives up, Sample returns an error. Single
// flips cannot cross between worlds that the hard clauses separate, so with
// hard formulas the chain explores the part of the satisfying worlds its
// start is connected to (MC-SAT would mix across them).
func Sample(md *Model, w []float64, burnIn int, rng *rand.Rand) ([]uint8, error) {
	g, ev, err := md.Graph(w)
	if err != nil {
		return nil, err
	}
	x := make([]int32, len(ev))
	if err := gibbs.Start(g, ev, x, rng); err != nil {
		var ue *gibbs.UnsatError
		if errors.As(err, &ue) && ue.Factor < md.NumClauses() {
			c := ue.Factor
			fi := int(md.clForm[c])
			return nil, fmt.Errorf("online: Gibbs sampler: found no world satisfying the hard formulas in %d flips (hard %s still false for %s)",
				ue.Moves, md.describe(fi), md.bindingText(fi, md.clauseBind(c)))
		}
		return nil, fmt.Errorf("online: Gibbs sampler: %w", err)
	}
	if err := gibbs.Sample(g, ev, x, burnIn, rng); err != nil {
		return nil, err
	}
	out := make([]uint8, len(x))
	for a, v := range x {
		out[a] = uint8(v)
	}
	return out, nil
}

// Graph returns the model as a factor graph under weights w: one binary
// variable per ground atom (variable a is atom a), the evidence atoms
// observed (ev) at their values, and one factor per ground clause (factor c
// is clause c) over its atoms: exp(w·f_c) scaled to at most 1 for a soft
// clause, its 0/1 value for a hard one.
func (md *Model) Graph(w []float64) (*fg.Graph, fg.Evidence, error) {
	b := fg.NewBuilder()
	b.AddVars(md.NumAtoms(), 2)
	ev := make(fg.Evidence, md.NumAtoms())
	for a, s := range md.Status {
		ev[a] = -1
		if s == Evidence {
			ev[a] = int32(md.Value[a])
		}
	}
	var vals []float64
	for c := range md.clForm {
		feat := md.clauseFeat(c)
		vals = vals[:0]
		if md.clauseHard(c) {
			for _, x := range feat {
				vals = append(vals, float64(x))
			}
		} else {
			wf := w[md.clForm[c]]
			top := math.Max(wf, 0)
			for _, x := range feat {
				vals = append(vals, math.Exp(wf*float64(x)-top))
			}
		}
		if _, err := b.AddFactor(md.ClauseAtoms(c), vals); err != nil {
			return nil, nil, err
		}
	}
	return b.Build(), ev, nil
}

// WriteDB writes the true atoms of a world x (one value per ground atom) as
// a closed-world .db file, one atom per line in atom order; with hide,
// atoms for which hide returns true are written as unknown ("?P(A)")
// whatever their value.
func WriteDB(out io.Writer, md *Model, x []uint8, hide func(a int32) bool) error {
	for a := range x {
		name := md.AtomName(int32(a))
		var err error
		switch {
		case hide != nil && hide(int32(a)):
			_, err = fmt.Fprintf(out, "?%s\n", name)
		case x[a] == 1:
			_, err = fmt.Fprintln(out, name)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// WithValues returns a copy of md whose data are the world x: every
// Observed atom gets its value from x (Hidden and Evidence atoms are
// unchanged). The ground clauses are shared, so x must agree with md on the
// evidence atoms.
func (md *Model) WithValues(x []uint8) *Model {
	c := *md
	c.Value = slices.Clone(md.Value)
	for a, s := range md.Status {
		if s == Observed {
			c.Value[a] = x[a]
		}
	}
	return &c
}
