// Package exact puts exact lifted inference behind the infer seam and
// chooses between it, exact enumeration and lifted BP. It registers three
// methods:
//
//   - "wfomc": exact marginals of the query atoms and exact log Z of a
//     Markov logic network by weighted first-order model counting (package
//     wfomc), on the first-order model itself (infer.FirstOrder): no
//     grounding is needed for the answer.
//   - "enumerate": exact marginals and log Z of a small ground graph by
//     visiting every joint state (Enumerate).
//   - "auto": wfomc when the MLN is one that wfomc lifts and its cost is
//     small; else, on the grounding (or a factor graph, with its
//     evidence): enumerate when it has at most TinyStates joint states,
//     jtree (infer/jtree) when its min-fill plan fits jtree's default
//     limits (MAP queries too, by max-product), else lifted BP whose
//     failures and non-convergence fall through to BP's fallbacks (damping,
//     the sequential schedule) and then to MC-SAT within the property
//     sampler-time (infer.Chooser, chain.go). Stats.Method and
//     Stats.MethodReason say which method answered and why.
//     Marginal and log Z queries on a grounding larger than TinyStates
//     states whose unobserved variables fall into two or more connected
//     components (fg.Components) are answered per component
//     (components.go): each by the first of enumerate, jtree, lifted BP
//     (→ fallbacks → MC-SAT) that fits it, on Query.Workers cores,
//     deterministic whatever their number; log Z is the sum of the parts'
//     plus the constant factors', of the weakest kind among the parts;
//     Converged only when every part converged or mixed; Stats has the
//     component count, the exact ones and the size histogram, and the
//     reason counts the components per method ("546 components: 431 exact
//     by enumeration, 106 exact by jtree, 9 by lifted BP (9 converged)").
//
// How auto predicts the cost. wfomc.Compile either lifts the MLN (every
// component by a lifting rule: decomposition, the power rule, the cell
// algorithm of FO2, atom counting) or fails, naming the formula it cannot
// lift; a lifted plan is polynomial in the domain sizes. What the public
// API of package wfomc does not give is the plan's size, so auto measures
// instead of predicting: it compiles and evaluates the model at the actual
// domain sizes within a budget of work units (wfomc.WithWorkLimit; the
// properties "wfomc-work" and "wfomc-work-per-atom": the same decision on
// every run, whatever the load), and takes the exact answer when it comes
// within it; otherwise (a refusal, an error, the budget exceeded) it runs
// lifted BP and says why. Two cheap
// checks come first: MAP queries and Alchemy's clause weighting are BP's
// (wfomc answers neither), and closed-world evidence that would have to be
// spelled out as more than 10^5 false atoms goes to BP. A run that
// overruns the budget is cancelled: wfomc compiles and evaluates under a
// context that ends with the budget (wfomc.CompileContext,
// Model.EvaluateContext), polls it in its long loops and stops within
// milliseconds; auto waits for it to stop (at most stopGrace) before the
// fallback runs, so the two do not compete for the processors.
//
// Without a grounding: WFOMC.RunAtoms answers a model that has none (the
// query atoms given by predicate and constants, one wfomc query per class
// of interchangeable atoms), and Auto.TryUngrounded runs it within auto's
// budget; a caller that then grounds sets Auto.Tried so that Choose does
// not run wfomc a second time (lifted infer's default path).
//
// Build the infer.Model of a grounding with NewModel.
package exact

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"iter"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/lifted-dev/lifted/ground"
	"github.com/lifted-dev/lifted/infer"
	"github.com/lifted-dev/lifted/lift"
	"github.com/lifted-dev/lifted/lift/firstorder"
	"github.com/lifted-dev/lifted/mln"
	"github.com/lifted-dev/lifted/wfomc"

	_ "github.com/lifted-dev/lifted/infer/bp" // registers "lbp", auto's fallback
)

