package infer

import (
	"context"
	"fmt"

	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/lift"
)

// Algorithm is the one seam every inference method implements. It runs on a
// counted graph (a ground graph is the compression whose counts are all 1)
// for a query and returns one Answer. Whether the graph was lifted is decided
// before, by the compression step; an Algorithm must give the same answer on
// any compression of the same ground graph (exact methods exactly, iterative
// ones at their fixed points, samplers in distribution).
//
// Run must honour ctx (return ctx's error when it is cancelled; a sampler
// may instead return its estimates so far with Stats.Interrupted set) and
// must not keep c or q beyond the call except through the returned Answer.
type Algorithm interface {
	Run(ctx context.Context, c *lift.Compressed, q Query) (*Answer, error)
}

// Task is what a query asks for.
type Task uint8

const (
	// Marginals asks for the marginal distribution of every variable (and
	// log Z where the method gives one).
	Marginals Task = iota
	// MAP asks for a most probable assignment.
	MAP
	// PartitionFunction asks for log Z (marginals may come with it).
	PartitionFunction
)

// String names the task as the command line does.
func (t Task) String() string {
	switch t {
	case Marginals:
		return "marginals"
	case MAP:
		return "map"
	case PartitionFunction:
		return "log-z"
	}
	return fmt.Sprintf("Task(%d)", int(t))
}

// Query is one inference question.
type Query struct {
	Task Task
	// Seed seeds randomised methods; deterministic methods ignore it.
	Seed uint64
	// Progress, if set, is called by iterative methods after every step.
	Progress func(Progress)
	// Workers is the number of cores a method may use for work it
	// splits (the components of MAP search); 0: one per core. Answers
	// do not depend on it.
	Workers int
	// Tolerance > 0 allows approximate lifting: the mean |marginal −
	// ground BP| the caller accepts. Run then lifts approximately where
	// the method is an ErrorEstimator (runApprox), and auto's components
	// answered by lifted BP do the same. 0 is exact lifting.
	Tolerance float64
}

// Progress is what an iterative method reports after a step.
type Progress struct {
	Iteration int     // steps done
	MaxChange float64 // largest change in the step (message entries for BP)

	// Samplers report the samples kept so far (all chains) and the worst
	// Gelman–Rubin R-hat over the variables (0 when not known).
	Samples int
	RHat    float64
	// Sampling marks a sampler's report (Samples is 0 during burn-in);
	// SamplesTotal is the samples it will keep, all chains (0: not known,
	// a run until a time limit).
	Sampling     bool
	SamplesTotal int
	// BurnIn is the burn-in steps taken so far (all chains), of
	// BurnInTotal (0: not known, a run until a time limit).
	BurnIn, BurnInTotal int

	// LP relaxations report the LP value after every cutting-plane round
	// (Iteration is the round, 0 the LOCAL LP, MaxChange the worst
	// violation found) and the cuts added in it.
	Bound *float64
	Cuts  int
	// Anytime MAP methods (map-auto) report the log score of their best
	// world so far, on the scale of Bound.
	Objective *float64
	// Exact inference component by component reports the connected
	// components answered so far (Iteration) of ComponentsTotal.
	ComponentsTotal int
}

// LogZKind says what an Answer's LogZ is.
type LogZKind uint8

const (
	NoLogZ     LogZKind = iota // the method gives no log Z
	Exact                      // the exact natural log of Z
	Estimate                   // an approximation without guarantee (e.g. Bethe)
	LowerBound                 // a lower bound (with the method's confidence)
	UpperBound                 // an upper bound
)

// String names the kind as the JSON output does.
func (k LogZKind) String() string {
	switch k {
	case NoLogZ:
		return "none"
	case Exact:
		return "exact"
	case Estimate:
		return "estimate"
	case LowerBound:
		return "lower-bound"
	case UpperBound:
		return "upper-bound"
	}
	return fmt.Sprintf("LogZKind(%d)", int(k))
}

// Answer is what every Algorithm returns: beliefs per clusternode (the
// ground variables of a clusternode share them), a ground assignment for
// MAP queries, log Z with its kind, and the run's statistics.
type Answer struct {
	Graph *lift.Compressed
	Task  Task

	// Belief[NodeOff[X]:NodeOff[X+1]] is the normalised belief of
	// clusternode X: marginals, or max-marginals for a MAP query when the
	// method has them. Nil when the method gives none.
	Belief  []float64
	NodeOff []int

	// Assignment is a state per ground variable for a MAP query.
	Assignment []int32

	// StdErr, when set, is parallel to Belief: the Monte Carlo standard
	// error of each belief entry (samplers, from the effective sample
	// size). Nil for methods whose beliefs carry no sampling error.
	StdErr []float64
	// EntryMixed, when set (samplers), is parallel to Belief: whether that
	// entry's own diagnostics passed the rule that Converged applies to
	// every entry together (rank-normalised R-hat, bulk and tail ESS).
	// ChainLo and ChainHi are the lowest and highest of the chains' own
	// estimates of the entry, and EntryRHat its R-hat (math.MaxFloat64:
	// a chain has not moved): the spread an answer that has not mixed
	// reports. Nil for methods without chains.
	EntryMixed       []bool
	ChainLo, ChainHi []float64
	EntryRHat        []float64
	// Kind, when set (an answer assembled from parts that different
	// methods answered: auto's components), is parallel to Belief: what
	// answered each entry. There EntryMixed says, of a BP entry, whether
	// its part's messages converged.
	Kind []EntryKind

	LogZ     float64
	LogZKind LogZKind

	// Converged is false when an iterative method stopped at its
	// iteration limit; MaxChange is its last step's change.
	Converged bool
	MaxChange float64

	// F2V and EdgeOff are, for belief propagation, the factor-to-variable
	// messages of every lifted edge s at F2V[EdgeOff[s]:EdgeOff[s+1]]
	// (nil for other methods): what an ErrorEstimator starts from.
	F2V     []float64
	EdgeOff []int

	Stats Stats
}

