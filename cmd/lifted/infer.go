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
	"os/signal"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/lifted-dev/lifted/format/uai"
	"github.com/lifted-dev/lifted/infer"
	"github.com/lifted-dev/lifted/infer/bp"
	_ "github.com/lifted-dev/lifted/infer/mcmc" // registers gibbs and mcsat
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
	samples    int
	burnIn     int
	chains     int
	timeLimit  time.Duration
	seed       uint64
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
the ground BP answer.

Methods (--method NAME; the flags --schedule, --damping, --tol, --max-iter,
--samples, --burn-in, --chains and --time-limit set the properties of the same
names; --seed seeds the samplers):
` + infer.Describe(),
		Example: `  lifted infer examples/fg/smokers10.uai
  lifted infer examples/mln/smokers.mln -e examples/mln/smokers.db -q Smokes,Cancer
  lifted infer model.uai -e model.uai.evid --output-format json
  lifted infer --method bp --schedule seq --damping 0.5 model.fg
  lifted infer --method mcsat --samples 5000 --seed 1 model.mln -q Smokes`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runInfer(cmd.Context(), cmd, &f, args[0], cmd.OutOrStdout())
		},
	}
	f.graphFlags.register(cmd)
	fl := cmd.Flags()
	fl.StringVar(&f.method, "method", "lbp", "inference method: "+methodHelp())
	fl.StringVar(&f.schedule, "schedule", "flood", "message schedule: flood or seq")
	fl.Float64Var(&f.damping, "damping", 0, "damping in [0,1): weight of the previous message")
	fl.Float64Var(&f.tol, "tol", 1e-8, "convergence tolerance on the largest message change")
	fl.IntVar(&f.maxIter, "max-iter", 1000, "maximum BP iterations")
	fl.BoolVar(&f.maxProduct, "max-product", false, "max-product BP: print a MAP assignment (UAI MPE format)")
	fl.IntVar(&f.samples, "samples", 1000, "samplers: samples each chain keeps after the burn-in (0: until --time-limit)")
	fl.IntVar(&f.burnIn, "burn-in", 100, "samplers: steps each chain discards first")
	fl.IntVar(&f.chains, "chains", 0, "samplers: independent chains (0: one per core)")
	fl.DurationVar(&f.timeLimit, "time-limit", 0, "samplers: stop after this long, e.g. 30s (0: no limit)")
	fl.Uint64Var(&f.seed, "seed", 0, "samplers: random seed (the same seed and --chains give the same answer)")
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

// methodFlags are the flags that become properties of the chosen method,
// named as the properties are.
var methodFlags = []string{"schedule", "damping", "tol", "max-iter", "samples", "burn-in", "chains", "time-limit"}

// inferSetup resolves --method and its properties from the flags, and the
// query task and colour-passing mode. A flag the method has no property for
// is an error when given explicitly.
func inferSetup(cmd *cobra.Command, f *inferFlags, format string) (infer.Algorithm, infer.Options, error) {
	var opt infer.Options
	m, ok := infer.Lookup(f.method)
	if !ok {
		return nil, opt, usageError{fmt.Errorf("unknown --method %q (want %s)", f.method, infer.OrList(infer.Names()))}
	}
	props := infer.Properties{}
	for _, name := range methodFlags {
		fl := cmd.Flags().Lookup(name)
		switch {
		case m.HasProperty(name):
			props[name] = fl.Value.String()
		case fl.Changed:
			return nil, opt, usageError{fmt.Errorf("--%s does not apply to --method %s", name, m.Name)}
		}
	}
	opt.Query.Task = infer.Marginals
	opt.Query.Seed = f.seed
	if f.maxProduct {
		opt.Query.Task = infer.MAP
	}
	if !m.Supports(opt.Query.Task) {
		return nil, opt, usageError{fmt.Errorf("--method %s does not answer %s queries", m.Name, opt.Query.Task)}
	}
	alg, _, err := infer.New(m.Name, props)
	if err != nil {
		return nil, opt, propertyError(err)
	}
	opt.Lifted = m.Lifted
	opt.Colour.Mode, err = colourMode(f.colorMode, format)
	return alg, opt, err
}

// propertyError phrases a bad property value as the flag of that name.
func propertyError(err error) error {
	var pe *infer.PropertyError
	if errors.As(err, &pe) {
		if pe.Want != "" {
			return usageError{fmt.Errorf("unknown --%s %q (want %s)", pe.Name, pe.Value, pe.Want)}
		}
		return usageError{fmt.Errorf("--%s %s", pe.Name, pe.Msg)}
	}
	return err
}

// progressHooks sends colour-passing and iteration progress to prog.
func progressHooks(opt *infer.Options, prog *progress) {
	opt.Query.Progress = func(p infer.Progress) {
		switch {
		case p.Samples > 0 && p.RHat > 0:
			prog.printf("sampling: %d samples, worst R-hat %.4g", p.Samples, p.RHat)
		case p.Samples > 0:
			prog.printf("sampling: %d samples", p.Samples)
		default:
			prog.printf("BP iteration %d, max change %.3g", p.Iteration, p.MaxChange)
		}
	}
	opt.Colour.Progress = func(round, nv, nf int) {
		prog.printf("colour passing round %d: %d variable and %d factor colours", round, nv, nf)
	}
}

// warnUnconverged says on stderr that an iterative method stopped at its
// limit.
func warnUnconverged(ans *infer.Answer, quiet bool) {
	if st := ans.Stats; st.Chains > 0 { // a sampler
		if st.Interrupted {
			fmt.Fprintf(os.Stderr, "lifted: warning: interrupted: the estimates are those of the %d samples so far\n", st.Samples)
		}
		if !ans.Converged && !quiet {
			fmt.Fprintf(os.Stderr, "lifted: warning: the chains have not mixed: worst R-hat %.4g > 1.1; try more --samples or --burn-in\n", st.RHat)
		}
		return
	}
	if !ans.Converged && !quiet {
		fmt.Fprintf(os.Stderr, "lifted: warning: BP did not converge in %d iterations (last max change %.3g); try --damping or --max-iter\n",
			ans.Stats.BPIterations, ans.MaxChange)
	}
}

func runInfer(ctx context.Context, cmd *cobra.Command, f *inferFlags, path string, stdout io.Writer) error {
	if ctx == nil {
		ctx = context.Background()
	}
	// Ctrl-C cancels the run (samplers then print their estimates so far);
	// a second one kills the process as usual.
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt)
	defer stop()
	context.AfterFunc(ctx, stop)
	if isMLN(path, f.format) {
		return runInferMLN(ctx, cmd, f, path, stdout)
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
	alg, opt, err := inferSetup(cmd, f, l.format)
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
	progressHooks(&opt, prog)
	ans, err := infer.Run(ctx, alg, l.graph, ev, opt)
	prog.done()
	if err != nil {
		return bpHint(err)
	}
	warnUnconverged(ans, f.quiet)
	return writeOutput(f.output, stdout, func(w io.Writer) error {
		if f.outFormat == "json" {
			return writeInferJSON(w, ans)
		}
		if ans.Task == infer.MAP {
			return uai.WriteMPE(w, ans.Assignment)
		}
		return uai.WriteMAR(w, ans.Marginals())
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

func writeInferJSON(w io.Writer, ans *infer.Answer) error {
	out := map[string]any{"stats": ans.Stats}
	if ans.Task == infer.MAP {
		out["assignment"] = ans.Assignment
	} else {
		out["marginals"] = ans.Marginals()
		out["log_z"] = logZ(ans, 0)
	}
	enc := json.NewEncoder(w)
	return enc.Encode(out)
}

// logZ is the Answer's log Z plus offset for the JSON output: null when the
// method gives none (samplers) or it is not finite.
func logZ(ans *infer.Answer, offset float64) any {
	if ans.LogZKind == infer.NoLogZ {
		return nil
	}
	return finite(ans.LogZ + offset)
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

// methodHelp lists the registered inference methods for --method's help.
func methodHelp() string {
	var parts []string
	for _, m := range infer.Methods() {
		parts = append(parts, m.Name+" ("+m.Summary+")")
	}
	return strings.Join(parts, ", ")
}