// NewModel returns the first-order model of a grounding made with opt: the
// MLN, its evidence, the world assumption, the formula weights (nil under
// opt.AlchemyCNF) and the query atoms.
func NewModel(gr *ground.Grounding, opt ground.Options) *infer.Model {
	m := &infer.Model{
		MLN: gr.MLN, DB: gr.DB, Closed: gr.Closed, Graph: gr.Graph, LogZOffset: gr.LogZOffset, Grounding: gr,
	}
	if m.DB == nil {
		m.DB = mln.NewDB(gr.MLN)
	}
	for _, q := range gr.Queries {
		m.Queries = append(m.Queries, infer.QueryAtom{Name: q.Name, Var: q.Var})
	}
	m.Weights = Weights(gr.MLN, opt)
	return m
}

// Weights returns the weight of every formula of m as a grounding with
// opt weighs it (a formula without a weight gets opt.DefaultWeight), or
// nil under opt.AlchemyCNF (Alchemy's clause weighting, not the MLN
// semantics).
func Weights(m *mln.MLN, opt ground.Options) []float64 {
	if opt.AlchemyCNF {
		return nil
	}
	w := make([]float64, len(m.Formulas))
	for j, f := range m.Formulas {
		switch {
		case f.Hard || f.HasWeight:
			w[j] = f.Weight
		default:
			w[j] = opt.DefaultWeight
		}
	}
	return w
}

// WFOMC is exact lifted inference on the MLN (the method "wfomc").
type WFOMC struct{}

// Run refuses: wfomc needs the first-order model.
func (WFOMC) Run(ctx context.Context, c *lift.Compressed, q infer.Query) (*infer.Answer, error) {
	return nil, infer.ErrNeedsModel
}

// maxClosedLiterals bounds the false atoms of closed-world predicates that
// are spelled out as evidence for wfomc.
const maxClosedLiterals = 100000

