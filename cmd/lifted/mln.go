package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/lifted-dev/lifted/bp"
	mlnfile "github.com/lifted-dev/lifted/format/mln"
	"github.com/lifted-dev/lifted/ground"
	"github.com/lifted-dev/lifted/infer"
	"github.com/lifted-dev/lifted/lift"
	"github.com/lifted-dev/lifted/mln"
	"github.com/lifted-dev/lifted/pos"
)

// mlnFlags are the infer flags that only apply to Markov logic networks.
type mlnFlags struct {
	query           []string
	cw, ow          []string
	defaultWeight   optFloat
	maxGround       int64
	alchemyCNF      bool
	mergeDuplicates bool
}

func (f *mlnFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringArrayVarP(&f.query, "query", "q", nil, "MLN: query predicates or atoms, comma-separated, e.g. Smokes,Cancer or 'Friends(Anna,y)' (repeatable)")
	fl.StringSliceVar(&f.cw, "cw", nil, "MLN: predicates to treat as closed-world")
	fl.StringSliceVar(&f.ow, "ow", nil, "MLN: predicates to treat as open-world")
	fl.Var(&f.defaultWeight, "default-weight", "MLN: weight for formulas written without one (otherwise they are an error)")
	fl.Int64Var(&f.maxGround, "max-ground", 0, "MLN: refuse groundings with more ground formulas or atoms than this (0: sized to the available memory; -1: no limit)")
	fl.BoolVar(&f.alchemyCNF, "alchemy-cnf", false, "MLN: reproduce Alchemy's clause weighting (a formula's weight split over its CNF clauses)")
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
func isMLN(path, format string) bool {
	return format == "mln" || (format == "" && strings.EqualFold(filepath.Ext(path), ".mln"))
}

// mlnModel is an MLN with its evidence, grounded, and its query atoms.
type mlnModel struct {
	m       *mln.MLN
	db      *mln.DB
	gr      *ground.Grounding
	queries []queryAtom
}

// queryAtom is one ground query atom that is a variable of the graph.
type queryAtom struct {
	name string
	v    int32
}

// loadMLN parses the model and its evidence, grounds it and lists the
// query atoms.
func loadMLN(ctx context.Context, path string, evidence []string, mf *mlnFlags, quiet, needQuery bool) (*mlnModel, error) {
	m, err := mlnfile.ParseFile(path)
	if err != nil {
		return nil, err
	}
	warn(quiet, m.Warnings)
	var db *mln.DB
	if len(evidence) > 0 {
		if db, err = mlnfile.ReadDBFiles(m, evidence...); err != nil {
			return nil, err
		}
		warn(quiet, db.Warnings)
	} else {
		db = mln.NewDB(m)
	}
	atoms, names, err := parseQuery(m, db, mf.query, needQuery)
	if err != nil {
		return nil, err
	}
	opt := ground.Options{
		Query: names, ClosedWorld: mf.cw, OpenWorld: mf.ow,
		DefaultWeight: mf.defaultWeight.v, UseDefaultWeight: mf.defaultWeight.set,
		MaxGround: mf.maxGround, AlchemyCNF: mf.alchemyCNF, MergeDuplicates: mf.mergeDuplicates,
	}
	prog := newProgress(quiet)
	opt.Progress = func(p ground.Progress) {
		prog.printf("grounding formula %d of %d: %.0f%% of %.3g groundings, %d ground formulas",
			p.Formula, p.Formulas, 100*p.Groundings/math.Max(p.Total, 1), p.Total, p.Factors)
	}
	gr, err := ground.Ground(ctx, m, db, opt)
	prog.done()
	if err != nil {
		return nil, withPath(path, err)
	}
	mm := &mlnModel{m: m, db: db, gr: gr}
	mm.queries = queryAtoms(gr, atoms)
	return mm, nil
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

// parseQuery reads the -q values: predicate names or atoms whose arguments
// are variables or constants, separated by commas outside parentheses. It
// returns the atoms and the names of the query predicates.
func parseQuery(m *mln.MLN, db *mln.DB, values []string, need bool) ([]*mln.Atom, []string, error) {
	var items []string
	for _, v := range values {
		items = append(items, splitTopLevel(v)...)
	}
	if len(items) == 0 {
		if !need {
			return nil, nil, nil
		}
		return nil, nil, usageError{fmt.Errorf("no query: give the predicates to infer with -q, e.g. -q %s (this MLN declares %s)", firstPred(m), predList(m))}
	}
	var names []string
	for _, it := range items {
		name := it
		if i := strings.IndexByte(name, '('); i >= 0 {
			name = name[:i]
		}
		names = append(names, strings.TrimSpace(name))
	}
	if _, err := mln.ClosedWorld(m, db, names, nil, nil); err != nil {
		return nil, nil, usageError{fmt.Errorf("-q: %v (this MLN declares %s)", err, predList(m))}
	}
	atoms, err := mlnfile.ReadQuery(strings.NewReader(strings.Join(items, "\n")), "-q", m)
	if err != nil {
		return nil, nil, usageError{err}
	}
	for _, a := range atoms {
		for _, t := range a.Args {
			if !t.IsVar && db.ConstIndex(t.Type, t.Name) < 0 {
				return nil, nil, usageError{fmt.Errorf("-q: constant %s in %s is not in the domain of type %s", t.Name, a.String(), t.Type)}
			}
		}
	}
	return atoms, names, nil
}

// splitTopLevel splits s at commas outside parentheses and quotes.
func splitTopLevel(s string) []string {
	var out []string
	depth, start := 0, 0
	inQuote := false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"':
			inQuote = !inQuote
		case inQuote:
		case c == '(':
			depth++
		case c == ')':
			depth--
		case c == ',' && depth == 0:
			if p := strings.TrimSpace(s[start:i]); p != "" {
				out = append(out, p)
			}
			start = i + 1
		}
	}
	if p := strings.TrimSpace(s[start:]); p != "" {
		out = append(out, p)
	}
	return out
}

