package bp

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/lift"
)

// Schedule is the order in which messages are updated.
type Schedule int

const (
	// Flood updates all messages from the previous iteration's messages.
	Flood Schedule = iota
	// Sequential updates messages one at a time in a fixed order.
	Sequential
	// ForwardBackward is the factored frontier protocol (Murphy and Weiss
	// 2001; Section 4.1 of the lifted BP paper) for graphs unrolled over time
	// steps (Options.VarSlice): an iteration sends messages "left to right"
	// and then "right to left", one message at a time as Sequential does.
	// Going forwards, step t = 0, 1, … first receives the messages of the
	// factors that link it to step t−1 and then those of the factors within
	// step t, so a variable hears from its own step only once all its
	// neighbours from step t−1 and its own step are in the frontier; going
	// backwards, step t = T, …, 0 first receives those of the factors that
	// link it to step t+1 and then those within step t. Within a step the
	// messages go once in order and once in reverse order, so that a step
	// whose own factors form a star around each variable linked in time
	// (observations, per-step priors) is complete before it sends on: on an
	// HMM-shaped chain one iteration is exact. Factors over
	// variables of no step come first forwards and last backwards. On a
	// counted graph the representative of each clusterfactor decides where
	// its slots go, so ground and lifted runs use the one schedule.
	ForwardBackward
)

// String returns "flood", "seq" or "fb".
func (s Schedule) String() string {
	switch s {
	case Sequential:
		return "seq"
	case ForwardBackward:
		return "fb"
	}
	return "flood"
}

// Options configure a BP run.
type Options struct {
	MaxProduct bool     // max-product (MAP) instead of sum-product
	Schedule   Schedule // Flood or Sequential
	Damping    float64  // in [0, 1): weight of the old message
	Tol        float64  // convergence threshold on the maximum message change
	MaxIter    int      // iteration limit
	// VarSlice gives, for the ForwardBackward schedule, the time step of
	// every ground variable (-1 for none); factors may link variables of
	// one step or of two consecutive steps only.
	VarSlice []int32
	// Progress, if set, is called after every iteration.
	Progress func(iter int, maxChange float64)
	// AverageLast, when positive, makes a run that ends unconverged at
	// MaxIter take its beliefs (and log Z) from the mean of the
	// factor-to-variable messages of its last AverageLast iterations rather
	// than from the last iteration's: in a limit cycle, the mean over the
	// cycle instead of one point of it.
	AverageLast int
	// Init, when set, holds the factor-to-variable messages to start from
	// instead of uniform ones, laid out as Result.F2V (per lifted edge,
	// each summing to 1): a warm start (EstimateError runs ground BP from
	// the messages of lifted BP on an approximate compression). Flood
	// schedule only.
	Init []float64

	logDomain bool // sequential: keep every clusternode's totals in log space (tests)
	perSlot   bool // sequential: recompute the messages into a clusterfactor for every slot (tests)
	tableWalk bool // evaluate every table entry by entry, also tables with one odd entry (tests)
}

// DefaultOptions returns the paper's settings: sum-product, flooding, no
// damping, tolerance 1e-8, at most 1000 iterations.
func DefaultOptions() Options {
	return Options{Tol: 1e-8, MaxIter: 1000}
}

// ErrNotNormalizable reports a message or belief that became zero everywhere:
// the messages contradict the model's hard constraints. Damping or the
// sequential schedule sometimes avoid it.
var ErrNotNormalizable = errors.New("bp: message not normalizable (all entries zero)")

// Result holds the outcome of a run on a counted graph.
type Result struct {
	Graph      *lift.Compressed
	Belief     []float64 // per clusternode, NodeOff[X] .. NodeOff[X+1]
	NodeOff    []int
	LogZ       float64 // Bethe estimate of log Z (sum-product only)
	Iterations int
	Converged  bool
	MaxChange  float64
	Messages   int64 // messages computed, both directions
	Seconds    float64
	MaxProduct bool
	// F2V holds the factor-to-variable messages the beliefs were computed
	// from, per lifted edge s at F2V[EdgeOff[s]:EdgeOff[s+1]] (each sums to
	// 1): the last iteration's, or their mean (Options.AverageLast).
	F2V     []float64
	EdgeOff []int
	// V2F holds the variable-to-factor messages at those F2V, laid out
	// the same way (sum-product only; each scaled to a largest entry 1):
	// what FactorBelief reads.
	V2F []float64
	// Violated, when set, says why messages that converged are no BP
	// answer: the beliefs violate a hard factor (Converged is false).
	Violated string
	// Unstable, when set, says that a damped flooding run converged to a
	// fixed point that undamped BP does not hold (see StabilityIterations):
	// a fixed point only damping reaches, where BP's marginals are poorest
	// (it is still a fixed point of BP: Converged stays true).
	Unstable string
}

// StabilityIterations is the number of undamped flooding iterations run
// from the fixed point of a converged damped flooding run: where the
// largest message change grows StabilityGrowth-fold over them, the fixed
// point is unstable without damping (Result.Unstable).
const (
	StabilityIterations = 20
	StabilityGrowth     = 100
)

// undampedGrowth runs StabilityIterations undamped flooding iterations
// on c from the factor-to-variable messages f2v and returns the first and
// the last largest message change.
func undampedGrowth(ctx context.Context, c *lift.Compressed, f2v []float64) (first, last float64, err error) {
	var ch []float64
	opt := Options{Schedule: Flood, MaxIter: StabilityIterations, Init: slices.Clone(f2v),
		Progress: func(_ int, x float64) { ch = append(ch, x) }}
	if _, err := Run(ctx, c, opt); err != nil {
		return 0, 0, err
	}
	return ch[0], ch[len(ch)-1], nil
}

// ViolatedMass is the share of the product of a hard factor's variable
// beliefs on the factor's zeros above which a fixed point counts as
// violating the factor: every state of an EXIST clause ≈ 0, say.
const ViolatedMass = 0.99

// maxCheckEntries bounds the table size violated checks entry by entry.
const maxCheckEntries = 1 << 12

