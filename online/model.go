package online

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/mln"
)

// Status is what the training data says about a ground atom.
type Status uint8

const (
	// Evidence atoms belong to evidence predicates: fixed in every inference.
	Evidence Status = iota
	// Observed atoms belong to non-evidence predicates and have a value in
	// the data: clamped for the "data" expectation, free for the model's.
	Observed
	// Hidden atoms have no value in the data ("?P(A)"): free in both.
	Hidden
)

// MaxClauseAtoms is the largest number of non-evidence atoms a ground clause
// may have (its table has 2^k entries).
const MaxClauseAtoms = 12

// node kinds of a compiled formula.
const (
	nAtom = iota
	nEq
	nNot
	nAnd
	nOr
	nImp
	nIff
	nConst // a quantifier over an empty domain: a is its value
)

// cnode is one node of a compiled quantifier-free formula.
type cnode struct {
	kind int
	a, b int // children (node indices), atom slot, or terms of an equality
}

// cterm is a variable (index into the formula's free variables) or a
// constant (index into its type's domain).
type cterm struct {
	isVar bool
	idx   int
}

type cformula struct {
	nodes   []cnode
	root    int
	slots   [][]cterm // atom slot → argument terms
	slotPrd []int     // atom slot → predicate
	eqs     [][2]cterm
	varDom  []int // free variable → domain size
	varType []int // free variable → type index
	hard    bool
}

// maxCompiledNodes bounds a formula's size after its quantifiers are
// expanded (the product of the quantified domains times the body).
const maxCompiledNodes = 1 << 20

// Model is an MLN compiled against one mega-example: the status and value of
// every ground atom and the ground clauses the evidence leaves open.
type Model struct {
	MLN *mln.MLN
	DB  *mln.DB
	// NE[p] marks the non-evidence predicates.
	NE []bool

	forms []cformula
	// ground atoms
	predOff  []int32
	predDims [][]int
	Status   []Status // per ground atom
	Value    []uint8  // per ground atom: 0/1 (meaningless when Hidden)
	// ground clauses, flat
	clForm   []int32 // formula
	clAtomAt []int32 // offsets into clAtoms
	clAtoms  []int32 // non-evidence atoms in first-occurrence order
	clFeatAt []int32 // offsets into clFeat (2^k entries)
	clFeat   []uint8 // formula value per assignment (last atom fastest)
	clBindAt []int32
	clBind   []int32 // binding of the formula's free variables
	// atom → clauses index
	atomClAt []int32
	atomCl   []int32
	// ConstTrue counts, per formula, the ground clauses that the evidence
	// (or equality) makes true whatever the non-evidence atoms: they are not
	// factors, and carry no gradient.
	ConstTrue []float64
	// byForm[k] lists the ground clauses of formula k.
	byForm [][]int32
	// scratchPool holds per-atom scratch arrays for building batches.
	scratchPool *sync.Pool
}

