package engine

import (
	"fmt"
	"iter"
	"strconv"
	"strings"

	"github.com/lifted-dev/lifted/dynamic"
	"github.com/lifted-dev/lifted/infer"
	"github.com/lifted-dev/lifted/lift/firstorder"
)

// SchemaVersion is the version of the JSON a Result is written as
// (WriteJSON; the schema is result.schema.json).
const SchemaVersion = 1

// Route says how a query was answered.
type Route string

// The routes.
const (
	RouteGraph      Route = "factor-graph" // a method on a factor graph
	RouteGrounded   Route = "grounded"     // a method on the MLN's grounding
	RouteFirstOrder Route = "first-order"  // lifted BP on the counted graph built from the MLN without grounding it
	RouteUngrounded Route = "ungrounded"   // a method on the MLN itself (wfomc, lifted blocked Gibbs)
	RouteDynamic    Route = "dynamic"      // a dynamic MLN, filtered and/or smoothed
)

// Result is the answer to a Request, the same whatever route and method
// answered it: per query atom (an MLN) or per variable (a factor graph) a
// marginal or a MAP value, log Z with its kind, the MAP objective with a
// bound and gap where the method has one, which method answered and why,
// whether it converged, and the statistics.
type Result struct {
	Task Task
	// Method is the method that answered (the one auto chose, where it
	// chose) and MethodReason why, when a method chose.
	Method       string
	MethodReason string
	// Converged is false when an iterative method stopped at its limit or
	// a sampler's chains have not mixed (Request.AllowUnconverged);
	// MaxChange is an iterative method's last change.
	Converged bool
	MaxChange float64

	// LogZ is the natural log of the partition function of the model given
	// the evidence, of the kind LogZKind (infer.NoLogZ: none).
	LogZ     float64
	LogZKind infer.LogZKind

	// Objective is a MAP world's log score: Σ ln φ over the factors of a
	// factor graph; for an MLN Σ w·n(x) over its ground formulas. Bound
	// (no world scores more) and Gap = Bound − Objective are set by
	// methods that prove one (lp, ilp). Nil when not applicable.
	Objective, Bound, Gap *float64

	// A factor graph's answer, per variable: Marginals (and, from
	// samplers, the standard error of each entry) or, for MAP, a state
	// per variable in Assignment.
	Marginals  [][]float64
	StdErrors  [][]float64
	Assignment []int32

	// Stats are the run's statistics (for an MLN with the grounding's
	// figures; a factor graph's leave those zero).
	Stats infer.MLNStats

	// answers: the run always answers (AlwaysAnswers: auto without
	// RequireConverged); what did not converge is said per marginal.
	answers     bool
	dialectNote bool   // say which dialect and closed-world rule applied
	worldText   string // the closed-world rule in words
	// Dynamic are a dynamic run's totals; Steps its filtered steps and,
	// last, the smoothed one.
	Dynamic *DynamicStats
	Steps   []Step

	// Figures, when set, are written as the JSON's stats instead of Stats:
	// the figures of a computation outside the engine's routes (lifted
	// wfomc, lifted count) written in the one schema.
	Figures any

	// Route says how the query was answered.
	Route Route
	// Answer is the method's answer on a graph (nil for ungrounded and
	// dynamic runs), for callers that need more than the Result holds.
	Answer *infer.Answer

	// An MLN's query atoms (see Atoms).
	atoms    iter.Seq[Atom]
	numAtoms int // -1: not known without iterating
	net      *firstorder.Network
	dyn      *dynamic.Model
	queryIdx map[string]int
}

// Atom is the answer for one ground query atom of an MLN.
type Atom struct {
	Name string // as in the MLN: "Friends(Anna,Bob)"
	// P is the probability that the atom is true (its MAP value, 0 or 1,
	// for a MAP query; Value holds it as an integer).
	P     float64
	Value int32
	// StdErr is the Monte Carlo standard error of P (samplers); NaN when
	// the method gives none.
	StdErr float64
	// AtomStatus is how far P can be trusted (NoStatus for MAP).
	AtomStatus

	node int32 // its clusternode + 1 on a first-order network (0: none)
}

// IsMLN reports whether the result is about an MLN's query atoms (false:
// a factor graph's variables).
func (r *Result) IsMLN() bool { return r.atoms != nil }

