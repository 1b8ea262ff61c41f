package mcmc

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"

	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/lift/orbit"
)

// OrbitWork bounds the orbital sampler's automorphism search: at most
// OrbitWork / (vertices of the coloured graph) search nodes, between 100
// and 200,000 (orbit.Options.MaxNodes; a node refines a partition of all
// vertices); past it the sampler runs without orbit moves and says so. On
// UW-CSE (365,843 vertices) the search had not finished after 200,000
// nodes and 7 minutes; the deskmate models need a few hundred.
const OrbitWork = 200_000_000

// symmetries draws random elements of a permutation group of the
// variables from its generators by product replacement (Celler,
// Leedham-Green, Murray, Niemeyer and O'Brien 1995, with Leedham-Green's
// accumulator, "rattle"): a tuple of group elements, each draw replacing
// one by its product with another (or with its inverse) and multiplying the
// accumulator by the result. The draws are close to uniform on the group
// after a short warm-up. They never depend on the chain's state, so the
// move x ↦ g·x leaves every distribution that is constant on orbits
// invariant whatever their law.
type symmetries struct {
	tuple [][]int32
	acc   []int32
	tmp   []int32
	rng   *rand.Rand
}

func newSymmetries(gens []orbit.Perm, nv int, rng *rand.Rand) *symmetries {
	s := &symmetries{rng: rng, acc: make([]int32, nv), tmp: make([]int32, nv)}
	for v := range s.acc {
		s.acc[v] = int32(v)
	}
	r := max(10, 2*len(gens))
	for i := range r {
		s.tuple = append(s.tuple, append([]int32(nil), gens[i%len(gens)].Var...))
	}
	for range 60 {
		s.next()
	}
	return s
}

// compose sets dst = a∘b (dst[v] = a[b[v]]), or a∘b⁻¹ when inv.
func compose(dst, a, b []int32, inv bool) {
	if inv {
		for v, w := range b {
			dst[w] = a[v]
		}
		return
	}
	for v, w := range b {
		dst[v] = a[w]
	}
}

// next returns a random group element (aliasing the accumulator).
func (s *symmetries) next() []int32 {
	n := len(s.tuple)
	i := s.rng.IntN(n)
	j := s.rng.IntN(n - 1)
	if j >= i {
		j++
	}
	compose(s.tmp, s.tuple[i], s.tuple[j], s.rng.IntN(2) == 0)
	s.tuple[i], s.tmp = s.tmp, s.tuple[i]
	compose(s.tmp, s.acc, s.tuple[i], false)
	s.acc, s.tmp = s.tmp, s.acc
	return s.acc
}

// apply sets x to g·x: the state of v moves to g(v), x'[g(v)] = x[v]
// (scratch of len(x) used).
func apply(x, g, scratch []int32) {
	for v, w := range g {
		scratch[w] = x[v]
	}
	copy(x, scratch)
}

// modelSymmetries returns generators of the automorphism group of g with
// evidence ev (orbit.FactorGraph, within OrbitWork), and a
// note when there are none to use: the group is trivial, or the search
// ran out of its budget.
func modelSymmetries(ctx context.Context, g *fg.Graph, ev fg.Evidence) ([]orbit.Perm, string, error) {
	size := int64(g.NumVars() + g.NumFactors() + g.NumEdges())
	nodes := min(max(OrbitWork/max(size, 1), 100), 200_000)
	res, err := orbit.FactorGraph(ctx, g, ev, orbit.Options{MaxNodes: nodes})
	switch {
	case errors.Is(err, orbit.ErrBudget):
		return nil, fmt.Sprintf("the symmetry search passed its budget of %d nodes: no orbit moves", nodes), nil
	case err != nil:
		return nil, "", err
	case len(res.Generators) == 0:
		return nil, "the model has no symmetries (given the evidence): no orbit moves", nil
	}
	return res.Generators, "", nil
}
