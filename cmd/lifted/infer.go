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
	_ "github.com/lifted-dev/lifted/infer/exact"   // registers "wfomc" and "auto"
	_ "github.com/lifted-dev/lifted/infer/mapauto" // registers map-auto
	"github.com/lifted-dev/lifted/infer/mcmc"      // registers gibbs, mcsat and bgibbs
	_ "github.com/lifted-dev/lifted/infer/mws"     // registers maxwalksat
	"github.com/lifted-dev/lifted/lift"
)

// graphFlags are the flags shared by infer and compress.
type graphFlags struct {
	evidence  []string
	format    string
	colorMode string
	quiet     bool
	workers   workersFlag
}

func (f *graphFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringArrayVarP(&f.evidence, "evidence", "e", nil, "evidence file: UAI .evid (2014 or 2010 form) for factor graphs; Alchemy .db for MLNs (repeatable)")
	fl.StringVar(&f.format, "format", "", "model format: uai, fg or cnf (default: from the extension)")
	fl.StringVar(&f.colorMode, "color-mode", "auto", "colour passing: auto, positional, symmetric (tables invariant under permutation) or cnf (clauses by literal sign); auto = cnf for CNF input, else positional")
	fl.BoolVar(&f.quiet, "quiet", false, "no progress or warnings on stderr")
	f.workers.register(fl)
}

type inferFlags struct {
	graphFlags
	mlnFlags
	method      string
	schedule    string
	damping     float64
	tol         float64
	maxIter     int
	maxProduct  bool
	samples     int
	burnIn      int
	chains      int
	blockSize   int
	blockStates int
	timeLimit   time.Duration
	seed        uint64
	tries       int
	maxFlips    int
	noise       float64
	output      string
	outFormat   string
	// allowUnconverged prints the answer of an iterative method that did
	// not converge (marked as such) instead of failing with exit status 3.
	allowUnconverged bool
	props            []string
	dyn              dynamicFlags // dynamic.go
}

