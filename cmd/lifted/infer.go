package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/lifted-dev/lifted/engine"
	"github.com/lifted-dev/lifted/format"
	mlnfile "github.com/lifted-dev/lifted/format/mlnfile"
	"github.com/lifted-dev/lifted/infer"
	"github.com/lifted-dev/lifted/internal/outfile"
	"github.com/lifted-dev/lifted/pos"
)

// graphFlags are the flags shared by infer, map and compress.
type graphFlags struct {
	evidence  []string
	format    string
	colorMode string
	quiet     bool
	workers   int
}

func (f *graphFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringArrayVarP(&f.evidence, "evidence", "e", nil, "evidence file: UAI .evid (2014 or 2010 form) for factor graphs; Alchemy .db for MLNs (repeatable)")
	fl.StringVar(&f.format, "format", "", "model format: uai, fg, cnf, mln, wfomcs or wfomcs-mln (the WFOMC tool's files; default: from the extension)")
	fl.StringVar(&f.colorMode, "color-mode", "auto", "colour passing: auto, positional, symmetric (tables invariant under permutation) or cnf (clauses by literal sign); auto = cnf for CNF input, else positional")
	fl.BoolVar(&f.quiet, "quiet", false, "no progress or warnings on stderr")
	fl.IntVar(&f.workers, "workers", 0, "colour passing on this many cores; the default 0 = one per core (the result does not depend on it; 1 = the single-core colour passing)")
}

type inferFlags struct {
	graphFlags
	mlnFlags
	method     string
	maxProduct bool
	seed       uint64
	output     string
	outFormat  string
	// allowUnconverged prints the answer of an iterative method that did
	// not converge (marked as such) instead of failing with exit status 3.
	allowUnconverged bool
	// tolerance is the mean marginal error approximate lifting may add.
	tolerance float64
	// requireConverged makes the default (auto) refuse an answer some
	// marginal of which is unresolved, as an explicit --method does.
	requireConverged bool
	// allowPartial prints the answer of a run interrupted by Ctrl-C (or
	// stopped by its context) instead of failing with exit status 130.
	allowPartial bool
	props        []string
	dyn          dynamicFlags // dynamic.go
	mode         engine.Mode  // infer or map: which settings, with which defaults
}

// registerSetting adds the flag of an engine setting (--tol, --samples, …).
func registerSetting(fl *pflag.FlagSet, s engine.Setting, mode engine.Mode) {
	switch d, h := s.Default, s.HelpIn(mode); d := d.(type) {
	case string:
		fl.String(s.Name, d, h)
	case float64:
		fl.Float64(s.Name, d, h)
	case int:
		fl.Int(s.Name, d, h)
	case time.Duration:
		fl.Duration(s.Name, d, h)
	}
}

