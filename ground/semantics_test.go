package ground

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/lifted-dev/lifted/mln"
)

// This file computes the MLN semantics directly from the syntax tree, with
// no code shared with the grounder: enumerate every world over all ground
// atoms that the evidence (and the closed world) leaves open, score it by
// exp(Σ w_i n_i(x)) with n_i the number of true groundings of formula i
// (zero if a hard formula or a mutual-exclusion constraint is violated),
// and sum.

// world is the truth assignment of every ground atom of an MLN.
type semModel struct {
	m       *mln.MLN
	db      *mln.DB
	doms    [][]string
	closed  map[string]bool
	atomID  map[string]int // "Pred|i|j" → atom index
	atoms   []semAtom
	free    []int // atoms the evidence leaves open
	fixed   []int8
	weights []float64 // per formula (NaN = skip, weight 0)
	hard    []bool
}

type semAtom struct {
	pred int
	args []int
}

func atomKey(pred int, args []int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d", pred)
	for _, a := range args {
		fmt.Fprintf(&b, "|%d", a)
	}
	return b.String()
}

// newSemModel lists all ground atoms with their evidence state.
func newSemModel(t testing.TB, m *mln.MLN, db *mln.DB, opt Options) *semModel {
	closed, err := mln.ClosedWorld(m, db, opt.Query, opt.ClosedWorld, opt.OpenWorld)
	if err != nil {
		t.Fatal(err)
	}
	s := &semModel{m: m, db: db, closed: closed, atomID: map[string]int{}}
	for _, ty := range m.Types {
		s.doms = append(s.doms, db.Domain(ty.Name))
	}
	for pi, d := range m.Preds {
		n := 1
		for _, ti := range d.TypeIdx {
			n *= len(s.doms[ti])
		}
		args := make([]int, len(d.TypeIdx))
		for k := 0; k < n; k++ {
			r := k
			for p := len(args) - 1; p >= 0; p-- {
				sz := len(s.doms[d.TypeIdx[p]])
				args[p] = r % sz
				r /= sz
			}
			id := len(s.atoms)
			s.atomID[atomKey(pi, args)] = id
			s.atoms = append(s.atoms, semAtom{pred: pi, args: append([]int(nil), args...)})
			tr, ok := db.Lookup(pi, args)
			switch {
			case ok && tr == mln.True:
				s.fixed = append(s.fixed, 1)
			case ok && tr == mln.False:
				s.fixed = append(s.fixed, 0)
			case ok && tr == mln.Unknown:
				s.fixed = append(s.fixed, -1)
			case closed[d.Name]:
				s.fixed = append(s.fixed, 0)
			default:
				s.fixed = append(s.fixed, -1)
			}
			if s.fixed[id] < 0 {
				s.free = append(s.free, id)
			}
		}
	}
	for _, f := range m.Formulas {
		w := f.Weight
		if !f.HasWeight && !f.Hard {
			w = opt.DefaultWeight
		}
		s.weights = append(s.weights, w)
		s.hard = append(s.hard, f.Hard)
	}
	return s
}

// env binds variable names to constant indices.
type env map[string]int

func (s *semModel) constIndex(t mln.Term, e env) int {
	if t.Func {
		v, ok := s.funcValue(t, e)
		if !ok {
			panic("undefined function term " + t.String())
		}
		return v
	}
	if t.IsVar {
		return e[t.Name]
	}
	ti := s.m.TypeIndex(t.Type)
	for i, c := range s.doms[ti] {
		if c == t.Name {
			return i
		}
	}
	panic("constant not in domain: " + t.Name)
}

// funcValue looks function term t up in the evidence, and reports whether
// it (and every function term among its arguments) is defined.
func (s *semModel) funcValue(t mln.Term, e env) (int, bool) {
	args := make([]int, len(t.Args))
	for i, a := range t.Args {
		if a.Func {
			v, ok := s.funcValue(a, e)
			if !ok {
				return 0, false
			}
			args[i] = v
		} else {
			args[i] = s.constIndex(a, e)
		}
	}
	return s.db.FuncValueOf(s.m.Func(t.Name).Index, args)
}

