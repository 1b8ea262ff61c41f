package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	mlnfile "github.com/lifted-dev/lifted/format/mlnfile"
	"github.com/lifted-dev/lifted/mln"
	"github.com/lifted-dev/lifted/wfomc"
)

type wfomcFlags struct {
	domains       []string
	queries       []string
	evidence      []string
	counts        []string
	outFormat     string
	output        string
	allowGround   bool
	defaultWeight unsetFloat
	quiet         bool
}

// unsetFloat is a float flag without a default (NaN while unset).
type unsetFloat float64

func (o *unsetFloat) String() string {
	if math.IsNaN(float64(*o)) {
		return ""
	}
	return fmtFloat(float64(*o))
}

func (o *unsetFloat) Set(s string) error {
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return fmt.Errorf("%q is not a finite number", s)
	}
	*o = unsetFloat(v)
	return nil
}

func (o *unsetFloat) Type() string { return "float" }

func newWfomcCmd() *cobra.Command {
	var f wfomcFlags
	cmd := &cobra.Command{
		Use:   "wfomc [flags] MODEL.mln",
		Short: "Exact log Z, expected formula counts and marginals by weighted first-order model counting",
		Long: `wfomc computes, exactly and without grounding, the natural log of the
partition function Z of a Markov logic network, the expected number of true
groundings of every formula, and the probability of every --query (a ground
atom or ground formula). It handles every MLN whose formulas have at most two
logical variables in any scope (FO2, quantifiers included) in time polynomial
in the domain sizes, and more where a lifting rule applies; domain sizes of a
million are exact to double precision.

Domain sizes come from the type declarations and the constants the model and
the evidence name; --domain overrides them (named constants stay distinct
elements of the domain). Evidence (-e, Alchemy .db) conditions the model:
unary evidence stays lifted, evidence on binary atoms names their constants.
--count fixes how many anonymous elements satisfy a unary predicate.`,
		Example: `  lifted wfomc smokers.mln --domain person=1000000
  lifted wfomc friendsmoker.mln --query 'friends(Guy,Nima)' --query 'smokes(Guy)'
  lifted wfomc model.mln -e evidence.db --domain person=500 --output-format json
  lifted wfomc transitive.mln --allow-ground --domain person=4`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runWfomc(&f, args[0], cmd.OutOrStdout())
		},
	}
	fl := cmd.Flags()
	fl.StringSliceVar(&f.domains, "domain", nil, "domain sizes, TYPE=N (comma-separated or repeated)")
	fl.StringArrayVarP(&f.queries, "query", "q", nil, "ground atom or formula whose probability to print (repeatable)")
	fl.StringArrayVarP(&f.evidence, "evidence", "e", nil, "evidence file (Alchemy .db; repeatable)")
	fl.StringSliceVar(&f.counts, "count", nil, "count evidence PRED=K: exactly K anonymous elements satisfy the unary PRED")
	fl.StringVar(&f.outFormat, "output-format", "text", "text or json")
	fl.StringVarP(&f.output, "output", "o", "", "output file (default stdout)")
	fl.BoolVar(&f.allowGround, "allow-ground", false, "compute parts that no lifting rule handles by enumerating their ground worlds (small domains only)")
	f.defaultWeight = unsetFloat(math.NaN())
	fl.Var(&f.defaultWeight, "default-weight", "weight for formulas written without one (otherwise they are an error)")
	fl.BoolVar(&f.quiet, "quiet", false, "no warnings on stderr")
	return cmd
}

// readMLNQuiet parses an MLN and prints its warnings unless quiet.
func readMLNQuiet(path string, quiet bool) (*mln.MLN, error) {
	m, err := mlnfile.ParseFile(path)
	if err != nil {
		return nil, err
	}
	if !quiet {
		for _, w := range m.Warnings {
			fmt.Fprintln(os.Stderr, "lifted: warning:", w)
		}
	}
	return m, nil
}

// parseDomainFlags reads TYPE=N pairs.
func parseDomainFlags(m *mln.MLN, list []string) (map[string]int64, error) {
	out := map[string]int64{}
	for _, s := range list {
		name, val, ok := strings.Cut(s, "=")
		name = strings.TrimSpace(name)
		if !ok || name == "" {
			return nil, usageError{fmt.Errorf("--domain %q: want TYPE=N", s)}
		}
		n, err := strconv.ParseInt(strings.TrimSpace(val), 10, 64)
		if err != nil || n < 0 {
			return nil, usageError{fmt.Errorf("--domain %q: %q is not a domain size", s, val)}
		}
		if m.Type(name) == nil {
			var names []string
			for _, t := range m.Types {
				names = append(names, t.Name)
			}
			return nil, usageError{fmt.Errorf("--domain %q: unknown type %q (types: %s)", s, name, strings.Join(names, ", "))}
		}
		out[name] = n
	}
	return out, nil
}

// modelWeights returns the weight of every formula; formulas without one
// take def, or are an error when def is NaN.
func modelWeights(m *mln.MLN, def float64) ([]float64, error) {
	w := make([]float64, len(m.Formulas))
	for j, f := range m.Formulas {
		switch {
		case f.Hard || f.HasWeight:
			w[j] = f.Weight
		case math.IsNaN(def):
			return nil, usageError{fmt.Errorf("%s: formula %d (%s) has no weight; give one or use --default-weight", f.Pos, j+1, f.Text)}
		default:
			w[j] = def
		}
	}
	return w, nil
}

