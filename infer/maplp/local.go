package maplp

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/lifted-dev/lifted/fg"
)

// model is the LOCAL LP of a factor graph over a Partition: one LP variable
// per (variable class, state) and per (factor class, table entry).
//
//	maximise Σ_F |F| Σ_x ln θ_F(x) μ_F(x)
//	s.t. Σ_a μ_X(a) = 1                          for every variable class X
//	     Σ_{x: x[q]=a} μ_F(x) = μ_X(a)            for every factor class F, position q
//	                                              of its representative, state a,
//	                                              X the class of the variable at q
//	     μ ≥ 0, μ_F(x) = 0 where θ_F(x) = 0 or x contradicts the evidence,
//	     μ_X(a) = 0 where X is observed in another state.
//
// With the identity partition this is the ground LOCAL LP; with an
// equitable partition or orbit partition it has the same optimum (Bui et
// al. 2013, Theorem 5.1; Mladenov et al. 2012 for equitable partitions).
type model struct {
	g    *fg.Graph
	ev   fg.Evidence
	part *Partition

	rep     []int32 // factor class → representative factor
	facSize []int64
	varSize []int64
	nodeOff []int32 // variable class → first column
	facOff  []int32 // factor class → first column
	offset  float64 // Σ ln θ of factors without variables
	// pos[f][q], for an orbit partition, is the position of f's class
	// representative that position q of f corresponds to under the group
	// (nil: every factor keeps its representative's positions).
	pos [][]int32
	lp  *LP
}

func buildLocal(ctx context.Context, g *fg.Graph, ev fg.Evidence, part *Partition) (*model, error) {
	if ev == nil {
		ev = fg.NoEvidence(g.NumVars())
	}
	nv, nf := g.NumVars(), g.NumFactors()
	if len(part.VarClass) != nv || len(part.FactorClass) != nf {
		return nil, fmt.Errorf("maplp: partition of %d variables and %d factors for a graph of %d and %d", len(part.VarClass), len(part.FactorClass), nv, nf)
	}
	m := &model{g: g, ev: ev, part: part, lp: &LP{}}
	m.rep = make([]int32, part.NumFactorClasses)
	m.facSize = make([]int64, part.NumFactorClasses)
	m.varSize = make([]int64, part.NumVarClasses)
	for i := range m.rep {
		m.rep[i] = -1
	}
	for f, c := range part.FactorClass {
		if m.rep[c] < 0 {
			m.rep[c] = int32(f)
		}
		m.facSize[c]++
	}
	classEv := make([]int32, part.NumVarClasses)
	classCard := make([]int32, part.NumVarClasses)
	seen := make([]bool, part.NumVarClasses)
	for v, c := range part.VarClass {
		m.varSize[c]++
		if !seen[c] {
			seen[c], classEv[c], classCard[c] = true, ev[v], g.Card[v]
		} else if classEv[c] != ev[v] || classCard[c] != g.Card[v] {
			return nil, fmt.Errorf("maplp: the partition puts variables %d and its class-mates of different evidence or cardinality in one class", v)
		}
	}
	for f, c := range part.FactorClass {
		r := int(m.rep[c])
		if g.FactorStart[f+1]-g.FactorStart[f] != g.FactorStart[r+1]-g.FactorStart[r] || len(g.Table(f).Values) != len(g.Table(r).Values) {
			return nil, fmt.Errorf("maplp: the partition puts factors %d and %d of different shapes in one class", f, r)
		}
	}
	if part.Orbits {
		if err := m.alignPositions(); err != nil {
			return nil, err
		}
	}
	lp := m.lp
	m.nodeOff = make([]int32, part.NumVarClasses)
	for X := range m.nodeOff {
		m.nodeOff[X] = int32(lp.NumCols())
		for a := int32(0); a < classCard[X]; a++ {
			u := math.Inf(1)
			if classEv[X] >= 0 && a != classEv[X] {
				u = 0
			}
			lp.AddCol(0, u)
		}
	}
	m.facOff = make([]int32, part.NumFactorClasses)
	var cols []int32
	var vals []float64
	for F, r := range m.rep {
		if ctx.Err() != nil {
			return nil, ctx.Err() // a model of wide clauses takes seconds here
		}
		m.facOff[F] = int32(lp.NumCols())
		t := g.Table(int(r))
		scope := g.Scope(int(r))
		if len(scope) == 0 {
			m.offset += float64(m.facSize[F]) * math.Log(t.Values[0])
			continue
		}
		st := t.Strides()
		for k, val := range t.Values {
			u, c := math.Inf(1), 0.0
			if val <= 0 {
				u = 0
			} else {
				c = float64(m.facSize[F]) * math.Log(val)
			}
			for q, v := range scope {
				if e := ev[v]; e >= 0 && int32(k/st[q]%int(t.Dims[q])) != e {
					u, c = 0, 0
				}
			}
			lp.AddCol(c, u)
		}
		for q, v := range scope {
			X := part.VarClass[v]
			for a := 0; a < int(t.Dims[q]); a++ {
				cols, vals = cols[:0], vals[:0]
				for k := range t.Values {
					if k/st[q]%int(t.Dims[q]) == a {
						cols = append(cols, m.facOff[F]+int32(k))
						vals = append(vals, 1)
					}
				}
				cols = append(cols, m.nodeOff[X]+int32(a))
				vals = append(vals, -1)
				lp.AddRow(cols, vals, Eq, 0)
			}
		}
	}
	for X := range m.nodeOff {
		cols, vals = cols[:0], vals[:0]
		for a := int32(0); a < classCard[X]; a++ {
			cols = append(cols, m.nodeOff[X]+a)
			vals = append(vals, 1)
		}
		lp.AddRow(cols, vals, Eq, 1)
	}
	return m, nil
}

