package online

import (
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
)

// Sample draws one world of the non-evidence atoms from the MLN with
// weights w given the evidence, by Gibbs sampling on the ground network (the
// model's ground clauses): a uniformly random start, then burnIn sweeps in
// which every non-evidence atom in turn is redrawn from its conditional
// P(X = 1 | rest) = σ(Σ_c w_c (f_c(X=1) − f_c(X=0))) over the soft ground
// clauses c that contain it. The model's data values are not used. It
// returns the value of every ground atom (evidence atoms keep theirs).
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
	x := slices.Clone(md.Value)
	var free []int32
	for a, s := range md.Status {
		if s != Evidence {
			free = append(free, int32(a))
			x[a] = uint8(rng.IntN(2))
		}
	}
	if md.HasHard() {
		if err := md.satisfyHard(x, rng); err != nil {
			return nil, err
		}
	}
	for range burnIn {
		for _, a := range free {
			d := 0.0
			allow0, allow1 := true, true
			for _, c := range md.AtomClauses(a) {
				f0, f1 := md.flipFeat(int(c), a, x)
				if md.clauseHard(int(c)) {
					allow0 = allow0 && f0 == 1
					allow1 = allow1 && f1 == 1
					continue
				}
				d += w[md.clForm[c]] * (float64(f1) - float64(f0))
			}
			switch {
			case !allow1:
				x[a] = 0
			case !allow0:
				x[a] = 1
			case rng.Float64() < 1/(1+math.Exp(-d)):
				x[a] = 1
			default:
				x[a] = 0
			}
		}
	}
	return x, nil
}

// flipFeat returns the value of ground clause c under world x with atom a
// (one of c's atoms) set to 0 and to 1.
func (md *Model) flipFeat(c int, a int32, x []uint8) (f0, f1 uint8) {
	atoms := md.ClauseAtoms(c)
	j, bit := 0, 0
	for i, b := range atoms {
		j = j<<1 | int(x[b])
		if b == a {
			bit = len(atoms) - 1 - i
		}
	}
	feat := md.clauseFeat(c)
	return feat[j&^(1<<bit)], feat[j|1<<bit]
}

// clauseValue returns the value of ground clause c under world x.
func (md *Model) clauseValue(c int, x []uint8) uint8 {
	j := 0
	for _, b := range md.ClauseAtoms(c) {
		j = j<<1 | int(x[b])
	}
	return md.clauseFeat(c)[j]
}

// maxHardFlips bounds satisfyHard's search, in flips per hard ground clause.
const maxHardFlips = 1000

// satisfyHard changes x until every hard ground clause is true, by
// WalkSAT's rule on the hard clauses alone: pick a false one at random and
// flip one of its atoms, with probability ½ a random one, otherwise the one
// that leaves the fewest hard clauses false.
func (md *Model) satisfyHard(x []uint8, rng *rand.Rand) error {
	var hard []int32
	pos := make(map[int32]int) // false hard clause → index in unsat
	var unsat []int32
	for c := range md.clForm {
		if md.clauseHard(c) {
			hard = append(hard, int32(c))
			if md.clauseValue(c, x) == 0 {
				pos[int32(c)] = len(unsat)
				unsat = append(unsat, int32(c))
			}
		}
	}
	// update records the new value of hard clause c.
	update := func(c int32) {
		i, isFalse := pos[c]
		switch v := md.clauseValue(int(c), x); {
		case v == 0 && !isFalse:
			pos[c] = len(unsat)
			unsat = append(unsat, c)
		case v == 1 && isFalse:
			last := unsat[len(unsat)-1]
			unsat[i] = last
			pos[last] = i
			unsat = unsat[:len(unsat)-1]
			delete(pos, c)
		}
	}
	// delta is how many more hard clauses are false after flipping a.
	delta := func(a int32) int {
		d := 0
		for _, c := range md.AtomClauses(a) {
			if !md.clauseHard(int(c)) {
				continue
			}
			f0, f1 := md.flipFeat(int(c), a, x)
			now, next := f0, f1
			if x[a] == 1 {
				now, next = f1, f0
			}
			d += int(now) - int(next)
		}
		return d
	}
	budget := maxHardFlips * max(len(hard), 1)
	for flips := 0; len(unsat) > 0; flips++ {
		if flips == budget {
			c := int(unsat[0])
			fi := int(md.clForm[c])
			return fmt.Errorf("online: Gibbs sampler: found no world satisfying the hard formulas in %d flips (hard %s still false for %s)",
				budget, md.describe(fi), md.bindingText(fi, md.clauseBind(c)))
		}
		atoms := md.ClauseAtoms(int(unsat[rng.IntN(len(unsat))]))
		a := atoms[rng.IntN(len(atoms))]
		if rng.IntN(2) == 0 {
			best := math.MaxInt
			for _, b := range atoms {
				if d := delta(b); d < best {
					best, a = d, b
				}
			}
		}
		x[a] ^= 1
		for _, c := range md.AtomClauses(a) {
			if md.clauseHard(int(c)) {
				update(c)
			}
		}
	}
	return nil
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
