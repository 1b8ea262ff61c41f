package count

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/lifted-dev/lifted/cnf"
	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/infer"
	"github.com/lifted-dev/lifted/infer/bp"
	"github.com/lifted-dev/lifted/lift"
)

// BPCountOptions configure BPCount and LBPCount. Start from
// DefaultBPCountOptions; every field is used as given.
type BPCountOptions struct {
	// Lifted runs lifted BP (colour passing in CNF mode, then BP on the
	// compressed graph) at every step: LBPCount. Its marginals are the
	// ground BP marginals, so the choices are BPCount's (see LBPCount).
	Lifted bool
	// Graph is the factor graph BP runs on at each step: the residual
	// formula (ResidualGraph, the default) or the whole formula with the
	// assigned variables as evidence (EvidenceGraph). Both give the same
	// marginals in exact arithmetic (a satisfied clause sends uniform
	// messages, a false literal's evidence reduces its clause); the
	// residual graph is smaller and compresses better.
	Graph BPGraph
	// Damping, Tol and MaxIter configure BP (flooding schedule); see BPCount
	// for what a step does when BP does not converge.
	Damping float64
	Tol     float64
	MaxIter int
	// Schedule is BP's message schedule (bp.Flood, the paper's, or
	// bp.Sequential).
	Schedule bp.Schedule
	// Trials is the number t of independent estimates; Alpha the slack α.
	// The bound (see Bound) holds with confidence 1 − 2^(−α·t).
	Trials int
	Alpha  float64
	// Bound is the statistic that combines the t estimates into the bound:
	// BoundProduct (the default; geometric mean / 2^α, never below
	// BoundMin's) or BoundMin (min / 2^α, SampleCount's). See LowerBound.
	Bound BoundStatistic
	// Seed makes runs reproducible: trial i draws from PCG(Seed, i).
	Seed uint64
	// ResidualVars is the stopping rule: a trial stops fixing variables when
	// at most this many unassigned variables occur in clauses not yet
	// satisfied, and multiplies its estimate by the exact count of the
	// residual formula.
	ResidualVars int
	// MinProb keeps the probability of either value away from 0 and 1: the
	// BP marginal is clamped to [MinProb, 1−MinProb] (0 < MinProb ≤ ½;
	// ½ gives SampleCount's fair coin). It must be positive: a value drawn
	// with probability 0 would never be explored and the estimate would be
	// biased.
	MinProb float64
	// FrozenTol detects a frozen BP fixed point: when even the most
	// balanced open marginal is within FrozenTol of 0 or 1, every open
	// marginal is, and BP has settled on one assignment rather than
	// estimated the split of the models (Latin squares after a step or
	// two), so the value is drawn with probability ½ instead. 0 trusts
	// frozen marginals (clamped by MinProb). Either way the estimate is
	// unbiased; the coin only changes its spread.
	FrozenTol float64
	// SATBudget is the number of decisions of the satisfiability check of
	// each value before it is drawn (0: unit propagation only). A value
	// shown to have no model is not drawn; the other is taken with
	// probability 1.
	SATBudget int
	// SATConflicts is the budget, in conflicts, of the second, complete
	// stage of that check: when the SATBudget decisions do not decide a
	// value, its residual formula goes to the CDCL solver of the exact
	// counter (0: no second stage). Only a value that neither stage decides
	// can lead a trial into a branch without models (an estimate of 0,
	// which makes the bound 0).
	SATConflicts int64
	// ReuseForced skips the BP run after a forced step (a value shown to
	// have no model): fixing a variable that every model sets alike leaves
	// the uniform distribution over the models as it was, so the next
	// variable is chosen and drawn from the same marginals. Step.Reused
	// marks such steps (no BP messages).
	ReuseForced bool
	// Probe fixes, before every BP run, the open variables one of whose
	// values fails by unit propagation (failed literals), until none is
	// left: such a variable would be forced anyway once chosen (probability
	// 1, the estimate unchanged), but only after a BP run of its own, and
	// its marginal mislead BP about the others. Counted in Trial.Probed.
	Probe bool
	// ChoiceSlack (LBPCount only) widens the choice of the variable to fix:
	// among the open variables whose marginal is within ChoiceSlack of the
	// most balanced one, the one in the smallest clusternode is fixed (then
	// the most balanced, then the lowest index), so that fixing it breaks
	// as few symmetries of the lifted network as possible. 0 fixes the most
	// balanced variable, as BPCount does, and makes LBPCount's choices
	// BPCount's. Any choice keeps the estimate unbiased.
	ChoiceSlack float64
	// AverageLast is BP's bp.Options.AverageLast: a step whose last BP run
	// ends unconverged after MaxIter iterations takes its marginals from
	// the mean of that run's messages over its last AverageLast iterations
	// (0: from its last iteration). Most runs on 2bitmax_6 end in limit
	// cycles, where one iteration's marginals are one point of the cycle.
	AverageLast int
	// ChoiceReachPerSize (LBPCount, with ChoiceSlack > 0; it overrides
	// ChoiceReach) fixes, among the open variables within ChoiceSlack of the
	// most balanced, the one of largest reach / size^1.5 (reach: the
	// variables its two values, each propagated, fix in all; size: its
	// clusternode's; then the most balanced, then the lowest index): a
	// variable that ends the trial sooner, weighed against the symmetry its
	// clamp breaks. Any choice keeps the estimate unbiased.
	ChoiceReachPerSize bool
	// ChoiceReach (LBPCount, with ChoiceSlack > 0) breaks the ties of the
	// lifting-aware choice among the variables of the smallest clusternode
	// by unit propagation: the one whose two values, each propagated, fix
	// the most variables in all is taken (then the most balanced, then the
	// lowest index), so that the trial reaches the residual formula in fewer
	// steps. Any choice keeps the estimate unbiased.
	ChoiceReach bool
	// Recolour (LBPCount) selects how each step's graph is coloured:
	// incrementally from the previous step's colouring, exactly as colour
	// passing would (the default), from scratch, or incrementally without
	// merging (residual graph only; a stable colouring that may be finer).
	Recolour Recolouring
	// Exact configures the exact counter of the residual formulas.
	Exact Options
	// Workers is the number of trials run at once (at least 1). The results
	// do not depend on it; Seconds is then wall-clock time.
	Workers int
	// Progress, if set, is called after every step, from one goroutine at a
	// time.
	Progress func(BPCountProgress)
}

