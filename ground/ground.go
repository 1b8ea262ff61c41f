package ground

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/internal/memlimit"
	"github.com/lifted-dev/lifted/mln"
	"github.com/lifted-dev/lifted/pos"
)

// Options configure a grounding.
type Options struct {
	// Query names the query predicates (written as names or atoms such as
	// "Smokes(x)"; only the name counts). They are open-world.
	Query []string
	// QueryAtoms, if set (see ParseQuery), are query atoms: their
	// predicates are query predicates too (after those of Query), and
	// Grounding.Queries lists the ground atoms that match them.
	QueryAtoms *Query
	// ClosedWorld and OpenWorld override Alchemy's world assumption for the
	// named predicates (see mln.ClosedWorld).
	ClosedWorld, OpenWorld []string
	// DefaultWeight is the weight of formulas written without one when
	// UseDefaultWeight is set; otherwise such formulas are an error.
	DefaultWeight    float64
	UseDefaultWeight bool
	// MaxGround refuses groundings predicted to have more ground formulas
	// (or more ground atoms) than this. 0 means the memory budget
	// (memlimit.Limit) over BytesPerFormula; a negative value means no
	// limit.
	MaxGround int64
	// Memory is the memory model of the caller's whole pipeline
	// (grounding and method), which sizes the default MaxGround:
	// MarginalMemory (the zero value) or MAPMemory.
	Memory Memory
	// MaxArity is the largest number of unknown atoms of a ground formula
	// kept as one table (2^MaxArity entries); larger clauses, conjunctions
	// and mutual-exclusion blocks get an auxiliary variable, and other
	// larger formulas Tseitin auxiliary variables (see the package
	// documentation). 0 means 12; at most 20.
	MaxArity int
	// AlchemyCNF reproduces Alchemy's weighting instead of the MLN
	// semantics: each formula is converted to clauses, a negative-weight
	// formula is negated first, and the weight is divided equally among the
	// clauses.
	AlchemyCNF bool
	// MergeDuplicates combines ground formulas over the same set of
	// unknown atoms into one factor, the product of their tables (aligned
	// to the first one's variable order), as Alchemy combines identical
	// ground clauses. The distribution is the same and BP sees no parallel
	// factors, but product tables and the first formula's variable order
	// can break symmetries that colour passing would otherwise find. By
	// default every ground formula is its own factor.
	MergeDuplicates bool
	// ExactMax represents every formula that gets an auxiliary variable so
	// that the auxiliary variable is a function of the atoms (the index of
	// the first true literal), which makes maximising over it, as MAP
	// does, give the formula's value; sums stay exact too. By default a
	// conjunction of positive weight (a clause of negative weight) gets the
	// smaller binary mixture, which is exact for sums (marginals, log Z)
	// but not for maxima.
	ExactMax bool
	// Progress, if set, is called from time to time while grounding.
	Progress func(Progress)
	// Restrict, if set, grounds over a subset of each type's constants and
	// reports the binding of every factor (see Restriction).
	Restrict *Restriction
	// Lazy, if set, grounds only the ground formulas that are not at
	// their maximum in some world of Lazy.Worlds (see Lazy); the others
	// contribute their maximum to LogZOffset. It serves MAP by cutting
	// planes; it cannot be combined with Restrict.
	Lazy *Lazy

	naive bool // tests: visit every binding, no pruning
}

// Lazy is lazy grounding for MAP (the cutting-plane inference of Riedel,
// and the lazy closure of Alchemy's and Tuffy's MaxWalkSAT): a ground
// formula is at its maximum in a world when it is true there (positive
// weight or hard) or false (negative weight), and only the ground
// formulas not at their maximum in at least one of Worlds become factors.
// The others, at their maximum in every world of Worlds, add their
// maximum (the weight if positive, else 0) to LogZOffset, which then is
// not log Z's offset but makes the graph's log score plus LogZOffset an
// upper bound on Σ_i w_i n_i(y) for every world y, equal to it for the
// worlds of Worlds. So a world that maximises the lazy grounding and in
// which every ground formula left out is at its maximum (grounding again
// with it added to Worlds adds no ground formula) maximises the full
// grounding, and a bound on the lazy grounding bounds the full one.
//
// Open-world atoms that are not in any factor (all their ground formulas
// left out) are variables all the same; the join reads the atoms true in
// some world of Worlds off an index, as it reads a closed-world
// predicate's true atoms, so a formula that a false atom puts at its
// maximum (such as !advisedBy(a1,a2) v !advisedBy(a1,a3) v
// samePerson(a2,a3)) visits only the bindings over true atoms.
type Lazy struct {
	// Worlds are values of the ground atoms that are variables, indexed
	// by variable as in the grounding of the same MLN, evidence and
	// options (Lazy aside); a nil world, or an index beyond a world's
	// length, is false. No worlds at all is the one world in which every
	// unknown atom is false.
	Worlds [][]bool
}

