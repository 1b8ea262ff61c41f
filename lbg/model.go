package lbg

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/ground"
	"github.com/lifted-dev/lifted/mln"
)

// maxOccs bounds the atom occurrences of a formula that a lifted cluster
// reads (its truth table has 2^occurrences rows).
const maxOccs = 12

// predicate is one first-order atom's ground atoms in the state: atom
// (c₁,…,c_k) is at Off + Σ cᵢ·Stride[i] (last argument fastest).
type predicate struct {
	name   string
	decl   *mln.PredDecl
	dims   []int
	stride []int
	off    int
	size   int
	forms  []int // formulas that mention it
}

// occurrence is one atom of a formula: its predicate and, per argument, a
// variable index (≥ 0) or a constant c written −1−c.
type occurrence struct {
	pred int
	args []int
}

// formula is one MLN formula as the lifted clusters read it.
type formula struct {
	w    float64
	hard bool
	dom  []int // domain size of each free variable
	occs []occurrence
	// truth[mask] is the formula's value when occurrence i is true iff bit
	// i of mask is set.
	truth []bool
	// why is non-empty when the formula is outside the lifted fragment
	// (quantifiers, equality, functions, starred or per-constant terms,
	// more than maxOccs atoms): its predicates are sampled by ground
	// blocking.
	why string
}

// Model is an MLN with its evidence prepared for lifted blocked Gibbs
// sampling: the state layout, the formulas, the Gibbs cluster graph, and
// (when some cluster is ground or a hard formula needs a consistent start)
// the grounding.
type Model struct {
	mln   *mln.MLN
	db    *mln.DB
	preds []predicate
	forms []formula
	// ev[i] is the evidence value of state atom i: −1 unknown, 0 or 1.
	ev     []int8
	nstate int
	// Clusters is the Gibbs cluster graph's vertices, in sampling order.
	Clusters []*Cluster
	opt      Options

	gr     *ground.Grounding // nil when no cluster is ground and no formula hard
	varOf  []int32           // state atom → variable of gr.Graph, −1 if none
	hasAux bool
}

// Options sets the cluster graph's bounds and the ground blocks.
type Options struct {
	// Alpha and Beta bound the time and space of the cluster graph
	// (Algorithm 2): a merge that raises the cost is accepted only within
	// them. 0 means the cost of the graph with one atom per cluster.
	Alpha, Beta float64
	// BlockSize and BlockStates bound the blocks of ground clusters
	// (gibbs.NewBlocking); 0 means 8 and 4096.
	BlockSize, BlockStates int
	// NoMerge keeps one first-order atom per cluster (skips Algorithm 2).
	NoMerge bool
	// Clusters, when set, is the cluster graph instead of Algorithm 2's:
	// lists of predicate names; predicates it leaves out are a cluster
	// each.
	Clusters [][]string
	// NoGround makes Compile fail with ErrNeedsGrounding, instead of
	// grounding the MLN, when a cluster is ground or a formula is hard;
	// the caller that has no grounding yet learns so before paying for one.
	NoGround bool
	// Grounding, when set, is the MLN's grounding given the same evidence
	// and world assumption, made by the caller (ground.Ground of the same
	// MLN and DB, any query): Compile takes it instead of grounding the
	// MLN again when it needs a grounding. One of another MLN, evidence or
	// world assumption is not used.
	Grounding *ground.Grounding
}

// ErrNeedsGrounding is returned by Compile with Options.NoGround when the
// model needs its grounding (a ground cluster, or a hard formula and its
// consistent start).
var ErrNeedsGrounding = errors.New("lbg: the model needs its grounding")