// Atoms returns the query atoms with their answers, in the order of the
// query (each query atom in constant order; evidence atoms left out). A
// domain of millions of atoms is generated, not stored: each call walks
// the answer again.
func (r *Result) Atoms() iter.Seq[Atom] {
	if r.atoms == nil {
		return func(func(Atom) bool) {}
	}
	return r.atoms
}

// SetAtoms gives the result a list of atoms (in output order), for
// answers computed outside the engine's routes.
func (r *Result) SetAtoms(atoms []Atom) {
	r.numAtoms = len(atoms)
	r.atoms = func(yield func(Atom) bool) {
		for _, a := range atoms {
			if !yield(a) {
				return
			}
		}
	}
}

// AtomMarginals returns P(atom true) by atom name (MAP: the atom's value).
func (r *Result) AtomMarginals() map[string]float64 {
	out := map[string]float64{}
	for a := range r.Atoms() {
		out[a.Name] = a.P
	}
	return out
}

// Step is one answer of a dynamic run: the filtered marginals of the
// query atoms of step Step given the evidence of steps 0..Step, or the
// smoothed marginals of all query atoms given all evidence.
type Step struct {
	Step     int
	Smoothed bool
	// Marginals are P(atom true) in query order.
	Marginals []StepAtom
	Converged bool
	Stats     dynamic.Stats
}

// StepAtom is one query atom's marginal at a step.
type StepAtom struct {
	Name string
	P    float64
}

// DynamicStats total the runs of a dynamic query.
type DynamicStats struct {
	Horizon        int     `json:"horizon"`
	Protocol       string  `json:"protocol"`
	Runs           int     `json:"runs"`
	NotConverged   int     `json:"not_converged"`
	Edges          int64   `json:"edges"`
	Messages       int64   `json:"messages"`
	ClusterNodes   int64   `json:"clusternodes"`
	GroundAtoms    int     `json:"ground_atoms"`
	GroundFormulas int64   `json:"ground_formulas"`
	GroundSeconds  float64 `json:"ground_seconds"`
	LiftSeconds    float64 `json:"lift_seconds"`
	BPSeconds      float64 `json:"bp_seconds"`
}

func (s *DynamicStats) add(st dynamic.Stats) {
	s.Runs++
	s.Edges += int64(st.Edges)
	s.Messages += st.Messages
	s.ClusterNodes += int64(st.ClusterNodes)
	s.LiftSeconds += st.LiftSeconds
	s.BPSeconds += st.BPSeconds
	if !st.Converged {
		s.NotConverged++
	}
}

// Level is how much a Message matters.
type Level uint8

// The levels.
const (
	Info    Level = iota // what was done (a quiet caller drops it)
	Warning              // a caveat (a quiet caller drops it)
	Alert                // a caveat no caller may drop: the answer is not reliable
)

// Message is a line for the user about a Result.
type Message struct {
	Level Level
	Text  string
}

// Messages says which method answered and why (when a method chose),
// which fallback converged when the run as asked did not, and whether the
// answer is interrupted or not converged.
func (r *Result) Messages() []Message {
	var out []Message
	if r.Dynamic != nil {
		if n := r.Dynamic.NotConverged; n > 0 {
			out = append(out, Message{Warning, fmt.Sprintf("NOT CONVERGED: %d of %d %s runs (belief propagation) stopped at their iteration limit", n, r.Dynamic.Runs, r.Method)})
		}
		return out
	}
	st := r.Stats
	if r.dialectNote {
		out = append(out, Message{Info, fmt.Sprintf("dialect %s; closed world: %s", st.Dialect, r.worldText)})
	}
	if strings.HasPrefix(st.World, "closed world: ") {
		// Some predicate's missing atoms were taken as false: say which,
		// and why (the answer depends on it).
		out = append(out, Message{Info, st.World})
	}
	if st.Method != "" {
		out = append(out, Message{Info, fmt.Sprintf("method %s: %s", st.Method, st.MethodReason)})
	}
	if st.Fallback != "" {
		out = append(out, Message{Info, "BP did not converge as asked; it converged with " + st.Fallback})
	}
	if st.Unstable != "" && r.Converged {
		out = append(out, Message{Warning, st.Unstable})
	}
	if note := r.interruptedNote(); note != "" {
		out = append(out, Message{Alert, note + ": the answer printed is the one so far"})
	}
	if note := r.notConvergedNote(); note != "" {
		out = append(out, Message{Alert, note})
	}
	return out
}

