package count

import (
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"

	"github.com/lifted-dev/lifted/cnf"
	"github.com/lifted-dev/lifted/format"
)

// The reports of a count: ReadInput reads what "lifted count" counts,
// Check validates BPCount's options, WriteExactText and WriteBoundText
// print the text reports, and ExactFigures and BoundFigures are the
// figures of the JSON report (the stats of the one result JSON,
// engine/result.schema.json).

// ErrInput reports a file that count does not read.
var ErrInput = errors.New("count reads DIMACS CNF (.cnf, .dimacs) or a UAI model with 0/1 tables (.uai)")

// ReadInput reads a DIMACS CNF, or a UAI model of binary variables with
// 0/1 tables (a constraint network), whose zero entries become clauses.
func ReadInput(path string) (*cnf.CNF, error) {
	if f, err := format.Detect(path, ""); err != nil || (f.Name != "cnf" && f.Name != "uai") {
		return nil, &format.UsageError{Err: fmt.Errorf("%s: %w", path, ErrInput)}
	}
	m, err := format.Load(path, format.Options{NoGraph: true})
	if err != nil {
		return nil, err
	}
	if m.CNF != nil {
		return m.CNF, nil
	}
	c, err := cnf.FromGraph(m.Graph)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

// OptionError is an option of BPCount out of its range; Name is the
// option as the command line spells it.
type OptionError struct{ Name, Msg string }

// Error returns the message of the OptionError.
func (e *OptionError) Error() string { return e.Name + " " + e.Msg }

// Check validates the options (Workers: at least 1).
func (o *BPCountOptions) Check() error {
	bad := func(name, format string, args ...any) error {
		return &OptionError{Name: name, Msg: fmt.Sprintf(format, args...)}
	}
	switch {
	case !(o.Damping >= 0 && o.Damping < 1):
		return bad("damping", "must be in [0, 1), got %v", o.Damping)
	case !(o.Tol >= 0):
		return bad("tol", "must be non-negative, got %v", o.Tol)
	case o.MaxIter < 1:
		return bad("max-iter", "must be at least 1, got %d", o.MaxIter)
	case o.Trials < 1:
		return bad("trials", "must be at least 1, got %d", o.Trials)
	case !(o.Alpha > 0) || math.IsInf(o.Alpha, 1):
		return bad("alpha", "must be positive, got %v", o.Alpha)
	case o.ResidualVars < 0:
		return bad("residual-vars", "must be non-negative, got %d", o.ResidualVars)
	case !(o.MinProb > 0 && o.MinProb <= 0.5):
		return bad("min-prob", "must be in (0, 0.5], got %v", o.MinProb)
	case !(o.FrozenTol >= 0 && o.FrozenTol < 0.5):
		return bad("frozen-tol", "must be in [0, 0.5), got %v", o.FrozenTol)
	case o.SATBudget < 0:
		return bad("sat-budget", "must be non-negative, got %d", o.SATBudget)
	case o.SATConflicts < 0:
		return bad("sat-conflicts", "must be non-negative, got %d", o.SATConflicts)
	case o.Workers < 1:
		return bad("workers", "must be at least 1, got %d", o.Workers)
	case !(o.ChoiceSlack >= 0 && o.ChoiceSlack <= 0.5):
		return bad("choice-slack", "must be in [0, 0.5], got %v", o.ChoiceSlack)
	}
	return nil
}

// WriteExactText prints an exact count and the time it took.
func WriteExactText(w io.Writer, n *big.Int, secs float64) error {
	if n.Sign() == 0 {
		_, err := fmt.Fprintf(w, "count 0 (unsatisfiable)\ntime %.3g s\n", secs)
		return err
	}
	_, err := fmt.Fprintf(w, "count %s (log10 %.2f)\ntime %.3g s\n", n, Log10(n), secs)
	return err
}

// ExactFigures are the figures of an exact count for the JSON report.
func ExactFigures(n *big.Int, secs float64) map[string]any {
	l := Log10(n)
	return map[string]any{
		"method": "exact", "count": n.String(), "count_log10": finite(l),
		"lower_bound_log10": finite(l), "confidence": 1.0, "trials": 0, "steps": 0,
		"messages_ground": 0, "messages_lifted": 0, "edges_ground": 0, "edges_lifted": 0,
		"seconds": secs,
	}
}

// FormatLog10 writes 10^l as mantissa and exponent, e.g. 5.8e+28, for any
// finite l (the number itself may not fit a float64).
func FormatLog10(l float64) string {
	if math.IsInf(l, -1) {
		return "0"
	}
	e := math.Floor(l)
	m := math.Pow(10, l-e)
	if m >= 9.95 { // rounds to 10.0
		m, e = 1, e+1
	}
	return fmt.Sprintf("%.1fe%+03d", m, int(e))
}

// savings is the percentage of messages lifted BP did not send.
func savings(lifted, ground int64) float64 {
	if ground == 0 {
		return 0
	}
	return 100 * (1 - float64(lifted)/float64(ground))
}

// WriteBoundText prints BPCount's bound, its confidence and its work; with
// perStep a table of every step.
func WriteBoundText(w io.Writer, r *BPCountResult, perStep bool) error {
	lb := r.LowerBoundLog10
	if math.IsInf(lb, -1) {
		fmt.Fprintf(w, "lower bound 0 (a trial's estimate was 0) with confidence ≥ %.10g\n", r.Confidence)
	} else {
		fmt.Fprintf(w, "lower bound %s (log10 %.2f) with confidence ≥ %.10g\n", FormatLog10(lb), lb, r.Confidence)
	}
	fmt.Fprintf(w, "method %s, %d trials, %d steps, time %.3g s\n", r.Method, len(r.Trials), r.Steps, r.Seconds)
	fmt.Fprint(w, "estimates (log10):")
	for _, t := range r.Trials {
		fmt.Fprintf(w, " %.2f", t.EstimateLog10)
	}
	fmt.Fprintln(w)
	if r.Method == "lbpcount" && r.MessagesGround > 0 {
		first := firstStep(r)
		fmt.Fprintf(w, "messages %d lifted vs %d ground: %.1f%% fewer (first step %.1f%%); edges %.1f%% fewer\n",
			r.MessagesLifted, r.MessagesGround, savings(r.MessagesLifted, r.MessagesGround),
			savings(first.MessagesLifted, first.MessagesGround), savings(r.EdgesLifted, r.EdgesGround))
	}
	if !perStep {
		return nil
	}
	_, err := fmt.Fprintln(w, "trial step var value marginal prob open damping iterations converged edges_ground edges_lifted messages_ground messages_lifted cum_edge_ratio cum_message_ratio")
	for i, t := range r.Trials {
		var eg, el, mg, ml int64
		for j, s := range t.Steps {
			eg += int64(s.EdgesGround)
			el += int64(s.EdgesLifted)
			mg += s.MessagesGround
			ml += s.MessagesLifted
			_, err = fmt.Fprintf(w, "%d %d %d %v %.4f %.4f %d %g %d %v %d %d %d %d %.4f %.4f\n", i+1, j+1, s.Var+1, s.Value,
				s.Marginal, s.Prob, s.Open, s.Damping, s.Iterations, s.Converged, s.EdgesGround, s.EdgesLifted,
				s.MessagesGround, s.MessagesLifted, ratio(el, eg), ratio(ml, mg))
		}
	}
	return err
}

func ratio(a, b int64) float64 {
	if b == 0 {
		return 1
	}
	return float64(a) / float64(b)
}

// firstStep returns the first step of the first trial that has one.
func firstStep(r *BPCountResult) Step {
	for _, t := range r.Trials {
		if len(t.Steps) > 0 {
			return t.Steps[0]
		}
	}
	return Step{}
}

// stepFigures is one step of the JSON report's per_step.
type stepFigures struct {
	Trial          int     `json:"trial"`
	Step           int     `json:"step"`
	Var            int     `json:"var"` // DIMACS variable
	Value          bool    `json:"value"`
	Marginal       float64 `json:"marginal"`
	Prob           float64 `json:"prob"`
	Forced         bool    `json:"forced"`
	Frozen         bool    `json:"frozen"`
	Open           int     `json:"open"`
	Damping        float64 `json:"damping"`
	Uniform        bool    `json:"uniform"`
	Iterations     int     `json:"iterations"`
	Converged      bool    `json:"converged"`
	EdgesGround    int     `json:"edges_ground"`
	EdgesLifted    int     `json:"edges_lifted"`
	Clusternodes   int     `json:"clusternodes"`
	MessagesGround int64   `json:"messages_ground"`
	MessagesLifted int64   `json:"messages_lifted"`
	Seconds        float64 `json:"seconds"`
}

// BoundFigures are the figures of a BPCount bound for the JSON report;
// perStep adds every step's as per_step.
func BoundFigures(r *BPCountResult, perStep bool) map[string]any {
	est := make([]any, len(r.Trials))
	for i, t := range r.Trials {
		est[i] = finite(t.EstimateLog10)
	}
	first := firstStep(r)
	out := map[string]any{
		"method":            r.Method,
		"lower_bound_log10": finite(r.LowerBoundLog10),
		"lower_bound":       FormatLog10(r.LowerBoundLog10),
		"confidence":        r.Confidence,
		"alpha":             r.Alpha,
		"trials":            len(r.Trials),
		"steps":             r.Steps,
		"messages_ground":   r.MessagesGround,
		"messages_lifted":   r.MessagesLifted,
		"edges_ground":      r.EdgesGround,
		"edges_lifted":      r.EdgesLifted,
		"seconds":           r.Seconds,
		"estimates_log10":   est,
		"first_step": map[string]any{
			"messages_ground": first.MessagesGround, "messages_lifted": first.MessagesLifted,
			"edges_ground": first.EdgesGround, "edges_lifted": first.EdgesLifted,
		},
	}
	if perStep {
		steps := []stepFigures{}
		for i, t := range r.Trials {
			for j, s := range t.Steps {
				steps = append(steps, stepFigures{
					Trial: i + 1, Step: j + 1, Var: s.Var + 1, Value: s.Value, Marginal: s.Marginal, Prob: s.Prob,
					Forced: s.Forced, Frozen: s.Frozen, Open: s.Open, Damping: s.Damping, Uniform: s.Uniform, Iterations: s.Iterations,
					Converged: s.Converged, EdgesGround: s.EdgesGround, EdgesLifted: s.EdgesLifted,
					Clusternodes: s.Clusternodes, MessagesGround: s.MessagesGround, MessagesLifted: s.MessagesLifted,
					Seconds: s.Seconds,
				})
			}
		}
		out["per_step"] = steps
	}
	return out
}

// finite maps a non-finite number to nil (JSON null).
func finite(x float64) any {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	return x
}

// BPGraphs and Recolourings name the values of BPCountOptions.Graph and
// .Recolour as the command line does.
var (
	BPGraphs     = map[string]BPGraph{"residual": ResidualGraph, "evidence": EvidenceGraph}
	Recolourings = map[string]Recolouring{"incremental": RecolourIncremental, "scratch": RecolourScratch, "refine": RecolourRefine}
)