// DefaultBPCountOptions returns the settings of the lifted BP paper's
// experiments (tolerance 1e-8) with damping 0.75 (DefaultDamping), 5 trials
// and α = 1 (confidence 0.96875), the product statistic.
func DefaultBPCountOptions() BPCountOptions {
	return BPCountOptions{
		Damping:      DefaultDamping,
		Tol:          1e-8,
		MaxIter:      1000,
		Trials:       5,
		Alpha:        1,
		ResidualVars: DefaultResidualVars,
		MinProb:      DefaultMinProb,
		FrozenTol:    DefaultFrozenTol,
		SATBudget:    DefaultSATBudget,
		SATConflicts: DefaultSATConflicts,
		ChoiceSlack:  DefaultChoiceSlack,
		ReuseForced:  true,
		Probe:        true,
		Workers:      1,

		AverageLast:        DefaultAverageLast,
		ChoiceReachPerSize: true,
	}
}

// Recolouring selects how LBPCount colours the graph of each step.
type Recolouring int

const (
	// RecolourIncremental recolours from the previous step's colouring,
	// re-signing only what the clamp touched (lift.Recolourer: Shrink on
	// the residual graph, Update on the evidence graph), then merges
	// classes on the quotient: the colouring is exactly colour passing's.
	RecolourIncremental Recolouring = iota
	// RecolourScratch runs colour passing from scratch at every step.
	RecolourScratch
	// RecolourRefine is RecolourIncremental on the residual graph without
	// the merging: a stable colouring (lifted BP is still exact) that can
	// be finer than colour passing's, since a clamp can make nodes alike
	// that were told apart. On the evidence graph it is RecolourIncremental.
	RecolourRefine
)

// String returns "incremental", "scratch" or "refine".
func (m Recolouring) String() string {
	switch m {
	case RecolourScratch:
		return "scratch"
	case RecolourRefine:
		return "refine"
	}
	return "incremental"
}

// BPGraph selects the factor graph of BPCount's BP runs.
type BPGraph int

const (
	// ResidualGraph is the graph of the formula simplified by the
	// assignment: clauses not yet satisfied, without their false literals,
	// over the unassigned variables (rebuilt at every step).
	ResidualGraph BPGraph = iota
	// EvidenceGraph is the graph of the whole formula, with the assigned
	// variables as evidence.
	EvidenceGraph
)

// String returns "residual" or "evidence".
func (b BPGraph) String() string {
	if b == EvidenceGraph {
		return "evidence"
	}
	return "residual"
}

// DefaultDamping is the default BP damping of BPCount and LBPCount. The
// lifted BP paper ran them at 0.5; on 2bitmax_6 most steps' BP runs then do
// not converge (limit cycles; the retries at higher damping come only after
// a stall), and the marginals of such runs misjudge how the models split.
// At 0.75 the mean log10 error of LBPCount's trials over seeds 1–10 (50
// trials) is −0.42 instead of −0.65, and the bound is at least 10^28.33 on
// every seed instead of 10^28.03; 0.875 was worse again on the seeds tried
// (experiments/lbpcount/RESULTS.md).
const DefaultDamping = 0.75

// DefaultResidualVars is the default stopping rule of BPCount: count
// exactly once at most this many variables are left in open clauses.
const DefaultResidualVars = 50

// DefaultSATBudget is the default decision budget of the satisfiability
// check of each value. The DPLL stage, guided by the newest remembered
// model, mostly repairs that model in a few decisions; a check it does not
// decide goes to the CDCL stage, which decides a value without models far
// faster than DPLL without clause learning (on 2bitmax_6 a budget of 10,000
// spent 12% of LBPCount's CPU exhausting it on such values before the CDCL
// stage decided them; experiments/lbpcount/RESULTS.md).
const DefaultSATBudget = 30

// DefaultChoiceSlack is the default of BPCountOptions.ChoiceSlack (LBPCount
// only; with ChoiceReachPerSize): see experiments/lbpcount/RESULTS.md for
// the measurement behind it.
const DefaultChoiceSlack = 0.1