// violated returns a clusterfactor with zero entries on whose zeros the
// product of its variables' beliefs puts more than ViolatedMass, and that
// mass; -1 when there is none.
func (e *engine) violated(res *Result) (int, float64) {
	c := e.c
	for F := range c.NumFactors() {
		t := c.Table(F)
		pos := c.Positions(F)
		if len(pos) < 2 || len(t.Values) > maxCheckEntries {
			continue
		}
		b := func(q, x int) float64 { return res.NodeBelief(int(c.EdgeNode[pos[q]]))[x] }
		var mass float64
		if e.odd != nil && e.odd[F] >= 0 {
			cv, c0 := e.oddC[F][0], e.oddC[F][1]
			if cv != 0 && c0 != 0 {
				continue
			}
			z := e.oddZ[e.odd[F] : int(e.odd[F])+len(pos)]
			pz := 1.0
			for q := range pos {
				pz *= b(q, int(z[q]))
			}
			mass = pz // zero at z only (a clause)
			if cv == 0 {
				mass = 1 - pz // zero everywhere but z
			}
		} else {
			hasZero := false
			for _, v := range t.Values {
				hasZero = hasZero || v == 0
			}
			if !hasZero {
				continue
			}
			idx := make([]int, len(pos))
			for _, v := range t.Values {
				if v == 0 {
					p := 1.0
					for q := range pos {
						p *= b(q, idx[q])
					}
					mass += p
				}
				for q := len(pos) - 1; q >= 0; q-- { // the last position varies fastest
					idx[q]++
					if idx[q] < int(t.Dims[q]) {
						break
					}
					idx[q] = 0
				}
			}
		}
		if mass > ViolatedMass {
			return F, mass
		}
	}
	return -1, 0
}

// NodeBelief returns the normalised belief of clusternode X.
func (r *Result) NodeBelief(X int) []float64 { return r.Belief[r.NodeOff[X]:r.NodeOff[X+1]] }

// Marginal returns the belief of ground variable v (the max-marginal for
// max-product).
func (r *Result) Marginal(v int) []float64 { return r.NodeBelief(int(r.Graph.NodeOf[v])) }

// Marginals returns the beliefs of all ground variables.
func (r *Result) Marginals() [][]float64 {
	out := make([][]float64, len(r.Graph.NodeOf))
	for v := range out {
		out[v] = append([]float64(nil), r.Marginal(v)...)
	}
	return out
}

// Assignment returns, per ground variable, the state of largest belief
// (lowest state on ties): the MAP estimate under max-product.
func (r *Result) Assignment() []int32 {
	best := make([]int32, r.Graph.NumNodes())
	for X := range best {
		b := r.NodeBelief(X)
		k := 0
		for x := 1; x < len(b); x++ {
			if b[x] > b[k] {
				k = x
			}
		}
		best[X] = int32(k)
	}
	out := make([]int32, len(r.Graph.NodeOf))
	for v, X := range r.Graph.NodeOf {
		out[v] = best[X]
	}
	return out
}

// Run runs BP on c.
func Run(ctx context.Context, c *lift.Compressed, opt Options) (*Result, error) {
	if opt.MaxIter <= 0 {
		return nil, fmt.Errorf("bp: MaxIter must be positive, got %d", opt.MaxIter)
	}
	if !(opt.Damping >= 0 && opt.Damping < 1) {
		return nil, fmt.Errorf("bp: damping must be in [0, 1), got %v", opt.Damping)
	}
	if !(opt.Tol >= 0) {
		return nil, fmt.Errorf("bp: tolerance must be non-negative, got %v", opt.Tol)
	}
	start := time.Now()
	e := newEngine(c, opt)
	if opt.Init != nil {
		if len(opt.Init) != len(e.f2v) || opt.Schedule != Flood {
			return nil, fmt.Errorf("bp: Init needs %d message entries and the flood schedule, got %d and %v", len(e.f2v), len(opt.Init), opt.Schedule)
		}
		copy(e.f2v, opt.Init)
	}
	if opt.Schedule == ForwardBackward {
		order, err := frontierOrder(c, opt.VarSlice)
		if err != nil {
			return nil, err
		}
		e.order = order
	}
	res := &Result{Graph: c, MaxProduct: opt.MaxProduct}
	var err error
	var sum []float64 // AverageLast: Σ f2v over the last iterations
	nsum := 0
	for it := 1; it <= opt.MaxIter; it++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		var change float64
		if opt.Schedule != Flood {
			change, err = e.sweep()
		} else {
			change, err = e.flood()
		}
		if err != nil {
			return nil, fmt.Errorf("%w (iteration %d)", err, it)
		}
		res.Iterations = it
		res.MaxChange = change
		if opt.Progress != nil {
			opt.Progress(it, change)
		}
		if change < opt.Tol {
			res.Converged = true
			break
		}
		if opt.AverageLast > 0 && it > opt.MaxIter-opt.AverageLast {
			if sum == nil {
				sum = make([]float64, len(e.f2v))
			}
			for i, v := range e.f2v {
				sum[i] += v
			}
			nsum++
		}
	}
	if !res.Converged && nsum > 0 {
		inv := 1 / float64(nsum)
		for i, v := range sum {
			e.f2v[i] = v * inv
		}
	}
	res.Messages = e.messages
	res.F2V, res.EdgeOff = e.f2v, e.edgeOff
	if err := e.beliefs(res); err != nil {
		return nil, err
	}
	if !opt.MaxProduct {
		res.LogZ = e.bethe(res)
		res.V2F = e.v2f
		if res.Converged {
			if F, mass := e.violated(res); F >= 0 {
				// Messages that settled on beliefs a hard factor forbids
				// (every state of a clause ≈ false) are no answer.
				res.Converged = false
				res.Violated = fmt.Sprintf("the fixed point's marginals put %.3g of their product's mass on the zeros of hard factor %d (a constraint every world satisfies)", mass, c.FactorRep[F])
			}
		}
		if res.Converged && opt.Schedule == Flood && opt.Damping > 0 && opt.Init == nil {
			first, last, err := undampedGrowth(ctx, c, res.F2V)
			if err != nil && ctx.Err() != nil {
				return nil, ctx.Err()
			}
			if err == nil && last > StabilityGrowth*first && last > opt.Tol {
				res.Unstable = fmt.Sprintf("undamped BP does not hold this fixed point (started from it, its largest message change grew from %.2g to %.2g in %d iterations): a fixed point only damping reaches, where BP's marginals are least reliable",
					first, last, StabilityIterations)
			}
		}
		if res.Converged && opt.Schedule != Flood {
			if why, err := brokenSymmetry(ctx, res, opt); err != nil {
				return nil, err
			} else if why != "" {
				res.Converged = false
				res.Violated = why
			}
		}
	}
	res.Seconds = time.Since(start).Seconds()
	return res, nil
}

// BrokenSymmetry is the phrase of Result.Violated (and so of
// infer.Stats.Mixing) for a fixed point that breaks the model's symmetry.
const BrokenSymmetry = "breaks the model's symmetry"