// EntryKind is what answered one entry of an assembled Answer.
type EntryKind uint8

// The kinds.
const (
	KindUnknown EntryKind = iota // evidence, or not said
	KindExact                    // an exact method
	KindSampled                  // a sampler (EntryMixed, ChainLo, ChainHi, EntryRHat)
	KindBP                       // belief propagation (EntryMixed: its messages converged)
)

// NodeBelief returns the belief of clusternode X (aliasing the Answer).
func (a *Answer) NodeBelief(X int) []float64 { return a.Belief[a.NodeOff[X]:a.NodeOff[X+1]] }

// Marginal returns the belief of ground variable v (aliasing the Answer).
func (a *Answer) Marginal(v int) []float64 { return a.NodeBelief(int(a.Graph.NodeOf[v])) }

// Marginals returns a copy of the beliefs of all ground variables.
func (a *Answer) Marginals() [][]float64 {
	out := make([][]float64, len(a.Graph.NodeOf))
	for v := range out {
		out[v] = append([]float64(nil), a.Marginal(v)...)
	}
	return out
}

// StageTime is a stage of a run and its wall time (Stats.Stages).
type StageTime struct {
	Stage   string  `json:"stage"`
	Seconds float64 `json:"seconds"`
}

// Stats are the figures of a run, under the JSON keys the command prints:
// the sizes of the ground and the counted graph, colour passing, and the
// algorithm's own work. Every method fills the same fields so ground and
// lifted runs, and different methods, compare side by side.
type Stats struct {
	Variables      int     `json:"variables"`
	Factors        int     `json:"factors"`
	Edges          int     `json:"edges"`
	Clusternodes   int     `json:"clusternodes"`
	Clusterfactors int     `json:"clusterfactors"`
	LiftedEdges    int     `json:"lifted_edges"`
	ColorIter      int     `json:"color_iterations"`
	ColorSeconds   float64 `json:"color_seconds"`
	BPIterations   int     `json:"bp_iterations"` // iterations (sweeps) of the method
	Messages       int64   `json:"messages"`
	Converged      bool    `json:"converged"`
	Seconds        float64 `json:"seconds"`
	// TotalSeconds is the whole run's wall time (set by the engine):
	// reading the model when the engine read it, every attempt (a wfomc
	// try that gave up included), grounding, colour passing and the
	// method; Stages splits it, in order, with "other" for the rest
	// (parsing the query, the closed world, diagnostics).
	TotalSeconds float64     `json:"total_seconds,omitempty"`
	Stages       []StageTime `json:"stages,omitempty"`
	// Fallback names the retry variant that converged when the run as
	// asked did not (see Fallbacks); then BPIterations and Messages count
	// every attempt.
	Fallback string `json:"fallback,omitempty"`
	// Unstable, for BP that converged with damping only, says that
	// undamped BP does not hold its fixed point (bp.Result.Unstable).
	Unstable string `json:"bp_unstable,omitempty"`
	// Method and MethodReason say which method answered and why, when a
	// method chose another (see Chooser) or answered on the first-order
	// model (see FirstOrder).
	Method       string `json:"method,omitempty"`
	MethodReason string `json:"method_reason,omitempty"`

	// Samplers: samples kept after burn-in and sweeps run (all chains
	// together), the number of chains, the worst rank-normalised
	// split-R-hat and the smallest bulk and tail effective sample sizes
	// over the marginals and the state's log-score (package
	// infer/mcmc/diag; R-hat is the largest float when chains sit in
	// different states that never vary), why the chains are not called
	// mixed (empty when they are: Converged), the swap acceptance rates
	// between neighbouring temperatures of replica exchange (tempering),
	// and whether the run was cancelled, its estimates being those so
	// far. Omitted when zero, so other methods print what they always did.
	Samples   int       `json:"samples,omitempty"`
	Sweeps    int       `json:"sweeps,omitempty"`
	Chains    int       `json:"chains,omitempty"`
	RHat      float64   `json:"r_hat,omitempty"`
	BulkESS   float64   `json:"min_bulk_ess,omitempty"`
	TailESS   float64   `json:"min_tail_ess,omitempty"`
	Mixing    string    `json:"not_mixed,omitempty"` // also BP's, when messages that settled are no answer (a hard factor violated)
	SwapRates []float64 `json:"swap_rates,omitempty"`
	// Temperatures is replica exchange's ladder (T₀ = 1 first).
	Temperatures []float64 `json:"temperatures,omitempty"`
	Interrupted  bool      `json:"interrupted,omitempty"`
	// TimeLimited: an anytime method's own time limit (not a
	// cancellation) cut its work short; its answer is complete and valid
	// (a MAP world and a bound that holds), but more time could improve it.
	TimeLimited bool `json:"time_limited,omitempty"`

	// Objective is, for a MAP answer, the log score of the world: Σ of
	// the natural logs of its factors' entries; on an MLN (RunModel) plus
	// the grounding's offset, i.e. Σ_i w_i n_i(x): one scale for every
	// MAP method (maxwalksat, lp, ilp, map-auto). Nil (omitted) for
	// methods without one (max-product BP).
	Objective *float64 `json:"objective,omitempty"`
	// Clusters is the number of blocks a blocked sampler draws jointly.
	Clusters int `json:"clusters,omitempty"`
	// LiftedClusters is the number of those clusters that a lifted
	// sampler ("lbg") draws by lifted rules rather than by ground blocks.
	LiftedClusters int `json:"lifted_clusters,omitempty"`

	// MAP by LP relaxation (lp, ilp): Bound is the LP value on the scale
	// of Objective (no world scores more), Gap = Bound − Objective;
	// Orbits is the number of variable classes the LP was lifted over
	// (the variables, for a ground LP); LPVariables and LPConstraints
	// count the final LP (cuts included); Cuts and CutRounds the cycle
	// inequalities added and the cutting-plane rounds.
	Bound         *float64 `json:"bound,omitempty"`
	Gap           *float64 `json:"gap,omitempty"`
	Orbits        int      `json:"orbits,omitempty"`
	LPVariables   int      `json:"lp_variables,omitempty"`
	LPConstraints int      `json:"lp_constraints,omitempty"`
	Cuts          int      `json:"cuts,omitempty"`
	CutRounds     int      `json:"cut_rounds,omitempty"`

	// Exact inference by junction tree (jtree): the treewidth of the
	// elimination order used and the entries of its largest clique table.
	Treewidth    int   `json:"treewidth,omitempty"`
	LargestTable int64 `json:"largest_table,omitempty"`

	// Methods that split the ground network given the evidence into
	// connected components (fg.Components) report their number, the
	// number solved exactly, and the size histogram (variables per
	// component: count).
	Components      int            `json:"components,omitempty"`
	ExactComponents int            `json:"exact_components,omitempty"`
	ComponentSizes  []fg.SizeCount `json:"component_sizes,omitempty"`

	// Approximate lifting (Query.Tolerance): the tolerance asked for,
	// the approximation that answered ("" when exact lifting did) and
	// the estimated mean and largest |marginal − ground BP| of its
	// answer (ErrorEstimator), with the approximations tried.
	Tolerance float64 `json:"tolerance,omitempty"`
	// Lifting is "exact" where colour passing compressed the graph
	// exactly (no tolerance, the default, or no approximation met it) and
	// "approximate" where an approximation answered; "" where nothing
	// was lifted.
	Lifting          string   `json:"lifting,omitempty"`
	Approximation    string   `json:"approximation,omitempty"`
	ErrorEstimate    *float64 `json:"error_estimate,omitempty"`
	ErrorEstimateMax *float64 `json:"error_estimate_max,omitempty"`
	ApproxTried      []string `json:"approximations_tried,omitempty"`
	// A sampled estimate (ErrorEstimate.Sampled): the interval on the
	// mean error, its confidence and the atoms sampled (census: all).
	ErrorInterval   []float64 `json:"error_interval,omitempty"`
	ErrorConfidence float64   `json:"error_confidence,omitempty"`
	ErrorSample     int       `json:"error_sample,omitempty"`
	ErrorCensus     bool      `json:"error_census,omitempty"`
	// ErrorChecked: the estimate is bp.CheckError's (ErrorInterval holds
	// its warm part and the stated mean).
	ErrorChecked bool `json:"error_checked,omitempty"`
	// ErrorSE is the standard error of a sampled check's mean (absent
	// for a census: no sampling error), ErrorPopulation the atoms the
	// mean is over; ErrorOthers the part of the checked mean from the
	// other fixed points of lifted BP the check found and ErrorStarts
	// their number (bp.CheckError).
	ErrorSE         *float64 `json:"error_se,omitempty"`
	ErrorPopulation int      `json:"error_population,omitempty"`
	ErrorOthers     float64  `json:"error_others,omitempty"`
	ErrorStarts     int      `json:"error_starts,omitempty"`
}
