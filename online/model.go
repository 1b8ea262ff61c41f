package online

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/ground"
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

// ErrClauseTooLarge reports a ground clause with more than MaxClauseAtoms
// non-evidence atoms (learn.Discriminative has no such limit).
var ErrClauseTooLarge = errors.New("ground clause too large for the BP learners")

// cformula is one formula of the model: compiled by the grounding
// package, which evaluates its ground clauses.
type cformula struct {
	f    *ground.Formula
	occP []int // predicate per occurrence
	hard bool
}

// Model is an MLN compiled against one mega-example: the status and value of
// every ground atom and the ground clauses the evidence leaves open.
type Model struct {
	MLN *mln.MLN
	DB  *mln.DB
	// NE[p] marks the non-evidence predicates.
	NE []bool

	forms []cformula
	// ground atoms
	atoms  *ground.AtomIndex
	Status []Status // per ground atom
	Value  []uint8  // per ground atom: 0/1 (meaningless when Hidden)
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
	return NewModelContext(context.Background(), m, db, ne)
}

// NewModelContext is NewModel that stops with ctx's error when ctx is done
// (its grounding polls ctx).
func NewModelContext(ctx context.Context, m *mln.MLN, db *mln.DB, ne []string) (*Model, error) {
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
	md.atoms = ground.NewAtomIndex(m, ground.Domains(m, db))
	for i, p := range m.Preds {
		if p.MutexArg >= 0 {
			return nil, fmt.Errorf("online: predicate %s: mutual exclusion (\"!\") must be written as a hard formula first (mln.MutexAsFormulas)", p.Name)
		}
		if md.atoms.Offset(i+1) > 1<<30 {
			return nil, errors.New("online: too many ground atoms")
		}
	}
	n := md.atoms.NumAtoms()
	md.Status = make([]Status, n)
	md.Value = make([]uint8, n)
	var args []int32
	iargs := []int{}
	for a := range int32(n) {
		if a%(1<<16) == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		var p int
		p, args = md.atoms.Args(int64(a), args)
		iargs = iargs[:0]
		for _, x := range args {
			iargs = append(iargs, int(x))
		}
		t, ok := db.Lookup(p, iargs)
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
	for fi, f := range m.Formulas {
		cf, err := md.compile(fi)
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
		if err := md.groundFormula(ctx, fi); err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
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
	p, args := md.atoms.Args(int64(a), nil)
	s := md.MLN.Preds[p].Name + "("
	for i, x := range args {
		if i > 0 {
			s += ","
		}
		s += md.atoms.Constant(md.MLN.Preds[p].TypeIdx[i], int(x))
	}
	return s + ")"
}

// AtomPred returns the predicate of ground atom a.
func (md *Model) AtomPred(a int32) int { return md.atoms.Pred(int64(a)) }

// compile compiles formula fi with the grounding package's compiler:
// quantifiers are expanded in place over the constants of their variables'
// types, EXIST into a disjunction and FORALL into a conjunction of copies
// of the body (false and true for an empty domain), so a ground clause is a
// plain Boolean function of its atoms whatever the quantifiers. Every atom
// written is kept, even where constants decide its subformula ("P(x) ^ x
// != x"): a ground clause's atoms are those its formula names.
func (md *Model) compile(fi int) (cformula, error) {
	f := md.MLN.Formulas[fi]
	cf := cformula{hard: f.Hard}
	for _, v := range f.Vars {
		if v.PerConstant {
			return cf, errors.New(`"+x" must be expanded first (mln.Expand: one formula per constant)`)
		}
	}
	var err error
	mln.Inspect(f.Expr, func(e mln.Expr) bool {
		var ts []mln.Term
		switch e := e.(type) {
		case *mln.Atom:
			if e.Star {
				err = errors.New(`"*" atoms are not supported`)
				return false
			}
			ts = e.Args
		case *mln.Equal:
			ts = []mln.Term{e.L, e.R}
		}
		for _, t := range ts {
			if t.Func {
				err = errors.New("functions are not supported")
				return false
			}
		}
		return true
	})
	if err != nil {
		return cf, err
	}
	if cf.f, err = ground.Compile(md.MLN, ground.Domains(md.MLN, md.DB), fi, ground.CompileOptions{KeepOccurrences: true}); err != nil {
		return cf, err
	}
	for o := range cf.f.NumOccs() {
		p, _ := cf.f.Occ(o)
		cf.occP = append(cf.occP, p)
	}
	return cf, nil
}

// atomID returns the ground atom of predicate p with the given args.
func (md *Model) atomID(p int, args []int32) int32 { return int32(md.atoms.ID(p, args)) }

// groundFormula adds the ground clauses of formula fi, one per binding of
// its free variables (the last fastest) that the evidence leaves open.
func (md *Model) groundFormula(ctx context.Context, fi int) error {
	cf := &md.forms[fi]
	var bindings int
	ev := cf.f.NewEval()
	occFree := make([]int, len(cf.occP))
	var free []int32
	feat := []uint8{}
	return cf.f.EachBinding(func(bind []int32) error {
		if bindings++; bindings%4096 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		ev.Bind(bind)
		free = free[:0]
		for o, p := range cf.occP {
			a := md.atomID(p, ev.Args(o))
			if md.Status[a] == Evidence {
				occFree[o] = -1
				ev.Set(o, md.Value[a] == 1)
				continue
			}
			k := slices.Index(free, a)
			if k < 0 {
				k = len(free)
				free = append(free, a)
			}
			occFree[o] = k
		}
		if len(free) > MaxClauseAtoms {
			return fmt.Errorf("%w: a ground clause has %d non-evidence atoms (at most %d)", ErrClauseTooLarge, len(free), MaxClauseAtoms)
		}
		k := len(free)
		feat = feat[:0]
		same := true
		for x := 0; x < 1<<k; x++ {
			for o, j := range occFree {
				if j >= 0 {
					ev.Set(o, x>>(k-1-j)&1 == 1)
				}
			}
			v := uint8(0)
			if t, _ := ev.Value(); t {
				v = 1
			}
			feat = append(feat, v)
			if v != feat[0] {
				same = false
			}
		}
		if same {
			if cf.hard && feat[0] == 0 {
				return fmt.Errorf("%w: hard %s is false for %s", fg.ErrContradiction, md.describe(fi), md.bindingText(fi, bind))
			}
			md.ConstTrue[fi] += float64(feat[0])
			return nil
		}
		c := int32(len(md.clForm))
		md.clForm = append(md.clForm, int32(fi))
		md.clAtoms = append(md.clAtoms, free...)
		md.clAtomAt = append(md.clAtomAt, int32(len(md.clAtoms)))
		md.clFeat = append(md.clFeat, feat...)
		md.clFeatAt = append(md.clFeatAt, int32(len(md.clFeat)))
		md.clBind = append(md.clBind, bind...)
		md.clBindAt = append(md.clBindAt, int32(len(md.clBind)))
		md.byForm[fi] = append(md.byForm[fi], c)
		return nil
	})
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

// clauseValue returns the value of ground clause c under world x.
func (md *Model) clauseValue(c int, x []uint8) uint8 {
	j := 0
	for _, b := range md.ClauseAtoms(c) {
		j = j<<1 | int(x[b])
	}
	return md.clauseFeat(c)[j]
}