// SymmetryGap is the least difference between the marginals of two ground
// variables of one colour class (lift.Compress of the ground graph) at
// which a fixed point of a sequential schedule counts as breaking the
// model's symmetry; it grows to 100 times the tolerance where that is
// larger.
const SymmetryGap = 1e-3

// brokenSymmetry checks the converged answer of a sequential schedule on
// a ground graph (every clusternode of size 1) against the colour classes
// of that graph: flooding BP, ground or lifted, keeps the marginals of one
// class equal at every iteration (in exact arithmetic, and bit for bit in
// ours), but a sequential schedule updates one variable of a class before
// the others, and where BP's symmetric path is unstable (matchings,
// permutations) it settles on a fixed point that picks one of several
// symmetric solutions (P = 0 or 1 where the exact answer is 1/2). Such a
// fixed point is not lifted BP's answer, and where the class is an orbit
// of the model's symmetries — the exact marginals are then equal — its
// error is at least half the gap. It returns why, or "".
func brokenSymmetry(ctx context.Context, res *Result, opt Options) (string, error) {
	c := res.Graph
	for _, n := range c.NodeSize {
		if n != 1 {
			return "", nil // a compression: its classes are one clusternode each
		}
	}
	g := c.Ground
	ev := fg.NoEvidence(g.NumVars())
	for v := range ev {
		ev[v] = c.NodeEvidence[c.NodeOf[v]]
	}
	cc, _, err := lift.Compress(ctx, g, ev, lift.Options{})
	if err != nil {
		return "", err
	}
	first := make([]int32, cc.NumNodes())
	for i := range first {
		first[i] = -1
	}
	gap := max(SymmetryGap, 100*opt.Tol)
	worst, a, b := 0.0, -1, -1
	for v := range g.NumVars() {
		X := cc.NodeOf[v]
		if first[X] < 0 {
			first[X] = int32(v)
			continue
		}
		if d := maxDiff(res.Marginal(v), res.Marginal(int(first[X]))); d > worst {
			worst, a, b = d, int(first[X]), v
		}
	}
	if worst <= gap {
		return "", nil
	}
	return fmt.Sprintf("the %v schedule's fixed point "+BrokenSymmetry+": variables %d and %d, which flooding BP (= lifted BP) keeps equal, differ by %.3g (%.3g and %.3g); it is one of several symmetric fixed points, not BP's answer",
		opt.Schedule, a, b, worst, res.Marginal(a)[len(res.Marginal(a))-1], res.Marginal(b)[len(res.Marginal(b))-1]), nil
}

// engine holds the flat message arrays of one run.
type engine struct {
	c   *lift.Compressed
	opt Options

	edgeOff []int     // lifted edge → offset into f2v/v2f
	f2v     []float64 // factor-to-variable messages, sum 1
	next    []float64 // flooding: the next f2v
	v2f     []float64 // variable-to-factor messages, max 1

	nodeOff []int     // clusternode → offset into logT/zeros
	logT    []float64 // Σ count·log m over non-zero incoming entries
	zeros   []int64   // Σ count over zero incoming entries

	// scratch for factor evaluation
	prefix []float64
	suffix []float64
	others []int32
	idx    []int32
	inOff  []int
	outOff []int
	out    []float64

	order []int32 // sequential update order of lifted edges

	// byValue holds c.NodeEdges with each clusternode's lifted edges
	// sorted by their current message (then count) whenever its totals
	// are computed from scratch (nodeTotals, linTotals): the totals are
	// then a function of the multiset of incoming messages, not of the
	// order the edges happen to have, so that variables whose messages are
	// equal in exact arithmetic (symmetric ones: a colour class of the
	// ground graph) get bit-equal totals and messages. Summed in edge
	// order, rounding makes them differ in the last bits, and where BP's
	// path through the symmetric messages is unstable (matchings,
	// permutations, Latin squares) the difference grows until ground BP
	// leaves the path that lifted BP, one message per class, keeps.
	// Only flooding on a ground graph (every clusternode of size 1) sorts
	// (canon): flooding is the schedule whose ground and lifted runs are
	// equal iteration by iteration (the sequential schedules update one
	// slot at a time, which breaks symmetries in exact arithmetic
	// already), and a compressed graph computes one message per class.
	byValue []int32
	canon   bool
	oddOrd  []int32 // scratch: oddMessages' positions sorted by their inputs

	// Tables of sum-product factors that hold one value c everywhere but
	// at one entry z (c0 there; a CNF clause: c = 1, c0 = 0) get their
	// messages in O(arity) (oddMessages): odd[F] >= 0 is the offset of the
	// digits of z in oddZ (one per position), oddC[F] = {c, c0}.
	odd  []int32
	oddZ []int32
	oddC [][2]float64
	oddS []float64 // scratch: per position Σ m, m(z_q), Σ_{y≠z_q} m
	oddM []float64
	oddN []float64

	// Linear domain: a clusternode without evidence (under the sequential
	// schedules: whose lifted edges all have count 1, as every node of a
	// ground graph) keeps, instead of logT, linP[x] = Π m[x]^count over its
	// non-zero incoming entries, scaled by
	// a per-node constant (messages to factors are max-normalised, so the
	// constant cancels); the message to a factor divides its own input
	// out. A node falls back to the log domain (lin false) when the ratio of
	// its smallest to its largest entry threatens to underflow.
	lin  []bool
	linP []float64
	// simple[F]: F's positions are distinct lifted edges of count 1 at
	// distinct clusternodes, so updating one slot does not change the
	// messages from the slots' nodes to F, which are computed once per
	// visit.
	simple []bool

	messages int64

	// scaled holds, for tables whose largest entry exceeds bigEntry, the
	// table divided by that entry (BP's messages do not depend on a
	// factor's scale; sums of entries near MaxFloat64 would overflow),
	// and logScale the log of the divisor, for the Bethe estimate.
	scaled map[*fg.Table]scaledTable
}

// scaledTable is a table divided by its largest entry.
type scaledTable struct {
	values   []float64
	logScale float64
}

// bigEntry is the largest table entry used as it is (see engine.scaled).
const bigEntry = 1e150

// tableValues returns factor F's table entries as BP uses them and the
// log of the scale they were divided by.
func (e *engine) tableValues(t *fg.Table) ([]float64, float64) {
	if st, ok := e.scaled[t]; ok {
		return st.values, st.logScale
	}
	return t.Values, 0
}