// DefaultAverageLast is the default of BPCountOptions.AverageLast (BPCount
// and LBPCount): the mean over the last 300 of the final attempt's 1000
// iterations. On 2bitmax_6 it lowered the spread of LBPCount's trials'
// log10 errors from 0.70 to 0.48 over seeds 1–10 (experiments/lbpcount/RESULTS.md).
const DefaultAverageLast = 300

// choiceSizeExponent weighs the clusternode size against the reach in
// ChoiceReachPerSize.
const choiceSizeExponent = 1.5

// DefaultSATConflicts is the default conflict budget of the CDCL stage of
// the satisfiability check. On 2bitmax_6 it decides every check it gets
// (experiments/lbpcount/RESULTS.md); the bound only protects against
// formulas too hard to decide.
const DefaultSATConflicts = 1_000_000

// DefaultMinProb is the default clamp of BP marginals when drawing a value:
// the drawn value's probability is at least ¼, its multiplier at most 4.
// BP on structured formulas often converges to a "frozen" fixed point with
// every open marginal 0 or 1 (Latin squares after a few steps); a tighter
// clamp then pays 1/0.9 for choices that really split the models evenly or
// worse, and the estimates fall far below the count (ls7-norm, 8 trials:
// median log10 estimate 4.0 with 0.1, 5.7 with 0.25, true 7.23), while on
// formulas where BP is informative the most balanced marginal lies well
// inside [¼, ¾] and the clamp does not act.
const DefaultMinProb = 0.25

// maxDampingRetries is how often a step raises the damping d to (1+d)/2
// after BP failed to converge or became not normalizable.
const maxDampingRetries = 2

// DefaultFrozenTol is the default of BPCountOptions.FrozenTol. On
// ls7-norm (24 trials, seed 7, lifted) trusting frozen marginals gives
// estimates with log10 minimum 3.55, lower quartile 4.65 and median 5.35;
// a fair coin at frozen steps 4.62, 5.89 and 6.25 (true 7.23). Formulas on
// which BP is informative (2bitmax_6, wff) never reach a frozen step.
const DefaultFrozenTol = 1e-6

// TieTolerance is how close two variables' distances from ½ must be to count
// as equally balanced; ties go to the lower variable index. Lifted and
// ground BP marginals differ by rounding only, far below it, so BPCount and
// LBPCount with the same seed choose the same variables.
const TieTolerance = 1e-9

// BPCountProgress reports one finished step.
type BPCountProgress struct {
	Trial, Step int
	Open        int  // variables in open clauses before the step
	Last        Step // the step just finished
}

// Step records one BP run and the variable it fixed.
type Step struct {
	Var      int     // 0-based variable fixed (DIMACS variable Var+1)
	Value    bool    // its value
	Marginal float64 // BP marginal P(true) (0.5 when BP was replaced by uniform marginals)
	Balance  float64 // |P(true) − ½| of the most balanced open variable of this step
	Prob     float64 // probability with which Value was drawn (1 when Forced)
	Forced   bool    // the other value was shown to have no model
	Frozen   bool    // BP was frozen: the value was drawn with probability ½
	Reused   bool    // no BP run: the marginals of the step before (forced) were used (ReuseForced)
	Open     int     // variables in open clauses before the step

	Damping    float64 // damping of the BP run whose marginals were used
	Attempts   int     // BP runs: 1, or more when damping was raised
	Uniform    bool    // no BP attempt was normalizable: uniform marginals
	Iterations int     // BP iterations, all attempts
	Converged  bool    // the marginals used come from a converged run

	EdgesGround    int   // edges of the ground factor graph BP ran on (residual or whole formula, see Graph)
	EdgesLifted    int   // lifted edges of the compressed graph (= EdgesGround for BPCount)
	Clusternodes   int   // clusternodes (= variables for BPCount)
	VarNodeSize    int   // variables in the clusternode of Var (1 for BPCount)
	MessagesGround int64 // messages ground BP sends in these iterations (2 × EdgesGround per iteration)
	MessagesLifted int64 // messages sent on the compressed graph (= MessagesGround for BPCount)
	ColourSeconds  float64
	Seconds        float64
}

// Trial is one run of the estimator.
type Trial struct {
	// EstimateLog10 is log10 of the estimate; -Inf when it is 0 (the
	// formula left after the random choices has no model).
	EstimateLog10 float64
	Steps         []Step
	ResidualVars  int     // variables of the residual formula counted exactly
	ResidualLog10 float64 // log10 of its count (-Inf for 0)
	Seconds       float64
	ExactSeconds  float64
	// SATComplete counts the values whose satisfiability check needed the
	// CDCL stage, SATUndecided those it could not decide either.
	SATComplete, SATUndecided int
	// Probed counts the variables fixed by failed-literal probing
	// (BPCountOptions.Probe), without a BP run.
	Probed int
}

// BPCountResult is the outcome of BPCount.
type BPCountResult struct {
	Method string // "bpcount" or "lbpcount"
	// LowerBoundLog10 is log10 of the bound (LowerBound of the trials'
	// estimates with the options' statistic); -Inf when it is 0.
	LowerBoundLog10 float64
	Bound           BoundStatistic
	Confidence      float64 // 1 − 2^(−α·t)
	Alpha           float64
	Trials          []Trial
	// Totals over all steps of all trials.
	Steps          int
	EdgesGround    int64
	EdgesLifted    int64
	MessagesGround int64
	MessagesLifted int64
	Seconds        float64
}