// Progress reports how far a grounding has come. Groundings counts every
// binding of a formula's variables dealt with so far, whether it became a
// factor or vanished under the evidence; Total is their number over all
// formulas.
type Progress struct {
	Formula, Formulas int // current formula (from 1) and their number
	Groundings, Total float64
	Factors           int64 // ground formulas kept so far
	Atoms             int   // ground atoms that are variables (all known before the formulas are grounded)
}

// FormulaStats are the figures of one formula of the MLN.
type FormulaStats struct {
	Formula int    // index in MLN.Formulas
	Text    string // as written
	// Groundings is the number of bindings of the free variables (summed
	// over the pieces of a hard formula split into conjuncts, and over the
	// sign combinations of starred atoms).
	Groundings float64
	// Kept is the number of ground formulas that became factors; TrueByEv
	// and FalseByEv count those whose value the evidence fixed.
	Kept                int64
	TrueByEv, FalseByEv float64
}

// Grounding is a ground MLN: the factor graph over the ground atoms whose
// values the evidence leaves open, and the map between its variables and
// those atoms.
type Grounding struct {
	MLN *mln.MLN
	DB  *mln.DB
	// Graph has one binary variable per unknown ground atom (ids
	// 0..NumAtoms-1), then the auxiliary variables of large ground
	// formulas, and one factor per ground formula kept (or a few for a
	// formula represented with an auxiliary variable).
	Graph *fg.Graph
	// LogZOffset is what evidence simplification took out of the partition
	// function: log Z of the MLN given the evidence is log Z of Graph plus
	// LogZOffset.
	LogZOffset float64
	// NumAtoms is the number of ground atoms that are variables.
	NumAtoms int
	// NumFormulas is the number of ground formulas kept, counting each
	// mutual-exclusion block that remains as one.
	NumFormulas int64
	// Merged is the number of ground formulas combined into the factor of
	// an earlier one over the same atoms (see Options.MergeDuplicates).
	Merged int64
	// NumConstraints is the part of NumFormulas due to mutual exclusion.
	NumConstraints int64
	// Closed tells which predicates are closed-world.
	Closed map[string]bool
	// WorldRule names the closed-world rule that decided Closed (besides
	// the query and Options.ClosedWorld/OpenWorld): "alchemy", "tuffy" or
	// "open", from the MLN's dialect (mln.Dialect.WorldRule).
	WorldRule string
	// Formulas has the figures of each formula.
	Formulas []FormulaStats
	// Seconds is the time the grounding took.
	Seconds float64
	// Queries are the ground atoms matching Options.QueryAtoms that are
	// variables of Graph: in the order of the query atoms, each in
	// constant order, without repeats (evidence atoms are left out).
	Queries []QueryAtom

	at       *atomTable
	compiled []int // MLN formula of each compiled formula
}

// CompiledFormula returns the index in MLN.Formulas of compiled formula i,
// the formula index that Restriction.OnFactor and OnOffset report (a hard
// formula split into conjuncts, or a clause of Options.AlchemyCNF, is
// several compiled formulas), or -1 when i is out of range.
func (g *Grounding) CompiledFormula(i int) int {
	if i < 0 || i >= len(g.compiled) {
		return -1
	}
	return g.compiled[i]
}

// ErrTooLarge reports a grounding refused because of its predicted size.
var ErrTooLarge = errors.New("grounding too large")

// ErrContradiction reports evidence that no world satisfying the hard
// formulas agrees with. It is fg.ErrContradiction, so callers can test for
// either.
var ErrContradiction = fg.ErrContradiction

// Ground builds the factor graph of m given the evidence db (nil for none).
func Ground(ctx context.Context, m *mln.MLN, db *mln.DB, opt Options) (*Grounding, error) {
	start := time.Now()
	if ctx == nil {
		ctx = context.Background()
	}
	p, err := prepare(m, db, opt)
	if err != nil {
		return nil, err
	}
	if err := p.checkSize(); err != nil {
		return nil, err
	}
	gr := newGrounder(ctx, p)
	if err := gr.run(); err != nil {
		return nil, err
	}
	res := gr.res
	if res.Graph, err = gr.b.BuildContext(ctx); err != nil {
		return nil, err
	}
	res.Queries = opt.QueryAtoms.resolve(res)
	res.Seconds = time.Since(start).Seconds()
	return res, nil
}