// StatusNote is the comment an Alchemy result file starts with when the
// answer is not the method's final one: interrupted, or not converged (in
// the method's terms); "" otherwise.
func (r *Result) StatusNote() string {
	var parts []string
	if n := r.interruptedNote(); n != "" {
		parts = append(parts, n)
	}
	if n := r.notConvergedNote(); n != "" {
		parts = append(parts, n)
	}
	return strings.Join(parts, "; ")
}

// Interrupted reports whether the run was stopped (by the context) before
// the method finished: the answer is the one so far.
func (r *Result) Interrupted() bool { return r.Stats.Interrupted }

// InterruptedNote says how far an interrupted run got ("interrupted after
// 2000 samples (mcsat)"); "" when it was not interrupted.
func (r *Result) InterruptedNote() string { return r.interruptedNote() }

// interruptedNote says how far an interrupted run got, in the method's
// terms; "" when it was not interrupted.
func (r *Result) interruptedNote() string {
	st := r.Stats
	if !st.Interrupted {
		return ""
	}
	switch {
	case st.Chains > 0:
		return fmt.Sprintf("interrupted after %d samples (%s)", st.Samples, r.Method)
	case st.Bound != nil:
		return fmt.Sprintf("interrupted after %d cutting-plane rounds (%s): the world is feasible and the bound holds", st.CutRounds, r.Method)
	case st.Objective != nil:
		return fmt.Sprintf("interrupted after %d flips (%s): the world is the best found so far", st.BPIterations, r.Method)
	}
	return fmt.Sprintf("interrupted after %d iterations (%s)", st.BPIterations, r.Method)
}

// notConvergedNote says, in the method's terms, that the answer did not
// converge; "" when it did (or the dynamic route, which has its own).
func (r *Result) notConvergedNote() string {
	st := r.Stats
	switch {
	case r.Converged:
		return ""
	case r.answers:
		n := r.StatusCounts()
		total := 0
		for _, k := range n {
			total += k
		}
		what := "its chains have not mixed"
		if st.Chains == 0 {
			what = "BP did not converge"
		}
		return fmt.Sprintf("NOT CONVERGED everywhere: %s (%s); %d of %d marginals are unresolved, each printed with the interval its chains span; --require-converged refuses such an answer",
			r.Method, what, n[StatusUnresolved], total)
	case st.Chains > 0: // a sampler
		why := st.Mixing
		if why == "" {
			why = "worst R-hat " + RHatText(st.RHat)
		}
		return fmt.Sprintf("NOT CONVERGED: %s's chains have not mixed (%s); the estimates are not reliable", r.Method, why)
	case st.Bound != nil: // lp, ilp
		gap := 0.0
		if st.Gap != nil {
			gap = *st.Gap
		}
		if r.Method == "ilp" {
			return fmt.Sprintf("NOT CONVERGED: %s's branch and bound stopped before proving the world optimal (gap %.3g)", r.Method, gap)
		}
		if st.Components > 0 { // map-auto: anytime
			return fmt.Sprintf("NOT PROVED OPTIMAL: %s's time ran out with %d of %d components proved; the world is feasible and the bound holds (gap %.3g)", r.Method, st.ExactComponents, st.Components, gap)
		}
		return fmt.Sprintf("NOT CONVERGED: %s's cutting planes stopped after %d rounds (max-rounds) with cycle inequalities still violated; the world is feasible and the bound holds (gap %.3g)", r.Method, st.CutRounds, gap)
	case st.Mixing != "" && (r.Method == "bp" || r.Method == "lbp"):
		return fmt.Sprintf("NOT CONVERGED: %s (belief propagation): its messages settled, but %s; the answer is not to be trusted", r.Method, st.Mixing)
	case r.Method == "bp" || r.Method == "lbp" || st.Objective == nil && st.BPIterations > 0:
		return fmt.Sprintf("NOT CONVERGED: %s (belief propagation) stopped after %d iterations (last max change %.3g), fallbacks included; the answer is not a BP fixed point", r.Method, st.BPIterations, r.MaxChange)
	}
	return fmt.Sprintf("NOT CONVERGED: %s did not finish", r.Method)
}

// Summary is the line that ends a run: how large the ground model was,
// how far colour passing compressed it, the method's work, whether it
// converged, and the seconds (grounding included).
func (r *Result) Summary() string {
	s := r.summary()
	if line := r.StatusLine(); line != "" {
		s += "; " + line
	}
	if r.dialectNote { // not Alchemy's rule, or the dialect was given
		s += "; closed world: " + r.Stats.ClosedWorld
	}
	return s
}