func predList(m *mln.MLN) string {
	var names []string
	for _, p := range m.Preds {
		names = append(names, p.Name)
	}
	if len(names) == 0 {
		return "no predicates"
	}
	return strings.Join(names, ", ")
}

func firstPred(m *mln.MLN) string {
	if len(m.Preds) == 0 {
		return "P"
	}
	return m.Preds[0].Name
}

// queryAtoms lists the ground atoms matching the query atoms that are
// variables of the graph: in the order of the queries, each in constant
// order, without repeats. Evidence atoms are left out.
func queryAtoms(gr *ground.Grounding, atoms []*mln.Atom) []queryAtom {
	var out []queryAtom
	seen := map[int32]bool{}
	for _, a := range atoms {
		d := gr.MLN.Pred(a.Pred)
		want := make([]int, len(a.Args)) // constant index, or -1 for a variable
		for i, t := range a.Args {
			want[i] = -1
			if !t.IsVar {
				want[i] = gr.DB.ConstIndex(t.Type, t.Name)
			}
		}
		gr.Each(d.Index, func(args []int) bool {
			if !matches(a, want, args) {
				return true
			}
			if v, _ := gr.Var(d.Index, args); v >= 0 && !seen[v] {
				seen[v] = true
				out = append(out, queryAtom{name: gr.Name(d.Index, args), v: v})
			}
			return true
		})
	}
	return out
}

// matches reports whether a ground atom's constants fit a query atom:
// constants equal, repeated variables bound alike.
func matches(a *mln.Atom, want, args []int) bool {
	for i, w := range want {
		if w >= 0 && args[i] != w {
			return false
		}
		if w < 0 {
			for j := 0; j < i; j++ {
				if a.Args[j].IsVar && a.Args[j].Name == a.Args[i].Name && args[j] != args[i] {
					return false
				}
			}
		}
	}
	return true
}

// mlnStats are the figures an MLN run reports: the core's and the
// grounding's.
type mlnStats struct {
	infer.Stats
	GroundAtoms    int     `json:"ground_atoms"`
	GroundFormulas int64   `json:"ground_formulas"`
	GroundSeconds  float64 `json:"ground_seconds"`
}

func statsOf(st infer.Stats, gr *ground.Grounding) mlnStats {
	return mlnStats{Stats: st, GroundAtoms: gr.NumAtoms, GroundFormulas: gr.NumFormulas, GroundSeconds: gr.Seconds}
}

