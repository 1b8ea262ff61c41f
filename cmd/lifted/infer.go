package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/lifted-dev/lifted/bp"
	"github.com/lifted-dev/lifted/format/uai"
	"github.com/lifted-dev/lifted/infer"
	"github.com/lifted-dev/lifted/lift"
)

// graphFlags are the flags shared by infer and compress.
type graphFlags struct {
	evidence  []string
	format    string
	colorMode string
	quiet     bool
}

func (f *graphFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringArrayVarP(&f.evidence, "evidence", "e", nil, "evidence file: UAI .evid (2014 or 2010 form) for factor graphs; Alchemy .db for MLNs (repeatable)")
	fl.StringVar(&f.format, "format", "", "model format: uai, fg or cnf (default: from the extension)")
	fl.StringVar(&f.colorMode, "color-mode", "auto", "colour passing: auto, positional, symmetric (tables invariant under permutation) or cnf (clauses by literal sign); auto = cnf for CNF input, else positional")
	fl.BoolVar(&f.quiet, "quiet", false, "no progress or warnings on stderr")
}

type inferFlags struct {
	graphFlags
	mlnFlags
	method     string
	schedule   string
	damping    float64
	tol        float64
	maxIter    int
	maxProduct bool
	output     string
	outFormat  string
}

func newInferCmd() *cobra.Command {
	var f inferFlags
	cmd := &cobra.Command{
		Use:   "infer [flags] MODEL",
		Short: "Marginals (or a MAP assignment) by lifted or ground belief propagation",
		Long: `infer runs belief propagation on MODEL (.uai, .fg or .cnf) and prints the
marginal of every variable in the UAI MAR format, or, with --max-product, a MAP
assignment in the UAI MPE format. For a Markov logic network (.mln, with
Alchemy .db evidence and -q query predicates) it grounds the model and prints
one query atom per line in Alchemy's result format. By default BP is lifted: the graph is first
compressed by colour passing, and BP on the compressed graph returns exactly
the ground BP answer.`,
		Example: `  lifted infer examples/fg/smokers10.uai
  lifted infer examples/mln/smokers.mln -e examples/mln/smokers.db -q Smokes,Cancer
  lifted infer model.uai -e model.uai.evid --output-format json
  lifted infer --method bp --schedule seq --damping 0.5 model.fg`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runInfer(cmd.Context(), &f, args[0], cmd.OutOrStdout())
		},
	}
	f.graphFlags.register(cmd)
	fl := cmd.Flags()
	fl.StringVar(&f.method, "method", "lbp", "lbp (lifted BP) or bp (ground BP)")
	fl.StringVar(&f.schedule, "schedule", "flood", "message schedule: flood or seq")
	fl.Float64Var(&f.damping, "damping", 0, "damping in [0,1): weight of the previous message")
	fl.Float64Var(&f.tol, "tol", 1e-8, "convergence tolerance on the largest message change")
	fl.IntVar(&f.maxIter, "max-iter", 1000, "maximum BP iterations")
	fl.BoolVar(&f.maxProduct, "max-product", false, "max-product BP: print a MAP assignment (UAI MPE format)")
	fl.StringVarP(&f.output, "output", "o", "", "output file (default stdout)")
	fl.StringVarP(&f.output, "result", "r", "", "alias of --output (as in Alchemy)")
	fl.StringVar(&f.outFormat, "output-format", "", "mar (UAI MAR/MPE; the default for factor graphs), alchemy (the default for MLNs) or json")
	f.mlnFlags.register(cmd)
	return cmd
}

func exactArgs(n int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != n {
			return usageError{fmt.Errorf("%s takes %d argument(s), got %d", cmd.Name(), n, len(args))}
		}
		return nil
	}
}

func bpOptions(f *inferFlags) (bp.Options, error) {
	opt := bp.Options{MaxProduct: f.maxProduct, Damping: f.damping, Tol: f.tol, MaxIter: f.maxIter}
	switch f.schedule {
	case "flood":
		opt.Schedule = bp.Flood
	case "seq", "sequential":
		opt.Schedule = bp.Sequential
	default:
		return opt, usageError{fmt.Errorf("unknown --schedule %q (want flood or seq)", f.schedule)}
	}
	if !(f.damping >= 0 && f.damping < 1) {
		return opt, usageError{fmt.Errorf("--damping must be in [0, 1), got %v", f.damping)}
	}
	if !(f.tol >= 0) {
		return opt, usageError{fmt.Errorf("--tol must be non-negative, got %v", f.tol)}
	}
	if f.maxIter < 1 {
		return opt, usageError{fmt.Errorf("--max-iter must be at least 1, got %d", f.maxIter)}
	}
	return opt, nil
}