// round is the world that gives every unobserved variable the state of
// largest marginal in x (ties: the lowest state).
func (m *model) round(x []float64) []int32 {
	w := make([]int32, m.g.NumVars())
	for v := range w {
		if m.ev[v] >= 0 {
			w[v] = m.ev[v]
			continue
		}
		off := m.nodeOff[m.part.VarClass[v]]
		best := 0
		for a := 1; a < int(m.g.Card[v]); a++ {
			if x[int(off)+a] > x[int(off)+best]+1e-9 {
				best = a
			}
		}
		w[v] = int32(best)
	}
	return w
}

// Score is the log score of world x: Σ_f ln φ_f(x_f) (−Inf when a factor
// is zero).
func Score(g *fg.Graph, x []int32) float64 {
	s := 0.0
	for f := 0; f < g.NumFactors(); f++ {
		s += math.Log(g.Table(f).Values[entry(g, f, x)])
	}
	return s
}

func entry(g *fg.Graph, f int, x []int32) int {
	t := g.Table(f)
	i := 0
	for p, v := range g.Scope(f) {
		i = i*int(t.Dims[p]) + int(x[v])
	}
	return i
}

// improve is greedy local search (iterated conditional modes): change one
// unobserved variable at a time to the state that most improves the world
// in lexicographic order (fewer zero factors, then larger log score) until
// no change improves it.
func improve(g *fg.Graph, ev fg.Evidence, x []int32) {
	improveUntil(g, ev, x, time.Time{})
}

// improveUntil is improve that also stops at the deadline (zero: none;
// checked every 64 variables): a run already stopped by a signal or its
// time limit answers soon (one sweep over UW-CSE's ground network takes
// over a second).
func improveUntil(g *fg.Graph, ev fg.Evidence, x []int32, deadline time.Time) {
	for sweep := 0; sweep < 1000; sweep++ {
		changed := false
		for v := 0; v < g.NumVars(); v++ {
			if v%64 == 63 && !deadline.IsZero() && time.Now().After(deadline) {
				return
			}
			if ev[v] >= 0 || g.Card[v] < 2 {
				continue
			}
			cur := x[v]
			bz, bs := localScore(g, x, v)
			best := cur
			for a := int32(0); a < g.Card[v]; a++ {
				if a == cur {
					continue
				}
				x[v] = a
				z, s := localScore(g, x, v)
				if z < bz || (z == bz && s > bs+1e-12) {
					bz, bs, best = z, s, a
				}
			}
			x[v] = best
			if best != cur {
				changed = true
			}
		}
		if !changed {
			return
		}
	}
}

