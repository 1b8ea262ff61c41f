package learn

import (
	"fmt"
	"slices"

	"github.com/lifted-dev/lifted/ground"
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
// false. Formulas are compiled by the grounding package (ground.Compile),
// whose evaluator reads their atoms from the database.
type world struct {
	m   *mln.MLN
	db  *mln.DB
	dom [][]string // per type
	// flips are atoms whose values are inverted (for PLL).
	flips []atomRef

	forms []*ground.Formula // per formula, compiled on first use
	evals []*ground.Eval
	args  []int // scratch for truth32
}

// atomRef names a ground atom by predicate and constant indices.
type atomRef struct {
	pred int
	args []int
}

func newWorld(m *mln.MLN, db *mln.DB) *world {
	return &world{m: m, db: db, dom: ground.Domains(m, db),
		forms: make([]*ground.Formula, len(m.Formulas)), evals: make([]*ground.Eval, len(m.Formulas))}
}

// formula returns formula j compiled, and its evaluator.
func (w *world) formula(j int) (*ground.Formula, *ground.Eval, error) {
	if w.forms[j] == nil {
		f, err := ground.Compile(w.m, w.dom, j, ground.CompileOptions{})
		if err != nil {
			return nil, nil, err
		}
		w.forms[j], w.evals[j] = f, f.NewEval()
	}
	return w.forms[j], w.evals[j], nil
}

func (w *world) truth(pred int, args []int) bool {
	v, ok := w.db.Lookup(pred, args)
	t := ok && v == mln.True
	for _, f := range w.flips {
		if pred == f.pred && slices.Equal(args, f.args) {
			t = !t
		}
	}
	return t
}

func (w *world) truth32(pred int, args []int32) bool {
	w.args = w.args[:0]
	for _, a := range args {
		w.args = append(w.args, int(a))
	}
	return w.truth(pred, w.args)
}

// eval evaluates formula j at the binding b of its free variables.
func (w *world) eval(j int, b []int32) (bool, error) {
	_, ev, err := w.formula(j)
	if err != nil {
		return false, err
	}
	return ev.Truth(b, w.truth32), nil
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
		c, err := w.count(j)
		if err != nil {
			return nil, fmt.Errorf("%s: formula %d (%s): %w", name, j+1, f.Text, err)
		}
		d.Counts[j] = c
	}
	return d, nil
}

