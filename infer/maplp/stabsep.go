package maplp

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/ground"
	"github.com/lifted-dev/lifted/lift/orbit"
)

// StabiliserSymmetry is a Symmetry that can also give the orbits of the
// stabiliser of one variable v (the subgroup of its group that fixes v).
// Lifted cycle separation uses it to separate on the lifted graph fixing
// each representative variable (Bui et al. 2013, Theorem 7.1) instead of
// on the ground graph. In the returned Partition v must be alone in its
// class.
type StabiliserSymmetry interface {
	Symmetry
	Stabiliser(ctx context.Context, g *fg.Graph, ev fg.Evidence, v int32) (*Partition, error)
}

// Stabiliser is the orbit partition of the automorphisms that fix v.
func (o Orbits) Stabiliser(ctx context.Context, g *fg.Graph, ev fg.Evidence, v int32) (*Partition, error) {
	r, err := orbit.Stabiliser(ctx, g, ev, []int32{v}, o.Options)
	if err != nil {
		return nil, err
	}
	return fromOrbit(r), nil
}

// Stabiliser is the orbit partition of the renamings that fix v.
func (r Renaming) Stabiliser(ctx context.Context, g *fg.Graph, _ fg.Evidence, v int32) (*Partition, error) {
	if r.Grounding == nil {
		return nil, ErrRenamingNeedsMLN
	}
	if r.Grounding.Graph != g {
		return nil, fmt.Errorf("maplp: symmetry renaming: the graph is not the grounding's")
	}
	res, err := orbit.RenamingStabiliser(ctx, r.Grounding, []int32{v})
	if err != nil {
		return nil, err
	}
	return fromOrbit(res), nil
}

var _ StabiliserSymmetry = Orbits{}
var _ StabiliserSymmetry = Renaming{Grounding: (*ground.Grounding)(nil)}

// errNotFixed: a stabiliser partition that does not put v alone.
var errNotFixed = errors.New("maplp: stabiliser partition does not fix its variable")

// liftedGraph is the lifted graph fixing one source variable v (Theorem
// 7.1): its nodes are the orbits of v's stabiliser on the variables, its
// edges the stabiliser's edge orbits, merged where they join the same two
// node orbits with the same cut expression in the LP's columns (such edges
// have the same cut value and fold to the same cut, so only one is kept;
// a merged group is a union of edge orbits and so, like one, is incident to
// every variable of its end orbits). Self-loops are edges inside one node
// orbit. Every walk from v's node lifts to a ground walk from v through
// the same edge classes (each edge group meets every variable of its end
// orbits), and v's node is {v}: a path from v to its mirror here is a
// closed ground walk through v of the same length and the same folded cut,
// and vice versa.
type liftedGraph struct {
	src      int32   // v's node
	n        int     // nodes
	ea, eb   []int32 // edge ends
	ecl      []int32 // edge cut class
	adjStart []int
	adj      []int32
}

// stabSep is the stabiliser-based lifted separation of a cycleSep.
type stabSep struct {
	classRep []int32 // cut class → a ground edge with that cut expression
	graphs   []*liftedGraph
}

// cutKey is a canonical string of edge e's cut expression.
func (s *cycleSep) cutKey(e int) string {
	coef := map[int32]float64{}
	s.cutExpr(e, 1, func(col int32, v float64) { coef[col] += v })
	cols := make([]int32, 0, len(coef))
	for c := range coef {
		cols = append(cols, c)
	}
	sort.Slice(cols, func(a, b int) bool { return cols[a] < cols[b] })
	var b strings.Builder
	for _, c := range cols {
		b.WriteString(strconv.Itoa(int(c)))
		b.WriteByte(':')
		b.WriteString(strconv.FormatFloat(coef[c], 'g', 12, 64))
		b.WriteByte(' ')
	}
	return b.String()
}

