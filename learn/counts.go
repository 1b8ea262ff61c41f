package learn

import (
	"fmt"

	"github.com/lifted-dev/lifted/mln"
)

// Data is what the exact likelihood of an MLN needs from one training
// database: its domain sizes and the number of true groundings of every
// formula in it (its sufficient statistics).
type Data struct {
	Name   string
	Sizes  map[string]int64
	Counts []float64
}

// world evaluates formulas against a database under the closed-world
// assumption: atoms not in the database (and atoms marked unknown) are
// false.
type world struct {
	m   *mln.MLN
	db  *mln.DB
	dom [][]string // per type
	// flips are atoms whose values are inverted (for PLL).
	flips []atomRef
}

// atomRef names a ground atom by predicate and constant indices.
type atomRef struct {
	pred int
	args []int
}

func newWorld(m *mln.MLN, db *mln.DB) *world {
	w := &world{m: m, db: db, dom: make([][]string, len(m.Types))}
	for i, t := range m.Types {
		w.dom[i] = db.Domain(t.Name)
	}
	return w
}

func (w *world) truth(pred int, args []int) bool {
	v, ok := w.db.Lookup(pred, args)
	t := ok && v == mln.True
	for _, f := range w.flips {
		if pred == f.pred && equalInts(args, f.args) {
			t = !t
		}
	}
	return t
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// binding maps variable names to constant indices.
type binding map[string]int

// constIdx resolves a term under b: a domain index of typ.
func (w *world) constIdx(t mln.Term, typ int, b binding) (int, error) {
	if t.IsVar {
		v, ok := b[t.Name]
		if !ok {
			return 0, fmt.Errorf("variable %s is unbound", t.Name)
		}
		return v, nil
	}
	i := w.db.ConstIndex(w.m.Types[typ].Name, t.Name)
	if i < 0 {
		return 0, fmt.Errorf("constant %s is not in the domain of %s", t.Name, w.m.Types[typ].Name)
	}
	return i, nil
}

// eval evaluates e under the binding b (which it may extend temporarily).
func (w *world) eval(e mln.Expr, b binding) (bool, error) {
	switch e := e.(type) {
	case *mln.Atom:
		p := w.m.Pred(e.Pred)
		args := make([]int, len(e.Args))
		for i, a := range e.Args {
			x, err := w.constIdx(a, p.TypeIdx[i], b)
			if err != nil {
				return false, err
			}
			args[i] = x
		}
		return w.truth(p.Index, args), nil
	case *mln.Equal:
		if e.L.IsVar && e.R.IsVar {
			return b[e.L.Name] == b[e.R.Name], nil
		}
		if !e.L.IsVar && !e.R.IsVar {
			return e.L.Name == e.R.Name, nil
		}
		v, c := e.L, e.R
		if !v.IsVar {
			v, c = c, v
		}
		return w.dom[w.m.TypeIndex(v.Type)][b[v.Name]] == c.Name, nil
	case *mln.Not:
		x, err := w.eval(e.X, b)
		return !x, err
	case *mln.And:
		x, err := w.eval(e.L, b)
		if err != nil || !x {
			return false, err
		}
		return w.eval(e.R, b)
	case *mln.Or:
		x, err := w.eval(e.L, b)
		if err != nil || x {
			return x, err
		}
		return w.eval(e.R, b)
	case *mln.Implies:
		x, err := w.eval(e.L, b)
		if err != nil || !x {
			return true, err
		}
		return w.eval(e.R, b)
	case *mln.Iff:
		x, err := w.eval(e.L, b)
		if err != nil {
			return false, err
		}
		y, err := w.eval(e.R, b)
		return x == y, err
	case *mln.Exists:
		return w.quant(e.Vars, e.Body, b, true)
	case *mln.Forall:
		return w.quant(e.Vars, e.Body, b, false)
	}
	return false, fmt.Errorf("unsupported expression %v", e)
}

func (w *world) quant(vars []*mln.Var, body mln.Expr, b binding, exists bool) (bool, error) {
	if len(vars) == 0 {
		return w.eval(body, b)
	}
	v := vars[0]
	old, had := b[v.Name]
	defer func() {
		if had {
			b[v.Name] = old
		} else {
			delete(b, v.Name)
		}
	}()
	for i := range w.dom[w.m.TypeIndex(v.Type)] {
		b[v.Name] = i
		x, err := w.quant(vars[1:], body, b, exists)
		if err != nil {
			return false, err
		}
		if x == exists {
			return exists, nil
		}
	}
	return !exists, nil
}

// CountDB returns the sizes and the true-grounding counts of every formula
// of m in db (closed world).
func CountDB(m *mln.MLN, db *mln.DB, name string) (*Data, error) {
	if err := checkExpanded(m); err != nil {
		return nil, err
	}
	w := newWorld(m, db)
	d := &Data{Name: name, Sizes: map[string]int64{}, Counts: make([]float64, len(m.Formulas))}
	for i, t := range m.Types {
		d.Sizes[t.Name] = int64(len(w.dom[i]))
	}
	for j, f := range m.Formulas {
		c, err := w.count(f)
		if err != nil {
			return nil, fmt.Errorf("%s: formula %d (%s): %w", name, j+1, f.Text, err)
		}
		d.Counts[j] = c
	}
	return d, nil
}

// count counts the true groundings of f. Quantifier-free formulas with two
// variables use the sparse method (pairs with a true binary atom one by
// one, all others by signature); the rest are enumerated.
func (w *world) count(f *mln.Formula) (float64, error) {
	if len(f.Vars) == 2 && !hasQuant(f.Expr) {
		return w.countPairs(f)
	}
	var c float64
	b := binding{}
	var rec func(i int) error
	rec = func(i int) error {
		if i == len(f.Vars) {
			x, err := w.eval(f.Expr, b)
			if x {
				c++
			}
			return err
		}
		v := f.Vars[i]
		for k := range w.dom[w.m.TypeIndex(v.Type)] {
			b[v.Name] = k
			if err := rec(i + 1); err != nil {
				return err
			}
		}
		delete(b, v.Name)
		return nil
	}
	err := rec(0)
	return c, err
}

func hasQuant(e mln.Expr) bool {
	found := false
	mln.Inspect(e, func(x mln.Expr) bool {
		switch x.(type) {
		case *mln.Exists, *mln.Forall:
			found = true
		}
		return !found
	})
	return found
}

// sparse is an evaluation mode for countPairs: pair atoms (mentioning both
// variables) read as false and x = y as false.
type sparseWorld struct {
	*world
	x, y     string
	pairsOff bool
}

func (s *sparseWorld) eval(e mln.Expr, b binding) (bool, error) {
	if s.pairsOff {
		switch e := e.(type) {
		case *mln.Atom:
			if mentions(e.Args, s.x) && mentions(e.Args, s.y) {
				return false, nil
			}
		case *mln.Equal:
			if e.L.IsVar && e.R.IsVar && e.L.Name != e.R.Name {
				return false, nil
			}
		}
	}
	switch e := e.(type) {
	case *mln.Not:
		x, err := s.eval(e.X, b)
		return !x, err
	case *mln.And:
		x, err := s.eval(e.L, b)
		if err != nil || !x {
			return false, err
		}
		return s.eval(e.R, b)
	case *mln.Or:
		x, err := s.eval(e.L, b)
		if err != nil || x {
			return x, err
		}
		return s.eval(e.R, b)
	case *mln.Implies:
		x, err := s.eval(e.L, b)
		if err != nil || !x {
			return true, err
		}
		return s.eval(e.R, b)
	case *mln.Iff:
		x, err := s.eval(e.L, b)
		if err != nil {
			return false, err
		}
		y, err := s.eval(e.R, b)
		return x == y, err
	}
	return s.world.eval(e, b)
}

func mentions(ts []mln.Term, v string) bool {
	for _, t := range ts {
		if t.IsVar && t.Name == v {
			return true
		}
	}
	return false
}

// countPairs counts the true groundings of a quantifier-free formula over
// two variables x, y as
//
//	Σ_{a≠b} φ(a,b) + Σ_a φ(a,a)   (the diagonal only when x, y share a type),
//
// where a pair whose binary atoms are all false has φ determined by the
// signatures of a and b (the values of the atoms that mention only one
// variable): those pairs are counted by signature, and the few pairs with a
// true binary atom one by one. The cost is linear in the domains and the
// number of true binary atoms.
func (w *world) countPairs(f *mln.Formula) (float64, error) {
	x, y := f.Vars[0], f.Vars[1]
	tx, ty := w.m.TypeIndex(x.Type), w.m.TypeIndex(y.Type)
	// The parts of the formula that mention one variable only: atoms, and
	// equalities with a constant.
	var xAtoms, yAtoms []mln.Expr
	var pairAtoms []*mln.Atom
	mln.Inspect(f.Expr, func(e mln.Expr) bool {
		var args []mln.Term
		switch e := e.(type) {
		case *mln.Atom:
			args = e.Args
		case *mln.Equal:
			args = []mln.Term{e.L, e.R}
		default:
			return true
		}
		mx, my := mentions(args, x.Name), mentions(args, y.Name)
		switch {
		case mx && my:
			if a, ok := e.(*mln.Atom); ok {
				pairAtoms = append(pairAtoms, a)
			}
		case mx:
			xAtoms = append(xAtoms, e)
		case my:
			yAtoms = append(yAtoms, e)
		}
		return true
	})
	sig := func(atoms []mln.Expr, v string, t int) ([]uint64, map[uint64]int, map[uint64]int64, error) {
		n := len(w.dom[t])
		s := make([]uint64, n)
		rep := map[uint64]int{}
		cnt := map[uint64]int64{}
		b := binding{}
		for a := 0; a < n; a++ {
			b[v] = a
			var bits uint64
			for i, at := range atoms {
				val, err := w.eval(at, b)
				if err != nil {
					return nil, nil, nil, err
				}
				if val {
					bits |= 1 << (i % 64)
				}
			}
			if len(atoms) > 64 {
				bits = uint64(a) // too many atoms for a signature: no grouping
			}
			s[a] = bits
			if _, ok := rep[bits]; !ok {
				rep[bits] = a
			}
			cnt[bits]++
		}
		return s, rep, cnt, nil
	}
	sx, repX, cntX, err := sig(xAtoms, x.Name, tx)
	if err != nil {
		return 0, err
	}
	sy, repY, cntY, err := sig(yAtoms, y.Name, ty)
	if err != nil {
		return 0, err
	}
	sw := &sparseWorld{world: w, x: x.Name, y: y.Name, pairsOff: true}
	off := func(a, b int) (bool, error) { return sw.eval(f.Expr, binding{x.Name: a, y.Name: b}) }
	memo := map[[2]uint64]bool{}
	offSig := func(a, b int) (bool, error) {
		k := [2]uint64{sx[a], sy[b]}
		if v, ok := memo[k]; ok {
			return v, nil
		}
		v, err := off(a, b)
		memo[k] = v
		return v, err
	}
	total := 0.0
	// All pairs as if every binary atom were false and x ≠ y.
	for s1, c1 := range cntX {
		for s2, c2 := range cntY {
			v, err := offSig(repX[s1], repY[s2])
			if err != nil {
				return 0, err
			}
			if v {
				total += float64(c1) * float64(c2)
			}
		}
	}
	// Pairs with a true binary atom: replace the estimate by the truth.
	pairs := map[[2]int]bool{}
	for _, at := range pairAtoms {
		p := w.m.Pred(at.Pred)
		xs, ys := -1, -1
		for i, t := range at.Args {
			if t.IsVar && t.Name == x.Name {
				xs = i
			}
			if t.IsVar && t.Name == y.Name {
				ys = i
			}
		}
		for _, ga := range w.db.Atoms {
			if ga.Pred != p.Index || ga.Truth != mln.True {
				continue
			}
			pairs[[2]int{ga.Args[xs], ga.Args[ys]}] = true
		}
	}
	full := func(a, b int) (bool, error) { return w.eval(f.Expr, binding{x.Name: a, y.Name: b}) }
	for pr := range pairs {
		a, b := pr[0], pr[1]
		if tx == ty && a == b {
			continue
		}
		est, err := offSig(a, b)
		if err != nil {
			return 0, err
		}
		tru, err := full(a, b)
		if err != nil {
			return 0, err
		}
		if est != tru {
			if tru {
				total++
			} else {
				total--
			}
		}
	}
	// The diagonal: remove the estimate, add the truth.
	if tx == ty {
		for a := range w.dom[tx] {
			est, err := offSig(a, a)
			if err != nil {
				return 0, err
			}
			tru, err := full(a, a)
			if err != nil {
				return 0, err
			}
			if est {
				total--
			}
			if tru {
				total++
			}
		}
	}
	return total, nil
}

// checkExpanded refuses per-constant variables and starred atoms: each
// stands for several formulas with weights of their own, which mln.Expand
// writes out.
func checkExpanded(m *mln.MLN) error {
	for j, f := range m.Formulas {
		for _, v := range f.Vars {
			if v.PerConstant {
				return fmt.Errorf("%s: formula %d (%s): per-constant variable +%s: expand the model first (mln.Expand: one formula per constant)", f.Pos, j+1, f.Text, v.Name)
			}
		}
		var star *mln.Atom
		mln.Inspect(f.Expr, func(e mln.Expr) bool {
			if a, ok := e.(*mln.Atom); ok && a.Star && star == nil {
				star = a
			}
			return star == nil
		})
		if star != nil {
			return fmt.Errorf("%s: formula %d (%s): starred atom *%s: expand the model first (mln.Expand: one formula per sign combination)", f.Pos, j+1, f.Text, star.Pred)
		}
	}
	return nil
}