// solve compiles and evaluates m with wfomc: log Z of the MLN given the
// evidence and the marginal of every query atom of m.Queries (by name).
func (WFOMC) solve(ctx context.Context, m *infer.Model, q infer.Query) (*wfomc.Result, error) {
	if m.MLN == nil {
		return nil, infer.ErrNeedsModel
	}
	if q.Task == infer.MAP {
		return nil, errors.New("wfomc does not answer MAP queries")
	}
	if m.Weights == nil {
		return nil, errors.New("wfomc follows the MLN semantics; Alchemy's clause weighting (--alchemy-cnf) is for BP")
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	opt := &wfomc.Options{}
	var err error
	if opt.Evidence, err = evidence(m); err != nil {
		return nil, err
	}
	texts := make([]string, len(m.Queries))
	for i, qa := range m.Queries {
		texts[i] = qa.Name
	}
	if opt.Queries, err = wfomc.ParseQueries(m.MLN, texts); err != nil {
		return nil, err
	}
	mod, err := wfomc.CompileContext(ctx, m.MLN, opt)
	if err != nil {
		return nil, err
	}
	res, err := mod.EvaluateContext(ctx, m.Weights, Sizes(m))
	if err == nil && !res.Exact() {
		return nil, &wfomc.PrecisionError{RelError: res.RelError, Reason: fmt.Sprintf("%.0f digits lost to cancellation", res.DigitsLost)}
	}
	return res, err
}

// RunAtoms is RunModel without the grounding: m has no Graph (m.Queries
// is not used), and atoms lists the query atoms (pred an index into
// m.MLN.Preds, args indices into m.DB's domains). wfomc is asked one
// atom of each class of interchangeable ones (firstorder.ClassKeys: the
// same predicate, constants of the same classes with the same equalities
// among them), since a permutation of interchangeable constants maps the
// model to itself: friends-and-smokers over n people with evidence on a
// few asks a few queries, not 2n. The answer's Marginal gives every atom
// that the evidence and the closed world fix its value (unknown false), and
// every other atom of a class that atoms reach its marginal; its LogZ is
// log Z of the MLN given the evidence.
func (w WFOMC) RunAtoms(ctx context.Context, m *infer.Model, q infer.Query, atoms iter.Seq2[int, []int]) (*infer.AtomAnswer, error) {
	start := time.Now()
	cls := newAtomClasses(m)
	index := map[string]int{}
	rep := *m
	rep.Queries = nil
	var name []byte
	var pending int64
	for pred, args := range atoms {
		// The scan is wfomc's work too, counted in its units (a query
		// class far more: each is a query of its own), so that millions
		// of query atoms in as many classes stop at wfomc's share, before
		// their index outgrows the memory (UW-CSE ×100: 4.6e7 atoms).
		// It is charged in batches, so a small query's scan costs
		// nothing and a model wfomc cannot lift is told so by the
		// compiler, not by a spent share.
		if pending += scanWork; pending >= scanCharge {
			wfomc.Spend(ctx, pending)
			pending = 0
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		if _, known := cls.known(pred, args); known {
			continue
		}
		k := string(cls.key(pred, args))
		if _, ok := index[k]; ok {
			continue
		}
		pending += classWork
		index[k] = len(rep.Queries)
		name = ground.AppendAtomName(name[:0], m.MLN, m.DB, pred, args)
		rep.Queries = append(rep.Queries, infer.QueryAtom{Name: string(name), Var: int32(len(rep.Queries))})
	}
	res, err := w.solve(ctx, &rep, q)
	if err != nil {
		return nil, err
	}
	lz := res.LogZ
	ans := &infer.AtomAnswer{Converged: true, LogZ: &lz}
	ans.Marginal = func(pred int, args []int) (float64, bool) {
		if v, known := cls.known(pred, args); known {
			return v, false
		}
		i, ok := index[string(cls.key(pred, args))]
		if !ok {
			return math.NaN(), false
		}
		return res.Marginals[i], true
	}
	ans.Stats = infer.Stats{
		Variables: len(rep.Queries), Converged: true, Seconds: time.Since(start).Seconds(),
		Method: "wfomc", MethodReason: "exact lifted inference (weighted first-order model counting) on the MLN, not grounded; " + DomainText(m),
	}
	return ans, nil
}

// The work units (wfomc.Spend, about 0.1 µs of one core each) that
// RunAtoms counts per query atom scanned and per query class asked, and
// the units gathered before they are charged (about 4 ms).
const (
	scanWork   = 10
	classWork  = 1000
	scanCharge = 4096 * scanWork
)

// atomClasses tells ground atoms of a model apart up to permutations of
// interchangeable constants.
type atomClasses struct {
	m    *infer.Model
	keys [][]string         // per type and constant: firstorder.ClassKeys; nil: every constant alone
	ids  []map[string]int32 // per type: class key → id
	buf  []byte
}

func newAtomClasses(m *infer.Model) *atomClasses {
	c := &atomClasses{m: m, ids: make([]map[string]int32, len(m.MLN.Types))}
	if len(m.MLN.Funcs) == 0 && len(m.DB.Funcs) == 0 { // ClassKeys does not look at functions
		c.keys = firstorder.ClassKeys(m.MLN, m.DB)
	}
	return c
}

// known returns the value of an atom that the evidence or the closed
// world fixes.
func (c *atomClasses) known(pred int, args []int) (float64, bool) {
	t, listed := c.m.DB.Lookup(pred, args)
	switch {
	case listed && t == mln.True:
		return 1, true
	case listed && t == mln.False:
		return 0, true
	case !listed && c.m.Closed[c.m.MLN.Preds[pred].Name]:
		return 0, true
	}
	return 0, false
}

// key is the class of pred(args): the predicate, and per argument the
// class of its constant (the constant itself where it is alone) and the
// first argument with the same constant.
func (c *atomClasses) key(pred int, args []int) []byte {
	b := binary.AppendUvarint(c.buf[:0], uint64(pred))
	d := c.m.MLN.Preds[pred]
	for p, a := range args {
		ti := d.TypeIdx[p]
		id := int64(-1 - a) // alone
		if c.keys != nil {
			if k := c.keys[ti][a]; k == "" || k[0] != '=' {
				ids := c.ids[ti]
				if ids == nil {
					ids = map[string]int32{}
					c.ids[ti] = ids
				}
				v, ok := ids[k]
				if !ok {
					v = int32(len(ids))
					ids[k] = v
				}
				id = int64(v)
			}
		}
		same := p
		for q := range p {
			if args[q] == a && d.TypeIdx[q] == ti {
				same = q
				break
			}
		}
		b = binary.AppendVarint(b, id)
		b = binary.AppendUvarint(b, uint64(same))
	}
	c.buf = b
	return b
}

// RunModel compiles and evaluates m with wfomc and returns the exact
// marginals of the query atoms and the exact log Z.
func (w WFOMC) RunModel(ctx context.Context, m *infer.Model, q infer.Query) (*infer.Answer, error) {
	start := time.Now()
	res, err := w.solve(ctx, m, q)
	if err != nil {
		return nil, err
	}
	c, err := lift.Ground(m.Graph, nil)
	if err != nil {
		return nil, err
	}
	ans := &infer.Answer{
		Graph: c, Task: q.Task, Converged: true,
		LogZ: res.LogZ - m.LogZOffset, LogZKind: infer.Exact,
	}
	ans.NodeOff = make([]int, c.NumNodes()+1)
	ans.Belief = make([]float64, 0, 2*c.NumNodes())
	for X := 0; X < c.NumNodes(); X++ {
		ans.NodeOff[X+1] = ans.NodeOff[X] + int(c.NodeCard[X])
		for k := int32(0); k < c.NodeCard[X]; k++ {
			ans.Belief = append(ans.Belief, math.NaN())
		}
	}
	for i, qa := range m.Queries {
		b := ans.NodeBelief(int(c.NodeOf[qa.Var]))
		b[0], b[1] = 1-res.Marginals[i], res.Marginals[i]
	}
	g := m.Graph
	ans.Stats = infer.Stats{
		Variables: g.NumVars(), Factors: g.NumFactors(), Edges: g.NumEdges(),
		Clusternodes: c.NumNodes(), Clusterfactors: c.NumFactors(), LiftedEdges: c.NumEdges(),
		Converged: true, Seconds: time.Since(start).Seconds(),
		Method: "wfomc", MethodReason: "exact lifted inference (weighted first-order model counting) on the MLN; " + DomainText(m),
	}
	return ans, nil
}

// Sizes returns the domain size of every type: the constants the model and
// the evidence name, as the grounding has them.
func Sizes(m *infer.Model) map[string]int64 {
	out := map[string]int64{}
	for _, t := range m.MLN.Types {
		out[t.Name] = int64(len(m.DB.Domain(t.Name)))
	}
	return out
}

// DomainText lists the domain sizes as "domains face=6, throw=20".
func DomainText(m *infer.Model) string {
	var parts []string
	for name, n := range Sizes(m) {
		parts = append(parts, fmt.Sprintf("%s=%d", name, n))
	}
	sort.Strings(parts)
	if len(parts) == 0 {
		return "no domains"
	}
	return "domains " + strings.Join(parts, ", ")
}

// evidence returns the evidence of m as wfomc literals: the known atoms of
// the DB, and the unlisted atoms of closed-world predicates as false.
func evidence(m *infer.Model) ([]wfomc.Literal, error) {
	var out []wfomc.Literal
	listed := map[string]bool{}
	for _, a := range m.DB.Atoms {
		p := m.MLN.Preds[a.Pred]
		args := make([]string, len(a.Args))
		for i, x := range a.Args {
			args[i] = m.DB.Domain(p.ArgTypes[i])[x]
		}
		if m.Closed[p.Name] {
			listed[key(p.Name, args)] = true
		}
		if a.Truth == mln.Unknown {
			continue
		}
		out = append(out, wfomc.Literal{Pred: p.Name, Args: args, Value: a.Truth == mln.True})
	}
	for _, p := range m.MLN.Preds {
		if !m.Closed[p.Name] {
			continue
		}
		n := 1.0
		for _, t := range p.ArgTypes {
			n *= float64(len(m.DB.Domain(t)))
		}
		if n > maxClosedLiterals {
			return nil, fmt.Errorf("closed-world predicate %s has %.3g ground atoms, too many to give wfomc as false evidence (at most %d)", p.Name, n, maxClosedLiterals)
		}
		args := make([]string, len(p.ArgTypes))
		var rec func(i int)
		rec = func(i int) {
			if i == len(args) {
				if !listed[key(p.Name, args)] {
					out = append(out, wfomc.Literal{Pred: p.Name, Args: append([]string(nil), args...), Value: false})
				}
				return
			}
			for _, c := range m.DB.Domain(p.ArgTypes[i]) {
				args[i] = c
				rec(i + 1)
			}
		}
		rec(0)
	}
	return out, nil
}

func key(pred string, args []string) string { return pred + "(" + strings.Join(args, ",") + ")" }