// prepared is an MLN ready to ground: atoms sized and loaded, formulas
// compiled.
type prepared struct {
	m        *mln.MLN
	db       *mln.DB
	opt      Options
	at       *atomTable
	closed   map[string]bool
	formulas []*formula
	maxArity int
	maxGr    int64
	// bytesPerFormula is the memory model's bytes per ground formula
	// behind the default maxGr
	bytesPerFormula float64
	worlds          [][]bool // Options.Lazy's worlds (at least one), nil when not lazy
}

func prepare(m *mln.MLN, db *mln.DB, opt Options) (*prepared, error) {
	if m == nil {
		return nil, errors.New("ground: no MLN")
	}
	if db != nil && db.MLN() != m {
		return nil, errors.New("ground: the evidence database belongs to another MLN")
	}
	if q := opt.QueryAtoms; q.Len() > 0 && q.m != m {
		return nil, errors.New("ground: the query belongs to another MLN")
	}
	if err := mln.CheckStatic(m); err != nil {
		return nil, err
	}
	if err := mln.CheckNoOrder(m); err != nil {
		return nil, err
	}
	if err := mln.CheckNoCardinality(m); err != nil {
		return nil, err
	}
	names := opt.Query
	if opt.QueryAtoms.Len() > 0 {
		names = append(slices.Clip(names), opt.QueryAtoms.Preds()...)
	}
	closed, err := mln.ClosedWorld(m, db, names, opt.ClosedWorld, opt.OpenWorld)
	if err != nil {
		return nil, err
	}
	query := map[int]bool{}
	for _, q := range names {
		if d := m.Pred(predName(q)); d != nil {
			query[d.Index] = true
		}
	}
	at, err := newAtomTable(m, db, closed, query, opt.Restrict)
	if err != nil {
		return nil, err
	}
	if opt.Restrict != nil && opt.Restrict.OnOffset != nil {
		opt.naive = true
	}
	if opt.Lazy != nil && opt.Restrict != nil {
		return nil, errors.New("ground: a lazy grounding cannot be restricted")
	}
	p := &prepared{m: m, db: db, opt: opt, at: at, closed: closed, maxArity: opt.MaxArity, maxGr: opt.MaxGround}
	if p.maxArity <= 0 {
		p.maxArity = 12
	}
	if p.maxArity > 20 {
		p.maxArity = 20
	}
	if p.maxGr == 0 {
		// the atoms' limit, at DefaultBytesPerFormula per ground atom
		// under every memory model (the atom tables are allocated before
		// the size is predicted: UW-CSE x100's 4.6e7 advisedBy atoms
		// took 2.8 GB and 98 s to refuse at MAPBytes(1) per atom);
		// checkSize sets the ground formulas' limit at the predicted bytes
		// per ground formula
		p.bytesPerFormula = DefaultBytesPerFormula
		p.maxGr = int64(float64(memlimit.Limit()) / p.bytesPerFormula)
	}
	if err := p.compile(); err != nil {
		return nil, err
	}
	p.markUsed(query)
	if err := p.checkAtoms(); err != nil {
		return nil, err
	}
	at.load(db)
	if opt.Lazy != nil {
		p.worlds = opt.Lazy.Worlds
		if len(p.worlds) == 0 {
			p.worlds = [][]bool{nil}
		}
		at.lazyIndex(p.worlds)
	}
	return p, nil
}

// predName strips arguments and signs from a predicate written as an atom.
func predName(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '('); i >= 0 {
		s = strings.TrimSpace(s[:i])
	}
	return strings.TrimLeft(s, "!?*")
}

// Weight returns the weight with which a grounding made with opt weighs
// formula i of m (opt.DefaultWeight for one written without a weight; any
// value for a hard formula), or the error Ground reports for it: no weight
// and no default, or a weight that is not finite.
func Weight(m *mln.MLN, i int, opt Options) (float64, error) {
	f := m.Formulas[i]
	w, hard := f.Weight, f.Hard
	if !f.HasWeight && !hard {
		if !opt.UseDefaultWeight {
			return 0, pos.Errorf(f.Pos, "formula %d %q has no weight; give it one, or use --default-weight to give all unweighted formulas one", i+1, f.Text)
		}
		w = opt.DefaultWeight
	}
	if !hard && (math.IsNaN(w) || math.IsInf(w, 0)) {
		return 0, pos.Errorf(f.Pos, "formula %d has weight %v; weights must be finite", i+1, w)
	}
	return w, nil
}