// LBPCount is BPCount with lifted BP: before every BP run the factor graph
// (see BPCountOptions.Graph) is compressed by colour passing in CNF mode
// (lift.CNF: clause positions told apart only by literal sign), and BP runs
// on the compressed graph. The colouring is kept from step to step and
// recoloured incrementally (see BPCountOptions.Recolour). Lifted BP
// computes the ground BP messages; it reports, per step, the lifted and
// ground edges and messages (Step). By default (DefaultChoiceSlack,
// ChoiceReachPerSize) it fixes, among the nearly most balanced variables,
// the one of largest reach / clusternode size^1.5, which ends the trial
// sooner while keeping symmetry for the later steps; with ChoiceSlack 0 and
// the same seed it makes BPCount's choices.
//
// The equality holds in exact arithmetic. Where BP's trajectory through the
// symmetric messages is unstable, the rounding differences between
// mathematically equal ground messages (summed in different orders) grow
// geometrically, ground BP leaves the symmetric trajectory and lifted BP
// (one message per clusternode and slot) cannot; that step's BP runs then
// differ and so may the later choices. Both runs are valid estimators.
func LBPCount(ctx context.Context, c *cnf.CNF, opt BPCountOptions) (*BPCountResult, error) {
	opt.Lifted = true
	return BPCount(ctx, c, opt)
}

// BPCount computes a probabilistic lower bound on the number of models of c
// (Kroc, Sabharwal & Selman, "Leveraging Belief Propagation, Backtrack
// Search, and Statistics for Model Counting", CPAIOR 2008), within the
// SampleCount framework (Gomes, Hoffmann, Sabharwal & Selman, IJCAI 2007).
//
// A trial starts from c with its unit clauses propagated. While more than
// opt.ResidualVars unassigned variables occur in clauses not yet satisfied
// (the open variables), it runs damped BP on the residual formula (or, with
// EvidenceGraph, on c with the assigned variables as evidence), takes the
// open variable whose marginal is closest to ½ (ties within TieTolerance to
// the lowest index), and draws its value: true with probability
// q = clamp(P_BP(true), MinProb, 1−MinProb). If one value is shown to have
// no model (unit propagation, then a DPLL search of at most SATBudget
// decisions, then a CDCL search of at most SATConflicts conflicts), the
// other is taken with probability 1. The estimate is
// multiplied by 1/(probability of the drawn value), the value is fixed and
// unit propagation run. At the end the estimate is multiplied by the exact
// count of the residual formula. By default (Probe) failed literals are
// fixed before every BP run, and after a forced value the next variable is
// chosen from the same marginals without a new BP run (ReuseForced): both
// fix only values that carry every model, so the estimate is unchanged.
//
// Whatever the marginals, the estimate X is unbiased: E[X] = #F, because
// each branch's count is weighted by the inverse of the probability of
// taking it (branches of probability 0 have no model). By Markov's
// inequality applied to the product of t independent estimates (whose
// expectation is #F^t), their geometric mean divided by 2^α exceeds #F with
// probability at most 2^(−α·t); see LowerBound.
//
// BP on 0/1 clause tables is delicate: at damping 0.5 (0.75 less so) it often ends in a
// limit cycle (2bitmax_6, ls8) or messages underflow to all-zero
// (bp.ErrNotNormalizable). A step whose BP run does not converge within
// MaxIter iterations, stalls (no progress in 100 iterations, see
// stallDetector) or is not normalizable reruns BP with damping raised to
// (1+d)/2, at most twice (0.75 → 0.875 → 0.9375 by default); the last run is not cut
// short. If it does not converge its marginals are used as they are, from
// the mean of its messages over its last AverageLast iterations; if no
// run was normalizable every open variable gets marginal ½. Either way the
// estimate stays unbiased, since that holds for any marginals.
//
// All estimates are kept in log space. Results are deterministic given
// opt.Seed.
func BPCount(ctx context.Context, c *cnf.CNF, opt BPCountOptions) (*BPCountResult, error) {
	if err := checkBPCountOptions(&opt); err != nil {
		return nil, err
	}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	start := time.Now()
	r, err := newBPCounter(c, opt)
	if err != nil {
		return nil, err
	}
	res := &BPCountResult{Method: "bpcount", Alpha: opt.Alpha, Bound: opt.Bound}
	if opt.Lifted {
		res.Method = "lbpcount"
	}
	res.Confidence = 1 - math.Exp2(-opt.Alpha*float64(opt.Trials))
	trials, err := r.trials(ctx)
	if err != nil {
		return nil, err
	}
	res.Trials = trials
	est := make([]float64, len(trials))
	for i, tr := range trials {
		est[i] = tr.EstimateLog10
		for _, s := range tr.Steps {
			res.Steps++
			res.EdgesGround += int64(s.EdgesGround)
			res.EdgesLifted += int64(s.EdgesLifted)
			res.MessagesGround += s.MessagesGround
			res.MessagesLifted += s.MessagesLifted
		}
	}
	res.LowerBoundLog10 = LowerBound(est, opt.Alpha, opt.Bound)
	res.Seconds = time.Since(start).Seconds()
	return res, nil
}

