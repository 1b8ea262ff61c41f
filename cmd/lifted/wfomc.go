package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/lifted-dev/lifted/engine"
	"github.com/lifted-dev/lifted/format"
	mlnfile "github.com/lifted-dev/lifted/format/mlnfile"
	"github.com/lifted-dev/lifted/ground"
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
	defaultWeight optFloat
	quiet         bool
	maxTerms      float64
	maxCellPairs  int64
	format        string
}

func newWfomcCmd() *cobra.Command {
	var f wfomcFlags
	cmd := &cobra.Command{
		Use:   "wfomc [flags] MODEL.mln|MODEL.wfomcs",
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
--count fixes how many anonymous elements satisfy a unary predicate.

The WFOMC tool's files (Wang, Kuželka et al.) are read as they are: a
.wfomcs file (a sentence with \forall, \exists, \exists_{=k}, the domain,
weightings "pos neg P", cardinality constraints such as |P| = k or
|A| - |B| = 0, unary evidence), and the tool's .mln syntax with
--format wfomcs-mln.`,
		Example: `  lifted wfomc smokers.mln --domain person=1000000
  lifted wfomc friendsmoker.mln --query 'friends(Guy,Nima)' --query 'smokes(Guy)'
  lifted wfomc model.mln -e evidence.db --domain person=500 --output-format json
  lifted wfomc transitive.mln --allow-ground --domain person=4
  lifted wfomc deskmate.wfomcs --domain students=1000`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runWfomc(cmd.Context(), &f, args[0], cmd.OutOrStdout())
		},
	}
	fl := cmd.Flags()
	fl.StringSliceVar(&f.domains, "domain", nil, "domain sizes, TYPE=N (comma-separated or repeated)")
	fl.StringArrayVarP(&f.queries, "query", "q", nil, "ground atom or formula whose probability to print (repeatable)")
	fl.StringArrayVarP(&f.evidence, "evidence", "e", nil, "evidence file (Alchemy .db; repeatable)")
	fl.StringSliceVar(&f.counts, "count", nil, "count evidence PRED=K: exactly K anonymous elements satisfy the unary PRED")
	fl.StringVar(&f.outFormat, "output-format", "text", "text or json")
	fl.StringVar(&f.format, "format", "", "model format: mln, wfomcs (the WFOMC tool's .wfomcs) or wfomcs-mln (the tool's .mln syntax); default from the extension")
	fl.StringVarP(&f.output, "output", "o", "", "output file (default stdout)")
	fl.BoolVar(&f.allowGround, "allow-ground", false, "compute parts that no lifting rule handles by enumerating their ground worlds (small domains only)")
	fl.Var(&f.defaultWeight, "default-weight", "weight for formulas written without one (otherwise they are an error)")
	fl.BoolVar(&f.quiet, "quiet", false, "no warnings on stderr")
	fl.Int64Var(&f.maxCellPairs, "max-cell-pairs", wfomc.DefaultMaxCellPairs, "refuse a compilation whose cell algorithm needs more cell-pair weights (about a microsecond and 8 bytes each)")
	fl.Float64Var(&f.maxTerms, "max-terms", wfomc.DefaultMaxTerms, "refuse, before starting, a sum over cell counts of more terms (about a microsecond each per core; at most 2e10)")
	return cmd
}

// readMLNQuiet parses an MLN and prints its warnings unless quiet.
func readMLNQuiet(path string, quiet bool) (*mln.MLN, error) {
	m, err := mlnfile.ParseFile(path)
	if err == nil {
		err = mlnfile.Empty(m, path)
	}
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

// readWfomcModel reads the model of lifted wfomc: an MLN in lifted's
// syntax, or one of the WFOMC tool's files (format.Format.ReadMLN), with
// the evidence such a file lists (nil for an .mln).
func readWfomcModel(ctx context.Context, path, formatName string, quiet bool) (*mln.MLN, *mln.DB, error) {
	fm, err := format.Detect(path, formatName)
	switch {
	case err != nil && formatName != "":
		return nil, nil, usageError{err}
	case err == nil && fm.Kind != format.MLN:
		if formatName != "" {
			return nil, nil, usageError{fmt.Errorf("--format %s: wfomc reads Markov logic networks (mln, wfomcs, wfomcs-mln)", formatName)}
		}
	case err == nil && fm.ReadMLN != nil:
		in, err := ground.ReadModelFormat(ctx, mlnfile.Options{}, formatName, path, nil)
		if err != nil {
			return nil, nil, err
		}
		if !quiet {
			for _, w := range in.Warnings {
				fmt.Fprintln(os.Stderr, "lifted: warning:", w)
			}
		}
		return in.MLN, in.DB, nil
	}
	m, err := readMLNQuiet(path, quiet)
	return m, nil, err
}

func runWfomc(ctx context.Context, f *wfomcFlags, path string, stdout io.Writer) error {
	if ctx == nil {
		ctx = context.Background()
	}
	// Ctrl-C (main's handler cancels ctx) stops compiling or evaluating
	// within milliseconds: exit 130 with where it stopped.
	if f.outFormat != "text" && f.outFormat != "json" {
		return usageError{fmt.Errorf("unknown --output-format %q (want text or json)", f.outFormat)}
	}
	m, db, err := readWfomcModel(ctx, path, f.format, f.quiet)
	if err != nil {
		return err
	}
	prog := newProgress(f.quiet)
	ctx = wfomc.WithProgress(ctx, 250*time.Millisecond, func(p wfomc.Progress) {
		prog.update("wfomc "+p.Phase, p.Done, p.Total, p.Detail())
	})
	res, err := wfomc.RunFileContext(ctx, m, wfomc.FileOptions{Evidence: f.evidence, DB: db, Domains: f.domains, Queries: f.queries,
		Counts: f.counts, AllowGround: f.allowGround, DefaultWeight: f.defaultWeight.value(), MaxTerms: f.maxTerms, MaxCellPairs: f.maxCellPairs})
	prog.done()
	var se *wfomc.StoppedError
	if errors.As(err, &se) && errors.Is(err, context.Canceled) {
		return &interruptedError{fmt.Sprintf("%s: interrupted: %v; nothing printed", path, se)}
	}
	if err != nil {
		return cmdError(path, err)
	}
	if !res.Exact() && !f.quiet {
		fmt.Fprintf(os.Stderr, "lifted: warning: not exact: relative error about %.1g (%.0f of about 16 significant digits lost to cancellation)\n", res.RelError, res.DigitsLost)
	}
	return writeOutput(f.output, stdout, func(w io.Writer) error {
		if f.outFormat == "json" {
			return engine.WriteJSON(w, engine.WFOMCResult(res))
		}
		return res.WriteText(w)
	})
}

// fmtFloat prints the shortest representation that reads back exactly.
func fmtFloat(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