// scaleTables fills engine.scaled.
func (e *engine) scaleTables() {
	c := e.c
	for F := range c.NumFactors() {
		t := c.Table(F)
		if _, ok := e.scaled[t]; ok {
			continue
		}
		hi := 0.0
		for _, v := range t.Values {
			hi = max(hi, v)
		}
		if hi > bigEntry && !math.IsInf(hi, 1) {
			if e.scaled == nil {
				e.scaled = map[*fg.Table]scaledTable{}
			}
			st := scaledTable{values: make([]float64, len(t.Values)), logScale: math.Log(hi)}
			for k, v := range t.Values {
				st.values[k] = v / hi
			}
			e.scaled[t] = st
		}
	}
}

// Scaling of linP: the largest entry is kept within [2^-linScale,
// 2^linScale]; an entry below 2^-linSpread times the largest sends the node
// to the log domain (whose messages would keep it; here it could underflow).
const (
	linScale  = 256
	linSpread = 600
)

var linHi, linLo, linSpreadF = math.Ldexp(1, linScale), math.Ldexp(1, -linScale), math.Ldexp(1, linSpread)

func newEngine(c *lift.Compressed, opt Options) *engine {
	e := &engine{c: c, opt: opt}
	ne := c.NumEdges()
	e.edgeOff = make([]int, ne+1)
	for s := 0; s < ne; s++ {
		e.edgeOff[s+1] = e.edgeOff[s] + int(c.NodeCard[c.EdgeNode[s]])
	}
	n := e.edgeOff[ne]
	e.f2v = make([]float64, n)
	e.v2f = make([]float64, n)
	for s := 0; s < ne; s++ {
		m := e.f2v[e.edgeOff[s]:e.edgeOff[s+1]]
		for i := range m {
			m[i] = 1 / float64(len(m))
		}
	}
	// Flooding writes the next messages here; the sequential schedules
	// keep a simple clusterfactor's messages of one visit here.
	e.next = make([]float64, n)
	nn := c.NumNodes()
	e.nodeOff = make([]int, nn+1)
	for X := 0; X < nn; X++ {
		e.nodeOff[X+1] = e.nodeOff[X] + int(c.NodeCard[X])
	}
	e.logT = make([]float64, e.nodeOff[nn])
	e.canon = opt.Schedule == Flood
	for _, n := range c.NodeSize {
		e.canon = e.canon && n == 1
	}
	e.byValue = slices.Clone(c.NodeEdges)
	e.zeros = make([]int64, e.nodeOff[nn])
	maxArity := 0
	for F := 0; F < c.NumFactors(); F++ {
		maxArity = max(maxArity, len(c.Positions(F)))
	}
	e.prefix = make([]float64, maxArity+1)
	e.suffix = make([]float64, maxArity+1)
	e.others = make([]int32, 0, maxArity)
	e.idx = make([]int32, maxArity)
	e.inOff = make([]int, maxArity)
	e.outOff = make([]int, maxArity)
	e.scaleTables()
	if !opt.MaxProduct && !opt.tableWalk {
		e.initOdd()
	}
	e.initSequential()
	return e
}

// initSequential decides which clusternodes use the linear domain and
// which clusterfactors are simple.
func (e *engine) initSequential() {
	c := e.c
	nn := c.NumNodes()
	e.lin = make([]bool, nn)
	if !e.opt.logDomain {
		e.linP = make([]float64, e.nodeOff[nn])
		for X := 0; X < nn; X++ {
			e.lin[X] = c.NodeEvidence[X] < 0
			// Flooding recomputes the totals from scratch every iteration,
			// so a lifted edge of count n multiplies them by m^n (linTotals);
			// the sequential schedules move them edge by edge and keep
			// counts above 1 in the log domain, and so do counts above
			// maxLinCount (m^n by squaring has a relative error up to about
			// n ulps).
			for _, s := range c.NodeEdges[c.NodeEdgeStart[X]:c.NodeEdgeStart[X+1]] {
				if n := c.EdgeCount[s]; n != 1 && (e.opt.Schedule != Flood || n > maxLinCount) {
					e.lin[X] = false
				}
			}
		}
	}
	e.simple = make([]bool, c.NumFactors())
	seen := make(map[int32]bool)
	for F := range e.simple {
		clear(seen)
		e.simple[F] = len(c.Positions(F)) > 1 && !e.opt.perSlot
		for q, s := range c.Positions(F) {
			X := c.EdgeNode[s]
			// With a count above 1 a node's message to F depends on F's
			// own message (the other ground edges of the slot).
			if int(c.EdgePos[s]) != q || seen[X] || c.EdgeCount[s] != 1 {
				e.simple[F] = false
				break
			}
			seen[X] = true
		}
	}
}

// linTotals recomputes linP and zeros of a linear clusternode X from f2v,
// or sends X to the log domain (computing logT) when an entry threatens to
// underflow.
func (e *engine) linTotals(X int) {
	c := e.c
	P := e.linP[e.nodeOff[X]:e.nodeOff[X+1]]
	Z := e.zeros[e.nodeOff[X]:e.nodeOff[X+1]]
	for x := range P {
		P[x] = 1
	}
	clear(Z)
	for _, s := range e.sortedEdges(X) {
		m := e.f2v[e.edgeOff[s]:e.edgeOff[s+1]]
		if n := c.EdgeCount[s]; n != 1 {
			// A lifted edge of count n (flooding only): m^n, by squaring.
			// An underflow to 0 or a subnormal leaves a spread that sends
			// X to the log domain below.
			for x, v := range m {
				if v > 0 {
					P[x] *= powInt(v, n)
				} else {
					Z[x] += n
				}
			}
		} else {
			for x, v := range m {
				if v > 0 {
					P[x] *= v
				} else {
					Z[x]++
				}
			}
		}
		if !e.linRescale(X, P) {
			return
		}
	}
}

// maxLinCount is the largest lifted-edge count a flooding clusternode keeps
// in the linear domain.
const maxLinCount = 1024

// powInt returns v^n for n >= 1 by repeated squaring.
func powInt(v float64, n int64) float64 {
	r := 1.0
	for {
		if n&1 == 1 {
			r *= v
		}
		n >>= 1
		if n == 0 {
			return r
		}
		v *= v
	}
}

