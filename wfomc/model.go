package wfomc

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	mlnfile "github.com/lifted-dev/lifted/format/mlnfile"
	"github.com/lifted-dev/lifted/mln"
)

// Options configure Compile.
type Options struct {
	// Evidence fixes the truth value of ground atoms: the model is
	// conditioned on it (log Z becomes the log of the weight of the worlds
	// that agree with it). Evidence on unary predicates keeps inference
	// lifted: elements with the same evidence form blocks that are summed
	// over like cells. Evidence on an atom of higher arity names its
	// constants, which are then shattered out like constants in formulas
	// (exponential in their number; a few are fine).
	Evidence []Literal
	// Counts fixes how many anonymous elements satisfy a unary predicate
	// (see CountEvidence).
	Counts []CountEvidence
	// Queries are ground formulas whose marginal probabilities Evaluate
	// returns.
	Queries []Query
	// AllowGround lets components that no lifting rule handles be computed
	// exactly by enumerating their ground worlds (small domains only).
	AllowGround bool
	// MaxGroundAtoms bounds the unknown ground atoms of one component under
	// AllowGround (default 24: 16 million worlds).
	MaxGroundAtoms int
	// MaxCellPairs bounds the pair weights the cell algorithm computes in
	// one compilation (default 2^22, some seconds); a model that needs more
	// is refused, or grounded under AllowGround.
	MaxCellPairs int64
	// MaxTerms bounds the terms of one sum over cell counts that Evaluate
	// computes (default DefaultMaxTerms, tens of minutes); a sum predicted
	// larger is refused at once with its size (a *TermsError).
	MaxTerms float64
}

// DefaultMaxTerms is the default Options.MaxTerms: about a microsecond per
// term per core.
const DefaultMaxTerms = 1e9

// TermsError is an evaluation refused before it starts: its sum over cell
// counts would have Terms terms, more than Limit (Options.MaxTerms).
type TermsError struct {
	Terms, Limit float64
	Classes      int // explicit cell classes after merging: the degree
	// Conditioned: the classes are projection classes (condition.go).
	Conditioned bool
}

func (e *TermsError) Error() string {
	limit := "Options.MaxTerms, --max-terms"
	if e.Limit >= maxTerms {
		limit = "the most supported"
	}
	classes := "cell classes after merging"
	if e.Conditioned {
		classes = "free projection-class counts after conditioning"
	}
	return fmt.Sprintf("the sum over cell counts has about %.3g terms (%d %s: a polynomial of degree %d in the domain size), more than the limit of %.3g (%s)", e.Terms, e.Classes, classes, e.Classes, e.Limit, limit)
}

// Literal is a ground atom with its truth value: Pred(Args...) = Value.
type Literal struct {
	Pred  string
	Args  []string
	Value bool
}

// CountEvidence says that exactly Count of the anonymous elements of the
// argument type of the unary predicate Pred satisfy it. Anonymous elements
// are those no formula, query or evidence atom names. The type must have no
// other evidence.
type CountEvidence struct {
	Pred  string
	Count int64
}

// Query is a ground formula (such as Friends(Guy,Nima) or
// Smokes(Anna) ^ !Cancer(Anna)) whose marginal probability is wanted.
type Query struct {
	Text string // as given, trimmed
	expr mln.Expr
}

// ParseQuery parses a ground formula in the syntax of m's formulas.
func ParseQuery(m *mln.MLN, text string) (Query, error) {
	decls := m.Declarations()
	q, err := mlnfile.Parse("query", []byte(decls+text+".\n"))
	if err != nil {
		msg := err.Error()
		if i := strings.LastIndex(msg, ": "); i >= 0 && strings.HasPrefix(msg, "query:") {
			msg = msg[i+2:]
		}
		return Query{}, fmt.Errorf("query %q: %s", text, msg)
	}
	if len(q.Formulas) != 1 || len(q.Preds) != len(m.Preds) {
		return Query{}, fmt.Errorf("query %q is not a formula over the model's predicates", text)
	}
	f := q.Formulas[0]
	if len(f.Vars) > 0 {
		return Query{}, fmt.Errorf("query %q is not ground: %s is a variable (constants start with an uppercase letter or a digit)", text, f.Vars[0].Name)
	}
	return Query{Text: strings.TrimSpace(text), expr: f.Expr}, nil
}