func (r *Result) summary() string {
	st := r.Stats
	switch r.Route {
	case RouteDynamic:
		d := r.Dynamic
		return fmt.Sprintf("dynamic: %d steps, %d ground atoms; %d runs, %d messages, %d edges", d.Horizon+1, d.GroundAtoms, d.Runs, d.Messages, d.Edges)
	case RouteFirstOrder:
		conv := "messages converged"
		if !st.Converged {
			conv = "not converged"
		}
		return fmt.Sprintf("%d ground atoms, %d ground formulas represented (first-order construction: %d ground atoms built); %d clusternodes, %d clusterfactors; %s: %d iterations, %s; %s s",
			st.GroundAtoms, st.GroundFormulas, st.GroundAtomsBuilt, st.Clusternodes, st.Clusterfactors, r.Method, st.BPIterations, conv,
			strconv.FormatFloat(max(st.Seconds+st.GroundSeconds, st.TotalSeconds), 'g', 3, 64))
	case RouteGraph:
		return summaryLine(r.Method, st.Stats, -1, 0)
	case RouteUngrounded:
		return summaryLine(r.Method, st.Stats, int(st.GroundAtoms), 0)
	}
	return summaryLine(r.Method, st.Stats, int(st.GroundAtoms), st.GroundSeconds)
}

// summaryLine is Summary's line; groundAtoms < 0 for a factor graph.
func summaryLine(method string, st infer.Stats, groundAtoms int, groundSeconds float64) string {
	size := fmt.Sprintf("%d variables", st.Variables)
	if groundAtoms >= 0 {
		size = fmt.Sprintf("%d ground atoms", groundAtoms)
		if st.Variables != groundAtoms {
			size += fmt.Sprintf(" (%d variables)", st.Variables)
		}
	}
	secs := strconv.FormatFloat(st.Seconds+groundSeconds, 'g', 3, 64)
	if st.TotalSeconds > 0 { // the whole run, every attempt included
		secs = strconv.FormatFloat(st.TotalSeconds, 'g', 3, 64)
	}
	if st.TimeLimited && (st.Bound == nil || st.Components == 0) { // map-auto says so in its own words
		secs = "time limit reached (--time-limit: the answer so far); " + secs
	}
	exact := func(m string) bool { // wfomc, enumerate, jtree, or components answered by them ("enumerate+jtree")
		for p := range strings.SplitSeq(m, "+") {
			if p != "wfomc" && p != "enumerate" && p != "jtree" {
				return false
			}
		}
		return m != ""
	}
	if exact(st.Method) || exact(method) { // exact: no compression, no iterations
		if !exact(st.Method) {
			st.Method = method
		}
		factors := fmt.Sprintf("%d factors", st.Factors)
		if st.Method == "wfomc" && st.Clusternodes == 0 && st.Variables > 0 { // wfomc before grounding
			factors = "not grounded"
		}
		return fmt.Sprintf("%s, %s; exact by %s; %s s", size, factors, st.Method, secs)
	}
	if st.Bound != nil && st.Components > 0 { // map-auto
		limited := ""
		if st.TimeLimited {
			limited = "; time limit reached (--time-limit: more time, a better world or bound)"
		}
		return fmt.Sprintf("%s, %d factors; MAP by %s, objective %s, bound %s, gap %.3g; %d components, %d proved optimal%s; %s s",
			size, st.Factors, method, strconv.FormatFloat(*st.Objective, 'g', 10, 64), strconv.FormatFloat(*st.Bound, 'g', 10, 64), *st.Gap,
			st.Components, st.ExactComponents, limited, secs)
	}
	if st.Bound != nil { // lp, ilp
		return fmt.Sprintf("%s, %d factors; MAP by LP relaxation (%s), objective %s, bound %s, gap %.3g; LP of %d variables and %d constraints over %d variable orbits, %d cuts in %d rounds; %s s",
			size, st.Factors, method, strconv.FormatFloat(*st.Objective, 'g', 10, 64), strconv.FormatFloat(*st.Bound, 'g', 10, 64), *st.Gap,
			st.LPVariables, st.LPConstraints, st.Orbits, st.Cuts, st.CutRounds, secs)
	}
	if st.Objective != nil { // MaxWalkSAT
		return fmt.Sprintf("%s, %d factors; MAP by MaxWalkSAT, objective %s after %d flips; %s s", size, st.Factors,
			strconv.FormatFloat(*st.Objective, 'g', 6, 64), st.BPIterations, secs)
	}
	if st.Chains > 0 { // a sampler
		rh := ""
		if st.RHat > 0 {
			rh = ", worst R-hat " + RHatText(st.RHat)
		}
		mixed := "mixed"
		if !st.Converged {
			mixed = "NOT mixed"
		}
		blocks := ""
		if st.Clusters > 0 {
			blocks = fmt.Sprintf(" over %d blocks", st.Clusters)
		}
		if st.LiftedClusters > 0 {
			blocks = fmt.Sprintf(" over %d clusters (%d lifted)", st.Clusters, st.LiftedClusters)
		}
		return fmt.Sprintf("%s, %d factors; %s: %d samples in %d chains%s%s, %s; %s s", size, st.Factors, method, st.Samples, st.Chains, blocks, rh, mixed, secs)
	}
	ratio := "-"
	if st.Clusternodes > 0 {
		ratio = strconv.FormatFloat(float64(st.Variables)/float64(st.Clusternodes), 'f', 1, 64) + "x"
	}
	conv := "messages converged"
	if !st.Converged {
		conv = "not converged"
	}
	return fmt.Sprintf("%s, %d factors; %d clusternodes, %d clusterfactors (compression %s)%s; %s: %d iterations, %s; %s s",
		size, st.Factors, st.Clusternodes, st.Clusterfactors, ratio, approxText(st), method, st.BPIterations, conv, secs)
}

