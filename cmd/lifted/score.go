package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/lifted-dev/lifted/score"
)

type scoreFlags struct {
	input     string
	truth     []string
	evidence  []string
	result    string
	query     []string
	missing   float64
	clip      float64
	outFormat string
	output    string
	plot      string
	quiet     bool
}

func newScoreCmd() *cobra.Command {
	var f scoreFlags
	cmd := &cobra.Command{
		Use:   "score -i MODEL.mln -t TRUTH.db -r RESULT [flags]",
		Short: "Score an inference answer against a truth database (CLL, AUC-PR, AUC-ROC, accuracy, F1, Brier)",
		Long: `score reads an answer (RESULT: Alchemy's .result or lifted's default output,
"ATOM PROB" per line; Tuffy's marginal output, "PROB<tab>ATOM"; a list of
atoms, a MAP world whose listed atoms are true; or lifted's
--output-format json) and scores it against the true world TRUTH.db under
the closed-world rule: an atom TRUTH.db does not list is false.

The universe is every ground atom of the scored predicates (-q, default
those the answer names) over the domains of the model and TRUTH.db, less
the atoms the evidence (-e) gives and those TRUTH.db marks unknown
("?P(A)"); the output states it. Atoms of the universe the answer does not
list are scored with probability --missing (default 0: Tuffy leaves out
atoms of probability 0); an answer atom outside it is an error.

Per predicate and overall: CLL, the mean log-probability of the true value
(probabilities clipped to [--clip, 1 − --clip], 1e-4 as in Lowd and
Domingos 2007); AUC-PR, the area under the precision-recall curve with
Davis and Goadrich's interpolation (tied atoms ranked together, as their
AUCCalculator); AUC-ROC (ties count one half); accuracy and F1 with an atom
predicted true at probability ≥ 0.5; the Brier score, the mean of
(p − truth)². --plot FILE.svg draws the precision-recall curves.`,
		Example: `  lifted infer -i uw-cse.learned.mln -e ai.evidence.db -r ai.result -q advisedBy
  lifted score -i uw-cse.mln -t ai.db -r ai.result
  lifted score -i uw-cse.mln -t ai.db -r ai.result --output-format json --plot ai-pr.svg`,
		Args: func(cmd *cobra.Command, args []string) error {
			switch {
			case len(args) > 1:
				return usageError{fmt.Errorf("score takes at most one argument (the result file), got %d", len(args))}
			case len(args) == 1 && f.result != "":
				return usageError{fmt.Errorf("the result file is given twice: -r %s and %s", f.result, args[0])}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				f.result = args[0]
			}
			return runScore(&f, cmd.OutOrStdout())
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&f.input, "input", "i", "", "the MLN (its declarations give the predicates' types) (required)")
	fl.StringSliceVarP(&f.truth, "truth", "t", nil, "the true world: databases, comma-separated or repeated (required)")
	fl.StringVarP(&f.result, "result", "r", "", "the answer to score (or as the argument)")
	fl.StringSliceVarP(&f.evidence, "evidence", "e", nil, "evidence databases: atoms they give are left out of the universe")
	fl.StringSliceVarP(&f.query, "query", "q", nil, "predicates to score (default: those of the answer)")
	fl.Float64Var(&f.missing, "missing", 0, "probability of an atom the answer does not list (NaN: an error)")
	fl.Float64Var(&f.clip, "clip", score.DefaultClip, "CLL clips probabilities to [clip, 1-clip] (0: no clipping)")
	fl.StringVar(&f.outFormat, "output-format", "text", "text or json")
	fl.StringVarP(&f.output, "output", "o", "", "output file (default stdout)")
	fl.StringVar(&f.plot, "plot", "", "draw the precision-recall curves (overall and per predicate) to this .svg file")
	fl.BoolVar(&f.quiet, "quiet", false, "no warnings on stderr")
	return cmd
}

func runScore(f *scoreFlags, stdout io.Writer) error {
	switch {
	case f.input == "":
		return usageError{fmt.Errorf("score needs the model: -i MODEL.mln")}
	case len(f.truth) == 0:
		return usageError{fmt.Errorf("score needs the true world: -t TRUTH.db")}
	case f.result == "":
		return usageError{fmt.Errorf("score needs the answer: -r RESULT")}
	case f.outFormat != "text" && f.outFormat != "json":
		return usageError{fmt.Errorf("unknown --output-format %q (want text or json)", f.outFormat)}
	case f.plot != "" && !strings.EqualFold(filepath.Ext(f.plot), ".svg"):
		return usageError{fmt.Errorf("--plot %s: the plot is written as SVG: name a .svg file", f.plot)}
	case f.clip < 0 || f.clip >= 0.5:
		return usageError{fmt.Errorf("--clip %g: want 0 ≤ clip < 0.5", f.clip)}
	case !math.IsNaN(f.missing) && (f.missing < 0 || f.missing > 1):
		return usageError{fmt.Errorf("--missing %g: want a probability, or NaN", f.missing)}
	}
	out, err := openOutput(f.output)
	if err != nil {
		return err
	}
	m, err := readMLNQuiet(f.input, f.quiet)
	if err != nil {
		return err
	}
	clip := f.clip
	if clip == 0 {
		clip = -1 // Options: 0 is the default
	}
	opt := score.Options{Preds: f.query, Clip: clip, Missing: f.missing, KeepPredictions: f.plot != ""}
	run, err := score.ScoreFiles(m, score.Files{Truth: f.truth, Evidence: f.evidence, Result: f.result}, opt)
	if err != nil {
		return err
	}
	ans, r := run.Answer, run.Report
	if f.plot != "" {
		curves, err := run.PRCurves(m, opt)
		if err != nil {
			return err
		}
		if err := writeOutput(f.plot, os.Stdout, func(w io.Writer) error {
			return score.WritePRCurveSVG(w, score.PRCurveTitle(ans.Name), curves)
		}); err != nil {
			return err
		}
	}
	return out.Write(stdout, func(w io.Writer) error {
		if f.outFormat == "json" {
			return json.NewEncoder(w).Encode(struct {
				Result string `json:"result"`
				Format string `json:"format"`
				*score.Report
			}{f.result, ans.Format, r})
		}
		fmt.Fprintf(w, "%s (%s) against %s\nuniverse: %s\n", f.result, ans.Format, strings.Join(f.truth, ","), r.Universe)
		if r.Ignored > 0 {
			fmt.Fprintf(w, "%d answer atoms of other predicates not scored\n", r.Ignored)
		}
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "predicate\tatoms\ttrue\tCLL\tAUC-PR\tAUC-ROC\taccuracy\tF1\tBrier\t")
		row := func(name string, x score.Metrics) {
			fmt.Fprintf(tw, "%s\t%d\t%d\t%.4f\t%.4f\t%.4f\t%.4f\t%.4f\t%.4f\t\n", name, x.Atoms, x.Positives, x.CLL, x.AUCPR, x.AUCROC, x.Accuracy, x.F1, x.Brier)
		}
		for _, p := range r.PerPred {
			row(p.Pred, p.Metrics)
		}
		if len(r.PerPred) > 1 {
			row("overall", r.Overall)
		}
		return tw.Flush()
	})
}
