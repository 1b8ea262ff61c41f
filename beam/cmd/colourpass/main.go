// Command colourpass runs colour passing as an Apache Beam pipeline and
// writes the statistics JSON of "lifted compress" (and the colour of every
// variable and factor beside it).
//
//	go run ./cmd/colourpass --runner=prism --input MODEL [--evidence EV] --output STATS.json
//
// MODEL is a .uai, .fg or .cnf factor graph, an Alchemy .mln with .db
// evidence (grounded by the driver, as lifted compress --construction ground
// grounds it), or a sharded edge list that only the workers read (a glob
// such as 'gs://bucket/g/edges-*.txt'; lifted convert --to edgelist writes
// one). --runner is Beam's: prism (the
// local runner, the default), or universal with --endpoint for a Flink or
// Spark job server, or dataflow (see beam/README.md).
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/x/beamx"

	"github.com/lifted-dev/lifted/beam/colourpass"
	"github.com/lifted-dev/lifted/beam/internal/listflag"
	"github.com/lifted-dev/lifted/beam/internal/wholefile"
	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/format"
	"github.com/lifted-dev/lifted/ground"
	"github.com/lifted-dev/lifted/infer"
	"github.com/lifted-dev/lifted/lift"
)

// config holds the flags.
type config struct {
	input, output, colours, format, colorMode, workDir string
	evidence                                           listflag.Repeated
	parts, perJob                                      int
	quiet                                              bool
	// MLN input, as lifted compress takes it.
	query, queryFiles listflag.Repeated
	cw, ow            listflag.Comma
	defaultWeight     float64
	useDefaultWeight  bool
	maxGround         int64
	alchemyCNF, merge bool
}

func main() {
	var c config
	flag.StringVar(&c.input, "input", "", "model: a .uai, .fg or .cnf factor graph, an Alchemy .mln (grounded here), or an edge list: a glob of shards on any Beam filesystem (lifted convert --to edgelist; --format edgelist, or a name ending in .txt or with * ? [) (required)")
	flag.Var(&c.evidence, "evidence", "evidence: UAI .evid for a factor graph, Alchemy .db for an MLN (repeatable)")
	flag.StringVar(&c.output, "output", "", "statistics JSON, as lifted compress writes it (required)")
	flag.StringVar(&c.colours, "colours", "", "colour of every variable and factor, one \"v|f ID CLASS\" line each (default: OUTPUT with .colours.txt; any Beam filesystem for an edge list)")
	flag.StringVar(&c.format, "format", "", "model format: uai, fg, cnf, mln or edgelist (default: from the extension)")
	flag.StringVar(&c.colorMode, "color-mode", "auto", "auto, positional, symmetric or cnf, as lifted compress (an edge list has its colouring already)")
	flag.IntVar(&c.parts, "parts", 4, "parts the graph is split into (by variable ranges, copy nodes at the borders)")
	flag.IntVar(&c.perJob, "rounds-per-job", 4, "colour-passing rounds per Beam job")
	flag.StringVar(&c.workDir, "workdir", "", "directory for parts and colours between jobs, on a filesystem the workers read (default: a temporary directory, local runners only)")
	flag.BoolVar(&c.quiet, "quiet", false, "no progress on stderr")
	flag.Var(&c.query, "q", "MLN: query predicates or atoms, comma-separated, as lifted compress -q (repeatable)")
	flag.Var(&c.queryFiles, "query-file", "MLN: file of query atoms (repeatable)")
	flag.Var(&c.cw, "cw", "MLN: predicates to treat as closed-world")
	flag.Var(&c.ow, "ow", "MLN: predicates to treat as open-world")
	flag.Func("default-weight", "MLN: weight for formulas written without one", func(s string) error {
		w, err := strconv.ParseFloat(s, 64)
		c.defaultWeight, c.useDefaultWeight = w, true
		return err
	})
	flag.Int64Var(&c.maxGround, "max-ground", 0, "MLN: refuse groundings with more ground formulas or atoms than this (0: sized to the available memory; -1: no limit)")
	flag.BoolVar(&c.alchemyCNF, "alchemy-cnf", false, "MLN: Alchemy's clause weighting")
	flag.BoolVar(&c.merge, "merge-duplicates", false, "MLN: one factor per set of atoms, as Alchemy")
	flag.Parse()
	beam.Init()
	if err := run(context.Background(), &c); err != nil {
		fmt.Fprintln(os.Stderr, "colourpass:", err)
		os.Exit(1)
	}
}

// isEdgeList tells whether the input is an edge list.
func isEdgeList(input, formatFlag string) bool {
	return formatFlag == "edgelist" || formatFlag == "" && (strings.HasSuffix(strings.ToLower(input), ".txt") || strings.ContainsAny(input, "*?["))
}