// linRescale keeps the largest entry of P within 2^±linScale; it reports
// false, after sending X to the log domain, when the smallest entry is
// below 2^-linSpread times the largest.
func (e *engine) linRescale(X int, P []float64) bool {
	hi, lo := P[0], P[0]
	for _, v := range P[1:] {
		if v > hi {
			hi = v
		}
		if v < lo {
			lo = v
		}
	}
	if !(lo*linSpreadF >= hi) || !(hi > 0) || hi > math.MaxFloat64 {
		e.lin[X] = false
		e.nodeTotals(X)
		return false
	}
	if hi > linHi || hi < linLo {
		inv := 1 / hi
		for x := range P {
			P[x] *= inv
		}
	}
	return true
}

// seqVarMessage is varMessage for the sequential schedule: from linP at
// linear clusternodes.
func (e *engine) seqVarMessage(s int32, dst []float64) error {
	c := e.c
	X := int(c.EdgeNode[s])
	if !e.lin[X] {
		return e.varMessage(s, dst)
	}
	P := e.linP[e.nodeOff[X]:e.nodeOff[X+1]]
	Z := e.zeros[e.nodeOff[X]:e.nodeOff[X+1]]
	m := e.f2v[e.edgeOff[s]:e.edgeOff[s+1]]
	best := 0.0
	for x := range dst {
		z := Z[x]
		v := P[x]
		if m[x] > 0 {
			v /= m[x]
		} else {
			z--
		}
		if z > 0 {
			v = -1 // a zero of the model
		}
		dst[x] = v
		best = max(best, v)
	}
	if !(best > 0) || math.IsInf(best, 1) {
		if best == 0 && !e.someAllowed(X, m) {
			return fmt.Errorf("%w: every state of a variable in clusternode %d is excluded", ErrNotNormalizable, X)
		}
		e.lin[X] = false
		e.nodeTotals(X)
		return e.varMessage(s, dst)
	}
	for x, v := range dst {
		if v < 0 {
			dst[x] = 0
			continue
		}
		dst[x] = max(v/best, MessageFloor) // 0 here is underflow
	}
	return nil
}

// someAllowed reports whether some state of clusternode X is not excluded
// by a zero of the incoming messages other than m (the message on the
// edge out of which the message is sent).
func (e *engine) someAllowed(X int, m []float64) bool {
	Z := e.zeros[e.nodeOff[X]:e.nodeOff[X+1]]
	for x := range Z {
		z := Z[x]
		if !(m[x] > 0) {
			z--
		}
		if z <= 0 {
			return true
		}
	}
	return false
}

// MessageFloor is the least entry of a variable-to-factor message (max-
// normalised, so its largest entry is 1) at a state no zero of the model
// excludes: exp or a product that underflows to 0 would otherwise read as
// a zero of the model, which on a satisfiable model can exclude every
// state of a variable ("not normalizable") or give a hard constraint's
// states probability ≈ 0 everywhere. The messages of tables with one odd
// entry (clauses, oddMessages) never multiply two entries that are both
// small (a max-normalised message has an entry 1), so the floor keeps
// them positive at any arity; it changes a marginal by at most about
// 1e-300 per message.
const MessageFloor = 1e-300

// sortedEdges returns the lifted edges at clusternode X sorted by their
// current factor-to-variable message (lexicographically), then by count
// (engine.byValue). The order of the previous call is the starting point,
// and messages change little between iterations, so the sort mostly
// confirms a sorted slice in linear time.
func (e *engine) sortedEdges(X int) []int32 {
	c := e.c
	edges := e.byValue[c.NodeEdgeStart[X]:c.NodeEdgeStart[X+1]]
	if len(edges) < 2 || !e.canon {
		return edges
	}
	f2v, off := e.f2v, e.edgeOff
	cmpEdge := func(a, b int32) int {
		ma, mb := f2v[off[a]:off[a+1]], f2v[off[b]:off[b+1]]
		for x, v := range ma {
			if v != mb[x] {
				if v < mb[x] {
					return -1
				}
				return 1
			}
		}
		return cmp.Compare(c.EdgeCount[a], c.EdgeCount[b])
	}
	if !slices.IsSortedFunc(edges, cmpEdge) {
		slices.SortFunc(edges, cmpEdge)
	}
	return edges
}

// nodeTotals recomputes logT and zeros of clusternode X from f2v.
func (e *engine) nodeTotals(X int) {
	c := e.c
	T := e.logT[e.nodeOff[X]:e.nodeOff[X+1]]
	Z := e.zeros[e.nodeOff[X]:e.nodeOff[X+1]]
	clear(T)
	clear(Z)
	for _, s := range e.sortedEdges(X) {
		cnt := c.EdgeCount[s]
		fc := float64(cnt)
		m := e.f2v[e.edgeOff[s]:e.edgeOff[s+1]]
		for x, v := range m {
			if v > 0 {
				T[x] += fc * math.Log(v)
			} else {
				Z[x] += cnt
			}
		}
	}
}

// varMessage computes the variable-to-factor message of lifted edge s into
// dst (max-normalised), from the totals of its clusternode.
func (e *engine) varMessage(s int32, dst []float64) error {
	c := e.c
	X := int(c.EdgeNode[s])
	if ev := c.NodeEvidence[X]; ev >= 0 {
		clear(dst)
		dst[ev] = 1
		return nil
	}
	T := e.logT[e.nodeOff[X]:e.nodeOff[X+1]]
	Z := e.zeros[e.nodeOff[X]:e.nodeOff[X+1]]
	m := e.f2v[e.edgeOff[s]:e.edgeOff[s+1]]
	best := math.Inf(-1)
	for x := range dst {
		z := Z[x]
		l := T[x]
		if m[x] > 0 {
			l -= math.Log(m[x])
		} else {
			z--
		}
		if z > 0 {
			dst[x] = math.Inf(-1)
			continue
		}
		dst[x] = l
		best = max(best, l)
	}
	if math.IsInf(best, -1) {
		return fmt.Errorf("%w: every state of a variable in clusternode %d is excluded", ErrNotNormalizable, X)
	}
	for x, l := range dst {
		if math.IsInf(l, -1) {
			dst[x] = 0 // a zero of the model
			continue
		}
		dst[x] = max(math.Exp(l-best), MessageFloor)
	}
	return nil
}

// factorMessages evaluates clusterfactor F's representative: for every slot
// whose chosen position is in want (or all when only < 0), it writes the
// unnormalised factor-to-variable message into base[edgeOff[slot]:].
func (e *engine) factorMessages(F int, only int32, base []float64) {
	c := e.c
	t := c.Table(F)
	values, _ := e.tableValues(t)
	pos := c.Positions(F)
	a := len(pos)
	for q, s := range pos {
		e.inOff[q] = e.edgeOff[s]
		e.outOff[q] = -1
		if (only < 0 || s == only) && int(c.EdgePos[s]) == q {
			e.outOff[q] = e.edgeOff[s]
			clear(base[e.edgeOff[s]:e.edgeOff[s+1]])
		}
	}
	if a < 2 {
		if o := e.outOff[0]; o >= 0 {
			for x, phi := range values {
				base[o+x] = phi
			}
		}
		return
	}
	if e.odd != nil && e.odd[F] >= 0 {
		e.oddMessages(F, t.Dims, a, base)
		return
	}
	e.tableRows(values, t.Dims, a, base)
}