// localScore is the number of zero factors at v and the log score of the
// others.
func localScore(g *fg.Graph, x []int32, v int) (int, float64) {
	z, s := 0, 0.0
	for _, e := range g.VarEdges[g.VarStart[v]:g.VarStart[v+1]] {
		f := g.EdgeFactor(e)
		val := g.Table(f).Values[entry(g, f, x)]
		if val <= 0 {
			z++
		} else {
			s += math.Log(val)
		}
	}
	return z, s
}

// alignPositions finds, for an orbit partition, which position of its class
// representative each position of every factor corresponds to. A group
// element maps a factor to its image possibly with its positions permuted
// (the grounder orders a merged factor's scope by its first grounding, and
// a renaming can swap that order); following the generators from each
// representative gives the correspondence exactly. A factor the generators
// do not reach (a partition without generators) must keep its
// representative's positions. Each correspondence is checked: the variable
// classes and the table must agree entry by entry, as the cycle cuts rely
// on it (entry x of f is an entry of the representative).
func (m *model) alignPositions() error {
	g, part := m.g, m.part
	nf := g.NumFactors()
	pos := make([][]int32, nf)
	var queue []int32
	for _, r := range m.rep {
		sc := g.Scope(int(r))
		id := make([]int32, len(sc))
		for q := range id {
			id[q] = int32(q)
		}
		pos[r] = id
		queue = append(queue, r)
	}
	permuted := false
	for len(queue) > 0 {
		f := queue[0]
		queue = queue[1:]
		sf := g.Scope(int(f))
		for _, gen := range part.Generators {
			if len(gen.Factor) != nf || len(gen.Var) != g.NumVars() {
				return fmt.Errorf("maplp: a generator of the orbit partition has the wrong size")
			}
			h := gen.Factor[f]
			if pos[h] != nil {
				continue
			}
			sh := g.Scope(int(h))
			if len(sh) != len(sf) {
				return fmt.Errorf("maplp: a generator maps factor %d to factor %d of another arity", f, h)
			}
			ph := make([]int32, len(sh))
			for q, v := range sf {
				img, found := gen.Var[v], false
				for q2, w := range sh {
					if w == img {
						ph[q2], found = pos[f][q], true
						if q2 != q {
							permuted = true
						}
						break
					}
				}
				if !found {
					return fmt.Errorf("maplp: a generator maps factor %d to factor %d but variable %d outside its scope", f, h, v)
				}
			}
			pos[h] = ph
			queue = append(queue, h)
		}
	}
	for f := 0; f < nf; f++ {
		r := int(m.rep[part.FactorClass[f]])
		if pos[f] == nil { // not reached: must keep positions
			sc := g.Scope(f)
			pos[f] = make([]int32, len(sc))
			for q := range sc {
				pos[f][q] = int32(q)
			}
		}
		if err := m.checkAligned(f, r, pos[f]); err != nil {
			return err
		}
	}
	if permuted {
		m.pos = pos
	}
	return nil
}

// checkAligned checks that position q of factor f, over a variable of the
// class of position pos[q] of r, and f's table agree with r's under pos.
func (m *model) checkAligned(f, r int, pos []int32) error {
	g, part := m.g, m.part
	sf, sr := g.Scope(f), g.Scope(r)
	for q := range sf {
		if part.VarClass[sf[q]] != part.VarClass[sr[pos[q]]] {
			return fmt.Errorf("maplp: the orbit partition does not keep argument positions: position %d of factor %d and position %d of factor %d (one class) have variables of different orbits", q, f, pos[q], r)
		}
	}
	tf, tr := g.Table(f), g.Table(r)
	if len(tf.Values) != len(tr.Values) {
		return fmt.Errorf("maplp: the orbit partition puts factors %d and %d of different shapes in one class", f, r)
	}
	stf, str := tf.Strides(), tr.Strides()
	for k, val := range tf.Values {
		kr := 0
		for q := range sf {
			kr += (k / stf[q] % int(tf.Dims[q])) * str[pos[q]]
		}
		if tr.Values[kr] != val {
			return fmt.Errorf("maplp: the orbit partition puts factors %d and %d with different tables in one class", f, r)
		}
	}
	return nil
}