func newInferCmd() *cobra.Command {
	var f inferFlags
	cmd := &cobra.Command{
		Use:   "infer [flags] MODEL",
		Short: "Marginals (or a MAP assignment): exact where exact is cheap, else lifted BP, else a sampler",
		Long: `infer prints the marginal of every variable of MODEL (.uai, .fg or .cnf) in the
UAI MAR format, or, with --max-product, a MAP assignment in the UAI MPE
format; for a Markov logic network (.mln, with Alchemy .db evidence and -q
query predicates) one query atom per line in Alchemy's result format. The
default method, auto, answers exactly where that is cheap: an MLN by weighted
first-order model counting (wfomc) without grounding it when that lifts the
model within its budget; otherwise, on the grounding or the factor graph, by
enumeration (tiny models) or a junction tree (jtree) when its largest table
fits; else by lifted BP (colour passing, then BP on the compressed graph:
exactly the ground BP answer) within a slice of iterations, then a sampler
within a budget of work, which answers (a BP fixed point is checked against
it: converged messages say nothing of the marginals' accuracy). It says which
method answered and why on stderr.

The default always answers when some method produced a sample or a fixed
point: every marginal is printed with its own status — exact, mixed (a
sampler's chains mixed on it: "// mixed ±SE" after it), unresolved (the
interval its chains span and why: "// unresolved [lo, hi]: why"), or a BP
fixed point (BP's messages converged; BP gives no accuracy statement) — and
the summary on stderr counts each kind (--output-format json: "status" per
atom); --require-converged makes it fail with status 3 instead.

With an explicit --method, BP that does not converge is retried with damping
0.5, then 0.9, then the sequential schedule; if none converges, infer prints
nothing and exits with status 3, unless --allow-unconverged (the answer is
then marked as not converged). Samplers whose chains have not mixed
(rank-normalised R-hat ≥ 1.01 or bulk/tail ESS < 100 per chain on some
marginal) are treated the same way.
Ctrl-C stops a run with status 130; --allow-partial prints the answer so far,
marked as interrupted.

Methods (--method NAME; the flags --schedule, --damping, --tol, --max-iter,
--samples, --burn-in, --chains, --time-limit, --block-size, --block-states,
--tries, --max-flips and --noise set the properties of the same names; --seed
seeds the samplers and maxwalksat; maxwalksat answers MAP queries,
--max-product):
` + infer.Describe(),
		Example: `  lifted infer examples/fg/smokers10.uai
  lifted infer examples/mln/smokers.mln -e examples/mln/smokers.db -q Smokes,Cancer
  lifted infer model.uai -e model.uai.evid --output-format json
  lifted infer --method bp --schedule seq --damping 0.5 model.fg
  lifted infer --method mcsat --samples 5000 --seed 1 model.mln -q Smokes
  lifted infer --method maxwalksat --max-product --tries 5 model.mln -q Smokes
  lifted infer --method bgibbs --block-size 4 --seed 1 model.mln -q Smokes`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runInfer(cmd.Context(), cmd, &f, args[0], cmd.OutOrStdout())
		},
	}
	f.register(cmd, engine.ModeInfer)
	f.dyn.register(cmd)
	groupFlags(cmd, append([]flagGroup{prefixed(cmd, "Flags of MLNs", "MLN:"), prefixed(cmd, "Flags of dynamic MLNs", "dynamic")}, settingGroups(engine.ModeInfer)...)...)
	return cmd
}

// register adds the flags of infer (engine.ModeMAP: of map, without the
// samplers' and the dynamic flags).
func (f *inferFlags) register(cmd *cobra.Command, mode engine.Mode) {
	f.mode = mode
	f.graphFlags.register(cmd)
	fl := cmd.Flags()
	fl.StringVar(&f.method, "method", "auto", "inference method: "+methodHelp())
	for _, s := range engine.Settings {
		if s.In(mode) {
			registerSetting(fl, s, mode)
		}
	}
	if mode == engine.ModeInfer {
		fl.BoolVar(&f.maxProduct, "max-product", false, "max-product BP: print a MAP assignment (UAI MPE format)")
	}
	fl.StringArrayVar(&f.props, "prop", nil, "set a property of the method, NAME=VALUE (repeatable; see the methods' properties above), e.g. --prop max-states=1e7")
	if mode == engine.ModeInfer {
		fl.Float64Var(&f.tolerance, "tolerance", 0, "lbp (and auto where it runs lbp) on a grounding or factor graph: the mean |marginal - ground BP| accepted; > 0 lifts approximately (pooling nearly equal evidence and neighbourhoods), with the error estimated and reported; 0 = exact lifting")
	}
	unconvHelp := "print the answer of BP that did not converge even with its fallbacks (marked as not converged) instead of failing with exit status 3"
	if mode == engine.ModeInfer {
		unconvHelp = "with an explicit --method: print the answer of BP that did not converge even with its fallbacks, or of a sampler whose chains have not mixed (marked as such), instead of failing with exit status 3"
	}
	fl.BoolVar(&f.allowUnconverged, "allow-unconverged", false, unconvHelp)
	if mode == engine.ModeInfer {
		fl.BoolVar(&f.requireConverged, "require-converged", false, "the default method (auto) fails with exit status 3, as an explicit --method does, instead of printing an answer some marginals of which are unresolved (each with its interval)")
	}
	seedHelp, partialHelp := "samplers and maxwalksat: random seed (the same seed, and for samplers --chains, give the same answer)", ": \"interrupted after N samples\""
	if mode == engine.ModeMAP {
		seedHelp, partialHelp = "maxwalksat: random seed (the same seed gives the same answer)", ""
	}
	fl.BoolVar(&f.allowPartial, "allow-partial", false, "on Ctrl-C print the answer so far (marked as interrupted"+partialHelp+") instead of failing with exit status 130")
	fl.Uint64Var(&f.seed, "seed", 0, seedHelp)
	fl.StringVarP(&f.output, "output", "o", "", "output file (default stdout)")
	fl.StringVarP(&f.output, "result", "r", "", "alias of --output (as in Alchemy)")
	fl.StringVar(&f.outFormat, "output-format", "", "mar (UAI MAR/MPE; the default for factor graphs), alchemy (the default for MLNs) or json")
	f.mlnFlags.register(cmd)
}