// ParseQueries parses several ground formulas as ParseQuery does, reading
// m's declarations once instead of once per query (they list every
// constant: at a million constants, half a second a query). An error is
// ParseQuery's for the first text it refuses.
func ParseQueries(m *mln.MLN, texts []string) ([]Query, error) {
	var b strings.Builder
	b.WriteString(m.Declarations())
	for _, t := range texts {
		b.WriteString(t)
		b.WriteString(".\n")
	}
	q, err := mlnfile.Parse("query", []byte(b.String()))
	if err == nil && len(q.Formulas) == len(texts) && len(q.Preds) == len(m.Preds) {
		out := make([]Query, len(texts))
		for i, f := range q.Formulas {
			if len(f.Vars) > 0 {
				break
			}
			out[i] = Query{Text: strings.TrimSpace(texts[i]), expr: f.Expr}
			if i == len(texts)-1 {
				return out, nil
			}
		}
	}
	// Something is wrong with one of them: ParseQuery says what.
	out := make([]Query, len(texts))
	for i, t := range texts {
		if out[i], err = ParseQuery(m, t); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Model is an MLN compiled for weighted first-order model counting. All
// the structure that depends neither on the weights nor on the domain sizes
// (shattering, Skolemization, cells, pair weights as functions of the
// weights, merges, summation plans) is built once by Compile; Evaluate then
// only evaluates it, so a learner calls Evaluate once per iteration and
// database. A Model is safe for concurrent use.
type Model struct {
	m        *mln.MLN
	opt      Options // as compiled (hardenHuge recompiles with them)
	nf       int     // formulas of m
	nParams  int     // formulas + queries
	p0       *problem
	top      *level
	named    []map[string]bool // per MLN type: constants that must be elements
	declared []int64           // per MLN type: default domain size
	queries  []queryInfo
	// countEv: per count-evidence entry, the MLN type and count.
	countEv []countInfo
	// uncovered evidence atoms (fixed, so not free): a constant, plus the
	// rest block of count-evidence types whose predicate no formula uses.
	fixedUncovered      int64
	fixedUncoveredRests []int // types whose anonymous rest has such atoms
	// ordered: the types with a linear order (order.go), whose n! orders
	// the sum runs over.
	ordered []int
}

type queryInfo struct {
	text  string
	param int
	// anonymous constants replaced by variables: their types and block
	// classes (for the number of equiprobable groundings).
	slots []querySlot
}

type querySlot struct {
	typ   int // MLN type
	class int // block class within the type
}

type countInfo struct {
	typ   int
	count int64
}

// Result is the output of Evaluate.
type Result struct {
	// LogZ is the natural log of the partition function (of the evidence's
	// weight, with evidence).
	LogZ float64
	// ExpectedCounts[j] is the expected number of true groundings of formula
	// j (for a hard formula, its number of groundings).
	ExpectedCounts []float64
	// Marginals[q] is the probability of query q.
	Marginals []float64
	// DigitsLost is the number of decimal digits lost to cancellation
	// between positive and negative terms (Skolem weights are −1); double
	// precision has about 15.9.
	DigitsLost float64
	// RelError estimates the relative error of the marginals and expected
	// counts (and the absolute error of log Z): from the cancellation
	// (DigitsLost) and from the magnitude of the logs that double-double
	// arithmetic carries (weights times groundings). An answer above 1e-9
	// is not exact to the digits printed; callers that claim exactness
	// check it (huge weights are first reduced to their hard limit, and
	// Evaluate refuses with a PrecisionError what it cannot so reduce).
	RelError float64
	// Seconds is the evaluation time.
	Seconds float64
}

// Compile prepares m for weighted model counting. opt may be nil.
func Compile(m *mln.MLN, opt *Options) (*Model, error) {
	return CompileContext(context.Background(), m, opt)
}

// CompileContext is Compile under a context: compilation polls ctx in its
// long loops (shattering out named constants, splitting into components,
// building cells) and, once ctx is done, stops promptly and returns ctx's
// error (unwrapped) and no model.
func CompileContext(ctx context.Context, m *mln.MLN, opt *Options) (mod *Model, err error) {
	if opt == nil {
		opt = &Options{}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := mln.CheckStatic(m); err != nil {
		return nil, err
	}
	mt := meterOf(ctx)
	mt.begin("compiling")
	defer mt.end()
	c := &compiler{m: m, opt: opt, mod: &Model{m: m, nf: len(m.Formulas)}, pl: &poller{ctx: ctx, maxPairs: opt.MaxCellPairs, maxTerms: opt.MaxTerms, meter: mt, work: workOf(ctx)}}
	defer func() {
		if r := recover(); r != nil {
			cc, ok := r.(cancelled)
			if !ok {
				panic(r)
			}
			mod, err = nil, cc.err
		}
	}()
	if err := c.compile(); err != nil {
		return nil, err
	}
	c.mod.opt = *opt
	return c.mod, nil
}

// DefaultSizes returns the domain size of every type that the MLN and the
// evidence give: the number of distinct constants of the type.
func (mod *Model) DefaultSizes() map[string]int64 {
	out := map[string]int64{}
	for i, t := range mod.m.Types {
		out[t.Name] = mod.declared[i]
	}
	return out
}

// Evaluate computes log Z, the expected count of every formula and the
// marginal of every query for the given formula weights (one per formula of
// the MLN; those of hard formulas are ignored) and domain sizes (types not
// listed keep their default size; see DefaultSizes). Named constants are
// elements of their domains, so a size must be at least their number.
func (mod *Model) Evaluate(weights []float64, sizes map[string]int64) (*Result, error) {
	return mod.EvaluateContext(context.Background(), weights, sizes)
}

// EvaluateContext is Evaluate under a context: the evaluation polls ctx in
// its long loops (the sums over cell counts, the counts of atom counting,
// ground worlds) and, once ctx is done, stops within microseconds to
// milliseconds and returns ctx's error (context.Canceled or
// context.DeadlineExceeded, unwrapped) and no result. Its worker goroutines
// have stopped by the time it returns.
func (mod *Model) EvaluateContext(ctx context.Context, weights []float64, sizes map[string]int64) (*Result, error) {
	start := time.Now()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if len(weights) != mod.nf {
		return nil, fmt.Errorf("got %d weights for %d formulas", len(weights), mod.nf)
	}
	n, err := mod.baseSizes(sizes)
	if err != nil {
		return nil, err
	}
	theta := make([]float64, mod.nParams)
	for j, f := range mod.m.Formulas {
		if !f.Hard {
			w := weights[j]
			if math.IsNaN(w) || math.IsInf(w, 0) {
				return nil, fmt.Errorf("formula %d (%s): weight %v is not finite", j+1, f.Text, w)
			}
			theta[j] = w
		}
	}
	mt := meterOf(ctx)
	mt.begin("evaluating")
	defer mt.end()
	levels, relErr, err := mod.reduceHuge(theta, n)
	if err != nil {
		return nil, err
	}
	grad := make([]float64, mod.nParams)
	logZ, digits, err := mod.top.eval(ctx, theta, n, grad)
	var pe *PrecisionError
	if err != nil && errors.As(err, &pe) && ctx.Err() == nil {
		if res, ok := mod.hardenHuge(ctx, weights, sizes, n); ok {
			res.Seconds = time.Since(start).Seconds()
			return res, nil
		}
	}
	if err != nil {
		if cerr := ctx.Err(); cerr != nil {
			return nil, cerr
		}
		return nil, err
	}
	for i := len(levels) - 1; i >= 0; i-- {
		s, err := levels[i].shift(grad)
		if err != nil {
			return nil, err
		}
		logZ += s
	}
	logZ += mod.countLogBinom(n)
	logZ += mod.logOrders(n)
	free := mod.top.sh.freeAtoms(mod.p0, n) - mod.fixedUncoveredAt(n)
	logZ += free * math.Ln2
	res := &Result{LogZ: logZ, ExpectedCounts: make([]float64, mod.nf), DigitsLost: digits,
		RelError: relErr + math.Pow(10, digits)*0x1p-53}
	for j, f := range mod.m.Formulas {
		if f.Hard {
			res.ExpectedCounts[j] = groundings(mod.m, f, n)
		} else {
			res.ExpectedCounts[j] = grad[j]
		}
	}
	for _, q := range mod.queries {
		g := mod.queryGroundings(q, n)
		p := 0.0
		if g > 0 {
			p = grad[q.param] / g
		}
		res.Marginals = append(res.Marginals, clamp01(p))
	}
	if math.IsNaN(res.LogZ) || math.IsInf(res.LogZ, 0) {
		return nil, errors.New("log Z is not finite")
	}
	res.Seconds = time.Since(start).Seconds()
	return res, nil
}

func clamp01(p float64) float64 {
	switch {
	case math.IsNaN(p):
		return 0
	case p < 0:
		return 0
	case p > 1:
		return 1
	}
	return p
}

// groundings is the number of groundings of f's free variables.
func groundings(m *mln.MLN, f *mln.Formula, n []int64) float64 {
	g := 1.0
	for _, v := range f.Vars {
		g *= float64(n[m.TypeIndex(v.Type)])
	}
	return g
}

func (mod *Model) baseSizes(sizes map[string]int64) ([]int64, error) {
	n := slices.Clone(mod.declared)
	for name, s := range sizes {
		i := mod.m.TypeIndex(name)
		if i < 0 {
			names := make([]string, len(mod.m.Types))
			for k, t := range mod.m.Types {
				names[k] = t.Name
			}
			return nil, fmt.Errorf("unknown type %q in domain sizes (types: %s)", name, strings.Join(names, ", "))
		}
		if s < 0 {
			return nil, fmt.Errorf("domain size of %s is negative", name)
		}
		if s > 1<<31 {
			return nil, fmt.Errorf("domain size of %s is %d; at most 2^31 is supported", name, s)
		}
		n[i] = s
	}
	for i, t := range mod.m.Types {
		if need := int64(len(mod.named[i])); n[i] < need {
			return nil, fmt.Errorf("domain %s has %d elements but %d constants are named (%s)", t.Name, n[i], need, sample(mod.named[i]))
		}
	}
	return n, nil
}

func sample(set map[string]bool) string {
	var s []string
	for k := range set {
		s = append(s, k)
	}
	sort.Strings(s)
	if len(s) > 6 {
		s = append(s[:6], "…")
	}
	return strings.Join(s, ", ")
}

// queryGroundings is the number of equiprobable groundings a query stands
// for: its anonymous constants may be any distinct elements of their blocks.
func (mod *Model) queryGroundings(q queryInfo, n []int64) float64 {
	g := 1.0
	used := map[querySlot]int64{}
	for _, s := range q.slots {
		size := mod.top.classSize(s.typ, s.class, n)
		g *= float64(size - used[s])
		used[s]++
	}
	return g
}

func (mod *Model) countLogBinom(n []int64) float64 {
	if len(mod.countEv) == 0 {
		return 0
	}
	total := 0.0
	for _, ce := range mod.countEv {
		rest := mod.top.restAnon(ce.typ, n) + ce.count
		ensureLogFact(rest)
		total += logBinom(logFactTable(), rest, ce.count)
	}
	return total
}

func (mod *Model) fixedUncoveredAt(n []int64) float64 {
	f := float64(mod.fixedUncovered)
	for _, t := range mod.fixedUncoveredRests {
		f += float64(mod.top.restAnon(t, n))
	}
	return f
}

// Exact reports whether the answer is exact to about 1e-9 (RelError): what
// a caller needs before calling it exact.
func (r *Result) Exact() bool { return r.RelError <= maxRelError }

// PrecisionError is Evaluate's refusal of weights whose answer double
// precision cannot give (to about 1e-9): huge weights of incommensurable
// magnitudes, or a sum that cancels.
type PrecisionError struct {
	RelError float64 // the estimated relative error
	Reason   string
}

func (e *PrecisionError) Error() string {
	return fmt.Sprintf("wfomc: the answer would have a relative error of about %.1g (%s); not computed", e.RelError, e.Reason)
}