func runInferMLN(ctx context.Context, f *inferFlags, path string, stdout io.Writer) error {
	switch f.outFormat {
	case "":
		f.outFormat = "alchemy"
	case "alchemy", "json":
	default:
		return usageError{fmt.Errorf("unknown --output-format %q for an MLN (want alchemy or json)", f.outFormat)}
	}
	opt, err := inferOptions(f, "mln")
	if err != nil {
		return err
	}
	mm, err := loadMLN(ctx, path, f.evidence, &f.mlnFlags, f.quiet, true)
	if err != nil {
		return err
	}
	g := mm.gr.Graph
	if opt.Colour.Mode == lift.Symmetric {
		opt.Colour.Symmetric = symmetricTables(g)
	}
	prog := newProgress(f.quiet)
	opt.BP.Progress = func(it int, ch float64) { prog.printf("BP iteration %d, max change %.3g", it, ch) }
	opt.Colour.Progress = func(round, nv, nf int) {
		prog.printf("colour passing round %d: %d variable and %d factor colours", round, nv, nf)
	}
	res, err := infer.Run(ctx, g, nil, opt)
	prog.done()
	if err != nil {
		return mlnError(path, err)
	}
	if !res.Stats.Converged && !f.quiet {
		fmt.Fprintf(os.Stderr, "lifted: warning: BP did not converge in %d iterations (last max change %.3g); try --damping or --max-iter\n",
			res.Stats.BPIterations, res.BP.MaxChange)
	}
	return writeOutput(f.output, stdout, func(w io.Writer) error {
		if f.outFormat == "json" {
			return writeMLNJSON(w, mm, res, f.maxProduct)
		}
		return writeAlchemy(w, mm, res, f.maxProduct)
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
// for max-product, its MAP value), as Alchemy's infer does.
func writeAlchemy(w io.Writer, mm *mlnModel, res *infer.Result, maxProduct bool) error {
	var asg []int32
	if maxProduct {
		asg = res.BP.Assignment()
	}
	for _, q := range mm.queries {
		var err error
		if maxProduct {
			_, err = fmt.Fprintf(w, "%s %d\n", q.name, asg[q.v])
		} else {
			_, err = fmt.Fprintf(w, "%s %s\n", q.name, formatProb(res.BP.Marginal(int(q.v))[1]))
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
// "assignment" for max-product, with the atoms in output order.
func writeMLNJSON(w io.Writer, mm *mlnModel, res *infer.Result, maxProduct bool) error {
	var b strings.Builder
	key := "marginals"
	var asg []int32
	if maxProduct {
		key = "assignment"
		asg = res.BP.Assignment()
	}
	fmt.Fprintf(&b, "{%q:{", key)
	for i, q := range mm.queries {
		if i > 0 {
			b.WriteByte(',')
		}
		name, _ := json.Marshal(q.name)
		b.Write(name)
		b.WriteByte(':')
		if maxProduct {
			fmt.Fprintf(&b, "%d", asg[q.v])
		} else {
			b.WriteString(strconv.FormatFloat(res.BP.Marginal(int(q.v))[1], 'g', -1, 64))
		}
	}
	b.WriteString("}")
	if !maxProduct {
		lz, _ := json.Marshal(finite(res.BP.LogZ + mm.gr.LogZOffset))
		b.WriteString(`,"log_z":`)
		b.Write(lz)
	}
	st, err := json.Marshal(statsOf(res.Stats, mm.gr))
	if err != nil {
		return err
	}
	b.WriteString(`,"stats":`)
	b.Write(st)
	b.WriteString("}\n")
	_, err = io.WriteString(w, b.String())
	return err
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
	mm, err := loadMLN(ctx, path, f.evidence, mf, f.quiet, false)
	if err != nil {
		return err
	}
	opt := infer.Options{Lifted: true, Colour: lift.Options{Mode: mode}}
	if mode == lift.Symmetric {
		opt.Colour.Symmetric = symmetricTables(mm.gr.Graph)
	}
	prog := newProgress(f.quiet)
	opt.Colour.Progress = func(round, nv, nf int) {
		prog.printf("colour passing round %d: %d variable and %d factor colours", round, nv, nf)
	}
	_, st, err := infer.Compress(ctx, mm.gr.Graph, nil, opt)
	prog.done()
	if err != nil {
		return mlnError(path, err)
	}
	return writeOutput(output, stdout, func(w io.Writer) error {
		return json.NewEncoder(w).Encode(statsOf(st, mm.gr))
	})
}

// expandModel reads the databases (each a list of files) against m and, if
// m has per-constant variables ("+x") or starred atoms ("*P"), expands
// those formulas (mln.Expand) — "+x" over the constants m declares and
// those of all the databases, one formula and so one weight per constant,
// as Alchemy learns them — and reads the databases again against the
// expanded model, whose formula constants belong to every database's
// domain.
func expandModel(m *mln.MLN, dbFiles [][]string) (*mln.MLN, []*mln.DB, error) {
	read := func(m *mln.MLN) ([]*mln.DB, error) {
		dbs := make([]*mln.DB, len(dbFiles))
		for i, files := range dbFiles {
			var err error
			if dbs[i], err = mlnfile.ReadDBFiles(m, files...); err != nil {
				return nil, err
			}
		}
		return dbs, nil
	}
	dbs, err := read(m)
	if err != nil {
		return nil, nil, err
	}
	domain := func(typ string) []string {
		var out []string
		seen := map[string]bool{}
		add := func(cs []string) {
			for _, c := range cs {
				if !seen[c] {
					seen[c] = true
					out = append(out, c)
				}
			}
		}
		if t := m.Type(typ); t != nil {
			add(t.Constants)
		}
		for _, db := range dbs {
			add(db.Domain(typ))
		}
		return out
	}
	m2, _, err := mln.Expand(m, domain)
	if err != nil || m2 == m {
		return m, dbs, err
	}
	dbs, err = read(m2)
	return m2, dbs, err
}

// needsExpansion reports whether a formula of m has a "+x" variable or a
// starred atom.
func needsExpansion(m *mln.MLN) bool {
	if hasPerConstantVar(m) {
		return true
	}
	star := false
	for _, f := range m.Formulas {
		mln.Inspect(f.Expr, func(e mln.Expr) bool {
			if a, ok := e.(*mln.Atom); ok && a.Star {
				star = true
			}
			return !star
		})
	}
	return star
}

// hasPerConstantVar reports whether a formula of m has a "+x" variable.
func hasPerConstantVar(m *mln.MLN) bool {
	for _, f := range m.Formulas {
		for _, v := range f.Vars {
			if v.PerConstant {
				return true
			}
		}
	}
	return false
}