func newInferCmd() *cobra.Command {
	var f inferFlags
	cmd := &cobra.Command{
		Use:   "infer [flags] MODEL",
		Short: "Marginals (or a MAP assignment): exact lifted inference where it applies, else lifted BP",
		Long: `infer runs belief propagation on MODEL (.uai, .fg or .cnf) and prints the
marginal of every variable in the UAI MAR format, or, with --max-product, a MAP
assignment in the UAI MPE format. For a Markov logic network (.mln, with
Alchemy .db evidence and -q query predicates) it grounds the model and prints
one query atom per line in Alchemy's result format. The default method, auto,
answers an MLN exactly by weighted first-order model counting (wfomc) when
that lifts the model within its budget, and by lifted BP otherwise (always on
a factor graph); it says which and why on stderr. Lifted BP first compresses
the graph by colour passing, and BP on the compressed graph returns exactly
the ground BP answer.

BP that does not converge is retried with damping 0.5, then 0.9, then the
sequential schedule; if none converges, infer prints nothing and exits with
status 3, unless --allow-unconverged (the answer is then marked as not
converged). Samplers whose chains have not mixed (worst R-hat > 1.1) are
treated the same way.

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
	f.graphFlags.register(cmd)
	fl := cmd.Flags()
	fl.StringVar(&f.method, "method", "auto", "inference method: "+methodHelp())
	fl.StringVar(&f.schedule, "schedule", "flood", "message schedule: flood or seq")
	fl.Float64Var(&f.damping, "damping", 0, "damping in [0,1): weight of the previous message")
	fl.Float64Var(&f.tol, "tol", 1e-8, "convergence tolerance on the largest message change")
	fl.IntVar(&f.maxIter, "max-iter", 1000, "maximum BP iterations")
	fl.BoolVar(&f.maxProduct, "max-product", false, "max-product BP: print a MAP assignment (UAI MPE format)")
	fl.StringArrayVar(&f.props, "prop", nil, "set a property of the method, NAME=VALUE (repeatable; see the methods' properties above), e.g. --prop max-states=1e7")
	fl.BoolVar(&f.allowUnconverged, "allow-unconverged", false, "print the answer of BP that did not converge even with its fallbacks (marked as not converged) instead of failing with exit status 3")
	fl.IntVar(&f.samples, "samples", 1000, "samplers: samples each chain keeps after the burn-in (0: until --time-limit)")
	fl.IntVar(&f.burnIn, "burn-in", 100, "samplers: steps each chain discards first")
	fl.IntVar(&f.chains, "chains", 0, "samplers: independent chains (0: one per core)")
	fl.DurationVar(&f.timeLimit, "time-limit", 0, "samplers and maxwalksat: stop after this long, e.g. 30s (0: no limit)")
	fl.Uint64Var(&f.seed, "seed", 0, "samplers and maxwalksat: random seed (the same seed, and for samplers --chains, give the same answer)")
	fl.IntVar(&f.tries, "tries", 1, "maxwalksat: restarts from a random world")
	fl.IntVar(&f.maxFlips, "max-flips", 100000, "maxwalksat: steps per try")
	fl.Float64Var(&f.noise, "noise", 0.5, "maxwalksat: probability of a random-walk step")
	fl.IntVar(&f.blockSize, "block-size", mcmc.DefaultBlockSize, "bgibbs: most variables in a block")
	fl.IntVar(&f.blockStates, "block-states", mcmc.DefaultBlockStates, "bgibbs: most joint states of a block")
	fl.StringVarP(&f.output, "output", "o", "", "output file (default stdout)")
	fl.StringVarP(&f.output, "result", "r", "", "alias of --output (as in Alchemy)")
	fl.StringVar(&f.outFormat, "output-format", "", "mar (UAI MAR/MPE; the default for factor graphs), alchemy (the default for MLNs) or json")
	f.mlnFlags.register(cmd)
	f.dyn.register(cmd)
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
var methodFlags = []string{"schedule", "damping", "tol", "max-iter", "samples", "burn-in", "chains", "time-limit", "block-size", "block-states", "tries", "max-flips", "noise"}

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
	for _, kv := range f.props {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, opt, usageError{fmt.Errorf("--prop %q: want NAME=VALUE", kv)}
		}
		if !m.HasProperty(k) {
			return nil, opt, usageError{fmt.Errorf("--prop %s: --method %s has no property %q (%s)", kv, m.Name, k, propNames(m))}
		}
		props[k] = v
	}
	opt.Query.Task = infer.Marginals
	opt.Query.Seed = f.seed
	if f.maxProduct {
		opt.Query.Task = infer.MAP
	}
	if !m.Supports(opt.Query.Task) {
		hint := ""
		if !f.maxProduct && m.Supports(infer.MAP) {
			hint = " (it answers MAP queries: add --max-product)"
		}
		return nil, opt, usageError{fmt.Errorf("--method %s does not answer %s queries%s", m.Name, opt.Query.Task, hint)}
	}
	alg, _, err := infer.New(m.Name, props)
	if err != nil {
		return nil, opt, propertyError(err)
	}
	opt.Lifted = m.Lifted
	opt.Unconverged = infer.Refuse
	if f.allowUnconverged {
		opt.Unconverged = infer.Retry
	}
	if opt.Refiner, err = f.workers.refiner(); err != nil {
		return nil, opt, err
	}
	opt.Query.Workers = f.workers.n // map-auto, maxwalksat: components searched at once
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
	opt.Query.Progress = prog.iteration
	opt.Colour.Progress = prog.colour
}

// reportRun says on stderr which method answered and why (when a method
// chose, as auto does), which fallback converged when the run as asked did
// not, and, under --allow-unconverged, that the answer did not converge:
// that last line is printed even with --quiet, since the UAI MAR format has
// no place to mark it.
func reportRun(ans *infer.Answer, quiet bool) {
	st := ans.Stats
	if st.Method != "" && !quiet {
		fmt.Fprintf(os.Stderr, "lifted: method %s: %s\n", st.Method, st.MethodReason)
	}
	if st.Fallback != "" && !quiet {
		fmt.Fprintf(os.Stderr, "lifted: BP did not converge as asked; it converged with %s\n", st.Fallback)
	}
	if st.Interrupted && st.Objective != nil {
		fmt.Fprintln(os.Stderr, "lifted: warning: interrupted: the world printed is the best found so far")
	} else if st.Interrupted {
		fmt.Fprintf(os.Stderr, "lifted: warning: interrupted: the estimates are those of the %d samples so far\n", st.Samples)
	}
	switch {
	case ans.Converged:
	case st.Chains > 0: // a sampler
		fmt.Fprintf(os.Stderr, "lifted: warning: NOT CONVERGED: the chains have not mixed (worst R-hat %s > 1.1); the estimates printed are not reliable\n", rhat(st.RHat))
	default:
		fmt.Fprintf(os.Stderr, "lifted: warning: NOT CONVERGED: BP stopped after %d iterations (last max change %.3g), fallbacks included; the answer printed is not a BP fixed point\n",
			st.BPIterations, ans.MaxChange)
	}
}

// notConverged phrases a run that did not converge (exit status 3).
func notConverged(path string, err error) error {
	var nc *infer.NotConvergedError
	if errors.As(err, &nc) {
		if st := nc.Answer.Stats; st.Chains > 0 {
			return &phrased{err: nc, msg: fmt.Sprintf("%s: the sampler's chains have not mixed (worst R-hat %s > 1.1 after %d samples); raise --samples or --burn-in, or use --allow-unconverged to print the estimates (marked as such)",
				path, rhat(st.RHat), st.Samples)}
		}
		return fmt.Errorf("%s: BP %w; raise --max-iter, or use --allow-unconverged to print the non-converged answer (marked as such)", path, nc)
	}
	return err
}

// phrased gives an error a message of its own while errors.As still finds
// it (exit statuses depend on the kind).
type phrased struct {
	err error
	msg string
}

func (e *phrased) Error() string { return e.msg }
func (e *phrased) Unwrap() error { return e.err }

func runInfer(ctx context.Context, cmd *cobra.Command, f *inferFlags, path string, stdout io.Writer) error {
	if ctx == nil {
		ctx = context.Background()
	}
	// Ctrl-C cancels the run (samplers then print their estimates so far);
	// a second one kills the process as usual.
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt)
	defer stop()
	context.AfterFunc(ctx, stop)
	if f.dyn.on {
		return runInferDynamic(ctx, cmd, f, path, stdout)
	}
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
		return notConverged(path, bpHint(err))
	}
	reportRun(ans, f.quiet)
	defer summarize(f.quiet, ans.Stats, -1, 0) // after the output
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
		if st := ans.Stats; st.Bound != nil { // lp, ilp, map-auto
			out["objective"], out["bound"], out["gap"] = finite(*st.Objective), finite(*st.Bound), finite(*st.Gap)
		} else if st.Objective != nil { // maxwalksat: no bound
			out["objective"], out["bound"], out["gap"] = finite(*st.Objective), nil, nil
		}
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

// methodHelp lists the registered inference methods for --method's help.
func methodHelp() string {
	var parts []string
	for _, m := range infer.Methods() {
		parts = append(parts, m.Name+" ("+m.Summary+")")
	}
	return strings.Join(parts, ", ")
}

// propNames lists a method's properties for an error message.
func propNames(m infer.Method) string {
	if len(m.Props) == 0 {
		return "it has none"
	}
	names := make([]string, len(m.Props))
	for i, p := range m.Props {
		names[i] = p.Name
	}
	return "it has " + strings.Join(names, ", ")
}
