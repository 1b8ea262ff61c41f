package engine

import (
	"fmt"
	"time"

	"github.com/lifted-dev/lifted/infer"
	"github.com/lifted-dev/lifted/mln"
	"github.com/lifted-dev/lifted/pos"
)

// Task is what a Request asks for.
type Task = infer.Task

// The tasks.
const (
	// Marginals asks for the marginal of every query atom (every variable
	// of a factor graph), with log Z where the method gives it.
	Marginals = infer.Marginals
	// MAP asks for a most probable world given the evidence.
	MAP = infer.MAP
	// LogZ asks for the log partition function (marginals come with it).
	LogZ = infer.PartitionFunction
)

// DefaultMethod answers marginal queries when Request.Method is empty:
// "auto" chooses on the model (exact where cheap, else lifted BP, else a
// sampler; see infer/exact.Auto).
const DefaultMethod = "auto"

// DefaultMAPMethod answers MAP queries when Request.Method is empty:
// map-auto, anytime (MaxWalkSAT per connected component first, then an
// upper bound from each component's LP relaxation and exact solutions of
// small components, within the time limit), with objective, bound and gap.
const DefaultMAPMethod = "map-auto"

// Request is one query: a model (a path, or a Model already loaded), its
// evidence, the query atoms, the task and how to answer it. The zero
// values choose the defaults: auto for marginals, DefaultMAPMethod for
// MAP, the methods' default properties.
type Request struct {
	// Model is the path of the model file (.mln, .uai, .fg, .cnf, …);
	// ignored by (*Model).Run. Format names the format when the extension
	// does not ("uai", "fg", "cnf", "mln"; "" from the extension).
	Model  string
	Format string
	// Dialect is the MLN system the model follows (alchemy, tuffy,
	// pracmln, lomrf); the zero value, mln.DialectAuto, detects it from
	// the syntax. It decides the closed-world rule (see docs/mln.md).
	Dialect mln.Dialect
	// Evidence are evidence files: Alchemy .db for an MLN (for a dynamic
	// MLN also directories of per-step .db files), UAI .evid for a factor
	// graph. Ignored by (*Model).Run (the model was loaded with its own).
	Evidence []string

	// Query are the MLN query predicates or atoms, as the command's -q
	// takes them ("Smokes", "Friends(Anna,y)"; comma-separated lists
	// too); QueryFiles are files of query atoms (Alchemy's -f). Factor
	// graphs answer for every variable.
	Query      []string
	QueryFiles []string

	Task Task
	// Method is a name of the infer registry ("" : DefaultMethod, or
	// DefaultMAPMethod for MAP). Properties are its named settings as
	// text ({"damping": "0.5"}); missing ones take the method's defaults.
	Method     string
	Properties infer.Properties

	// Ground holds the MLN options: world assumptions, weights, limits.
	Ground GroundOptions
	// ColourMode is colour passing's mode: "" or "auto" (CNF for CNF
	// input, else positional), "positional", "symmetric" or "cnf".
	ColourMode string
	// Workers is the number of cores colour passing uses (0: all).
	Workers int
	// Tolerance > 0 lets lifted BP on a grounding or factor graph lift
	// approximately (infer.Query.Tolerance): the mean |marginal −
	// ground BP| accepted, the error estimated and reported in the
	// Stats. 0, the default, is exact lifting.
	Tolerance float64
	// TimeLimit, if set, is the time-limit property of methods that have
	// one (samplers, MaxWalkSAT, LP), unless Properties sets it.
	TimeLimit time.Duration
	// Seed seeds randomised methods (samplers, MaxWalkSAT).
	Seed uint64
	// AllowUnconverged returns the answer of an iterative method that did
	// not converge, not even with its fallbacks, marked Converged false;
	// otherwise Run returns a *infer.NotConvergedError (or, for a dynamic
	// run, a *StepsNotConvergedError).
	AllowUnconverged bool
	// RequireConverged makes the default method (auto) strict: without
	// it auto always answers when some method produced an answer, each
	// marginal with its own status (exact, mixed, unresolved with an
	// interval, or a BP fixed point: Atom.AtomStatus, Result.VarStatus),
	// and only a method named explicitly refuses an answer that did not
	// converge (unless AllowUnconverged). With it auto refuses as the
	// other methods do.
	RequireConverged bool
	// LogZ asks for log Z also where it costs extra work (the evidence
	// offset of the first-order construction).
	LogZ bool

	// Dynamic, if set, runs a dynamic MLN by filtering and/or smoothing.
	Dynamic *Dynamic

	// Progress, if set, is called during long work (grounding, colour
	// passing, iterations, samples).
	Progress func(Progress)
	// Warn, if set, receives the parser's warnings on evidence read
	// during Run (a dynamic MLN's per-step databases); the model's own are
	// Model.Warnings.
	Warn func([]*pos.Error)
}