// count counts the true groundings of formula j. Quantifier-free formulas
// with two variables use the sparse method (pairs with a true binary atom
// one by one, all others by signature); the rest are enumerated.
func (w *world) count(j int) (float64, error) {
	f := w.m.Formulas[j]
	if len(f.Vars) == 2 && !hasQuant(f.Expr) {
		return w.countPairs(j)
	}
	_, ev, err := w.formula(j)
	if err != nil {
		return 0, err
	}
	return float64(ev.Count(w.truth32)), nil
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

// mentions reports which of the free variables 0 (x) and 1 (y) occur among
// ts.
func mentions(ts ...ground.Term) (x, y bool) {
	for _, t := range ts {
		if v, ok := t.Var(); ok {
			x = x || v == 0
			y = y || v == 1
		}
	}
	return x, y
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
func (w *world) countPairs(j int) (float64, error) {
	cf, ev, err := w.formula(j)
	if err != nil {
		return 0, err
	}
	tx, ty := cf.VarType(0), cf.VarType(1)
	// The parts of the formula that mention one variable only: atoms, and
	// equalities with a constant; and those that mention both.
	var xOccs, yOccs, pairOccs, xEqs, yEqs, pairEqs []int
	for o := range cf.NumOccs() {
		_, args := cf.Occ(o)
		switch mx, my := mentions(args...); {
		case mx && my:
			pairOccs = append(pairOccs, o)
		case mx:
			xOccs = append(xOccs, o)
		case my:
			yOccs = append(yOccs, o)
		}
	}
	for i := range cf.NumEqs() {
		switch mx, my := mentions(cf.Eq(i)); {
		case mx && my:
			pairEqs = append(pairEqs, i)
		case mx:
			xEqs = append(xEqs, i)
		case my:
			yEqs = append(yEqs, i)
		}
	}
	bind := make([]int32, 2)
	sig := func(occs, eqs []int, v int, t int) ([]uint64, map[uint64]int, map[uint64]int64) {
		n := len(w.dom[t])
		s := make([]uint64, n)
		rep := map[uint64]int{}
		cnt := map[uint64]int64{}
		bind[0], bind[1] = 0, 0
		for a := 0; a < n; a++ {
			bind[v] = int32(a)
			ev.Bind(bind)
			var bits uint64
			for i, o := range occs {
				p, _ := cf.Occ(o)
				if w.truth32(p, ev.Args(o)) {
					bits |= 1 << (i % 64)
				}
			}
			for i, q := range eqs {
				l, r := cf.Eq(q)
				if bindTerm(l, bind) == bindTerm(r, bind) {
					bits |= 1 << ((len(occs) + i) % 64)
				}
			}
			if len(occs)+len(eqs) > 64 {
				bits = uint64(a) // too many atoms for a signature: no grouping
			}
			s[a] = bits
			if _, ok := rep[bits]; !ok {
				rep[bits] = a
			}
			cnt[bits]++
		}
		return s, rep, cnt
	}
	sx, repX, cntX := sig(xOccs, xEqs, 0, tx)
	sy, repY, cntY := sig(yOccs, yEqs, 1, ty)
	isPair := make([]bool, cf.NumOccs())
	for _, o := range pairOccs {
		isPair[o] = true
	}
	// off evaluates with the pair atoms false and x = y false.
	off := func(a, b int) bool {
		bind[0], bind[1] = int32(a), int32(b)
		ev.Bind(bind)
		for o := range cf.NumOccs() {
			if isPair[o] {
				ev.Set(o, false)
			} else {
				p, _ := cf.Occ(o)
				ev.Set(o, w.truth32(p, ev.Args(o)))
			}
		}
		for _, q := range pairEqs {
			ev.SetEq(q, false)
		}
		v, _ := ev.Value()
		return v
	}
	memo := map[[2]uint64]bool{}
	offSig := func(a, b int) bool {
		k := [2]uint64{sx[a], sy[b]}
		if v, ok := memo[k]; ok {
			return v
		}
		v := off(a, b)
		memo[k] = v
		return v
	}
	total := 0.0
	// All pairs as if every binary atom were false and x ≠ y.
	for s1, c1 := range cntX {
		for s2, c2 := range cntY {
			if offSig(repX[s1], repY[s2]) {
				total += float64(c1) * float64(c2)
			}
		}
	}
	// Pairs with a true binary atom: replace the estimate by the truth.
	pairs := map[[2]int]bool{}
	for _, o := range pairOccs {
		p, args := cf.Occ(o)
		xs, ys := -1, -1
		for i, t := range args {
			if v, ok := t.Var(); ok && v == 0 {
				xs = i
			} else if ok && v == 1 {
				ys = i
			}
		}
		for _, ga := range w.db.Atoms {
			if ga.Pred != p || ga.Truth != mln.True {
				continue
			}
			pairs[[2]int{ga.Args[xs], ga.Args[ys]}] = true
		}
	}
	full := func(a, b int) bool {
		bind[0], bind[1] = int32(a), int32(b)
		return ev.Truth(bind, w.truth32)
	}
	for pr := range pairs {
		a, b := pr[0], pr[1]
		if tx == ty && a == b {
			continue
		}
		if est, tru := offSig(a, b), full(a, b); est != tru {
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
			if offSig(a, a) {
				total--
			}
			if full(a, a) {
				total++
			}
		}
	}
	return total, nil
}

// bindTerm returns the constant of t under bind.
func bindTerm(t ground.Term, bind []int32) int32 {
	if v, ok := t.Var(); ok {
		return bind[v]
	}
	c, _ := t.Const()
	return int32(c)
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
