package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/lifted-dev/lifted/format"
	"github.com/lifted-dev/lifted/ground"
	"github.com/lifted-dev/lifted/infer"
	"github.com/lifted-dev/lifted/infer/bp"
	"github.com/lifted-dev/lifted/infer/exact"
	"github.com/lifted-dev/lifted/lift"
	"github.com/lifted-dev/lifted/mln"
	"github.com/lifted-dev/lifted/pos"
)

// mlnFlags are the infer flags that only apply to Markov logic networks.
type mlnFlags struct {
	query           []string
	queryFiles      []string
	cw, ow          []string
	defaultWeight   optFloat
	maxGround       int64
	alchemyCNF      bool
	mergeDuplicates bool
	// exactMax grounds for a MAP query (ground.Options.ExactMax); set
	// from --max-product, not a flag of its own.
	exactMax bool
	// construction is --construction: first-order (the default: lift
	// before grounding where lift/firstorder applies) or ground.
	construction string
}

func (f *mlnFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringArrayVarP(&f.query, "query", "q", nil, "MLN: query predicates or atoms, comma-separated, e.g. Smokes,Cancer or 'Friends(Anna,y)' (repeatable)")
	fl.StringArrayVar(&f.queryFiles, "query-file", nil, "MLN: file of query atoms, one per line or comma-separated (Alchemy's -f, Tuffy's -queryFile; repeatable)")
	fl.StringSliceVar(&f.cw, "cw", nil, "MLN: predicates to treat as closed-world")
	fl.StringSliceVar(&f.ow, "ow", nil, "MLN: predicates to treat as open-world")
	fl.Var(&f.defaultWeight, "default-weight", "MLN: weight for formulas written without one (otherwise they are an error)")
	fl.Int64Var(&f.maxGround, "max-ground", 0, "MLN: refuse groundings with more ground formulas or atoms than this (0: sized to the available memory; -1: no limit)")
	fl.BoolVar(&f.alchemyCNF, "alchemy-cnf", false, "MLN: reproduce Alchemy's clause weighting (a formula's weight split over its CNF clauses)")
	registerConstruction(fl, &f.construction)
	fl.BoolVar(&f.mergeDuplicates, "merge-duplicates", false, "MLN: combine ground formulas over the same atoms into one factor, as Alchemy does (default: one factor per ground formula)")
}

// optFloat is a float flag that remembers whether it was given.
type optFloat struct {
	v   float64
	set bool
}

// String prints the value, or "" when the flag was not given.
func (o *optFloat) String() string {
	if !o.set {
		return ""
	}
	return strconv.FormatFloat(o.v, 'g', -1, 64)
}

// Set parses a finite number.
func (o *optFloat) Set(s string) error {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return fmt.Errorf("want a finite number, got %q", s)
	}
	o.v, o.set = v, true
	return nil
}

// Type names the flag's type in the help.
func (o *optFloat) Type() string { return "float" }

// isMLN reports whether the model is a Markov logic network.
func isMLN(path, formatFlag string) bool { return format.IsMLN(path, formatFlag) }

// mlnModel is an MLN with its evidence, grounded, and its query atoms.
type mlnModel struct {
	m       *mln.MLN
	db      *mln.DB
	gr      *ground.Grounding
	opt     ground.Options // how gr was made
	queries []ground.QueryAtom
	// notFirstOrder says why the first-order construction was not used.
	notFirstOrder string
}

// loadMLN parses the model and its evidence, grounds it and lists the
// query atoms.
func loadMLN(ctx context.Context, path string, evidence []string, mf *mlnFlags, quiet, needQuery bool) (*mlnModel, error) {
	pm, err := parseMLN(path, evidence, mf, quiet, needQuery)
	if err != nil {
		return nil, err
	}
	return pm.ground(ctx, path, quiet)
}

// parsedMLN is an MLN with its evidence and query, and the options to
// ground it with.
type parsedMLN struct {
	m   *mln.MLN
	db  *mln.DB
	opt ground.Options
}

// parseMLN parses the model, its evidence and its query atoms.
func parseMLN(path string, evidence []string, mf *mlnFlags, quiet, needQuery bool) (*parsedMLN, error) {
	in, err := ground.ReadInput(path, evidence, mf.query, mf.queryFiles)
	warn(quiet, in.Warnings)
	if err == nil && needQuery {
		err = in.Query.Need()
	}
	var qe *ground.QueryError
	if errors.As(err, &qe) {
		return nil, usageError{err}
	}
	if err != nil {
		return nil, err
	}
	m, db, q := in.MLN, in.DB, in.Query
	opt := ground.Options{
		QueryAtoms: q, ClosedWorld: mf.cw, OpenWorld: mf.ow,
		DefaultWeight: mf.defaultWeight.v, UseDefaultWeight: mf.defaultWeight.set,
		MaxGround: mf.maxGround, AlchemyCNF: mf.alchemyCNF, MergeDuplicates: mf.mergeDuplicates,
		ExactMax: mf.exactMax,
	}
	return &parsedMLN{m: m, db: db, opt: opt}, nil
}