func run(ctx context.Context, c *config) error {
	if c.input == "" || c.output == "" {
		return fmt.Errorf("need --input MODEL and --output STATS.json")
	}
	if c.parts < 1 || c.perJob < 1 {
		return fmt.Errorf("--parts and --rounds-per-job must be at least 1")
	}
	if c.colours == "" {
		c.colours = strings.TrimSuffix(c.output, filepath.Ext(c.output)) + ".colours.txt"
	}
	var opt lift.Options
	if !c.quiet {
		opt.Progress = func(round, v, f int) {
			fmt.Fprintf(os.Stderr, "colourpass: round %d: %d variable and %d factor colours\n", round, v, f)
		}
	}
	var st colourpass.Stats
	r := colourpass.Refiner{Parts: c.parts, RoundsPerJob: c.perJob, WorkDir: c.workDir, Run: beamx.Run, Stats: &st}
	start := time.Now()
	report := func() {
		if !c.quiet {
			fmt.Fprintf(os.Stderr, "colourpass: %d parts, %d cut edges, %d+%d copy nodes, %d jobs, %.3f s\n",
				st.Parts, st.CutEdges, st.CopyVars, st.CopyFactors, st.Jobs, time.Since(start).Seconds())
		}
	}
	if isEdgeList(c.input, c.format) {
		if len(c.evidence) > 0 || (c.colorMode != "auto" && c.colorMode != "") {
			return fmt.Errorf("an edge list holds its evidence and colouring already (lifted convert -e, --color-mode): --evidence and --color-mode do not apply")
		}
		res, err := r.RefineEdgeList(ctx, c.input, c.colours, opt)
		if err != nil {
			return err
		}
		report()
		stats := infer.Stats{Variables: int(res.Variables), Factors: int(res.Factors), Edges: int(res.Edges),
			Clusternodes: int(res.Clusternodes), Clusterfactors: int(res.Clusterfactors), LiftedEdges: int(res.LiftedEdges),
			ColorIter: res.Rounds, ColorSeconds: time.Since(start).Seconds(), Lifting: "exact"}
		return wholefile.Write(c.output, func(w io.Writer) error { return json.NewEncoder(w).Encode(stats) })
	}
	g, ev, mm, err := load(ctx, c)
	if err != nil {
		return err
	}
	switch c.colorMode {
	case "auto", "":
		if mm == nil && g.format == "cnf" {
			opt.Mode = lift.CNF
		}
	case "positional":
	case "cnf":
		opt.Mode = lift.CNF
	case "symmetric":
		opt.Mode = lift.Symmetric
		opt.Symmetric = make([]bool, len(g.graph.Tables))
		for t := range g.graph.Tables {
			opt.Symmetric[t] = lift.IsSymmetric(&g.graph.Tables[t])
		}
	default:
		return fmt.Errorf("unknown --color-mode %q (want auto, positional, symmetric or cnf)", c.colorMode)
	}
	cg, stats, err := infer.CompressWith(ctx, r, g.graph, ev, true, opt)
	if err != nil {
		return err
	}
	report()
	if err := wholefile.Write(c.colours, func(w io.Writer) error {
		for v, x := range cg.NodeOf {
			fmt.Fprintf(w, "v %d %d\n", v, x)
		}
		for f, x := range cg.FactorOf {
			fmt.Fprintf(w, "f %d %d\n", f, x)
		}
		return nil
	}); err != nil {
		return err
	}
	var out any = stats
	if mm != nil {
		out = infer.MLNStats{Stats: stats, GroundAtoms: int64(mm.NumAtoms), GroundFormulas: mm.NumFormulas, GroundSeconds: mm.Seconds,
			ConstructionReason: "the Beam pipeline colours the grounding"}
	}
	return wholefile.Write(c.output, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false)
		return enc.Encode(out)
	})
}

type loaded struct {
	graph  *fg.Graph
	format string
}

// load reads a factor graph with its evidence, or grounds an MLN with its
// .db evidence as lifted compress --construction ground does (then the
// grounding is returned too and the evidence is in the graph).
func load(ctx context.Context, c *config) (loaded, fg.Evidence, *ground.Grounding, error) {
	if !format.IsMLN(c.input, c.format) {
		m, err := format.Load(c.input, format.Options{Format: c.format})
		if err != nil {
			return loaded{}, nil, nil, err
		}
		ev, err := format.LoadEvidence(c.evidence, m.Graph)
		return loaded{m.Graph, m.Format}, ev, nil, err
	}
	in, err := ground.ReadInput(c.input, c.evidence, c.query, c.queryFiles)
	if err != nil {
		return loaded{}, nil, nil, err
	}
	if !c.quiet {
		for _, w := range in.Warnings {
			fmt.Fprintln(os.Stderr, "colourpass: warning:", w)
		}
	}
	gr, err := ground.Ground(ctx, in.MLN, in.DB, ground.Options{
		QueryAtoms: in.Query, ClosedWorld: c.cw, OpenWorld: c.ow,
		DefaultWeight: c.defaultWeight, UseDefaultWeight: c.useDefaultWeight,
		MaxGround: c.maxGround, AlchemyCNF: c.alchemyCNF, MergeDuplicates: c.merge,
	})
	if err != nil {
		return loaded{}, nil, nil, fmt.Errorf("%s: %w", c.input, err)
	}
	return loaded{gr.Graph, "mln"}, nil, gr, nil
}