func checkBPCountOptions(o *BPCountOptions) error {
	switch {
	case !(o.Damping >= 0 && o.Damping < 1):
		return fmt.Errorf("count: damping must be in [0, 1), got %v", o.Damping)
	case !(o.Tol >= 0):
		return fmt.Errorf("count: tolerance must be non-negative, got %v", o.Tol)
	case o.MaxIter < 1:
		return fmt.Errorf("count: MaxIter must be positive, got %d", o.MaxIter)
	case o.Trials < 1:
		return fmt.Errorf("count: Trials must be positive, got %d", o.Trials)
	case !(o.Alpha > 0) || math.IsInf(o.Alpha, 1):
		return fmt.Errorf("count: alpha must be positive, got %v", o.Alpha)
	case o.ResidualVars < 0:
		return fmt.Errorf("count: ResidualVars must be non-negative, got %d", o.ResidualVars)
	case !(o.MinProb > 0 && o.MinProb <= 0.5):
		return fmt.Errorf("count: MinProb must be in (0, 0.5], got %v", o.MinProb)
	case !(o.FrozenTol >= 0 && o.FrozenTol < 0.5):
		return fmt.Errorf("count: FrozenTol must be in [0, 0.5), got %v", o.FrozenTol)
	case !(o.ChoiceSlack >= 0 && o.ChoiceSlack <= 0.5):
		return fmt.Errorf("count: ChoiceSlack must be in [0, 0.5], got %v", o.ChoiceSlack)
	case o.SATBudget < 0:
		return fmt.Errorf("count: SATBudget must be non-negative, got %d", o.SATBudget)
	case o.Recolour < RecolourIncremental || o.Recolour > RecolourRefine:
		return fmt.Errorf("count: unknown Recolour %d", o.Recolour)
	case o.SATConflicts < 0:
		return fmt.Errorf("count: SATConflicts must be non-negative, got %d", o.SATConflicts)
	case o.Bound < BoundProduct || o.Bound > BoundMin:
		return fmt.Errorf("count: unknown Bound %d", o.Bound)
	case o.Schedule != bp.Flood && o.Schedule != bp.Sequential:
		return fmt.Errorf("count: BP schedule must be flood or sequential, got %v", o.Schedule)
	}
	return nil
}

