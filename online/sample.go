package online

import (
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
)

// Sample draws one world of the non-evidence atoms from the MLN with weights
// w given the evidence, by Gibbs sampling on the ground network (the model's
// ground clauses): a uniformly random start, then burnIn sweeps in which
// every non-evidence atom in turn is redrawn from its conditional
// P(X = 1 | rest) = σ(Σ_c w_c (f_c(X=1) − f_c(X=0))) over the ground clauses c
// that contain it. The model's data values are not used. It returns the
// value of every ground atom (evidence atoms keep theirs).
func Sample(md *Model, w []float64, burnIn int, rng *rand.Rand) []uint8 {
	x := slices.Clone(md.Value)
	var free []int32
	for a, s := range md.Status {
		if s != Evidence {
			free = append(free, int32(a))
			x[a] = uint8(rng.IntN(2))
		}
	}
	for range burnIn {
		for _, a := range free {
			d := 0.0
			for _, c := range md.AtomClauses(a) {
				atoms := md.ClauseAtoms(int(c))
				j, bit := 0, 0
				for i, b := range atoms {
					j = j<<1 | int(x[b])
					if b == a {
						bit = len(atoms) - 1 - i
					}
				}
				feat := md.clauseFeat(int(c))
				j1, j0 := j|1<<bit, j&^(1<<bit)
				d += w[md.clForm[c]] * (float64(feat[j1]) - float64(feat[j0]))
			}
			if rng.Float64() < 1/(1+math.Exp(-d)) {
				x[a] = 1
			} else {
				x[a] = 0
			}
		}
	}
	return x
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