// defined reports whether every function term of formula ex is defined
// under e, whose variables include all those function terms use (they may
// not use quantified ones). A grounding where one is not is true: LoMRF
// rewrites F as !ReturnValueOf_f(r, args) v F[r/f(args)].
func (s *semModel) defined(ex mln.Expr, e env) bool {
	ok := true
	check := func(ts ...mln.Term) {
		for _, t := range ts {
			if t.Func {
				if _, d := s.funcValue(t, e); !d {
					ok = false
				}
			}
		}
	}
	mln.Inspect(ex, func(x mln.Expr) bool {
		switch n := x.(type) {
		case *mln.Atom:
			check(n.Args...)
		case *mln.Equal:
			check(n.L, n.R)
		}
		return ok
	})
	return ok
}

// eval evaluates e in world x under e's variable bindings; star gives the
// sign (true = negated) of each starred atom.
func (s *semModel) eval(ex mln.Expr, x []bool, e env, star map[*mln.Atom]bool) bool {
	switch n := ex.(type) {
	case *mln.Atom:
		d := s.m.Pred(n.Pred)
		args := make([]int, len(n.Args))
		for i, a := range n.Args {
			args[i] = s.constIndex(a, e)
		}
		v := x[s.atomID[atomKey(d.Index, args)]]
		if star[n] {
			v = !v
		}
		return v
	case *mln.Equal:
		return s.constIndex(n.L, e) == s.constIndex(n.R, e)
	case *mln.Not:
		return !s.eval(n.X, x, e, star)
	case *mln.And:
		return s.eval(n.L, x, e, star) && s.eval(n.R, x, e, star)
	case *mln.Or:
		return s.eval(n.L, x, e, star) || s.eval(n.R, x, e, star)
	case *mln.Implies:
		return !s.eval(n.L, x, e, star) || s.eval(n.R, x, e, star)
	case *mln.Iff:
		return s.eval(n.L, x, e, star) == s.eval(n.R, x, e, star)
	case *mln.Exists:
		if n.Cmp != "" {
			k := 0
			s.bindings(n.Vars, e, func() bool {
				if s.eval(n.Body, x, e, star) {
					k++
				}
				return true
			})
			return n.Counts(k)
		}
		found := false
		s.bindings(n.Vars, e, func() bool {
			found = s.eval(n.Body, x, e, star)
			return !found
		})
		return found
	case *mln.Forall:
		all := true
		s.bindings(n.Vars, e, func() bool {
			all = s.eval(n.Body, x, e, star)
			return all
		})
		return all
	}
	panic(fmt.Sprintf("unexpected node %T", ex))
}

// bindings calls fn for every binding of vars (extending e) until fn
// returns false; it restores e.
func (s *semModel) bindings(vars []*mln.Var, e env, fn func() bool) {
	var rec func(i int) bool
	rec = func(i int) bool {
		if i == len(vars) {
			return fn()
		}
		v := vars[i]
		for c := range s.doms[s.m.TypeIndex(v.Type)] {
			e[v.Name] = c
			if !rec(i + 1) {
				delete(e, v.Name)
				return false
			}
		}
		delete(e, v.Name)
		return true
	}
	rec(0)
}

// starSigns lists the sign combinations of a formula's starred atoms.
func starSigns(f *mln.Formula) []map[*mln.Atom]bool {
	var stars []*mln.Atom
	mln.Inspect(f.Expr, func(e mln.Expr) bool {
		if a, ok := e.(*mln.Atom); ok && a.Star {
			for _, b := range stars {
				if b == a {
					return true
				}
			}
			stars = append(stars, a)
		}
		return true
	})
	var out []map[*mln.Atom]bool
	for mask := 0; mask < 1<<len(stars); mask++ {
		m := map[*mln.Atom]bool{}
		for i, a := range stars {
			m[a] = mask&(1<<i) != 0
		}
		out = append(out, m)
	}
	return out
}

// logWeight returns log of the unnormalised weight of world x, -Inf if a
// hard formula or a mutual-exclusion constraint is violated.
func (s *semModel) logWeight(x []bool) float64 {
	if !s.mutexOK(x) {
		return math.Inf(-1)
	}
	lw := 0.0
	for fi, f := range s.m.Formulas {
		for _, star := range starSigns(f) {
			n := 0
			violated := false
			e := env{}
			s.bindings(f.Vars, e, func() bool {
				if !s.defined(f.Expr, e) || s.eval(f.Expr, x, e, star) {
					n++
				} else if s.hard[fi] {
					violated = true
				}
				return true
			})
			if violated {
				return math.Inf(-1)
			}
			if !s.hard[fi] {
				lw += s.weights[fi] * float64(n)
			}
		}
	}
	return lw
}

