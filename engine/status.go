package engine

import (
	"fmt"
	"math"
	"strings"

	"github.com/lifted-dev/lifted/infer"
	"github.com/lifted-dev/lifted/infer/bp"
)

// Status says how far one marginal can be trusted: each query atom (or
// factor-graph variable) of a marginal answer has its own.
type Status uint8

// The statuses.
const (
	// NoStatus: the answer has none (MAP, dynamic runs, log Z).
	NoStatus Status = iota
	// StatusExact: an exact method answered (wfomc, enumerate, jtree).
	StatusExact
	// StatusMixed: a sampler's chains mixed on this marginal by the
	// diagnostics' rule (rank-normalised R-hat < 1.01, bulk and tail ESS
	// ≥ 100 per chain); StdErr is its Monte Carlo standard error.
	StatusMixed
	// StatusUnresolved: no method resolved this marginal; Lo and Hi are
	// the interval the chains' own estimates span (widened by two
	// standard errors), or [0, 1] where there were no chains, and Why
	// says why.
	StatusUnresolved
	// StatusFixedPoint: belief propagation's messages converged and this
	// is the fixed point's belief; BP gives no accuracy statement (on a
	// loopy model a fixed point can be far from the marginal).
	StatusFixedPoint
)

// Statuses lists the statuses in the order the summary counts them.
var Statuses = []Status{StatusExact, StatusMixed, StatusUnresolved, StatusFixedPoint}

// String returns the status's name as the JSON and the output write it.
func (s Status) String() string {
	switch s {
	case StatusExact:
		return "exact"
	case StatusMixed:
		return "mixed"
	case StatusUnresolved:
		return "unresolved"
	case StatusFixedPoint:
		return "fixed-point"
	}
	return "none"
}

// AtomStatus is one marginal's status with its interval and reason.
type AtomStatus struct {
	Status Status
	// Lo and Hi bound an unresolved marginal (NaN otherwise).
	Lo, Hi float64
	// Why says why a marginal is unresolved ("" otherwise).
	Why string
}

// exactMethod reports whether method m (or components answered by such
// methods, "enumerate+jtree") is exact.
func exactMethod(m string) bool {
	for p := range strings.SplitSeq(m, "+") {
		if p != "wfomc" && p != "enumerate" && p != "jtree" {
			return false
		}
	}
	return m != ""
}

// isExact reports whether the result's answer is exact.
func (r *Result) isExact() bool {
	return exactMethod(r.Stats.Method) || r.Stats.Method == "" && exactMethod(r.Method)
}

// entryStatus is the status of entry i of ans.Belief, whose estimate is p
// with standard error se (NaN: none).
func (r *Result) entryStatus(ans *infer.Answer, i int, p, se float64) AtomStatus {
	nan := math.NaN()
	switch {
	case r.Task != infer.Marginals:
		return AtomStatus{Status: NoStatus, Lo: nan, Hi: nan}
	case r.isExact():
		return AtomStatus{Status: StatusExact, Lo: nan, Hi: nan}
	case ans != nil && ans.Kind != nil && i < len(ans.Kind):
		switch ans.Kind[i] {
		case infer.KindExact, infer.KindUnknown:
			return AtomStatus{Status: StatusExact, Lo: nan, Hi: nan}
		case infer.KindSampled:
			return chainStatus(ans.EntryMixed[i] && !ans.Stats.Interrupted, p, se, ans.ChainLo[i], ans.ChainHi[i], ans.EntryRHat[i], ans.Stats.Interrupted)
		}
		if ans.EntryMixed[i] {
			return AtomStatus{Status: StatusFixedPoint, Lo: nan, Hi: nan}
		}
		return AtomStatus{Status: StatusUnresolved, Lo: 0, Hi: 1, Why: "BP did not converge"}
	case ans != nil && ans.EntryMixed != nil && i < len(ans.EntryMixed):
		return chainStatus(ans.EntryMixed[i] && !ans.Stats.Interrupted, p, se, ans.ChainLo[i], ans.ChainHi[i], ans.EntryRHat[i], ans.Stats.Interrupted)
	case ans != nil && ans.StdErr != nil || r.Stats.Chains > 0: // a sampler without per-entry diagnostics
		if r.Converged {
			return AtomStatus{Status: StatusMixed, Lo: nan, Hi: nan}
		}
		return AtomStatus{Status: StatusUnresolved, Lo: 0, Hi: 1, Why: "the chains have not mixed"}
	case r.Converged:
		return AtomStatus{Status: StatusFixedPoint, Lo: nan, Hi: nan}
	}
	why := "BP did not converge"
	switch {
	case strings.Contains(r.Stats.Mixing, bp.BrokenSymmetry):
		why = "BP's fixed point " + bp.BrokenSymmetry
	case r.Stats.Mixing != "":
		why = "BP's fixed point violates a hard constraint"
	}
	return AtomStatus{Status: StatusUnresolved, Lo: 0, Hi: 1, Why: why}
}

