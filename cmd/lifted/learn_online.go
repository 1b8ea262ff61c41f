package main

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"

	"github.com/lifted-dev/lifted/internal/svgplot"
	"github.com/lifted-dev/lifted/online"
)

// onlineFlags are the options of the online and BP-based learners of
// "lifted learn" (--method smd|sgd|scg|lbfgs-bp).
type onlineFlags struct {
	c            online.Config // the flags bind to its fields
	ne, plotWith []string
	plot, log    string
}

// register adds the online learners' flags to the learn command's flags.
func (o *onlineFlags) register(fl *pflag.FlagSet) {
	fl.StringVar(&o.c.Pieces, "pieces", "factor", "smd/sgd: factor (one ground clause per piece), tree (RelTreeFinding) or neighbourhood (all clauses within --depth)")
	fl.IntVar(&o.c.Depth, "depth", 2, "smd/sgd with --pieces tree or neighbourhood: depth")
	fl.Float64Var(&o.c.Discount, "discount", 0.9, "smd/sgd with --pieces tree: discount t (keep a neighbour when a uniform draw is ≤ t^|tree|)")
	fl.IntVar(&o.c.BatchSize, "batch-size", 10, "smd/sgd: pieces per mini-batch")
	fl.Float64Var(&o.c.Step, "step", 0.2, "smd: initial gain; sgd: step size")
	fl.Float64Var(&o.c.Passes, "passes", 1, "smd/sgd: passes over the pieces")
	fl.StringSliceVar(&o.ne, "ne", nil, "non-evidence (query) predicates, comma-separated (dn: required; the others: by default every predicate, when the data observe every atom, as Alchemy's -g)")
	fl.StringSliceVar(&o.c.Holdout, "holdout", nil, "test databases, each its own mega-example: report their mean CMLL after every tenth of a pass")
	fl.StringVar(&o.plot, "plot", "", "write the learning curve (test CMLL vs passes) with gonum/plot: .png, .svg or .pdf")
	fl.StringSliceVar(&o.plotWith, "plot-with", nil, "curve logs (--log files) of earlier runs to draw in the same --plot")
	fl.StringVar(&o.log, "log", "", "write the learning curve as JSON")
	fl.Uint64Var(&o.c.Seed, "seed", 1, "random seed (dn: MC-SAT; the others: pieces, mini-batches, CMLL groups)")
	fl.Float64Var(&o.c.Lambda, "smd-lambda", 0.99, "smd: decay λ of v")
	fl.Float64Var(&o.c.Mu, "smd-mu", 0.1, "smd: meta-gain μ")
	fl.Float64Var(&o.c.Gamma, "smd-gamma", 0.9, "smd: discount γ of the gradient covariance")
	fl.BoolVar(&o.c.Ground, "ground-bp", false, "run ground instead of lifted BP (same results, for comparison)")
	fl.Float64Var(&o.c.EvalEvery, "eval-every", 0.1, "with --holdout: evaluate after every this fraction of a pass")
	fl.IntVar(&o.c.Workers, "workers", 0, "colour passing of every BP run on this many cores; the default 0 = one per core (the learned weights do not depend on it; see lifted infer --help)")
	fl.IntVar(&o.c.Shards, "shards", 1, "compute each mini-batch (or the whole model) in this many shards of pieces on as many cores (lifting then works within a shard, so results differ within BP's tolerance)")
}

// writeCurve writes the curve as JSON (--log) and plots it with those of
// earlier runs (--plot, --plot-with).
func writeCurve(o *onlineFlags, c *online.Curve, plotFmt string, stdout io.Writer) error {
	if o.log != "" {
		if err := writeOutput(o.log, stdout, func(w io.Writer) error {
			enc := json.NewEncoder(w)
			enc.SetIndent("", " ")
			return enc.Encode(c)
		}); err != nil {
			return err
		}
	}
	if o.plot == "" {
		return nil
	}
	curves := []*online.Curve{}
	for _, p := range o.plotWith {
		l, err := online.ReadCurve(p)
		if err != nil {
			return err
		}
		curves = append(curves, l)
	}
	curves = append(curves, c)
	return writeOutput(o.plot, stdout, func(w io.Writer) error {
		if plotFmt == "svg" {
			return writeCurvesSVG(w, curves)
		}
		return writeGonumCurves(w, plotFmt, curves)
	})
}

// plotFormat returns the format of a --plot file name by its extension:
// svg in every build (internal/svgplot), png and pdf in a build with
// -tags plot (gonum/plot: plot_gonum.go); anything else is a usage error.
func plotFormat(path string) (string, error) {
	switch ext := strings.ToLower(strings.TrimPrefix(filepath.Ext(path), ".")); {
	case ext == "svg", (ext == "png" || ext == "pdf") && gonumPlots:
		return ext, nil
	case ext == "png" || ext == "pdf":
		return "", usageError{fmt.Errorf("--plot %s: PNG and PDF plots need a build with -tags plot (go run -tags plot ./cmd/lifted …, or go install -tags plot ./cmd/lifted), which adds gonum/plot's font, LaTeX and PDF modules; .svg works in every build", path)}
	}
	return "", usageError{fmt.Errorf("--plot %s: write .svg (or .png, .pdf in a build with -tags plot)", path)}
}

// writeCurvesSVG draws learning curves (test CMLL against passes over the
// mega-example, a dashed line at one pass) as SVG.
func writeCurvesSVG(w io.Writer, curves []*online.Curve) error {
	c := svgplot.Chart{Title: "Learning curve", XLabel: "passes over the mega-example", YLabel: "test CMLL", VLines: []float64{1}}
	for _, l := range curves {
		var s svgplot.Series
		for _, pt := range l.Points {
			if pt.CMLL != nil {
				s.X, s.Y = append(s.X, pt.Passes), append(s.Y, *pt.CMLL)
			}
		}
		if len(s.X) == 0 {
			continue
		}
		s.Label = l.Label
		if s.Label == "" {
			s.Label = l.Method
		}
		c.Series = append(c.Series, s)
	}
	if len(c.Series) == 0 {
		c.Title, c.VLines = "no test CMLL (run with --holdout)", nil
	}
	return svgplot.Write(w, c)
}