// evidenceLiterals converts .db evidence into literals (unknown atoms are
// skipped).
func evidenceLiterals(m *mln.MLN, files []string) ([]wfomc.Literal, error) {
	if len(files) == 0 {
		return nil, nil
	}
	db, err := mlnfile.ReadDBFiles(m, files...)
	if err != nil {
		return nil, err
	}
	var out []wfomc.Literal
	for _, a := range db.Atoms {
		if a.Truth == mln.Unknown {
			continue
		}
		p := m.Preds[a.Pred]
		args := make([]string, len(a.Args))
		for i, x := range a.Args {
			args[i] = db.Domain(p.ArgTypes[i])[x]
		}
		out = append(out, wfomc.Literal{Pred: p.Name, Args: args, Value: a.Truth == mln.True})
	}
	return out, nil
}

func parseCounts(list []string) ([]wfomc.CountEvidence, error) {
	var out []wfomc.CountEvidence
	for _, s := range list {
		name, val, ok := strings.Cut(s, "=")
		k, err := strconv.ParseInt(strings.TrimSpace(val), 10, 64)
		if !ok || err != nil || k < 0 {
			return nil, usageError{fmt.Errorf("--count %q: want PRED=K", s)}
		}
		out = append(out, wfomc.CountEvidence{Pred: strings.TrimSpace(name), Count: k})
	}
	return out, nil
}

func runWfomc(f *wfomcFlags, path string, stdout io.Writer) error {
	if f.outFormat != "text" && f.outFormat != "json" {
		return usageError{fmt.Errorf("unknown --output-format %q (want text or json)", f.outFormat)}
	}
	m, err := readMLNQuiet(path, f.quiet)
	if err != nil {
		return err
	}
	sizes, err := parseDomainFlags(m, f.domains)
	if err != nil {
		return err
	}
	if mln.NeedsExpansion(m) {
		// One formula per named constant: elements that --domain adds
		// without names would have none.
		for _, fm := range m.Formulas {
			for _, v := range fm.Vars {
				if n, ok := sizes[v.Type]; ok && v.PerConstant && n > int64(len(m.Type(v.Type).Constants)) {
					return usageError{fmt.Errorf("%s: formula %q has a per-constant variable %s of type %s: its %d elements must all be named (the model names %d; drop --domain %s=%d)",
						fm.Pos, fm.Text, v.Name, v.Type, n, len(m.Type(v.Type).Constants), v.Type, n)}
				}
			}
		}
		var ev [][]string
		if len(f.evidence) > 0 {
			ev = [][]string{f.evidence}
		}
		if m, _, err = mln.ExpandForData(m, readDBs(ev)); err != nil {
			return err
		}
	}
	weights, err := modelWeights(m, float64(f.defaultWeight))
	if err != nil {
		return err
	}
	opt := &wfomc.Options{AllowGround: f.allowGround}
	if opt.Evidence, err = evidenceLiterals(m, f.evidence); err != nil {
		return err
	}
	if opt.Counts, err = parseCounts(f.counts); err != nil {
		return err
	}
	for _, q := range f.queries {
		pq, err := wfomc.ParseQuery(m, q)
		if err != nil {
			return usageError{err}
		}
		opt.Queries = append(opt.Queries, pq)
	}
	mod, err := wfomc.Compile(m, opt)
	if err != nil {
		return err
	}
	res, err := mod.Evaluate(weights, sizes)
	if err != nil {
		return err
	}
	if res.DigitsLost > 6 && !f.quiet {
		fmt.Fprintf(os.Stderr, "lifted: warning: %.0f of about 16 significant digits were lost to cancellation\n", res.DigitsLost)
	}
	return writeOutput(f.output, stdout, func(w io.Writer) error {
		if f.outFormat == "json" {
			return writeWfomcJSON(w, m, opt.Queries, res)
		}
		return writeWfomcText(w, m, opt.Queries, res)
	})
}

func writeWfomcText(w io.Writer, m *mln.MLN, qs []wfomc.Query, res *wfomc.Result) error {
	fmt.Fprintf(w, "log Z = %s\n", fmtFloat(res.LogZ))
	fmt.Fprintln(w, "expected counts:")
	for j, f := range m.Formulas {
		fmt.Fprintf(w, "  %d\t%s\t%s\n", j+1, fmtFloat(res.ExpectedCounts[j]), f.Text)
	}
	if len(qs) > 0 {
		fmt.Fprintln(w, "marginals:")
		for i, q := range qs {
			fmt.Fprintf(w, "  %s\t%s\n", fmtFloat(res.Marginals[i]), q.Text)
		}
	}
	_, err := fmt.Fprintf(w, "seconds = %.3f\n", res.Seconds)
	return err
}

func writeWfomcJSON(w io.Writer, m *mln.MLN, qs []wfomc.Query, res *wfomc.Result) error {
	counts := make([]any, len(res.ExpectedCounts))
	for j, c := range res.ExpectedCounts {
		counts[j] = finite(c)
	}
	marg := map[string]any{}
	for i, q := range qs {
		marg[q.Text] = finite(res.Marginals[i])
	}
	return json.NewEncoder(w).Encode(map[string]any{
		"log_z":           finite(res.LogZ),
		"expected_counts": counts,
		"marginals":       marg,
		"digits_lost":     finite(res.DigitsLost),
		"seconds":         res.Seconds,
	})
}

// fmtFloat prints the shortest representation that reads back exactly.
func fmtFloat(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