// GroundOptions are the options of an MLN's grounding.
type GroundOptions struct {
	// ClosedWorld and OpenWorld name predicates to treat as closed- or
	// open-world (by default the query predicates are open-world, the
	// others closed-world).
	ClosedWorld, OpenWorld []string
	// DefaultWeight, if set, weighs formulas written without a weight
	// (otherwise they are an error).
	DefaultWeight *float64
	// MaxGround refuses groundings with more ground formulas or atoms (0:
	// sized to the available memory; -1: no limit).
	MaxGround int64
	// AlchemyCNF splits a formula's weight over its CNF clauses, as
	// Alchemy does; MergeDuplicates combines ground formulas over the
	// same atoms into one factor.
	AlchemyCNF, MergeDuplicates bool
	// Lazy answers a MAP query by cutting planes on lazy groundings
	// (ground.Lazy): only the ground formulas that the MAP worlds break
	// are ground.
	Lazy bool
	// Construction is how lifted BP's counted graph is made:
	// "first-order" (from the MLN without grounding it, where that
	// applies), "ground", or "" (first-order where the evidence leaves
	// most constants interchangeable).
	Construction string
}

// The values of GroundOptions.Construction.
const (
	ConstructFirstOrder = "first-order"
	ConstructGround     = "ground"
)

// Dynamic configures a dynamic MLN run: the model is unrolled over its
// time steps and answered by the factored frontier (method bp) or lifted
// factored frontier (lbp, the default).
type Dynamic struct {
	// Horizon is the last time step T (steps 0..T); negative: the
	// declared range of the time type.
	Horizon int
	// Protocol is BP's message protocol: "fb" (forwards–backwards, the
	// default) or "flood".
	Protocol string
	// Filter and Smooth choose the filtered marginals P(X_t | e_0..t),
	// step by step, and the smoothed ones (all evidence); neither: both.
	Filter, Smooth bool
	// OnStep, if set, is called with each filtered step as it is
	// answered (and with the smoothed step last).
	OnStep func(Step) error
}

// Progress is a report of long work: the stage ("grounding", "colour
// passing", "BP", "sampling", "LP"), how far it is (Done of Total; Total
// ≤ 0 when the end is not known) and its figures in words.
type Progress struct {
	Stage       string
	Done, Total int64
	Detail      string
}

// RequestError is a request that cannot be answered as asked (an unknown
// method, a method that does not answer the task, a bad option or query):
// a mistake of the caller rather than of the model.
type RequestError struct{ Err error }

// Error returns the message of the RequestError.
func (e *RequestError) Error() string { return e.Err.Error() }

// Unwrap returns the error the RequestError wraps.
func (e *RequestError) Unwrap() error { return e.Err }

func requestErrorf(format string, args ...any) error {
	return &RequestError{fmt.Errorf(format, args...)}
}

// StepsNotConvergedError reports a dynamic run some of whose runs did not
// converge (without Request.AllowUnconverged).
type StepsNotConvergedError struct {
	Path               string
	NotConverged, Runs int
}

// Error returns the message of the StepsNotConvergedError.
func (e *StepsNotConvergedError) Error() string {
	return fmt.Sprintf("%s: %d of %d runs did not converge", e.Path, e.NotConverged, e.Runs)
}