// NewModel compiles m against the mega-example db. ne names the
// non-evidence predicates (the query predicates whose atoms the model
// predicts); all others are evidence predicates (closed world).
//
// Quantifiers are expanded over the constants of their variables' types
// (EXIST into a disjunction, FORALL into a conjunction; over an empty type,
// false and true). Hard formulas (a trailing period) keep one entry in the
// weight vector, so formula indices stay aligned, but that entry is never
// read or learned: their ground clauses are 0/1 constraints. A hard ground
// clause that the evidence makes false is an error wrapping
// fg.ErrContradiction that names the formula and the binding; one that the
// data make false, none of its atoms hidden, is an error as well, unless db
// is nil: then there are no data, every non-evidence atom being a false
// placeholder (for instance to Sample from). Functions are refused, and so
// are "+x", starred atoms (mln.Expand writes them out) and mutually
// exclusive arguments ("!"; mln.MutexAsFormulas writes them as the hard
// formula they stand for).
func NewModel(m *mln.MLN, db *mln.DB, ne []string) (*Model, error) {
	noData := db == nil
	if noData {
		db = mln.NewDB(m)
	}
	md := &Model{MLN: m, DB: db, NE: make([]bool, len(m.Preds)), scratchPool: &sync.Pool{}}
	for _, n := range ne {
		p := m.PredIndex(n)
		if p < 0 {
			return nil, fmt.Errorf("online: unknown predicate %q", n)
		}
		md.NE[p] = true
	}
	// atoms
	var n int64
	for _, p := range m.Preds {
		if p.MutexArg >= 0 {
			return nil, fmt.Errorf("online: predicate %s: mutual exclusion (\"!\") must be written as a hard formula first (mln.MutexAsFormulas)", p.Name)
		}
		md.predOff = append(md.predOff, int32(n))
		dims := make([]int, len(p.ArgTypes))
		size := int64(1)
		for i, t := range p.ArgTypes {
			dims[i] = len(db.Domain(t))
			size *= int64(dims[i])
		}
		md.predDims = append(md.predDims, dims)
		n += size
		if n > 1<<30 {
			return nil, errors.New("online: too many ground atoms")
		}
	}
	md.Status = make([]Status, n)
	md.Value = make([]uint8, n)
	args := []int{}
	for p := range m.Preds {
		dims := md.predDims[p]
		args = args[:0]
		for range dims {
			args = append(args, 0)
		}
		base := md.predOff[p]
		size := int32(1)
		for _, d := range dims {
			size *= int32(d)
		}
		for i := int32(0); i < size; i++ {
			// decode i into args (last fastest)
			r := int(i)
			for j := len(dims) - 1; j >= 0; j-- {
				args[j] = r % dims[j]
				r /= dims[j]
			}
			t, ok := db.Lookup(p, args)
			a := base + i
			switch {
			case ok && t == mln.Unknown:
				md.Status[a] = Hidden
			case md.NE[p]:
				md.Status[a] = Observed
			default:
				md.Status[a] = Evidence
			}
			if ok && t == mln.True {
				md.Value[a] = 1
			}
		}
	}
	for fi, f := range m.Formulas {
		cf, err := md.compile(f)
		if err != nil {
			return nil, fmt.Errorf("online: formula %d %q (%s): %w", fi+1, f.Text, f.Pos, err)
		}
		md.forms = append(md.forms, cf)
	}
	md.clAtomAt = []int32{0}
	md.clFeatAt = []int32{0}
	md.clBindAt = []int32{0}
	md.byForm = make([][]int32, len(m.Formulas))
	md.ConstTrue = make([]float64, len(m.Formulas))
	for fi := range md.forms {
		if err := md.groundFormula(fi); err != nil {
			if errors.Is(err, fg.ErrContradiction) {
				return nil, fmt.Errorf("online: %w", err)
			}
			return nil, fmt.Errorf("online: %s: %w", md.describe(fi), err)
		}
	}
	md.indexAtoms()
	if !noData {
		if err := md.checkData(); err != nil {
			return nil, err
		}
	}
	return md, nil
}

// describe names formula fi as the grounding package does: number (from 1),
// text and position.
func (md *Model) describe(fi int) string {
	f := md.MLN.Formulas[fi]
	return fmt.Sprintf("formula %d %q (%s)", fi+1, f.Text, f.Pos)
}

// bindingText prints a binding of formula fi's free variables as
// "x = Anna, y = Bob".
func (md *Model) bindingText(fi int, bind []int32) string {
	vars := md.MLN.Formulas[fi].Vars
	if len(vars) == 0 {
		return "its only grounding"
	}
	var b strings.Builder
	for j, v := range vars {
		if j > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s = %s", v.Name, md.DB.Domain(v.Type)[bind[j]])
	}
	return b.String()
}

// checkData reports a ground clause of a hard formula that is false under
// the data although none of its atoms is hidden: no world agrees with such
// data, so its likelihood is 0.
func (md *Model) checkData() error {
	for c := range md.clForm {
		if !md.clauseHard(c) {
			continue
		}
		if v, ok := md.clauseObservedValue(c); ok && v == 0 {
			return md.dataError(c)
		}
	}
	return nil
}

// dataError describes hard ground clause c, false under the data.
func (md *Model) dataError(c int) error {
	fi := int(md.clForm[c])
	var vals []string
	for _, a := range md.ClauseAtoms(c) {
		vals = append(vals, fmt.Sprintf("%s = %v", md.AtomName(a), md.Value[a] == 1))
	}
	return fmt.Errorf("online: the data contradict hard %s for %s (%s)", md.describe(fi), md.bindingText(fi, md.clauseBind(c)), strings.Join(vals, ", "))
}

// NumFormulas returns the number of formulas (one weight each, hard ones
// included).
func (md *Model) NumFormulas() int { return len(md.forms) }

// Hard reports whether formula k is hard: its ground clauses are 0/1
// constraints and its weight is never learned.
func (md *Model) Hard(k int) bool { return md.forms[k].hard }