// Compile prepares m given the evidence db (nil: none), the closed-world
// predicates and the formula weights (weights[j] of formula j; hard
// formulas' weights are ignored).
func Compile(ctx context.Context, m *mln.MLN, db *mln.DB, closed map[string]bool, weights []float64, opt Options) (*Model, error) {
	if db == nil {
		db = mln.NewDB(m)
	}
	if len(weights) != len(m.Formulas) {
		return nil, fmt.Errorf("lbg: %d weights for %d formulas", len(weights), len(m.Formulas))
	}
	if opt.BlockSize <= 0 {
		opt.BlockSize = 8
	}
	if opt.BlockStates <= 0 {
		opt.BlockStates = 1 << 12
	}
	md := &Model{mln: m, db: db, opt: opt}
	for _, p := range m.Preds {
		q := predicate{name: p.Name, decl: p, off: md.nstate, size: 1}
		q.dims = make([]int, len(p.ArgTypes))
		q.stride = make([]int, len(p.ArgTypes))
		for a, t := range p.ArgTypes {
			q.dims[a] = len(db.Domain(t))
		}
		for a := len(q.dims) - 1; a >= 0; a-- {
			q.stride[a] = q.size
			q.size *= q.dims[a]
		}
		if float64(md.nstate)+float64(q.size) > 1<<31 {
			return nil, fmt.Errorf("lbg: more than 2^31 ground atoms")
		}
		md.nstate += q.size
		md.preds = append(md.preds, q)
	}
	md.ev = make([]int8, md.nstate)
	for _, p := range md.preds {
		v := int8(-1)
		if closed[p.name] {
			v = 0
		}
		for j := range p.size {
			md.ev[p.off+j] = v
		}
	}
	for _, a := range db.Atoms {
		j := md.Offset(a.Pred, a.Args)
		switch a.Truth {
		case mln.True:
			md.ev[j] = 1
		case mln.False:
			md.ev[j] = 0
		default:
			md.ev[j] = -1
		}
	}
	for j, f := range m.Formulas {
		fo := md.analyse(f)
		fo.w, fo.hard = weights[j], f.Hard
		if !fo.hard && (math.IsNaN(fo.w) || math.IsInf(fo.w, 0)) {
			return nil, fmt.Errorf("lbg: formula %d (%s) has weight %v", j, f.Text, fo.w)
		}
		md.forms = append(md.forms, fo)
		// Every predicate the formula mentions, inside quantifiers and
		// after any construct that took the formula out of the lifted
		// fragment too (fo.occs stops there): a predicate that missed a
		// formula would be drawn as if the formula were not in the MLN.
		seen := map[int]bool{}
		mln.Inspect(f.Expr, func(e mln.Expr) bool {
			if a, ok := e.(*mln.Atom); ok {
				if pi := m.PredIndex(a.Pred); pi >= 0 && !seen[pi] {
					seen[pi] = true
					md.preds[pi].forms = append(md.preds[pi].forms, j)
				}
			}
			return true
		})
	}
	if len(opt.Clusters) > 0 {
		if err := md.fixedClusters(); err != nil {
			return nil, err
		}
	} else {
		md.buildClusters()
	}
	needGround := false
	for _, c := range md.Clusters {
		if !c.Lifted {
			needGround = true
		}
	}
	for _, f := range md.forms {
		if f.hard {
			needGround = true
		}
	}
	if needGround && opt.NoGround {
		why := "a hard formula needs a start state from the grounding"
		for _, c := range md.Clusters {
			if !c.Lifted {
				why = "cluster " + c.String()
				break
			}
		}
		return nil, fmt.Errorf("%w: %s", ErrNeedsGrounding, why)
	}
	if needGround {
		if err := md.groundIt(ctx, closed, weights); err != nil {
			return nil, err
		}
		md.mergeTied()
		if err := md.prepareGround(); err != nil {
			return nil, err
		}
	}
	return md, nil
}

