package ground

import (
	"sort"

	"github.com/lifted-dev/lifted/mln"
)

// AtomIndex numbers every ground atom of an MLN's predicates over given
// domains densely: the atoms of each predicate in turn, in constant order
// (the last argument fastest). It is the atom numbering of packages that
// keep a value per ground atom (the online learners' model).
type AtomIndex struct {
	m   *mln.MLN
	dom [][]string
	off []int64   // per predicate, then the total
	dim [][]int64 // per predicate: domain size per argument
}

// NewAtomIndex numbers the ground atoms of m's predicates over domains (by
// type index; see Domains).
func NewAtomIndex(m *mln.MLN, domains [][]string) *AtomIndex {
	x := &AtomIndex{m: m, dom: domains, off: make([]int64, 0, len(m.Preds)+1)}
	var n int64
	for _, p := range m.Preds {
		x.off = append(x.off, n)
		dims := make([]int64, len(p.TypeIdx))
		size := int64(1)
		for i, t := range p.TypeIdx {
			dims[i] = int64(len(domains[t]))
			size *= dims[i]
		}
		x.dim = append(x.dim, dims)
		n += size
	}
	x.off = append(x.off, n)
	return x
}

// NumAtoms returns the number of ground atoms.
func (x *AtomIndex) NumAtoms() int64 { return x.off[len(x.off)-1] }

// Offset returns the id of predicate pred's first ground atom; Offset of
// the number of predicates is NumAtoms.
func (x *AtomIndex) Offset(pred int) int64 { return x.off[pred] }

// ID returns the id of the ground atom pred(args...), args being constant
// indices into the domains of the argument types.
func (x *AtomIndex) ID(pred int, args []int32) int64 {
	var id int64
	for j, d := range x.dim[pred] {
		id = id*d + int64(args[j])
	}
	return x.off[pred] + id
}

// Pred returns the predicate of atom id.
func (x *AtomIndex) Pred(id int64) int {
	// the last predicate whose offset is at most id (empty ones skipped)
	return sort.Search(len(x.off)-1, func(p int) bool { return x.off[p+1] > id })
}

// Args writes the argument constants of atom id into args (grown as
// needed) and returns its predicate and args.
func (x *AtomIndex) Args(id int64, args []int32) (int, []int32) {
	p := x.Pred(id)
	dims := x.dim[p]
	args = append(args[:0], make([]int32, len(dims))...)
	r := id - x.off[p]
	for j := len(dims) - 1; j >= 0; j-- {
		args[j] = int32(r % dims[j])
		r /= dims[j]
	}
	return p, args
}

// Constant returns the name of constant c of type ti.
func (x *AtomIndex) Constant(ti, c int) string { return x.dom[ti][c] }