// approxText is the summary's statement of approximate lifting (a run
// under a tolerance): the approximation, the factor compression and the
// estimated error, or that exact lifting answered.
func approxText(st infer.Stats) string {
	if st.Tolerance <= 0 {
		if st.Lifting == "exact" && st.Clusternodes < st.Variables {
			return ", exact lifting (--tolerance 0)"
		}
		return ""
	}
	if st.Approximation == "" {
		return fmt.Sprintf(", exact lifting (no approximation met --tolerance %g)", st.Tolerance)
	}
	fc := ""
	if st.Clusterfactors > 0 && st.Clusterfactors < st.Factors {
		fc = "; factors " + strconv.FormatFloat(float64(st.Factors)/float64(st.Clusterfactors), 'f', 1, 64) + "x"
	}
	if len(st.ErrorInterval) == 2 && st.ErrorChecked {
		basins := fmt.Sprintf("the basins of all %d atoms", st.ErrorSample)
		if st.ErrorSE != nil {
			basins = fmt.Sprintf("the basins of a sample of %d of %d atoms: estimated mean %.2g, standard error %.2g, upper end %.2g at %g%%",
				st.ErrorSample, st.ErrorPopulation, deref(st.ErrorEstimate), *st.ErrorSE, st.ErrorInterval[1], 100*st.ErrorConfidence)
		}
		return fmt.Sprintf(", approximate lifting (%s%s): checked mean |marginal - ground BP| %.2g (ground BP from the lifted messages %.2g, %.2g more from %d other fixed points, plus %s; a check, not a bound), largest %.2g, within --tolerance %g",
			st.Approximation, fc, st.ErrorInterval[1], st.ErrorInterval[0], st.ErrorOthers, st.ErrorStarts, basins, deref(st.ErrorEstimateMax), st.Tolerance)
	}
	if len(st.ErrorInterval) == 2 {
		what := fmt.Sprintf("a sample of %d atoms, interval [%.2g, %.2g] at %g%%", st.ErrorSample, st.ErrorInterval[0], st.ErrorInterval[1], 100*st.ErrorConfidence)
		if st.ErrorCensus {
			what = fmt.Sprintf("all %d atoms", st.ErrorSample)
		}
		return fmt.Sprintf(", approximate lifting (%s%s): mean |marginal - local ground BP| %.2g from %s (a statistical estimate), largest seen %.2g, within --tolerance %g",
			st.Approximation, fc, deref(st.ErrorEstimate), what, deref(st.ErrorEstimateMax), st.Tolerance)
	}
	return fmt.Sprintf(", approximate lifting (%s%s): estimated mean |marginal - ground BP| %.2g, largest %.2g, within --tolerance %g",
		st.Approximation, fc, deref(st.ErrorEstimate), deref(st.ErrorEstimateMax), st.Tolerance)
}

func deref(p *float64) float64 {
	if p == nil {
		return 0
	}
	return *p
}