func exactArgs(n int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != n {
			return usageError{fmt.Errorf("%s takes %d argument(s), got %d", cmd.Name(), n, len(args))}
		}
		return nil
	}
}

// request turns the flags into the engine's Request: the model, the
// query and the MLN and colour options, and, by engine.Named's rule (the
// Python package's too), --method, the settings given as flags, --prop
// and the dynamic options.
func (f *inferFlags) request(fl *pflag.FlagSet, path string) (engine.Request, error) {
	req := engine.Request{Model: path, Format: f.format, Evidence: f.evidence,
		Query: f.query, QueryFiles: f.queryFiles, Ground: f.mlnFlags.options(), ColourMode: f.colorMode,
		Workers: f.workers, Seed: f.seed, AllowUnconverged: f.allowUnconverged, RequireConverged: f.requireConverged, LogZ: f.outFormat == "json", Tolerance: f.tolerance}
	d, err := mlnfile.ParseDialect(f.dialect)
	if err != nil {
		return req, usageError{err}
	}
	req.Dialect = d
	n := engine.Named{Mode: f.mode, Method: f.method, MaxProduct: f.maxProduct, Given: map[string]string{}, Props: map[string]string{}}
	fl.Visit(func(fg *pflag.Flag) {
		if engine.IsSetting(f.mode, fg.Name) {
			n.Given[fg.Name] = fg.Value.String()
		}
	})
	for _, kv := range f.props {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return req, usageError{fmt.Errorf("--prop %q: want NAME=VALUE", kv)}
		}
		n.Props[k] = v
	}
	if f.dyn.on {
		n.Dynamic = f.dyn.options(fl)
	}
	if err := n.Resolve(&req); err != nil {
		return req, cmdError(path, err)
	}
	return req, cmdError(path, engine.CheckOptions(req))
}

// cmdError phrases the engine's errors for the command line
// (engine.Explain): request mistakes as usage errors, Ctrl-C as exit
// status 130.
func cmdError(path string, err error) error {
	err = engine.Explain(path, err)
	var x *engine.Explained
	switch {
	case !errors.As(err, &x):
	case x.Usage:
		return usageError{x}
	case x.Interrupted:
		return &interruptedError{x.Msg}
	}
	return err
}

// interruptedError is a run stopped by Ctrl-C: exit status 130 (as a
// shell reports a process killed by SIGINT).
type interruptedError struct{ msg string }

func (e *interruptedError) Error() string { return e.msg }

