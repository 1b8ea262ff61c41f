package wfomc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	mlnfile "github.com/lifted-dev/lifted/format/mlnfile"
	"github.com/lifted-dev/lifted/mln"
)

// FileOptions are a count on an MLN file, as "lifted wfomc" takes it.
type FileOptions struct {
	// Evidence are Alchemy .db files conditioning the model.
	Evidence []string
	// DB, if not nil, is evidence already read (the unary evidence a
	// .wfomcs file lists: ground.ReadModelFormat), to which Evidence adds.
	DB *mln.DB
	// Domains override domain sizes, "TYPE=N".
	Domains []string
	// Queries are ground atoms or formulas whose probabilities to compute.
	Queries []string
	// Counts fix how many anonymous elements satisfy a unary predicate,
	// "PRED=K".
	Counts []string
	// AllowGround enumerates the parts no lifting rule handles.
	AllowGround bool
	// DefaultWeight, if set, weighs formulas written without a weight.
	DefaultWeight *float64
	// MaxTerms is Options.MaxTerms.
	MaxTerms float64
	// MaxCellPairs is Options.MaxCellPairs.
	MaxCellPairs int64
}

// FileResult is the answer of RunFile: the model as counted (per-constant
// formulas expanded), its queries and the result, whose Seconds are those
// of compiling and evaluating the model.
type FileResult struct {
	*Result
	MLN     *mln.MLN
	Queries []Query
}

// InputError is a mistake in the options of RunFile (a domain, count or
// query that cannot be read, a formula without a weight).
type InputError struct{ Err error }

// Error returns the message of the InputError.
func (e *InputError) Error() string { return e.Err.Error() }

// Unwrap returns the error the InputError wraps.
func (e *InputError) Unwrap() error { return e.Err }

func inputErrorf(format string, args ...any) error { return &InputError{fmt.Errorf(format, args...)} }

// RunFile computes log Z, the expected counts and the query probabilities
// of the parsed MLN m (mlnfile.ParseFile) under opt.
func RunFile(m *mln.MLN, opt FileOptions) (*FileResult, error) {
	return RunFileContext(context.Background(), m, opt)
}

// RunFileContext is RunFile under a context: compilation and evaluation
// poll ctx and, once it is done, stop within milliseconds and return its
// error (context.Canceled, unwrapped), with the seconds spent so far in an
// *StoppedError around it.
func RunFileContext(ctx context.Context, m *mln.MLN, opt FileOptions) (*FileResult, error) {
	sizes, err := ParseDomains(m, opt.Domains)
	if err != nil {
		return nil, err
	}
	if mln.NeedsExpansion(m) {
		// One formula per named constant: elements that a domain size
		// adds without names would have none.
		for _, fm := range m.Formulas {
			for _, v := range fm.Vars {
				if n, ok := sizes[v.Type]; ok && v.PerConstant && n > int64(len(m.Type(v.Type).Constants)) {
					return nil, inputErrorf("%s: formula %q has a per-constant variable %s of type %s: its %d elements must all be named (the model names %d; drop --domain %s=%d)",
						fm.Pos, fm.Text, v.Name, v.Type, n, len(m.Type(v.Type).Constants), v.Type, n)
				}
			}
		}
		var ev [][]string
		if len(opt.Evidence) > 0 {
			ev = [][]string{opt.Evidence}
		}
		if m, _, err = mln.ExpandForData(m, mlnfile.ReadDBSets(ev)); err != nil {
			return nil, err
		}
	}
	weights, err := Weights(m, opt.DefaultWeight)
	if err != nil {
		return nil, err
	}
	copt := &Options{AllowGround: opt.AllowGround, MaxTerms: opt.MaxTerms, MaxCellPairs: opt.MaxCellPairs}
	if copt.Evidence, err = EvidenceLiterals(m, opt.Evidence); err != nil {
		return nil, err
	}
	if opt.DB != nil {
		copt.Evidence = append(knownLiterals(m, opt.DB), copt.Evidence...)
	}
	if copt.Counts, err = ParseCounts(opt.Counts); err != nil {
		return nil, err
	}
	for _, q := range opt.Queries {
		pq, err := ParseQuery(m, q)
		if err != nil {
			return nil, &InputError{err}
		}
		copt.Queries = append(copt.Queries, pq)
	}
	start := time.Now()
	mod, err := CompileContext(ctx, m, copt)
	if err != nil {
		return nil, stopped(ctx, err, "compiling", start)
	}
	compiled := time.Since(start).Seconds()
	res, err := mod.EvaluateContext(ctx, weights, sizes)
	if err != nil {
		return nil, stopped(ctx, err, "evaluating", start)
	}
	res.Seconds += compiled
	return &FileResult{Result: res, MLN: m, Queries: copt.Queries}, nil
}

// StoppedError is a run of RunFileContext that ctx stopped: where and
// after how long. It unwraps to ctx's error.
type StoppedError struct {
	Phase   string // "compiling" or "evaluating"
	Seconds float64
	Err     error
}