// initOdd finds the clusterfactors (arity >= 2) whose table holds one value
// c at every entry but one, z (see engine.odd).
func (e *engine) initOdd() {
	c := e.c
	type oddTable struct {
		off   int32 // offset of z's digits in oddZ, -1: not such a table
		c, c0 float64
	}
	found := make(map[*fg.Table]oddTable)
	e.odd = make([]int32, c.NumFactors())
	e.oddC = make([][2]float64, c.NumFactors())
	some := false
	for F := range e.odd {
		e.odd[F] = -1
		a := len(c.Positions(F))
		if a < 2 {
			continue
		}
		t := c.Table(F)
		ot, ok := found[t]
		if !ok {
			ot.off = -1
			values, _ := e.tableValues(t)
			if z, cv, c0, one := oddEntry(values); one {
				ot = oddTable{int32(len(e.oddZ)), cv, c0}
				for q := a - 1; q >= 0; q-- { // the last position varies fastest
					d := int(t.Dims[q])
					e.oddZ = append(e.oddZ, int32(z%d))
					z /= d
				}
				slices.Reverse(e.oddZ[ot.off:])
			}
			found[t] = ot
		}
		if ot.off >= 0 {
			e.odd[F], e.oddC[F] = ot.off, [2]float64{ot.c, ot.c0}
			some = true
		}
	}
	if !some {
		e.odd = nil
		return
	}
	n := cap(e.others) + 1
	e.oddS, e.oddM, e.oddN = make([]float64, n), make([]float64, n), make([]float64, n)
	e.oddOrd = make([]int32, n)
}

// oddEntry reports whether values (at least 3) hold one value c at every
// entry but one, z, where they hold c0 != c.
func oddEntry(values []float64) (z int, c, c0 float64, ok bool) {
	if len(values) < 3 {
		return 0, 0, 0, false
	}
	c = values[0]
	if values[1] != c {
		c = values[2]
	}
	z = -1
	for k, v := range values {
		if v != c {
			if z >= 0 {
				return 0, 0, 0, false
			}
			z = k
		}
	}
	if z < 0 {
		return 0, 0, 0, false
	}
	return z, c, values[z], true
}

// oddMessages writes the sum-product messages of a clusterfactor whose
// table is c everywhere but c0 at entry z (engine.odd), for the positions
// with outOff >= 0, in O(arity · states). With S_r = Σ_y m_r(y),
// Z_r = m_r(z_r) and N_r = Σ_{y≠z_r} m_r(y) over the other positions r,
//
//	out_q[y]   = c · Π S_r                      (y ≠ z_q)
//	out_q[z_q] = c · D_q + c0 · Π Z_r,  D_q = Σ_j (Π_{r<j} Z_r) N_j (Π_{r>j} S_r),
//
// D_q being the sum over the assignments of the others that differ from z,
// split by the first position that differs: every term is non-negative, so
// nothing cancels (Π S − Π Z would, for near-deterministic messages).
func (e *engine) oddMessages(F int, dims []int32, a int, base []float64) {
	z := e.oddZ[e.odd[F] : int(e.odd[F])+a]
	cv, c0 := e.oddC[F][0], e.oddC[F][1]
	S, M, N := e.oddS[:a], e.oddM[:a], e.oddN[:a]
	ord := e.oddOrd[:a]
	for q := range a {
		m := e.v2f[e.inOff[q] : e.inOff[q]+int(dims[q])]
		var sum, n float64
		for y, v := range m {
			sum += v
			if y != int(z[q]) {
				n += v
			}
		}
		S[q], M[q], N[q] = sum, m[z[q]], n
		ord[q] = int32(q)
	}
	// The positions are combined in the order of their (S, M, N), not in
	// table order: the products and sums are then a function of the
	// multiset of inputs, so that a clause whose inputs are a permutation
	// of another's (a symmetry of the model) sends bit-equal messages
	// (engine.byValue).
	if e.canon {
		slices.SortFunc(ord, func(p, q int32) int {
			if c := cmp.Compare(S[p], S[q]); c != 0 {
				return c
			}
			if c := cmp.Compare(M[p], M[q]); c != 0 {
				return c
			}
			return cmp.Compare(N[p], N[q])
		})
	}
	for q := range a {
		o := e.outOff[q]
		if o < 0 {
			continue
		}
		acc, suf, pz := 0.0, 1.0, 1.0
		for k := a - 1; k >= 0; k-- {
			j := int(ord[k])
			if j == q {
				continue
			}
			acc = N[j]*suf + M[j]*acc
			suf *= S[j]
			pz *= M[j]
		}
		out := base[o : o+int(dims[q])]
		for y := range out {
			out[y] = cv * suf
		}
		out[z[q]] = cv*acc + c0*pz
	}
}

