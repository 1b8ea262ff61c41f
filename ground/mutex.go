package ground

import (
	"fmt"
	"strings"
)

// mutex adds the hard constraints of mutually exclusive and exhaustive
// predicates such as Has(person, color!): for each binding of the other
// arguments exactly one combination of the "!" arguments is true. Evidence
// simplifies a block: with one true atom the unknown atoms are false (a unit
// factor each); with none, the unknown atoms carry "exactly one" (one table,
// or an auxiliary variable naming the true atom when there are more than
// MaxArity of them); with no unknown atom left and none true the evidence is
// contradictory.
func (g *grounder) mutex() error {
	for pi := range g.at.preds {
		s := &g.at.preds[pi]
		if len(s.decl.MutexArgs) == 0 || !(s.closed || s.used) {
			continue
		}
		if err := g.mutexPred(s); err != nil {
			return err
		}
	}
	return nil
}

// blockSize returns the number of atoms in each mutual-exclusion block of
// s (at least 1).
func blockSize(s *predStore) int64 {
	in, _ := mutexSplit(s)
	n := int64(1)
	for _, p := range in {
		n *= s.dims[p]
	}
	return max(n, 1)
}

// mutexSplit returns the positions of the "!" arguments and of the others.
func mutexSplit(s *predStore) (in, out []int) {
	for p := range s.dims {
		isM := false
		for _, m := range s.decl.MutexArgs {
			isM = isM || m == p
		}
		if isM {
			in = append(in, p)
		} else {
			out = append(out, p)
		}
	}
	return in, out
}

func (g *grounder) mutexPred(s *predStore) error {
	in, out := mutexSplit(s)
	blocks, size := int64(1), int64(1)
	for _, p := range out {
		blocks *= s.dims[p]
	}
	for _, p := range in {
		size *= s.dims[p]
	}
	if size == 0 {
		return nil
	}
	var off []int64 // local index offsets of the block members
	idx := make([]int64, len(in))
	for n := int64(0); n < size; n++ {
		var l int64
		for i, p := range in {
			l += idx[i] * s.strides[p]
		}
		off = append(off, l)
		for i := len(idx) - 1; i >= 0; i-- {
			idx[i]++
			if idx[i] < s.dims[in[i]] {
				break
			}
			idx[i] = 0
		}
	}
	oidx := make([]int64, len(out))
	var unknown []int32
	for b := int64(0); b < blocks; b++ {
		var base int64
		for i, p := range out {
			base += oidx[i] * s.strides[p]
		}
		nTrue := 0
		unknown = unknown[:0]
		for _, o := range off {
			switch st := s.state(base + o); {
			case st == stTrue:
				nTrue++
			case st >= 0:
				unknown = append(unknown, st)
			}
		}
		if err := g.mutexBlock(s, base, nTrue, unknown); err != nil {
			return err
		}
		for i := len(oidx) - 1; i >= 0; i-- {
			oidx[i]++
			if oidx[i] < s.dims[out[i]] {
				break
			}
			oidx[i] = 0
		}
		g.done++
		if err := g.tick(); err != nil {
			return err
		}
	}
	return nil
}

func (g *grounder) mutexBlock(s *predStore, base int64, nTrue int, unknown []int32) error {
	switch {
	case nTrue > 1:
		return fmt.Errorf("%w: %s has %d true atoms, but %s allows exactly one", ErrContradiction, g.blockName(s, base), nTrue, s.decl.String())
	case nTrue == 1:
		if len(unknown) == 0 {
			return nil
		}
		t, err := g.fs.tableID([]int32{2}, []float64{1, 0})
		if err != nil {
			return err
		}
		for _, v := range unknown {
			if err := g.fs.add([]int32{v}, t, true); err != nil {
				return err
			}
		}
	case len(unknown) == 0:
		hint := ""
		if s.closed {
			hint = fmt.Sprintf(" (atoms missing from the evidence are false: %s is closed-world; make it open-world with --ow %s)", s.decl.Name, s.decl.Name)
		}
		return fmt.Errorf("%w: every atom of %s is false, but %s requires exactly one true%s", ErrContradiction, g.blockName(s, base), s.decl.String(), hint)
	case len(unknown) <= g.p.maxArity:
		if err := g.exactlyOneTable(unknown); err != nil {
			return err
		}
	default:
		if err := g.exactlyOneStar(unknown); err != nil {
			return err
		}
	}
	g.res.NumFormulas++
	g.res.NumConstraints++
	return nil
}

// blockName prints a mutual-exclusion block as "Has(Anna,*)".
func (g *grounder) blockName(s *predStore, base int64) string {
	in, _ := mutexSplit(s)
	var b strings.Builder
	b.WriteString(s.decl.Name)
	b.WriteByte('(')
	for p, ti := range s.decl.TypeIdx {
		if p > 0 {
			b.WriteByte(',')
		}
		a := base / s.strides[p]
		base %= s.strides[p]
		isM := false
		for _, q := range in {
			isM = isM || q == p
		}
		if isM {
			b.WriteByte('*')
		} else {
			b.WriteString(g.at.domains[ti][a])
		}
	}
	b.WriteByte(')')
	return b.String()
}

func (g *grounder) exactlyOneTable(vars []int32) error {
	k := len(vars)
	dims := make([]int32, k)
	for i := range dims {
		dims[i] = 2
	}
	vals := make([]float64, 1<<k)
	for i := 0; i < k; i++ {
		vals[1<<(k-1-i)] = 1
	}
	t, err := g.fs.tableID(dims, vals)
	if err != nil {
		return err
	}
	return g.fs.add(vars, t, true)
}

// exactlyOneStar: an auxiliary variable a in 0..k-1 names the true atom;
// h_i(a, x_i) = [x_i = (a == i)].
func (g *grounder) exactlyOneStar(vars []int32) error {
	k := len(vars)
	aux := g.b.AddVar(k)
	for i, v := range vars {
		vals := make([]float64, 2*k)
		for a := 0; a < k; a++ {
			if a == i {
				vals[2*a+1] = 1
			} else {
				vals[2*a] = 1
			}
		}
		t, err := g.fs.tableID([]int32{int32(k), 2}, vals)
		if err != nil {
			return err
		}
		if err := g.fs.add([]int32{aux, v}, t, false); err != nil {
			return err
		}
	}
	return nil
}