// trials runs the trials, opt.Workers at a time. Trial i draws from
// PCG(Seed, i) whatever the order, so the results do not depend on Workers.
func (r *bpCounter) trials(ctx context.Context) ([]Trial, error) {
	n := r.opt.Trials
	out := make([]Trial, n)
	errs := make([]error, n)
	parent := ctx
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(max(r.opt.Workers, 1), n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				rng := rand.New(rand.NewPCG(r.opt.Seed, uint64(i)))
				tr, err := r.trial(ctx, i, func(q float64) bool { return rng.Float64() < q })
				if err != nil {
					errs[i] = err
					cancel()
					continue
				}
				out[i] = *tr
			}
		}()
	}
	for i := range n {
		if ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	if err := parent.Err(); err != nil {
		return nil, err
	}
	for _, err := range errs {
		if err != nil && !errors.Is(err, context.Canceled) {
			return nil, err
		}
	}
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// bpCounter holds what the trials share: the formula and its factor graph.
type bpCounter struct {
	cnf   *cnf.CNF
	opt   BPCountOptions
	graph *fg.Graph  // nil when the formula has an empty clause
	mu    sync.Mutex // serialises Progress
}

func newBPCounter(c *cnf.CNF, opt BPCountOptions) (*bpCounter, error) {
	r := &bpCounter{cnf: c, opt: opt}
	g, err := cnf.ToGraph(c)
	if err != nil && !errors.Is(err, cnf.ErrUnsatisfiable) {
		return nil, err
	}
	r.graph = g
	return r, nil
}

// trial runs one estimate; coin(q) returns true with probability q.
func (r *bpCounter) trial(ctx context.Context, idx int, coin func(q float64) bool) (*Trial, error) {
	start := time.Now()
	tr := &Trial{EstimateLog10: math.Inf(-1), ResidualLog10: math.Inf(-1)}
	s := newUnitState(r.cnf)
	if !s.initial() || r.graph == nil {
		tr.Seconds = time.Since(start).Seconds()
		return tr, nil // no model
	}
	open := make([]bool, s.nv)
	ev := make(fg.Evidence, s.nv)
	sc := &satChecker{ctx: ctx, budget: r.opt.SATBudget, conflicts: r.opt.SATConflicts}
	defer func() { tr.SATComplete, tr.SATUndecided = sc.cdclRuns, sc.cdclUnknown }()
	var cs colourState // LBPCount: the colouring kept from step to step
	var p1 []float64   // the last BP marginals (P(true) per variable)
	var nodeSize func(v int) int
	reuse := false // the last step was forced: reuse p1 (ReuseForced)
	logEst := 0.0  // natural log of the product of inverse probabilities
	for {
		n := s.free(open)
		if n <= r.opt.ResidualVars || n == 0 {
			break
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if r.opt.Probe {
			fixed, ok := probe(s, open)
			tr.Probed += fixed
			if !ok {
				tr.Seconds = time.Since(start).Seconds()
				return tr, nil // both values of a variable fail: no model
			}
			if fixed > 0 {
				continue // recount the open variables
			}
		}
		var st Step
		if reuse {
			// The last step was forced: every model already had that value,
			// so the distribution BP approximates is unchanged and its
			// marginals are reused (any marginals keep the estimate
			// unbiased).
			st.Reused = true
		} else {
			var err error
			st, p1, nodeSize, err = r.marginals(ctx, s, ev, &cs)
			if err != nil {
				return nil, err
			}
		}
		reuse = false
		st.Open = n
		v := mostBalanced(p1, open)
		if r.opt.Lifted && r.opt.ChoiceSlack > 0 {
			var reach func(v int) int
			if r.opt.ChoiceReach {
				reach = func(v int) int { return propagated(s, int32(v)) }
			}
			v = leastSymmetric(p1, open, nodeSize, r.opt.ChoiceSlack, reach)
			if r.opt.ChoiceReachPerSize {
				v = reachPerSize(p1, open, nodeSize, r.opt.ChoiceSlack, func(v int) int { return propagated(s, int32(v)) })
			}
		}
		st.Var, st.Marginal, st.VarNodeSize = v, p1[v], nodeSize(v)
		st.Balance = math.Abs(p1[mostBalanced(p1, open)] - 0.5)
		// A value without models is never drawn.
		okT := sc.check(s, int32(v), 1) != satNo
		okF := sc.check(s, int32(v), 0) != satNo
		switch {
		case !okT && !okF:
			tr.Steps = append(tr.Steps, st)
			tr.Seconds = time.Since(start).Seconds()
			return tr, nil // the residual formula has no model: estimate 0
		case !okT || !okF:
			st.Value, st.Prob, st.Forced = okT, 1, true
			reuse = r.opt.ReuseForced
		default:
			q := min(max(p1[v], r.opt.MinProb), 1-r.opt.MinProb)
			if math.Abs(p1[v]-0.5) >= 0.5-r.opt.FrozenTol {
				q, st.Frozen = 0.5, true
			}
			st.Value = coin(q)
			if st.Value {
				st.Prob = q
			} else {
				st.Prob = 1 - q
			}
		}
		logEst -= math.Log(st.Prob)
		x := int8(0)
		if st.Value {
			x = 1
		}
		s.set(int32(v), x) // cannot conflict: tested above
		tr.Steps = append(tr.Steps, st)
		if r.opt.Progress != nil {
			r.mu.Lock()
			r.opt.Progress(BPCountProgress{Trial: idx, Step: len(tr.Steps), Open: n, Last: st})
			r.mu.Unlock()
		}
	}
	res, _, _ := s.residual()
	tr.ResidualVars = res.NumVars
	t0 := time.Now()
	cnt, _, err := ExactWithOptions(ctx, res, r.opt.Exact)
	tr.ExactSeconds = time.Since(t0).Seconds()
	if err != nil {
		return nil, fmt.Errorf("count: exact count of the residual formula (%d variables, %d clauses): %w", res.NumVars, len(res.Clauses), err)
	}
	tr.ResidualLog10 = Log10(cnt)
	if cnt.Sign() > 0 {
		tr.EstimateLog10 = logEst/math.Ln10 + tr.ResidualLog10
	}
	tr.Seconds = time.Since(start).Seconds()
	return tr, nil
}

// probe tries both values of every open variable by unit propagation and
// fixes those with a failing value to the other (one pass). It returns how
// many it fixed, and false when some variable fails both ways (the formula
// under the assignment has no model).
func probe(s *unitState, open []bool) (int, bool) {
	fixed := 0
	for v, ok := range open {
		if !ok || s.val[v] >= 0 {
			continue
		}
		m := s.mark()
		okT := s.set(int32(v), 1)
		s.undo(m)
		okF := s.set(int32(v), 0)
		s.undo(m)
		switch {
		case !okT && !okF:
			return fixed, false
		case okT != okF:
			x := int8(0)
			if okT {
				x = 1
			}
			if !s.set(int32(v), x) {
				return fixed, false // unreachable: that value propagated without conflict
			}
			fixed++
		}
	}
	return fixed, true
}

// leastSymmetric returns, among the open variables whose marginal is within
// slack of the most balanced one, one whose clusternode is smallest (then,
// when reach is given, the one of largest reach; then the most balanced,
// then the lowest index): fixing it breaks the fewest symmetries of the
// lifted network.
func leastSymmetric(p1 []float64, open []bool, nodeSize func(v int) int, slack float64, reach func(v int) int) int {
	best := math.Inf(1)
	for v, ok := range open {
		if ok {
			best = math.Min(best, math.Abs(p1[v]-0.5))
		}
	}
	pick, pickSize, pickReach, pickDist := -1, 0, 0, 0.0
	for v, ok := range open {
		if !ok {
			continue
		}
		d := math.Abs(p1[v] - 0.5)
		if d > best+slack {
			continue
		}
		n := nodeSize(v)
		if pick >= 0 && n > pickSize {
			continue
		}
		m := 0
		if reach != nil {
			m = reach(v)
		}
		if pick < 0 || n < pickSize || m > pickReach || (m == pickReach && d < pickDist-TieTolerance) {
			pick, pickSize, pickReach, pickDist = v, n, m, d
		}
	}
	return pick
}

// reachPerSize returns, among the open variables whose marginal is within
// slack of the most balanced one, the one of largest reach(v) /
// nodeSize(v)^choiceSizeExponent (then the most balanced, then the lowest
// index).
func reachPerSize(p1 []float64, open []bool, nodeSize func(v int) int, slack float64, reach func(v int) int) int {
	best := math.Inf(1)
	for v, ok := range open {
		if ok {
			best = math.Min(best, math.Abs(p1[v]-0.5))
		}
	}
	pick, pickScore, pickDist := -1, 0.0, 0.0
	for v, ok := range open {
		if !ok {
			continue
		}
		d := math.Abs(p1[v] - 0.5)
		if d > best+slack {
			continue
		}
		sc := float64(reach(v)) / math.Pow(float64(max(nodeSize(v), 1)), choiceSizeExponent)
		if pick < 0 || sc > pickScore || (sc == pickScore && d < pickDist-TieTolerance) {
			pick, pickScore, pickDist = v, sc, d
		}
	}
	return pick
}

// propagated returns how many variables unit propagation assigns when v is
// set to true, plus when it is set to false (v itself included each time);
// s is left as it was.
func propagated(s *unitState, v int32) int {
	n := 0
	for x := range int8(2) {
		m := s.mark()
		s.set(v, x)
		n += len(s.trail) - m
		s.undo(m)
	}
	return n
}

// mostBalanced returns the open variable whose marginal is closest to ½:
// the lowest index among those within TieTolerance of the closest.
func mostBalanced(p1 []float64, open []bool) int {
	best := math.Inf(1)
	for v, ok := range open {
		if ok {
			best = math.Min(best, math.Abs(p1[v]-0.5))
		}
	}
	for v, ok := range open {
		if ok && math.Abs(p1[v]-0.5) <= best+TieTolerance {
			return v
		}
	}
	return -1 // unreachable: some variable is open
}

// marginals runs (lifted) BP on the formula under the assignment of s and
// returns the statistics of the step, P(true) per variable (½ for
// assigned variables and those in no open clause) and the size of each
// variable's clusternode. LBPCount keeps the colouring in cs (created at
// the first step) and, unless opt.Recolour is RecolourScratch, recolours
// only what the newly assigned variables touch.
func (r *bpCounter) marginals(ctx context.Context, s *unitState, ev fg.Evidence, cs *colourState) (Step, []float64, func(v int) int, error) {
	t0 := time.Now()
	g := r.graph
	var id, from []int32 // residual graph: variable v is id[v]-1 there, its clause k is s.clauses[from[k]]
	if r.opt.Graph == ResidualGraph {
		var res *cnf.CNF
		res, id, from = s.residual()
		var err error
		if g, err = cnf.ToGraph(res); err != nil {
			return Step{}, nil, nil, err
		}
		ev = nil
	} else {
		s.evidence(ev)
	}
	st := Step{EdgesGround: g.NumEdges()}
	var c *lift.Compressed
	var err error
	switch {
	case r.opt.Lifted && r.opt.Recolour != RecolourScratch && r.opt.Graph == EvidenceGraph:
		c, st.ColourSeconds, err = cs.update(ctx, g, ev)
	case r.opt.Lifted && r.opt.Recolour != RecolourScratch:
		c, st.ColourSeconds, err = cs.shrink(ctx, g, id, from, len(s.clauses), r.opt.Recolour == RecolourIncremental)
	default:
		var cst infer.Stats
		c, cst, err = infer.Compress(ctx, g, ev, r.opt.Lifted, lift.Options{Mode: lift.CNF})
		st.ColourSeconds = cst.ColorSeconds
	}
	if err != nil {
		return st, nil, nil, err
	}
	st.EdgesLifted, st.Clusternodes = c.NumEdges(), c.NumNodes()
	nodeSize := func(v int) int {
		switch {
		case id == nil:
			return int(c.NodeSize[c.NodeOf[v]])
		case id[v] > 0:
			return int(c.NodeSize[c.NodeOf[id[v]-1]])
		}
		return 0
	}
	d := r.opt.Damping
	p1 := make([]float64, s.nv)
	var last *infer.Answer
	for attempt := 0; ; attempt++ {
		final := attempt == maxDampingRetries
		sub, cancel := context.WithCancelCause(ctx)
		var sd stallDetector
		var alg infer.Algorithm = bp.New(bp.Options{Damping: d, Tol: r.opt.Tol, MaxIter: r.opt.MaxIter, Schedule: r.opt.Schedule, AverageLast: r.opt.AverageLast})
		res, err := alg.Run(sub, c, infer.Query{Task: infer.Marginals, Progress: func(p infer.Progress) {
			if sd.add(p.MaxChange) && !final {
				cancel(errStalled)
			}
		}})
		stalled := context.Cause(sub) == errStalled
		cancel(nil)
		st.Iterations += sd.iters
		st.MessagesGround += 2 * int64(sd.iters) * int64(g.NumEdges())
		st.MessagesLifted += 2 * int64(sd.iters) * int64(c.NumEdges())
		st.Attempts++
		switch {
		case err == nil:
			last = res
			st.Damping = d
		case stalled:
		case !errors.Is(err, bp.ErrNotNormalizable):
			return st, nil, nil, err
		}
		if (err == nil && res.Converged) || final {
			break
		}
		d = (1 + d) / 2
	}
	for v := range p1 {
		p1[v] = 0.5
	}
	if last == nil {
		st.Uniform = true
	} else {
		st.Converged = last.Converged
		for v := range p1 {
			switch {
			case id == nil:
				p1[v] = last.Marginal(v)[1]
			case id[v] > 0:
				p1[v] = last.Marginal(int(id[v] - 1))[1]
			}
		}
	}
	if testMarginals != nil {
		testMarginals(p1)
	}
	st.Seconds = time.Since(t0).Seconds()
	return st, p1, nodeSize, nil
}

// testMarginals, when set (tests only), replaces BP's marginals: the
// estimator is unbiased for any marginals, and marginals that are wrong on
// purpose make the checks reject values and force steps.
var testMarginals func(p1 []float64)

// colourState is the colouring LBPCount keeps from step to step: the
// Recolourer and, on the residual graph, where each variable and clause of
// the formula is in the graph last coloured.
type colourState struct {
	rc       *lift.Recolourer
	varAt    []int32 // per variable: its variable in the last residual graph, -1 none
	clauseAt []int32 // per clause of the unitState: its factor there, -1 none
}

// update returns the counted graph of g under evidence ev (the evidence
// graph), colouring from scratch at the first call and incrementally
// (lift.Recolourer.Update) after.
func (cs *colourState) update(ctx context.Context, g *fg.Graph, ev fg.Evidence) (*lift.Compressed, float64, error) {
	t0 := time.Now()
	if cs.rc == nil {
		var err error
		if cs.rc, err = lift.NewRecolourer(ctx, g, ev, lift.Options{Mode: lift.CNF}); err != nil {
			return nil, 0, err
		}
	} else if _, err := cs.rc.Update(ctx, ev, nil); err != nil {
		return nil, 0, err
	}
	c, err := cs.rc.Compress()
	return c, time.Since(t0).Seconds(), err
}

// shrink returns the counted graph of the residual graph g (variable v of
// the formula is id[v]-1 there, factor k is clause from[k] of the
// unitState's nc clauses), colouring from scratch at the first call and
// after that from the previous step's colouring (lift.Recolourer.Shrink):
// the residual graph only loses nodes and edges from step to step. With
// merge the colouring is exactly colour passing's on g; without, a stable
// colouring that may be finer.
func (cs *colourState) shrink(ctx context.Context, g *fg.Graph, id, from []int32, nc int, merge bool) (*lift.Compressed, float64, error) {
	t0 := time.Now()
	opt := lift.Options{Mode: lift.CNF}
	if cs.rc == nil {
		var err error
		if cs.rc, err = lift.NewRecolourer(ctx, g, nil, opt); err != nil {
			return nil, 0, err
		}
		cs.varAt, cs.clauseAt = make([]int32, len(id)), make([]int32, nc)
	} else {
		varFrom := make([]int32, g.NumVars())
		for v, i := range id {
			if i > 0 {
				varFrom[i-1] = cs.varAt[v]
			}
		}
		factorFrom := make([]int32, len(from))
		for k, ci := range from {
			factorFrom[k] = cs.clauseAt[ci]
		}
		if _, err := cs.rc.Shrink(ctx, g, nil, opt, varFrom, factorFrom, merge); err != nil {
			return nil, 0, err
		}
	}
	for v, i := range id {
		cs.varAt[v] = i - 1
	}
	for ci := range cs.clauseAt {
		cs.clauseAt[ci] = -1
	}
	for k, ci := range from {
		cs.clauseAt[ci] = int32(k)
	}
	c, err := cs.rc.Compress()
	return c, time.Since(t0).Seconds(), err
}

// Log10 returns log10 of a non-negative big integer (-Inf for 0), accurate
// to float64 precision however large the number.
func Log10(n *big.Int) float64 {
	if n.Sign() <= 0 {
		return math.Inf(-1)
	}
	shift := max(n.BitLen()-64, 0)
	top := new(big.Int).Rsh(n, uint(shift))
	f, _ := new(big.Float).SetInt(top).Float64()
	return math.Log10(f) + float64(shift)*math.Log10(2)
}

// errStalled cancels a BP attempt that makes no progress.
var errStalled = errors.New("count: BP stalled")

// stallWindow is the number of BP iterations over which progress is judged.
const stallWindow = 100

// stallDetector watches the largest message change per iteration of a BP
// run. A run has stalled when, after 2·stallWindow iterations, the smallest
// change of the last stallWindow iterations is no better than half the
// smallest change before them: BP is in a limit cycle (or converging too
// slowly to reach the tolerance within a few thousand iterations), and a
// damped rerun is the better use of the time. The rule depends only on the
// changes, so lifted and ground BP, which compute the same messages, stall
// at the same iteration.
type stallDetector struct {
	iters   int
	changes []float64
	before  float64 // smallest change before the window
}

// add records the change of the next iteration and reports a stall.
func (s *stallDetector) add(change float64) bool {
	if s.iters == 0 {
		s.before = math.Inf(1)
	}
	s.iters++
	if len(s.changes) < stallWindow {
		s.changes = append(s.changes, change)
	} else {
		k := (s.iters - 1) % stallWindow // the oldest entry, leaving the window
		s.before = math.Min(s.before, s.changes[k])
		s.changes[k] = change
	}
	if s.iters < 2*stallWindow {
		return false
	}
	recent := math.Inf(1)
	for _, c := range s.changes {
		recent = math.Min(recent, c)
	}
	return recent >= 0.5*s.before
}