// chainStatus is a sampler's status of a marginal p with standard error
// se, whose chains' own estimates span [lo, hi] with R-hat rhat.
func chainStatus(mixed bool, p, se, lo, hi, rhat float64, interrupted bool) AtomStatus {
	nan := math.NaN()
	if mixed {
		return AtomStatus{Status: StatusMixed, Lo: nan, Hi: nan}
	}
	if math.IsNaN(lo) || math.IsNaN(hi) {
		return AtomStatus{Status: StatusUnresolved, Lo: 0, Hi: 1, Why: "no chain kept a sample"}
	}
	w := 0.0
	if se >= 0 && !math.IsInf(se, 0) {
		w = 2 * se
	}
	lo, hi = math.Max(0, math.Min(lo, p)-w), math.Min(1, math.Max(hi, p)+w)
	var why string
	switch {
	case interrupted:
		why = "interrupted"
	case rhat >= math.MaxFloat64:
		why = "a chain has not moved"
	case rhat >= 1.01:
		why = fmt.Sprintf("the chains disagree, R-hat %.3g", rhat)
	default:
		why = "too few effective samples"
	}
	return AtomStatus{Status: StatusUnresolved, Lo: lo, Hi: hi, Why: why}
}

// VarStatus is the status of variable v of a factor graph's marginal
// answer: the worst of its states' (a binary variable: its state 1's).
func (r *Result) VarStatus(v int) AtomStatus {
	ans := r.Answer
	if ans == nil || r.Task != infer.Marginals || v < 0 || v >= len(ans.Graph.NodeOf) {
		return r.entryStatus(nil, 0, math.NaN(), math.NaN())
	}
	X := int(ans.Graph.NodeOf[v])
	o, e := ans.NodeOff[X], ans.NodeOff[X+1]
	if e-o == 2 {
		o++
	}
	var worst AtomStatus
	for i := o; i < e; i++ {
		se := math.NaN()
		if ans.StdErr != nil {
			se = ans.StdErr[i]
		}
		s := r.entryStatus(ans, i, ans.Belief[i], se)
		if i == o || s.Status == StatusUnresolved && (worst.Status != StatusUnresolved || s.Hi-s.Lo > worst.Hi-worst.Lo) {
			worst = s
		}
	}
	return worst
}

// StatusCounts counts the marginals of each status (nil for an answer
// without statuses: MAP, dynamic, log Z).
func (r *Result) StatusCounts() map[Status]int {
	if r.Task != infer.Marginals || r.Route == RouteDynamic || r.Figures != nil {
		return nil
	}
	n := map[Status]int{}
	if r.IsMLN() {
		for a := range r.Atoms() {
			n[a.Status]++
		}
	} else if r.Answer != nil {
		for v := range r.Answer.Graph.NodeOf {
			n[r.VarStatus(v).Status]++
		}
	}
	delete(n, NoStatus)
	return n
}

// StatusLine is the summary of the statuses: "4624 marginals: 4600
// mixed, 24 unresolved" ("" without statuses, or when every marginal is
// exact: the summary says so).
func (r *Result) StatusLine() string {
	n := r.StatusCounts()
	if n == nil {
		return ""
	}
	total := 0
	var parts []string
	for _, s := range Statuses {
		if n[s] > 0 {
			total += n[s]
			parts = append(parts, fmt.Sprintf("%d %s", n[s], s))
		}
	}
	if total == 0 || n[StatusExact] == total { // the summary says "exact by …"
		return ""
	}
	line := fmt.Sprintf("%d marginals: %s", total, strings.Join(parts, ", "))
	if n[StatusFixedPoint] > 0 {
		line += " (fixed-point: BP's messages converged; BP gives no accuracy statement)"
	}
	if n[StatusUnresolved] > 0 {
		line += " (unresolved: each printed with an interval and why)"
	}
	return line
}

// Unresolved reports whether some marginal is unresolved.
func (r *Result) Unresolved() bool { return r.StatusCounts()[StatusUnresolved] > 0 }