// analyse reads formula f into the lifted fragment's form, or says why not.
func (md *Model) analyse(f *mln.Formula) formula {
	fo := formula{}
	varIdx := map[string]int{}
	for i, v := range f.Vars {
		varIdx[v.Name] = i
		fo.dom = append(fo.dom, len(md.db.Domain(v.Type)))
		if v.PerConstant {
			fo.why = "per-constant weights (+x)"
		}
	}
	occOf := map[*mln.Atom]int{}
	var walk func(e mln.Expr)
	walk = func(e mln.Expr) {
		switch e := e.(type) {
		case *mln.Atom:
			if e.Star {
				fo.why = "a starred atom"
				return
			}
			pi := md.mln.PredIndex(e.Pred)
			o := occurrence{pred: pi}
			for a, t := range e.Args {
				switch {
				case t.Func:
					fo.why = "a function term"
					return
				case t.IsVar:
					vi, ok := varIdx[t.Name]
					if !ok {
						fo.why = "a quantified variable"
						return
					}
					o.args = append(o.args, vi)
				default:
					c := md.db.ConstIndex(md.mln.Preds[pi].ArgTypes[a], t.Name)
					if c < 0 {
						fo.why = "an unknown constant " + t.Name
						return
					}
					o.args = append(o.args, -1-c)
				}
			}
			if md.mln.Preds[pi].MutexArg >= 0 {
				fo.why = "a mutually exclusive predicate (" + e.Pred + ")"
			}
			occOf[e] = len(fo.occs)
			fo.occs = append(fo.occs, o)
		case *mln.Not:
			walk(e.X)
		case *mln.And:
			walk(e.L)
			walk(e.R)
		case *mln.Or:
			walk(e.L)
			walk(e.R)
		case *mln.Implies:
			walk(e.L)
			walk(e.R)
		case *mln.Iff:
			walk(e.L)
			walk(e.R)
		case *mln.Equal:
			fo.why = "equality"
		case *mln.Exists, *mln.Forall:
			fo.why = "a quantifier"
		default:
			fo.why = fmt.Sprintf("an expression of type %T", e)
		}
	}
	walk(f.Expr)
	if fo.why == "" && len(fo.occs) > maxOccs {
		fo.why = fmt.Sprintf("more than %d atoms", maxOccs)
	}
	if fo.why != "" {
		return fo
	}
	fo.truth = make([]bool, 1<<len(fo.occs))
	for mask := range fo.truth {
		fo.truth[mask] = eval(f.Expr, occOf, mask)
	}
	return fo
}

// eval is a quantifier-free formula's value when atom occurrence i is true
// iff bit i of mask is set.
func eval(e mln.Expr, occ map[*mln.Atom]int, mask int) bool {
	switch e := e.(type) {
	case *mln.Atom:
		return mask>>occ[e]&1 == 1
	case *mln.Not:
		return !eval(e.X, occ, mask)
	case *mln.And:
		return eval(e.L, occ, mask) && eval(e.R, occ, mask)
	case *mln.Or:
		return eval(e.L, occ, mask) || eval(e.R, occ, mask)
	case *mln.Implies:
		return !eval(e.L, occ, mask) || eval(e.R, occ, mask)
	case *mln.Iff:
		return eval(e.L, occ, mask) == eval(e.R, occ, mask)
	}
	panic("lbg: eval outside the fragment")
}

// groundIt grounds the model (every unknown atom a variable) for ground
// clusters and for a start that satisfies the hard formulas, or takes
// Options.Grounding when it is of the same MLN, evidence and world
// assumption.
func (md *Model) groundIt(ctx context.Context, closed map[string]bool, weights []float64) error {
	if gr := md.opt.Grounding; gr != nil && gr.MLN == md.mln && gr.DB == md.db && sameClosed(md, gr.Closed, closed) {
		return md.attach(gr)
	}
	opt := ground.Options{}
	for _, p := range md.preds {
		if closed[p.name] {
			opt.ClosedWorld = append(opt.ClosedWorld, p.name)
		} else {
			opt.OpenWorld = append(opt.OpenWorld, p.name)
		}
	}
	for j, f := range md.mln.Formulas {
		if !f.Hard && !f.HasWeight {
			opt.UseDefaultWeight, opt.DefaultWeight = true, weights[j]
		}
	}
	gr, err := ground.Ground(ctx, md.mln, md.db, opt)
	if err != nil {
		return fmt.Errorf("lbg: grounding for the ground clusters: %w", err)
	}
	return md.attach(gr)
}

// sameClosed reports whether the closed-world predicates of two maps are
// the same.
func sameClosed(md *Model, a, b map[string]bool) bool {
	for _, p := range md.preds {
		if a[p.name] != b[p.name] {
			return false
		}
	}
	return true
}

