package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/lifted-dev/lifted/dynamic"
	mlnfile "github.com/lifted-dev/lifted/format/mlnfile"
	"github.com/lifted-dev/lifted/ground"
	"github.com/lifted-dev/lifted/mln"
	"github.com/lifted-dev/lifted/pos"
)

// dynamicFlags are infer's flags for dynamic MLNs (--dynamic).
type dynamicFlags struct {
	on       bool
	horizon  int
	protocol string
	filter   bool
	smooth   bool
	plot     string
	plotAtom []string
}

func (d *dynamicFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.BoolVar(&d.on, "dynamic", false, "dynamic MLN: unroll over the time steps and run the factored frontier (FF, --method bp) or lifted FF (--method lbp, the default); evidence (.db files, or directories of per-step .db files) names steps as constants")
	fl.IntVar(&d.horizon, "horizon", -1, "dynamic: last time step T (steps 0..T; default: the declared range of the time type)")
	fl.StringVar(&d.protocol, "protocol", "fb", "dynamic: message protocol: fb (forwards-backwards, the factored frontier) or flood")
	fl.BoolVar(&d.filter, "filter", false, "dynamic: only the filtered marginals P(X_t | evidence of steps 0..t), step by step")
	fl.BoolVar(&d.smooth, "smooth", false, "dynamic: only the smoothed marginals (all evidence)")
	fl.StringVar(&d.plot, "plot", "", "dynamic: draw the marginals of the query fluents over time with gonum/plot (.png, .svg or .pdf)")
	fl.StringArrayVar(&d.plotAtom, "plot-atom", nil, "dynamic: atoms to draw, without the time argument, e.g. 'Cancer(A)' (repeatable; default: the first 8)")
}

// dynamicJSON is --output-format json under --dynamic.
type dynamicJSON struct {
	Horizon  int            `json:"horizon"`
	Protocol string         `json:"protocol"`
	Method   string         `json:"method"`
	Filtered []timeStepJSON `json:"filtered,omitempty"`
	Smoothed *timeStepJSON  `json:"smoothed,omitempty"`
	Stats    dynamicStats   `json:"stats"`
}

type timeStepJSON struct {
	Step      int                `json:"step"`
	Marginals map[string]float64 `json:"marginals"`
	Stats     dynamic.Stats      `json:"stats"`
}

// dynamicStats totals the runs.
type dynamicStats struct {
	Runs           int     `json:"runs"`
	Edges          int64   `json:"edges"`
	Messages       int64   `json:"messages"`
	ClusterNodes   int64   `json:"clusternodes"`
	GroundAtoms    int     `json:"ground_atoms"`
	GroundFormulas int64   `json:"ground_formulas"`
	GroundSeconds  float64 `json:"ground_seconds"`
	LiftSeconds    float64 `json:"lift_seconds"`
	BPSeconds      float64 `json:"bp_seconds"`
}

func (s *dynamicStats) add(st dynamic.Stats) {
	s.Runs++
	s.Edges += int64(st.Edges)
	s.Messages += st.Messages
	s.ClusterNodes += int64(st.ClusterNodes)
	s.LiftSeconds += st.LiftSeconds
	s.BPSeconds += st.BPSeconds
}

// dynamicEvidence expands directories into their .db files (sorted).
func dynamicEvidence(paths []string) ([]string, error) {
	var out []string
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !fi.IsDir() {
			out = append(out, p)
			continue
		}
		files, err := filepath.Glob(filepath.Join(p, "*.db"))
		if err != nil {
			return nil, err
		}
		if len(files) == 0 {
			return nil, fmt.Errorf("%s: no .db files in the evidence directory", p)
		}
		sort.Strings(files)
		out = append(out, files...)
	}
	return out, nil
}