// mutexOK checks every mutual-exclusion block.
func (s *semModel) mutexOK(x []bool) bool {
	for pi, d := range s.m.Preds {
		if len(d.MutexArgs) == 0 {
			continue
		}
		count := map[string]int{}
		seen := map[string]bool{}
		for id, a := range s.atoms {
			if a.pred != pi {
				continue
			}
			var k strings.Builder
			for p, c := range a.args {
				isM := false
				for _, m := range d.MutexArgs {
					isM = isM || m == p
				}
				if !isM {
					fmt.Fprintf(&k, "%d|", c)
				}
			}
			seen[k.String()] = true
			if x[id] {
				count[k.String()]++
			}
		}
		for k := range seen {
			if count[k] != 1 {
				return false
			}
		}
	}
	return true
}

// solve enumerates the worlds: log Z and P(atom true) for every atom.
func (s *semModel) solve() (logZ float64, marg []float64) {
	x := make([]bool, len(s.atoms))
	for id, v := range s.fixed {
		x[id] = v == 1
	}
	nf := len(s.free)
	lws := make([]float64, 1<<nf)
	mx := math.Inf(-1)
	for k := 0; k < 1<<nf; k++ {
		for i, id := range s.free {
			x[id] = k>>i&1 == 1
		}
		lws[k] = s.logWeight(x)
		mx = math.Max(mx, lws[k])
	}
	marg = make([]float64, len(s.atoms))
	if math.IsInf(mx, -1) {
		return mx, marg
	}
	z := 0.0
	for k, lw := range lws {
		w := math.Exp(lw - mx)
		z += w
		for i, id := range s.free {
			if k>>i&1 == 1 {
				marg[id] += w
			}
		}
	}
	for id := range marg {
		if s.fixed[id] >= 0 {
			marg[id] = float64(s.fixed[id])
		} else {
			marg[id] /= z
		}
	}
	return mx + math.Log(z), marg
}

// keptCount counts, for formula fi, the groundings whose value depends on
// the free atoms (the ground formulas that survive simplification).
func (s *semModel) keptCount(fi int) int {
	f := s.m.Formulas[fi]
	x := make([]bool, len(s.atoms))
	for id, v := range s.fixed {
		x[id] = v == 1
	}
	n := 0
	for _, star := range starSigns(f) {
		e := env{}
		s.bindings(f.Vars, e, func() bool {
			if !s.defined(f.Expr, e) {
				return true // true whatever the world
			}
			// the atoms this grounding mentions
			var mention []int
			s.collect(f.Expr, copyEnv(e), &mention)
			var freeM []int
			for _, id := range mention {
				if s.fixed[id] < 0 && !containsInt(freeM, id) {
					freeM = append(freeM, id)
				}
			}
			first := s.eval(f.Expr, x, e, star)
			depends := false
			for k := 1; k < 1<<len(freeM) && !depends; k++ {
				for i, id := range freeM {
					x[id] = k>>i&1 == 1
				}
				depends = s.eval(f.Expr, x, e, star) != first
			}
			for _, id := range freeM {
				x[id] = false
			}
			if depends {
				n++
			}
			return true
		})
	}
	return n
}

func containsInt(s []int, x int) bool {
	for _, y := range s {
		if y == x {
			return true
		}
	}
	return false
}

func copyEnv(e env) env {
	out := env{}
	for k, v := range e {
		out[k] = v
	}
	return out
}

// collect lists the atoms e mentions under every binding of its
// quantifiers.
func (s *semModel) collect(ex mln.Expr, e env, out *[]int) {
	switch n := ex.(type) {
	case *mln.Atom:
		d := s.m.Pred(n.Pred)
		args := make([]int, len(n.Args))
		for i, a := range n.Args {
			args[i] = s.constIndex(a, e)
		}
		*out = append(*out, s.atomID[atomKey(d.Index, args)])
	case *mln.Not:
		s.collect(n.X, e, out)
	case *mln.And:
		s.collect(n.L, e, out)
		s.collect(n.R, e, out)
	case *mln.Or:
		s.collect(n.L, e, out)
		s.collect(n.R, e, out)
	case *mln.Implies:
		s.collect(n.L, e, out)
		s.collect(n.R, e, out)
	case *mln.Iff:
		s.collect(n.L, e, out)
		s.collect(n.R, e, out)
	case *mln.Exists:
		s.bindings(n.Vars, e, func() bool { s.collect(n.Body, e, out); return true })
	case *mln.Forall:
		s.bindings(n.Vars, e, func() bool { s.collect(n.Body, e, out); return true })
	}
}