// attach takes gr as the model's grounding: each unknown atom's variable,
// and one ground cluster of every atom when gr has auxiliary variables.
func (md *Model) attach(gr *ground.Grounding) error {
	md.gr = gr
	md.varOf = make([]int32, md.nstate)
	for i := range md.varOf {
		md.varOf[i] = -1
	}
	for v := range int32(gr.Graph.NumVars()) {
		pi, args, ok := gr.Atom(v)
		if !ok {
			md.hasAux = true
			continue
		}
		md.varOf[md.Offset(pi, args)] = v
	}
	if md.hasAux {
		// Auxiliary variables tie the atoms of a large ground formula
		// together; only a ground cluster holding all of them keeps them
		// consistent, so every atom is sampled by ground blocking.
		all := &Cluster{Why: "the grounding has auxiliary variables (large ground formulas)"}
		for i, p := range md.preds {
			if md.unknown(i) {
				all.Preds = append(all.Preds, i)
				all.Names = append(all.Names, p.name)
			}
		}
		md.Clusters = []*Cluster{all}
	}
	return nil
}

// unknown reports whether predicate p has an atom that the evidence leaves
// open.
func (md *Model) unknown(p int) bool {
	q := &md.preds[p]
	for _, v := range md.ev[q.off : q.off+q.size] {
		if v < 0 {
			return true
		}
	}
	return false
}

// Graph is the grounding the ground clusters sample on (nil when every
// cluster is lifted and no formula is hard).
func (md *Model) Graph() *fg.Graph {
	if md.gr == nil {
		return nil
	}
	return md.gr.Graph
}

// NumAtoms is the number of ground atoms of the state (evidence included).
func (md *Model) NumAtoms() int { return md.nstate }

// Evidence returns the evidence value of state atom i: −1 when unknown.
func (md *Model) Evidence(i int) int8 { return md.ev[i] }

// Atom returns state atom i's predicate (index into MLN.Preds) and
// argument constants.
func (md *Model) Atom(i int) (pred int, args []int) {
	for pi := range md.preds {
		p := &md.preds[pi]
		if i >= p.off && i < p.off+p.size {
			l := i - p.off
			args = make([]int, len(p.dims))
			for k := range p.dims {
				args[k] = l / p.stride[k]
				l %= p.stride[k]
			}
			return pi, args
		}
	}
	return -1, nil
}

// Offset returns the state index of the ground atom pred(args...), args
// being indices into the evidence database's domains (as ground.Query.Each
// gives them).
func (md *Model) Offset(pred int, args []int) int {
	p := &md.preds[pred]
	j := p.off
	for k, c := range args {
		j += c * p.stride[k]
	}
	return j
}

// NumUnknown is the number of ground atoms the evidence leaves unknown
// (the atoms the sampler draws).
func (md *Model) NumUnknown() int {
	n := 0
	for _, v := range md.ev {
		if v < 0 {
			n++
		}
	}
	return n
}

// NumGroundFormulas is the number of ground formulas the MLN stands for
// (the product of its variables' domain sizes, summed over the formulas),
// whether or not the model grounded it.
func (md *Model) NumGroundFormulas() float64 {
	n := 0.0
	for _, f := range md.forms {
		g := 1.0
		for _, d := range f.dom {
			g *= float64(d)
		}
		n += g
	}
	return n
}

// Index returns the state index of an atom named as the grounder names it,
// "Friends(Anna,Bob)" (or "Raining"), and false if there is none.
func (md *Model) Index(name string) (int, bool) {
	pname, rest, _ := strings.Cut(name, "(")
	pi := md.mln.PredIndex(pname)
	if pi < 0 {
		return 0, false
	}
	p := &md.preds[pi]
	var args []string
	if rest != "" {
		args = strings.Split(strings.TrimSuffix(rest, ")"), ",")
	}
	if len(args) != len(p.dims) {
		return 0, false
	}
	j := p.off
	for k, a := range args {
		c := md.db.ConstIndex(p.decl.ArgTypes[k], a)
		if c < 0 {
			return 0, false
		}
		j += c * p.stride[k]
	}
	return j, true
}

// Name returns state atom i's name as the grounder writes it.
func (md *Model) Name(i int) string {
	pi, args := md.Atom(i)
	p := &md.preds[pi]
	if len(args) == 0 {
		return p.name
	}
	s := make([]string, len(args))
	for k, c := range args {
		s[k] = md.db.Domain(p.decl.ArgTypes[k])[c]
	}
	return p.name + "(" + strings.Join(s, ",") + ")"
}