// HasHard reports whether some formula is hard.
func (md *Model) HasHard() bool {
	for k := range md.forms {
		if md.forms[k].hard {
			return true
		}
	}
	return false
}

// learnable returns the formulas whose weights are learned: the soft ones.
func (md *Model) learnable() []int {
	var out []int
	for k := range md.forms {
		if !md.forms[k].hard {
			out = append(out, k)
		}
	}
	return out
}

// clauseHard reports whether ground clause c belongs to a hard formula.
func (md *Model) clauseHard(c int) bool { return md.forms[md.clForm[c]].hard }

// NumAtoms returns the number of ground atoms.
func (md *Model) NumAtoms() int { return len(md.Status) }

// NumClauses returns the number of ground clauses the evidence leaves open.
func (md *Model) NumClauses() int { return len(md.clForm) }

// ClauseFormula returns the formula of ground clause c.
func (md *Model) ClauseFormula(c int) int { return int(md.clForm[c]) }

// ClauseAtoms returns the non-evidence atoms of ground clause c; the slice
// aliases internal storage.
func (md *Model) ClauseAtoms(c int) []int32 { return md.clAtoms[md.clAtomAt[c]:md.clAtomAt[c+1]] }

// clauseFeat returns the formula's value for every assignment of c's atoms.
func (md *Model) clauseFeat(c int) []uint8 { return md.clFeat[md.clFeatAt[c]:md.clFeatAt[c+1]] }

func (md *Model) clauseBind(c int) []int32 { return md.clBind[md.clBindAt[c]:md.clBindAt[c+1]] }

// AtomClauses returns the ground clauses that contain atom a.
func (md *Model) AtomClauses(a int32) []int32 { return md.atomCl[md.atomClAt[a]:md.atomClAt[a+1]] }

// AtomName prints ground atom a as "Friends(Anna,Bob)".
func (md *Model) AtomName(a int32) string {
	p := 0
	for p+1 < len(md.predOff) && md.predOff[p+1] <= a {
		p++
	}
	r := int(a - md.predOff[p])
	dims := md.predDims[p]
	args := make([]string, len(dims))
	for j := len(dims) - 1; j >= 0; j-- {
		args[j] = md.DB.Domain(md.MLN.Preds[p].ArgTypes[j])[r%dims[j]]
		r /= dims[j]
	}
	s := md.MLN.Preds[p].Name + "("
	for i, x := range args {
		if i > 0 {
			s += ","
		}
		s += x
	}
	return s + ")"
}

// AtomPred returns the predicate of ground atom a.
func (md *Model) AtomPred(a int32) int {
	p := 0
	for p+1 < len(md.predOff) && md.predOff[p+1] <= a {
		p++
	}
	return p
}