func inferOptions(f *inferFlags, format string) (infer.Options, error) {
	var opt infer.Options
	var err error
	switch f.method {
	case "lbp":
		opt.Lifted = true
	case "bp":
	default:
		return opt, usageError{fmt.Errorf("unknown --method %q (want lbp or bp)", f.method)}
	}
	if opt.BP, err = bpOptions(f); err != nil {
		return opt, err
	}
	opt.Colour.Mode, err = colourMode(f.colorMode, format)
	return opt, err
}

func runInfer(ctx context.Context, f *inferFlags, path string, stdout io.Writer) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if isMLN(path, f.format) {
		return runInferMLN(ctx, f, path, stdout)
	}
	if f.outFormat == "" {
		f.outFormat = "mar"
	}
	if f.outFormat != "mar" && f.outFormat != "json" {
		return usageError{fmt.Errorf("unknown --output-format %q (want mar or json)", f.outFormat)}
	}
	l, err := loadGraph(path, f.format)
	if err != nil {
		return err
	}
	opt, err := inferOptions(f, l.format)
	if err != nil {
		return err
	}
	if opt.Colour.Mode == lift.Symmetric {
		opt.Colour.Symmetric = symmetricTables(l.graph)
	}
	ev, err := loadEvidence(f.evidence, l.graph)
	if err != nil {
		return err
	}
	prog := newProgress(f.quiet)
	opt.BP.Progress = func(it int, ch float64) { prog.printf("BP iteration %d, max change %.3g", it, ch) }
	opt.Colour.Progress = func(round, nv, nf int) {
		prog.printf("colour passing round %d: %d variable and %d factor colours", round, nv, nf)
	}
	res, err := infer.Run(ctx, l.graph, ev, opt)
	prog.done()
	if err != nil {
		return bpHint(err)
	}
	if !res.Stats.Converged && !f.quiet {
		fmt.Fprintf(os.Stderr, "lifted: warning: BP did not converge in %d iterations (last max change %.3g); try --damping or --max-iter\n",
			res.Stats.BPIterations, res.BP.MaxChange)
	}
	return writeOutput(f.output, stdout, func(w io.Writer) error {
		if f.outFormat == "json" {
			return writeInferJSON(w, res, f.maxProduct)
		}
		if f.maxProduct {
			return uai.WriteMPE(w, res.BP.Assignment())
		}
		return uai.WriteMAR(w, res.BP.Marginals())
	})
}

// bpHint adds what to try to a BP failure caused by hard constraints.
func bpHint(err error) error {
	if errors.Is(err, bp.ErrNotNormalizable) {
		return fmt.Errorf("%w; BP's messages contradict the model's zeros (as libDAI's \"not normalizable\"): try --damping 0.5 or --schedule seq", err)
	}
	return err
}

// writeOutput writes to the named file (atomically enough: to a temporary
// file renamed on success) or to stdout.
func writeOutput(path string, stdout io.Writer, fn func(io.Writer) error) error {
	if path == "" || path == "-" {
		bw := bufio.NewWriter(stdout)
		if err := fn(bw); err != nil {
			return err
		}
		return bw.Flush()
	}
	tmp := path + ".tmp"
	fh, err := os.Create(tmp)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(fh)
	err = fn(bw)
	if err == nil {
		err = bw.Flush()
	}
	if cerr := fh.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(tmp)
		return err
	}
	return os.Rename(tmp, path)
}

func writeInferJSON(w io.Writer, res *infer.Result, maxProduct bool) error {
	out := map[string]any{"stats": res.Stats}
	if maxProduct {
		out["assignment"] = res.BP.Assignment()
	} else {
		out["marginals"] = res.BP.Marginals()
		out["log_z"] = finite(res.BP.LogZ)
	}
	enc := json.NewEncoder(w)
	return enc.Encode(out)
}

// finite maps a non-finite number to nil (JSON null) so no NaN leaks out.
func finite(x float64) any {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	return x
}

// progress prints rate-limited status lines on stderr.
type progress struct {
	quiet bool
	start time.Time
	last  time.Time
	shown bool
}

func newProgress(quiet bool) *progress { return &progress{quiet: quiet, start: time.Now()} }

// printf prints at most every two seconds, and only after the first second,
// so short runs stay silent.
func (p *progress) printf(format string, args ...any) {
	if p.quiet {
		return
	}
	now := time.Now()
	if now.Sub(p.start) < time.Second || now.Sub(p.last) < 2*time.Second {
		return
	}
	p.last = now
	p.shown = true
	fmt.Fprintf(os.Stderr, "\r\033[K[%5.1fs] %s", now.Sub(p.start).Seconds(), fmt.Sprintf(format, args...))
}

func (p *progress) done() {
	if p.shown {
		fmt.Fprintln(os.Stderr)
	}
}