// buildStab computes, for one source per variable orbit, the stabiliser's
// orbits and the lifted graph fixing it.
func (s *cycleSep) buildStab(ctx context.Context, sym StabiliserSymmetry) (*stabSep, error) {
	st := &stabSep{}
	ecl := make([]int32, len(s.ei))
	ids := map[string]int32{}
	for e := range s.ei {
		k := s.cutKey(e)
		id, ok := ids[k]
		if !ok {
			id = int32(len(st.classRep))
			ids[k] = id
			st.classRep = append(st.classRep, int32(e))
		}
		ecl[e] = id
	}
	for v := 0; v < s.n; v++ {
		if s.adjStart[v] == s.adjStart[v+1] || !s.source[v] {
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		p, err := sym.Stabiliser(ctx, s.m.g, s.m.ev, int32(v))
		if err != nil {
			return nil, err
		}
		if len(p.VarClass) != s.n {
			return nil, fmt.Errorf("maplp: stabiliser partition of %d variables for %d", len(p.VarClass), s.n)
		}
		src := p.VarClass[v]
		for u, c := range p.VarClass {
			if c == src && u != v {
				return nil, errNotFixed
			}
		}
		lg := &liftedGraph{src: src, n: p.NumVarClasses}
		type key struct{ a, b, c int32 }
		seen := map[key]bool{}
		for e := range s.ei {
			a, b := p.VarClass[s.ei[e]], p.VarClass[s.ej[e]]
			if a > b {
				a, b = b, a
			}
			k := key{a, b, ecl[e]}
			if !seen[k] {
				seen[k] = true
				lg.ea, lg.eb, lg.ecl = append(lg.ea, a), append(lg.eb, b), append(lg.ecl, ecl[e])
			}
		}
		deg := make([]int, lg.n+1)
		for e := range lg.ea {
			deg[lg.ea[e]+1]++
			if lg.eb[e] != lg.ea[e] {
				deg[lg.eb[e]+1]++
			}
		}
		for i := 0; i < lg.n; i++ {
			deg[i+1] += deg[i]
		}
		lg.adjStart = append([]int(nil), deg...)
		lg.adj = make([]int32, deg[lg.n])
		fill := append([]int(nil), deg[:lg.n]...)
		for e := range lg.ea {
			lg.adj[fill[lg.ea[e]]] = int32(e)
			fill[lg.ea[e]]++
			if lg.eb[e] != lg.ea[e] {
				lg.adj[fill[lg.eb[e]]] = int32(e)
				fill[lg.eb[e]]++
			}
		}
		st.graphs = append(st.graphs, lg)
	}
	return st, nil
}

// separateStab is separate on the lifted graphs fixing each source: the
// same shortest-path search, on the stabiliser's orbits instead of the
// ground variables, with the cut value of each edge class computed once
// from the lifted solution.
func (s *cycleSep) separateStab(ctx context.Context, x []float64, tol float64, max int) ([]cut, error) {
	st := s.stab
	c := make([]float64, len(st.classRep))
	for k, e := range st.classRep {
		v := 0.0
		s.cutExpr(int(e), 1, func(col int32, coef float64) { v += coef * x[col] })
		c[k] = math.Min(1, math.Max(0, v))
	}
	var out []cut
	seen := map[string]bool{}
	var ms *mirrorSearch
	for _, lg := range st.graphs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if ms == nil || len(ms.dist) < 2*lg.n {
			ms = newMirrorSearch(lg.n)
		}
		g := mirrorGraph{n: lg.n, adjStart: lg.adjStart, adj: lg.adj, ea: lg.ea, eb: lg.eb}
		coef := map[int32]float64{}
		nF := 0
		length, ok := ms.path(g, lg.src, func(e int32) float64 { return c[lg.ecl[e]] }, tol, func(e int32, crossed bool) {
			sign := -1.0
			if crossed {
				sign = 1
				nF++
			}
			s.cutExpr(int(st.classRep[lg.ecl[e]]), sign, func(col int32, v float64) { coef[col] += v })
		})
		if !ok {
			continue
		}
		k := makeCut(coef, nF, 1-length)
		if !seen[k.key] {
			seen[k.key] = true
			out = append(out, k)
		}
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].viol > out[b].viol })
	if len(out) > max {
		out = out[:max]
	}
	return out, nil
}
