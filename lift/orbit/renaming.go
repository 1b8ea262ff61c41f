package orbit

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/lifted-dev/lifted/ground"
	"github.com/lifted-dev/lifted/mln"
)

// Renaming returns the orbits of the renaming group of a ground MLN (Bui,
// Huynh and Riedel 2013, Section 8.2), found from the MLN without search:
// for each type, every permutation of its constants that no formula names
// and no evidence atom or function value mentions. Such a permutation maps
// the ground atoms, the ground formulas and the evidence to themselves, so
// it is a symmetry of the grounding's factor graph; the group is the direct
// product of the symmetric groups on the interchangeable constants of each
// type, and the number of its orbits depends on the distinguished constants,
// not on the domain sizes.
//
// The result is in terms of gr's variables and factors. Its generators are
// the transpositions of consecutive interchangeable constants of each type
// (in domain order), each turned into a permutation of the variables (an
// auxiliary variable follows the atoms of its factors) and factors; every
// generator is checked with IsSymmetry, and a failure (which would mean
// the grounding is not symmetric under the renaming) is an error.
// Stats.GroupSize is the order of the renaming group, Π over types of
// (number of interchangeable constants)!.
func Renaming(ctx context.Context, gr *ground.Grounding) (*Result, error) {
	return RenamingStabiliser(ctx, gr, nil)
}

// RenamingStabiliser returns the orbits of the renamings that fix each
// variable of fixed: the constants of a fixed atom (and of the atoms around
// a fixed auxiliary variable) are treated as distinguished, which gives
// exactly the renamings fixing each fixed atom.
func RenamingStabiliser(ctx context.Context, gr *ground.Grounding, fixed []int32) (*Result, error) {
	start := time.Now()
	if gr == nil || gr.MLN == nil || gr.Graph == nil {
		return nil, fmt.Errorf("orbit: Renaming needs a grounding with its MLN")
	}
	m, g := gr.MLN, gr.Graph
	nv, nf := g.NumVars(), g.NumFactors()
	free := make([][]bool, len(m.Types)) // free[ti][c]: constant c of type ti is interchangeable
	for ti := range m.Types {
		free[ti] = make([]bool, len(gr.Domain(ti)))
		for c := range free[ti] {
			free[ti][c] = true
		}
	}
	mark := func(ti, c int) {
		if ti >= 0 && ti < len(free) && c >= 0 && c < len(free[ti]) {
			free[ti][c] = false
		}
	}
	markName := func(typ, name string) {
		for ti, td := range m.Types {
			if typ != "" && td.Name != typ {
				continue
			}
			if c := slices.Index(gr.Domain(ti), name); c >= 0 {
				mark(ti, c)
			}
		}
	}
	var markTerm func(t mln.Term)
	markTerm = func(t mln.Term) {
		if t.Func {
			for _, a := range t.Args {
				markTerm(a)
			}
			return
		}
		if !t.IsVar {
			markName(t.Type, t.Name)
		}
	}
	for _, f := range m.Formulas {
		mln.Inspect(f.Expr, func(e mln.Expr) bool {
			switch e := e.(type) {
			case *mln.Atom:
				for _, t := range e.Args {
					markTerm(t)
				}
			case *mln.Equal:
				markTerm(e.L)
				markTerm(e.R)
			}
			return true
		})
	}
	if gr.DB != nil {
		for _, a := range gr.DB.Atoms {
			for i, c := range a.Args {
				mark(m.Preds[a.Pred].TypeIdx[i], c)
			}
		}
		for _, fv := range gr.DB.Funcs {
			fd := m.Funcs[fv.Func]
			for i, c := range fv.Args {
				mark(fd.TypeIdx[i], c)
			}
			mark(fd.RetIdx, fv.Value)
		}
	}
	auxAtoms := auxSignatures(gr)
	for _, v := range fixed {
		if v < 0 || int(v) >= nv {
			return nil, fmt.Errorf("orbit: fixed variable %d out of range (%d variables)", v, nv)
		}
		atoms := []int32{v}
		if _, _, ok := gr.Atom(v); !ok {
			atoms = auxAtoms[v]
		}
		for _, a := range atoms {
			p, args, _ := gr.Atom(a)
			for i, c := range args {
				mark(m.Preds[p].TypeIdx[i], c)
			}
		}
	}

	res := &Result{Stats: Stats{Engine: "renaming", GroupSize: 1}}
	uf := make([]int32, nv+nf)
	for i := range uf {
		uf[i] = int32(i)
	}
	find := func(x int32) int32 {
		for uf[x] != x {
			uf[x] = uf[uf[x]]
			x = uf[x]
		}
		return x
	}
	r := newRenamer(gr, auxAtoms)
	for ti := range m.Types {
		var cs []int
		for c, ok := range free[ti] {
			if ok {
				cs = append(cs, c)
			}
		}
		res.Stats.GroupSize *= math.Gamma(float64(len(cs) + 1))
		for i := 0; i+1 < len(cs); i++ {
			if err := ctx.Err(); err != nil {
				return nil, fmt.Errorf("orbit: %w", err)
			}
			p, err := r.transposition(ti, cs[i], cs[i+1])
			if err != nil {
				return nil, err
			}
			res.Generators = append(res.Generators, p)
			for v, w := range p.Var {
				if a, b := find(int32(v)), find(w); a != b {
					uf[max(a, b)] = min(a, b)
				}
			}
			for f, h := range p.Factor {
				if a, b := find(int32(nv+f)), find(int32(nv)+h); a != b {
					uf[max(a, b)] = min(a, b)
				}
			}
		}
	}
	all, _ := numberClasses(nv+nf, find)
	res.VarOrbit, res.NumVarOrbits = renumber(all[:nv])
	res.FactorOrbit, res.NumFactorOrbits = renumber(all[nv:])
	res.Stats.Generators = len(res.Generators)
	res.Stats.Seconds = time.Since(start).Seconds()
	return res, nil
}