// tableRows accumulates the messages out of one table of arity a >= 2 row by
// row. The row axis R is the last position of more than one state (the
// positions after it have one state each, so R's states are adjacent in the
// table); a row is the entries that differ only at R. For an entry k of a
// row at state x of R,
//
//	out_R[x]      ⊕= φ(k) · Π_{q≠R} m_q(k_q)
//	out_q[k_q]    ⊕= (Π_{r∉{q,R}} m_r(k_r)) · ⊕_x φ(k) m_R(x)   (q ≠ R)
//
// with ⊕ the sum (max for max-product; every factor is non-negative), so a
// row costs O(card(R) + a) rather than O(card(R) · a).
func (e *engine) tableRows(values []float64, dims []int32, a int, base []float64) {
	v2f := e.v2f
	R := a - 1
	for R > 0 && dims[R] == 1 {
		R--
	}
	if dims[R] == 1 {
		R = a - 1
	}
	d := int(dims[R])
	mR := v2f[e.inOff[R] : e.inOff[R]+d]
	oR := e.outOff[R]
	// The other positions in order: op[j] is a position, idx[j] its state.
	op := e.others[:0]
	inner := false // some other position wants its message
	for q := 0; q < a; q++ {
		if q != R {
			op = append(op, int32(q))
			inner = inner || e.outOff[q] >= 0
		}
	}
	n := len(op)
	idx := e.idx[:n]
	clear(idx)
	pre := e.prefix // pre[j] = Π_{i<j} m_op[i](idx_i)
	suf := e.suffix // suf[j] = Π_{i>j} m_op[i](idx_i)
	pre[0] = 1
	from := 0 // positions from here on changed since the last row
	maxp := e.opt.MaxProduct
	for r := 0; r*d < len(values); r++ {
		for j := from; j < n; j++ {
			pre[j+1] = pre[j] * v2f[e.inOff[op[j]]+int(idx[j])]
		}
		row := values[r*d : r*d+d]
		if oR >= 0 {
			p := pre[n]
			out := base[oR : oR+d]
			if maxp {
				for x, phi := range row {
					out[x] = max(out[x], phi*p)
				}
			} else {
				for x, phi := range row {
					out[x] += phi * p
				}
			}
		}
		if inner {
			var dot float64
			if maxp {
				for x, phi := range row {
					dot = max(dot, phi*mR[x])
				}
			} else {
				for x, phi := range row {
					dot += phi * mR[x]
				}
			}
			if dot != 0 {
				sf := 1.0
				for j := n - 1; j >= 0; j-- {
					suf[j] = sf
					sf *= v2f[e.inOff[op[j]]+int(idx[j])]
				}
				for j, q := range op {
					if o := e.outOff[q]; o >= 0 {
						p := &base[o+int(idx[j])]
						val := pre[j] * suf[j] * dot
						if maxp {
							*p = max(*p, val)
						} else {
							*p += val
						}
					}
				}
			}
		}
		for from = n - 1; from >= 0; from-- {
			idx[from]++
			if idx[from] < dims[op[from]] {
				break
			}
			idx[from] = 0
		}
		if from < 0 {
			from = 0
		}
	}
}

// normalise scales m to sum 1.
func normalise(m []float64) bool {
	var s float64
	for _, v := range m {
		s += v
	}
	if !(s > 0) || math.IsInf(s, 1) {
		return false
	}
	for i := range m {
		m[i] /= s
	}
	return true
}

// settle damps the new message against the old, returns the largest change.
func (e *engine) settle(old, nw []float64) float64 {
	d := e.opt.Damping
	var ch float64
	for i := range nw {
		v := nw[i]
		if d > 0 {
			v = (1-d)*v + d*old[i]
			nw[i] = v
		}
		ch = max(ch, math.Abs(v-old[i]))
	}
	return ch
}

func (e *engine) flood() (float64, error) {
	c := e.c
	for X := 0; X < c.NumNodes(); X++ {
		if e.lin[X] {
			e.linTotals(X)
		} else {
			e.nodeTotals(X)
		}
	}
	for s := 0; s < c.NumEdges(); s++ {
		if err := e.seqVarMessage(int32(s), e.v2f[e.edgeOff[s]:e.edgeOff[s+1]]); err != nil {
			return 0, err
		}
	}
	for F := 0; F < c.NumFactors(); F++ {
		e.factorMessages(F, -1, e.next)
	}
	var change float64
	for s := 0; s < c.NumEdges(); s++ {
		nw := e.next[e.edgeOff[s]:e.edgeOff[s+1]]
		if !normalise(nw) {
			return 0, e.zeroMessage(int32(s))
		}
		change = max(change, e.settle(e.f2v[e.edgeOff[s]:e.edgeOff[s+1]], nw))
	}
	e.f2v, e.next = e.next, e.f2v
	e.messages += 2 * int64(c.NumEdges())
	return change, nil
}

func (e *engine) zeroMessage(s int32) error {
	F := e.c.EdgeFactor[s]
	return fmt.Errorf("%w: message from factor %d (clusterfactor %d) to variable %d", ErrNotNormalizable,
		e.c.FactorRep[F], F, e.c.Ground.Scope(int(e.c.FactorRep[F]))[e.c.EdgePos[s]])
}

// sequentialOrder lists the lifted edges in update order: clusterfactors in
// order and, within one, its slots by the index of the representative's
// variable. On a ground graph this is libDAI 0.3's SEQFIX order (factors in
// order, each factor's variables in label order).
func sequentialOrder(c *lift.Compressed) []int32 {
	order := make([]int32, 0, c.NumEdges())
	for F := 0; F < c.NumFactors(); F++ {
		first := len(order)
		for q, s := range c.Positions(F) {
			if int(c.EdgePos[s]) == q {
				order = append(order, s)
			}
		}
		scope := c.Ground.Scope(int(c.FactorRep[F]))
		slots := order[first:]
		slices.SortFunc(slots, func(a, b int32) int {
			return int(scope[c.EdgePos[a]]) - int(scope[c.EdgePos[b]])
		})
	}
	return order
}

func (e *engine) sweep() (float64, error) {
	c := e.c
	for X := 0; X < c.NumNodes(); X++ {
		if e.lin[X] {
			e.linTotals(X)
		} else {
			e.nodeTotals(X)
		}
	}
	if e.order == nil {
		e.order = sequentialOrder(c)
	}
	var change float64
	nw := make([]float64, 0, 16)
	prevF := -1
	for _, s := range e.order {
		F := int(c.EdgeFactor[s])
		if F != prevF || !e.simple[F] {
			// At a simple clusterfactor the messages into it are those of
			// the visit's start: the slots updated since are at other
			// nodes, and a node's message to F excludes F's own input.
			for q, t := range c.Positions(F) {
				if t == s && int(c.EdgePos[s]) == q && !e.simple[F] {
					continue // the message being computed excludes its own input
				}
				if err := e.seqVarMessage(t, e.v2f[e.edgeOff[t]:e.edgeOff[t+1]]); err != nil {
					return 0, err
				}
			}
		}
		lo, hi := e.edgeOff[s], e.edgeOff[s+1]
		nw = append(nw[:0], e.f2v[lo:hi]...) // the old message
		if e.simple[F] {
			// The inputs stay fixed during the visit, so one evaluation of
			// the table gives every slot's message (the same sums, in the
			// same order, as one evaluation per slot).
			if F != prevF {
				e.factorMessages(F, -1, e.next)
			}
			copy(e.f2v[lo:hi], e.next[lo:hi])
		} else {
			e.factorMessages(F, s, e.f2v)
		}
		prevF = F
		m := e.f2v[lo:hi]
		if !normalise(m) {
			copy(m, nw)
			return 0, e.zeroMessage(s)
		}
		change = max(change, e.settle(nw, m))
		e.updateTotals(s, nw, m)
		e.messages += int64(len(c.Positions(F)))
	}
	return change, nil
}