func runInferDynamic(ctx context.Context, cmd *cobra.Command, f *inferFlags, path string, stdout io.Writer) error {
	d := &f.dyn
	switch f.outFormat {
	case "":
		f.outFormat = "alchemy"
	case "alchemy", "json":
	default:
		return usageError{fmt.Errorf("unknown --output-format %q for a dynamic MLN (want alchemy or json)", f.outFormat)}
	}
	if f.method == "auto" {
		f.method = "lbp"
	}
	for _, name := range []string{"max-product", "schedule"} {
		if cmd.Flags().Lookup(name).Changed {
			return usageError{fmt.Errorf("--%s does not apply to --dynamic (--protocol sets BP's message order)", name)}
		}
	}
	switch d.protocol {
	case "fb", "flood":
	default:
		return usageError{fmt.Errorf("unknown --protocol %q (want fb or flood)", d.protocol)}
	}
	if f.method == "lbp" || f.method == "bp" {
		if err := cmd.Flags().Set("schedule", d.protocol); err != nil {
			return err
		}
	} else if cmd.Flags().Lookup("protocol").Changed {
		return usageError{fmt.Errorf("--protocol applies to --method lbp and bp only")}
	}
	alg, iopt, err := inferSetup(cmd, f, "mln")
	if err != nil {
		return err
	}
	ro := dynamic.RunOptions{Lifted: iopt.Lifted, Algorithm: alg, Lift: iopt.Colour, Seed: f.seed}
	if d.filter && d.smooth {
		return usageError{fmt.Errorf("--filter and --smooth exclude each other (without either, both are printed)")}
	}
	var plotFmt string
	if d.plot != "" {
		var err error
		if plotFmt, err = plotFormat(d.plot); err != nil {
			return err
		}
	}
	m, err := mlnfile.ParseFile(path)
	if err != nil {
		return err
	}
	warn(f.quiet, m.Warnings)
	evFiles, err := dynamicEvidence(f.evidence)
	if err != nil {
		return err
	}
	queries := f.query
	if len(f.queryFiles) > 0 {
		qf, err := readQueryFiles(m, f.queryFiles)
		if err != nil {
			return err
		}
		queries = append(append([]string(nil), queries...), qf...)
	}
	if len(queries) == 0 {
		return usageError{fmt.Errorf("--dynamic needs query fluents (-q), e.g. -q Cancer")}
	}
	read := func(static *mln.MLN) (*mln.DB, error) {
		if len(evFiles) == 0 {
			return mln.NewDB(static), nil
		}
		db, err := mlnfile.ReadDBFiles(static, evFiles...)
		if err == nil {
			warn(f.quiet, db.Warnings)
		}
		return db, err
	}
	gopt := ground.Options{ClosedWorld: f.cw, OpenWorld: f.ow,
		DefaultWeight: f.defaultWeight.v, UseDefaultWeight: f.defaultWeight.set,
		MaxGround: f.maxGround, AlchemyCNF: f.alchemyCNF, MergeDuplicates: f.mergeDuplicates}
	md, err := dynamic.Unroll(ctx, m, read, dynamic.Options{Horizon: d.horizon, Query: queries, Ground: gopt})
	var el pos.ErrorList
	if errors.As(err, &el) {
		return err
	}
	if err != nil {
		return mlnError(path, err)
	}
	out := dynamicJSON{Horizon: md.Horizon, Protocol: d.protocol, Method: f.method}
	out.Stats.GroundAtoms, out.Stats.GroundFormulas, out.Stats.GroundSeconds = md.Grounding.NumAtoms, md.Grounding.NumFormulas, md.Grounding.Seconds
	names := func(p map[int]float64) map[string]float64 {
		o := map[string]float64{}
		for i, v := range p {
			o[md.Queries[i].Name] = v
		}
		return o
	}
	notConv := 0
	var filtered = map[int]float64{}
	if !d.smooth {
		err := md.Filter(ctx, ro, func(s dynamic.Step) error {
			out.Stats.add(s.Stats)
			if !s.Stats.Converged {
				notConv++
			}
			for i, p := range s.Marginals {
				filtered[i] = p
			}
			out.Filtered = append(out.Filtered, timeStepJSON{Step: s.Step, Marginals: names(s.Marginals), Stats: s.Stats})
			return nil
		})
		if err != nil {
			return mlnError(path, err)
		}
	}
	var smoothed map[int]float64
	if !d.filter {
		s, err := md.Smooth(ctx, ro)
		if err != nil {
			return mlnError(path, err)
		}
		out.Stats.add(s.Stats)
		if !s.Stats.Converged {
			notConv++
		}
		smoothed = s.Marginals
		out.Smoothed = &timeStepJSON{Step: s.Step, Marginals: names(s.Marginals), Stats: s.Stats}
	}
	if notConv > 0 && !f.allowUnconverged {
		return fmt.Errorf("%s: %d of %d runs did not converge; raise --max-iter (or --samples), add --damping, or use --allow-unconverged", path, notConv, out.Stats.Runs)
	}
	if notConv > 0 && !f.quiet {
		fmt.Fprintf(os.Stderr, "lifted: warning: NOT CONVERGED: %d of %d runs\n", notConv, out.Stats.Runs)
	}
	if !f.quiet {
		fmt.Fprintf(os.Stderr, "lifted: dynamic: %d steps, %d ground atoms; %d runs, %d messages, %d edges\n", md.Horizon+1, md.Grounding.NumAtoms, out.Stats.Runs, out.Stats.Messages, out.Stats.Edges)
	}
	if d.plot != "" {
		p, title := smoothed, "smoothed marginals"
		if p == nil {
			p, title = filtered, "filtered marginals"
		}
		series := md.SeriesOf(p)
		if len(d.plotAtom) > 0 {
			var keep []dynamic.Series
			for _, want := range d.plotAtom {
				want = strings.ReplaceAll(want, " ", "")
				found := false
				for _, s := range series {
					if s.Label == want {
						keep, found = append(keep, s), true
					}
				}
				if !found {
					return usageError{fmt.Errorf("--plot-atom %s: no such query atom (write it without the time argument, e.g. Cancer(A))", want)}
				}
			}
			series = keep
		} else if len(series) > 8 {
			series = series[:8]
		}
		if err := writeOutput(d.plot, stdout, func(w io.Writer) error { return dynamic.WritePlot(w, plotFmt, title, series) }); err != nil {
			return err
		}
	}
	return writeOutput(f.output, stdout, func(w io.Writer) error {
		if f.outFormat == "json" {
			var b bytes.Buffer
			enc := json.NewEncoder(&b)
			enc.SetEscapeHTML(false)
			if err := enc.Encode(out); err != nil {
				return err
			}
			_, err := w.Write(b.Bytes())
			return err
		}
		for _, s := range out.Filtered {
			if _, err := fmt.Fprintf(w, "// step %d: filtered (evidence of steps 0..%d)\n", s.Step, s.Step); err != nil {
				return err
			}
			if err := writeDynamicLines(w, md, s.Marginals); err != nil {
				return err
			}
		}
		if out.Smoothed != nil {
			if _, err := fmt.Fprintf(w, "// smoothed (evidence of steps 0..%d)\n", md.Horizon); err != nil {
				return err
			}
			return writeDynamicLines(w, md, out.Smoothed.Marginals)
		}
		return nil
	})
}

// writeDynamicLines prints Alchemy result lines in query order.
func writeDynamicLines(w io.Writer, md *dynamic.Model, p map[string]float64) error {
	for _, q := range md.Queries {
		v, ok := p[q.Name]
		if !ok {
			continue
		}
		if _, err := fmt.Fprintf(w, "%s %s\n", q.Name, formatProb(v)); err != nil {
			return err
		}
	}
	return nil
}