// ground grounds a parsed MLN, with progress on stderr.
func (pm *parsedMLN) ground(ctx context.Context, path string, quiet bool) (*mlnModel, error) {
	m, db, opt := pm.m, pm.db, pm.opt
	prog := newProgress(quiet)
	opt.Progress = func(p ground.Progress) {
		prog.update("grounding", steps(p.Groundings), steps(p.Total), fmt.Sprintf("formula %d of %d, %d ground atoms, %d ground formulas so far, %.3g of %.3g predicted groundings",
			p.Formula, p.Formulas, p.Atoms, p.Factors, p.Groundings, p.Total))
	}
	gr, err := ground.Ground(ctx, m, db, opt)
	prog.done()
	if err != nil {
		return nil, withPath(path, err)
	}
	return &mlnModel{m: m, db: db, gr: gr, opt: opt, queries: gr.Queries}, nil
}

// withPath prefixes an error without a position with the model's path.
func withPath(path string, err error) error {
	var pe *pos.Error
	if errors.As(err, &pe) {
		return err
	}
	return fmt.Errorf("%s: %w", path, err)
}

// warn prints parser warnings on stderr (at most ten).
func warn(quiet bool, ws []*pos.Error) {
	if quiet {
		return
	}
	for i, w := range ws {
		if i == 10 {
			fmt.Fprintf(os.Stderr, "lifted: warning: %d more warnings\n", len(ws)-10)
			break
		}
		fmt.Fprintf(os.Stderr, "lifted: warning: %v\n", w)
	}
}

// mlnStats are the figures an MLN run reports (infer.MLNStats).
type mlnStats = infer.MLNStats

func statsOf(st infer.Stats, mm *mlnModel) mlnStats {
	gr := mm.gr
	return mlnStats{Stats: st, GroundAtoms: int64(gr.NumAtoms), GroundFormulas: gr.NumFormulas, GroundSeconds: gr.Seconds,
		ConstructionReason: mm.notFirstOrder}
}

func runInferMLN(ctx context.Context, cmd *cobra.Command, f *inferFlags, path string, stdout io.Writer) error {
	switch f.outFormat {
	case "":
		f.outFormat = "alchemy"
	case "alchemy", "json":
	default:
		return usageError{fmt.Errorf("unknown --output-format %q for an MLN (want alchemy or json)", f.outFormat)}
	}
	alg, opt, err := inferSetup(cmd, f, "mln")
	if err != nil {
		return err
	}
	f.mlnFlags.exactMax = opt.Query.Task == infer.MAP
	pm, err := parseMLN(path, f.evidence, &f.mlnFlags, f.quiet, true)
	if err != nil {
		return err
	}
	done, why, err := inferFirstOrder(ctx, cmd, f, pm, path, alg, opt, stdout)
	if done || err != nil {
		return err
	}
	if done, err := inferUngrounded(ctx, f, pm, path, alg, opt, stdout); done || err != nil {
		return err
	}
	alg, done, autoWhy, err := inferAuto(ctx, f, pm, path, alg, opt, stdout)
	if done || err != nil {
		return err
	}
	if autoWhy != "" {
		why = autoWhy
	}
	mm, err := pm.ground(ctx, path, f.quiet)
	if err != nil {
		if done, err := inferTooLarge(ctx, f, pm, path, alg, opt, err, stdout); done {
			return err
		}
		return err
	}
	mm.notFirstOrder = why
	if opt.Colour.Mode == lift.Symmetric {
		opt.Colour.Symmetric = symmetricTables(mm.gr.Graph)
	}
	prog := newProgress(f.quiet)
	progressHooks(&opt, prog)
	ans, err := infer.RunModel(ctx, alg, exact.NewModel(mm.gr, mm.opt), opt)
	prog.done()
	if err != nil {
		return notConverged(path, mlnError(path, err))
	}
	reportRun(ans, f.quiet)
	defer summarize(f.quiet, ans.Stats, mm.gr.NumAtoms, mm.gr.Seconds) // after the output
	return writeOutput(f.output, stdout, func(w io.Writer) error {
		if f.outFormat == "json" {
			return writeMLNJSON(w, mm, ans)
		}
		return writeAlchemy(w, mm, ans)
	})
}

// mlnError explains BP failures that come from the model's hard formulas.
func mlnError(path string, err error) error {
	switch {
	case errors.Is(err, ground.ErrContradiction):
		return fmt.Errorf("%s: %w (the hard formulas cannot all hold given the evidence)", path, err)
	case errors.Is(err, bp.ErrNotNormalizable):
		return fmt.Errorf("%s: %w; with hard formulas this means that they cannot all hold given the evidence, "+
			"or that BP's messages exclude every state (--damping or --schedule seq sometimes help)", path, err)
	}
	return withPath(path, err)
}