func runInfer(ctx context.Context, cmd *cobra.Command, f *inferFlags, path string, stdout io.Writer) error {
	if ctx == nil {
		ctx = context.Background()
	}
	// Ctrl-C or SIGTERM cancels ctx (main's handleSignals): samplers then
	// give their estimates so far.
	if f.allowPartial {
		partialGrace.Store(true)
	}
	mlnModel := format.IsMLN(path, f.format)
	switch {
	case f.outFormat == "" && mlnModel:
		f.outFormat = "alchemy"
	case f.outFormat == "":
		f.outFormat = "mar"
	case f.outFormat == "json", f.outFormat == "alchemy" && mlnModel, f.outFormat == "mar" && !mlnModel && !f.dyn.on:
	case f.dyn.on:
		return usageError{fmt.Errorf("unknown --output-format %q for a dynamic MLN (want alchemy or json)", f.outFormat)}
	case mlnModel:
		return usageError{fmt.Errorf("unknown --output-format %q for an MLN (want alchemy or json)", f.outFormat)}
	default:
		return usageError{fmt.Errorf("unknown --output-format %q (want mar or json)", f.outFormat)}
	}
	var err error
	if f.dyn.on {
		err = f.dyn.check()
	} else {
		err = notDynamic(cmd.Flags())
	}
	if err == nil && !mlnModel {
		err = notMLN(cmd.Flags(), path)
	}
	if err != nil {
		return err
	}
	req, err := f.request(cmd.Flags(), path)
	if err != nil {
		return err
	}
	out, err := openOutput(f.output)
	if err != nil {
		return err
	}
	prog := newProgress(f.quiet)
	req.Progress = prog.report
	req.Warn = func(ws []*pos.Error) { warn(f.quiet, ws) }
	res, err := engine.Run(ctx, req)
	prog.done()
	if err != nil {
		return cmdError(path, err)
	}
	if res.Interrupted() && !f.allowPartial {
		return &interruptedError{fmt.Sprintf("%s: %s; nothing printed (--allow-partial prints the answer so far, marked as such)", path, res.InterruptedNote())}
	}
	if sig := signalled.Load(); sig != nil && !f.allowPartial {
		// A route that answered with what it had when the signal came
		// (auto's BP slice, cut short) is still an interrupted run.
		return &interruptedError{fmt.Sprintf("%s: %s: nothing printed (--allow-partial prints the answer so far)", path, signalName(*sig))}
	}
	report(res, f.quiet)
	if f.dyn.on {
		if !f.quiet {
			fmt.Fprintln(os.Stderr, "lifted: "+res.Summary())
		}
		if err := f.dyn.writePlot(res, stdout); err != nil {
			return err
		}
	}
	err = out.Write(stdout, func(w io.Writer) error {
		switch f.outFormat {
		case "json":
			return engine.WriteJSON(w, res)
		case "alchemy":
			return engine.WriteAlchemy(w, res)
		}
		return engine.WriteUAI(w, res)
	})
	if err == nil && !f.quiet && !f.dyn.on {
		fmt.Fprintln(os.Stderr, "lifted: "+res.Summary())
	}
	return err
}

// report says on stderr which method answered and why, which fallback
// converged, and whether the answer is interrupted or did not converge:
// those last lines are printed even with --quiet, since the UAI MAR
// format has no place to mark them.
func report(res *engine.Result, quiet bool) {
	for _, m := range res.Messages() {
		switch {
		case m.Level == engine.Alert, m.Level == engine.Warning && !quiet:
			fmt.Fprintln(os.Stderr, "lifted: warning: "+m.Text)
		case m.Level == engine.Info && !quiet:
			fmt.Fprintln(os.Stderr, "lifted: "+m.Text)
		}
	}
}

// writeOutput writes to the named file, checked first and replaced only
// when complete, or, for "" or "-", to stdout (outfile.Write).
func writeOutput(path string, stdout io.Writer, fn func(io.Writer) error) error {
	out, err := openOutput(path)
	if err != nil {
		return err
	}
	return out.Write(stdout, fn)
}

// openOutput checks before any work that path can be written
// (outfile.Open); a directory is a usage error.
func openOutput(path string) (*outfile.File, error) {
	out, err := outfile.Open(path)
	var de *outfile.DirError
	if errors.As(err, &de) {
		return nil, usageError{err}
	}
	return out, err
}

// methodHelp lists the registered inference methods for --method's help.
func methodHelp() string {
	var parts []string
	for _, m := range infer.Methods() {
		parts = append(parts, m.Name+" ("+m.Summary+")")
	}
	return strings.Join(parts, ", ")
}