// auxSignatures maps each auxiliary variable to the sorted atom variables of
// its factors.
func auxSignatures(gr *ground.Grounding) map[int32][]int32 {
	g := gr.Graph
	out := map[int32][]int32{}
	for v := range int32(g.NumVars()) {
		if _, _, ok := gr.Atom(v); ok {
			continue
		}
		var s []int32
		for _, e := range g.VarEdges[g.VarStart[v]:g.VarStart[v+1]] {
			for _, w := range g.Scope(g.EdgeFactor(e)) {
				if _, _, ok := gr.Atom(w); ok {
					s = append(s, w)
				}
			}
		}
		slices.Sort(s)
		out[v] = slices.Compact(s)
	}
	return out
}

// renamer turns a transposition of two constants into a Perm.
type renamer struct {
	gr      *ground.Grounding
	aux     map[int32][]int32
	auxBy   map[string][]int32 // atom signature → auxiliary variables
	factBy  map[string][]int32 // sorted scope → factors
	scratch []int32
}

func sigKey(vs []int32) string {
	var b strings.Builder
	for _, v := range vs {
		b.WriteString(strconv.Itoa(int(v)))
		b.WriteByte(',')
	}
	return b.String()
}

func newRenamer(gr *ground.Grounding, aux map[int32][]int32) *renamer {
	r := &renamer{gr: gr, aux: aux, auxBy: map[string][]int32{}, factBy: map[string][]int32{}}
	for v := range int32(gr.Graph.NumVars()) {
		if s, ok := aux[v]; ok {
			k := sigKey(s)
			r.auxBy[k] = append(r.auxBy[k], v)
		}
	}
	g := gr.Graph
	for f := range g.NumFactors() {
		s := slices.Clone(g.Scope(f))
		slices.Sort(s)
		k := sigKey(s)
		r.factBy[k] = append(r.factBy[k], int32(f))
	}
	return r
}

func (r *renamer) transposition(ti, a, b int) (Perm, error) {
	gr, g := r.gr, r.gr.Graph
	m := gr.MLN
	nv, nf := g.NumVars(), g.NumFactors()
	name := func() string {
		d := gr.Domain(ti)
		return fmt.Sprintf("the renaming %s↔%s of type %s", d[a], d[b], m.Types[ti].Name)
	}
	p := Perm{Var: make([]int32, nv), Factor: make([]int32, nf)}
	for v := range int32(nv) {
		pred, args, ok := gr.Atom(v)
		if !ok {
			continue
		}
		img := slices.Clone(args)
		for i, c := range img {
			if m.Preds[pred].TypeIdx[i] == ti {
				switch c {
				case a:
					img[i] = b
				case b:
					img[i] = a
				}
			}
		}
		w, _ := gr.Var(pred, img)
		if w < 0 {
			return Perm{}, fmt.Errorf("orbit: %s maps variable %s to an atom that is not a variable", name(), gr.AtomName(v))
		}
		p.Var[v] = w
	}
	used := map[int32]bool{}
	for v, s := range r.aux {
		img := make([]int32, len(s))
		for i, w := range s {
			img[i] = p.Var[w]
		}
		slices.Sort(img)
		found := false
		for _, u := range r.auxBy[sigKey(img)] {
			if !used[u] {
				used[u], found = true, true
				p.Var[v] = u
				break
			}
		}
		if !found {
			return Perm{}, fmt.Errorf("orbit: %s has no image for auxiliary variable %d", name(), v)
		}
	}
	usedF := make([]bool, nf)
	for f := range nf {
		img := r.scratch[:0]
		for _, v := range g.Scope(f) {
			img = append(img, p.Var[v])
		}
		slices.Sort(img)
		r.scratch = img
		found := false
		for _, h := range r.factBy[sigKey(img)] {
			if !usedF[h] && factorMaps(g, f, int(h), p.Var) {
				usedF[h], found = true, true
				p.Factor[f] = h
				break
			}
		}
		if !found {
			return Perm{}, fmt.Errorf("orbit: %s has no image for factor %d: the grounding is not symmetric under it", name(), f)
		}
	}
	if !IsSymmetry(g, nil, p) {
		return Perm{}, fmt.Errorf("orbit: %s is not a symmetry of the grounding", name())
	}
	return p, nil
}