// updateTotals moves clusternode totals from message old to new on edge s.
func (e *engine) updateTotals(s int32, old, nw []float64) {
	c := e.c
	X := int(c.EdgeNode[s])
	if e.lin != nil && e.lin[X] {
		P := e.linP[e.nodeOff[X]:e.nodeOff[X+1]]
		Z := e.zeros[e.nodeOff[X]:e.nodeOff[X+1]]
		for x := range P {
			if old[x] > 0 {
				P[x] /= old[x]
			} else {
				Z[x]--
			}
			if nw[x] > 0 {
				P[x] *= nw[x]
			} else {
				Z[x]++
			}
		}
		e.linRescale(X, P)
		return
	}
	cnt := c.EdgeCount[s]
	fc := float64(cnt)
	T := e.logT[e.nodeOff[X]:e.nodeOff[X+1]]
	Z := e.zeros[e.nodeOff[X]:e.nodeOff[X+1]]
	for x := range T {
		if old[x] > 0 {
			T[x] -= fc * math.Log(old[x])
		} else {
			Z[x] -= cnt
		}
		if nw[x] > 0 {
			T[x] += fc * math.Log(nw[x])
		} else {
			Z[x] += cnt
		}
	}
}

// beliefs fills res.Belief from the final messages.
func (e *engine) beliefs(res *Result) error {
	c := e.c
	res.NodeOff = e.nodeOff
	res.Belief = make([]float64, e.nodeOff[c.NumNodes()])
	for X := 0; X < c.NumNodes(); X++ {
		e.nodeTotals(X)
		b := res.Belief[e.nodeOff[X]:e.nodeOff[X+1]]
		if ev := c.NodeEvidence[X]; ev >= 0 {
			b[ev] = 1
			continue
		}
		T := e.logT[e.nodeOff[X]:e.nodeOff[X+1]]
		Z := e.zeros[e.nodeOff[X]:e.nodeOff[X+1]]
		best := math.Inf(-1)
		for x := range b {
			if Z[x] == 0 {
				best = max(best, T[x])
			}
		}
		if math.IsInf(best, -1) {
			return fmt.Errorf("%w: belief of clusternode %d", ErrNotNormalizable, X)
		}
		for x := range b {
			if Z[x] == 0 {
				b[x] = math.Exp(T[x] - best)
			}
		}
		normalise(b)
	}
	return nil
}

// FactorBelief writes into dst (resized to the table's size) the belief of
// clusterfactor F at the final messages: b(x) ∝ φ(x) Π_q m_{q→F}(x_q) over
// the positions q of F's representative, entries indexed like its table
// (last position fastest), summing to 1. Every ground factor of F has
// this belief (over its own positions, in the same table order). It is
// BP's estimate of the joint distribution of the factor's variables: on a
// tree, the exact one. Sum-product results only (an error otherwise, and
// when the messages give the factor no mass).
func (r *Result) FactorBelief(F int, dst []float64) ([]float64, error) {
	if r.MaxProduct || r.V2F == nil {
		return dst, errors.New("bp: factor beliefs need a sum-product result")
	}
	c := r.Graph
	t := c.Table(F)
	pos := c.Positions(F)
	n := len(t.Values)
	dst = slices.Grow(dst[:0], n)[:n]
	idx := make([]int32, len(t.Dims))
	z := 0.0
	for k := range n {
		w := t.Values[k]
		for q := 0; q < len(pos) && w > 0; q++ {
			w *= r.V2F[r.EdgeOff[pos[q]]+int(idx[q])]
		}
		dst[k] = w
		z += w
		for q := len(idx) - 1; q >= 0; q-- {
			idx[q]++
			if idx[q] < t.Dims[q] {
				break
			}
			idx[q] = 0
		}
	}
	if !(z > 0) || math.IsInf(z, 1) {
		return dst, fmt.Errorf("%w: belief of clusterfactor %d", ErrNotNormalizable, F)
	}
	for k := range dst {
		dst[k] /= z
	}
	return dst, nil
}

// bethe returns the Bethe approximation of log Z at the final messages:
// Σ_F |F| Σ_x b_F(x)(log φ(x) − log b_F(x)) + Σ_X |X|(deg−1) Σ_x b_X log b_X.
func (e *engine) bethe(res *Result) float64 {
	c := e.c
	for s := 0; s < c.NumEdges(); s++ {
		// Totals are current after beliefs(); a failure here was reported there.
		_ = e.varMessage(int32(s), e.v2f[e.edgeOff[s]:e.edgeOff[s+1]])
	}
	var logZ float64
	for F := 0; F < c.NumFactors(); F++ {
		logZ += float64(c.FactorSize[F]) * e.factorTerm(F)
	}
	for X := 0; X < c.NumNodes(); X++ {
		var nb float64
		for _, p := range res.NodeBelief(X) {
			if p > 0 {
				nb += p * math.Log(p)
			}
		}
		logZ += float64(c.NodeSize[X]) * float64(c.Degree(X)-1) * nb
	}
	return logZ
}

// factorTerm is Σ_x b(x)(log φ(x) − log b(x)) for F's factor belief.
func (e *engine) factorTerm(F int) float64 {
	c := e.c
	t := c.Table(F)
	values, logScale := e.tableValues(t)
	pos := c.Positions(F)
	a := len(pos)
	idx := e.idx[:a]
	weight := func(k int) float64 {
		w := values[k]
		for q := 0; q < a; q++ {
			w *= e.v2f[e.edgeOff[pos[q]]+int(idx[q])]
		}
		return w
	}
	var z float64
	e.forEntries(t.Dims, func(k int) { z += weight(k) })
	if !(z > 0) {
		return 0
	}
	var term float64
	e.forEntries(t.Dims, func(k int) {
		w := weight(k)
		if w > 0 {
			b := w / z
			term += b * (math.Log(values[k]) - math.Log(b))
		}
	})
	return term + logScale
}

// forEntries calls fn for every table entry with e.idx holding its states.
func (e *engine) forEntries(dims []int32, fn func(k int)) {
	idx := e.idx[:len(dims)]
	clear(idx)
	n := 1
	for _, d := range dims {
		n *= int(d)
	}
	for k := 0; k < n; k++ {
		fn(k)
		for q := len(dims) - 1; q >= 0; q-- {
			idx[q]++
			if idx[q] < dims[q] {
				break
			}
			idx[q] = 0
		}
	}
}