func (e *StoppedError) Error() string {
	return fmt.Sprintf("wfomc stopped while %s, after %.2f s: %v", e.Phase, e.Seconds, e.Err)
}

// Unwrap returns ctx's error.
func (e *StoppedError) Unwrap() error { return e.Err }

func stopped(ctx context.Context, err error, phase string, start time.Time) error {
	if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
		return &StoppedError{Phase: phase, Seconds: time.Since(start).Seconds(), Err: err}
	}
	return err
}

// ParseDomains reads domain sizes written TYPE=N.
func ParseDomains(m *mln.MLN, list []string) (map[string]int64, error) {
	out := map[string]int64{}
	for _, s := range list {
		name, val, ok := strings.Cut(s, "=")
		name = strings.TrimSpace(name)
		if !ok || name == "" {
			return nil, inputErrorf("--domain %q: want TYPE=N", s)
		}
		n, err := strconv.ParseInt(strings.TrimSpace(val), 10, 64)
		if err != nil || n < 0 {
			return nil, inputErrorf("--domain %q: %q is not a domain size", s, val)
		}
		if m.Type(name) == nil {
			var names []string
			for _, t := range m.Types {
				names = append(names, t.Name)
			}
			return nil, inputErrorf("--domain %q: unknown type %q (types: %s)", s, name, strings.Join(names, ", "))
		}
		out[name] = n
	}
	return out, nil
}

// Weights returns the weight of every formula; formulas without one take
// def, or are an *InputError when def is nil.
func Weights(m *mln.MLN, def *float64) ([]float64, error) {
	w := make([]float64, len(m.Formulas))
	for j, f := range m.Formulas {
		switch {
		case f.Hard || f.HasWeight:
			w[j] = f.Weight
		case def == nil:
			return nil, inputErrorf("%s: formula %d (%s) has no weight; give one or use --default-weight", f.Pos, j+1, f.Text)
		default:
			w[j] = *def
		}
	}
	return w, nil
}

// EvidenceLiterals reads .db evidence as literals (unknown atoms are
// skipped).
func EvidenceLiterals(m *mln.MLN, files []string) ([]Literal, error) {
	if len(files) == 0 {
		return nil, nil
	}
	db, err := mlnfile.ReadDBFiles(m, files...)
	if err != nil {
		return nil, err
	}
	return knownLiterals(m, db), nil
}

// knownLiterals returns the known atoms of db as literals.
func knownLiterals(m *mln.MLN, db *mln.DB) []Literal {
	var out []Literal
	for _, a := range db.Atoms {
		if a.Truth == mln.Unknown {
			continue
		}
		p := m.Preds[a.Pred]
		args := make([]string, len(a.Args))
		for i, x := range a.Args {
			args[i] = db.Domain(p.ArgTypes[i])[x]
		}
		out = append(out, Literal{Pred: p.Name, Args: args, Value: a.Truth == mln.True})
	}
	return out
}

// ParseCounts reads count evidence written PRED=K.
func ParseCounts(list []string) ([]CountEvidence, error) {
	var out []CountEvidence
	for _, s := range list {
		name, val, ok := strings.Cut(s, "=")
		k, err := strconv.ParseInt(strings.TrimSpace(val), 10, 64)
		if !ok || err != nil || k < 0 {
			return nil, inputErrorf("--count %q: want PRED=K", s)
		}
		out = append(out, CountEvidence{Pred: strings.TrimSpace(name), Count: k})
	}
	return out, nil
}

// WriteText prints log Z, the expected count of every formula and the
// query probabilities, as "lifted wfomc" does.
func (r *FileResult) WriteText(w io.Writer) error {
	num := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	fmt.Fprintf(w, "log Z = %s\n", num(r.LogZ))
	fmt.Fprintln(w, "expected counts:")
	for j, f := range r.MLN.Formulas {
		fmt.Fprintf(w, "  %d\t%s\t%s\n", j+1, num(r.ExpectedCounts[j]), f.Text)
	}
	if len(r.Queries) > 0 {
		fmt.Fprintln(w, "marginals:")
		for i, q := range r.Queries {
			fmt.Fprintf(w, "  %s\t%s\n", num(r.Marginals[i]), q.Text)
		}
	}
	if !r.Exact() {
		fmt.Fprintf(w, "not exact: relative error about %.1g (%.0f digits lost to cancellation)\n", r.RelError, r.DigitsLost)
	}
	_, err := fmt.Fprintf(w, "seconds = %.3f\n", r.Seconds)
	return err
}

// Figures are the result's figures for the JSON report: the expected
// counts (null where not finite), the digits lost and the seconds.
func (r *FileResult) Figures() map[string]any {
	counts := make([]any, len(r.ExpectedCounts))
	for j, c := range r.ExpectedCounts {
		counts[j] = finite(c)
	}
	return map[string]any{"expected_counts": counts, "digits_lost": finite(r.DigitsLost), "relative_error": finite(r.RelError), "seconds": r.Seconds}
}

// finite maps a non-finite number to nil (JSON null).
func finite(x float64) any {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	return x
}