// compile compiles every formula with a non-zero weight.
func (p *prepared) compile() error {
	c := newCompiler(p.m, p.at.domains)
	for i, f := range p.m.Formulas {
		w, err := Weight(p.m, i, p.opt)
		if err != nil {
			return err
		}
		hard := f.Hard
		if !hard && w == 0 {
			continue // a constant factor 1
		}
		var cfs []*formula
		if p.opt.AlchemyCNF {
			cfs, err = c.compileCNF(i, w, hard)
		} else {
			cfs, err = c.compileFormula(i, w, hard)
		}
		if err != nil {
			return err
		}
		p.formulas = append(p.formulas, cfs...)
	}
	return nil
}

// markUsed flags the predicates that some formula, constraint or query
// refers to.
func (p *prepared) markUsed(query map[int]bool) {
	for i := range p.at.preds {
		s := &p.at.preds[i]
		s.used = query[i] || len(s.decl.MutexArgs) > 0
	}
	for _, f := range p.formulas {
		for _, o := range f.prog.occs {
			p.at.preds[o.pred].used = true
		}
	}
}

// NumAtomsOf returns the number of ground atoms of predicate pred.
func (g *Grounding) NumAtomsOf(pred int) int64 { return g.at.preds[pred].n }

// Var returns the variable of the ground atom pred(args...), args being
// constant indices into the domains of the argument types, or -1 if the
// evidence (or the closed world) fixes the atom; truth then gives its value.
// An atom of an open-world predicate that no formula mentions and that is
// not queried has no variable either; its truth is its evidence value, or
// mln.Unknown (its probability is then 1/2).
func (g *Grounding) Var(pred int, args []int) (v int32, truth mln.Truth) {
	if pred < 0 || pred >= len(g.MLN.Preds) {
		return -1, mln.Unknown
	}
	s := &g.at.preds[pred]
	if len(args) != len(s.dims) {
		return -1, mln.Unknown
	}
	var l int64
	for p, a := range args {
		if a < 0 || int64(a) >= s.dims[p] {
			return -1, mln.Unknown
		}
		l += int64(a) * s.strides[p]
	}
	if !s.closed && !s.used {
		if g.DB != nil {
			if tr, ok := g.DB.Lookup(pred, args); ok {
				return -1, tr
			}
		}
		return -1, mln.Unknown
	}
	switch st := s.state(l); st {
	case stTrue:
		return -1, mln.True
	case stFalse:
		return -1, mln.False
	default:
		return st, mln.Unknown
	}
}

// Atom returns the predicate and argument constants of variable v, and
// false for an auxiliary variable.
func (g *Grounding) Atom(v int32) (pred int, args []int, ok bool) {
	if v < 0 || int(v) >= g.NumAtoms {
		return -1, nil, false
	}
	s := &g.at.preds[g.at.varPred[v]]
	a := make([]int32, len(s.dims))
	s.decode(g.at.varLocal[v], a)
	args = make([]int, len(a))
	for i, x := range a {
		args[i] = int(x)
	}
	return int(g.at.varPred[v]), args, true
}

// AtomName returns variable v's atom as "Cancer(Anna)", or "aux#N" for an
// auxiliary variable.
func (g *Grounding) AtomName(v int32) string {
	if v < 0 || int(v) >= g.NumAtoms {
		return fmt.Sprintf("aux#%d", v)
	}
	return g.at.name(g.at.varPred[v], g.at.varLocal[v])
}

// Name prints the ground atom pred(args...) as "Friends(Anna,Bob)"; args
// must be valid constant indices.
func (g *Grounding) Name(pred int, args []int) string {
	s := &g.at.preds[pred]
	var l int64
	for p, a := range args {
		l += int64(a) * s.strides[p]
	}
	return g.at.name(int32(pred), l)
}

// Domain returns the constants of the type with index ti.
func (g *Grounding) Domain(ti int) []string { return g.at.domains[ti] }

// Each calls fn for every ground atom of pred in constant order (the last
// argument fastest) until fn returns false.
func (g *Grounding) Each(pred int, fn func(args []int) bool) {
	s := &g.at.preds[pred]
	args := make([]int, len(s.dims))
	for l := int64(0); l < s.n; l++ {
		if !fn(args) {
			return
		}
		for p := len(args) - 1; p >= 0; p-- {
			args[p]++
			if int64(args[p]) < s.dims[p] {
				break
			}
			args[p] = 0
		}
	}
}