// writeAlchemy prints one query atom per line with its probability (or,
// for a MAP query, its MAP value), as Alchemy's infer does.
//
// An answer that did not converge (--allow-unconverged) starts with a
// comment line saying so, in the // syntax of Alchemy's .mln and .db files.
func writeAlchemy(w io.Writer, mm *mlnModel, ans *infer.Answer) error {
	if !ans.Converged {
		if _, err := fmt.Fprintf(w, "// NOT CONVERGED: BP stopped after %d iterations (last max change %.3g)\n", ans.Stats.BPIterations, ans.MaxChange); err != nil {
			return err
		}
	}
	for _, q := range mm.queries {
		var err error
		if ans.Task == infer.MAP {
			_, err = fmt.Fprintf(w, "%s %d\n", q.Name, ans.Assignment[q.Var])
		} else {
			_, err = fmt.Fprintf(w, "%s %s\n", q.Name, formatProb(ans.Marginal(int(q.Var))[1]))
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// formatProb prints a probability with six significant digits, as
// Alchemy does.
func formatProb(p float64) string {
	if math.IsNaN(p) {
		p = 0.5
	}
	return strconv.FormatFloat(p, 'g', 6, 64)
}

// writeMLNJSON prints {"marginals": {...}, "log_z": …, "stats": {...}}, or
// "assignment" for a MAP query, with the atoms in output order.
func writeMLNJSON(w io.Writer, mm *mlnModel, ans *infer.Answer) error {
	var b strings.Builder
	isMAP := ans.Task == infer.MAP
	key := "marginals"
	if isMAP {
		key = "assignment"
	}
	fmt.Fprintf(&b, "{%q:{", key)
	for i, q := range mm.queries {
		if i > 0 {
			b.WriteByte(',')
		}
		name, _ := json.Marshal(q.Name)
		b.Write(name)
		b.WriteByte(':')
		if isMAP {
			fmt.Fprintf(&b, "%d", ans.Assignment[q.Var])
		} else {
			b.WriteString(strconv.FormatFloat(ans.Marginal(int(q.Var))[1], 'g', -1, 64))
		}
	}
	b.WriteString("}")
	if st := ans.Stats; isMAP && st.Objective != nil { // every MAP method with a score: one scale
		kvs := []struct {
			k string
			v *float64
		}{{"objective", st.Objective}, {"bound", st.Bound}, {"gap", st.Gap}}
		for _, kv := range kvs {
			js := []byte("null") // maxwalksat: no bound
			if kv.v != nil {
				js, _ = json.Marshal(finite(*kv.v))
			}
			fmt.Fprintf(&b, ",%q:%s", kv.k, js)
		}
	}
	if !isMAP {
		lz, _ := json.Marshal(logZ(ans, mm.gr.LogZOffset))
		b.WriteString(`,"log_z":`)
		b.Write(lz)
	}
	st, err := statsJSON(statsOf(ans.Stats, mm))
	if err != nil {
		return err
	}
	b.WriteString(`,"stats":`)
	b.Write(st)
	b.WriteString("}\n")
	_, err = io.WriteString(w, b.String())
	return err
}

// statsJSON encodes the statistics of an MLN run, not HTML-escaped:
// stats.method_reason may quote formulas ("=>").
func statsJSON(st mlnStats) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(st); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// compressMLN grounds an MLN and runs colour passing only, printing the
// statistics (with ground_atoms and ground_formulas) as JSON.
func compressMLN(ctx context.Context, f *graphFlags, mf *mlnFlags, path, output string, stdout io.Writer) error {
	if ctx == nil {
		ctx = context.Background()
	}
	mode, err := colourMode(f.colorMode, "mln")
	if err != nil {
		return err
	}
	pm, err := parseMLN(path, f.evidence, mf, f.quiet, false)
	if err != nil {
		return err
	}
	colour := lift.Options{Mode: mode}
	done, why, err := compressFirstOrder(ctx, f.quiet, mf, pm, path, colour, output, stdout)
	if done || err != nil {
		return err
	}
	mm, err := pm.ground(ctx, path, f.quiet)
	if err != nil {
		return err
	}
	mm.notFirstOrder = why
	if mode == lift.Symmetric {
		colour.Symmetric = symmetricTables(mm.gr.Graph)
	}
	ref, err := f.workers.refiner()
	if err != nil {
		return err
	}
	prog := newProgress(f.quiet)
	colour.Progress = prog.colour
	_, st, err := infer.CompressWith(ctx, ref, mm.gr.Graph, nil, true, colour)
	prog.done()
	if err != nil {
		return mlnError(path, err)
	}
	return writeOutput(output, stdout, func(w io.Writer) error {
		return json.NewEncoder(w).Encode(statsOf(st, mm))
	})
}