// compile turns f into a formula over its free variables. Quantifiers are
// expanded in place over the constants of their variables' types, EXIST
// into a disjunction and FORALL into a conjunction of copies of the body
// (false and true for an empty domain), so a ground clause is a plain
// Boolean function of its atoms whatever the quantifiers.
func (md *Model) compile(f *mln.Formula) (cformula, error) {
	cf := cformula{hard: f.Hard}
	vars := map[string]int{}
	for i, v := range f.Vars {
		if v.PerConstant {
			return cf, errors.New(`"+x" must be expanded first (mln.Expand: one formula per constant)`)
		}
		vars[v.Name] = i
		ti := md.MLN.TypeIndex(v.Type)
		cf.varType = append(cf.varType, ti)
		cf.varDom = append(cf.varDom, len(md.DB.Domain(v.Type)))
	}
	// bound maps each quantified variable in scope to the constant (index
	// in its type's domain) of the copy of the body being compiled. The
	// parser rejects a quantifier that rebinds a name in scope, so a name
	// is either bound here or free.
	bound := map[string]int{}
	term := func(t mln.Term) (cterm, error) {
		if t.Func {
			return cterm{}, errors.New("functions are not supported")
		}
		if t.IsVar {
			if c, ok := bound[t.Name]; ok {
				return cterm{false, c}, nil
			}
			i, ok := vars[t.Name]
			if !ok {
				return cterm{}, fmt.Errorf("variable %s is not free", t.Name)
			}
			return cterm{true, i}, nil
		}
		c := md.DB.ConstIndex(t.Type, t.Name)
		if c < 0 {
			return cterm{}, fmt.Errorf("unknown constant %s", t.Name)
		}
		return cterm{false, c}, nil
	}
	var walk func(e mln.Expr) (int, error)
	add := func(n cnode) (int, error) {
		if len(cf.nodes) >= maxCompiledNodes {
			return 0, fmt.Errorf("the expanded quantifiers exceed %d nodes", maxCompiledNodes)
		}
		cf.nodes = append(cf.nodes, n)
		return len(cf.nodes) - 1, nil
	}
	bin := func(kind int, l, r mln.Expr) (int, error) {
		a, err := walk(l)
		if err != nil {
			return 0, err
		}
		b, err := walk(r)
		if err != nil {
			return 0, err
		}
		return add(cnode{kind, a, b})
	}
	quant := func(qvars []*mln.Var, body mln.Expr, kind int) (int, error) {
		dims := make([]int, len(qvars))
		for i, v := range qvars {
			dims[i] = len(md.DB.Domain(v.Type))
			if dims[i] == 0 {
				// EXIST over nothing is false, FORALL over nothing true.
				return add(cnode{nConst, boolInt(kind == nAnd), 0})
			}
		}
		idx := make([]int, len(qvars))
		acc := -1
		for {
			for i, v := range qvars {
				bound[v.Name] = idx[i]
			}
			n, err := walk(body)
			if err != nil {
				return 0, err
			}
			if acc < 0 {
				acc = n
			} else if acc, err = add(cnode{kind, acc, n}); err != nil {
				return 0, err
			}
			i := len(idx) - 1
			for ; i >= 0; i-- {
				if idx[i]++; idx[i] < dims[i] {
					break
				}
				idx[i] = 0
			}
			if i < 0 {
				break
			}
		}
		for _, v := range qvars {
			delete(bound, v.Name)
		}
		return acc, nil
	}
	walk = func(e mln.Expr) (int, error) {
		switch e := e.(type) {
		case *mln.Atom:
			if e.Star {
				return 0, errors.New(`"*" atoms are not supported`)
			}
			p := md.MLN.PredIndex(e.Pred)
			var ts []cterm
			for _, a := range e.Args {
				t, err := term(a)
				if err != nil {
					return 0, err
				}
				ts = append(ts, t)
			}
			cf.slots = append(cf.slots, ts)
			cf.slotPrd = append(cf.slotPrd, p)
			return add(cnode{nAtom, len(cf.slots) - 1, 0})
		case *mln.Equal:
			l, err := term(e.L)
			if err != nil {
				return 0, err
			}
			r, err := term(e.R)
			if err != nil {
				return 0, err
			}
			cf.eqs = append(cf.eqs, [2]cterm{l, r})
			return add(cnode{nEq, len(cf.eqs) - 1, 0})
		case *mln.Not:
			a, err := walk(e.X)
			if err != nil {
				return 0, err
			}
			return add(cnode{nNot, a, 0})
		case *mln.And:
			return bin(nAnd, e.L, e.R)
		case *mln.Or:
			return bin(nOr, e.L, e.R)
		case *mln.Implies:
			return bin(nImp, e.L, e.R)
		case *mln.Iff:
			return bin(nIff, e.L, e.R)
		case *mln.Exists:
			return quant(e.Vars, e.Body, nOr)
		case *mln.Forall:
			return quant(e.Vars, e.Body, nAnd)
		default:
			return 0, fmt.Errorf("%T is not supported", e)
		}
	}
	r, err := walk(f.Expr)
	if err != nil {
		return cf, err
	}
	cf.root = r
	return cf, nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func (cf *cformula) eval(i int, slotVal []bool, eqVal []bool) bool {
	n := cf.nodes[i]
	switch n.kind {
	case nAtom:
		return slotVal[n.a]
	case nEq:
		return eqVal[n.a]
	case nNot:
		return !cf.eval(n.a, slotVal, eqVal)
	case nAnd:
		return cf.eval(n.a, slotVal, eqVal) && cf.eval(n.b, slotVal, eqVal)
	case nOr:
		return cf.eval(n.a, slotVal, eqVal) || cf.eval(n.b, slotVal, eqVal)
	case nImp:
		return !cf.eval(n.a, slotVal, eqVal) || cf.eval(n.b, slotVal, eqVal)
	case nIff:
		return cf.eval(n.a, slotVal, eqVal) == cf.eval(n.b, slotVal, eqVal)
	default:
		return n.a == 1
	}
}

// atomID returns the ground atom of predicate p with the given args.
func (md *Model) atomID(p int, args []int) int32 {
	id := 0
	for j, d := range md.predDims[p] {
		id = id*d + args[j]
	}
	return md.predOff[p] + int32(id)
}

func (md *Model) groundFormula(fi int) error {
	cf := &md.forms[fi]
	nv := len(cf.varDom)
	bind := make([]int, nv)
	total := 1
	for _, d := range cf.varDom {
		total *= d
		if d == 0 {
			return nil
		}
	}
	slotAtom := make([]int32, len(cf.slots))
	slotFree := make([]int, len(cf.slots))
	slotVal := make([]bool, len(cf.slots))
	eqVal := make([]bool, len(cf.eqs))
	var free []int32
	args := []int{}
	val := func(t cterm) int {
		if t.isVar {
			return bind[t.idx]
		}
		return t.idx
	}
	feat := []uint8{}
	for b := 0; b < total; b++ {
		r := b
		for j := nv - 1; j >= 0; j-- {
			bind[j] = r % cf.varDom[j]
			r /= cf.varDom[j]
		}
		free = free[:0]
		for s, ts := range cf.slots {
			args = args[:0]
			for _, t := range ts {
				args = append(args, val(t))
			}
			a := md.atomID(cf.slotPrd[s], args)
			slotAtom[s] = a
			if md.Status[a] == Evidence {
				slotFree[s] = -1
				slotVal[s] = md.Value[a] == 1
				continue
			}
			k := slices.Index(free, a)
			if k < 0 {
				k = len(free)
				free = append(free, a)
			}
			slotFree[s] = k
		}
		if len(free) > MaxClauseAtoms {
			return fmt.Errorf("a ground clause has %d non-evidence atoms (at most %d)", len(free), MaxClauseAtoms)
		}
		for e, q := range cf.eqs {
			eqVal[e] = val(q[0]) == val(q[1])
		}
		k := len(free)
		feat = feat[:0]
		same := true
		for x := 0; x < 1<<k; x++ {
			for s := range cf.slots {
				if j := slotFree[s]; j >= 0 {
					slotVal[s] = x>>(k-1-j)&1 == 1
				}
			}
			v := uint8(0)
			if cf.eval(cf.root, slotVal, eqVal) {
				v = 1
			}
			feat = append(feat, v)
			if v != feat[0] {
				same = false
			}
		}
		if same {
			if cf.hard && feat[0] == 0 {
				b32 := make([]int32, nv)
				for j, x := range bind {
					b32[j] = int32(x)
				}
				return fmt.Errorf("%w: hard %s is false for %s", fg.ErrContradiction, md.describe(fi), md.bindingText(fi, b32))
			}
			md.ConstTrue[fi] += float64(feat[0])
			continue
		}
		c := int32(len(md.clForm))
		md.clForm = append(md.clForm, int32(fi))
		md.clAtoms = append(md.clAtoms, free...)
		md.clAtomAt = append(md.clAtomAt, int32(len(md.clAtoms)))
		md.clFeat = append(md.clFeat, feat...)
		md.clFeatAt = append(md.clFeatAt, int32(len(md.clFeat)))
		for _, x := range bind {
			md.clBind = append(md.clBind, int32(x))
		}
		md.clBindAt = append(md.clBindAt, int32(len(md.clBind)))
		md.byForm[fi] = append(md.byForm[fi], c)
	}
	return nil
}

func (md *Model) indexAtoms() {
	n := len(md.Status)
	md.atomClAt = make([]int32, n+1)
	for _, a := range md.clAtoms {
		md.atomClAt[a+1]++
	}
	for i := 0; i < n; i++ {
		md.atomClAt[i+1] += md.atomClAt[i]
	}
	md.atomCl = make([]int32, len(md.clAtoms))
	fill := slices.Clone(md.atomClAt[:n])
	for c := range md.clForm {
		for _, a := range md.ClauseAtoms(c) {
			md.atomCl[fill[a]] = int32(c)
			fill[a]++
		}
	}
}

// clauseObservedValue returns the value of ground clause c under the data,
// and false when one of its atoms is hidden.
func (md *Model) clauseObservedValue(c int) (uint8, bool) {
	atoms := md.ClauseAtoms(c)
	x := 0
	for _, a := range atoms {
		if md.Status[a] == Hidden {
			return 0, false
		}
		x = x<<1 | int(md.Value[a])
	}
	return md.clauseFeat(c)[x], true
}
